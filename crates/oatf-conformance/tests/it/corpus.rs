//! Runs the project's conformance corpus (`conformance/` at the workspace root) with its known failures.

use std::path::Path;

use crate::support::suite;

use oatf_conformance::{KNOWN_FAILURES_FILE, KnownFailures};

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
    suite::run_and_check(&root, &known, "corpus", MIN_CASES, true);
}
