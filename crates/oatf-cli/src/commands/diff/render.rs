//! The formats of `oatf diff`: human, JSON, CSV and GitHub annotations. Attack ids, traces and
//! groups are attacker text: escaped for the terminal (`safe_text`), for CSV by
//! `oatf::report::campaign::Cell`, and for workflow commands by `render::github`.

use oatf::report::campaign::Cell;
use oatf::{AttackResult, Tier};
use serde_json::{Value, json};

use super::compare::{Change, Counts, Diff};
use super::read::ReportRun;
use crate::render::github::{At, Level, annotation};
use crate::render::safe_text::escape;

/// The two reports as the arguments named them.
pub(super) struct Names<'a> {
    pub(super) old: &'a str,
    pub(super) new: &'a str,
}

/// A verdict as people read it: `exploited (local_action)`, or the bare result.
fn verdict(result: AttackResult, tier: Option<Tier>) -> String {
    match tier {
        Some(tier) => format!("{result} ({tier})"),
        None => result.to_string(),
    }
}

/// `ATTACK  TRACE  [GROUP]`, escaped for one line.
fn run_label(run: &ReportRun, group: Option<&str>) -> String {
    let mut label = format!("{}  {}", escape(&run.attack_id), escape(&run.trace));
    if let Some(group) = group {
        label.push_str(&format!("  [{}]", escape(group)));
    }
    label
}

fn counts_text(c: &Counts) -> String {
    format!(
        "{} changed ({} worse, {} better), {} added, {} removed",
        c.changed, c.worse, c.better, c.added, c.removed
    )
}

/// The human report: the changes (worse first marked), the added and removed runs, the counts by
/// attack and by group, and a summary line.
pub(super) fn human(diff: &Diff) -> String {
    let mut text = String::new();
    if !diff.changed.is_empty() {
        text.push_str(&format!("changed ({}):\n", diff.changed.len()));
        for change in &diff.changed {
            let mark = if change.worse() {
                "worse "
            } else if change.better() {
                "better"
            } else {
                "      "
            };
            text.push_str(&format!(
                "  {mark}  {}  {} -> {}\n",
                run_label(&change.new, change.group()),
                verdict(change.old.result, change.old.max_tier),
                verdict(change.new.result, change.new.max_tier),
            ));
        }
    }
    for (title, runs) in [("added", &diff.added), ("removed", &diff.removed)] {
        if runs.is_empty() {
            continue;
        }
        text.push_str(&format!("{title} ({}):\n", runs.len()));
        for run in runs {
            text.push_str(&format!(
                "  {}  {}\n",
                run_label(run, run.group.as_deref()),
                verdict(run.result, run.max_tier)
            ));
        }
    }
    if diff.differs() {
        text.push_str("by attack:\n");
        for (attack, counts) in diff.by_attack() {
            text.push_str(&format!(
                "  {}: {}\n",
                escape(&attack),
                counts_text(&counts)
            ));
        }
        let by_group = diff.by_group();
        if by_group.iter().any(|(g, _)| g.is_some()) {
            text.push_str("by group:\n");
            for (group, counts) in by_group {
                let group = group.as_deref().map_or("(no group)".into(), escape);
                text.push_str(&format!("  {group}: {}\n", counts_text(&counts)));
            }
        }
    }
    text.push_str(&format!(
        "runs: {} old, {} new; {} unchanged, {}\n",
        diff.old_runs,
        diff.new_runs,
        diff.unchanged,
        counts_text(&diff.totals())
    ));
    text
}

fn state(run: &ReportRun) -> Value {
    json!({"result": run.result.as_str(), "max_tier": run.max_tier.map(Tier::as_str)})
}

fn run_json(run: &ReportRun) -> Value {
    json!({
        "attack_id": run.attack_id,
        "trace": run.trace,
        "group": run.group,
        "result": run.result.as_str(),
        "max_tier": run.max_tier.map(Tier::as_str),
    })
}

fn counts_json(c: &Counts) -> Value {
    json!({
        "changed": c.changed, "worse": c.worse, "better": c.better,
        "added": c.added, "removed": c.removed,
    })
}

fn with(mut value: Value, key: &str, extra: Value) -> Value {
    if let Some(object) = value.as_object_mut() {
        object.insert(key.to_owned(), extra);
    }
    value
}

