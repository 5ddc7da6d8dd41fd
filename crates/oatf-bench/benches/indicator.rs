//! `indicator/<message size>/<op>/{ours,reference}`: one indicator against one message.
//!
//! Ours is a `CompiledIndicator` built once outside the timing loop and evaluated per iteration
//! (`ours`), and our one-shot `evaluate_indicator`, which compiles on every call as the reference does
//! (`ours_one_shot`); the reference is its `evaluate_indicator` on its normalized indicator, which is what a user of the
//! reference calls per message. Every indicator misses, so each evaluation does all its work (a
//! `contains` scans the whole text, a wildcard visits every element).
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use oatf_bench::{MockSemantic, one_indicator_document, tool_call, wide_tool_call};
use serde_json::Value;

/// The indicators: operation name, target, method block.
const INDICATORS: [(&str, &str, &str); 7] = [
    (
        "contains",
        "arguments.notes",
        "pattern:\n        contains: \"BEGIN OPENSSH PRIVATE KEY\"",
    ),
    (
        "regex",
        "arguments.notes",
        "pattern:\n        regex: \"(id_rsa|id_ed25519|AKIA[0-9A-Z]{16})\"",
    ),
    (
        "any_of",
        "arguments.mode",
        "pattern:\n        any_of: [\"exec\", \"sudo\", \"write\"]",
    ),
    ("gt", "arguments.size", "pattern:\n        gt: 1000000"),
    (
        "exists",
        "arguments.credentials",
        "pattern:\n        condition:\n          exists: true",
    ),
    (
        "cel_exists_size",
        "arguments.items",
        "expression:\n        cel: \"message.arguments.items.exists(x, size(x.name) > 64)\"",
    ),
    (
        "semantic",
        "arguments.notes",
        "semantic:\n        intent: \"exfiltrate credentials\"\n        threshold: 0.8",
    ),
];

struct Pair {
    ours: oatf::eval::CompiledIndicator,
    /// Our normalized indicator, for the one-shot `evaluate_indicator` (compiles per call).
    ours_source: oatf::model::Indicator,
    reference: oatf_reference::Indicator,
}

fn compile(target: &str, block: &str) -> Pair {
    let yaml = one_indicator_document(target, block);
    let options = oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic));
    let loaded = oatf::load(&yaml).expect("ours loads");
    let indicator = &loaded
        .document
        .attack
        .as_ref()
        .and_then(|a| a.indicators.as_ref())
        .expect("an indicator")[0];
    let ours = oatf::eval::CompiledIndicator::new(indicator, &options).expect("compiles");
    let reference = oatf_reference::load(&yaml)
        .map_err(|e| format!("{e:?}"))
        .expect("the reference loads")
        .document
        .attack
        .indicators
        .expect("an indicator")
        .remove(0);
    Pair {
        ours,
        ours_source: indicator.clone(),
        reference,
    }
}

fn bench_pair(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    op: &str,
    pair: &Pair,
    message: &Value,
) {
    let cel = oatf_reference::evaluate::default_cel_evaluator();
    // Both must agree before their speed is compared.
    let ours = pair.ours.evaluate(message).result;
    let reference = oatf_reference::evaluate::evaluate_indicator(
        &pair.reference,
        message,
        Some(&cel),
        Some(&MockSemantic),
    );
    assert_eq!(
        format!("{ours:?}"),
        format!("{:?}", reference.result),
        "{op}: {reference:?}"
    );
    assert_eq!(ours, oatf::IndicatorResult::NotMatched, "{op}");

    group.bench_function(BenchmarkId::new(op, "ours"), |b| {
        b.iter(|| pair.ours.evaluate(black_box(message)))
    });
    let ours_cel: Arc<dyn oatf::eval::CelEvaluator> = Arc::new(oatf::cel::CelEngine::new());
    let ours_semantic: Arc<dyn oatf::eval::SemanticEvaluator> = Arc::new(MockSemantic);
    group.bench_function(BenchmarkId::new(op, "ours_one_shot"), |b| {
        b.iter(|| {
            oatf::evaluate_indicator(
                &pair.ours_source,
                black_box(message),
                &oatf::EvalOptions::from_evaluators(
                    Some(ours_cel.clone()),
                    Some(ours_semantic.clone()),
                ),
            )
        })
    });
    group.bench_function(BenchmarkId::new(op, "reference"), |b| {
        b.iter(|| {
            oatf_reference::evaluate::evaluate_indicator(
                &pair.reference,
                black_box(message),
                Some(&cel),
                Some(&MockSemantic),
            )
        })
    });
}

fn indicators(c: &mut Criterion) {
    let compiled: Vec<(&str, Pair)> = INDICATORS
        .iter()
        .map(|(op, target, block)| (*op, compile(target, block)))
        .collect();
    for kb in [1usize, 10, 100] {
        let message = tool_call(kb * 1024);
        let mut group = c.benchmark_group(format!("indicator/{kb}kb"));
        group.throughput(Throughput::Bytes(message.to_string().len() as u64));
        for (op, pair) in &compiled {
            bench_pair(&mut group, op, pair, &message);
        }
        group.finish();
    }

    let message = wide_tool_call(1000);
    let pair = compile(
        "arguments.items[*].name",
        "pattern:\n        contains: \"needle\"",
    );
    let mut group = c.benchmark_group("indicator/1000_elements");
    group.throughput(Throughput::Bytes(message.to_string().len() as u64));
    bench_pair(&mut group, "wildcard_contains", &pair, &message);
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = indicators
}
criterion_main!(benches);
