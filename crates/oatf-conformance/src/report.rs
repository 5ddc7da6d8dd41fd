//! The result of a run and its text rendering.

use std::fmt::{self, Write as _};
use std::path::PathBuf;

use crate::fixture::Category;
use crate::run::Outcome;

/// The result of one case.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case id.
    pub id: String,
    /// The case's prose name.
    pub name: String,
    /// The file, relative to the suite root.
    pub file: PathBuf,
    /// The category, when the case could be read.
    pub category: Option<Category>,
    /// What happened.
    pub outcome: Outcome,
    /// The reason from the known-failures file, when the case is listed there.
    pub known: Option<String>,
}

impl CaseResult {
    /// Whether this result makes the run fail: an unlisted failure, or a listed case that passed.
    pub fn is_unexpected(&self) -> bool {
        matches!(
            (&self.outcome, &self.known),
            (Outcome::Fail { .. }, None) | (Outcome::Pass, Some(_))
        )
    }
}

/// The result of a run over a suite.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every case that ran, in layout order.
    pub results: Vec<CaseResult>,
    /// Ids listed in the known-failures file that no case of the suite has.
    pub stale_known: Vec<String>,
    /// Where the known failures came from.
    pub known_source: Option<PathBuf>,
}

impl Report {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Pass))
    }

    /// Cases that failed, known failures included.
    pub fn failed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Fail { .. }))
    }

    /// Cases skipped because this build lacks what they need.
    pub fn skipped(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Skip(_)))
    }

    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.results.iter().filter(|r| f(&r.outcome)).count()
    }

    /// Results that make the run fail.
    pub fn unexpected(&self) -> impl Iterator<Item = &CaseResult> {
        self.results.iter().filter(|r| r.is_unexpected())
    }

    /// Whether the run is green: nothing unexpected and no stale known-failure entry.
    pub fn is_success(&self) -> bool {
        self.unexpected().next().is_none() && self.stale_known.is_empty()
    }

    /// Per-category counts `(category, passed, failed, skipped)`, for a summary table.
    pub fn by_category(&self) -> Vec<(String, usize, usize, usize)> {
        let mut rows: Vec<(String, usize, usize, usize)> = Vec::new();
        for result in &self.results {
            let name = result
                .category
                .as_ref()
                .map_or_else(|| "(unreadable)".to_owned(), Category::name);
            let index = match rows.iter().position(|row| row.0 == name) {
                Some(index) => index,
                None => {
                    rows.push((name, 0, 0, 0));
                    rows.len() - 1
                }
            };
            if let Some(row) = rows.get_mut(index) {
                match result.outcome {
                    Outcome::Pass => row.1 += 1,
                    Outcome::Fail { .. } => row.2 += 1,
                    Outcome::Skip(_) => row.3 += 1,
                }
            }
        }
        rows
    }
}

impl fmt::Display for Report {
    /// Every unexpected result with id, file, name, expected and actual; known failures in one line each;
    /// skips with their reason; per-category counts; and last the line `N passed, N failed, N skipped`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut known_lines = String::new();
        for result in &self.results {
            let file = result.file.display();
            match (&result.outcome, &result.known) {
                (Outcome::Fail { expected, actual }, None) => {
                    writeln!(f, "FAIL {} ({file}): {}", result.id, result.name)?;
                    writeln!(f, "  expected: {expected}")?;
                    writeln!(f, "  actual:   {actual}")?;
                }
                (Outcome::Pass, Some(reason)) => {
                    writeln!(
                        f,
                        "FAIL {} ({file}): passes but is listed as a known failure ({reason}); remove it from the list",
                        result.id
                    )?;
                }
                (Outcome::Fail { .. }, Some(reason)) => {
                    let _ = writeln!(
                        known_lines,
                        "known failure {} ({file}): {reason}",
                        result.id
                    );
                }
                (Outcome::Skip(reason), _) => writeln!(f, "skip {} ({file}): {reason}", result.id)?,
                (Outcome::Pass, None) => {}
            }
        }
        for id in &self.stale_known {
            writeln!(
                f,
                "FAIL {id}: listed as a known failure but no such case exists; remove it from the list"
            )?;
        }
        f.write_str(&known_lines)?;
        writeln!(f)?;
        for (category, passed, failed, skipped) in self.by_category() {
            writeln!(
                f,
                "  {category:<36} {passed:>4} passed {failed:>4} failed {skipped:>4} skipped"
            )?;
        }
        let known = self
            .results
            .iter()
            .filter(|r| r.known.is_some() && matches!(r.outcome, Outcome::Fail { .. }))
            .count();
        if known > 0 {
            let source = self
                .known_source
                .as_ref()
                .map_or_else(String::new, |p| format!(" ({})", p.display()));
            writeln!(f, "{known} of the failures are known failures{source}")?;
        }
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }
}
