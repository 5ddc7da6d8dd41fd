//! Runner for OATF conformance suites in the official fixture layout
//! (`parse/`, `validate/`, `normalize/`, `roundtrip/`, `evaluate/`, `verdict/`, `primitives/`).
//!
//! One generic runner per category turns each case into an [`Outcome`]; cases are reported by id, a
//! failing or panicking case never stops the others, and the run ends with `N passed, N failed, N skipped`.
//! The runner policy is the strict one of `conformance-format/FORMAT.md`.
//! A checked-in known-failures file lists cases expected to fail, each with a reason; the run fails when a
//! listed case passes or no longer exists. [`Filter`] selects cases for ad-hoc runs (`OATF_CONFORMANCE`).
//!
//! It runs the SDK through the `oatf` facade with every feature on, so it exercises what users get.
//! Tests: one binary, `tests/it/`; its `corpus` module runs the project's corpus in `conformance/`, its
//! `upstream_samples` module the samples vendored in `third_party/oatf-spec/conformance-samples`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod equal;
mod filter;
mod fixture;
mod known;
mod panic_guard;
mod report;
mod run;
mod yaml;

use std::collections::BTreeSet;
use std::path::Path;

pub use filter::{FILTER_ENV, Filter};
pub use fixture::{Case, CaseInput, Category, LoadProblem, Loaded, PRIMITIVE_FILES, load_suite};
pub use known::KnownFailures;
pub use report::{CaseResult, Report};
pub use run::Outcome;
pub use yaml::strict_yaml_options;

/// The name of the known-failures file looked up at the root of a suite.
pub const KNOWN_FAILURES_FILE: &str = "known-failures.txt";

/// Runs every case of the suite at `root` that `filter` selects.
///
/// Known failures listed for cases outside the filter are not reported as stale.
pub fn run_suite(root: &Path, filter: &Filter, known: &KnownFailures) -> Report {
    run_loaded(load_suite(root), filter, known, run::run_case)
}

/// Runs loaded cases through `run_case`, isolating panics, applying the filter and the known failures.
///
/// [`run_suite`] uses the SDK's runners; tests use this with their own to check the policy itself.
pub fn run_loaded(
    loaded: Loaded,
    filter: &Filter,
    known: &KnownFailures,
    run_case: impl Fn(&Case) -> Outcome,
) -> Report {
    let mut results = Vec::with_capacity(loaded.cases.len() + loaded.problems.len());
    let mut seen = BTreeSet::new();

    for problem in loaded.problems {
        let file = problem.file.display().to_string();
        if !filter.selects(&problem.id, &file) {
            continue;
        }
        seen.insert(problem.id.clone());
        results.push(CaseResult {
            known: known.reason(&problem.id).map(str::to_owned),
            id: problem.id,
            name: String::from("unreadable case"),
            file: problem.file,
            category: None,
            outcome: Outcome::Fail {
                expected: "a readable case".to_owned(),
                actual: problem.message,
            },
        });
    }

    panic_guard::install();

    for case in &loaded.cases {
        let file = case.file.display().to_string();
        if !filter.selects(&case.id, &file) {
            continue;
        }
        let outcome = if seen.insert(case.id.clone()) {
            match panic_guard::catch(|| run_case(case)) {
                Ok(outcome) => outcome,
                Err(message) => Outcome::Fail {
                    expected: "no panic".to_owned(),
                    actual: format!("the SDK panicked: {message}"),
                },
            }
        } else {
            Outcome::Fail {
                expected: "a unique id".to_owned(),
                actual: "another case has the same id".to_owned(),
            }
        };
        results.push(CaseResult {
            id: case.id.clone(),
            name: case.name.clone(),
            file: case.file.clone(),
            category: Some(case.category.clone()),
            outcome,
            known: known.reason(&case.id).map(str::to_owned),
        });
    }

    let all_ids: BTreeSet<&str> = loaded.cases.iter().map(|c| c.id.as_str()).collect();
    let stale_known = known
        .ids()
        .filter(|id| !all_ids.contains(id) && !seen.contains(*id))
        .filter(|id| filter.is_empty() || filter.selects(id, ""))
        .map(str::to_owned)
        .collect();
    Report {
        results,
        stale_known,
        known_source: known.source().map(Path::to_path_buf),
    }
}
