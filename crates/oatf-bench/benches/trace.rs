//! `trace/100k/{evaluate,serde_json_baseline,reference}`: an attack of 100 indicators over a JSON Lines
//! trace of 100,000 messages, from bytes to verdict.
//!
//! `evaluate` is `JsonlTraceReader` + `TraceEvaluator`; `serde_json_baseline` only parses the same lines
//! as `TraceMessage`s with serde_json (the floor any evaluator pays); `reference` is what a user of the
//! reference SDK writes (`oatf_bench::reference_evaluate_trace`): parse each line, `evaluate_indicator`
//! per applicable indicator, `compute_verdict`. No message matches, so every applicable indicator is
//! evaluated on every message.
//!
//! `trace/library_100k/*`: see [`library_trace`].
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use oatf_bench::{
    LibraryAttack, MockSemantic, TRACE_ATTACK, document, library_attack, ours_accepts_tier,
    reference_evaluate_trace, trace,
};

const MESSAGES: u64 = 100_000;

fn whole_trace(c: &mut Criterion) {
    let yaml = document(TRACE_ATTACK);
    let loaded = oatf::load(&yaml).expect("ours loads").document;
    let options = oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic));
    let attack = oatf::CompiledAttack::new(&loaded, &options);
    let reference = oatf_reference::load(&yaml)
        .map_err(|e| format!("{e:?}"))
        .expect("the reference loads")
        .document;
    let jsonl = trace(MESSAGES);

    let mut group = c.benchmark_group("trace");
    group.throughput(Throughput::Bytes(jsonl.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    group.bench_function(BenchmarkId::new("100k", "evaluate"), |b| {
        b.iter(|| {
            let mut evaluator = oatf::TraceEvaluator::new(&attack);
            for message in oatf::JsonlTraceReader::new(black_box(jsonl.as_slice())).flatten() {
                evaluator.push(&message);
            }
            evaluator.finish()
        })
    });
    group.bench_function(BenchmarkId::new("100k", "serde_json_baseline"), |b| {
        b.iter(|| {
            let mut count = 0usize;
            for line in black_box(jsonl.as_slice()).split(|&b| b == b'\n') {
                if !line.is_empty() && serde_json::from_slice::<oatf::TraceMessage>(line).is_ok() {
                    count += 1;
                }
            }
            count
        })
    });
    if std::env::var_os("OATF_BENCH_SKIP_REFERENCE_TRACE").is_none() {
        group.bench_function(BenchmarkId::new("100k", "reference"), |b| {
            b.iter(|| reference_evaluate_trace(&reference, black_box(&jsonl)))
        });
    }
    group.finish();
}

/// `trace/library_100k/{evaluate,evaluate_without_cel,serde_json_value}`: the library-style attack
/// (70% regex, 20% `contains`/`starts_with`, 10% CEL; `oatf_bench::library`) over the same trace, and
/// the floor of the table: each line parsed into a `serde_json::Value`. The ratios of these
/// rows come from the paired runner (`--bin paired -- trace`); criterion keeps the absolute trend.
fn library_trace(c: &mut Criterion) {
    let tier = ours_accepts_tier();
    let compile = |cel: bool| {
        let yaml = library_attack(LibraryAttack::new(100, cel, tier));
        let loaded = oatf::load(&yaml).expect("ours loads").document;
        oatf::CompiledAttack::new(&loaded, &oatf::default_eval_options())
    };
    let with_cel = compile(true);
    let without_cel = compile(false);
    let jsonl = trace(MESSAGES);
    let run = |attack: &oatf::CompiledAttack| {
        let mut evaluator = oatf::TraceEvaluator::new(attack);
        for message in oatf::JsonlTraceReader::new(black_box(jsonl.as_slice())).flatten() {
            evaluator.push(&message);
        }
        evaluator.finish()
    };

    let mut group = c.benchmark_group("trace");
    group.throughput(Throughput::Bytes(jsonl.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    group.bench_function(BenchmarkId::new("library_100k", "evaluate"), |b| {
        b.iter(|| run(&with_cel))
    });
    group.bench_function(
        BenchmarkId::new("library_100k", "evaluate_without_cel"),
        |b| b.iter(|| run(&without_cel)),
    );
    group.bench_function(BenchmarkId::new("library_100k", "serde_json_value"), |b| {
        b.iter(|| {
            black_box(jsonl.as_slice())
                .split(|&b| b == b'\n')
                .filter(|line| !line.is_empty())
                .filter(|line| serde_json::from_slice::<serde_json::Value>(line).is_ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, whole_trace, library_trace);
criterion_main!(benches);
