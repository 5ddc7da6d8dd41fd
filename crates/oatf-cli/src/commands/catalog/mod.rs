//! `oatf catalog [DIR...]`: checks a threat library (every document valid, attack ids unique, framework
//! ids canonical) and prints its index or the coverage of one framework.
//!
//! Diagnostics go to standard error as `file:line:column: error[RULE]: message`; the index or coverage
//! report goes to standard output, so `--format json` can be piped.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use oatf::model::NormalizedDocument;
use serde_json::{Value, json};

use crate::input::library::{self, LoadedDocument, Problem, load_all};
use crate::output::Output;

mod frameworks;

/// Arguments of `oatf catalog`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Directories (walked recursively) or documents; `*.test.yaml` files are skipped.
    #[arg(value_name = "DIR", default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format of the index: `table` (for people) or `json` (for tools).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Report which documents cover each entry of FRAMEWORK instead of the index.
    #[arg(long, value_name = "FRAMEWORK", value_parser = clap::builder::PossibleValuesParser::new(frameworks::KNOWN))]
    coverage: Option<String>,
    /// Fail (exit 1) on warnings too, such as non-canonical framework ids.
    #[arg(long)]
    strict: bool,
    /// No summary lines on stderr (the problems are still printed).
    #[arg(long, short)]
    quiet: bool,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// An aligned table.
    Table,
    /// JSON.
    Json,
    /// GitHub Actions workflow annotations for the errors and warnings, instead of the index.
    Github,
}

/// One document of the index.
struct Entry {
    id: Option<String>,
    name: String,
    file: String,
    severity: Option<(String, i64)>,
    status: String,
    category: Option<String>,
    tags: Vec<String>,
    protocols: Vec<String>,
    modes: Vec<String>,
    indicators: usize,
    /// Indicators per outcome tier (format §6.5): without tier, `ingested`, `local_action`,
    /// `boundary_breach`.
    tiers: [usize; 4],
    mappings: Vec<Mapping>,
}

/// The names of the slots of [`Entry::tiers`].
const TIER_SLOTS: [&str; 4] = ["none", "ingested", "local_action", "boundary_breach"];

/// The slot of an indicator's tier in [`Entry::tiers`] (an unknown value, V-050, counts as none).
fn tier_slot(indicator: &oatf::model::Indicator) -> usize {
    match indicator.tier.as_ref().and_then(|t| t.known()) {
        None => 0,
        Some(oatf::Tier::Ingested) => 1,
        Some(oatf::Tier::LocalAction) => 2,
        Some(oatf::Tier::BoundaryBreach) => 3,
    }
}

/// Tier counts as a JSON object (`{"ingested": 2, ...}`, `none` for indicators without a tier).
fn tiers_json(tiers: &[usize; 4]) -> Value {
    Value::Object(
        TIER_SLOTS
            .iter()
            .zip(tiers)
            .map(|(name, n)| ((*name).to_owned(), json!(n)))
            .collect(),
    )
}

struct Mapping {
    framework: String,
    id: String,
    written: String,
    name: Option<String>,
    relationship: String,
}

impl Entry {
    fn label(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.file)
    }

    /// The tiers the document's indicators use, highest first (`boundary_breach,ingested`).
    fn tier_list(&self) -> String {
        let used: Vec<&str> = (1..4)
            .rev()
            .filter(|&slot| self.tiers[slot] > 0)
            .map(|slot| TIER_SLOTS[slot])
            .collect();
        if used.is_empty() {
            "-".to_owned()
        } else {
            used.join(",")
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "file": self.file,
            "severity": self.severity.as_ref().map(|(level, confidence)| json!({"level": level, "confidence": confidence})),
            "status": self.status,
            "category": self.category,
            "tags": self.tags,
            "protocols": self.protocols,
            "modes": self.modes,
            "indicators": self.indicators,
            "tiers": tiers_json(&self.tiers),
            "mappings": self.mappings.iter().map(|m| {
                let mut v = json!({
                    "framework": m.framework,
                    "id": m.id,
                    "name": m.name,
                    "relationship": m.relationship,
                });
                if m.written != m.id && let Some(o) = v.as_object_mut() {
                    o.insert("written_id".to_owned(), json!(m.written));
                }
                v
            }).collect::<Vec<_>>(),
        })
    }
}

