//! The paired runner: the ratios of `docs/performance.md`, measured in interleaved rounds.
//!
//! ```sh
//! cargo run --release -p oatf-bench --bin paired -- all
//! cargo run --release -p oatf-bench --bin paired -- trace load --rounds 21
//! cargo run --release -p oatf-bench --bin paired -- memory
//! ```
//!
//! Measures: `trace`, `load`, `cel`, `compile`, `thoughtjack`, `memory`, `scaling`, `sparse`,
//! `load-floor`
//! (`all` is every one). `paired campaign …` times the `oatf` binary on a campaign of short traces
//! against its floor (`campaign.rs`, with its own options).
//! Options: `--rounds N` (default 15), `--messages N` (trace length of `trace`, default 20000),
//! `--reference-messages N` (trace length of `thoughtjack`, default 500), `--sample-ms N` (least
//! time of one sample, default 40), `--memory-lengths A,B,C` (default 10000,100000,1000000).
//! `paired profile-scaling INDICATORS CEL SECONDS` runs one scaling contender in a loop (for
//! `perf record -g`) and prints its time per message.
//!
//! Each ratio row is the median of per-round ratios, with the interquartile range and min–max, and
//! the ratio of the two contenders' fastest samples (the least disturbed estimate on a busy machine).
#![allow(clippy::print_stdout, reason = "the report is the output of this tool")]

use std::collections::HashMap;
use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use oatf_bench::paired::{Contender, PairedOptions, PairedRun, human_seconds, run_paired};
use oatf_bench::scaling::{scaling_attack, scaling_trace};
use oatf_bench::sparse::sparse_trace;
use oatf_bench::{
    LibraryAttack, MockSemantic, TraceSource, library_attack, library_documents, ours_accepts_tier,
    reference_evaluate_trace, tool_call, trace, union_message,
};
use serde_json::Value;

#[path = "paired/campaign.rs"]
mod campaign;

type Error = Box<dyn std::error::Error>;

struct Settings {
    paired: PairedOptions,
    messages: u64,
    reference_messages: u64,
    memory_lengths: Vec<u64>,
}

/// One row of the report: `numerator ÷ denominator` of two contenders of a run.
struct Row {
    label: &'static str,
    numerator: usize,
    denominator: usize,
    target: &'static str,
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("memory-child") {
        return memory_child(args.get(1).map_or("0", String::as_str).parse()?);
    }
    if args.first().map(String::as_str) == Some("campaign") {
        return campaign::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("profile-scaling") {
        // For `perf record`: one scaling contender run in a loop.
        // `paired profile-scaling INDICATORS CEL(true|false) SECONDS`
        let indicators: usize = args.get(1).map_or("100", String::as_str).parse()?;
        let cel: bool = args.get(2).map_or("true", String::as_str).parse()?;
        let seconds: u64 = args.get(3).map_or("10", String::as_str).parse()?;
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
        return Ok(());
    }
    let mut settings = Settings {
        paired: PairedOptions::default(),
        messages: 20_000,
        reference_messages: 500,
        memory_lengths: vec![10_000, 100_000, 1_000_000],
    };
    let mut measures = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--rounds" => settings.paired.rounds = value()?.parse()?,
            "--messages" => settings.messages = value()?.parse()?,
            "--reference-messages" => settings.reference_messages = value()?.parse()?,
            "--sample-ms" => settings.paired.min_sample = Duration::from_millis(value()?.parse()?),
            "--memory-lengths" => {
                settings.memory_lengths = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            "all" => measures.extend(
                [
                    "trace",
                    "load",
                    "cel",
                    "compile",
                    "thoughtjack",
                    "memory",
                    "scaling",
                    "sparse",
                    "load-floor",
                ]
                .map(str::to_owned),
            ),
            "trace" | "load" | "cel" | "compile" | "thoughtjack" | "memory" | "scaling"
            | "sparse" | "load-floor" => measures.push(arg),
            other => {
                return Err(format!(
                    "unknown argument {other:?}; measures: trace load cel compile thoughtjack memory scaling sparse load-floor all"
                )
                .into());
            }
        }
    }
    if measures.is_empty() {
        return Err(
            "name one or more measures: trace load cel compile thoughtjack memory scaling sparse load-floor all".into(),
        );
    }
    let tier = ours_accepts_tier();
    println!(
        "paired runner: {} rounds, samples of at least {} ms; `tier` on indicators: {}",
        settings.paired.rounds,
        settings.paired.min_sample.as_millis(),
        if tier {
            "on"
        } else {
            "off (this SDK does not accept it yet)"
        }
    );
    for measure in &measures {
        match measure.as_str() {
            "trace" => measure_trace(&settings, tier)?,
            "load" => measure_load(&settings, tier)?,
            "cel" => measure_cel(&settings)?,
            "compile" => measure_compile(&settings, tier)?,
            "thoughtjack" => measure_thoughtjack(&settings, tier)?,
            "scaling" => measure_scaling(&settings)?,
            "sparse" => measure_sparse(&settings)?,
            "load-floor" => measure_load_floor(&settings, tier)?,
            _ => measure_memory(&settings)?,
        }
    }
    Ok(())
}

