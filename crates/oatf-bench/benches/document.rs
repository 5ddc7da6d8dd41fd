//! `document/<size>/<op>/{ours,reference}`: the document pipeline (parse, validate, normalize,
//! serialize, load) of this SDK and of the reference SDK on the same generated YAML.
//!
//! `normalize` and `serialize` start from the parsed (respectively loaded) document, built outside the
//! timing loop; `normalize` takes the document by value in both SDKs, so its clone is measured too.
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use oatf_bench::{DOCUMENTS, document};

fn documents(c: &mut Criterion) {
    for (label, spec) in DOCUMENTS {
        let yaml = document(spec);
        let mut group = c.benchmark_group(format!("document/{label}"));
        group.throughput(Throughput::Bytes(yaml.len() as u64));

        let ours = oatf::parse(&yaml).expect("ours parses");
        let reference = oatf_reference::parse(&yaml).expect("the reference parses");
        let ours_loaded = oatf::load(&yaml).expect("ours loads").document;
        let reference_loaded = oatf_reference::load(&yaml)
            .map_err(|e| format!("{e:?}"))
            .expect("the reference loads")
            .document;

        group.bench_function(BenchmarkId::new("parse", "ours"), |b| {
            b.iter(|| oatf::parse(black_box(&yaml)))
        });
        group.bench_function(BenchmarkId::new("parse", "reference"), |b| {
            b.iter(|| oatf_reference::parse(black_box(&yaml)))
        });
        group.bench_function(BenchmarkId::new("validate", "ours"), |b| {
            b.iter(|| oatf::validate(black_box(&ours)))
        });
        group.bench_function(BenchmarkId::new("validate", "reference"), |b| {
            b.iter(|| oatf_reference::validate(black_box(&reference)))
        });
        group.bench_function(BenchmarkId::new("normalize", "ours"), |b| {
            b.iter(|| oatf::model::normalize(black_box(&ours).clone()))
        });
        group.bench_function(BenchmarkId::new("normalize", "reference"), |b| {
            b.iter(|| oatf_reference::normalize(black_box(&reference).clone()))
        });
        group.bench_function(BenchmarkId::new("serialize", "ours"), |b| {
            b.iter(|| oatf::model::serialize(black_box(&ours_loaded)))
        });
        group.bench_function(BenchmarkId::new("serialize", "reference"), |b| {
            b.iter(|| oatf_reference::serialize(black_box(&reference_loaded)))
        });
        group.bench_function(BenchmarkId::new("load", "ours"), |b| {
            b.iter(|| oatf::load(black_box(&yaml)))
        });
        group.bench_function(BenchmarkId::new("load", "reference"), |b| {
            b.iter(|| oatf_reference::load(black_box(&yaml)))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = documents
}
criterion_main!(benches);
