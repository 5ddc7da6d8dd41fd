//! `oatf validate` on hostile files: invalid UTF-8 is located, a file over the input limit is refused
//! without being read whole (`docs/input-safety.md`).

use std::path::Path;

use crate::support::{TempDir, command, text};

/// Runs `oatf validate FILE` and returns (success, stderr).
fn validate(file: &Path) -> (bool, String) {
    let output = command()
        .arg("validate")
        .arg(file)
        .output()
        .expect("the oatf binary runs");
    (output.status.success(), text(&output.stderr))
}

#[test]
fn invalid_utf8_file_is_located() {
    let dir = TempDir::new("input", "utf8");
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, b"oatf: \"0.1\"\nattack:\n  name: caf\xe9\n").expect("write");
    let (ok, stderr) = validate(&file);
    assert!(!ok);
    assert!(
        stderr.contains(
            "the input is not valid utf-8: invalid byte 0xe9 at byte 31 (line 3, column 12)"
        ),
        "{stderr}"
    );
}

#[test]
fn fifty_megabyte_file_is_refused_without_reading_it_whole() {
    let dir = TempDir::new("input", "big");
    let file = dir.path().join("big.yaml");
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
}
