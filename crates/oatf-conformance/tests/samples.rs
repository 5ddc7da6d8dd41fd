//! Runs the sample cases of `../shared/conformance-format/samples` (one real case per file of the
//! official layout). Cases expected to fail are listed, with the reason, in `samples.known-failures.txt`
//! beside this file; everything else must pass.

use std::path::Path;

use oatf_conformance::{FILTER_ENV, Filter, KnownFailures, run_suite};

/// The samples hold one case per file of the layout; fewer means files were lost.
const MIN_CASES: usize = 20;

#[test]
fn samples() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../../../shared/conformance-format/samples");
    assert!(
        root.is_dir(),
        "the sample suite {} is missing: this test cannot pass without running it",
        root.display()
    );
    let known = KnownFailures::load(&manifest.join("tests/samples.known-failures.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    let filter = Filter::from_env();
    let report = run_suite(&root, &filter, &known);
    println!("{report}");
    if filter.is_empty() {
        assert!(
            report.results.len() >= MIN_CASES,
            "the samples ran {} cases, expected at least {MIN_CASES}",
            report.results.len()
        );
    } else {
        println!(
            "filtered by {FILTER_ENV}={}: {} cases ran",
            std::env::var(FILTER_ENV).unwrap_or_default(),
            report.results.len()
        );
    }
    assert!(report.is_success(), "unexpected sample results, see above");
}
