//! The text users read when something is wrong, as snapshots (insta): each test runs `oatf` on a file
//! with one kind of mistake and keeps the exit code, standard output and standard error whole. A
//! change to any of them fails the test; review the new text with `cargo insta review` (or the
//! `.snap.new` file beside the snapshot) before accepting it.

use crate::support::{EXPLOITED_TRACE, TempDir, VALID, oatf};

/// Runs `oatf args` in a directory holding `files`; gives what the user sees: the exit code, then
/// standard output and standard error.
fn shown(files: &[(&str, &[u8])], args: &[&str]) -> String {
    let dir = TempDir::new("diagnostics", &args.join("-").replace(['/', '.'], "_"));
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    let (code, stdout, stderr) = oatf(dir.path(), args);
    format!("exit code {code}\n--- stdout\n{stdout}--- stderr\n{stderr}")
}

/// `VALID` with `from` replaced by `to` (which must occur).
fn valid_with(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "{from}");
    VALID.replacen(from, to, 1)
}

fn validate(document: &str) -> String {
    shown(
        &[("doc.yaml", document.as_bytes())],
        &["validate", "doc.yaml"],
    )
}

#[test]
fn validate_unterminated_quote() {
    insta::assert_snapshot!(validate(&valid_with(
        "name: Exfiltration",
        "name: \"Exfiltration"
    )));
}

#[test]
fn validate_tab_indentation() {
    insta::assert_snapshot!(validate(&valid_with(
        "  severity: high",
        "\tseverity: high"
    )));
}

#[test]
fn validate_unknown_field_with_did_you_mean() {
    insta::assert_snapshot!(validate(&valid_with("      pattern:", "      patern:")));
}

#[test]
fn validate_unknown_enum_value() {
    insta::assert_snapshot!(validate(&valid_with("severity: high", "severity: extreme")));
}

#[test]
fn validate_invalid_regex() {
    insta::assert_snapshot!(validate(&valid_with(
        "contains: \"BEGIN OPENSSH PRIVATE KEY\"",
        "regex: \"BEGIN (OPENSSH PRIVATE KEY\""
    )));
}

#[test]
fn validate_cel_syntax_error() {
    insta::assert_snapshot!(validate(&valid_with(
        "      pattern:\n        contains: \"BEGIN OPENSSH PRIVATE KEY\"",
        "      expression:\n        cel: \"message.arguments.query.contains('KEY') &&\""
    )));
}

#[test]
fn validate_duplicate_indicator_ids() {
    let document = format!(
        "{VALID}    - id: T-001-01\n      surface: tools/call\n      target: arguments.url\n      pattern:\n        contains: evil.example\n"
    );
    insta::assert_snapshot!(validate(&document));
}

#[test]
fn validate_missing_execution() {
    insta::assert_snapshot!(validate(
        "oatf: \"0.1\"\nattack:\n  name: No execution\n  indicators:\n    - surface: tools/call\n      target: arguments.query\n      pattern: {contains: x}\n"
    ));
}

#[test]
fn validate_warnings_only() {
    let document = valid_with("oatf: \"0.1\"\nattack:\n", "attack:\n")
        .replace("mode: mcp_server", "mode: gopher_server")
        + "oatf: \"0.1\"\n";
    insta::assert_snapshot!(validate(&document));
}

#[test]
fn validate_strict_fails_on_a_warning() {
    let document = valid_with("oatf: \"0.1\"\nattack:\n", "attack:\n") + "oatf: \"0.1\"\n";
    insta::assert_snapshot!(shown(
        &[("doc.yaml", document.as_bytes())],
        &["validate", "--strict", "doc.yaml"]
    ));
}

#[test]
fn validate_invalid_utf8() {
    insta::assert_snapshot!(shown(
        &[("doc.yaml", b"oatf: \"0.1\"\nattack:\n  name: caf\xe9\n")],
        &["validate", "doc.yaml"]
    ));
}

#[test]
fn validate_a_trace_given_by_mistake() {
    insta::assert_snapshot!(shown(
        &[("trace.jsonl", EXPLOITED_TRACE.as_bytes())],
        &["validate", "trace.jsonl"]
    ));
}

#[test]
fn validate_a_missing_file() {
    insta::assert_snapshot!(shown(&[], &["validate", "missing.yaml"]));
}

#[test]
fn evaluate_a_malformed_trace_line() {
    let trace = format!("{EXPLOITED_TRACE}{{\"seq\": 3, \"direction\": oops}}\n");
    insta::assert_snapshot!(shown(
        &[
            ("doc.yaml", VALID.as_bytes()),
            ("trace.jsonl", trace.as_bytes())
        ],
        &["evaluate", "doc.yaml", "trace.jsonl"]
    ));
}

#[test]
fn evaluate_a_missing_trace() {
    insta::assert_snapshot!(shown(
        &[("doc.yaml", VALID.as_bytes())],
        &["evaluate", "doc.yaml", "missing.jsonl"]
    ));
}

#[test]
fn evaluate_an_invalid_document() {
    let document = valid_with("severity: high", "severity: extreme");
    insta::assert_snapshot!(shown(
        &[
            ("doc.yaml", document.as_bytes()),
            ("trace.jsonl", EXPLOITED_TRACE.as_bytes())
        ],
        &["evaluate", "doc.yaml", "trace.jsonl"]
    ));
}

/// The indicator names an actor the trace has no message from: the verdict is not a silent
/// "not exploited", the evidence and a warning say why.
#[test]
fn evaluate_no_applicable_message_from_the_actor() {
    let document = valid_with(
        "    - id: T-001-01\n",
        "    - id: T-001-01\n      actor: default\n",
    );
    let trace = EXPLOITED_TRACE.replace("\"seq\": ", "\"actor\": \"docs-search\", \"seq\": ");
    insta::assert_snapshot!(shown(
        &[
            ("doc.yaml", document.as_bytes()),
            ("trace.jsonl", trace.as_bytes())
        ],
        &["evaluate", "doc.yaml", "trace.jsonl"]
    ));
}

/// A misspelt target never resolves: a warning with a did-you-mean, and `--strict` fails the run.
#[test]
fn evaluate_strict_fails_on_a_target_that_never_resolved() {
    let document = valid_with("target: arguments.query", "target: arguments.qeury");
    insta::assert_snapshot!(shown(
        &[
            ("doc.yaml", document.as_bytes()),
            ("trace.jsonl", EXPLOITED_TRACE.as_bytes())
        ],
        &["evaluate", "--strict", "doc.yaml", "trace.jsonl"]
    ));
}

#[test]
fn explain_an_unknown_rule() {
    insta::assert_snapshot!(shown(&[], &["explain", "V-0l3"]));
}

#[test]
fn fmt_check_refuses_an_unformatted_document() {
    let document = valid_with("oatf: \"0.1\"\nattack:\n", "attack:\n") + "oatf: \"0.1\"\n";
    insta::assert_snapshot!(shown(
        &[("doc.yaml", document.as_bytes())],
        &["fmt", "--check", "doc.yaml"]
    ));
}

#[test]
fn fmt_check_leaves_a_document_that_does_not_parse() {
    let document = valid_with("name: Exfiltration", "name: \"Exfiltration");
    insta::assert_snapshot!(shown(
        &[("doc.yaml", document.as_bytes())],
        &["fmt", "--check", "doc.yaml"]
    ));
}
