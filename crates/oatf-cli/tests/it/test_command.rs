//! `oatf test` run as a process on threat libraries written to temporary directories.

use crate::support::{EXPLOITED_TRACE, TempDir, VALID, oatf, repo};

const TESTS: &str = r#"# yaml-language-server: $schema=../docs/schemas/oatf-test.schema.json
cases:
  - name: fail_case
    trace: attack.complied.jsonl
    expect:
      result: exploited
      indicators: {T-001-01: matched}
  - name: pass_case
    message:
      method: tools/call
      content: {name: lookup, arguments: {query: "weather in Paris"}}
    expect: not_exploited
"#;

fn suite(name: &str) -> TempDir {
    let dir = TempDir::new("test-cmd", name);
    dir.write("lib/attack.yaml", VALID)
        .write("lib/attack.complied.jsonl", EXPLOITED_TRACE)
        .write("lib/attack.test.yaml", TESTS);
    dir
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

#[test]
fn a_passing_suite() {
    let dir = suite("pass");
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("ok   lib/attack.test.yaml:3: fail_case"),
        "{stdout}"
    );
    assert_eq!(last_line(&stdout), "2 passed, 0 failed");
    // The default path is the current directory.
    let (code, stdout, _) = oatf(&dir.path().join("lib"), &["test"]);
    assert_eq!(
        (code, last_line(&stdout)),
        (0, "2 passed, 0 failed"),
        "{stdout}"
    );
}

#[test]
fn a_failing_case_shows_expected_actual_and_evidence() {
    let dir = suite("fail");
    dir.write(
        "lib/attack.test.yaml",
        &TESTS
            .replace("result: exploited", "result: not_exploited")
            .replace("{T-001-01: matched}", "{T-001-01: not_matched}"),
    );
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "FAIL lib/attack.test.yaml:3: fail_case (T-001): expected not_exploited, got exploited"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("expected result: not_exploited"),
        "{stdout}"
    );
    assert!(stdout.contains("actual result:   exploited"), "{stdout}");
    assert!(
        stdout.contains("T-001-01: expected not_matched, got matched"),
        "{stdout}"
    );
    assert!(
        stdout.contains("evidence: seq 2 (tools/call): -----BEGIN OPENSSH PRIVATE KEY----- abc"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ok   lib/attack.test.yaml:8: pass_case"),
        "{stdout}"
    );
    assert_eq!(last_line(&stdout), "1 passed, 1 failed");
}

#[test]
fn unknown_indicator_ids_and_missing_traces_fail_the_case() {
    let dir = suite("unknown");
    dir.write(
        "lib/attack.test.yaml",
        &TESTS.replace("{T-001-01: matched}", "{T-001-09: matched}")
            .replace("    expect: not_exploited", "    expect: not_exploited\n  - name: no trace\n    trace: missing.jsonl\n    expect: exploited"),
    );
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("indicators the document does not declare: T-001-09"),
        "{stdout}"
    );
    assert!(stdout.contains("declared indicators: T-001-01"), "{stdout}");
    assert!(
        stdout.contains(
            "FAIL lib/attack.test.yaml:13: no trace (T-001): cannot read trace lib/missing.jsonl"
        ),
        "{stdout}"
    );
    assert_eq!(last_line(&stdout), "1 passed, 2 failed");
}

#[test]
fn a_bad_trace_line_is_reported_with_file_and_line() {
    let dir = suite("badtrace");
    dir.write(
        "lib/attack.complied.jsonl",
        &format!("{EXPLOITED_TRACE}not json\n"),
    );
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("lib/attack.complied.jsonl:3:"), "{stdout}");
}

#[test]
fn documents_without_tests() {
    let dir = suite("missing");
    dir.write("lib/other.yaml", &VALID.replace("T-001", "T-002"));
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("note: 1 document without a test file:\n       lib/other.yaml"),
        "{stdout}"
    );
    assert_eq!(last_line(&stdout), "2 passed, 0 failed");

    let (code, stdout, _) = oatf(dir.path(), &["test", "lib", "--require-tests"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL 1 document without a test file (--require-tests):"),
        "{stdout}"
    );
    assert_eq!(last_line(&stdout), "2 passed, 1 failed");
}

#[test]
fn invalid_documents_and_test_files_are_failures_with_file_and_line() {
    let dir = suite("invalid");
    dir.write("lib/broken.yaml", "oatf: \"0.1\"\nattack:\n  id: T-003\n  severity: extreme\n  execution:\n    mode: mcp_server\n    state: {}\n");
    dir.write(
        "lib/attack.test.yaml",
        "cases:\n  - name: a\n    message: {content: {}}\n    expect: exploted\n",
    );
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout
            .contains("FAIL lib/broken.yaml:4:13: error[V-005]: unknown severity level `extreme`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL lib/attack.test.yaml:4:5: error: unknown variant `exploted`"),
        "{stdout}"
    );
    assert_eq!(last_line(&stdout), "0 passed, 2 failed");
}

#[test]
fn a_test_file_without_its_document() {
    let dir = suite("orphan");
    dir.write("lib/gone.test.yaml", TESTS);
    let (code, stdout, _) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL lib/gone.test.yaml: error: no document for this test file"),
        "{stdout}"
    );
}