fn report(title: &str, run: &PairedRun, rows: &[Row]) {
    println!("\n## {title}\n");
    println!("| contender | operations per sample | median time per operation | min–max |");
    println!("|---|---|---|---|");
    for (c, name) in run.names.iter().enumerate() {
        let t = run.time(c);
        println!(
            "| {name} | {} | {} | {}–{} |",
            run.iterations[c],
            human_seconds(t.median),
            human_seconds(t.min),
            human_seconds(t.max)
        );
    }
    println!("\n| ratio | median | IQR | min–max | fastest ÷ fastest | rounds | target |");
    println!("|---|---|---|---|---|---|---|");
    for row in rows {
        let r = run.ratio(row.numerator, row.denominator);
        println!(
            "| {} ({} ÷ {}) | **{:.2}×** | {:.2}–{:.2} | {:.2}–{:.2} | {:.2}× | {} | {} |",
            row.label,
            run.names[row.numerator],
            run.names[row.denominator],
            r.median,
            r.q1,
            r.q3,
            r.min,
            r.max,
            run.ratio_of_fastest(row.numerator, row.denominator),
            r.count,
            row.target
        );
    }
}

fn eval_options() -> oatf::EvalOptions {
    oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic))
}

fn compile_ours(yaml: &str) -> Result<oatf::CompiledAttack, Error> {
    let document = oatf::load(yaml)?.document;
    let attack = oatf::CompiledAttack::new(&document, &eval_options());
    if let Some((id, error)) = attack.compile_errors().next() {
        return Err(format!("{id} does not compile: {error}").into());
    }
    Ok(attack)
}

fn load_reference(yaml: &str) -> Result<oatf_reference::Document, Error> {
    oatf_reference::load(yaml)
        .map(|loaded| loaded.document)
        .map_err(|errors| format!("the reference rejects the document: {errors:?}").into())
}

/// Our whole run from JSON Lines bytes to verdict, as `oatf evaluate` reads (`next_into`, which
/// parses a line's content only when an indicator needs it, D-91); returns the number of messages.
fn ours_trace(attack: &oatf::CompiledAttack, jsonl: &[u8]) -> u64 {
    let mut evaluator = oatf::TraceEvaluator::new(attack);
    let mut reader = oatf::JsonlTraceReader::new(jsonl);
    while let Some(step) = reader.next_into(&mut evaluator) {
        black_box(step.is_ok());
    }
    let messages = evaluator.messages();
    black_box(evaluator.finish());
    messages
}

/// The same run with every line parsed into a `TraceMessage` and pushed (the reading before D-91).
fn ours_trace_full(attack: &oatf::CompiledAttack, jsonl: &[u8]) -> u64 {
    let mut evaluator = oatf::TraceEvaluator::new(attack);
    for message in oatf::JsonlTraceReader::new(jsonl).flatten() {
        evaluator.push(&message);
    }
    let messages = evaluator.messages();
    black_box(evaluator.finish());
    messages
}

