//! `--format github` workflow annotations and `validate --strict`, run as a process.

use crate::support::{TempDir, VALID, oatf};

/// Every stdout line is one workflow command.
fn annotations(stdout: &str) -> Vec<&str> {
    let lines: Vec<&str> = stdout.lines().collect();
    for line in &lines {
        assert!(
            line.starts_with("::error ") || line.starts_with("::warning "),
            "not an annotation: {line}"
        );
    }
    lines
}

#[test]
fn validate_github_points_at_file_line_and_column() {
    let dir = TempDir::new("ci-formats", "validate");
    dir.write(
        "bad.yaml",
        &VALID.replace("severity: high", "severity: extreme"),
    )
    .write("good.yaml", VALID);
    let (code, stdout, _) = oatf(
        dir.path(),
        &["validate", "--format", "github", "bad.yaml", "good.yaml"],
    );
    assert_eq!(code, 1, "{stdout}");
    let lines = annotations(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].starts_with(
            "::error file=bad.yaml,line=5,col=13,title=V-005::unknown severity level `extreme`"
        ),
        "{stdout}"
    );

    let (code, stdout, _) = oatf(dir.path(), &["validate", "--format", "github", "good.yaml"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.is_empty(), "{stdout}");
}

#[test]
fn validate_strict_fails_on_warnings_only() {
    let dir = TempDir::new("ci-formats", "strict");
    // `oatf` is not the first key: W-001, a warning, not an error.
    let warned = format!("{}oatf: \"0.1\"\n", VALID.replace("oatf: \"0.1\"\n", ""));
    dir.write("warned.yaml", &warned);
    let (code, stdout, _) = oatf(dir.path(), &["validate", "warned.yaml"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("valid (1 warning"), "{stdout}");
    let (code, _, stderr) = oatf(dir.path(), &["validate", "--strict", "warned.yaml"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("warnings are failures with --strict"),
        "{stderr}"
    );
    let (code, stdout, _) = oatf(
        dir.path(),
        &["validate", "--strict", "--format", "github", "warned.yaml"],
    );
    assert_eq!(code, 1);
    assert!(
        annotations(&stdout)
            .iter()
            .all(|l| l.starts_with("::warning file=warned.yaml")),
        "{stdout}"
    );

    dir.write("clean.yaml", VALID);
    let (code, stdout, _) = oatf(dir.path(), &["validate", "--strict", "clean.yaml"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn catalog_github_annotates_problems_instead_of_the_index() {
    let dir = TempDir::new("ci-formats", "catalog");
    dir.write("lib/a.yaml", VALID).write(
        "lib/b.yaml",
        &VALID.replace("severity: high", "severity: extreme"),
    );
    let (code, stdout, _) = oatf(dir.path(), &["catalog", "lib", "--format", "github"]);
    assert_eq!(code, 1, "{stdout}");
    let lines = annotations(&stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("::error file=lib/b.yaml,line=5,col=13,title=V-005::")),
        "{stdout}"
    );
}

#[test]
fn test_github_annotates_failing_cases_at_their_line() {
    let dir = TempDir::new("ci-formats", "test");
    dir.write("lib/a.yaml", VALID).write(
        "lib/a.test.yaml",
        "cases:\n  - name: ok\n    message: {method: tools/call, content: {arguments: {query: x}}}\n    expect: not_exploited\n  - name: wrong\n    message: {method: tools/call, content: {arguments: {query: x}}}\n    expect: exploited\n",
    );
    let (code, stdout, stderr) = oatf(dir.path(), &["test", "lib", "--format", "github"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let lines = annotations(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].starts_with("::error file=lib/a.test.yaml,line=5,title=oatf test%3A wrong::"),
        "{stdout}"
    );
    assert!(stderr.ends_with("1 passed, 1 failed\n"), "{stderr}");
}

#[test]
fn normalize_check_is_a_formatter_check() {
    let dir = TempDir::new("ci-formats", "normalize");
    let multi_line = VALID.replace(
        "  name: Exfiltration\n",
        "  name: Exfiltration\n  description: \"First line.\\nSecond line.\\n\"\n",
    );
    dir.write("raw.yaml", &multi_line);
    let (code, canonical, _) = oatf(dir.path(), &["normalize", "raw.yaml"]);
    assert_eq!(code, 0);
    assert!(
        canonical.contains("  description: |\n    First line.\n    Second line.\n"),
        "{canonical}"
    );
    dir.write("canonical.yaml", &canonical);
    let (code, stdout, stderr) = oatf(dir.path(), &["normalize", "--check", "canonical.yaml"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    let (code, stdout, stderr) = oatf(
        dir.path(),
        &["normalize", "--check", "canonical.yaml", "raw.yaml"],
    );
    assert_eq!(code, 1);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("raw.yaml:"), "{stderr}");
    assert!(stderr.contains("not in canonical form"), "{stderr}");
    assert!(!stderr.contains("canonical.yaml:"), "{stderr}");
    // Several files without --check is a usage error, not a concatenation.
    let (code, _, stderr) = oatf(dir.path(), &["normalize", "canonical.yaml", "raw.yaml"]);
    assert_eq!(code, 64, "{stderr}");
}

#[test]
fn completions_and_man_pages_come_from_the_clap_definition() {
    let dir = TempDir::new("ci-formats", "generate");
    let (code, bash, _) = oatf(dir.path(), &["completions", "bash"]);
    assert_eq!(code, 0);
    assert!(bash.contains("complete -F _oatf"), "{bash}");
    assert!(
        bash.contains("--manifest"),
        "evaluate's options are offered"
    );
    assert!(!bash.contains("__man"), "hidden commands are not offered");
    let (code, zsh, _) = oatf(dir.path(), &["completions", "zsh"]);
    assert_eq!(code, 0);
    assert!(zsh.starts_with("#compdef oatf"), "{zsh}");
    let (code, _, stderr) = oatf(dir.path(), &["completions", "tcsh"]);
    assert_eq!(code, 64, "{stderr}");

    let (code, _, stderr) = oatf(dir.path(), &["__man", "man"]);
    assert_eq!(code, 0, "{stderr}");
    let page = std::fs::read_to_string(dir.path().join("man/oatf-evaluate.1")).unwrap();
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH oatf-evaluate"),
        "{page}"
    );
    assert!(page.contains("manifest"), "{page}");
    assert!(dir.path().join("man/oatf.1").is_file());
}

#[test]
fn quiet_everywhere() {
    let dir = TempDir::new("ci-formats", "quiet");
    dir.write("lib/a.yaml", VALID)
        .write("lib/a.test.yaml", "cases:\n  - name: ok\n    message: {method: tools/call, content: {arguments: {query: x}}}\n    expect: not_exploited\n");
    let (code, stdout, stderr) = oatf(dir.path(), &["validate", "--quiet", "lib"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
    let (code, stdout, _) = oatf(dir.path(), &["validate", "lib"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("lib/a.yaml: valid"), "{stdout}");
    let (code, _, stderr) = oatf(dir.path(), &["catalog", "--quiet", "lib"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, stdout, _) = oatf(dir.path(), &["test", "--quiet", "lib"]);
    assert_eq!((code, stdout.as_str()), (0, "1 passed, 0 failed\n"));
    let (code, stdout, stderr) = oatf(
        dir.path(),
        &["normalize", "--quiet", "--check", "lib/a.yaml"],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.is_empty());
}
