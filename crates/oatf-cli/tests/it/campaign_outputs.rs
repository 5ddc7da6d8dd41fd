//! The whole output of a campaign, every format, byte for byte (exit code, stdout and stderr; only the
//! evaluation timestamps are masked): the examples and every kind of run without a verdict, through a
//! manifest and through `oatf evaluate DOC DIR`. The snapshots were taken before the campaign's
//! execution was reworked for parallel scaling (D-110 to D-114) and must not change with it.

use crate::support::{TempDir, examples, mask_times, oatf};

/// The campaign directory: the three example documents, their eight traces by protocol, a trace
/// with malformed lines, an invalid document, and a manifest that also names a missing trace and a
/// document in a trace's place.
fn campaign() -> TempDir {
    let dir = TempDir::new("campaign", "outputs");
    let examples = examples();
    let read = |name: &str| std::fs::read_to_string(examples.join(name)).unwrap();
    dir.write("mcp.yaml", &read("mcp-tool-poisoning.yaml"));
    dir.write("a2a.yaml", &read("a2a-skill-poisoning.yaml"));
    dir.write("agui.yaml", &read("ag-ui-prompt-injection.yaml"));
    for (folder, names) in [
        (
            "mcp",
            &[
                "mcp-tool-poisoning.complied.jsonl",
                "mcp-tool-poisoning.resisted.jsonl",
                "mcp-tool-poisoning.untouched.jsonl",
            ][..],
        ),
        (
            "a2a",
            &[
                "a2a-skill-poisoning.complied.jsonl",
                "a2a-skill-poisoning.resisted.jsonl",
            ][..],
        ),
        (
            "agui",
            &[
                "ag-ui-prompt-injection.complied.jsonl",
                "ag-ui-prompt-injection.partial.jsonl",
                "ag-ui-prompt-injection.resisted.jsonl",
            ][..],
        ),
    ] {
        for name in names {
            dir.write(&format!("traces/{folder}/{name}"), &read(name));
        }
    }
    let complied = read("mcp-tool-poisoning.complied.jsonl");
    dir.write(
        "traces/mcp/z-malformed.jsonl",
        &format!("not json\n{complied}{{\"seq\": 99}}\n"),
    );
    dir.write(
        "bad.yaml",
        "oatf: \"0.1\"\nattack:\n  id: BAD-1\n  execution:\n    mode: nonsense\n",
    );
    dir.write(
        "manifest.yaml",
        "runs:\n\
         \x20 - document: mcp.yaml\n    traces: [traces/mcp]\n\
         \x20 - document: a2a.yaml\n    trace: traces/a2a/a2a-skill-poisoning.complied.jsonl\n\
         \x20 - document: a2a.yaml\n    traces: [traces/a2a/a2a-skill-poisoning.resisted.jsonl, traces/mcp/mcp-tool-poisoning.complied.jsonl]\n\
         \x20 - document: agui.yaml\n    traces: [traces/agui]\n\
         \x20 - document: bad.yaml\n    trace: traces/mcp/mcp-tool-poisoning.complied.jsonl\n\
         \x20 - document: mcp.yaml\n    traces: [gone.jsonl, agui.yaml]\n",
    );
    dir
}

/// The whole output, timestamps masked, and the tool's version (in `source` and the SARIF driver)
/// written as `[version]`, so that a release does not change the snapshots.
fn run(dir: &TempDir, args: &[&str]) -> String {
    let (code, stdout, stderr) = oatf(dir.path(), args);
    let version = env!("CARGO_PKG_VERSION");
    mask_times(&format!(
        "exit code: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}"
    ))
    .replace(&format!("\"oatf {version}\""), "\"oatf [version]\"")
    .replace(
        &format!("\"version\": \"{version}\""),
        "\"version\": \"[version]\"",
    )
}

#[test]
fn timestamps_are_masked() {
    assert_eq!(
        mask_times("at 2026-11-27T08:44:12Z and 2026-11-20T10:00:00.012Z, not 2026-11-20"),
        "at [time] and [time], not 2026-11-20"
    );
}

#[test]
fn manifest_human() {
    let dir = campaign();
    insta::assert_snapshot!(run(&dir, &["evaluate", "--manifest", "manifest.yaml"]));
}

#[test]
fn manifest_human_quiet_strict() {
    let dir = campaign();
    insta::assert_snapshot!(run(
        &dir,
        &[
            "evaluate",
            "--manifest",
            "manifest.yaml",
            "--quiet",
            "--strict"
        ]
    ));
}

#[test]
fn manifest_json() {
    let dir = campaign();
    insta::assert_snapshot!(run(
        &dir,
        &[
            "evaluate",
            "--manifest",
            "manifest.yaml",
            "--format",
            "json"
        ]
    ));
}

#[test]
fn manifest_csv_strict() {
    let dir = campaign();
    insta::assert_snapshot!(run(
        &dir,
        &[
            "evaluate",
            "--manifest",
            "manifest.yaml",
            "--format",
            "csv",
            "--strict"
        ]
    ));
}

#[test]
fn manifest_sarif() {
    let dir = campaign();
    insta::assert_snapshot!(run(
        &dir,
        &[
            "evaluate",
            "--manifest",
            "manifest.yaml",
            "--format",
            "sarif"
        ]
    ));
}

#[test]
fn manifest_junit() {
    let dir = campaign();
    insta::assert_snapshot!(run(
        &dir,
        &[
            "evaluate",
            "--manifest",
            "manifest.yaml",
            "--format",
            "junit"
        ]
    ));
}

#[test]
fn document_and_directories() {
    let dir = campaign();
    insta::assert_snapshot!(run(
        &dir,
        &[
            "evaluate",
            "mcp.yaml",
            "traces",
            "gone.jsonl",
            "--format",
            "csv"
        ]
    ));
}
