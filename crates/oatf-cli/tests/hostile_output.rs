//! Output errors (issue 13, class 10): every command checks its writes and its final flush, exits
//! non-zero with a message when the output cannot be written (`> /dev/full`), and ends quietly, with
//! its own exit code, when the reader closes the pipe (`| head -c1`).
#![allow(
    clippy::unwrap_used,
    reason = "test setup failures should stop the test"
)]
#![cfg(target_os = "linux")]

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};

fn examples() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"))
}

const DOC: &str = "a2a-skill-poisoning.yaml";
const TRACE: &str = "a2a-skill-poisoning.complied.jsonl";

fn commands() -> Vec<(Vec<&'static str>, i32)> {
    // Each command, and its exit code for a failed write.
    vec![
        (vec!["validate", DOC], 2),
        (vec!["validate", "--format", "json", DOC], 2),
        (vec!["normalize", DOC], 2),
        (vec!["catalog", "."], 2),
        (vec!["test", "."], 2),
        (vec!["evaluate", DOC, TRACE], 74),
        (vec!["evaluate", "--format", "sarif", DOC, TRACE], 74),
        (vec!["conformance"], 2),
    ]
}

#[test]
fn a_full_disk_is_an_error_with_a_message() {
    for (args, code) in commands() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_oatf"))
            .args(&args)
            .current_dir(examples())
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stderr.contains("error: cannot write the output: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for (args, _) in commands() {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oatf"))
            .args(&args)
            .current_dir(examples())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read one byte, then close the pipe, as `| head -c1` does.
        let mut stdout = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        let _ = stdout.read(&mut byte);
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_ne!(output.status.code(), Some(101), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("cannot write the output"),
            "{args:?}: {stderr}"
        );
    }
}