/// The JSON report: `old` and `new` (the files), `changed` (each with `attack_id`, `trace`, `group`,
/// `old` and `new` holding `result` and `max_tier`, `worse`, `better`), `added`, `removed`,
/// `summary` and `exit_code`.
pub(super) fn json(diff: &Diff, names: &Names<'_>, exit_code: u8) -> String {
    let changed: Vec<Value> = diff
        .changed
        .iter()
        .map(|c: &Change| {
            json!({
                "attack_id": c.new.attack_id,
                "trace": c.new.trace,
                "group": c.group(),
                "old": state(&c.old),
                "new": state(&c.new),
                "worse": c.worse(),
                "better": c.better(),
            })
        })
        .collect();
    let totals = diff.totals();
    let summary = with(
        json!({
            "old_runs": diff.old_runs,
            "new_runs": diff.new_runs,
            "unchanged": diff.unchanged,
        }),
        "by_attack",
        diff.by_attack()
            .iter()
            .map(|(a, c)| with(counts_json(c), "attack_id", json!(a)))
            .collect(),
    );
    let mut summary = with(
        summary,
        "by_group",
        diff.by_group()
            .iter()
            .map(|(g, c)| with(counts_json(c), "group", json!(g)))
            .collect(),
    );
    if let (Some(object), Value::Object(totals)) = (summary.as_object_mut(), counts_json(&totals)) {
        object.extend(totals);
    }
    let value = json!({
        "old": names.old,
        "new": names.new,
        "changed": changed,
        "added": diff.added.iter().map(run_json).collect::<Vec<_>>(),
        "removed": diff.removed.iter().map(run_json).collect::<Vec<_>>(),
        "summary": summary,
        "exit_code": exit_code,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The columns of the CSV report.
const CSV_COLUMNS: [&str; 8] = [
    "change",
    "attack_id",
    "trace",
    "group",
    "old_result",
    "old_max_tier",
    "new_result",
    "new_max_tier",
];

/// The CSV report: one row per difference; `change` is `worse`, `better`, `changed` (neither),
/// `added` or `removed`.
pub(super) fn csv(diff: &Diff) -> String {
    let text_cell = |t: &str| Cell::Text(t.to_owned());
    let opt = |t: Option<&str>| t.map_or(Cell::Empty, text_cell);
    let side = |run: Option<&ReportRun>| -> [Cell; 2] {
        match run {
            Some(run) => [
                text_cell(run.result.as_str()),
                opt(run.max_tier.map(Tier::as_str)),
            ],
            None => [Cell::Empty, Cell::Empty],
        }
    };
    let row = |change: &str, run: &ReportRun, group: Option<&str>, old, new| {
        let [old_result, old_tier] = side(old);
        let [new_result, new_tier] = side(new);
        let cells = [
            text_cell(change),
            text_cell(&run.attack_id),
            text_cell(&run.trace),
            opt(group),
            old_result,
            old_tier,
            new_result,
            new_tier,
        ];
        let mut line = cells.iter().map(Cell::csv).collect::<Vec<_>>().join(",");
        line.push('\n');
        line
    };
    let mut text = CSV_COLUMNS.join(",");
    text.push('\n');
    for c in &diff.changed {
        let change = if c.worse() {
            "worse"
        } else if c.better() {
            "better"
        } else {
            "changed"
        };
        text.push_str(&row(change, &c.new, c.group(), Some(&c.old), Some(&c.new)));
    }
    for run in &diff.added {
        text.push_str(&row("added", run, run.group.as_deref(), None, Some(run)));
    }
    for run in &diff.removed {
        text.push_str(&row("removed", run, run.group.as_deref(), Some(run), None));
    }
    text
}

/// GitHub annotations, at the run's trace: an error per run that got worse, a warning per other
/// change, added or removed run.
pub(super) fn github(diff: &Diff) -> String {
    let mut text = String::new();
    fn at(run: &ReportRun) -> At<'_> {
        At {
            file: &run.trace,
            line: None,
            column: None,
        }
    }
    let subject = |run: &ReportRun, group: Option<&str>| match group {
        Some(group) => format!("{} ({group})", run.attack_id),
        None => run.attack_id.clone(),
    };
    for c in &diff.changed {
        let (level, title) = if c.worse() {
            (Level::Error, "oatf diff: worse")
        } else {
            (Level::Warning, "oatf diff: changed")
        };
        let message = format!(
            "{}: {} -> {}",
            subject(&c.new, c.group()),
            verdict(c.old.result, c.old.max_tier),
            verdict(c.new.result, c.new.max_tier)
        );
        text.push_str(&annotation(level, at(&c.new), Some(title), &message));
    }
    for (runs, title) in [
        (&diff.added, "oatf diff: added"),
        (&diff.removed, "oatf diff: removed"),
    ] {
        for run in runs {
            let message = format!(
                "{}: {}",
                subject(run, run.group.as_deref()),
                verdict(run.result, run.max_tier)
            );
            text.push_str(&annotation(Level::Warning, at(run), Some(title), &message));
        }
    }
    text
}
