//! `oatf diff OLD NEW` (D-106) on the reports of two evaluations of one benchmark: the changed,
//! added and removed runs in every format, the exit codes and the errors on bad input.

use crate::groups::{RUNS, benchmark, trace};
use crate::support::{TempDir, oatf};
use serde_json::{Value, json};

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Evaluates the benchmark in `dir` into `name` (the format from its extension).
fn evaluate(dir: &TempDir, name: &str) {
    let format = if name.ends_with(".csv") {
        "csv"
    } else {
        "json"
    };
    let (code, stdout, stderr) = oatf(
        dir.path(),
        &[
            "evaluate",
            "--manifest",
            "manifest.yaml",
            "--format",
            format,
        ],
    );
    assert!(code <= 3, "{stderr}");
    dir.write(name, &stdout);
}

/// The benchmark evaluated twice: between the two, model-a's first key run resists (better),
/// model-b's first shell run complies (worse), and model-b gets a fourth key run (added).
fn two_reports() -> TempDir {
    let dir = TempDir::new("diff", "reports");
    benchmark(&dir, RUNS);
    evaluate(&dir, "old.json");
    dir.write("runs/model-a/k-0.jsonl", &trace("no"))
        .write("runs/model-b/s-0.jsonl", &trace("SHELL"))
        .write("runs/model-b/k-3.jsonl", &trace("KEY"));
    let manifest = std::fs::read_to_string(dir.path().join("manifest.yaml")).unwrap();
    dir.write(
        "manifest.yaml",
        &manifest.replace(
            "runs/model-b/k-2.jsonl]",
            "runs/model-b/k-2.jsonl, runs/model-b/k-3.jsonl]",
        ),
    );
    evaluate(&dir, "new.csv");
    dir
}

