//! What a campaign evaluates: the documents and the runs, from the arguments or a manifest (D-111,
//! D-114).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use oatf::trace::Compat;
use rayon::prelude::*;

use super::manifest_parts;
use crate::input::source::read_input;

/// Trace files a directory contributes: JSON Lines by extension.
const TRACE_EXTENSIONS: [&str; 2] = ["jsonl", "ndjson"];

/// One trace to evaluate against one document.
#[derive(Debug)]
pub(super) struct Run {
    pub(super) document: usize,
    pub(super) trace: PathBuf,
    /// The manifest's `group:` of the run (D-105).
    pub(super) group: Option<String>,
    /// The compatibility profile of the run (D-100).
    pub(super) compat: Compat,
}

/// What a campaign evaluates: the documents, and the runs that refer to them by index.
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub(super) documents: Vec<PathBuf>,
    /// The index of each document in `documents`: a manifest of one entry per run names its
    /// documents many times (D-111).
    index: HashMap<PathBuf, usize>,
    pub(super) runs: Vec<Run>,
}

/// A document's index, a trace argument, and the group and profile of its runs.
pub(super) type Pair = (usize, PathBuf, (Option<String>, Compat));

/// What a trace argument is: a file (or standard input), or a directory and its trace files.
enum Expansion {
    File,
    Directory(Result<Vec<PathBuf>, String>),
}

impl Plan {
    pub(super) fn document_index(&mut self, path: PathBuf) -> usize {
        if let Some(index) = self.index.get(&path) {
            return *index;
        }
        self.documents.push(path.clone());
        self.index.insert(path, self.documents.len() - 1);
        self.documents.len() - 1
    }

    /// Adds the runs of each `(document, trace)` in order: the file itself, or every trace file
    /// under a directory. The file system is asked in parallel: whether each trace is a directory,
    /// and the walk of each distinct directory (once, however many documents name it). The first
    /// error in order wins.
    pub(super) fn add_all(&mut self, pairs: &[Pair]) -> Result<(), String> {
        let is_dir: Vec<bool> = pairs
            .par_iter()
            .map(|(_, trace, _)| trace.as_os_str() != "-" && trace.is_dir())
            .collect();
        let mut directories: Vec<&Path> = pairs
            .iter()
            .zip(&is_dir)
            .filter(|(_, dir)| **dir)
            .map(|((_, trace, _), _)| trace.as_path())
            .collect();
        directories.sort();
        directories.dedup();
        let mut walked: HashMap<&Path, (usize, Result<Vec<PathBuf>, String>)> = directories
            .par_iter()
            .map(|dir| (*dir, (0, trace_files(dir))))
            .collect();
        for ((_, trace, _), dir) in pairs.iter().zip(&is_dir) {
            if let (true, Some((uses, _))) = (*dir, walked.get_mut(trace.as_path())) {
                *uses += 1;
            }
        }
        for ((document, trace, (group, compat)), dir) in pairs.iter().zip(is_dir) {
            let expansion = if dir {
                // The last use takes the list; earlier ones copy it.
                let found = match walked.get_mut(trace.as_path()) {
                    Some((1, _)) => walked.remove(trace.as_path()).map(|(_, found)| found),
                    Some((uses, found)) => {
                        *uses -= 1;
                        Some(found.clone())
                    }
                    None => None,
                };
                Expansion::Directory(found.unwrap_or_else(|| Ok(Vec::new())))
            } else {
                Expansion::File
            };
            match expansion {
                Expansion::File => self.runs.push(Run {
                    document: *document,
                    trace: trace.clone(),
                    group: group.clone(),
                    compat: *compat,
                }),
                Expansion::Directory(found) => {
                    let found = found?;
                    if found.is_empty() {
                        return Err(format!(
                            "no trace file (*.jsonl, *.ndjson) under {}",
                            trace.display()
                        ));
                    }
                    self.runs.extend(found.into_iter().map(|trace| Run {
                        document: *document,
                        trace,
                        group: group.clone(),
                        compat: *compat,
                    }));
                }
            }
        }
        Ok(())
    }
}

/// The trace files under `root`, sorted (the walk of `crate::input::walk`: hidden entries skipped,
/// links to directories not followed, depth bounded).
fn trace_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    crate::input::walk::walk(
        root,
        |_| false,
        |path| {
            if path
                .extension()
                .is_some_and(|e| TRACE_EXTENSIONS.iter().any(|t| e == *t))
            {
                found.push(path);
            }
        },
    )?;
    // In parallel: a directory of 100,000 traces takes a visible part of a campaign to sort.
    found.par_sort_unstable();
    Ok(found)
}

/// One entry of a manifest: a document and its traces (files or directories), relative to the
/// manifest.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestRun {
    document: PathBuf,
    #[serde(default)]
    trace: Option<PathBuf>,
    #[serde(default)]
    traces: Vec<PathBuf>,
    /// The group of these runs, for example the model that produced the traces (D-105).
    #[serde(default)]
    group: Option<String>,
    /// This run's compatibility profile; wins over the manifest's.
    #[serde(default)]
    compat: Option<CompatName>,
}

/// A compatibility profile's name in a manifest (D-100); an unknown one is an error at its line.
#[derive(Clone, Copy, Debug)]
struct CompatName(Compat);

