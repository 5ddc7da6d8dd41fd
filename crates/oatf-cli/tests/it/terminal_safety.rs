//! Human output on hostile documents: diagnostics on very long lines render (clipped around the
//! location) instead of panicking, and attacker text never reaches the terminal with raw control
//! characters (`docs/input-safety.md`).

use crate::support::{TempDir, oatf};

/// Every control character that could drive a terminal, outside of line breaks.
fn has_raw_controls(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c))
}

/// The longest line of `text`, in characters.
fn longest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

fn check_rendered(dir: &TempDir, args: &[&str], located: &str) {
    let (code, stdout, stderr) = oatf(dir.path(), args);
    let all = format!("{stdout}{stderr}");
    assert!(
        !all.contains("panicked"),
        "{args:?}: {}",
        &all[..all.len().min(2000)]
    );
    assert_ne!(code, 0, "{args:?}");
    assert_ne!(code, 101, "{args:?} panicked");
    assert!(
        all.contains(located),
        "{args:?}: expected `{located}` in\n{}",
        &all[..all.len().min(3000)]
    );
    assert!(
        longest_line(&all) < 2_000,
        "{args:?}: a line of {} chars",
        longest_line(&all)
    );
    assert!(!has_raw_controls(&all), "{args:?}: raw control characters");
}

#[test]
fn long_keys_and_a_duplicate_past_column_65535() {
    let dir = TempDir::new("render", "longkey");
    let key = "k".repeat(70_000);
    // A plain key longer than YAML's 1024-character limit: a syntax error at its start, on a line
    // quoted in the snippet (clipped, not whole).
    dir.write(
        "doc.yaml",
        &format!("oatf: \"0.1\"\nattack:\n  name: x\n  {key}: 1\n"),
    );
    check_rendered(&dir, &["validate", "doc.yaml"], "doc.yaml:4:3");
    check_rendered(&dir, &["normalize", "doc.yaml"], "doc.yaml:4:3");
    // A duplicate key after a 70,000-character value, on the same line.
    dir.write(
        "dup.yaml",
        &format!("oatf: \"0.1\"\nattack: {{name: \"{key}\", name: y}}\n"),
    );
    check_rendered(&dir, &["validate", "dup.yaml"], "dup.yaml:2:70");
    check_rendered(&dir, &["normalize", "dup.yaml"], "duplicate key `name`");
}

#[test]
fn error_at_the_end_of_a_huge_flow_list() {
    let dir = TempDir::new("render", "flowlist");
    let items = "1, ".repeat(40_000);
    // The syntax error is the missing `]`, at a column past 120,000.
    dir.write(
        "doc.yaml",
        &format!("oatf: \"0.1\"\nattack:\n  name: x\n  xs: [{items}\n"),
    );
    check_rendered(&dir, &["validate", "doc.yaml"], "doc.yaml:");
}

#[test]
fn validation_error_after_a_long_scalar_on_the_same_line() {
    let dir = TempDir::new("render", "longscalar");
    let long = "v".repeat(80_000);
    // A flow mapping: the unknown field comes after an 80,000-character name.
    dir.write(
        "doc.yaml",
        &format!("oatf: \"0.1\"\nattack: {{name: {long}, bogus_field: 1}}\n"),
    );
    check_rendered(&dir, &["validate", "doc.yaml"], "doc.yaml:2:800");
    check_rendered(&dir, &["evaluate", "doc.yaml", "-"], "bogus_field");
}

#[test]
fn control_characters_in_messages_labels_and_quoted_lines_are_escaped() {
    let dir = TempDir::new("render", "controls");
    dir.write(
        "doc.yaml",
        "oatf: \"0.1\"\nattack:\n  name: \"\\e[2J\\r\\u202e x\"\n  \"bad\\e]0;owned\\a\": 1\n  tab:\tx\n",
    );
    check_rendered(&dir, &["validate", "doc.yaml"], "bad\\u{1b}]0;owned\\u{7}");
    // A raw escape in the source is a syntax error whose line is quoted.
    dir.write(
        "raw.yaml",
        "oatf: \"0.1\"\nattack:\n  name: \u{1b}[31mred\u{1b}[0m\n",
    );
    check_rendered(&dir, &["validate", "raw.yaml"], "\\u{1b}[31mred");
}

