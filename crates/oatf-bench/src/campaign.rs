//! A campaign of short real traces, as a red-team benchmark produces them: many runs of one
//! document against one trace of about 5 KB, written to a directory with the manifest of
//! `oatf evaluate --manifest` (docs/performance.md, "Round 4").
//!
//! The traces are the repository's examples (`examples/*.jsonl`: MCP, A2A and AG-UI conversations
//! of 3–6.5 KB), each copy with its own timestamps; the documents are the three example documents
//! and the library documents of the SDK's tests (`crates/oatf-sdk/tests/library`: regex, `contains`
//! and CEL indicators), each run pairing a trace with a document of its protocol. Every trace file
//! is in exactly one run, so the floor, "read every trace and parse each line into a
//! `serde_json::Value`" ([`floor`]), reads what the campaign reads.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The protocol of a trace or document, for pairing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Protocol {
    Mcp,
    A2a,
    AgUi,
}

/// The example traces: (file name, protocol, text).
const TRACES: [(&str, Protocol, &str); 8] = [
    (
        "mcp-tool-poisoning.complied",
        Protocol::Mcp,
        include_str!("../../../examples/mcp-tool-poisoning.complied.jsonl"),
    ),
    (
        "mcp-tool-poisoning.resisted",
        Protocol::Mcp,
        include_str!("../../../examples/mcp-tool-poisoning.resisted.jsonl"),
    ),
    (
        "mcp-tool-poisoning.untouched",
        Protocol::Mcp,
        include_str!("../../../examples/mcp-tool-poisoning.untouched.jsonl"),
    ),
    (
        "a2a-skill-poisoning.complied",
        Protocol::A2a,
        include_str!("../../../examples/a2a-skill-poisoning.complied.jsonl"),
    ),
    (
        "a2a-skill-poisoning.resisted",
        Protocol::A2a,
        include_str!("../../../examples/a2a-skill-poisoning.resisted.jsonl"),
    ),
    (
        "ag-ui-prompt-injection.complied",
        Protocol::AgUi,
        include_str!("../../../examples/ag-ui-prompt-injection.complied.jsonl"),
    ),
    (
        "ag-ui-prompt-injection.partial",
        Protocol::AgUi,
        include_str!("../../../examples/ag-ui-prompt-injection.partial.jsonl"),
    ),
    (
        "ag-ui-prompt-injection.resisted",
        Protocol::AgUi,
        include_str!("../../../examples/ag-ui-prompt-injection.resisted.jsonl"),
    ),
];

/// The documents: (file name, protocols it is paired with, text).
const DOCUMENTS: [(&str, &[Protocol], &str); 8] = [
    (
        "mcp-tool-poisoning.yaml",
        &[Protocol::Mcp],
        include_str!("../../../examples/mcp-tool-poisoning.yaml"),
    ),
    (
        "a2a-skill-poisoning.yaml",
        &[Protocol::A2a],
        include_str!("../../../examples/a2a-skill-poisoning.yaml"),
    ),
    (
        "ag-ui-prompt-injection.yaml",
        &[Protocol::AgUi],
        include_str!("../../../examples/ag-ui-prompt-injection.yaml"),
    ),
    (
        "regex-heavy-injection.yaml",
        &[Protocol::Mcp],
        include_str!("../../oatf-sdk/tests/library/regex-heavy-injection.yaml"),
    ),
    (
        "rug-pull-credential-harvest.yaml",
        &[Protocol::Mcp],
        include_str!("../../oatf-sdk/tests/library/rug-pull-credential-harvest.yaml"),
    ),
    (
        "a2a-card-spoofing.yaml",
        &[Protocol::A2a],
        include_str!("../../oatf-sdk/tests/library/a2a-card-spoofing.yaml"),
    ),
    (
        "ag-ui-approval-bypass.yaml",
        &[Protocol::AgUi],
        include_str!("../../oatf-sdk/tests/library/ag-ui-approval-bypass.yaml"),
    ),
    (
        "cross-protocol-exfil.yaml",
        &[Protocol::Mcp, Protocol::A2a, Protocol::AgUi],
        include_str!("../../oatf-sdk/tests/library/cross-protocol-exfil.yaml"),
    ),
];

/// Traces per directory (`traces/000/`, `traces/001/`, …).
const PER_DIRECTORY: usize = 1000;

/// A campaign written by [`write_campaign`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Campaign {
    /// The manifest: one entry (`document`, `trace`) per run.
    pub manifest: PathBuf,
    /// Every trace file, in run order.
    pub traces: Vec<PathBuf>,
    /// Bytes of all traces.
    pub bytes: u64,
}

/// The text of copy `copy` of an example trace: its timestamps moved to a day and minute of their
/// own, so that no two files are the same (the verdicts do not depend on them).
fn trace_copy(text: &str, copy: usize) -> String {
    let day = format!("2026-{:02}-{:02}T", 1 + copy % 12, 1 + (copy / 12) % 28);
    text.replace("2026-11-20T", &day)
}