fn index_entry(loaded: &LoadedDocument, problems: &mut Vec<Problem>) -> Entry {
    let attack = loaded.document.attack.clone().unwrap_or_default();
    let view = NormalizedDocument::check(&loaded.document).ok();
    let mut modes = Vec::new();
    let mut protocols = Vec::new();
    if let Some(view) = &view {
        for actor in view.actors() {
            let phase_modes = actor.phases.iter().filter_map(|p| p.mode.as_deref());
            for mode in std::iter::once(actor.mode.as_str()).chain(phase_modes) {
                if !modes.iter().any(|m| m == mode) {
                    modes.push(mode.to_owned());
                }
                let protocol = oatf::primitives::extract_protocol(mode);
                if !protocols.iter().any(|p| p == protocol) {
                    protocols.push(protocol.to_owned());
                }
            }
        }
        for indicator in view.indicators() {
            let protocol = indicator.protocol();
            if !protocol.is_empty() && !protocols.iter().any(|p| p == protocol) {
                protocols.push(protocol.to_owned());
            }
        }
    }
    let classification = attack.classification.clone().unwrap_or_default();
    let mut mappings = Vec::new();
    for (index, mapping) in classification.mappings.iter().flatten().enumerate() {
        let at = format!("attack.classification.mappings[{index}]");
        if let Some(known) = frameworks::framework_spelling(&mapping.framework) {
            problems.push(warning(
                loaded,
                &format!("{at}.framework"),
                format!(
                    "framework `{}` is read as `other` (format §4.5): did you mean `{known}`?",
                    mapping.framework
                ),
            ));
        }
        let canonical = frameworks::canonicalize(&mapping.framework, &mapping.id);
        if let Some(message) = canonical.warning {
            problems.push(warning(loaded, &format!("{at}.id"), message));
        }
        mappings.push(Mapping {
            framework: mapping.framework.clone(),
            id: canonical.id,
            written: mapping.id.clone(),
            name: mapping.name.clone(),
            relationship: mapping
                .relationship
                .as_ref()
                .map_or("primary", |r| r.as_str())
                .to_owned(),
        });
    }
    Entry {
        id: attack.id.clone(),
        name: view.as_ref().map_or("Untitled", |v| v.name()).to_owned(),
        file: loaded.file.clone(),
        severity: view
            .as_ref()
            .and_then(NormalizedDocument::severity)
            .map(|s| (s.level.as_str().to_owned(), s.confidence.unwrap_or(50))),
        status: view
            .as_ref()
            .map_or_else(|| "draft".to_owned(), |v| v.status().as_str().to_owned()),
        category: classification.category.map(|c| c.as_str().to_owned()),
        tags: classification.tags.unwrap_or_default(),
        protocols,
        modes,
        indicators: loaded.document.indicators().len(),
        tiers: loaded
            .document
            .indicators()
            .iter()
            .fold([0; 4], |mut tiers, indicator| {
                tiers[tier_slot(indicator)] += 1;
                tiers
            }),
        mappings,
    }
}

fn warning(loaded: &LoadedDocument, path: &str, message: String) -> Problem {
    Problem {
        file: loaded.file.clone(),
        line: loaded.line_of(path),
        column: None,
        code: None,
        message: format!("{message} (at `{path}`)"),
        warning: true,
    }
}

