//! What a campaign evaluates: the documents and the runs, from the arguments or a manifest (D-111,
//! D-114).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use oatf::trace::Compat;
use rayon::prelude::*;

use super::{manifest_parts, manifest_plain};
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
    /// error in order wins. `pairs` come in parts, one after the other; without directories the runs
    /// are made in parallel, each written in its place (D-213).
    pub(super) fn add_all(&mut self, pairs: Vec<Vec<Pair>>) -> Result<(), String> {
        let is_dir: Vec<Vec<bool>> = pairs
            .par_iter()
            .map(|part| {
                part.par_iter()
                    .map(|(_, trace, _)| trace.as_os_str() != "-" && trace.is_dir())
                    .collect()
            })
            .collect();
        if !is_dir.iter().flatten().any(|dir| *dir) {
            self.runs.reserve(pairs.iter().map(Vec::len).sum());
            for part in pairs {
                let runs = part
                    .into_par_iter()
                    .map(|(document, trace, (group, compat))| Run {
                        document,
                        trace,
                        group,
                        compat,
                    });
                self.runs.par_extend(runs);
            }
            return Ok(());
        }
        let pairs: Vec<Pair> = pairs.into_iter().flatten().collect();
        let is_dir: Vec<bool> = is_dir.into_iter().flatten().collect();
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

impl Manifest {
    /// The manifest of `source`: read directly when it has the plainest shape (D-301), else by
    /// serde-saphyr; the same manifest either way.
    fn read(source: &str) -> Result<Manifest, serde_saphyr::Error> {
        match Self::plain(source) {
            Some(manifest) => Ok(manifest),
            None => serde_saphyr::from_str_with_options(source, manifest_parts::options(source)),
        }
    }

    /// The manifest of a text of the plain shape ([`manifest_plain`]) whose profiles are all known.
    fn plain(source: &str) -> Option<Manifest> {
        let plain = manifest_plain::read(source)?;
        let compat = |name: Option<&str>| match name {
            Some(name) => name.parse().ok().map(|c| Some(CompatName(c))),
            None => Some(None),
        };
        let runs = plain
            .runs
            .into_iter()
            .map(|run| {
                Some(ManifestRun {
                    document: PathBuf::from(run.document),
                    trace: Some(PathBuf::from(run.trace)),
                    traces: Vec::new(),
                    group: run.group.map(str::to_owned),
                    compat: compat(run.compat)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Manifest {
            compat: compat(plain.compat)?,
            runs,
        })
    }
}

/// Reads a manifest: a large one of the plain shape in parts on every core (D-114), the same
/// entries in the same order (the parts' entries one after the other); any other, or one whose parts
/// do not all read, whole (one part).
fn parse_manifest(
    source: &str,
) -> Result<(Vec<Vec<ManifestRun>>, Option<CompatName>), serde_saphyr::Error> {
    if let Some((head, parts)) =
        manifest_parts::split_runs(source, rayon::current_num_threads() * 4)
    {
        let read: Vec<Result<Manifest, serde_saphyr::Error>> = parts
            .par_iter()
            .map(|part| {
                let part = manifest_parts::part_manifest(head, part);
                Manifest::read(&part)
            })
            .collect();
        if read.iter().all(Result::is_ok) {
            let manifests: Vec<Manifest> = read.into_iter().flatten().collect();
            // Every part repeats the manifest's head, its keys before `runs:` (D-251): the first
            // part's are the manifest's.
            let compat = manifests.first().and_then(|m| m.compat);
            return Ok((manifests.into_iter().map(|m| m.runs).collect(), compat));
        }
    }
    let manifest = Manifest::read(source)?;
    Ok((vec![manifest.runs], manifest.compat))
}

/// Why a manifest entry gives no runs of its own.
enum Problem {
    /// It names no trace (its document as the manifest names it).
    NoTraces(PathBuf),
    /// It names standard input; its traces before `-` are kept.
    Stdin,
}

/// A manifest entry made ready on a worker (D-213): its document's index in its part, its traces
/// joined to the manifest's directory, its group and profile.
struct Entry {
    document: usize,
    traces: Vec<PathBuf>,
    group: Option<String>,
    compat: Compat,
    problem: Option<Problem>,
}

/// The entries of one part of a manifest, and the documents they name, joined to the manifest's
/// directory, in the order they first appear.
struct PartPlan {
    documents: Vec<PathBuf>,
    entries: Vec<Entry>,
}

fn part_plan(runs: Vec<ManifestRun>, base: &Path, default: Compat) -> PartPlan {
    let mut documents = Vec::new();
    let mut index: HashMap<PathBuf, usize> = HashMap::new();
    let entries = runs
        .into_iter()
        .map(|entry| {
            let document = match index.get(&entry.document) {
                Some(document) => *document,
                None => {
                    documents.push(base.join(&entry.document));
                    index.insert(entry.document.clone(), documents.len() - 1);
                    documents.len() - 1
                }
            };
            let compat = entry.compat.map_or(default, |c| c.0);
            let named: Vec<PathBuf> = entry.trace.into_iter().chain(entry.traces).collect();
            let stdin = named.iter().any(|trace| trace.as_os_str() == "-");
            let problem = if named.is_empty() {
                Some(Problem::NoTraces(entry.document))
            } else if stdin {
                Some(Problem::Stdin)
            } else {
                None
            };
            let traces = named
                .iter()
                .take_while(|trace| trace.as_os_str() != "-")
                .map(|trace| base.join(trace))
                .collect();
            Entry {
                document,
                traces,
                group: entry.group,
                compat,
                problem,
            }
        })
        .collect();
    PartPlan { documents, entries }
}

pub(super) fn plan_from_manifest(path: &PathBuf, compat: Compat) -> Result<Plan, String> {
    let (name, source) = read_input(path)?;
    let (parts, manifest_compat) =
        parse_manifest(&source).map_err(|e| format!("{name}: not a campaign manifest: {e}"))?;
    drop(source);
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    let default = manifest_compat.map_or(compat, |c| c.0);
    // Each part's entries joined and indexed on a worker; only the parts' few documents are
    // merged here, in order (D-213).
    let parts: Vec<PartPlan> = parts
        .into_par_iter()
        .map(|runs| part_plan(runs, base, default))
        .collect();
    let mut plan = Plan::default();
    let documents: Vec<Vec<usize>> = parts
        .iter()
        .map(|part| {
            part.documents
                .iter()
                .map(|d| plan.document_index(d.clone()))
                .collect()
        })
        .collect();
    // The first entry in order that gives no runs of its own: the runs of the entries before it
    // (and its own traces before `-`) are added first, as when each entry was added in turn, so
    // that their directories may fail first.
    let mut entry_error = None;
    let mut end = (parts.len(), 0);
    let mut index = 0;
    'parts: for (p, part) in parts.iter().enumerate() {
        for (e, entry) in part.entries.iter().enumerate() {
            if let Some(problem) = &entry.problem {
                entry_error = Some(match problem {
                    Problem::NoTraces(document) => format!(
                        "{name}: runs[{index}] has no `trace` or `traces` for {}",
                        document.display()
                    ),
                    Problem::Stdin => {
                        format!("{name}: runs[{index}]: a manifest cannot name standard input")
                    }
                });
                end = (p, e);
                break 'parts;
            }
            index += 1;
        }
    }
    let pairs: Vec<Vec<Pair>> = parts
        .into_par_iter()
        .zip(documents)
        .enumerate()
        .filter(|(p, _)| *p <= end.0)
        .map(|(p, (part, documents))| {
            // The failing entry's own traces (before `-`) are its runs too.
            let take = if p == end.0 { end.1 + 1 } else { usize::MAX };
            part.entries
                .into_iter()
                .take(take)
                .flat_map(move |entry| {
                    let document = documents.get(entry.document).copied().unwrap_or(0);
                    let (group, compat) = (entry.group, entry.compat);
                    entry
                        .traces
                        .into_iter()
                        .map(move |trace| (document, trace, (group.clone(), compat)))
                })
                .collect()
        })
        .collect();
    plan.add_all(pairs)?;
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

    /// The manifest serde-saphyr reads from `text`, or its error, as text.
    fn saphyr(text: &str) -> String {
        let read: Result<Manifest, _> =
            serde_saphyr::from_str_with_options(text, manifest_parts::options(text));
        format!("{read:?}")
    }

    /// The plain reader (D-301) and serde-saphyr read the same manifest from every text the plain
    /// reader takes, and the plain reader takes the generated shape.
    #[test]
    fn a_plain_manifest_reads_as_the_yaml_reader_reads_it() {
        let mut taken = 0;
        let groups = [
            "gpt-4o",
            "claude_3.5",
            "a/b",
            "yes-man",
            "Y2K",
            "nullable",
            "x1",
            "_",
            "/abs",
            "e5",
            "inf",
            "nan",
            "NaN",
            "Off-grid",
            "1/2",
            "./m",
        ];
        let plain = big_manifest().replace('"', "");
        let mut texts = vec![plain.clone()];
        for group in groups {
            texts.push(format!(
                "# head\n\ncompat: thoughtjack-context\nruns:\n- document: a.yaml\n  trace: t/1.jsonl\n  \
                 group: {group}\n  compat: spec-exact\n# note\n- trace: ../u.jsonl\n  document: b/c.yaml\n"
            ));
        }
        for bad in [
            "    compat: nope\n",
            "    group: null\n",
            "    group: 12\n",
            "    group: ~\n",
        ] {
            texts.push(format!(
                "runs:\n  - document: a.yaml\n    trace: t.jsonl\n{bad}"
            ));
        }
        for text in &texts {
            if Manifest::plain(text).is_some() {
                taken += 1;
            }
            assert_eq!(
                format!("{:?}", Manifest::read(text)),
                saphyr(text),
                "{text}"
            );
        }
        assert!(Manifest::plain(&plain).is_some());
        assert_eq!(taken, 1 + groups.len(), "the plain texts are read directly");
    }

    /// Generated texts near the plain shape (values mixing the characters YAML gives a meaning to,
    /// keys in any order, other indentations, comments, blank lines, line ends, markers): every text
    /// the plain reader takes reads as serde-saphyr reads it (D-301), and enough are taken for the
    /// comparison to mean something.
    #[test]
    fn generated_manifests_read_as_the_yaml_reader_reads_them() {
        // xorshift64: the same texts on every run.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap_or(0)
        };
        let pieces = [
            "a", "Z", "0", "9", ".", "/", "-", "_", "e", "x", "n", "y", "1e3", "0x", "~", ":",
            ": ", "#", " #", " ", "'", "\"", "*", "&", "!", "%", "@", "`", "|", ">", "{", "[", ",",
            "?", "null", "true", "No", "on", ".inf", "NaN", "é",
        ];
        let keys = [
            "document", "trace", "group", "compat", "traces", "bogus", "trace ",
        ];
        let (mut taken, total) = (0, 3_000);
        for _ in 0..total {
            let mut text = String::new();
            if next(20) == 0 {
                text.push_str("---\n");
            }
            if next(3) == 0 {
                text.push_str("# head\n\n");
            }
            if next(4) == 0 {
                text.push_str(
                    [
                        "compat: spec-exact\n",
                        "compat: thoughtjack-context\n",
                        "compat: x\n",
                    ][next(3)],
                );
            }
            text.push_str("runs:\n");
            let indent = [0, 2, 4][next(3)];
            for _ in 0..=next(3) {
                let mut fields = vec!["document", "trace"];
                if next(2) == 0 {
                    fields.push("group");
                }
                if next(12) == 0 {
                    fields.push(keys[next(keys.len())]);
                }
                for at in (1..fields.len()).rev() {
                    fields.swap(at, next(at + 1));
                }
                for (i, key) in fields.iter().enumerate() {
                    let value: String = if next(8) == 0 {
                        (0..=next(4)).map(|_| pieces[next(pieces.len())]).collect()
                    } else {
                        [
                            "a.yaml",
                            "t/1.jsonl",
                            "gpt-4o",
                            "../u.jsonl",
                            "/abs/x",
                            "1/2",
                        ][next(6)]
                        .to_owned()
                    };
                    let pad = if i == 0 {
                        indent
                    } else {
                        indent + if next(20) == 0 { [1, 3][next(2)] } else { 2 }
                    };
                    let lead = if i == 0 { "- " } else { "" };
                    let end = if next(20) == 0 {
                        ["\r\n", " \n"][next(2)]
                    } else {
                        "\n"
                    };
                    text.push_str(&format!("{}{lead}{key}: {value}{end}", " ".repeat(pad)));
                    if next(20) == 0 {
                        text.push_str(["\n", "# c\n", "  # c\n", "...\n"][next(4)]);
                    }
                }
            }
            if Manifest::plain(&text).is_some() {
                taken += 1;
            }
            assert_eq!(
                format!("{:?}", Manifest::read(&text)),
                saphyr(&text),
                "{text:?}"
            );
        }
        assert!(
            taken * 10 > total,
            "only {taken} of {total} texts were of the plain shape"
        );
    }

    #[test]
    fn a_large_manifest_read_in_parts_reads_as_a_whole() {
        let text = big_manifest();
        assert!(manifest_parts::split_runs(&text, 8).is_some_and(|(_, p)| p.len() > 1));
        let whole: Result<Manifest, _> =
            serde_saphyr::from_str_with_options(&text, manifest_parts::options(&text));
        let (parts, compat) = parse_manifest(&text).unwrap_or_default();
        assert!(parts.len() > 1 && compat.is_none());
        let parts: Vec<ManifestRun> = parts.into_iter().flatten().collect();
        assert_eq!(
            format!("{parts:?}"),
            format!("{:?}", whole.map(|m| m.runs).unwrap_or_default())
        );
        assert_eq!(parts.len(), 12_000);
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
        assert!(manifest_parts::split_runs(&text, 8).is_some_and(|(_, p)| p.len() > 1));
        let (parts, compat) = parse_manifest(&text).unwrap_or_default();
        assert!(parts.len() > 1);
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), 12_000);
        assert!(
            matches!(compat, Some(CompatName(Compat::ThoughtjackContext))),
            "{compat:?}"
        );
    }
}
