//! `compile/100_indicators/{ours,reference_one_evaluation}`: compiling an attack of 100 indicators
//! (`CompiledAttack::new`) next to what the reference needs for one evaluation of the same 100
//! indicators against one message (its `evaluate_indicator` for each, then `compute_verdict`); the
//! message carries every field the indicators look at, so each indicator does its whole work.
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use oatf_bench::{MockSemantic, TRACE_ATTACK, document, union_message};

fn compile(c: &mut Criterion) {
    let yaml = document(TRACE_ATTACK);
    let ours = oatf::load(&yaml).expect("ours loads").document;
    let reference = oatf_reference::load(&yaml)
        .map_err(|e| format!("{e:?}"))
        .expect("the reference loads")
        .document;
    let options = oatf::default_eval_options().with_semantic_evaluator(Arc::new(MockSemantic));
    // Every indicator resolves its target in this message and does its whole work (no match).
    let message = union_message();
    let cel = oatf_reference::evaluate::default_cel_evaluator();
    let indicators = reference.attack.indicators.as_deref().unwrap_or_default();

    let mut group = c.benchmark_group("compile");
    group.bench_function(BenchmarkId::new("100_indicators", "ours"), |b| {
        b.iter(|| oatf::CompiledAttack::new(black_box(&ours), &options))
    });
    group.bench_function(
        BenchmarkId::new("100_indicators", "reference_one_evaluation"),
        |b| {
            b.iter(|| {
                let verdicts: HashMap<String, oatf_reference::IndicatorVerdict> = indicators
                    .iter()
                    .map(|indicator| {
                        let verdict = oatf_reference::evaluate::evaluate_indicator(
                            indicator,
                            black_box(&message),
                            Some(&cel),
                            Some(&MockSemantic),
                        );
                        (verdict.indicator_id.clone(), verdict)
                    })
                    .collect();
                oatf_reference::evaluate::compute_verdict(&reference.attack, &verdicts)
            })
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = compile
}
criterion_main!(benches);