pub(crate) fn run(args: Args, out: &mut Output<'_>) -> u8 {
    let library = match library::discover(&args.paths) {
        Ok(library) => library,
        Err(message) => {
            eprintln!("error: {}", crate::render::safe_text::escape(&message));
            return 2;
        }
    };
    let mut problems: Vec<Problem> = Vec::new();
    let mut entries = Vec::new();
    let mut invalid = 0usize;
    let mut failed: Vec<String> = Vec::new();
    let mut first_seen: HashMap<String, (String, Option<usize>)> = HashMap::new();
    for loaded in load_all(&library.documents) {
        let loaded = match loaded {
            Ok(loaded) => loaded,
            Err(errors) => {
                invalid += 1;
                if let Some(first) = errors.first() {
                    failed.push(first.file.clone());
                }
                problems.extend(errors);
                continue;
            }
        };
        problems.extend(loaded.warnings.iter().cloned());
        let entry = index_entry(&loaded, &mut problems);
        if let Some(id) = &entry.id {
            let line = loaded.line_of("attack.id");
            match first_seen.get(id) {
                Some((file, first_line)) => problems.push(Problem {
                    file: loaded.file.clone(),
                    line,
                    column: None,
                    code: None,
                    message: format!(
                        "duplicate attack id `{id}`: also in {file}{} (at `attack.id`)",
                        first_line.map(|l| format!(":{l}")).unwrap_or_default()
                    ),
                    warning: false,
                }),
                None => {
                    first_seen.insert(id.clone(), (loaded.file.clone(), line));
                }
            }
        }
        entries.push(entry);
    }
    let errors = problems.iter().filter(|p| !p.warning).count();
    let warnings = problems.len() - errors;
    for problem in &problems {
        if args.format == Format::Github && args.coverage.is_none() {
            out.write(&problem.annotation());
        } else {
            eprintln!(
                "{}",
                crate::render::safe_text::escape_keep_lines(&problem.to_string())
            );
        }
    }
    let tier_counts = entries.iter().fold([0; 4], |mut sum, e| {
        for (total, n) in sum.iter_mut().zip(e.tiers) {
            *total += n;
        }
        sum
    });
    match (&args.coverage, args.format) {
        (Some(framework), format) => coverage(framework, &entries, &failed, format, out),
        (None, Format::Json) => {
            let index: Vec<Value> = entries.iter().map(Entry::to_json).collect();
            let text = serde_json::to_string_pretty(&json!({
                "documents": index,
                "failed_to_load": failed,
                "tier_counts": tiers_json(&tier_counts),
            }))
            .unwrap_or_else(|_| "{}".to_owned());
            out.write(&text);
            out.write("\n");
        }
        (None, Format::Table) => table(&entries, &failed, out),
        (None, Format::Github) => {}
    }
    if args.quiet {
        return u8::from(errors > 0 || (args.strict && warnings > 0));
    }
    eprintln!(
        "{} document{}, {invalid} invalid, {errors} error{}, {warnings} warning{}",
        library.documents.len(),
        crate::render::plural(library.documents.len()),
        crate::render::plural(errors),
        crate::render::plural(warnings),
    );
    eprintln!(
        "indicator tiers: {} ingested, {} local_action, {} boundary_breach, {} without tier",
        tier_counts[1], tier_counts[2], tier_counts[3], tier_counts[0]
    );
    if !library.other_yaml.is_empty() {
        eprintln!(
            "note: skipped {} YAML file{} without a top-level `oatf` or `attack` key",
            library.other_yaml.len(),
            crate::render::plural(library.other_yaml.len())
        );
    }
    u8::from(errors > 0 || (args.strict && warnings > 0))
}

fn table(entries: &[Entry], failed: &[String], out: &mut Output<'_>) {
    let rows: Vec<[String; 8]> = entries
        .iter()
        .map(|e| {
            [
                e.id.clone().unwrap_or_else(|| "-".to_owned()),
                e.severity
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |(l, _)| l.clone()),
                e.status.clone(),
                e.category.clone().unwrap_or_else(|| "-".to_owned()),
                e.modes.join(","),
                e.tier_list(),
                e.file.clone(),
                e.name.clone(),
            ]
        })
        .chain(failed.iter().map(|file| {
            [
                "-".to_owned(),
                "-".to_owned(),
                "FAILED TO LOAD".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
                "-".to_owned(),
                file.clone(),
                "(see the errors above)".to_owned(),
            ]
        }))
        .collect();
    let header = [
        "ID", "SEVERITY", "STATUS", "CATEGORY", "MODES", "TIERS", "FILE", "NAME",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 8]| {
        let mut text = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  "));
            }
        }
        text.push('\n');
        text
    };
    // Ids, names and file names are attacker text: controls escaped.
    let safe = |text: String| crate::render::safe_text::escape_keep_lines(&text).into_owned();
    out.write(&safe(line(header)));
    for row in &rows {
        out.write(&safe(line(row.each_ref().map(String::as_str))));
    }
}

/// A sort key that orders the numbers inside ids by value (`CWE-74` before `CWE-200`).
fn natural_key(id: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut number: Option<u64> = None;
    for c in id.chars() {
        match (c.to_digit(10), number) {
            (Some(d), n) => {
                number = Some(
                    n.unwrap_or(0)
                        .saturating_mul(10)
                        .saturating_add(u64::from(d)),
                )
            }
            (None, Some(n)) => {
                key.push((std::mem::take(&mut text), n));
                number = None;
                text.push(c);
            }
            (None, None) => text.push(c),
        }
    }
    key.push((text, number.unwrap_or(0)));
    key
}

/// One covering document of an entry.
struct Cover<'a> {
    entry: &'a Entry,
    mapping: &'a Mapping,
}

