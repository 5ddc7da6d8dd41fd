//! The HTML report of a campaign (`oatf evaluate --format html`, D-107): one self-contained file,
//! with inline style and script and nothing fetched (its Content-Security-Policy forbids every
//! request), showing the matrix attacks × groups ([`crate::matrix`]) coloured by each cell's worst
//! tier; a cell opens its runs with their verdicts and the evidence of the indicators that matched.
//!
//! Attack ids, groups, traces and evidence are attacker text. What the page's markup holds is
//! escaped by [`crate::xml::text`]; the runs are one JSON block (with `<`, `>` and `&` written as
//! `\u` escapes, so that no text can end the block) that the script reads and shows through
//! `textContent` only, when a cell is opened: the page stays small and fast with thousands of runs.
//!
//! ```
//! use oatf_report::campaign::RunOutcome;
//! use oatf_report::html::{HtmlRun, campaign_html};
//!
//! let runs = [HtmlRun::new("OATF-1", Some("<model>"), "t.jsonl",
//!     RunOutcome::Unreadable { reason: "gone" })];
//! let page = campaign_html("bench", &runs);
//! assert!(page.starts_with("<!doctype html>"));
//! assert!(page.contains("&lt;model&gt;"));
//! assert!(!page.contains("<model>"));
//! ```

use oatf_eval::{AttackResult, IndicatorResult};
use oatf_model::Tier;
use serde_json::{Value, json};

use crate::campaign::RunOutcome;
use crate::matrix::{Matrix, MatrixCell, MatrixRun, tier_level};
use crate::xml::text as escape;

/// Evidence longer than this many characters is cut (the JSON report has it whole).
pub const MAX_EVIDENCE_CHARS: usize = 2000;

/// One run of the report.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct HtmlRun<'a> {
    /// The attack (its `attack.id`, or the label the campaign shows).
    pub attack_id: &'a str,
    /// The run's group, if it has one.
    pub group: Option<&'a str>,
    /// The trace, as the campaign names it.
    pub trace: &'a str,
    /// How the run ended.
    pub outcome: RunOutcome<'a>,
}

impl<'a> HtmlRun<'a> {
    /// A run.
    pub fn new(
        attack_id: &'a str,
        group: Option<&'a str>,
        trace: &'a str,
        outcome: RunOutcome<'a>,
    ) -> Self {
        HtmlRun {
            attack_id,
            group,
            trace,
            outcome,
        }
    }
}

/// The CSS class of a cell or run: by tier, or `ok` (not exploited, no tier), `partial`, `error`.
fn class(result: AttackResult, tier: Option<Tier>) -> &'static str {
    match (tier_level(tier), result) {
        (3, _) => "t3",
        (2, _) => "t2",
        (1, _) => "t1",
        (_, AttackResult::Exploited) => "t0",
        (_, AttackResult::Partial) => "partial",
        (_, AttackResult::Error) => "error",
        _ => "ok",
    }
}

fn verdict_text(result: AttackResult, tier: Option<Tier>) -> String {
    match tier {
        Some(tier) => format!("{} ({})", result.as_str(), tier.as_str()),
        None => result.as_str().to_owned(),
    }
}

/// At most [`MAX_EVIDENCE_CHARS`] characters of `text`.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_EVIDENCE_CHARS) {
        Some((end, _)) => format!("{}… (cut)", &text[..end]),
        None => text.to_owned(),
    }
}

/// The JSON of one run for the script: trace, verdict, exit code, and the matched or failed
/// indicators with their evidence (or the reason the run has no verdict).
fn run_json(run: &HtmlRun<'_>) -> Value {
    let code = run.outcome.exit_code();
    match run.outcome {
        RunOutcome::Verdict(verdict, _) => {
            let indicators: Vec<Value> = verdict
                .indicator_verdicts
                .iter()
                .filter(|i| matches!(i.result, IndicatorResult::Matched | IndicatorResult::Error))
                .map(|i| {
                    json!([
                        i.indicator_id,
                        i.result.as_str(),
                        i.tier.map(Tier::as_str),
                        i.evidence.as_deref().map(cut),
                    ])
                })
                .collect();
            json!({
                "trace": run.trace,
                "verdict": verdict_text(verdict.result, verdict.max_tier),
                "class": class(verdict.result, verdict.max_tier),
                "exit": code,
                "indicators": indicators,
                "others": verdict.indicator_verdicts.len() - indicators.len(),
                "diagnostic": verdict.diagnostic,
            })
        }
        RunOutcome::Unreadable { reason } => json!({
            "trace": run.trace, "verdict": "error", "class": "error", "exit": code,
            "diagnostic": crate::campaign::unreadable_message(run.trace, reason),
        }),
        RunOutcome::Failed { message, .. } => json!({
            "trace": run.trace, "verdict": "error", "class": "error", "exit": code,
            "diagnostic": message,
        }),
    }
}