/// The run `index` of a campaign: its trace template and its document.
fn run_of(index: usize) -> (usize, usize) {
    let trace = index % TRACES.len();
    let protocol = TRACES[trace].1;
    let documents: Vec<usize> = (0..DOCUMENTS.len())
        .filter(|d| DOCUMENTS[*d].1.contains(&protocol))
        .collect();
    let document = documents[(index / TRACES.len()) % documents.len()];
    (trace, document)
}

/// The path of run `index`'s trace, relative to the campaign's directory.
fn relative_trace(index: usize) -> String {
    let (trace, _) = run_of(index);
    format!(
        "traces/{:03}/{index:06}-{}.jsonl",
        index / PER_DIRECTORY,
        TRACES[trace].0
    )
}

/// The trace files of a campaign of `runs` runs that [`write_campaign`] wrote under `dir`, in run
/// order.
pub fn campaign_traces(dir: &Path, runs: usize) -> Vec<PathBuf> {
    (0..runs)
        .map(|index| dir.join(relative_trace(index)))
        .collect()
}

/// Writes a campaign of `runs` runs under `dir` (created; existing files are overwritten): the
/// documents, `traces/NNN/*.jsonl` and `manifest.yaml`.
///
/// # Errors
/// Any I/O error.
pub fn write_campaign(dir: &Path, runs: usize) -> std::io::Result<Campaign> {
    std::fs::create_dir_all(dir)?;
    for (name, _, text) in DOCUMENTS {
        std::fs::write(dir.join(name), text)?;
    }
    let mut manifest = String::from("# A generated campaign (oatf-bench, campaign.rs).\nruns:\n");
    let mut traces = Vec::with_capacity(runs);
    let mut bytes = 0u64;
    for index in 0..runs {
        let (trace, document) = run_of(index);
        let relative = relative_trace(index);
        if index % PER_DIRECTORY == 0 {
            std::fs::create_dir_all(dir.join(&relative).parent().unwrap_or(dir))?;
        }
        let text = trace_copy(TRACES[trace].2, index);
        bytes += text.len() as u64;
        let path = dir.join(&relative);
        std::fs::write(&path, text)?;
        traces.push(path);
        let _ = writeln!(
            manifest,
            "  - document: {}\n    trace: {relative}",
            DOCUMENTS[document].0
        );
    }
    let path = dir.join("manifest.yaml");
    std::fs::write(&path, manifest)?;
    Ok(Campaign {
        manifest: path,
        traces,
        bytes,
    })
}

/// The floor of a campaign: reads every trace whole and parses each non-empty line into a
/// `serde_json::Value`; returns the number of values (lines that are not JSON are skipped, as a
/// reader counts them).
///
/// # Errors
/// A file that cannot be read.
pub fn floor(traces: &[PathBuf]) -> std::io::Result<u64> {
    let mut values = 0u64;
    for path in traces {
        let text = std::fs::read_to_string(path)?;
        for line in text.lines() {
            if !line.trim().is_empty() && serde_json::from_str::<Value>(line).is_ok() {
                values += 1;
            }
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_trace_is_paired_with_a_document_of_its_protocol() {
        let mut used = [false; DOCUMENTS.len()];
        for index in 0..64 {
            let (trace, document) = run_of(index);
            assert!(DOCUMENTS[document].1.contains(&TRACES[trace].1));
            used[document] = true;
        }
        assert!(used.iter().all(|u| *u), "every document is used: {used:?}");
    }

    #[test]
    fn a_written_campaign_loads_and_its_traces_parse() {
        let dir = std::env::temp_dir().join(format!("oatf-bench-campaign-{}", std::process::id()));
        let campaign = write_campaign(&dir, 20).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(campaign.traces.len(), 20);
        assert_eq!(campaign_traces(&dir, 20), campaign.traces);
        let manifest =
            std::fs::read_to_string(&campaign.manifest).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(manifest.matches("- document: ").count(), 20);
        // About 5 KB a trace, and every line of every trace is a JSON value.
        assert!(
            (3_000..7_000).contains(&(campaign.bytes / 20)),
            "{}",
            campaign.bytes
        );
        let lines: usize = campaign
            .traces
            .iter()
            .map(|t| std::fs::read_to_string(t).map_or(0, |s| s.lines().count()))
            .sum();
        assert_eq!(floor(&campaign.traces).ok(), Some(lines as u64));
        for (name, _, text) in DOCUMENTS {
            assert!(oatf::load(text).is_ok(), "{name} loads");
        }
        // Copies differ from each other.
        let a = std::fs::read(&campaign.traces[0]).unwrap_or_default();
        let b = std::fs::read(&campaign.traces[8]).unwrap_or_default();
        assert_ne!(a, b);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
