//! Issue 25's load goal on two inputs in one interleaved run: `load` of the library-style documents
//! and of the 20 KB synthetic document (`DOCUMENTS`' `20kb`), each next to its YAML scanner floor
//! (the same serde-saphyr parser reading the same text into `IgnoredAny`). The synthetic document
//! has CEL expressions: a third row loads it without the CEL syntax check of `oatf-cel`.
//!
//! ```sh
//! cargo run --release -p oatf-bench --bin load_floor -- --rounds 21
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark binary reports on stdout")]
#![allow(missing_docs, reason = "a benchmark binary")]

use oatf_bench::paired::{Contender, PairedOptions, PairedRun, human_seconds, run_paired};
use oatf_bench::{DOCUMENTS, document, library_documents, ours_accepts_tier};

fn floor(documents: &[String]) -> u64 {
    documents
        .iter()
        .map(|d| u64::from(serde_saphyr::from_str::<serde::de::IgnoredAny>(d).is_ok()))
        .sum()
}

fn load(documents: &[String]) -> u64 {
    documents
        .iter()
        .map(|d| u64::from(oatf::load(d).is_ok()))
        .sum()
}

/// `load` without the CEL syntax check (V-014) that the facade's `load` adds through `oatf-cel`:
/// the document model's own share (each expression gets the W-014 warning instead).
fn load_without_cel(documents: &[String]) -> u64 {
    let options = oatf::ValidateOptions::default();
    documents
        .iter()
        .map(|d| u64::from(oatf::load_with(d, &options).is_ok()))
        .sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut options = PairedOptions::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tier = ours_accepts_tier();
    let library = library_documents(tier);
    let synthetic: Vec<String> = DOCUMENTS
        .iter()
        .filter(|(label, _)| *label == "20kb")
        .map(|(_, spec)| document(*spec))
        .collect();
    match args.as_slice() {
        [] => {}
        [flag, rounds] if flag == "--rounds" => options.rounds = rounds.parse()?,
        // One contender alone, for instruction counts that do not depend on the machine's load:
        // `valgrind --tool=callgrind target/release/load_floor once synthetic floor 20`.
        [once, input, work, times] if once == "once" => {
            let documents = if input == "library" {
                &library
            } else {
                &synthetic
            };
            let work: fn(&[String]) -> u64 = match work.as_str() {
                "floor" => floor,
                "load" => load,
                _ => load_without_cel,
            };
            let done: u64 = (0..times.parse::<u64>()?).map(|_| work(documents)).sum();
            println!("{done} documents read");
            return Ok(());
        }
        _ => {
            return Err(
                "usage: load_floor [--rounds N] | load_floor once library|synthetic floor|load|load-without-cel N"
                    .into(),
            );
        }
    }
    for documents in [&library, &synthetic] {
        if load(documents) != documents.len() as u64 {
            return Err("a document does not load".into());
        }
    }
    let mut contenders = [
        Contender::new("library_floor", || floor(&library)),
        Contender::new("library_load", || load(&library)),
        Contender::new("synthetic_20kb_floor", || floor(&synthetic)),
        Contender::new("synthetic_20kb_load", || load(&synthetic)),
        Contender::new("synthetic_20kb_load_without_cel_check", || {
            load_without_cel(&synthetic)
        }),
    ];
    let run = run_paired(&mut contenders, &options);
    println!(
        "load ÷ YAML scanner floor, {} rounds, `tier` on indicators: {}\n",
        options.rounds,
        if tier { "on" } else { "off" }
    );
    println!(
        "| input | bytes | floor | load | load ÷ floor (median, IQR, min–max) | fastest ÷ fastest | MB/s floor, load |"
    );
    println!("|---|---|---|---|---|---|---|");
    row(&run, "8 library-style documents", &library, 0, 1);
    row(&run, "20 KB synthetic document", &synthetic, 2, 3);
    row(
        &run,
        "20 KB synthetic document, CEL syntax not checked",
        &synthetic,
        2,
        4,
    );
    Ok(())
}

fn row(run: &PairedRun, label: &str, documents: &[String], floor: usize, load: usize) {
    let bytes: usize = documents.iter().map(String::len).sum();
    let ratio = run.ratio(load, floor);
    let (floor_time, load_time) = (run.time(floor).median, run.time(load).median);
    let mb = bytes as f64 / 1e6;
    println!(
        "| {label} | {bytes} | {} | {} | **{:.2}×** ({:.2}–{:.2}, {:.2}–{:.2}) | {:.2}× | {:.1}, {:.1} |",
        human_seconds(floor_time),
        human_seconds(load_time),
        ratio.median,
        ratio.q1,
        ratio.q3,
        ratio.min,
        ratio.max,
        run.ratio_of_fastest(load, floor),
        mb / floor_time,
        mb / load_time,
    );
}