/// JSON that is safe inside a `<script>` element: `<`, `>` and `&` as `\u` escapes (valid in JSON
/// strings, the only place they can occur).
fn script_json(value: &Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn cell_html(matrix: &Matrix, cell: &MatrixCell, index: usize) -> String {
    let runs = cell.runs().len();
    let class = class(cell.worst_result(), cell.worst_tier());
    let typical = cell.typical_tier().map_or("none", Tier::as_str);
    format!(
        "<td class=\"{class}\"><button type=\"button\" data-cell=\"{index}\" title=\"{}\">\
         <b>{}</b><span>{runs} run{} · typical {typical} · {:.0}%</span></button></td>",
        escape(&format!(
            "{} × {}: worst {}",
            matrix.attacks()[cell.attack()],
            group_name(matrix.groups()[cell.group()].as_deref()),
            verdict_text(cell.worst_result(), cell.worst_tier())
        )),
        escape(&verdict_text(cell.worst_result(), cell.worst_tier())),
        oatf_internal::plural(runs),
        cell.consistency() * 100.0,
    )
}

fn group_name(group: Option<&str>) -> &str {
    group.unwrap_or("(no group)")
}

/// The report: a title, the totals, the matrix, and the runs of a cell when it is opened.
pub fn campaign_html(title: &str, runs: &[HtmlRun<'_>]) -> String {
    let matrix_runs: Vec<MatrixRun<'_>> = runs
        .iter()
        .map(|run| MatrixRun::of_outcome(run.attack_id, run.group, &run.outcome))
        .collect();
    let matrix = Matrix::new(&matrix_runs);

    let mut by_result = [0usize; 4];
    for run in &matrix_runs {
        by_result[match run.result {
            AttackResult::Exploited => 0,
            AttackResult::Partial => 1,
            AttackResult::NotExploited => 2,
            AttackResult::Error => 3,
        }] += 1;
    }

    let mut table = String::from("<table id=\"matrix\"><thead><tr><th>attack</th>");
    for group in matrix.groups() {
        table.push_str(&format!(
            "<th>{}</th>",
            escape(group_name(group.as_deref()))
        ));
    }
    table.push_str("</tr></thead><tbody>\n");
    let mut cells = matrix.cells().iter().enumerate().peekable();
    for (attack_index, attack) in matrix.attacks().iter().enumerate() {
        table.push_str(&format!("<tr><th>{}</th>", escape(attack)));
        for group_index in 0..matrix.groups().len() {
            match cells.next_if(|(_, c)| c.attack() == attack_index && c.group() == group_index) {
                Some((index, cell)) => table.push_str(&cell_html(&matrix, cell, index)),
                None => table.push_str("<td class=\"none\">–</td>"),
            }
        }
        table.push_str("</tr>\n");
    }
    table.push_str("</tbody></table>");

    let data = json!({
        "attacks": matrix.attacks(),
        "groups": matrix.groups().iter().map(|g| group_name(g.as_deref())).collect::<Vec<_>>(),
        "cells": matrix.cells().iter().map(|c| json!([c.attack(), c.group(), c.runs()])).collect::<Vec<_>>(),
        "runs": runs.iter().map(run_json).collect::<Vec<_>>(),
    });

    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>{title}</h1>\n\
         <p class=\"totals\">runs: {total} ({} exploited, {} partial, {} not_exploited, {} error); \
         {} attacks × {} groups. Cells are coloured by their worst run; open one for its runs and evidence.</p>\n\
         <p class=\"legend\"><span class=\"t3\">boundary_breach</span><span class=\"t2\">local_action</span>\
         <span class=\"t1\">ingested</span><span class=\"t0\">exploited, no tier</span><span class=\"partial\">partial</span>\
         <span class=\"error\">error</span><span class=\"ok\">not_exploited</span></p>\n\
         <div class=\"scroll\">{table}</div>\n\
         <section id=\"details\" hidden><h2 id=\"details-title\"></h2><table id=\"runs\"><thead><tr><th>trace</th>\
         <th>verdict</th><th>exit</th><th>evidence</th></tr></thead><tbody></tbody></table></section>\n\
         <script id=\"oatf-data\" type=\"application/json\">{data}</script>\n\
         <script>{SCRIPT}</script>\n</body>\n</html>\n",
        by_result[0],
        by_result[1],
        by_result[2],
        by_result[3],
        matrix.attacks().len(),
        matrix.groups().len(),
        title = escape(title),
        total = runs.len(),
        data = script_json(&data),
    )
}

const STYLE: &str = "
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}
.scroll{overflow:auto;max-height:70vh;border:1px solid #ccc}
table{border-collapse:collapse}
th,td{border:1px solid #ddd;padding:0;text-align:left;vertical-align:top}
th{background:#f4f4f4;padding:.3em .5em;position:sticky;top:0;white-space:nowrap}
tbody th{position:sticky;left:0}
td button{all:unset;display:block;cursor:pointer;padding:.3em .5em;min-width:9em}
td button:focus-visible{outline:2px solid #000}
td button span{display:block;font-size:.85em;opacity:.8}
td.open{outline:3px solid #000;outline-offset:-3px}
.legend span{display:inline-block;padding:.1em .5em;margin-right:.3em;border-radius:3px}
.t3{background:#b3261e;color:#fff}.t2{background:#e8710a;color:#000}.t1{background:#f9d45c;color:#000}
.t0{background:#f6aea9;color:#000}.partial{background:#fde7c4;color:#000}.error{background:#9e9e9e;color:#000}
.ok{background:#cfe8d4;color:#000}.none{color:#999;padding:.3em .5em}
#runs td{padding:.3em .5em;max-width:60em;overflow-wrap:anywhere}
#runs pre{white-space:pre-wrap;margin:.2em 0;font-size:.9em}
";

const SCRIPT: &str = r##"
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("oatf-data").textContent);
  const details = document.getElementById("details");
  const title = document.getElementById("details-title");
  const body = document.querySelector("#runs tbody");
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };
  let open = null;
  const show = (button) => {
    const [attack, group, runs] = data.cells[Number(button.dataset.cell)];
    if (open) open.classList.remove("open");
    open = button.parentElement;
    open.classList.add("open");
    title.textContent = `${data.attacks[attack]} × ${data.groups[group]}: ${runs.length} run${runs.length === 1 ? "" : "s"}`;
    body.replaceChildren();
    for (const index of runs) {
      const run = data.runs[index];
      const row = el("tr");
      row.append(el("td", run.trace), el("td", run.verdict, run.class), el("td", run.exit));
      const evidence = el("td");
      for (const [id, result, tier, text] of run.indicators || []) {
        const d = el("details");
        d.append(el("summary", `${id}: ${result}${tier ? ` (${tier})` : ""}`), el("pre", text ?? "(no evidence)"));
        evidence.append(d);
      }
      if (run.others) evidence.append(el("div", `${run.others} other indicator(s) not matched`));
      if (run.diagnostic) evidence.append(el("pre", run.diagnostic));
      row.append(evidence);
      body.append(row);
    }
    details.hidden = false;
    details.scrollIntoView({ block: "nearest" });
  };
  document.getElementById("matrix").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-cell]");
    if (button) show(button);
  });
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TraceStats;
    use oatf_eval::AttackVerdict;

    fn verdict(evidence: &str) -> AttackVerdict {
        serde_json::from_value(json!({
            "result": "exploited", "max_tier": "boundary_breach",
            "indicator_verdicts": [
                {"indicator_id": "X-001-01", "result": "matched", "tier": "boundary_breach", "evidence": evidence},
                {"indicator_id": "X-001-02", "result": "not_matched", "evidence": "no match"}
            ],
            "evaluation_summary": {"matched": 1, "not_matched": 1, "error": 0, "skipped": 0}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn attacker_text_cannot_escape() {
        let verdict = verdict("</script><script>alert(1)</script>&amp;");
        let stats = TraceStats::new("t.jsonl");
        let runs = [
            HtmlRun::new(
                "<img src=x onerror=alert(1)>",
                Some("\"><script>alert(2)</script>"),
                "</script>.jsonl",
                RunOutcome::Verdict(&verdict, &stats),
            ),
            HtmlRun::new(
                "A-001",
                None,
                "u.jsonl",
                RunOutcome::Unreadable { reason: "gone" },
            ),
        ];
        let page = campaign_html("<b>bench</b>", &runs);
        // The only elements are the page's own: two scripts, no image.
        assert_eq!(page.matches("<script").count(), 2, "{page}");
        assert_eq!(page.matches("</script>").count(), 2, "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(!page.contains("<b>bench"), "{page}");
        assert!(
            page.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{page}"
        );
        assert!(
            page.contains("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"),
            "{page}"
        );
        // Nothing is fetched: no URL in the page but the CSP's absence of any.
        assert!(
            !page.contains("http:") && !page.contains("https:") && !page.contains("src=\""),
            "{page}"
        );
        // The data block is the runs as JSON: matched evidence only, the others counted.
        let start = page.find("application/json\">").unwrap_or(0) + "application/json\">".len();
        let end = start + page[start..].find("</script>").unwrap_or(0);
        let data: Value = serde_json::from_str(&page[start..end]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            data["runs"][0]["indicators"],
            json!([[
                "X-001-01",
                "matched",
                "boundary_breach",
                "</script><script>alert(1)</script>&amp;"
            ]])
        );
        assert_eq!(data["runs"][0]["others"], 1);
        assert_eq!(data["runs"][1]["diagnostic"], "cannot read u.jsonl: gone");
        assert_eq!(data["cells"], json!([[0, 0, [0]], [1, 1, [1]]]));
        // Cells coloured by worst tier; the missing cells marked.
        assert_eq!(page.matches("<td class=\"t3\">").count(), 1);
        assert_eq!(page.matches("<td class=\"error\">").count(), 1);
        assert_eq!(page.matches("<td class=\"none\">").count(), 2);
    }

    #[test]
    fn long_evidence_is_cut() {
        let long = "é".repeat(MAX_EVIDENCE_CHARS + 5);
        let cut_text = cut(&long);
        assert_eq!(
            cut_text.chars().count(),
            MAX_EVIDENCE_CHARS + "… (cut)".chars().count()
        );
        assert_eq!(cut("short"), "short");
    }
}
