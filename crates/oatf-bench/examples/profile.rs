//! A small driver for profilers and `/usr/bin/time -v`, over the same generated inputs as the benches:
//!
//! ```sh
//! cargo build --release -p oatf-bench --example profile
//! target/release/examples/profile write-trace 100000 /tmp/trace-100k.jsonl
//! /usr/bin/time -v target/release/examples/profile evaluate-trace /tmp/trace-100k.jsonl
//! valgrind --tool=callgrind target/release/examples/profile load 6kb 200
//! valgrind --tool=callgrind target/release/examples/profile evaluate-sparse 10 cel 4000 lazy
//! valgrind --tool=callgrind target/release/examples/profile evaluate-library-trace /tmp/trace-10k.jsonl
//! valgrind --tool=callgrind target/release/examples/profile load-library 20
//! valgrind --tool=callgrind target/release/examples/profile compile-library 3
//! ```
#![allow(
    clippy::print_stdout,
    reason = "prints the verdict so the work is not optimized away"
)]
#![allow(missing_docs, reason = "an example binary")]

use std::io::{BufReader, BufWriter, Write as _};
use std::sync::Arc;

use oatf_bench::{
    DOCUMENTS, LibraryAttack, MockSemantic, TRACE_ATTACK, document, library_attack,
    library_documents, ours_accepts_tier, trace_line,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or_default();
    match arg(0) {
        // Issue 25: `evaluate-scaling N cel|no-cel MESSAGES [straightforward|lazy]`, and the same
        // over the sparse trace (D-91): `evaluate-sparse N cel|no-cel MESSAGES [lazy]`.
        op @ ("evaluate-scaling" | "evaluate-sparse") => {
            let n: usize = arg(1).parse()?;
            let yaml = oatf_bench::scaling::scaling_attack(n, arg(2) == "cel");
            let loaded = oatf::load(&yaml)?.document;
            let attack = oatf::CompiledAttack::new(&loaded, &oatf::default_eval_options());
            let jsonl = if op == "evaluate-sparse" {
                oatf_bench::sparse::sparse_trace(arg(3).parse()?)
            } else {
                oatf_bench::scaling::scaling_trace(arg(3).parse()?)
            };
            let mut evaluator = if arg(4) == "straightforward" {
                oatf::TraceEvaluator::without_prefilter(&attack)
            } else {
                oatf::TraceEvaluator::new(&attack)
            };
            let mut reader = oatf::JsonlTraceReader::new(jsonl.as_slice());
            if arg(4) == "lazy" {
                while reader.next_into(&mut evaluator).is_some() {}
            } else {
                for message in reader.flatten() {
                    evaluator.push(&message);
                }
            }
            println!("{:?}", evaluator.finish().result);
        }
        "write-trace" => {
            let count: u64 = arg(1).parse()?;
            let mut out = BufWriter::new(std::fs::File::create(arg(2))?);
            for seq in 1..=count {
                writeln!(out, "{}", trace_line(seq))?;
            }
            out.flush()?;
        }
        "evaluate-trace" => {
            let loaded = oatf::load(&document(TRACE_ATTACK))?.document;
            let options =
                oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic));
            let attack = oatf::CompiledAttack::new(&loaded, &options);
            let mut evaluator = oatf::TraceEvaluator::new(&attack);
            let file = BufReader::new(std::fs::File::open(arg(1))?);
            for message in oatf::JsonlTraceReader::new(file) {
                evaluator.push(&message?);
            }
            let messages = evaluator.messages();
            let verdict = evaluator.finish();
            println!("{messages} messages: {:?}", verdict.result);
        }
        op @ ("evaluate-library-trace" | "evaluate-library-trace-no-cel") => {
            let spec = LibraryAttack::new(100, op == "evaluate-library-trace", ours_accepts_tier());
            let loaded = oatf::load(&library_attack(spec))?.document;
            let attack = oatf::CompiledAttack::new(&loaded, &oatf::default_eval_options());
            let mut evaluator = oatf::TraceEvaluator::new(&attack);
            let file = BufReader::new(std::fs::File::open(arg(1))?);
            for message in oatf::JsonlTraceReader::new(file) {
                evaluator.push(&message?);
            }
            let messages = evaluator.messages();
            let verdict = evaluator.finish();
            println!("{messages} messages: {:?}", verdict.result);
        }
        "parse-trace" => {
            // The floor of the whole-trace row: every line into a `serde_json::Value`.
            let file = BufReader::new(std::fs::File::open(arg(1))?);
            let mut parsed = 0usize;
            for line in std::io::BufRead::lines(file) {
                parsed += usize::from(serde_json::from_str::<serde_json::Value>(&line?).is_ok());
            }
            println!("{parsed} lines parsed");
        }
        op @ ("load-library" | "reference-load-library") => {
            let documents = library_documents(ours_accepts_tier());
            let iterations: usize = arg(1).parse()?;
            let mut ok = 0usize;
            for _ in 0..iterations {
                for yaml in &documents {
                    ok += usize::from(if op == "load-library" {
                        oatf::load(yaml).is_ok()
                    } else {
                        oatf_reference::load(yaml).is_ok()
                    });
                }
            }
            println!("{ok} documents loaded");
        }
        "compile-library" => {
            let spec = LibraryAttack::new(100, true, ours_accepts_tier());
            let loaded = oatf::load(&library_attack(spec))?.document;
            let options = oatf::default_eval_options();
            let iterations: usize = arg(1).parse()?;
            let mut compiled = 0usize;
            for _ in 0..iterations {
                compiled += oatf::CompiledAttack::new(&loaded, &options).indicators().count();
            }
            println!("{compiled} indicators compiled");
        }
        "compile" => {
            let loaded = oatf::load(&document(TRACE_ATTACK))?.document;
            let options =
                oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic));
            let iterations: usize = arg(1).parse()?;
            let mut compiled = 0usize;
            for _ in 0..iterations {
                compiled += oatf::CompiledAttack::new(&loaded, &options).indicators().count();
            }
            println!("{compiled} indicators compiled");
        }
        "cel" => {
            let yaml = oatf_bench::one_indicator_document(
                "arguments.items",
                "expression:\n        cel: \"message.arguments.items.exists(x, size(x.name) > 64)\"",
            );
            let loaded = oatf::load(&yaml)?.document;
            let attack = oatf::CompiledAttack::new(&loaded, &oatf::default_eval_options());
            let message = oatf_bench::tool_call(arg(1).parse::<usize>()? * 1024);
            let iterations: usize = arg(2).parse()?;
            let mut matched = 0usize;
            for _ in 0..iterations {
                for indicator in attack.indicators() {
                    let verdict = indicator.evaluate(&message);
                    matched += usize::from(verdict.result == oatf::IndicatorResult::Matched);
                }
            }
            println!("{matched} of {iterations} matched");
        }
        op @ ("load" | "parse" | "validate" | "reference-load") => {
            let (_, spec) = DOCUMENTS
                .iter()
                .find(|(label, _)| *label == arg(1))
                .ok_or("unknown size")?;
            let yaml = document(*spec);
            let iterations: usize = arg(2).parse()?;
            let parsed = oatf::parse(&yaml)?;
            let mut ok = 0usize;
            for _ in 0..iterations {
                ok += usize::from(match op {
                    "load" => oatf::load(&yaml).is_ok(),
                    "parse" => oatf::parse(&yaml).is_ok(),
                    "validate" => oatf::validate(&parsed).errors().is_empty(),
                    _ => oatf_reference::load(&yaml).is_ok(),
                });
            }
            println!("{ok} of {iterations} ok");
        }
        _ => return Err("usage: profile write-trace N FILE | evaluate-trace FILE | evaluate-library-trace[-no-cel] FILE | parse-trace FILE | compile N | compile-library N | cel KB N | load|parse|validate|reference-load SIZE N | [reference-]load-library N".into()),
    }
    Ok(())
}
