//! The examples of `examples/` through the command line (`oatf evaluate DOC TRACE --format json`):
//! every trace gives the verdict, exit code and per-indicator results that `examples/README.md`
//! states, and each match is located at the trace line of the deciding message.

use serde_json::Value;

use crate::support::{command, examples, readme_tables};

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
        let output = command()
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
        let got = ["matched", "not_matched", "error", "skipped"]
            .map(|k| usize::try_from(summary[k].as_u64().unwrap()).unwrap());
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
