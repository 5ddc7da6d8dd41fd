//! `trace` and `thoughtjack`: a whole trace from JSON Lines bytes to verdict, against the
//! `serde_json::Value` floor and against the reference driven as ThoughtJack drives it.

use oatf_bench::paired::{Contender, run_paired};
use oatf_bench::{LibraryAttack, library_attack, reference_evaluate_trace, trace};

use crate::options::{Error, Settings};
use crate::ours::{compile_ours, floor_trace, load_reference, ours_trace};
use crate::report::{Row, report};

pub(crate) fn measure_trace(settings: &Settings, tier: bool) -> Result<(), Error> {
    let with_cel = compile_ours(&library_attack(LibraryAttack::new(100, true, tier)))?;
    let without_cel = compile_ours(&library_attack(LibraryAttack::new(100, false, tier)))?;
    let jsonl = trace(settings.messages);
    let mut contenders = [
        Contender::new("serde_json_value", || floor_trace(&jsonl)),
        Contender::new("ours", || ours_trace(&with_cel, &jsonl)),
        Contender::new("ours_without_cel", || ours_trace(&without_cel, &jsonl)),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "trace: library-style attack (100 indicators: 70 regex, 20 contains/starts_with, 10 CEL) over {} messages ({} bytes)",
            settings.messages,
            jsonl.len()
        ),
        &run,
        &[
            Row {
                label: "whole trace, ours ÷ parsing into serde_json::Value",
                numerator: 1,
                denominator: 0,
                target: "≤ 2.0×",
            },
            Row {
                label: "the same attack without CEL (90 indicators)",
                numerator: 2,
                denominator: 0,
                target: "≤ 1.6×",
            },
        ],
    );
    Ok(())
}

pub(crate) fn measure_thoughtjack(settings: &Settings, tier: bool) -> Result<(), Error> {
    let yaml = library_attack(LibraryAttack::new(100, true, tier));
    let ours = compile_ours(&yaml)?;
    let reference = load_reference(&yaml)?;
    let jsonl = trace(settings.reference_messages);
    let mut contenders = [
        Contender::new("ours", || ours_trace(&ours, &jsonl)),
        Contender::new("reference_thoughtjack_style", || {
            reference_evaluate_trace(&reference, &jsonl)
                .indicator_verdicts
                .len() as u64
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "thoughtjack: the reference driven per message and per applicable indicator (`evaluate_indicator` with its CEL evaluator), {} messages",
            settings.reference_messages
        ),
        &run,
        &[Row {
            label: "whole trace, reference driven like ThoughtJack ÷ ours",
            numerator: 1,
            denominator: 0,
            target: "",
        }],
    );
    Ok(())
}
