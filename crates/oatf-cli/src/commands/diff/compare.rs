//! Comparing two campaign reports (D-106): runs are matched by attack id and trace (the n-th run
//! with a key in one report with the n-th in the other; traces compared as normalized paths), and a
//! matched run changed when its result or its `max_tier` did.

use std::collections::{HashMap, VecDeque};

use oatf::AttackResult;

use super::read::ReportRun;

/// A matched run whose result or tier changed.
#[derive(Debug)]
pub(super) struct Change {
    pub(super) old: ReportRun,
    pub(super) new: ReportRun,
}

impl Change {
    /// The run got worse: a higher tier (no tier lowest), or exploited where it was not (D-106).
    pub(super) fn worse(&self) -> bool {
        got_worse(&self.old, &self.new)
    }

    /// The run got better: the reverse.
    pub(super) fn better(&self) -> bool {
        got_worse(&self.new, &self.old)
    }

    /// The group the change is counted under: the new run's, else the old run's.
    pub(super) fn group(&self) -> Option<&str> {
        self.new.group.as_deref().or(self.old.group.as_deref())
    }
}

/// Whether `new` is worse than `old`: a higher `max_tier`, or `exploited` where `old` was not.
pub(super) fn got_worse(old: &ReportRun, new: &ReportRun) -> bool {
    new.max_tier > old.max_tier
        || (new.result == AttackResult::Exploited && old.result != AttackResult::Exploited)
}

/// A trace as a key: the path with `.` segments, doubled separators and `dir/..` pairs removed, so
/// that `bench/../runs/a.jsonl` (a trace named relative to a manifest in `bench/`) and
/// `./runs/a.jsonl` match `runs/a.jsonl`. Lexical only: the files are never looked at.
pub(super) fn trace_key(trace: &str) -> String {
    let absolute = trace.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in trace.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Counts of one attack or one group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) changed: usize,
    pub(super) worse: usize,
    pub(super) better: usize,
    pub(super) added: usize,
    pub(super) removed: usize,
}

/// The differences between two reports.
#[derive(Debug, Default)]
pub(super) struct Diff {
    pub(super) old_runs: usize,
    pub(super) new_runs: usize,
    pub(super) unchanged: usize,
    /// In the new report's order.
    pub(super) changed: Vec<Change>,
    /// In the new report's order.
    pub(super) added: Vec<ReportRun>,
    /// In the old report's order.
    pub(super) removed: Vec<ReportRun>,
}

impl Diff {
    /// Compares `old` with `new`.
    pub(super) fn new(old: Vec<ReportRun>, new: Vec<ReportRun>) -> Diff {
        let mut diff = Diff {
            old_runs: old.len(),
            new_runs: new.len(),
            ..Diff::default()
        };
        // The old runs by key, in order; each new run takes the first left with its key.
        let mut by_key: HashMap<(String, String), VecDeque<usize>> = HashMap::new();
        for (index, run) in old.iter().enumerate() {
            by_key
                .entry((run.attack_id.clone(), trace_key(&run.trace)))
                .or_default()
                .push_back(index);
        }
        let mut old: Vec<Option<ReportRun>> = old.into_iter().map(Some).collect();
        for run in new {
            let matched = by_key
                .get_mut(&(run.attack_id.clone(), trace_key(&run.trace)))
                .and_then(VecDeque::pop_front)
                .and_then(|index| old[index].take());
            match matched {
                Some(before) if before.result == run.result && before.max_tier == run.max_tier => {
                    diff.unchanged += 1;
                }
                Some(before) => diff.changed.push(Change {
                    old: before,
                    new: run,
                }),
                None => diff.added.push(run),
            }
        }
        diff.removed = old.into_iter().flatten().collect();
        diff
    }

    /// Whether anything differs: a changed, added or removed run.
    pub(super) fn differs(&self) -> bool {
        !(self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty())
    }

    /// Whether a matched run got worse.
    pub(super) fn any_worse(&self) -> bool {
        self.changed.iter().any(Change::worse)
    }

    /// The totals.
    pub(super) fn totals(&self) -> Counts {
        self.counts_by(|_| ())
            .pop()
            .map_or_else(Counts::default, |(_, c)| c)
    }

