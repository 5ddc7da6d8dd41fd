//! The examples of `examples/` through the library API (`load` → `CompiledAttack::new` →
//! `evaluate_trace`): every trace gives the verdict and per-indicator results that
//! `examples/README.md` states, and each match names the deciding message.
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use oatf::CompiledAttack;
use oatf::JsonlTraceReader;
use oatf::TraceMessage;
use oatf::evaluate_trace;

use crate::support::readme_tables::{examples, readme_tables};

/// The document a trace belongs to: `NAME.OUTCOME.jsonl` → `NAME.yaml`.
fn document_of(trace: &str) -> PathBuf {
    let name = trace.split('.').next().unwrap();
    examples().join(format!("{name}.yaml"))
}

#[test]
fn every_example_trace_gives_the_readme_verdict() {
    let (verdicts, indicators) = readme_tables();
    assert_eq!(verdicts.len(), 8, "README verdict table");
    assert_eq!(indicators.len(), 19, "README indicator table");
    let mut traces_on_disk: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    traces_on_disk.sort();
    let mut traces_in_readme: Vec<String> = verdicts.iter().map(|v| v.0.clone()).collect();
    traces_in_readme.sort();
    assert_eq!(
        traces_on_disk, traces_in_readme,
        "every trace has an expected verdict"
    );

    for (trace, result, tier, _exit_code, counts) in &verdicts {
        let source = std::fs::read_to_string(document_of(trace)).unwrap();
        let loaded = oatf::load(&source).unwrap();
        let attack = CompiledAttack::new(&loaded.document, &oatf::default_eval_options());
        let file = File::open(examples().join(trace)).unwrap();
        let messages: Vec<TraceMessage> = JsonlTraceReader::new(BufReader::new(file))
            .collect::<Result<_, _>>()
            .unwrap();
        let verdict = evaluate_trace(&attack, &messages);

        assert_eq!(verdict.result.as_str(), result, "{trace}: {verdict:#?}");
        assert_eq!(
            verdict.max_tier.map_or("-", |t| t.as_str()),
            tier,
            "{trace}"
        );
        let s = verdict.evaluation_summary;
        assert_eq!(
            [s.matched, s.not_matched, s.error, s.skipped],
            *counts,
            "{trace}"
        );
        for (_, id, expected, deciding) in indicators.iter().filter(|i| &i.0 == trace) {
            let got = verdict
                .indicator_verdicts
                .iter()
                .find(|v| &v.indicator_id == id)
                .unwrap_or_else(|| panic!("{trace}: no verdict for {id}"));
            assert_eq!(got.result.as_str(), expected, "{trace} {id}: {got:?}");
            if expected == "matched" {
                // "seq 10: …" or "seq 7" in the README; the evidence starts with "seq 10 (…".
                let seq = deciding.split([':', ' ']).nth(1).unwrap();
                let evidence = got.evidence.as_deref().unwrap_or_default();
                assert!(
                    evidence.starts_with(&format!("seq {seq} (")),
                    "{trace} {id}: evidence {evidence:?} should name seq {seq}"
                );
            }
        }
    }
}
