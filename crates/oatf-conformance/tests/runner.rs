//! The runner's own policy: failures are reported by id, panics are isolated, duplicate ids and unreadable
//! cases fail, known failures must stay true, the filter selects.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on setup errors"
)]

use std::fs;
use std::path::{Path, PathBuf};

use oatf_conformance::{Filter, KnownFailures, Outcome, load_suite, run_loaded, run_suite};

/// A fresh directory under the system temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("oatf-conformance-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const DURATIONS: &str = "\
# comment lines may open a file
- name: right
  id: D-1
  input: 30s
  expected: {seconds: 30}
- name: wrong on purpose
  id: D-2
  input: 1m
  expected: {seconds: 61}
- name: same id again
  id: D-1
  input: 1h
  expected: {seconds: 3600}
- name: no expected
  id: D-3
  input: 1h
  extra_key_is_fine: true
";

#[test]
fn failures_are_reported_by_id_with_expected_and_actual() {
    let suite = Scratch::new("fail");
    suite.write("primitives/parse-duration.yaml", DURATIONS);
    let report = run_suite(suite.path(), &Filter::default(), &KnownFailures::none());
    let text = report.to_string();
    assert_eq!(report.passed(), 1, "{text}");
    assert_eq!(report.failed(), 3, "{text}");
    assert!(
        text.contains("FAIL D-2 (primitives/parse-duration.yaml): wrong on purpose"),
        "{text}"
    );
    assert!(text.contains(r#"expected: {"seconds":61}"#), "{text}");
    assert!(text.contains(r#"actual:   {"seconds":60}"#), "{text}");
    assert!(text.contains("another case has the same id"), "{text}");
    assert!(text.contains("FAIL D-3"), "{text}");
    assert!(text.ends_with("1 passed, 3 failed, 0 skipped"), "{text}");
    assert!(!report.is_success());
}

#[test]
fn a_panicking_case_fails_alone() {
    let suite = Scratch::new("panic");
    suite.write(
        "primitives/parse-duration.yaml",
        "- {name: a, id: P-1, input: 1s, expected: {seconds: 1}}\n\
         - {name: b, id: P-2, input: 2s, expected: {seconds: 2}}\n\
         - {name: c, id: P-3, input: 3s, expected: {seconds: 3}}\n",
    );
    let report = run_loaded(
        load_suite(suite.path()),
        &Filter::default(),
        &KnownFailures::none(),
        |case| {
            assert!(case.id != "P-2", "boom in {}", case.id);
            Outcome::Pass
        },
    );
    assert_eq!(report.passed(), 2);
    assert_eq!(report.failed(), 1);
    let text = report.to_string();
    assert!(
        text.contains("FAIL P-2") && text.contains("the SDK panicked: boom in P-2"),
        "{text}"
    );
}

#[test]
fn known_failures_must_stay_true() {
    let suite = Scratch::new("known");
    suite.write("primitives/parse-duration.yaml", DURATIONS);
    suite.write(
        "known.txt",
        "# id reason\nD-2 expected value is wrong on purpose\nD-3 no expected key\nD-1 listed but passes\n\
         GONE-1 no such case\n",
    );
    let known = KnownFailures::load(&suite.path().join("known.txt")).unwrap();
    let report = run_suite(suite.path(), &Filter::default(), &known);
    let text = report.to_string();
    assert!(text.contains("known failure D-2"), "{text}");
    assert!(
        text.contains("FAIL D-1 (primitives/parse-duration.yaml): passes but is listed"),
        "{text}"
    );
    assert!(
        text.contains("FAIL GONE-1: listed as a known failure but no such case exists"),
        "{text}"
    );
    assert!(!report.is_success());

    suite.write("known.txt", "D-2 wrong on purpose\nD-3 no expected key\n");
    let known = KnownFailures::load(&suite.path().join("known.txt")).unwrap();
    let only_known = run_suite(suite.path(), &Filter::parse("-D-1"), &known);
    assert!(only_known.is_success(), "{only_known}");
    assert_eq!(only_known.failed(), 2);
}

#[test]
fn known_failures_file_needs_reasons() {
    let suite = Scratch::new("reasons");
    suite.write("known.txt", "D-2\n");
    let err = KnownFailures::load(&suite.path().join("known.txt")).unwrap_err();
    assert!(err.contains("`D-2` has no reason"), "{err}");
}

#[test]
fn filter_selects_by_id_and_file() {
    let suite = Scratch::new("filter");
    suite.write("primitives/parse-duration.yaml", DURATIONS);
    suite.write(
        "primitives/extract-protocol.yaml",
        "- {name: x, id: E-1, input: {mode: mcp_server}, expected: mcp}\n",
    );
    let report = run_suite(
        suite.path(),
        &Filter::parse("extract-protocol"),
        &KnownFailures::none(),
    );
    assert_eq!((report.passed(), report.failed()), (1, 0), "{report}");
}

#[test]
fn unreadable_files_and_unknown_primitives_fail() {
    let suite = Scratch::new("unreadable");
    suite.write("verdict/broken.yaml", "- [unclosed\n");
    suite.write("validate/not-a-list.yaml", "name: x\n");
    suite.write(
        "primitives/no-such-function.yaml",
        "- {name: x, id: U-1, input: 1, expected: 1}\n",
    );
    suite.write("parse/invalid/lonely.yaml", "x: 1\n");
    let report = run_suite(suite.path(), &Filter::default(), &KnownFailures::none());
    let text = report.to_string();
    assert!(text.contains("FAIL verdict/broken.yaml"), "{text}");
    assert!(text.contains("file is not a list of cases"), "{text}");
    assert!(
        text.contains("unknown primitive file `no-such-function.yaml`"),
        "{text}"
    );
    assert!(text.contains("missing or unreadable meta file"), "{text}");
    assert_eq!(report.passed(), 0, "{text}");
}
