//! Commands run in-process: parsed from their arguments as `main` parses them, their report written
//! into a buffer through an [`Output`], so the text and the exit code are checked without spawning
//! the binary. (The binary's own behaviour, with real standard streams, is tested under `tests/`.)

use std::io::Write;
use std::path::PathBuf;

use clap::Parser as _;

use super::{Cli, run};
use crate::output::{EXIT_IOERR, Output};

/// A valid document (the tests read no file outside the crate, so that they pass from the packaged
/// crate too).
const VALID: &str = include_str!("tests/exfiltration.yaml");

/// A file with `text` in the system's temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("oatf-cli-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("the temporary directory is writable");
        TempFile(path)
    }

    fn arg(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `oatf ARGS...` in-process: the exit code (after [`Output::finish`]) and standard output.
#[track_caller]
fn oatf(args: &[&str]) -> (u8, String) {
    let cli = Cli::try_parse_from(std::iter::once("oatf").chain(args.iter().copied()))
        .expect("the arguments parse");
    let mut buffer = Vec::new();
    let mut out = Output::new(&mut buffer);
    let code = run(cli.command, &mut out);
    let code = out.finish(code);
    (
        code,
        String::from_utf8(buffer).expect("the output is UTF-8"),
    )
}

#[test]
fn validate_reports_a_valid_document() {
    let file = TempFile::new("valid.yaml", VALID);
    let (code, text) = oatf(&["validate", file.arg()]);
    assert_eq!(code, 0);
    assert_eq!(text, format!("{}: valid (0 warnings)\n", file.arg()));
}

#[test]
fn validate_reports_a_missing_field_with_its_rule_and_exits_1() {
    let file = TempFile::new(
        "missing-execution.yaml",
        "oatf: \"0.1\"\nattack:\n  name: x\n",
    );
    let (code, text) = oatf(&["validate", file.arg()]);
    assert_eq!(code, 1);
    // V-004: a required field is missing (format §11.1.4), pointed at by its path and line.
    assert!(text.contains("V-004"), "{text}");
    assert!(text.contains("(at `attack.execution`)"), "{text}");
    assert!(text.contains(":3:3]"), "{text}");
    assert!(
        text.ends_with(&format!("{}: invalid (1 error, 0 warnings)\n", file.arg())),
        "{text}"
    );

    let (code, json) = oatf(&["validate", "--format", "json", file.arg()]);
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&json).expect("the report is JSON");
    assert_eq!(report[0]["valid"], false);
    assert_eq!(report[0]["errors"][0]["rule"], "V-004");
    assert_eq!(report[0]["errors"][0]["path"], "attack.execution");
}

#[test]
fn normalize_writes_the_canonical_form_which_is_a_fixed_point() {
    let source = TempFile::new("source.yaml", VALID);
    let (code, canonical) = oatf(&["normalize", source.arg()]);
    assert_eq!(code, 0);
    // Normalizing fills the defaults (SDK §3.3), so the canonical form is not the source.
    assert_ne!(canonical, VALID);
    assert!(canonical.starts_with("oatf: "), "{canonical}");
    // The canonical form is already normalized: `--check` accepts it and prints nothing.
    let file = TempFile::new("canonical.yaml", &canonical);
    assert_eq!(
        oatf(&["normalize", "--check", file.arg()]),
        (0, String::new())
    );
    assert_eq!(oatf(&["normalize", file.arg()]), (0, canonical));
}

#[test]
fn normalize_check_exits_1_when_a_document_is_not_canonical() {
    let source = TempFile::new("commented-source.yaml", VALID);
    let (_, canonical) = oatf(&["normalize", source.arg()]);
    let file = TempFile::new("not-canonical.yaml", &format!("# a comment\n{canonical}"));
    assert_eq!(
        oatf(&["normalize", "--check", file.arg()]),
        (1, String::new())
    );
}

#[test]
fn schema_prints_the_document_schema() {
    let (code, text) = oatf(&["schema"]);
    assert_eq!(code, 0);
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    assert!(
        schema["$schema"]
            .as_str()
            .is_some_and(|s| s.contains("2020-12"))
    );
}

/// A sink that refuses every write, as a full disk does.
struct Full;

impl Write for Full {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::StorageFull.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_report_that_cannot_be_written_exits_74() {
    let cli = Cli::try_parse_from(["oatf", "schema"]).expect("the arguments parse");
    let mut out = Output::new(Full);
    let code = run(cli.command, &mut out);
    assert_eq!(code, 0, "the command itself succeeds");
    assert_eq!(out.finish(code), EXIT_IOERR);
}
