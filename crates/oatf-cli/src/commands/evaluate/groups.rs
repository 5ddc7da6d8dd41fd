//! The matrix attacks × groups of a campaign report (`oatf::report::matrix`, D-105) as the human
//! report shows it: one line per cell, since a benchmark may have many groups.

use oatf::report::matrix::{Matrix, MatrixCell};

use super::trace::{EXIT_INVALID_DOCUMENT, EXIT_NO_INPUT, one_line};

/// The label of the runs without a group.
const NO_GROUP: &str = "(no group)";

/// A cell's worst run as people read it: `exploited (local_action)`, the bare result, or, for a
/// run that has no verdict (an invalid document, an unreadable trace), `no verdict (exit 66)` as
/// the table of attacks says it.
fn worst(cell: &MatrixCell) -> String {
    let code = cell.worst_exit_code();
    if code == EXIT_INVALID_DOCUMENT || code == EXIT_NO_INPUT {
        return format!("no verdict (exit {code})");
    }
    let result = cell.worst_result();
    match cell.worst_tier() {
        Some(tier) => format!("{} ({})", result.as_str(), tier.as_str()),
        None => result.as_str().to_owned(),
    }
}

/// The matrix as a table: attack, group, runs, worst verdict, typical (median) tier, consistency.
pub(super) fn human(matrix: &Matrix) -> String {
    let rows: Vec<[String; 6]> = matrix
        .cells()
        .iter()
        .map(|cell| {
            let group = matrix.groups()[cell.group()]
                .as_deref()
                .map_or_else(|| NO_GROUP.to_owned(), one_line);
            [
                one_line(&matrix.attacks()[cell.attack()]),
                group,
                cell.runs().len().to_string(),
                worst(cell),
                cell.typical_tier()
                    .map_or_else(|| "none".to_owned(), |t| t.as_str().to_owned()),
                format!("{:.0}%", cell.consistency() * 100.0),
            ]
        })
        .collect();
    let header = [
        "attack",
        "group",
        "runs",
        "worst",
        "typical tier",
        "consistency",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let [w0, w1, w2, w3, w4, _] = widths;
        format!(
            "  {:<w0$}  {:<w1$}  {:>w2$}  {:<w3$}  {:<w4$}  {}\n",
            cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]
        )
    };
    let mut text = String::from(
        "matrix (attack x group): runs, worst verdict, typical tier (lower median), consistency (runs with the most common tier):\n",
    );
    text.push_str(&line(header));
    for row in &rows {
        text.push_str(&line(row.each_ref().map(String::as_str)));
    }
    text
}