    /// Counts by attack id, in the order attacks first appear (changes, then added, then removed).
    pub(super) fn by_attack(&self) -> Vec<(String, Counts)> {
        self.counts_by(|run: Side<'_>| run.attack_id().to_owned())
    }

    /// Counts by group (`None`: runs without a group), in the order groups first appear.
    pub(super) fn by_group(&self) -> Vec<(Option<String>, Counts)> {
        self.counts_by(|run: Side<'_>| run.group().map(str::to_owned))
    }

    fn counts_by<K: Eq + std::hash::Hash + Clone>(
        &self,
        key: impl Fn(Side<'_>) -> K,
    ) -> Vec<(K, Counts)> {
        let mut order: Vec<(K, Counts)> = Vec::new();
        let mut index: HashMap<K, usize> = HashMap::new();
        for change in &self.changed {
            let counts = slot(&mut order, &mut index, key(Side::Change(change)));
            counts.changed += 1;
            counts.worse += usize::from(change.worse());
            counts.better += usize::from(change.better());
        }
        for run in &self.added {
            slot(&mut order, &mut index, key(Side::Run(run))).added += 1;
        }
        for run in &self.removed {
            slot(&mut order, &mut index, key(Side::Run(run))).removed += 1;
        }
        order
    }
}

/// The counts of `key`, added at the end of `order` the first time.
fn slot<'o, K: Eq + std::hash::Hash + Clone>(
    order: &'o mut Vec<(K, Counts)>,
    index: &mut HashMap<K, usize>,
    key: K,
) -> &'o mut Counts {
    let i = *index.entry(key.clone()).or_insert(order.len());
    if i == order.len() {
        order.push((key, Counts::default()));
    }
    &mut order[i].1
}

/// A change or an added or removed run, for counting.
#[derive(Clone, Copy)]
pub(super) enum Side<'a> {
    Change(&'a Change),
    Run(&'a ReportRun),
}

impl Side<'_> {
    fn attack_id(&self) -> &str {
        match self {
            Side::Change(change) => &change.new.attack_id,
            Side::Run(run) => &run.attack_id,
        }
    }

    fn group(&self) -> Option<&str> {
        match self {
            Side::Change(change) => change.group(),
            Side::Run(run) => run.group.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oatf::Tier;

    fn run(trace: &str, group: &str, result: AttackResult, max_tier: Option<Tier>) -> ReportRun {
        ReportRun {
            attack_id: "A-001".to_owned(),
            trace: trace.to_owned(),
            group: Some(group.to_owned()),
            result,
            max_tier,
        }
    }

    use AttackResult::{Error, Exploited, NotExploited, Partial};
    const I: Option<Tier> = Some(Tier::Ingested);
    const L: Option<Tier> = Some(Tier::LocalAction);

    #[track_caller]
    fn check_worse(
        old: (AttackResult, Option<Tier>),
        new: (AttackResult, Option<Tier>),
        worse: bool,
    ) {
        let change = Change {
            old: run("t", "g", old.0, old.1),
            new: run("t", "g", new.0, new.1),
        };
        assert_eq!(change.worse(), worse, "{old:?} -> {new:?}");
    }

    #[test]
    fn what_is_worse() {
        check_worse((NotExploited, None), (Exploited, None), true);
        check_worse((NotExploited, None), (Partial, I), true);
        check_worse((Exploited, I), (Exploited, L), true);
        check_worse((Partial, L), (Exploited, L), true);
        check_worse((Error, None), (Exploited, None), true);
        check_worse((NotExploited, None), (Partial, None), false);
        check_worse((NotExploited, None), (Error, None), false);
        check_worse((Exploited, L), (Exploited, I), false);
        check_worse((Exploited, L), (Partial, L), false);
    }

    #[test]
    fn matched_changed_added_removed() {
        let old = vec![
            run("t1", "a", NotExploited, None),
            run("t2", "a", Exploited, I),
            run("t3", "b", Exploited, L),
            run("dup", "b", NotExploited, None),
            run("dup", "b", NotExploited, None),
            run("gone", "b", Exploited, L),
        ];
        let new = vec![
            run("t3", "b", Exploited, I),
            run("t1", "a", Exploited, L),
            run("t2", "a", Exploited, I),
            run("dup", "b", NotExploited, None),
            run("dup", "b", Exploited, None),
            run("dup", "b", NotExploited, None),
            run("new", "c", Partial, None),
        ];
        let diff = Diff::new(old, new);
        assert_eq!((diff.old_runs, diff.new_runs, diff.unchanged), (6, 7, 2));
        let changed: Vec<(&str, bool, bool)> = diff
            .changed
            .iter()
            .map(|c| (c.new.trace.as_str(), c.worse(), c.better()))
            .collect();
        assert_eq!(
            changed,
            [
                ("t3", false, true),
                ("t1", true, false),
                ("dup", true, false)
            ]
        );
        let added: Vec<&str> = diff.added.iter().map(|r| r.trace.as_str()).collect();
        assert_eq!(added, ["dup", "new"]);
        let removed: Vec<&str> = diff.removed.iter().map(|r| r.trace.as_str()).collect();
        assert_eq!(removed, ["gone"]);
        assert!(diff.differs() && diff.any_worse());
        let by_group: Vec<(Option<String>, Counts)> = diff.by_group();
        let counts = |changed, worse, better, added, removed| Counts {
            changed,
            worse,
            better,
            added,
            removed,
        };
        assert_eq!(
            by_group,
            [
                (Some("b".to_owned()), counts(2, 1, 1, 1, 1)),
                (Some("a".to_owned()), counts(1, 1, 0, 0, 0)),
                (Some("c".to_owned()), counts(0, 0, 0, 1, 0)),
            ]
        );
        assert_eq!(diff.totals(), counts(3, 2, 1, 2, 1));
        assert_eq!(
            diff.by_attack(),
            [("A-001".to_owned(), counts(3, 2, 1, 2, 1))]
        );
    }

    #[test]
    fn traces_match_as_normalized_paths() {
        for (a, b) in [
            ("bench/../runs/a.jsonl", "runs/a.jsonl"),
            ("./runs//a.jsonl", "runs/a.jsonl"),
            ("../x/./a.jsonl", "../x/a.jsonl"),
            ("/../r/a.jsonl", "/r/a.jsonl"),
            ("a/b/../../c", "c"),
        ] {
            assert_eq!(trace_key(a), trace_key(b), "{a} {b}");
        }
        assert_ne!(trace_key("/runs/a.jsonl"), trace_key("runs/a.jsonl"));
        assert_ne!(trace_key("../a.jsonl"), trace_key("a.jsonl"));
        let diff = Diff::new(
            vec![run("bench/../t1", "a", Exploited, L)],
            vec![run("./t1", "a", Exploited, L)],
        );
        assert_eq!(diff.unchanged, 1);
    }

    #[test]
    fn the_same_report_has_no_difference() {
        let runs = vec![run("t1", "a", Exploited, L), run("t1", "a", Exploited, L)];
        let diff = Diff::new(runs.clone(), runs);
        assert_eq!(diff.unchanged, 2);
        assert!(!diff.differs() && !diff.any_worse());
    }
}
