//! The one way the suite tests run a whole suite: run it, print the report, check that enough cases
//! ran (all of them without a filter, at least one with a filter when `filter_must_select`) and that
//! every result is the expected one.

use std::path::Path;

use oatf_conformance::{FILTER_ENV, Filter, KnownFailures, run_suite};

#[allow(
    clippy::print_stdout,
    reason = "the report is the test's output, as in a #[test] body"
)]
pub(crate) fn run_and_check(
    root: &Path,
    known: &KnownFailures,
    what: &str,
    min_cases: usize,
    filter_must_select: bool,
) {
    let filter = Filter::from_env();
    let report = run_suite(root, &filter, known);
    println!("{report}");
    if filter.is_empty() {
        assert!(
            report.results.len() >= min_cases,
            "the {what} ran {} cases, expected at least {min_cases}",
            report.results.len()
        );
    } else {
        println!(
            "filtered by {FILTER_ENV}={}: {} cases ran",
            std::env::var(FILTER_ENV).unwrap_or_default(),
            report.results.len()
        );
        assert!(
            !filter_must_select || !report.results.is_empty(),
            "the filter selected no case"
        );
    }
    assert!(report.is_success(), "unexpected {what} results, see above");
}
