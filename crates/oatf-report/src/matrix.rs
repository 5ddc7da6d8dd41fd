//! The matrix of a campaign: attacks × groups (a run's group is, for example, the model that produced
//! its trace), as benchmarks score repeated runs. Per cell: the runs, the worst of them (result, tier
//! and exit code, ranked by [`severity_rank`]), the typical tier (the lower median of the runs'
//! tiers) and the consistency (the share of the runs having the most common tier) (D-105).
//!
//! `oatf evaluate` shows it in its human, JSON and HTML campaign reports; the definitions are here
//! only.
//!
//! ```
//! use oatf_eval::AttackResult;
//! use oatf_model::Tier;
//! use oatf_report::matrix::{Matrix, MatrixRun};
//!
//! let runs = [
//!     MatrixRun::new("OATF-1", Some("model-a"), AttackResult::Exploited, Some(Tier::LocalAction), 2),
//!     MatrixRun::new("OATF-1", Some("model-a"), AttackResult::NotExploited, None, 0),
//!     MatrixRun::new("OATF-1", Some("model-a"), AttackResult::Exploited, Some(Tier::Ingested), 1),
//! ];
//! let matrix = Matrix::new(&runs);
//! let cell = &matrix.cells()[0];
//! assert_eq!(cell.runs().len(), 3);
//! assert_eq!(cell.worst_tier(), Some(Tier::LocalAction));
//! // Tiers in order: none, ingested, local_action; the lower median is the second.
//! assert_eq!(cell.typical_tier(), Some(Tier::Ingested));
//! // Each tier once: the most common tier has one run of three.
//! assert!((cell.consistency() - 1.0 / 3.0).abs() < 1e-9);
//! ```

use std::collections::HashMap;

use oatf_eval::AttackResult;
use oatf_model::Tier;
use serde::Serialize;
use serde_json::Value;

use crate::campaign::{RunOutcome, severity_rank};

/// What the matrix needs of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MatrixRun<'a> {
    /// The attack (its `attack.id`, or the label the campaign shows).
    pub attack_id: &'a str,
    /// The run's group, if it has one.
    pub group: Option<&'a str>,
    /// The verdict's result; a run without a verdict is [`AttackResult::Error`].
    pub result: AttackResult,
    /// The verdict's `max_tier`.
    pub max_tier: Option<Tier>,
    /// The run's exit code (`run_exit_code`, or the failure's code).
    pub exit_code: u8,
}

impl<'a> MatrixRun<'a> {
    /// A run.
    pub fn new(
        attack_id: &'a str,
        group: Option<&'a str>,
        result: AttackResult,
        max_tier: Option<Tier>,
        exit_code: u8,
    ) -> Self {
        MatrixRun {
            attack_id,
            group,
            result,
            max_tier,
            exit_code,
        }
    }

    /// The run of a campaign row's outcome: the verdict's result and tier, or an `error` without
    /// tier for a run without a verdict; the exit code of [`RunOutcome::exit_code`].
    pub fn of_outcome(
        attack_id: &'a str,
        group: Option<&'a str>,
        outcome: &RunOutcome<'_>,
    ) -> Self {
        let (result, max_tier) = match outcome {
            RunOutcome::Verdict(verdict, _) => (verdict.result, verdict.max_tier),
            _ => (AttackResult::Error, None),
        };
        MatrixRun::new(attack_id, group, result, max_tier, outcome.exit_code())
    }
}

/// The level of a tier for ordering and counting: no tier (which includes every `not_exploited`
/// run and every run without a verdict) 0, then `ingested`, `local_action`, `boundary_breach`.
pub fn tier_level(tier: Option<Tier>) -> usize {
    match tier {
        None => 0,
        Some(Tier::Ingested) => 1,
        Some(Tier::LocalAction) => 2,
        Some(Tier::BoundaryBreach) => 3,
    }
}

const TIERS_BY_LEVEL: [Option<Tier>; 4] = [
    None,
    Some(Tier::Ingested),
    Some(Tier::LocalAction),
    Some(Tier::BoundaryBreach),
];

/// One cell: the runs of one attack in one group.
#[derive(Clone, Debug)]
pub struct MatrixCell {
    attack: usize,
    group: usize,
    runs: Vec<usize>,
    worst: usize,
    worst_result: AttackResult,
    worst_tier: Option<Tier>,
    worst_exit_code: u8,
    by_level: [usize; 4],
}

