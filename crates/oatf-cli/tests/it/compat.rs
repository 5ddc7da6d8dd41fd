//! `oatf evaluate --compat thoughtjack-context` and a manifest's `compat:` (decision D-100), on the
//! fixtures of `tests/fixtures/thoughtjack-context/` (their README states the verdicts); the
//! default profile's warning (D-101).

use serde_json::Value;

use crate::support::{TempDir, mask_times, oatf, repo};

fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures/thoughtjack-context")
        .join(name)
        .display()
        .to_string()
}

/// The exit code and the JSON report of `oatf evaluate` on a fixture, its timestamps masked.
fn evaluate(trace: &str, compat: Option<&str>) -> (i32, Value) {
    let (attack, trace) = (fixture("attack.yaml"), fixture(trace));
    let mut args = vec!["evaluate", &attack, &trace, "--format", "json"];
    if let Some(compat) = compat {
        args.extend(["--compat", compat]);
    }
    let (code, stdout, stderr) = oatf(&repo(), &args);
    // Timestamps masked: two runs compared whole may straddle a second.
    let stdout = mask_times(&stdout);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, report)
}

fn warning_kinds(report: &Value) -> Vec<String> {
    report["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| w["kind"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_profile_scores_a_context_mode_trace_as_thoughtjack_does() {
    let (code, report) = evaluate("exploited.jsonl", Some("thoughtjack-context"));
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["result"], "exploited");
    assert_eq!(report["max_tier"], "ingested");
    assert_eq!(report["trace"]["compat"], "thoughtjack-context");
    // The match on a derived message is located at the line of the entry it comes from (seq 5).
    assert_eq!(report["trace"]["matched_lines"]["TJ-CONTEXT-001-01"], 6);
    assert!(!warning_kinds(&report).contains(&"compat_would_change".to_owned()));

    // The default stays spec-exact and says what the profile would give, naming the option.
    let (code, report) = evaluate("exploited.jsonl", None);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["result"], "not_exploited");
    assert_eq!(report["trace"].get("compat"), None);
    let warning = report["warnings"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["kind"] == "compat_would_change"))
        .unwrap_or_else(|| panic!("{report:#}"));
    assert!(
        warning["message"]
            .as_str()
            .is_some_and(|m| m.contains("--compat thoughtjack-context")
                && m.contains("would be exploited (ingested) instead of not_exploited")),
        "{warning}"
    );
    // `spec-exact` is the default, by name.
    assert_eq!(
        evaluate("exploited.jsonl", Some("spec-exact")),
        (code, report)
    );

    // A resisted run is the same both ways, without the warning.
    for compat in [None, Some("thoughtjack-context")] {
        let (code, report) = evaluate("resisted.jsonl", compat);
        assert_eq!(
            (code, &report["result"]),
            (0, &Value::from("not_exploited"))
        );
        assert!(!warning_kinds(&report).contains(&"compat_would_change".to_owned()));
    }
}

#[test]
fn an_unknown_profile_is_a_usage_error_naming_the_known_ones() {
    let (attack, trace) = (fixture("attack.yaml"), fixture("exploited.jsonl"));
    let (code, _, stderr) = oatf(
        &repo(),
        &["evaluate", &attack, &trace, "--compat", "thoughtjack"],
    );
    assert_eq!(code, 64, "{stderr}");
    assert!(
        stderr.contains("unknown compatibility profile `thoughtjack`; expected one of: spec-exact, thoughtjack-context"),
        "{stderr}"
    );
}

/// A manifest's top-level `compat:` applies to its runs, a run's own wins, and `--compat` applies
/// where the manifest names none.
#[test]
fn a_manifest_names_the_profile_per_campaign_and_per_run() {
    let dir = TempDir::new("compat", "manifest");
    let (attack, exploited) = (fixture("attack.yaml"), fixture("exploited.jsonl"));
    let run = |compat: &str| format!("  - document: {attack}\n    trace: {exploited}\n{compat}");
    dir.write(
        "manifest.yaml",
        &format!(
            "compat: thoughtjack-context\nruns:\n{}{}",
            run(""),
            run("    compat: spec-exact\n")
        ),
    );
    let results = |args: &[&str]| {
        let (code, stdout, stderr) = oatf(dir.path(), args);
        let rows: Vec<String> = stdout
            .lines()
            .skip(1)
            .map(|row| row.split(',').nth(3).unwrap_or("").to_owned())
            .collect();
        (code, rows, stderr)
    };
    let (code, rows, stderr) =
        results(&["evaluate", "--manifest", "manifest.yaml", "--format", "csv"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(rows, ["exploited", "not_exploited"]);

    // Without a top-level `compat:`, `--compat` is the campaign's profile; the run's still wins.
    dir.write(
        "plain.yaml",
        &format!("runs:\n{}{}", run(""), run("    compat: spec-exact\n")),
    );
    let (_, rows, _) = results(&["evaluate", "--manifest", "plain.yaml", "--format", "csv"]);
    assert_eq!(rows, ["not_exploited", "not_exploited"]);
    let (_, rows, _) = results(&[
        "evaluate",
        "--manifest",
        "plain.yaml",
        "--format",
        "csv",
        "--compat",
        "thoughtjack-context",
    ]);
    assert_eq!(rows, ["exploited", "not_exploited"]);

    // An unknown profile is an error naming the manifest, the line and the known profiles.
    dir.write(
        "bad.yaml",
        &format!("runs:\n{}", run("    compat: thoughtjack\n")),
    );
    let (code, _, stderr) = oatf(dir.path(), &["evaluate", "--manifest", "bad.yaml"]);
    assert_eq!(code, 66, "{stderr}");
    assert!(stderr.contains("bad.yaml"), "{stderr}");
    assert!(stderr.contains("line 4"), "{stderr}");
    assert!(
        stderr.contains("unknown compatibility profile `thoughtjack`"),
        "{stderr}"
    );
}
