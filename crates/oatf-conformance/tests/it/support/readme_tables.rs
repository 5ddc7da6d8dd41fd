//! The one reader of the two tables of `examples/README.md`, shared by the tests that check the examples
//! through the library (`crates/oatf-conformance/tests/it/examples.rs`) and through the command line
//! (`crates/oatf-cli/tests/it/examples.rs`; `crates/oatf-cli/tests/it/support.rs` includes this file
//! with `#[path]`).

use std::path::PathBuf;

/// The repository's `examples/` directory.
pub(crate) fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A row of the README's verdict table: trace, result, max_tier (`-` for none), exit code, and
/// matched, not_matched, error, skipped.
pub(crate) type Row = (String, String, String, i32, [usize; 4]);
/// A row of the README's indicator table: trace, indicator, expected, deciding message(s).
pub(crate) type IndicatorRow = (String, String, String, String);

/// The two tables of `examples/README.md`, read from their backtick-quoted cells.
///
/// # Panics
///
/// When the README cannot be read or a row has an unexpected shape: the calling test fails.
#[allow(clippy::unwrap_used, reason = "test setup fails the test")]
pub(crate) fn readme_tables() -> (Vec<Row>, Vec<IndicatorRow>) {
    let readme = std::fs::read_to_string(examples().join("README.md")).unwrap();
    let mut verdicts = Vec::new();
    let mut indicators = Vec::new();
    for line in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        match cells.as_slice() {
            [trace, result, tier, code, m, n, e, s] => verdicts.push((
                trace.to_string(),
                result.to_string(),
                tier.to_string(),
                code.parse().unwrap(),
                [m, n, e, s].map(|c| c.parse().unwrap()),
            )),
            [trace, indicator, expected, deciding] => indicators.push((
                trace.to_string(),
                indicator.to_string(),
                expected.to_string(),
                deciding.to_string(),
            )),
            other => panic!("unexpected README table row {other:?}"),
        }
    }
    (verdicts, indicators)
}