#[test]
fn a_path_without_documents_or_tests_fails_like_pytest_no_tests_ran() {
    let dir = TempDir::new("test-cmd", "empty");
    dir.write("lib/README.md", "nothing here\n");
    let (code, stdout, stderr) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("no tests ran: no OATF document found under lib"),
        "{stderr}"
    );
    assert_eq!(last_line(&stdout), "0 passed, 0 failed");

    dir.write("lib/attack.yaml", VALID);
    let (code, _, stderr) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("no tests ran: no test file found"),
        "{stderr}"
    );

    // With one test file the run counts: it passes.
    dir.write("lib/attack.complied.jsonl", EXPLOITED_TRACE)
        .write("lib/attack.test.yaml", TESTS);
    let (code, _, stderr) = oatf(dir.path(), &["test", "lib"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let dir = TempDir::new("test-cmd", "nopath");
    let (code, _, stderr) = oatf(dir.path(), &["test", "nowhere"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read nowhere"), "{stderr}");
}

/// A minimal well-formedness check: every tag closes in order, attributes are quoted, and no raw `&`
/// or `<` appears in text. Returns the element names in document order.
fn check_xml(xml: &str) -> Vec<String> {
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .unwrap();
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>'), "stray > in {text:?}");
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                    .iter()
                    .any(|e| entity.starts_with(e)),
                "raw & in {text:?}"
            );
        }
        let close = rest[open..].find('>').unwrap() + open;
        let tag = &rest[open + 1..close];
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else {
            let name = tag
                .split_whitespace()
                .next()
                .unwrap()
                .trim_end_matches('/')
                .to_owned();
            names.push(name.clone());
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        rest = &rest[close + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert!(rest.trim().is_empty());
    names
}

#[test]
fn junit_output_is_well_formed() {
    let dir = suite("junit");
    dir.write("lib/other.yaml", &VALID.replace("T-001", "T-002"));
    dir.write(
        "lib/attack.test.yaml",
        &TESTS
            .replace("result: exploited", "result: partial")
            .replace("fail_case", "fail <&> \"case\""),
    );
    let (code, stdout, stderr) = oatf(dir.path(), &["test", "lib", "--format", "junit"]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(last_line(&stderr), "1 passed, 1 failed");
    let names = check_xml(&stdout);
    assert_eq!(
        names.iter().filter(|n| *n == "testcase").count(),
        3,
        "{stdout}"
    );
    assert_eq!(
        names.iter().filter(|n| *n == "failure").count(),
        1,
        "{stdout}"
    );
    assert_eq!(
        names.iter().filter(|n| *n == "skipped").count(),
        1,
        "{stdout}"
    );
    assert!(
        stdout.contains("<testsuites name=\"oatf test\" tests=\"3\" failures=\"1\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("name=\"fail &lt;&amp;&gt; &quot;case&quot;\""),
        "{stdout}"
    );
    // No `file`/`line` on a test case (junit-10.xsd has none): the location leads the message.
    assert!(!stdout.contains(" line=\""), "{stdout}");
    assert!(
        stdout.contains("<failure type=\"verdict\" message=\"lib/attack.test.yaml:3: "),
        "{stdout}"
    );

    // To a file, with the text report on standard output.
    let (code, stdout, _) = oatf(
        dir.path(),
        &[
            "test",
            "lib",
            "--format",
            "junit",
            "--output",
            "report.xml",
            "--require-tests",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(last_line(&stdout), "1 passed, 2 failed");
    let xml = std::fs::read_to_string(dir.path().join("report.xml")).unwrap();
    let names = check_xml(&xml);
    assert_eq!(names.iter().filter(|n| *n == "failure").count(), 2, "{xml}");
}

#[test]
fn the_shipped_examples_pass() {
    let root = repo();
    let (code, stdout, _) = oatf(&root, &["test", "examples", "--require-tests"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        last_line(&stdout).ends_with(" passed, 0 failed"),
        "{stdout}"
    );
}

/// A message with `protocol` but no `actor` belongs to the one actor of that protocol; when several
/// actors use it, the test file is rejected naming them (spec-decisions 23).
#[test]
fn messages_on_multi_actor_documents_need_one_actor() {
    let document = r#"oatf: "0.1"
attack:
  execution:
    actors:
      - {name: srv, mode: mcp_server, phases: [{state: {tools: []}}]}
      - {name: web, mode: a2a_server, phases: [{state: {agent_card: {name: a}}}]}
  indicators:
    - {id: i-1, protocol: mcp, direction: request, tier: local_action, target: arguments.path, pattern: {contains: id_rsa}}
"#;
    let tests = r#"cases:
  - name: the one mcp actor
    message: {protocol: mcp, method: tools/call, content: {arguments: {path: "~/.ssh/id_rsa"}}}
    expect: {result: exploited, max_tier: local_action, indicators: {i-1: matched}}
"#;
    let dir = TempDir::new("test", "multi-actor");
    dir.write("attack.yaml", document)
        .write("attack.test.yaml", tests);
    let (code, stdout, stderr) = oatf(dir.path(), &["test", "."]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // A wrong max_tier fails the case.
    dir.write(
        "attack.test.yaml",
        &tests.replace("max_tier: local_action", "max_tier: ingested"),
    );
    let (code, stdout, _) = oatf(dir.path(), &["test", "."]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("max_tier is local_action, expected ingested"),
        "{stdout}"
    );
    // Two mcp actors: ambiguous.
    let two = document.replace(
        "{name: web, mode: a2a_server, phases: [{state: {agent_card: {name: a}}}]}",
        "{name: srv2, mode: mcp_server, phases: [{state: {tools: []}}]}",
    );
    dir.write("attack.yaml", &two)
        .write("attack.test.yaml", tests);
    let (code, stdout, stderr) = oatf(dir.path(), &["test", "."]);
    assert_ne!(code, 0);
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("has `protocol: mcp` but no `actor`, and several actors use mcp: add `actor` (one of srv, srv2)"),
        "{all}"
    );
}