/// The floor: every line parsed into a `serde_json::Value`, nothing else.
fn floor_trace(jsonl: &[u8]) -> u64 {
    let mut count = 0;
    for line in jsonl.split(|&b| b == b'\n') {
        if !line.is_empty() && serde_json::from_slice::<Value>(line).is_ok() {
            count += 1;
        }
    }
    count
}

fn measure_trace(settings: &Settings, tier: bool) -> Result<(), Error> {
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

/// Issue 25: the whole run from JSON Lines bytes to verdict against the number of indicators, when
/// half of them apply to each message, next to the `serde_json::Value` floor of the same lines;
/// the straightforward engine (no prefilter) beside the prefiltered one at 100 and 1,000.
fn measure_scaling(settings: &Settings) -> Result<(), Error> {
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

/// Issue 25 part 2 (D-91): the lazy reading (`next_into`) against the full one (`next` and
/// `push`) on a trace where one line in five applies to an indicator ([`sparse_trace`]) and on the
/// scaling trace (every line applies), next to the `serde_json::Value` floor of each.
fn measure_sparse(settings: &Settings) -> Result<(), Error> {
    let ten = compile_ours(&scaling_attack(10, true))?;
    let hundred = compile_ours(&scaling_attack(100, false))?;
    let sparse = sparse_trace(settings.messages);
    let dense = scaling_trace(settings.messages);
    let mut contenders = [
        Contender::new("sparse_floor", || floor_trace(&sparse)),
        Contender::new("sparse_full_10", || ours_trace_full(&ten, &sparse)),
        Contender::new("sparse_lazy_10", || ours_trace(&ten, &sparse)),
        Contender::new("sparse_full_100_without_cel", || {
            ours_trace_full(&hundred, &sparse)
        }),
        Contender::new("sparse_lazy_100_without_cel", || {
            ours_trace(&hundred, &sparse)
        }),
        Contender::new("dense_floor", || floor_trace(&dense)),
        Contender::new("dense_full_10", || ours_trace_full(&ten, &dense)),
        Contender::new("dense_lazy_10", || ours_trace(&ten, &dense)),
        Contender::new("dense_full_100_without_cel", || {
            ours_trace_full(&hundred, &dense)
        }),
        Contender::new("dense_lazy_100_without_cel", || {
            ours_trace(&hundred, &dense)
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "sparse: the scaling attack over a session where 1 line in 5 applies ({} bytes) and over the scaling trace ({} bytes), {} messages each; lazy reading (next_into) against the full one (next + push)",
            sparse.len(),
            dense.len(),
            settings.messages
        ),
        &run,
        &[
            Row {
                label: "sparse, 10 indicators: lazy ÷ full",
                numerator: 2,
                denominator: 1,
                target: "< 1",
            },
            Row {
                label: "sparse, 100 without CEL: lazy ÷ full",
                numerator: 4,
                denominator: 3,
                target: "< 1",
            },
            Row {
                label: "sparse, 10 indicators: full ÷ Value floor",
                numerator: 1,
                denominator: 0,
                target: "",
            },
            Row {
                label: "sparse, 10 indicators: lazy ÷ Value floor",
                numerator: 2,
                denominator: 0,
                target: "",
            },
            Row {
                label: "sparse, 100 without CEL: full ÷ Value floor",
                numerator: 3,
                denominator: 0,
                target: "",
            },
            Row {
                label: "sparse, 100 without CEL: lazy ÷ Value floor",
                numerator: 4,
                denominator: 0,
                target: "",
            },
            Row {
                label: "dense, 10 indicators: lazy ÷ full",
                numerator: 7,
                denominator: 6,
                target: "",
            },
            Row {
                label: "dense, 100 without CEL: lazy ÷ full",
                numerator: 9,
                denominator: 8,
                target: "",
            },
            Row {
                label: "dense, 10 indicators: lazy ÷ Value floor",
                numerator: 7,
                denominator: 5,
                target: "",
            },
            Row {
                label: "dense, 100 without CEL: lazy ÷ Value floor",
                numerator: 9,
                denominator: 5,
                target: "",
            },
        ],
    );
    println!("\n| contender | per message (median) | MB/s |");
    println!("|---|---|---|");
    for (c, name) in run.names.iter().enumerate() {
        let bytes = if c < 5 { sparse.len() } else { dense.len() };
        println!(
            "| {name} | {} | {:.0} |",
            human_seconds(run.time(c).median / settings.messages as f64),
            bytes as f64 / 1e6 / run.time(c).median
        );
    }
    Ok(())
}

/// Issue 25: loading the library-style documents next to the YAML scanner floor (the same
/// serde-saphyr parser reading each document into `IgnoredAny`).
fn measure_load_floor(settings: &Settings, tier: bool) -> Result<(), Error> {
    let documents = library_documents(tier);
    let bytes: usize = documents.iter().map(String::len).sum();
    let mut contenders = [
        Contender::new("yaml_scanner_floor", || {
            documents
                .iter()
                .map(|d| u64::from(serde_saphyr::from_str::<serde::de::IgnoredAny>(d).is_ok()))
                .sum()
        }),
        Contender::new("ours_load", || {
            documents
                .iter()
                .map(|d| u64::from(oatf::load(d).is_ok()))
                .sum()
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "load-floor: {} library-style documents ({bytes} bytes) against the YAML scanner floor",
            documents.len()
        ),
        &run,
        &[Row {
            label: "load ÷ serde-saphyr into IgnoredAny",
            numerator: 1,
            denominator: 0,
            target: "≤ 1.10×",
        }],
    );
    let mb = bytes as f64 / 1e6;
    println!(
        "\nMB/s: floor {:.1}, ours {:.1}",
        mb / run.time(0).median,
        mb / run.time(1).median
    );
    Ok(())
}

fn measure_load(settings: &Settings, tier: bool) -> Result<(), Error> {
    let documents = library_documents(tier);
    let bytes: usize = documents.iter().map(String::len).sum();
    let mut contenders = [
        Contender::new("ours", || {
            documents
                .iter()
                .map(|d| u64::from(oatf::load(d).is_ok()))
                .sum()
        }),
        Contender::new("reference", || {
            documents
                .iter()
                .map(|d| u64::from(oatf_reference::load(d).is_ok()))
                .sum()
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "load: {} library-style documents ({bytes} bytes; every indicator a regex; `tier` {})",
            documents.len(),
            if tier { "on" } else { "off" }
        ),
        &run,
        &[Row {
            label: "load (parse + validate + normalize)",
            numerator: 1,
            denominator: 0,
            target: "≥ 3×",
        }],
    );
    Ok(())
}

/// `message.arguments.items.exists(x, size(x.name) > 64)` written in Rust against the same
/// `serde_json::Value` (CEL's `size` of a string counts code points).
fn hand_written_cel(message: &Value) -> bool {
    message
        .get("arguments")
        .and_then(|a| a.get("items"))
        .and_then(Value::as_array)
        .is_some_and(|items| {
            items.iter().any(|x| {
                x.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.chars().count() > 64)
            })
        })
}

const CEL_EXPRESSION: &str = "message.arguments.items.exists(x, size(x.name) > 64)";

fn measure_cel(settings: &Settings) -> Result<(), Error> {
    let yaml = oatf_bench::one_indicator_document(
        "arguments.items",
        &format!("expression:\n        cel: \"{CEL_EXPRESSION}\""),
    );
    let document = oatf::load(&yaml)?.document;
    let indicator = document
        .attack
        .as_ref()
        .and_then(|a| a.indicators.as_ref())
        .and_then(|i| i.first())
        .ok_or("no indicator")?
        .clone();
    let options = eval_options();
    let compiled = oatf::eval::CompiledIndicator::new(&indicator, &options)?;
    let cel: Arc<dyn oatf::eval::CelEvaluator> = Arc::new(oatf::cel::CelEngine::new());
    let reference = load_reference(&yaml)?
        .attack
        .indicators
        .and_then(|mut i| i.pop())
        .ok_or("no indicator in the reference")?;
    let reference_cel = oatf_reference::evaluate::default_cel_evaluator();
    let message = tool_call(10 * 1024);
    // All agree before they are timed.
    let expected = hand_written_cel(&message);
    let ours = compiled.evaluate(&message).result == oatf::IndicatorResult::Matched;
    let theirs = oatf_reference::evaluate::evaluate_indicator(
        &reference,
        &message,
        Some(&reference_cel),
        None,
    )
    .result
        == oatf_reference::enums::IndicatorResult::Matched;
    if ours != expected || theirs != expected {
        return Err(format!(
            "cel: disagreement (hand {expected}, ours {ours}, reference {theirs})"
        )
        .into());
    }
    let mut contenders = [
        Contender::new("hand_written", || {
            u64::from(hand_written_cel(black_box(&message)))
        }),
        Contender::new("ours_compiled", || {
            u64::from(
                compiled.evaluate(black_box(&message)).result == oatf::IndicatorResult::Matched,
            )
        }),
        Contender::new("ours_one_shot", || {
            let verdict = oatf::evaluate_indicator(
                &indicator,
                black_box(&message),
                &oatf::EvalOptions::from_evaluators(Some(cel.clone()), None),
            );
            u64::from(verdict.result == oatf::IndicatorResult::Matched)
        }),
        Contender::new("reference", || {
            let verdict = oatf_reference::evaluate::evaluate_indicator(
                &reference,
                black_box(&message),
                Some(&reference_cel),
                None,
            );
            u64::from(verdict.result == oatf_reference::enums::IndicatorResult::Matched)
        }),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        &format!(
            "cel: `{CEL_EXPRESSION}` on a {} byte tools/call message",
            message.to_string().len()
        ),
        &run,
        &[
            Row {
                label: "CEL indicator on a 10 KB message, ours ÷ hand-written Rust",
                numerator: 1,
                denominator: 0,
                target: "≤ 5×",
            },
            Row {
                label: "ours one-shot ÷ ours compiled",
                numerator: 2,
                denominator: 1,
                target: "",
            },
            Row {
                label: "reference ÷ ours compiled",
                numerator: 3,
                denominator: 1,
                target: "",
            },
        ],
    );
    Ok(())
}

fn measure_compile(settings: &Settings, tier: bool) -> Result<(), Error> {
    let yaml = library_attack(LibraryAttack::new(100, true, tier));
    let document = oatf::load(&yaml)?.document;
    let attack = document.attack.as_ref().ok_or("no attack")?;
    let indicators = attack.indicators.as_deref().unwrap_or_default();
    let options = eval_options();
    let compiled = oatf::CompiledAttack::new(&document, &options);
    let cel: Arc<dyn oatf::eval::CelEvaluator> = Arc::new(oatf::cel::CelEngine::new());
    let semantic: Arc<dyn oatf::eval::SemanticEvaluator> = Arc::new(MockSemantic);
    let reference = load_reference(&yaml)?;
    let reference_indicators = reference.attack.indicators.as_deref().unwrap_or_default();
    let reference_cel = oatf_reference::evaluate::default_cel_evaluator();
    // Every indicator resolves its target in this message and does its whole work (no match).
    let message = union_message();

    let reference_once = || {
        let verdicts: HashMap<String, oatf_reference::IndicatorVerdict> = reference_indicators
            .iter()
            .map(|indicator| {
                let verdict = oatf_reference::evaluate::evaluate_indicator(
                    indicator,
                    black_box(&message),
                    Some(&reference_cel),
                    Some(&MockSemantic),
                );
                (verdict.indicator_id.clone(), verdict)
            })
            .collect();
        let verdict = oatf_reference::evaluate::compute_verdict(&reference.attack, &verdicts);
        u64::from(verdict.result == oatf_reference::enums::AttackResult::NotExploited)
    };
    let ours_one_shot = || {
        let verdicts: Vec<oatf::IndicatorVerdict> = indicators
            .iter()
            .map(|indicator| {
                oatf::evaluate_indicator(
                    indicator,
                    black_box(&message),
                    &oatf::EvalOptions::from_evaluators(Some(cel.clone()), Some(semantic.clone())),
                )
            })
            .collect();
        let verdict = oatf::eval::compute_verdict(attack, &verdicts);
        u64::from(verdict.result == oatf::AttackResult::NotExploited)
    };
    let ours_compiled = || {
        let verdict = compiled.evaluate(black_box(&message));
        u64::from(verdict.result == oatf::AttackResult::NotExploited)
    };
    // The three evaluations agree before they are timed: nothing matches, nothing fails.
    if (reference_once(), ours_one_shot(), ours_compiled()) != (1, 1, 1) {
        return Err("compile: an evaluation of the union message is not `not_exploited`".into());
    }
    let mut contenders = [
        Contender::new("ours_compile", || {
            oatf::CompiledAttack::new(black_box(&document), &options)
                .indicators()
                .count() as u64
        }),
        Contender::new("reference_one_evaluation", reference_once),
        Contender::new("ours_one_shot_evaluation", ours_one_shot),
        Contender::new("ours_compiled_evaluation", ours_compiled),
    ];
    let run = run_paired(&mut contenders, &settings.paired);
    report(
        "compile: the library-style attack of 100 indicators; evaluations of all 100 against one message carrying every field they read",
        &run,
        &[
            Row {
                label: "compiling 100 indicators vs one reference evaluation",
                numerator: 1,
                denominator: 0,
                target: "≥ 2×",
            },
            Row {
                label: "one-shot evaluate_indicator, reference ÷ ours",
                numerator: 1,
                denominator: 2,
                target: "",
            },
            Row {
                label: "ours one-shot ÷ ours compiled",
                numerator: 2,
                denominator: 3,
                target: "",
            },
        ],
    );
    Ok(())
}

fn measure_thoughtjack(settings: &Settings, tier: bool) -> Result<(), Error> {
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

/// Peak resident memory (`VmHWM`) of this process in KiB, from `/proc/self/status` (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Child process of the `memory` measure: evaluates a generated trace of `messages` lines, read as a
/// stream, and prints its message count and peak memory.
fn memory_child(messages: u64) -> Result<(), Error> {
    let tier = ours_accepts_tier();
    let attack = compile_ours(&library_attack(LibraryAttack::new(100, true, tier)))?;
    let mut evaluator = oatf::TraceEvaluator::new(&attack);
    let reader = std::io::BufReader::new(TraceSource::new(messages));
    for message in oatf::JsonlTraceReader::new(reader) {
        evaluator.push(&message?);
    }
    let read = evaluator.messages();
    black_box(evaluator.finish());
    println!(
        "{read} {}",
        peak_rss_kib().ok_or("no VmHWM in /proc/self/status")?
    );
    Ok(())
}

fn measure_memory(settings: &Settings) -> Result<(), Error> {
    let exe = std::env::current_exe()?;
    println!(
        "\n## memory: peak resident set of a whole-trace run (library attack, trace streamed)\n"
    );
    println!("| messages | peak RSS (VmHWM) | wall time |");
    println!("|---|---|---|");
    for &messages in &settings.memory_lengths {
        let start = std::time::Instant::now();
        let output = Command::new(&exe)
            .args(["memory-child", &messages.to_string()])
            .output()?;
        let elapsed = start.elapsed().as_secs_f64();
        if !output.status.success() {
            return Err(format!(
                "memory child failed: {}",
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut fields = stdout.split_whitespace();
        let read: u64 = fields.next().ok_or("no count")?.parse()?;
        let kib: u64 = fields.next().ok_or("no peak")?.parse()?;
        if read != messages {
            return Err(format!("memory child read {read} of {messages} messages").into());
        }
        println!(
            "| {messages} | {:.1} MiB | {} |",
            kib as f64 / 1024.0,
            human_seconds(elapsed)
        );
    }
    Ok(())
}