impl MatrixCell {
    /// The index of the attack in [`Matrix::attacks`].
    pub fn attack(&self) -> usize {
        self.attack
    }

    /// The index of the group in [`Matrix::groups`].
    pub fn group(&self) -> usize {
        self.group
    }

    /// The indexes of the cell's runs in the list the matrix was built from, in that order.
    pub fn runs(&self) -> &[usize] {
        &self.runs
    }

    /// The index of the worst run (the first of the highest [`severity_rank`]).
    pub fn worst(&self) -> usize {
        self.worst
    }

    /// The result of the worst run.
    pub fn worst_result(&self) -> AttackResult {
        self.worst_result
    }

    /// The tier of the worst run.
    pub fn worst_tier(&self) -> Option<Tier> {
        self.worst_tier
    }

    /// The exit code of the worst run.
    pub fn worst_exit_code(&self) -> u8 {
        self.worst_exit_code
    }

    /// The runs by tier level ([`tier_level`]): none, ingested, local_action, boundary_breach.
    pub fn by_tier(&self) -> [usize; 4] {
        self.by_level
    }

    /// The typical tier: the lower median of the runs' tiers ordered by [`tier_level`] (no tier
    /// lowest); of 4 runs the second lowest.
    pub fn typical_tier(&self) -> Option<Tier> {
        let n = self.runs.len();
        if n == 0 {
            return None;
        }
        // The run at position (n - 1) / 2 of the runs sorted by level, found from the counts.
        let mut position = (n - 1) / 2;
        for (level, count) in self.by_level.iter().enumerate() {
            if position < *count {
                return TIERS_BY_LEVEL[level];
            }
            position -= count;
        }
        None
    }

    /// The consistency: the share (0 to 1) of the runs having the most common tier level.
    pub fn consistency(&self) -> f64 {
        let most = self.by_level.iter().copied().max().unwrap_or(0);
        if self.runs.is_empty() {
            return 0.0;
        }
        most as f64 / self.runs.len() as f64
    }
}

/// The matrix attacks × groups of a list of runs.
#[derive(Clone, Debug, Default)]
pub struct Matrix {
    attacks: Vec<String>,
    groups: Vec<Option<String>>,
    cells: Vec<MatrixCell>,
}

