//! The examples of `examples/` through the command line (`oatf evaluate DOC TRACE --format json`):
//! every trace gives the verdict, exit code and per-indicator results that `examples/README.md`
//! states, and each match is located at the trace line of the deciding message.
#![allow(clippy::unwrap_used, reason = "test setup fails the test")]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A row of the README's verdict table: trace, result, max_tier (`-` for none), exit code, and
/// matched, not_matched, error, skipped.
type Row = (String, String, String, i32, [u64; 4]);
/// A row of the README's indicator table: trace, indicator, expected, deciding message(s).
type IndicatorRow = (String, String, String, String);

/// The two tables of `examples/README.md`, read from their backtick-quoted cells.
fn readme_tables() -> (Vec<Row>, Vec<IndicatorRow>) {
    let readme = std::fs::read_to_string(examples().join("README.md")).unwrap();
    let mut verdicts = Vec::new();
    let mut indicators = Vec::new();
    for line in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        match cells.as_slice() {
            [trace, result, tier, code, m, n, e, s] => verdicts.push((
                trace.to_string(),
                result.to_string(),
                tier.to_string(),
                code.parse().unwrap(),
                [m, n, e, s].map(|c| c.parse().unwrap()),
            )),
            [trace, indicator, expected, deciding] => indicators.push((
                trace.to_string(),
                indicator.to_string(),
                expected.to_string(),
                deciding.to_string(),
            )),
            other => panic!("unexpected README table row {other:?}"),
        }
    }
    (verdicts, indicators)
}

/// The 1-based line of the message with `seq` in a trace file.
fn line_of_seq(trace: &str, seq: u64) -> u64 {
    let text = std::fs::read_to_string(examples().join(trace)).unwrap();
    let index = text
        .lines()
        .position(|l| serde_json::from_str::<Value>(l).unwrap()["seq"] == seq)
        .unwrap();
    index as u64 + 1
}

#[test]
fn every_example_trace_gives_the_readme_verdict() {
    let (verdicts, indicators) = readme_tables();
    assert_eq!(verdicts.len(), 8, "README verdict table");
    assert_eq!(indicators.len(), 19, "README indicator table");
    for (trace, result, tier, expected_code, counts) in &verdicts {
        let document = examples().join(format!("{}.yaml", trace.split('.').next().unwrap()));
        let output = Command::new(env!("CARGO_BIN_EXE_oatf"))
            .arg("evaluate")
            .arg(&document)
            .arg(examples().join(trace))
            .args(["--format", "json"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.is_empty(), "{trace}: {stderr}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["result"], result.as_str(), "{trace}: {report:#}");
        let max_tier = report
            .get("max_tier")
            .and_then(Value::as_str)
            .unwrap_or("-");
        assert_eq!(max_tier, tier, "{trace}");
        assert_eq!(output.status.code(), Some(*expected_code), "{trace}");
        let summary = &report["evaluation_summary"];
        let got =
            ["matched", "not_matched", "error", "skipped"].map(|k| summary[k].as_u64().unwrap());
        assert_eq!(got, *counts, "{trace}");
        assert_eq!(report["trace"]["malformed_lines"], 0, "{trace}");

        for (_, id, expected, deciding) in indicators.iter().filter(|i| &i.0 == trace) {
            let verdict = report["indicator_verdicts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["indicator_id"] == id.as_str())
                .unwrap_or_else(|| panic!("{trace}: no verdict for {id}"));
            assert_eq!(
                verdict["result"],
                expected.as_str(),
                "{trace} {id}: {verdict}"
            );
            if expected == "matched" {
                let seq: u64 = deciding.split([':', ' ']).nth(1).unwrap().parse().unwrap();
                let evidence = verdict["evidence"].as_str().unwrap_or_default();
                assert!(
                    evidence.starts_with(&format!("seq {seq} (")),
                    "{trace} {id}: {evidence}"
                );
                assert_eq!(
                    report["trace"]["matched_lines"][id.as_str()],
                    line_of_seq(trace, seq),
                    "{trace} {id}"
                );
            }
        }
    }
}
