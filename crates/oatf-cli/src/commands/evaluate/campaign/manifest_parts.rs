//! A large manifest read in parts, in parallel (D-114): a manifest of one entry per run has as many
//! entries as the campaign has runs, and reading 100,000 entries on one thread took a third of
//! the campaign's time on 16 cores.
//!
//! Only the plain shape is split: comment, blank or unindented lines (top-level keys on one line,
//! such as `compat: thoughtjack-context`), then `runs:` at the start of a line, then lines that are
//! blank, comments, or indented, the entries starting with `- ` at one indentation. Each part is
//! those first lines, `runs:` and a run of whole entries, read as a manifest of its own; the caller
//! keeps the parts only when every one reads, and otherwise reads the whole text, so that an error
//! is the one the whole text gives, at its own line.
//!
//! A manifest is as large as its campaign: its YAML budget grows with its size ([`options`], D-251).

/// Manifests shorter than this are read whole: splitting would not pay.
pub(super) const SPLIT_FROM_BYTES: usize = 256 * 1024;

/// Parts of about this many bytes at least.
const PART_BYTES: usize = 64 * 1024;

/// The manifest `source` cut into its head (the lines up to and with `runs:`) and runs of
/// consecutive whole entries, each read as a manifest of its own once the head is put before it
/// ([`part_manifest`]), or `None` when it is not of the plain shape or too small to split. The parts
/// are slices of `source`: each is copied by the worker that reads it, not here on the main thread
/// (D-213).
pub(super) fn split_runs(source: &str, parts: usize) -> Option<(&str, Vec<&str>)> {
    if source.len() < SPLIT_FROM_BYTES || parts < 2 {
        return None;
    }
    let mut offset = 0;
    let mut body = None;
    for line in source.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        offset += line.len();
        if text == "runs:" {
            body = Some(offset);
            break;
        }
        // Before `runs:`, other top-level keys on one line each (an indented line may continue a
        // value over several lines: read whole); no document or directive markers (D-251).
        if !(text.trim().is_empty() || text.starts_with('#'))
            && (text.starts_with([' ', '\t', '-', '%']) || text.starts_with("..."))
        {
            return None;
        }
    }
    let (head, body) = source.split_at(body?);
    // The entries' indentation: that of the first `- ` line.
    let first = body
        .split('\n')
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))?;
    let indent = first.len() - first.trim_start_matches(' ').len();
    if indent == 0 || !first[indent..].starts_with("- ") {
        return None;
    }
    let target = (body.len() / parts).max(PART_BYTES);
    let mut chunks = Vec::with_capacity(parts + 1);
    let mut start = 0;
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        // Nothing but entries after `runs:`: another top-level key, a document marker or a tab-
        // indented line leave the text to be read whole.
        if !blank && !line.starts_with(' ') && !line.starts_with('#') {
            return None;
        }
        let entry = line.len() > indent
            && line.as_bytes()[..indent].iter().all(|b| *b == b' ')
            && line[indent..].starts_with("- ");
        if entry && at - start >= target {
            chunks.push(&body[start..at]);
            start = at;
        }
        at += line.len();
    }
    chunks.push(&body[start..]);
    (chunks.len() > 1).then_some((head, chunks))
}

/// A part of [`split_runs`] as a manifest of its own: the manifest's head, then the part.
pub(super) fn part_manifest(head: &str, part: &str) -> String {
    let mut manifest = String::with_capacity(head.len() + part.len());
    manifest.push_str(head);
    manifest.push_str(part);
    manifest
}

/// How a manifest of `source` is read: serde-saphyr's defaults, with the limits that count what
/// a document holds (events, nodes, scalar text) raised to what `source` itself can hold, so that
/// a manifest of any number of runs reads while an alias can at most double it (D-251). The
/// defaults stop at 250,000 nodes: a manifest of about 35,000 runs.
pub(super) fn options(source: &str) -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    let budget = options.budget.get_or_insert_with(Default::default);
    // An event, a node, a byte of scalar text: each takes at least a byte of the text, but for
    // the empty scalars of `key:` and the ends of collections (two events for `a:`).
    let size = source.len().saturating_mul(2).saturating_add(64);
    budget.max_events = budget.max_events.max(size);
    budget.max_nodes = budget.max_nodes.max(size);
    budget.max_total_scalar_bytes = budget.max_total_scalar_bytes.max(source.len());
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(entries: usize) -> String {
        let mut text = String::from("# generated\n\nruns:\n");
        for i in 0..entries {
            text.push_str(&format!(
                "  - document: d{}.yaml\n    traces:\n      - t/{i:06}.jsonl\n      # note\n",
                i % 7
            ));
        }
        text
    }

    #[test]
    fn parts_are_whole_entries_in_order() {
        let text = manifest(20_000);
        let (head, parts) = split_runs(&text, 8).unwrap_or_default();
        assert!(parts.len() >= 2, "{}", parts.len());
        assert_eq!(head, "# generated\n\nruns:\n");
        let joined: String = parts.concat();
        assert_eq!(format!("{head}{joined}"), text);
        for part in &parts {
            let part = part_manifest(head, part);
            assert!(
                part.starts_with("# generated\n\nruns:\n  - document: "),
                "{}",
                &part[..40]
            );
        }
    }

    #[test]
    fn top_level_keys_before_the_runs_are_in_every_part() {
        let text = manifest(20_000).replacen(
            "\nruns:\n",
            "\ncompat: thoughtjack-context # all\n\nruns:\n",
            1,
        );
        let (head, parts) = split_runs(&text, 8).unwrap_or_default();
        assert!(parts.len() >= 2, "{}", parts.len());
        assert_eq!(
            head,
            "# generated\n\ncompat: thoughtjack-context # all\n\nruns:\n"
        );
        assert_eq!(format!("{head}{}", parts.concat()), text);
    }

    #[test]
    fn the_budget_grows_with_the_manifest() {
        // 200,000 runs in 25,000 entries: more than serde-saphyr's default of 250,000 nodes.
        let mut text = String::from("runs:\n");
        for i in 0..25_000 {
            text.push_str(&format!(
                "  - document: d.yaml\n    traces: [{i}a, {i}b, {i}c, {i}d, "
            ));
            text.push_str(&format!("{i}e, {i}f, {i}g, {i}h]\n    group: m{i}\n"));
        }
        let read: Result<serde_json::Value, _> =
            serde_saphyr::from_str_with_options(&text, options(&text));
        assert!(read.is_ok(), "{:?}", read.err());
        let default: Result<serde_json::Value, _> = serde_saphyr::from_str(&text);
        assert!(
            default.is_err(),
            "the default budget no longer stops it: test another size"
        );
        // An alias bomb is still stopped.
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            ));
        }
        let read: Result<serde_json::Value, _> =
            serde_saphyr::from_str_with_options(&bomb, options(&bomb));
        assert!(read.is_err());
    }

    #[test]
    fn other_shapes_are_read_whole() {
        let text = manifest(20_000);
        assert_eq!(split_runs(&manifest(10), 8), None, "small");
        assert_eq!(split_runs(&text, 1), None, "one thread");
        for other in [
            format!("{text}compat: x\n"),
            format!("---\n{text}"),
            text.replacen("runs:", "runs: # all", 1),
            text.replacen("    traces:", "\ttraces:", 1),
            text.replace("\nruns:\n", "\nruns: [\n") + "]\n",
            text.replacen("\nruns:\n", "\ncompat:\n  thoughtjack-context\nruns:\n", 1),
            text.replacen("\nruns:\n", "\n--- \nruns:\n", 1),
        ] {
            assert_eq!(split_runs(&other, 8), None);
        }
    }
}