impl Matrix {
    /// The matrix of `runs`: attacks and groups in the order they first appear, runs without a group
    /// in a group of their own (`None`); cells ordered by attack, then group.
    pub fn new(runs: &[MatrixRun<'_>]) -> Matrix {
        let mut matrix = Matrix::default();
        let mut attack_index: HashMap<&str, usize> = HashMap::new();
        let mut group_index: HashMap<Option<&str>, usize> = HashMap::new();
        let mut cell_index: HashMap<(usize, usize), usize> = HashMap::new();
        for (index, run) in runs.iter().enumerate() {
            let attack = *attack_index.entry(run.attack_id).or_insert_with(|| {
                matrix.attacks.push(run.attack_id.to_owned());
                matrix.attacks.len() - 1
            });
            let group = *group_index.entry(run.group).or_insert_with(|| {
                matrix.groups.push(run.group.map(str::to_owned));
                matrix.groups.len() - 1
            });
            let cell = *cell_index.entry((attack, group)).or_insert_with(|| {
                matrix.cells.push(MatrixCell {
                    attack,
                    group,
                    runs: Vec::new(),
                    worst: index,
                    worst_result: run.result,
                    worst_tier: run.max_tier,
                    worst_exit_code: run.exit_code,
                    by_level: [0; 4],
                });
                matrix.cells.len() - 1
            });
            let cell = &mut matrix.cells[cell];
            cell.runs.push(index);
            cell.by_level[tier_level(run.max_tier)] += 1;
            if severity_rank(run.exit_code) > severity_rank(cell.worst_exit_code) {
                cell.worst = index;
                cell.worst_result = run.result;
                cell.worst_tier = run.max_tier;
                cell.worst_exit_code = run.exit_code;
            }
        }
        matrix.cells.sort_by_key(|cell| (cell.attack, cell.group));
        matrix
    }

    /// The attacks (rows), in the order they first appear.
    pub fn attacks(&self) -> &[String] {
        &self.attacks
    }

    /// The groups (columns), in the order they first appear; `None` for runs without a group.
    pub fn groups(&self) -> &[Option<String>] {
        &self.groups
    }

    /// The cells that have runs, by attack, then group.
    pub fn cells(&self) -> &[MatrixCell] {
        &self.cells
    }

    /// Whether any run has a group.
    pub fn has_groups(&self) -> bool {
        self.groups.iter().any(Option::is_some)
    }

    /// The matrix as JSON: `attacks`, `groups` (`null` for runs without a group) and `cells`, each
    /// with `attack_id`, `group`, `runs` (the count), `run_indexes` (into the report's `runs`),
    /// `worst` (`result`, `max_tier`, `exit_code`), `typical_tier`, `consistency` (0 to 1) and
    /// `by_tier`.
    pub fn json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The matrix as [`Matrix::json`] gives it, written without building the `Value` (D-212): a campaign's
/// JSON report has every run's index in its matrix.
impl Serialize for Matrix {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let cells: Vec<CellJson<'_>> = self
            .cells
            .iter()
            .map(|cell| {
                let [none, ingested, local_action, boundary_breach] = cell.by_level;
                CellJson {
                    attack_id: self.attacks.get(cell.attack).map_or("", String::as_str),
                    group: self.groups.get(cell.group).and_then(Option::as_deref),
                    runs: cell.runs.len(),
                    run_indexes: &cell.runs,
                    worst: Worst {
                        result: cell.worst_result.as_str(),
                        max_tier: cell.worst_tier.map(Tier::as_str),
                        exit_code: cell.worst_exit_code,
                    },
                    typical_tier: cell.typical_tier().map(Tier::as_str),
                    consistency: cell.consistency(),
                    by_tier: ByTier {
                        boundary_breach,
                        local_action,
                        ingested,
                        none,
                    },
                }
            })
            .collect();
        MatrixJson {
            attacks: &self.attacks,
            groups: &self.groups,
            cells,
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct MatrixJson<'a> {
    attacks: &'a [String],
    groups: &'a [Option<String>],
    cells: Vec<CellJson<'a>>,
}

#[derive(Serialize)]
struct CellJson<'a> {
    attack_id: &'a str,
    group: Option<&'a str>,
    runs: usize,
    run_indexes: &'a [usize],
    worst: Worst,
    typical_tier: Option<&'static str>,
    consistency: f64,
    by_tier: ByTier,
}

#[derive(Serialize)]
struct Worst {
    result: &'static str,
    max_tier: Option<&'static str>,
    exit_code: u8,
}

#[derive(Serialize)]
struct ByTier {
    boundary_breach: usize,
    local_action: usize,
    ingested: usize,
    none: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(group: Option<&str>, tier: Option<Tier>) -> MatrixRun<'_> {
        let (result, code) = match tier {
            None => (AttackResult::NotExploited, 0),
            Some(Tier::Ingested) => (AttackResult::Exploited, 1),
            Some(Tier::LocalAction) => (AttackResult::Exploited, 2),
            Some(Tier::BoundaryBreach) => (AttackResult::Exploited, 3),
        };
        MatrixRun::new("A", group, result, tier, code)
    }

    /// The typical tier and consistency of one cell of runs with these tiers.
    #[track_caller]
    fn check(tiers: &[Option<Tier>], typical: Option<Tier>, consistency: f64) {
        let runs: Vec<MatrixRun<'_>> = tiers.iter().map(|t| run(Some("g"), *t)).collect();
        let matrix = Matrix::new(&runs);
        assert_eq!(matrix.cells().len(), 1);
        let cell = &matrix.cells()[0];
        assert_eq!(cell.typical_tier(), typical, "{tiers:?}");
        assert!(
            (cell.consistency() - consistency).abs() < 1e-9,
            "{tiers:?}: {}",
            cell.consistency()
        );
    }

    const I: Option<Tier> = Some(Tier::Ingested);
    const L: Option<Tier> = Some(Tier::LocalAction);
    const B: Option<Tier> = Some(Tier::BoundaryBreach);

    #[test]
    fn typical_tier_is_the_lower_median() {
        check(&[None], None, 1.0);
        check(&[B], B, 1.0);
        // Even counts take the lower of the two middle runs.
        check(&[None, B], None, 0.5);
        check(&[B, I, L, B], L, 0.5);
        // Order of the runs does not matter.
        check(&[B, None, B, None, I], I, 0.4);
        check(&[L, L, L, None, B], L, 0.6);
        check(&[None, None, None, B, B], None, 0.6);
    }

    #[test]
    fn worst_run_by_severity() {
        let runs = [
            MatrixRun::new("A", None, AttackResult::Partial, None, 4),
            MatrixRun::new("A", None, AttackResult::Exploited, I, 1),
            MatrixRun::new("A", None, AttackResult::Error, None, 5),
            MatrixRun::new("A", None, AttackResult::Exploited, I, 1),
        ];
        let matrix = Matrix::new(&runs);
        let cell = &matrix.cells()[0];
        // exploited (1) is worse than partial without tier (4) and error (5); the first of equals.
        assert_eq!(cell.worst(), 1);
        assert_eq!(cell.worst_result(), AttackResult::Exploited);
        assert_eq!(cell.worst_tier(), I);
        assert_eq!(cell.worst_exit_code(), 1);
        assert!(!matrix.has_groups());
        // An unreadable trace (66) is worse than any verdict.
        let runs = [
            MatrixRun::new("A", None, AttackResult::Exploited, B, 3),
            MatrixRun::new("A", None, AttackResult::Error, None, 66),
        ];
        assert_eq!(Matrix::new(&runs).cells()[0].worst(), 1);
    }

    #[test]
    fn cells_by_attack_and_group() {
        let runs = [
            MatrixRun::new("B", Some("m1"), AttackResult::NotExploited, None, 0),
            MatrixRun::new("A", Some("m2"), AttackResult::Exploited, L, 2),
            MatrixRun::new("A", Some("m1"), AttackResult::Exploited, B, 3),
            MatrixRun::new("A", Some("m2"), AttackResult::NotExploited, None, 0),
            MatrixRun::new("B", None, AttackResult::NotExploited, None, 0),
        ];
        let matrix = Matrix::new(&runs);
        assert_eq!(matrix.attacks(), ["B", "A"]);
        assert_eq!(
            matrix.groups(),
            [Some("m1".to_owned()), Some("m2".to_owned()), None]
        );
        let cells: Vec<(usize, usize, Vec<usize>)> = matrix
            .cells()
            .iter()
            .map(|c| (c.attack(), c.group(), c.runs().to_vec()))
            .collect();
        assert_eq!(
            cells,
            [
                (0, 0, vec![0]),
                (0, 2, vec![4]),
                (1, 0, vec![2]),
                (1, 1, vec![1, 3])
            ]
        );
        let json = matrix.json();
        let last = &json["cells"][3];
        assert_eq!(last["attack_id"], "A");
        assert_eq!(last["group"], "m2");
        assert_eq!(last["runs"], 2);
        assert_eq!(last["run_indexes"], json!([1, 3]));
        assert_eq!(
            last["worst"],
            json!({"result": "exploited", "max_tier": "local_action", "exit_code": 2})
        );
        assert_eq!(last["typical_tier"], Value::Null);
        assert_eq!(last["consistency"], 0.5);
        assert_eq!(last["by_tier"]["local_action"], 1);
        assert_eq!(json["groups"], json!(["m1", "m2", null]));
        // Written without a `Value` (D-212): the text of the `Value` built field by field.
        let cells: Vec<Value> = matrix
            .cells
            .iter()
            .map(|cell| {
                let [none, ingested, local_action, boundary_breach] = cell.by_level;
                json!({
                    "attack_id": matrix.attacks[cell.attack],
                    "group": matrix.groups[cell.group],
                    "runs": cell.runs.len(),
                    "run_indexes": cell.runs,
                    "worst": {
                        "result": cell.worst_result.as_str(),
                        "max_tier": cell.worst_tier.map(Tier::as_str),
                        "exit_code": cell.worst_exit_code,
                    },
                    "typical_tier": cell.typical_tier().map(Tier::as_str),
                    "consistency": cell.consistency(),
                    "by_tier": {
                        "boundary_breach": boundary_breach, "local_action": local_action,
                        "ingested": ingested, "none": none,
                    },
                })
            })
            .collect();
        let built = json!({"attacks": matrix.attacks, "groups": matrix.groups, "cells": cells});
        assert_eq!(
            serde_json::to_string_pretty(&matrix).ok(),
            serde_json::to_string_pretty(&built).ok()
        );
        assert_eq!(matrix.json(), built);
    }
}