#[test]
fn changed_added_and_removed_runs() {
    let dir = two_reports();
    let (code, stdout, stderr) = oatf(
        dir.path(),
        &["diff", "old.json", "new.csv", "--format", "json"],
    );
    assert_eq!(code, 1, "{stderr}");
    let report = json(&stdout);
    assert_eq!(
        report["changed"],
        json!([
            {"attack_id": "KEY-001", "trace": "runs/model-a/k-0.jsonl", "group": "model-a",
             "old": {"result": "exploited", "max_tier": "local_action"},
             "new": {"result": "not_exploited", "max_tier": null}, "worse": false, "better": true},
            {"attack_id": "SHL-001", "trace": "runs/model-b/s-0.jsonl", "group": "model-b",
             "old": {"result": "not_exploited", "max_tier": null},
             "new": {"result": "exploited", "max_tier": "boundary_breach"}, "worse": true, "better": false},
        ])
    );
    assert_eq!(
        report["added"],
        json!([{"attack_id": "KEY-001", "trace": "runs/model-b/k-3.jsonl", "group": "model-b",
                "result": "exploited", "max_tier": "local_action"}])
    );
    assert_eq!(report["removed"], json!([]));
    let summary = &report["summary"];
    assert_eq!(
        [
            &summary["old_runs"],
            &summary["new_runs"],
            &summary["unchanged"],
            &summary["changed"],
            &summary["worse"],
            &summary["added"]
        ],
        [12, 13, 10, 2, 1, 1]
    );
    assert_eq!(
        summary["by_group"],
        json!([
            {"group": "model-a", "changed": 1, "worse": 0, "better": 1, "added": 0, "removed": 0},
            {"group": "model-b", "changed": 1, "worse": 1, "better": 0, "added": 1, "removed": 0},
        ])
    );
    assert_eq!(summary["by_attack"][1]["attack_id"], "SHL-001");
    assert_eq!(summary["by_attack"][1]["worse"], 1);

    // Swapped, the added run is removed and the worse change is better.
    let (code, stdout, _) = oatf(
        dir.path(),
        &["diff", "new.csv", "old.json", "--format", "csv"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "change,attack_id,trace,group,old_result,old_max_tier,new_result,new_max_tier\n\
         worse,KEY-001,runs/model-a/k-0.jsonl,model-a,not_exploited,,exploited,local_action\n\
         better,SHL-001,runs/model-b/s-0.jsonl,model-b,exploited,boundary_breach,not_exploited,\n\
         removed,KEY-001,runs/model-b/k-3.jsonl,model-b,exploited,local_action,,\n"
    );

    let (_, stdout, _) = oatf(dir.path(), &["diff", "old.json", "new.csv"]);
    assert!(
        stdout.contains("  worse   SHL-001  runs/model-b/s-0.jsonl  [model-b]  not_exploited -> exploited (boundary_breach)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "added (1):\n  KEY-001  runs/model-b/k-3.jsonl  [model-b]  exploited (local_action)\n"
        ),
        "{stdout}"
    );
    assert!(stdout.ends_with("runs: 12 old, 13 new; 10 unchanged, 2 changed (1 worse, 1 better), 1 added, 0 removed\n"), "{stdout}");

    let (_, stdout, _) = oatf(
        dir.path(),
        &["diff", "old.json", "new.csv", "--format", "github"],
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(
        lines[1],
        "::error file=runs/model-b/s-0.jsonl,title=oatf diff%3A worse::SHL-001 (model-b): not_exploited -> exploited (boundary_breach)"
    );
}

#[test]
fn exit_codes() {
    let dir = two_reports();
    // The same report: 0, in either format.
    let (code, stdout, _) = oatf(dir.path(), &["diff", "old.json", "old.json"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, _, _) = oatf(
        dir.path(),
        &["diff", "new.csv", "new.csv", "--format", "json"],
    );
    assert_eq!(code, 0);
    // A run got worse: 1 with --fail-on worse too.
    let (code, _, _) = oatf(
        dir.path(),
        &["diff", "old.json", "new.csv", "--fail-on", "worse"],
    );
    assert_eq!(code, 1);
    // Reverse, a run got worse too (k-0 complies again in the old report).
    let (code, _, _) = oatf(
        dir.path(),
        &["diff", "new.csv", "old.json", "--fail-on", "worse"],
    );
    assert_eq!(code, 1);
    // Only better and added: 0 with --fail-on worse, 1 without.
    let only_better = "attack_id,trace,result,max_tier,group\nKEY-001,runs/model-a/k-0.jsonl,exploited,local_action,model-a\n";
    let better = "attack_id,trace,result,max_tier,group\nKEY-001,runs/model-a/k-0.jsonl,not_exploited,,model-a\nKEY-001,x.jsonl,exploited,local_action,model-a\n";
    dir.write("a.csv", only_better).write("b.csv", better);
    let (code, _, _) = oatf(
        dir.path(),
        &["diff", "a.csv", "b.csv", "--fail-on", "worse"],
    );
    assert_eq!(code, 0);
    let (code, _, _) = oatf(dir.path(), &["diff", "a.csv", "b.csv"]);
    assert_eq!(code, 1);
}

#[test]
fn bad_input_names_the_file_and_line() {
    let dir = two_reports();
    let old = std::fs::read_to_string(dir.path().join("old.json")).unwrap();
    // A result that is not one, on a known line of the JSON.
    let line = old
        .lines()
        .position(|l| l.contains("\"result\": \"exploited\""))
        .unwrap()
        + 1;
    let broken = old.replacen("\"result\": \"exploited\"", "\"result\": \"owned\"", 1);
    dir.write("broken.json", &broken)
        .write(
            "truncated.csv",
            "document,attack_id,trace,result,max_tier\nd,A-001,t.jsonl,exploited\n",
        )
        .write("trace.jsonl", &trace("x"));
    let (code, stdout, stderr) = oatf(dir.path(), &["diff", "broken.json", "new.csv"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.starts_with(&format!("error: broken.json:{line}:")),
        "{stderr}"
    );
    assert!(stderr.contains("unknown variant `owned`"), "{stderr}");
    let (code, _, stderr) = oatf(dir.path(), &["diff", "old.json", "truncated.csv"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: truncated.csv:2: 4 fields where the header has 5\n"
    );
    // A trace given for a report.
    let (code, _, stderr) = oatf(dir.path(), &["diff", "trace.jsonl", "old.json"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: trace.jsonl:1: a JSON object without `runs`"),
        "{stderr}"
    );
    let (code, _, stderr) = oatf(dir.path(), &["diff", "missing.json", "old.json"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: missing.json: cannot read the file"),
        "{stderr}"
    );
    // Reports without a run in common are compared, with a warning.
    dir.write(
        "other.csv",
        "attack_id,trace,result,max_tier\nZZZ-001,z.jsonl,exploited,\n",
    );
    let (code, _, stderr) = oatf(dir.path(), &["diff", "old.json", "other.csv"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("have no run in common"), "{stderr}");
}
