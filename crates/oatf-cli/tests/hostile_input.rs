//! `oatf validate` on hostile files: invalid UTF-8 is located, a file over the input limit is refused
//! without being read whole (`docs/input-safety.md`).

use std::path::PathBuf;
use std::process::Command;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oatf-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs `oatf validate FILE` and returns (success, stderr).
fn validate(file: &PathBuf) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_oatf"))
        .arg("validate")
        .arg(file)
        .output()
        .expect("the oatf binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn invalid_utf8_file_is_located() {
    let dir = temp_dir("utf8");
    let file = dir.join("bad.yaml");
    std::fs::write(&file, b"oatf: \"0.1\"\nattack:\n  name: caf\xe9\n").expect("write");
    let (ok, stderr) = validate(&file);
    assert!(!ok);
    assert!(
        stderr.contains(
            "the input is not valid utf-8: invalid byte 0xe9 at byte 31 (line 3, column 12)"
        ),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fifty_megabyte_file_is_refused_without_reading_it_whole() {
    let dir = temp_dir("big");
    let file = dir.join("big.yaml");
    // A sparse file: 50 MB long, nothing written.
    std::fs::File::create(&file)
        .and_then(|f| f.set_len(50 << 20))
        .expect("sparse file");
    let started = std::time::Instant::now();
    let (ok, stderr) = validate(&file);
    assert!(!ok);
    assert!(
        stderr.contains("is larger than the input limit of 10485760 bytes"),
        "{stderr}"
    );
    // A backstop only (the refusal message above is the property): reading 50 MB would not take minutes.
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
    let _ = std::fs::remove_dir_all(&dir);
}
