//! The runner's own policy: failures are reported by id, panics are isolated, duplicate ids and unreadable
//! cases fail, known failures must stay true, the filter selects.

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
        for category in [
            "parse/valid",
            "parse/invalid",
            "validate",
            "normalize",
            "roundtrip",
            "evaluate",
            "verdict",
            "primitives",
        ] {
            fs::create_dir_all(dir.join(category)).unwrap();
        }
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

/// Runs the suite and returns the report text, asserting that `id` failed and its report line says `needle`.
fn assert_fails(suite: &Scratch, id: &str, needle: &str) -> String {
    let report = run_suite(suite.path(), &Filter::default(), &KnownFailures::none());
    let text = report.to_string();
    let failed = report
        .results
        .iter()
        .any(|r| r.id == id && matches!(r.outcome, Outcome::Fail { .. }));
    assert!(failed, "{id} should fail:\n{text}");
    let block: String = text.split("FAIL ").filter(|b| b.starts_with(id)).collect();
    assert!(
        block.contains(needle),
        "{id} should say `{needle}`:\n{text}"
    );
    assert!(!report.is_success(), "{text}");
    text
}

/// Runs the suite and asserts every case passed and nothing else was reported.
fn assert_all_pass(suite: &Scratch, count: usize) {
    let report = run_suite(suite.path(), &Filter::default(), &KnownFailures::none());
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed(), count, "{report}");
}

const MINIMAL_DOC: &str = r#"oatf: "0.1"
attack:
  name: t
  execution:
    mode: mcp_server
    state:
      tools: []
  indicators:
    - target: arguments
      pattern:
        contains: x
"#;

