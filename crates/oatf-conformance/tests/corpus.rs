//! Runs the project's conformance corpus (`conformance/` at the workspace root) with its known failures.

use std::path::Path;

use oatf_conformance::{FILTER_ENV, Filter, KNOWN_FAILURES_FILE, KnownFailures, run_suite};

/// The corpus has more cases than this; fewer means cases were lost (a renamed directory, a broken file).
const MIN_CASES: usize = 900;

#[test]
fn corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    assert!(
        root.is_dir(),
        "the corpus {} is missing: this test cannot pass without running it",
        root.display()
    );
    let known =
        KnownFailures::load(&root.join(KNOWN_FAILURES_FILE)).unwrap_or_else(|e| panic!("{e}"));
    let filter = Filter::from_env();
    let report = run_suite(&root, &filter, &known);
    println!("{report}");
    if filter.is_empty() {
        assert!(
            report.results.len() >= MIN_CASES,
            "the corpus ran {} cases, expected at least {MIN_CASES}",
            report.results.len()
        );
    } else {
        println!(
            "filtered by {FILTER_ENV}={}: {} cases ran",
            std::env::var(FILTER_ENV).unwrap_or_default(),
            report.results.len()
        );
        assert!(!report.results.is_empty(), "the filter selected no case");
    }
    assert!(
        report.is_success(),
        "unexpected conformance results, see above"
    );
}
