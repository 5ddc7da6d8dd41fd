//! Runs the upstream sample cases (one real case per file of the official layout), vendored in
//! `third_party/oatf-spec/conformance-samples` (`cargo xtask shared-sync` keeps them equal to the
//! spec's). Cases expected to fail are listed, with the reason, in `tests/samples.known-failures.txt`;
//! everything else must pass.

use std::path::Path;

use crate::support::suite;

use oatf_conformance::KnownFailures;

/// The samples hold one case per file of the layout; fewer means files were lost.
const MIN_CASES: usize = 20;

#[test]
fn samples() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../../third_party/oatf-spec/conformance-samples");
    assert!(
        root.is_dir(),
        "the sample suite {} is missing: this test cannot pass without running it",
        root.display()
    );
    let known = KnownFailures::load(&manifest.join("tests/samples.known-failures.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    suite::run_and_check(&root, &known, "samples", MIN_CASES, false);
}
