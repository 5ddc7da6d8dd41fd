//! `scaling`: the whole run against the number of indicators, and `profile-scaling`, one contender
//! in a loop for `perf record`.

use std::hint::black_box;
use std::time::Duration;

use oatf_bench::paired::{Contender, human_seconds, run_paired};
use oatf_bench::scaling::{scaling_attack, scaling_trace};

use crate::options::{Error, Settings};
use crate::ours::{compile_ours, floor_trace, ours_trace};
use crate::report::{Row, report};

/// `paired profile-scaling INDICATORS CEL SECONDS` (`args` after `profile-scaling`; CEL `true` or
/// `false`): one scaling contender run in a loop (for `perf record -g`), printing its time per message.
pub(crate) fn profile(args: &[String]) -> Result<(), Error> {
    let indicators: usize = args.first().map_or("100", String::as_str).parse()?;
    let cel: bool = args.get(1).map_or("true", String::as_str).parse()?;
    let seconds: u64 = args.get(2).map_or("10", String::as_str).parse()?;
    let attack = compile_ours(&scaling_attack(indicators, cel))?;
    let jsonl = scaling_trace(10_000);
    let start = std::time::Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_secs(seconds) {
        black_box(ours_trace(&attack, &jsonl));
        runs += 1;
    }
    println!(
        "{runs} runs, {:.2} us per message",
        start.elapsed().as_secs_f64() * 1e6 / f64::from(runs) / 10_000.0
    );
    Ok(())
}

/// The whole run from JSON Lines bytes to verdict against the number of indicators, when
/// half of them apply to each message, next to the `serde_json::Value` floor of the same lines;
/// the straightforward engine (no prefilter) beside the prefiltered one at 100 and 1,000.
pub(crate) fn measure_scaling(settings: &Settings) -> Result<(), Error> {
    let counts = [1usize, 10, 100, 1000];
    let attacks: Vec<oatf::CompiledAttack> = counts
        .iter()
        .map(|&n| compile_ours(&scaling_attack(n, true)))
        .collect::<Result<_, _>>()?;
    let without_cel = compile_ours(&scaling_attack(100, false))?;
    let without_cel_1000 = compile_ours(&scaling_attack(1000, false))?;
    let jsonl = scaling_trace(settings.messages);
    let straightforward = |attack: &oatf::CompiledAttack| {
        let mut evaluator = oatf::TraceEvaluator::without_prefilter(attack);
        for message in oatf::JsonlTraceReader::new(jsonl.as_slice()).flatten() {
            evaluator.push(&message);
        }
        let messages = evaluator.messages();
        black_box(evaluator.finish());
        messages
    };
    let mut contenders = [
        Contender::new("serde_json_value", || floor_trace(&jsonl)),
        Contender::new("ours_1", || ours_trace(&attacks[0], &jsonl)),
        Contender::new("ours_10", || ours_trace(&attacks[1], &jsonl)),
        Contender::new("ours_100", || ours_trace(&attacks[2], &jsonl)),
        Contender::new("ours_1000", || ours_trace(&attacks[3], &jsonl)),
        Contender::new("ours_100_without_cel", || ours_trace(&without_cel, &jsonl)),
        Contender::new("straightforward_100", || straightforward(&attacks[2])),
        Contender::new("straightforward_1000", || straightforward(&attacks[3])),
        Contender::new("ours_1000_without_cel", || {
            ours_trace(&without_cel_1000, &jsonl)
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    let mb = jsonl.len() as f64 / 1e6;
    report(
        &format!(
            "scaling: 1/10/100/1,000 indicators (70% library regexes, 20% contains/starts_with, 10% CEL), half applicable to each message, {} messages ({} bytes, {:.0} bytes per line)",
            settings.messages,
            jsonl.len(),
            jsonl.len() as f64 / settings.messages as f64
        ),
        &run,
        &[
            Row {
                label: "1 indicator ÷ Value floor",
                numerator: 1,
                denominator: 0,
                target: "",
            },
            Row {
                label: "10 indicators ÷ Value floor",
                numerator: 2,
                denominator: 0,
                target: "",
            },
            Row {
                label: "100 indicators with CEL ÷ Value floor",
                numerator: 3,
                denominator: 0,
                target: "≤ 2.0×",
            },
            Row {
                label: "1,000 indicators ÷ Value floor",
                numerator: 4,
                denominator: 0,
                target: "≤ 4×",
            },
            Row {
                label: "100 indicators without CEL ÷ Value floor",
                numerator: 5,
                denominator: 0,
                target: "≤ 1.5×",
            },
            Row {
                label: "1,000 indicators ÷ 10 indicators",
                numerator: 4,
                denominator: 2,
                target: "",
            },
            Row {
                label: "1,000 indicators without CEL ÷ Value floor",
                numerator: 8,
                denominator: 0,
                target: "",
            },
            Row {
                label: "1,000 without CEL ÷ 10 indicators",
                numerator: 8,
                denominator: 2,
                target: "",
            },
            Row {
                label: "straightforward ÷ prefiltered, 100 indicators",
                numerator: 6,
                denominator: 3,
                target: "",
            },
            Row {
                label: "straightforward ÷ prefiltered, 1,000 indicators",
                numerator: 7,
                denominator: 4,
                target: "",
            },
        ],
    );
    println!(
        "\n| contender | per message (median) | MB/s | per message above the floor | ÷ floor (paired median) |"
    );
    println!("|---|---|---|---|---|");
    let floor = run.time(0).median / settings.messages as f64;
    for (c, name) in run.names.iter().enumerate() {
        let per_message = run.time(c).median / settings.messages as f64;
        println!(
            "| {name} | {} | {:.0} | {} | {:.2}× |",
            human_seconds(per_message),
            mb / run.time(c).median,
            human_seconds((per_message - floor).max(0.0)),
            run.ratio(c, 0).median
        );
    }
    Ok(())
}
