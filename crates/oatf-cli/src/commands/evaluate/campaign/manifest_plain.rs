//! A manifest of the plainest shape read without a YAML parser (D-301): a generated manifest of one
//! entry per run took serde-saphyr about 30,000 instructions an entry, a tenth of a one-thread
//! campaign of short traces.
//!
//! Only text whose meaning no YAML reader can doubt is read here: blank and comment lines, a top-level
//! `compat: NAME`, `runs:`, then entries `- key: value` at one indentation with their other keys two
//! columns further, the keys `document`, `trace`, `group` and `compat` once each, every value a plain
//! scalar of letters, digits and `_ . / -` that cannot be read as anything but a string (not `null`,
//! `true`, `no`, a number, ...). Anything else, or anything a manifest may not hold (an entry without
//! a document or a trace, an unknown profile, no entries), gives `None`, and the caller reads the text
//! with serde-saphyr as before, so that its errors and its readings are unchanged. A test reads the
//! same texts both ways.

/// One entry of a plain manifest, its values as they stand in the text.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct PlainRun<'a> {
    pub(super) document: &'a str,
    pub(super) trace: &'a str,
    pub(super) group: Option<&'a str>,
    pub(super) compat: Option<&'a str>,
}

/// A plain manifest: its top-level `compat:` and its entries.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct PlainManifest<'a> {
    pub(super) compat: Option<&'a str>,
    pub(super) runs: Vec<PlainRun<'a>>,
}

/// Words a YAML reader takes for a null or a boolean (YAML 1.1 and 1.2, any case).
const KEYWORDS: [&str; 9] = ["null", "true", "false", "yes", "no", "on", "off", "y", "n"];

/// Whether `value` is a plain scalar every YAML reader takes for this very string.
fn is_plain(value: &str) -> bool {
    let bytes = value.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    if !bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-'))
    {
        return false;
    }
    // A leading digit or dot could make a number (`1e3`, `0x1f`, `.5`, `.inf`), a date or a float
    // keyword: only with a `/`, which none of them holds.
    let starts_well = first.is_ascii_alphabetic() || matches!(first, b'_' | b'/');
    if !starts_well && !bytes.contains(&b'/') {
        return false;
    }
    !KEYWORDS.iter().any(|k| value.eq_ignore_ascii_case(k))
}

/// `key: value` with a plain value, else `None`.
fn key_value(text: &str) -> Option<(&str, &str)> {
    let (key, value) = text.split_once(": ")?;
    is_plain(value).then_some((key, value))
}

/// The manifest `source` when it is of the plain shape, else `None` (read it with serde-saphyr).
pub(super) fn read(source: &str) -> Option<PlainManifest<'_>> {
    let mut lines = source.split('\n');
    let mut compat = None;
    // The head: blank and comment lines, at most one `compat:`, then `runs:`.
    loop {
        let line = lines.next()?;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "runs:" {
            break;
        }
        match key_value(line) {
            Some(("compat", value)) if compat.is_none() => compat = Some(value),
            _ => return None,
        }
    }
    let mut runs = Vec::new();
    let mut indent: Option<usize> = None;
    let mut entry: Option<[Option<&str>; 4]> = None;
    for line in lines {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let at = line.len() - content.len();
        let (key, value) = if let Some(first) = content.strip_prefix("- ") {
            if *indent.get_or_insert(at) != at {
                return None;
            }
            if let Some(done) = entry.take() {
                runs.push(finish(done)?);
            }
            entry = Some([None; 4]);
            key_value(first)?
        } else if indent.is_some_and(|i| at == i + 2) {
            key_value(content)?
        } else {
            return None;
        };
        let slot = match key {
            "document" => 0,
            "trace" => 1,
            "group" => 2,
            "compat" => 3,
            _ => return None,
        };
        let fields = entry.as_mut()?;
        if fields[slot].replace(value).is_some() {
            return None;
        }
    }
    runs.push(finish(entry?)?);
    Some(PlainManifest { compat, runs })
}

/// An entry from its fields (document, trace, group, compat): it must name a document and a trace.
fn finish(fields: [Option<&str>; 4]) -> Option<PlainRun<'_>> {
    let [document, trace, group, compat] = fields;
    Some(PlainRun {
        document: document?,
        trace: trace?,
        group,
        compat,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_shape_is_read() {
        let text = "# generated\n\ncompat: thoughtjack-context\nruns:\n  - document: d/a.yaml\n    \
                    trace: traces/000/1.jsonl\n\n  # a note\n  - group: gpt-4o\n    document: b.yaml\n    \
                    trace: ./t.jsonl\n    compat: spec\n";
        let read = read(text);
        assert_eq!(
            read,
            Some(PlainManifest {
                compat: Some("thoughtjack-context"),
                runs: vec![
                    PlainRun {
                        document: "d/a.yaml",
                        trace: "traces/000/1.jsonl",
                        group: None,
                        compat: None
                    },
                    PlainRun {
                        document: "b.yaml",
                        trace: "./t.jsonl",
                        group: Some("gpt-4o"),
                        compat: Some("spec")
                    },
                ]
            })
        );
    }

    #[test]
    fn anything_else_is_left_to_the_yaml_reader() {
        let plain = "runs:\n  - document: a.yaml\n    trace: t.jsonl\n";
        assert!(read(plain).is_some());
        for other in [
            "runs:\n",
            "runs: []\n",
            "---\nruns:\n  - document: a.yaml\n    trace: t.jsonl\n",
            "runs:\n  - document: a.yaml\n",
            "runs:\n  - trace: t.jsonl\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\n    trace: u.jsonl\n",
            "runs:\n  - document: a.yaml\n    traces:\n      - t.jsonl\n",
            "runs:\n  - document: a.yaml\n    trace: null\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\n    group: No\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\n    group: 4o\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\n    group: .inf\n",
            "runs:\n  - document: a.yaml\n    trace: \"t.jsonl\"\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl # note\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl \n",
            "runs:\n  - document: a.yaml\r\n    trace: t.jsonl\r\n",
            "runs:\n  - document: a.yaml\n     trace: t.jsonl\n",
            "runs:\n  - document: a.yaml\n\ttrace: t.jsonl\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\n - document: a.yaml\n   trace: t.jsonl\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\n    bogus: x\n",
            "runs:\n  - document: a.yaml\n    trace: t.jsonl\nother: x\n",
            "other: x\nruns:\n  - document: a.yaml\n    trace: t.jsonl\n",
            "compat: a\ncompat: b\nruns:\n  - document: a.yaml\n    trace: t.jsonl\n",
            "runs:\n  -  document: a.yaml\n     trace: t.jsonl\n",
            "runs:\n  - document:  a.yaml\n    trace: t.jsonl\n",
        ] {
            assert_eq!(read(other), None, "{other:?}");
        }
    }
}