fn string_literal(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

#[test]
fn an_intact_layout_with_good_cases_passes() {
    let suite = Scratch::new("intact");
    suite.write(
        "primitives/parse-duration.yaml",
        "- {name: a, id: G-1, input: 30s, expected: {seconds: 30}}\n\
         - {name: float form of a whole number, id: G-2, input: 1m, expected: {seconds: 60.0}}\n",
    );
    suite.write(
        "roundtrip/r.yaml",
        &format!(
            "- name: r\n  id: G-3\n  input: {}\n  expected: {{identical: true}}\n",
            string_literal(MINIMAL_DOC)
        ),
    );
    assert_all_pass(&suite, 3);
}

#[test]
fn roundtrip_expected_is_read() {
    let suite = Scratch::new("roundtrip");
    suite.write(
        "roundtrip/r.yaml",
        &format!(
            "- name: r\n  id: RT-1\n  input: {doc}\n  expected: {{identical: false}}\n\
             - name: r\n  id: RT-2\n  input: {doc}\n  expected: {{identicl: true}}\n\
             - name: r\n  id: RT-3\n  input: {doc}\n  expected: {{identical: yes}}\n",
            doc = string_literal(MINIMAL_DOC)
        ),
    );
    assert_fails(&suite, "RT-1", "identical: false");
    assert_fails(&suite, "RT-2", "unknown key `identicl`");
    assert_fails(&suite, "RT-3", "a boolean `identical`");
}

#[test]
fn validate_expected_is_strict() {
    let suite = Scratch::new("validate");
    let doc = string_literal(MINIMAL_DOC);
    suite.write(
        "validate/v.yaml",
        &format!(
            "- {{name: misspelt key, id: V-1, input: {doc}, expected: {{valid: true, warning: []}}}}\n\
             - {{name: string valid, id: V-2, input: {doc}, expected: {{valid: 'true'}}}}\n\
             - {{name: number path, id: V-3, input: {doc}, expected: {{errors: [{{rule: V-001, path: 3}}]}}}}\n\
             - {{name: unknown entry key, id: V-4, input: {doc}, expected: {{errors: [{{rule: V-001, pth: oatf}}]}}}}\n\
             - {{name: empty expected, id: V-5, input: {doc}, expected: {{}}}}\n\
             - {{name: good, id: V-6, input: {doc}, expected: {{valid: true}}}}\n"
        ),
    );
    assert_fails(&suite, "V-1", "unknown key `warning`");
    assert_fails(&suite, "V-2", "a boolean `valid`");
    assert_fails(&suite, "V-3", "a string `path`");
    assert_fails(&suite, "V-4", "unknown key `pth`");
    assert_fails(&suite, "V-5", "checks nothing");
    let report = run_suite(suite.path(), &Filter::parse("V-6"), &KnownFailures::none());
    assert!(report.is_success() && report.passed() == 1, "{report}");
}

#[test]
fn unknown_keys_in_a_case_fail_it() {
    let suite = Scratch::new("case-keys");
    suite.write(
        "primitives/parse-duration.yaml",
        "- {name: a, id: K-1, input: 30s, expected: {seconds: 30}, expeted: {seconds: 1}}\n\
         - {name: b, id: K-2, input: 30s, expected: {seconds: 30, error: true}}\n\
         - {id: K-3, input: 30s, expected: {seconds: 30}}\n",
    );
    suite.write(
        "primitives/extract-protocol.yaml",
        "- {name: x, id: K-4, input: {mode: mcp_server, protocol: a2a}, expected: mcp}\n",
    );
    assert_fails(&suite, "K-1", "unknown key `expeted`");
    assert_fails(&suite, "K-2", "{seconds: N} or {error: true}");
    assert_fails(&suite, "K-3", "no string `name`");
    assert_fails(&suite, "K-4", "unknown key `protocol`");
}

#[test]
fn durations_compare_exactly() {
    let suite = Scratch::new("durations");
    suite.write(
        "primitives/parse-duration.yaml",
        "- {name: a, id: DX-1, input: 30s, expected: {seconds: 30.5}}\n\
         - {name: b, id: DX-2, input: 30s, expected: {seconds: 30.000001}}\n\
         - {name: c, id: DX-3, input: 1h, expected: {error: true}}\n",
    );
    assert_fails(&suite, "DX-1", "30");
    assert_fails(&suite, "DX-2", "30");
    assert_fails(&suite, "DX-3", "3600");
}

#[test]
fn a_regex_that_does_not_compile_is_not_false() {
    let suite = Scratch::new("regex");
    suite.write(
        "primitives/evaluate-condition.yaml",
        "- {name: a, id: RX-1, input: {condition: {regex: '(unclosed'}, value: abc}, expected: false}\n\
         - {name: b, id: RX-2, input: {condition: {contains: b}, value: abc}, expected: 'true'}\n",
    );
    suite.write(
        "primitives/evaluate-predicate.yaml",
        "- {name: a, id: RX-3, input: {predicate: {x: {regex: '(unclosed'}}, value: {x: abc}}, expected: false}\n",
    );
    assert_fails(&suite, "RX-1", "condition error");
    assert_fails(&suite, "RX-2", "`expected` true or false");
    assert_fails(&suite, "RX-3", "predicate error");
}

#[test]
fn evaluate_inputs_are_not_defaulted() {
    let suite = Scratch::new("evaluate");
    let indicator = "{target: x, pattern: {contains: a}}";
    let expression = "{target: x, expression: {cel: 'true'}}";
    let semantic = "{target: x, semantic: {intent: bad}}";
    suite.write(
        "evaluate/e.yaml",
        &format!(
            "- {{name: a, id: E-1, input: {{indicator: {expression}, message: {{x: a}}, cel_evaluator: true}}, expected: matched}}\n\
             - {{name: b, id: E-2, input: {{indicator: {semantic}, message: {{x: a}}, semantic_evaluator: {{present: 'yes', mock_score: 0.9}}}}, expected: skipped}}\n\
             - {{name: c, id: E-3, input: {{indicator: {indicator}, message: {{x: a}}, semantic: {{present: false}}}}, expected: matched}}\n\
             - {{name: d, id: E-4, input: {{indicator: {indicator}, message: {{x: a}}}}, expected: matchd}}\n\
             - {{name: e, id: E-5, input: {{indicator: {semantic}, message: {{x: a}}, semantic_evaluator: {{present: true}}}}, expected: matched}}\n\
             - {{name: f, id: E-6, input: {{indicator: {semantic}, message: {{x: a}}, semantic_evaluator: {{present: true, mock_score: 0.9}}}}, expected: matched}}\n\
             - {{name: g, id: E-7, input: {{indicator: {semantic}, message: {{x: a}}, semantic_evaluator: {{present: true, mock_score: 0.1}}}}, expected: matched}}\n"
        ),
    );
    assert_fails(&suite, "E-1", "cel_evaluator: present | absent");
    assert_fails(&suite, "E-2", "a boolean `present`");
    assert_fails(&suite, "E-3", "unknown key `semantic`");
    assert_fails(&suite, "E-4", "`expected` one of");
    assert_fails(&suite, "E-5", "mock_score");
    assert_fails(&suite, "E-7", "not_matched");
    let report = run_suite(suite.path(), &Filter::parse("E-6"), &KnownFailures::none());
    assert!(report.is_success() && report.passed() == 1, "{report}");
}

#[test]
fn verdict_inputs_are_not_defaulted() {
    let suite = Scratch::new("verdict");
    let summary = "evaluation_summary: {matched: 1, not_matched: 0, error: 0, skipped: 0}";
    let verdicts = "[{indicator_id: a, result: matched, timestamp: null}]";
    suite.write(
        "verdict/v.yaml",
        &format!(
            "- {{name: a, id: W-1, input: {{indicators: [{{id: a}}], verdicts: {verdicts}}}, expected: {{result: exploited, {summary}}}}}\n\
             - {{name: b, id: W-2, input: {{correlation_logic: any, verdicts: {verdicts}}}, expected: {{result: exploited, {summary}}}}}\n\
             - {{name: c, id: W-3, input: {{correlation_logic: any, indicators: [{{id: a}}]}}, expected: {{result: exploited, {summary}}}}}\n\
             - {{name: d, id: W-4, input: {{correlation_logic: any, indicators: [{{id: a}}], verdicts: {verdicts}}}, expected: {{result: exploited}}}}\n\
             - {{name: e, id: W-5, input: {{correlation_logic: any, indicators: [{{id: a}}], verdicts: {verdicts}}}, expected: {{result: exploited, {summary}}}}}\n\
             - {{name: f, id: W-6, input: {{correlation_logic: all, indicators: [{{id: a}}, {{id: b}}], verdicts: {verdicts}}}, expected: {{result: exploited, evaluation_summary: {{matched: 1, not_matched: 0, error: 0, skipped: 1}}}}}}\n"
        ),
    );
    assert_fails(&suite, "W-1", "correlation_logic");
    assert_fails(&suite, "W-2", "indicators");
    assert_fails(&suite, "W-3", "verdicts");
    assert_fails(&suite, "W-4", "evaluation_summary");
    // `all` with one matched and one skipped (no verdict) indicator is not `exploited` (SDK §4.5).
    assert_fails(&suite, "W-6", "result");
    let report = run_suite(suite.path(), &Filter::parse("W-5"), &KnownFailures::none());
    assert!(report.is_success() && report.passed() == 1, "{report}");
}

#[test]
fn trigger_state_is_not_defaulted() {
    let suite = Scratch::new("trigger");
    suite.write(
        "primitives/evaluate-trigger.yaml",
        "- name: a\n  id: T-1\n  input: {trigger: {event: tools/call}, event: null, elapsed: 0s}\n  expected: {result: not_advanced, state: {event_count: 0}}\n\
         - name: b\n  id: T-2\n  input: {trigger: {event: tools/call}, event: null, elapsed: 0s, state: {}}\n  expected: {result: not_advanced, state: {event_count: 0}}\n\
         - name: c\n  id: T-3\n  input: {trigger: {event: tools/call}, event: null, elapsed: 0s, state: {event_count: '0'}}\n  expected: {result: not_advanced, state: {event_count: 0}}\n\
         - name: d\n  id: T-4\n  input: {trigger: {event: tools/call}, event: null, elapsed: 0s, state: {event_count: 0}}\n  expected: {result: not_advanced, state: {event_count: 0}}\n",
    );
    assert_fails(&suite, "T-1", "state");
    assert_fails(&suite, "T-2", "event_count");
    assert_fails(&suite, "T-3", "event_count");
    let report = run_suite(suite.path(), &Filter::parse("T-4"), &KnownFailures::none());
    assert!(report.is_success() && report.passed() == 1, "{report}");
}

#[test]
fn template_diagnostics_are_compared_when_listed() {
    let suite = Scratch::new("template");
    suite.write(
        "primitives/interpolate-template.yaml",
        "- name: a\n  id: TD-1\n  input: {template: 'x{{missing}}', extractors: {}, request: null}\n  expected: {result: x, diagnostics: []}\n\
         - name: b\n  id: TD-2\n  input: {template: 'x{{missing}}', extractors: {}, request: null}\n  expected: {result: x, diagnostics: [{code: W-004, reference: other}]}\n\
         - name: c\n  id: TD-3\n  input: {template: 'x{{missing}}', extractors: {}, request: null}\n  expected: {result: x, diagnostics: [{code: W-004, reference: missing}]}\n\
         - name: d\n  id: TD-4\n  input: {template: 'x{{missing}}', extractors: {}, request: null}\n  expected: x\n",
    );
    assert_fails(&suite, "TD-1", "W-004");
    assert_fails(&suite, "TD-2", "missing");
    let report = run_suite(
        suite.path(),
        &Filter::parse("TD-3,TD-4"),
        &KnownFailures::none(),
    );
    assert!(report.is_success() && report.passed() == 2, "{report}");
}

#[test]
fn the_layout_is_checked_and_problems_name_the_file() {
    let suite = Scratch::new("layout");
    fs::remove_dir_all(suite.path().join("verdict")).unwrap();
    suite.write(
        "verdicts/any.yaml",
        "- {name: a, id: L-1, input: {}, expected: {}}\n",
    );
    suite.write(
        "stray.yaml",
        "- {name: a, id: L-2, input: 1s, expected: {seconds: 1}}\n",
    );
    suite.write(
        "primitives/nested/parse-duration.yaml",
        "- {name: a, id: L-3, input: 1s, expected: {seconds: 1}}\n",
    );
    suite.write("primitives/parse-duration.txt", "- {name: a, id: L-4}\n");
    suite.write(
        "primitives/no-such-function.yaml",
        "- {name: x, id: L-5, input: 1, expected: 1}\n",
    );
    suite.write("parse/invalid/orphan.meta.yaml", "expected_error: x\n");
    suite.write("parse/invalid/no-prose.yaml", "x: [\n");
    suite.write("parse/invalid/no-prose.meta.yaml", "error: x\n");
    suite.write("parse/invalid/lonely.yaml", "x: [\n");
    suite.write("parse/valid/stray.meta.yaml", "expected_error: x\n");
    suite.write("parse/other/doc.yaml", "oatf: '0.1'\n");
    let report = run_suite(suite.path(), &Filter::default(), &KnownFailures::none());
    let text = report.to_string();
    for needle in [
        "FAIL verdict/ (verdict): unreadable case",
        "missing category directory `verdict/`",
        "unknown category directory `verdicts/`",
        "FAIL stray.yaml",
        "FAIL primitives/nested",
        "a subdirectory inside a category",
        "FAIL primitives/parse-duration.txt",
        "unknown primitive file `no-such-function.yaml`",
        "FAIL parse/invalid/orphan.meta.yaml",
        "orphan meta file",
        "meta file without `expected_error`",
        "missing or unreadable meta file",
        "a meta file belongs in `parse/invalid/`",
        "FAIL parse/other",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    assert_eq!(report.passed(), 0, "{text}");
}

#[test]
fn parse_cases_reach_the_sdk_as_bytes() {
    let suite = Scratch::new("bytes");
    let mut bytes = MINIMAL_DOC.as_bytes().to_vec();
    bytes.extend_from_slice(b"# \xff\xfe not UTF-8\n");
    fs::write(suite.path().join("parse/valid/latin.yaml"), &bytes).unwrap();
    fs::write(suite.path().join("parse/invalid/latin.yaml"), &bytes).unwrap();
    suite.write(
        "parse/invalid/latin.meta.yaml",
        "expected_error: not UTF-8\n",
    );
    let report = run_suite(suite.path(), &Filter::default(), &KnownFailures::none());
    let text = report.to_string();
    // The SDK's own rejection is reported (not a runner-side UTF-8 check), and the invalid case passes.
    assert!(text.contains("FAIL parse/valid/latin"), "{text}");
    assert!(text.contains("parse failed"), "{text}");
    assert_eq!((report.passed(), report.failed()), (1, 1), "{text}");
}

/// A suite is a file tree from anywhere: a FIFO, a link to a device, a link loop or a huge file named
/// like a fixture is a problem naming the file (never a blocked or endless read), and a symbolic link to
/// a good fixture is followed, not skipped.
#[cfg(unix)]
#[test]
fn files_that_are_not_regular_fixtures_are_reported_not_read() {
    use std::os::unix::fs::symlink;
    use std::sync::mpsc;
    use std::time::Duration;

    let suite = Scratch::new("special-files");
    let fifo = suite.path().join("primitives/parse-duration.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo is needed for this test"
    );
    symlink("/dev/zero", suite.path().join("parse/invalid/zero.yaml")).unwrap();
    suite.write("parse/invalid/zero.meta.yaml", "expected_error: endless\n");
    symlink("loop-b.yaml", suite.path().join("normalize/loop-a.yaml")).unwrap();
    symlink("loop-a.yaml", suite.path().join("normalize/loop-b.yaml")).unwrap();
    let huge = fs::File::create(suite.path().join("evaluate/huge.yaml")).unwrap();
    huge.set_len(17 * 1024 * 1024).unwrap();
    suite.write(
        "elsewhere.txt",
        "- {name: linked, id: LINKED-1, input: 1s, expected: {seconds: 1}}\n",
    );
    symlink(
        suite.path().join("elsewhere.txt"),
        suite.path().join("primitives/parse-duration.yml"),
    )
    .unwrap();

    let root = suite.path().to_path_buf();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let report = run_suite(&root, &Filter::default(), &KnownFailures::none());
        let _ = send.send((report.to_string(), report.passed()));
    });
    let (text, passed) = receive
        .recv_timeout(Duration::from_secs(60))
        .expect("the runner blocked on a special file");
    for needle in [
        "FAIL primitives/parse-duration.yaml",
        "not a regular file",
        "zero",
        "FAIL normalize/loop-a.yaml",
        "FAIL evaluate/huge.yaml",
        "more than the limit",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    assert_eq!(passed, 1, "the linked fixture was not run:\n{text}");
}
