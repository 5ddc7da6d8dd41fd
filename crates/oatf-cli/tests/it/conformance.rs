//! `oatf conformance`: exit codes, the closing counts line, the known-failures file and the filter.

use std::fs;
use std::process::Output;

use crate::support::{TempDir, command, repo, text};

/// Runs `oatf` with `args`, without a case filter from the environment.
fn oatf(args: &[&str]) -> Output {
    command()
        .args(args)
        .env_remove("OATF_CONFORMANCE")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    text(&output.stdout)
}

/// An empty suite: every category directory (a missing one fails the run, naming it), no case.
fn scratch(name: &str) -> TempDir {
    let dir = TempDir::new("conformance", name);
    for category in oatf_conformance_layout() {
        fs::create_dir_all(dir.path().join(category)).unwrap();
    }
    dir
}

fn oatf_conformance_layout() -> [&'static str; 8] {
    [
        "parse/valid",
        "parse/invalid",
        "validate",
        "normalize",
        "roundtrip",
        "evaluate",
        "verdict",
        "primitives",
    ]
}

const CASES: &str = "\
- {name: ok, id: X-1, input: 5m, expected: {seconds: 300}}
- {name: wrong on purpose, id: X-2, input: 5m, expected: {seconds: 301}}
";

#[test]
fn bundled_corpus_passes_and_ends_with_the_counts_line() {
    let output = oatf(&["conformance"]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    let last = text.lines().last().unwrap();
    let counts: Vec<&str> = last.split(", ").collect();
    assert_eq!(counts.len(), 3, "{last}");
    assert!(
        counts[0].ends_with(" passed")
            && counts[1] == "0 failed"
            && counts[2].ends_with(" skipped"),
        "{last}"
    );
}

#[test]
fn a_failing_case_fails_the_run_and_is_named() {
    let suite = scratch("fail");
    let dir = suite.path();
    fs::write(dir.join("primitives/parse-duration.yaml"), CASES).unwrap();
    let output = oatf(&["conformance", dir.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL X-2 (primitives/parse-duration.yaml): wrong on purpose"),
        "{text}"
    );
    assert!(
        text.trim_end().ends_with("1 passed, 1 failed, 0 skipped"),
        "{text}"
    );

    // Listed as a known failure, the same run is green; --strict ignores the list.
    fs::write(
        dir.join("known-failures.txt"),
        "X-2 expected value is wrong on purpose\n",
    )
    .unwrap();
    assert_eq!(
        oatf(&["conformance", dir.to_str().unwrap()]).status.code(),
        Some(0)
    );
    assert_eq!(
        oatf(&["conformance", "--strict", dir.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    // The filter selects cases.
    let filtered = oatf(&[
        "conformance",
        "--strict",
        "--filter",
        "-X-2",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(filtered.status.code(), Some(0), "{}", stdout(&filtered));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        oatf(&["conformance", "/no/such/directory"]).status.code(),
        Some(2)
    );
    let suite = scratch("badknown");
    let dir = suite.path();
    fs::write(dir.join("primitives/parse-duration.yaml"), CASES).unwrap();
    fs::write(dir.join("known-failures.txt"), "X-2\n").unwrap();
    let output = oatf(&["conformance", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("has no reason"));
}

#[test]
fn upstream_samples_pass() {
    // The vendored copy (`cargo xtask shared-sync` checks it against the spec's): an absent suite is a
    // failure, not a skip.
    let samples = repo().join("third_party/oatf-spec/conformance-samples");
    assert!(
        samples.is_dir(),
        "{} is absent: the upstream samples must be run",
        samples.display()
    );
    let output = oatf(&["conformance", "--strict", samples.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stdout(&output));
}