impl<'de> serde::Deserialize<'de> for CompatName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse()
            .map(CompatName)
            .map_err(|e: oatf::trace::UnknownCompat| serde::de::Error::custom(e))
    }
}

/// A campaign manifest (`docs/guide.md`, "Campaigns").
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// The compatibility profile of every run that does not name its own; else `--compat`'s.
    #[serde(default)]
    compat: Option<CompatName>,
    runs: Vec<ManifestRun>,
}

/// Reads a manifest: a large one of the plain shape in parts on every core (D-114), the same
/// entries in the same order; any other, or one whose parts do not all read, whole.
fn parse_manifest(source: &str) -> Result<Manifest, serde_saphyr::Error> {
    if let Some(parts) = manifest_parts::split_runs(source, rayon::current_num_threads() * 4) {
        let read: Vec<Result<Manifest, serde_saphyr::Error>> = parts
            .par_iter()
            .map(|part| serde_saphyr::from_str_with_options(part, manifest_parts::options(part)))
            .collect();
        if read.iter().all(Result::is_ok) {
            // Every part repeats the keys before `runs:` (manifest_parts): the first part's are
            // the manifest's.
            let mut compat = None;
            let mut runs = Vec::new();
            for (index, manifest) in read.into_iter().flatten().enumerate() {
                if index == 0 {
                    compat = manifest.compat;
                }
                runs.extend(manifest.runs);
            }
            return Ok(Manifest { runs, compat });
        }
    }
    serde_saphyr::from_str_with_options(source, manifest_parts::options(source))
}

pub(super) fn plan_from_manifest(path: &PathBuf, compat: Compat) -> Result<Plan, String> {
    let (name, source) = read_input(path)?;
    let manifest =
        parse_manifest(&source).map_err(|e| format!("{name}: not a campaign manifest: {e}"))?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    let mut plan = Plan::default();
    let default = manifest.compat.map_or(compat, |c| c.0);
    let mut pairs = Vec::new();
    // An entry's own error comes after the runs of the entries before it are added (their
    // directories may fail first), as when each was added in turn.
    let mut entry_error = None;
    for (index, entry) in manifest.runs.into_iter().enumerate() {
        let compat = entry.compat.map_or(default, |c| c.0);
        let document = plan.document_index(base.join(&entry.document));
        let traces: Vec<PathBuf> = entry.trace.into_iter().chain(entry.traces).collect();
        if traces.is_empty() {
            entry_error = Some(format!(
                "{name}: runs[{index}] has no `trace` or `traces` for {}",
                entry.document.display()
            ));
            break;
        }
        if traces.iter().any(|trace| trace.as_os_str() == "-") {
            let before = traces.iter().take_while(|trace| trace.as_os_str() != "-");
            pairs.extend(
                before.map(|trace| (document, base.join(trace), (entry.group.clone(), compat))),
            );
            entry_error = Some(format!(
                "{name}: runs[{index}]: a manifest cannot name standard input"
            ));
            break;
        }
        pairs.extend(
            traces
                .iter()
                .map(|trace| (document, base.join(trace), (entry.group.clone(), compat))),
        );
    }
    plan.add_all(&pairs)?;
    if let Some(error) = entry_error {
        return Err(error);
    }
    if plan.runs.is_empty() {
        return Err(format!("{name}: the manifest has no runs"));
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_manifest() -> String {
        let mut text = String::from("runs:\n");
        for i in 0..12_000 {
            text.push_str(&format!(
                "  - document: \"d{}.yaml\"\n    trace: t/{i:06}.jsonl\n",
                i % 5
            ));
        }
        text
    }

    #[test]
    fn a_large_manifest_read_in_parts_reads_as_a_whole() {
        let text = big_manifest();
        assert!(manifest_parts::split_runs(&text, 8).is_some_and(|p| p.len() > 1));
        let whole: Result<Manifest, _> =
            serde_saphyr::from_str_with_options(&text, manifest_parts::options(&text));
        let parts = parse_manifest(&text);
        assert_eq!(format!("{parts:?}"), format!("{whole:?}"));
        assert_eq!(parts.map(|m| m.runs.len()).ok(), Some(12_000));
        // An error in one part is the error of the whole text, at its own line.
        let broken = text.replacen("    trace: t/009000.jsonl", "    trace: [t/009000.jsonl", 1);
        let whole: Result<Manifest, _> =
            serde_saphyr::from_str_with_options(&broken, manifest_parts::options(&broken));
        let parts = parse_manifest(&broken);
        assert!(whole.is_err());
        assert_eq!(
            parts.err().map(|e| e.to_string()),
            whole.err().map(|e| e.to_string())
        );
        // A top-level `compat:` before the runs is read from the parts too (D-251).
        let text = format!("compat: thoughtjack-context\n{text}");
        assert!(manifest_parts::split_runs(&text, 8).is_some_and(|p| p.len() > 1));
        let parts = parse_manifest(&text);
        assert!(
            matches!(
                parts
                    .as_ref()
                    .map(|m| (m.runs.len(), m.compat.map(|c| c.0))),
                Ok((12_000, Some(Compat::ThoughtjackContext)))
            ),
            "{:?}",
            parts.map(|m| m.compat)
        );
    }
}