fn coverage(
    framework: &str,
    entries: &[Entry],
    failed: &[String],
    format: Format,
    out: &mut Output<'_>,
) {
    let mut covered: BTreeMap<&str, Vec<Cover<'_>>> = BTreeMap::new();
    for entry in entries {
        for mapping in entry.mappings.iter().filter(|m| m.framework == framework) {
            covered
                .entry(mapping.id.as_str())
                .or_default()
                .push(Cover { entry, mapping });
        }
    }
    let list = frameworks::entry_list(framework);
    // Rows: every listed entry in list order, then ids documents use that the list lacks.
    let mut rows: Vec<(String, Option<String>, bool)> = Vec::new();
    if let Some(list) = &list {
        for known in &list.entries {
            rows.push((known.id.clone(), known.title.clone(), true));
        }
    }
    let mut used: Vec<&str> = covered.keys().copied().collect();
    used.sort_by_key(|id| natural_key(id));
    for id in used {
        if !rows.iter().any(|(known, _, _)| known == id) {
            rows.push((id.to_owned(), None, list.is_none()));
        }
    }
    for covers in covered.values_mut() {
        covers.sort_by_key(|a| natural_key(a.entry.label()));
    }
    let title_of = |id: &str, shipped: &Option<String>| {
        shipped.clone().or_else(|| {
            covered
                .get(id)
                .and_then(|c| c.iter().find_map(|c| c.mapping.name.clone()))
        })
    };
    let uncovered: Vec<&str> = rows
        .iter()
        .filter(|(id, _, listed)| *listed && !covered.contains_key(id.as_str()))
        .map(|(id, _, _)| id.as_str())
        .collect();
    let unlisted: Vec<&str> = rows
        .iter()
        .filter(|(_, _, listed)| !listed)
        .map(|(id, _, _)| id.as_str())
        .collect();
    if format == Format::Json {
        let json_rows: Vec<Value> = rows
            .iter()
            .map(|(id, title, listed)| {
                let documents: Vec<Value> = covered
                    .get(id.as_str())
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        json!({
                            "id": c.entry.id,
                            "file": c.entry.file,
                            "relationship": c.mapping.relationship,
                        })
                    })
                    .collect();
                json!({
                    "id": id,
                    "title": title_of(id, title),
                    "listed": listed,
                    "documents": documents,
                })
            })
            .collect();
        let report = json!({
            "framework": framework,
            "title": list.as_ref().map(|l| l.title.clone()),
            "entries": json_rows,
            "uncovered": uncovered,
            "unlisted": unlisted,
            "failed_to_load": failed,
        });
        out.write(&serde_json::to_string_pretty(&report).unwrap_or_else(|_| "{}".to_owned()));
        out.write("\n");
        return;
    }
    let mut text = match &list {
        Some(list) => format!("{framework}: {}\n", list.title),
        None => format!("{framework}: entries used by the documents (no shipped entry list)\n"),
    };
    let id_width = rows.iter().map(|(id, _, _)| id.len()).max().unwrap_or(0);
    let titles: Vec<String> = rows
        .iter()
        .map(|(id, title, _)| title_of(id, title).unwrap_or_else(|| "-".to_owned()))
        .collect();
    let title_width = titles.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    for ((id, _, listed), title) in rows.iter().zip(&titles) {
        let documents: Vec<String> = covered
            .get(id.as_str())
            .into_iter()
            .flatten()
            .map(|c| {
                let related = if c.mapping.relationship == "related" {
                    " (related)"
                } else {
                    ""
                };
                format!("{}{related}", c.entry.label())
            })
            .collect();
        let documents = if documents.is_empty() {
            "-".to_owned()
        } else {
            documents.join(", ")
        };
        let marker = if *listed || list.is_none() {
            ""
        } else {
            "  [not in the shipped list]"
        };
        text.push_str(&format!(
            "  {id:<id_width$}  {title:<title_width$}  {documents}{marker}\n"
        ));
    }
    if let Some(list) = &list {
        text.push_str(&format!(
            "{} of {} entries covered",
            list.entries.len() - uncovered.len(),
            list.entries.len()
        ));
        if uncovered.is_empty() {
            text.push('\n');
        } else {
            text.push_str(&format!("; no document covers {}\n", uncovered.join(", ")));
        }
    } else {
        text.push_str(&format!("{} entries covered\n", rows.len()));
    }
    if !failed.is_empty() {
        text.push_str(&format!(
            "{} document{} failed to load and {} not counted: {}\n",
            failed.len(),
            crate::render::plural(failed.len()),
            if failed.len() == 1 { "is" } else { "are" },
            failed.join(", ")
        ));
    }
    out.write(&crate::render::safe_text::escape_keep_lines(&text));
}
