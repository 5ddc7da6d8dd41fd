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

mod campaign;
mod cel;
mod compile;
mod load;
mod memory;
mod options;
mod ours;
mod report;
mod scaling;
mod sparse;
mod trace;

use oatf_bench::ours_accepts_tier;

use crate::options::Error;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("memory-child") {
        return memory::memory_child(args.get(1).map_or("0", String::as_str).parse()?);
    }
    if args.first().map(String::as_str) == Some("campaign") {
        return campaign::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("profile-scaling") {
        return scaling::profile(&args[1..]);
    }
    let (settings, measures) = options::parse(args)?;
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
            "trace" => trace::measure_trace(&settings, tier)?,
            "load" => load::measure_load(&settings, tier)?,
            "cel" => cel::measure_cel(&settings)?,
            "compile" => compile::measure_compile(&settings, tier)?,
            "thoughtjack" => trace::measure_thoughtjack(&settings, tier)?,
            "scaling" => scaling::measure_scaling(&settings)?,
            "sparse" => sparse::measure_sparse(&settings)?,
            "load-floor" => load::measure_load_floor(&settings, tier)?,
            _ => memory::measure_memory(&settings)?,
        }
    }
    Ok(())
}
