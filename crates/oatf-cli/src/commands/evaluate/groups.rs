//! The matrix attacks × groups of a campaign report (`oatf::report::matrix`, D-105) as the human
//! report shows it: one line per cell, since a benchmark may have many groups.

use oatf::report::matrix::Matrix;

use super::trace::one_line;

/// The label of the runs without a group.
const NO_GROUP: &str = "(no group)";

/// A cell's verdict as people read it: `exploited (local_action)`, or the bare result.
fn verdict(result: &str, tier: Option<&str>) -> String {
    match tier {
        Some(tier) => format!("{result} ({tier})"),
        None => result.to_owned(),
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
                verdict(
                    cell.worst_result().as_str(),
                    cell.worst_tier().map(|t| t.as_str()),
                ),
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
