//! Exit codes (spec-decisions 24, D-61): `oatf evaluate` exits with the code of its verdict, which
//! follows the tier and which every report format carries; usage errors exit 64, an invalid document 65,
//! an unreadable input 66, in every subcommand.

use serde_json::Value;

use crate::support::{example, oatf_with_stdin, scratch_file, text};

const DOC: &str = "mcp-tool-poisoning.yaml";
const COMPLIED: &str = "mcp-tool-poisoning.complied.jsonl";

#[test]
fn exit_codes_for_errors() {
    // Usage errors: 64 (2 is `partial`).
    let output = oatf_with_stdin(&["evaluate", &example(DOC)], None);
    assert_eq!(output.status.code(), Some(64));
    let output = oatf_with_stdin(
        &[
            "evaluate",
            &example(DOC),
            &example(COMPLIED),
            "--format",
            "yaml",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(64));
    let output = oatf_with_stdin(&["evaluate", "-", "-"], None);
    assert_eq!(output.status.code(), Some(64));
    // An unreadable input: 66.
    let output = oatf_with_stdin(
        &["evaluate", &example(DOC), "/nonexistent/trace.jsonl"],
        None,
    );
    assert_eq!(output.status.code(), Some(66));
    assert!(text(&output.stderr).contains("cannot read /nonexistent/trace.jsonl"));
    let output = oatf_with_stdin(
        &["evaluate", "/nonexistent/doc.yaml", &example(COMPLIED)],
        None,
    );
    assert_eq!(output.status.code(), Some(66));
    // An invalid document: 65, with the diagnostics `oatf validate` prints.
    let invalid = scratch_file(
        "invalid.yaml",
        "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n  severity: extreme\n",
    );
    let output = oatf_with_stdin(
        &["evaluate", invalid.to_str().unwrap(), &example(COMPLIED)],
        None,
    );
    assert_eq!(output.status.code(), Some(65));
    assert!(
        text(&output.stderr).contains("V-"),
        "{}",
        text(&output.stderr)
    );
    // Help lists the exit codes and succeeds.
    let output = oatf_with_stdin(&["evaluate", "--help"], None);
    assert_eq!(output.status.code(), Some(0));
    assert!(text(&output.stdout).contains("66  the document or the trace cannot be read"));
}

/// Spec-decisions 24: the exit code follows the tier; SARIF and JUnit carry it.
#[test]
fn exit_codes_follow_the_tier_and_every_format_shows_it() {
    let doc = |tier: &str| {
        format!(
            "oatf: \"0.1\"\nattack:\n  severity: low\n  execution:\n    mode: mcp_server\n    state: {{tools: []}}\n  indicators:\n    - {{id: i-1, surface: tools/call, target: arguments.path, pattern: {{contains: id_rsa}}{tier}}}\n"
        )
    };
    let trace = scratch_file(
        "tier.jsonl",
        r#"{"seq": 1, "direction": "incoming", "method": "tools/call", "content": {"arguments": {"path": "~/.ssh/id_rsa"}}}"#,
    );
    let trace = trace.to_str().unwrap();
    for (tier, code) in [
        ("", 1),
        (", tier: ingested", 1),
        (", tier: local_action", 2),
        (", tier: boundary_breach", 3),
    ] {
        let path = scratch_file("tier.yaml", &doc(tier));
        let output = oatf_with_stdin(&["evaluate", path.to_str().unwrap(), trace], None);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{tier}: {}",
            text(&output.stdout)
        );
    }
    let path = scratch_file("tier-sarif.yaml", &doc(", tier: boundary_breach"));
    let output = oatf_with_stdin(
        &[
            "evaluate",
            path.to_str().unwrap(),
            trace,
            "--format",
            "sarif",
        ],
        None,
    );
    let sarif: Value = serde_json::from_slice(&output.stdout).unwrap();
    let run = &sarif["runs"][0];
    // Severity `low` alone would be a note; the boundary breach raises it to an error.
    assert_eq!(run["results"][0]["level"], "error");
    assert_eq!(run["results"][0]["properties"]["tier"], "boundary_breach");
    assert_eq!(
        run["tool"]["driver"]["rules"][0]["properties"]["tier"],
        "boundary_breach"
    );
    assert_eq!(
        run["tool"]["driver"]["rules"][0]["properties"]["security-severity"],
        "9.0"
    );
    assert_eq!(run["properties"]["max_tier"], "boundary_breach");
    let output = oatf_with_stdin(
        &[
            "evaluate",
            path.to_str().unwrap(),
            trace,
            "--format",
            "junit",
        ],
        None,
    );
    let junit = text(&output.stdout);
    assert!(
        junit.contains(r#"<property name="max_tier" value="boundary_breach"/>"#),
        "{junit}"
    );
    assert!(
        junit.contains(r#"<property name="exit_code" value="3"/>"#),
        "{junit}"
    );
    // junit-10.xsd has no properties on a test case: the tier is a suite property and in the message.
    assert!(
        junit.contains(r#"<property name="tier:i-1" value="boundary_breach"/>"#),
        "{junit}"
    );
    assert!(junit.contains(", tier boundary_breach\">"), "{junit}");
}

/// Usage errors exit 64 in every subcommand (1 to 5 are verdicts).
#[test]
fn usage_errors_exit_64() {
    for args in [
        &["evaluate", "--no-such-flag"][..],
        &["validate"][..],
        &["catalog", "--no-such-flag"][..],
        &["no-such-command"][..],
    ] {
        let output = oatf_with_stdin(args, None);
        assert_eq!(output.status.code(), Some(64), "{args:?}");
    }
}
