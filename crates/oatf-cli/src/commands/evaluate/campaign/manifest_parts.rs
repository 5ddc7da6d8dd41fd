//! A large manifest read in parts, in parallel (D-114): a manifest of one entry per run has as many
//! entries as the campaign has runs, and reading 100,000 entries on one thread took a third of
//! the campaign's time on 16 cores.
//!
//! Only the plain shape is split: comment or blank lines, then `runs:` at the start of a line, then
//! lines that are blank, comments, or indented, the entries starting with `- ` at one indentation.
//! Each part is `runs:` and a run of whole entries, read as a manifest of its own; the caller
//! keeps the parts only when every one reads, and otherwise reads the whole text, so that an error
//! is the one the whole text gives, at its own line.

/// Manifests shorter than this are read whole: splitting would not pay.
pub(super) const SPLIT_FROM_BYTES: usize = 256 * 1024;

/// Parts of about this many bytes at least.
const PART_BYTES: usize = 64 * 1024;

/// The manifest `source` cut into runs of consecutive whole entries, each read as a manifest of its
/// own once `runs:` is put before it ([`part_manifest`]), or `None` when it is not of the plain shape or
/// too small to split. The parts are slices of `source`: each is copied by the worker that reads it,
/// not here on the main thread (D-213).
pub(super) fn split_runs(source: &str, parts: usize) -> Option<Vec<&str>> {
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
        if !(text.trim().is_empty() || text.starts_with('#')) {
            return None;
        }
    }
    let body = &source[body?..];
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
    (chunks.len() > 1).then_some(chunks)
}

/// A part of [`split_runs`] as a manifest of its own.
pub(super) fn part_manifest(part: &str) -> String {
    format!("runs:\n{part}")
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
        let parts = split_runs(&text, 8).unwrap_or_default();
        assert!(parts.len() >= 2, "{}", parts.len());
        let joined: String = parts.concat();
        assert_eq!(format!("# generated\n\nruns:\n{joined}"), text);
        for part in &parts {
            let part = part_manifest(part);
            assert!(part.starts_with("runs:\n  - document: "), "{}", &part[..40]);
        }
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
        ] {
            assert_eq!(split_runs(&other, 8), None);
        }
    }
}
