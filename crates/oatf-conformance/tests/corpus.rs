//! Runs the project's conformance corpus (`conformance/` at the workspace root) with its known failures.

use std::path::Path;

use oatf_conformance::{Filter, KNOWN_FAILURES_FILE, KnownFailures, run_suite};

#[test]
fn corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    let known = KnownFailures::load(&root.join(KNOWN_FAILURES_FILE)).unwrap();
    let report = run_suite(&root, &Filter::from_env(), &known);
    println!("{report}");
    assert!(report.passed() > 0, "the corpus ran no case");
    assert!(
        report.is_success(),
        "unexpected conformance results, see above"
    );
}