#[test]
fn hostile_file_names_are_escaped() {
    let dir = TempDir::new("render", "names");
    let name = "evil\u{1b}[2J\r.yaml";
    dir.write(name, "oatf: \"0.1\"\nattack:\n  name: x\n  bogus: 1\n");
    check_rendered(&dir, &["validate", name], "evil\\u{1b}[2J\\r.yaml");
}

/// A library whose document name, test case name, trace content (the evidence) and file names carry
/// terminal escapes, and which `evaluate`, `test` and `catalog` report on.
#[test]
fn evaluate_test_and_catalog_escape_attacker_text() {
    let dir = TempDir::new("render", "reports");
    let doc = "oatf: \"0.1\"\n\
        attack:\n  id: OATF-900\n  name: \"evil \\e]0;pwned\\a name\"\n  \
        description: \"line\\roverwrite\"\n  execution:\n    mode: mcp_server\n    \
        state:\n      tools: []\n  indicators:\n    - protocol: mcp\n      surface: tools/call\n      \
        target: \"arguments.q\"\n      pattern:\n        contains: \"SECRET\"\n";
    let name = "evil\u{1b}[31m";
    dir.write(&format!("lib/{name}.yaml"), doc);
    let line = "{\"direction\":\"incoming\",\"method\":\"tools/call\",\
        \"content\":{\"name\":\"x\",\"arguments\":{\"q\":\"SECRET \\u001b[2J\\u009b6n \\u202e gone\"}}}\n";
    dir.write(&format!("lib/{name}.trace.jsonl"), line);
    dir.write(
        &format!("lib/{name}.test.yaml"),
        "cases:\n  - name: \"case \\e[8m hidden\"\n    trace: \"evil\\e[31m.trace.jsonl\"\n    \
         expect:\n      result: not_exploited\n",
    );
    let trace = format!("lib/{name}.trace.jsonl");
    let document = format!("lib/{name}.yaml");
    for args in [
        vec!["evaluate", document.as_str(), trace.as_str()],
        vec!["test", "lib"],
        vec!["catalog", "lib"],
    ] {
        let (_, stdout, stderr) = oatf(dir.path(), &args);
        let all = format!("{stdout}{stderr}");
        assert!(
            !has_raw_controls(&all),
            "{args:?}: raw control characters in\n{all:?}"
        );
        assert!(!all.contains("panicked"), "{args:?}: {all}");
        assert!(
            all.contains("evil\\u{1b}[31m") || all.contains("OATF-900"),
            "{args:?}: {all}"
        );
    }
    // The evidence and the case name reach the output, escaped.
    let (_, stdout, _) = oatf(dir.path(), &["evaluate", &document, &trace]);
    assert!(
        stdout.contains("SECRET \\u{1b}[2J\\u{9b}6n \\u{202e} gone"),
        "{stdout}"
    );
    let (_, stdout, stderr) = oatf(dir.path(), &["test", "lib"]);
    assert!(
        format!("{stdout}{stderr}").contains("case \\u{1b}[8m hidden"),
        "{stdout}{stderr}"
    );
}

/// The PATH arguments of `validate`, `fmt` and `normalize --check` are expanded by one owner that
/// prints names escaped: a hostile test file named on the command line and a hostile directory.
#[test]
fn path_arguments_of_every_command_are_escaped() {
    let dir = TempDir::new("render", "pathargs");
    let test_file = "evil\u{1b}[2J.test.yaml";
    let library = "lib\u{202e}\u{7}";
    dir.write(test_file, "cases: []\n");
    dir.write(&format!("{library}/notes.yaml"), "title: not a document\n");
    for command in [
        &["validate"][..],
        &["fmt", "--check"][..],
        &["normalize", "--check"][..],
    ] {
        let args: Vec<&str> = command
            .iter()
            .copied()
            .chain([test_file, library])
            .collect();
        let (_, stdout, stderr) = oatf(dir.path(), &args);
        let all = format!("{stdout}{stderr}");
        assert!(!has_raw_controls(&all), "{command:?}: {all:?}");
        assert!(
            all.contains("evil\\u{1b}[2J.test.yaml"),
            "{command:?}: {all}"
        );
        assert!(
            all.contains("no OATF document under lib\\u{202e}\\u{7}"),
            "{command:?}: {all}"
        );
    }
    let (code, _, stderr) = oatf(dir.path(), &["explain", "V-\u{1b}[2J"]);
    assert_eq!(code, 64);
    assert!(!has_raw_controls(&stderr), "{stderr:?}");
    assert!(stderr.contains("V-\\u{1b}[2J"), "{stderr}");
}
