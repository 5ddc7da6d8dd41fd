//! `trace/100k/{evaluate,serde_json_baseline,reference}`: an attack of 100 indicators over a JSON Lines
//! trace of 100,000 messages, from bytes to verdict.
//!
//! `evaluate` is `JsonlTraceReader` + `TraceEvaluator`; `serde_json_baseline` only parses the same lines
//! as `TraceMessage`s with serde_json (the floor any evaluator pays); `reference` is what a user of the
//! reference SDK writes (`oatf_bench::reference_evaluate_trace`): parse each line, `evaluate_indicator`
//! per applicable indicator, `compute_verdict`. No message matches, so every applicable indicator is
//! evaluated on every message.
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use oatf_bench::{MockSemantic, TRACE_ATTACK, document, reference_evaluate_trace, trace};

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

criterion_group!(benches, whole_trace);
criterion_main!(benches);
