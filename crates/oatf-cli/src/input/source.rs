//! Reading a command's inputs: a document from a file or standard input, within the parser's input
//! limit, and telling a trace from a document when one is given in place of the other.

use std::borrow::Cow;
use std::io::{BufRead, Read as _};
use std::path::PathBuf;

/// Reads a file, or standard input for `-`.
///
/// At most one byte more than the parser's input limit is read, so a huge file is rejected without
/// being read whole; bytes that are not UTF-8 are reported with the place of the first invalid byte.
pub(crate) fn read_input(path: &PathBuf) -> Result<(String, String), String> {
    let limit = oatf::model::ParseOptions::DEFAULT_MAX_INPUT_BYTES;
    let (name, bytes) = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        ("<stdin>".to_owned(), bytes)
    } else {
        let name = path.display().to_string();
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(limit as u64 + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("cannot read {name}: {e}"))?;
        (name, bytes)
    };
    if bytes.len() > limit {
        return Err(format!(
            "{name} is larger than the input limit of {limit} bytes"
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok((name, text)),
        // `parse_bytes` words the error and locates the first invalid byte.
        Err(e) => Err(match oatf::model::parse_bytes(e.as_bytes()) {
            Err(errors) => errors.first().map_or_else(
                || format!("{name} is not valid utf-8"),
                |e| format!("{name}: {e}"),
            ),
            Ok(_) => format!("{name} is not valid utf-8"),
        }),
    }
}

/// Keys of a trace message (docs/trace-format.md) that no OATF document has at its top level.
const TRACE_KEYS: [&str; 5] = ["method", "direction", "content", "seq", "actor"];

/// Whether `source` reads like a trace (docs/trace-format.md): its first line a JSON object with trace
/// message keys and none of a document's. The one test of this, for `evaluate` and `validate`.
pub(crate) fn looks_like_a_trace(source: &str) -> bool {
    let Some(line) = source.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return false;
    };
    let Ok(object) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line)
    else {
        return false;
    };
    !object.contains_key("oatf")
        && !object.contains_key("attack")
        && TRACE_KEYS.iter().any(|k| object.contains_key(*k))
}

/// When `source`, given as the document, reads like a trace: what to tell the user.
pub(crate) fn trace_given_as_document(source: &str) -> Option<&'static str> {
    looks_like_a_trace(source).then_some(
        "this is a trace (JSON Lines), not an OATF document: the document comes first, \
         `oatf evaluate DOC TRACE`",
    )
}

/// When the trace, given where a trace is expected, reads like an OATF document (its first line,
/// past comments and `---`, a top-level `oatf:`, `attack:` or `$schema:` key): what to tell the
/// user. Only the buffered start of the input is looked at; nothing is consumed.
pub(crate) fn document_given_as_trace(input: &mut Box<dyn BufRead>) -> Option<&'static str> {
    let buffer = input.fill_buf().ok()?;
    // A trace's first line is a JSON object: it decides, and no key starts with `{` (D-303).
    if buffer.first() == Some(&b'{') {
        return None;
    }
    // Line by line, each converted on its own: the first line decides in nearly every trace, and a
    // campaign asks this of every trace (the whole 4 KB converted was 6% of a short trace's run).
    // The same answer as converting the 4 KB first: no invalid sequence spans a line break.
    let line = buffer[..buffer.len().min(4096)]
        .split(|b| *b == b'\n')
        .map(|l| std::str::from_utf8(l).map_or_else(|_| String::from_utf8_lossy(l), Cow::Borrowed))
        .find(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && t != "---"
        })?;
    let line = line.strip_suffix('\r').unwrap_or(&line);
    ["oatf:", "attack:", "$schema:"]
        .iter()
        .any(|key| line.starts_with(key))
        .then_some(
            "this is an OATF document (YAML), not a trace: the trace comes second, \
             `oatf evaluate DOC TRACE`",
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(text: &[u8]) -> bool {
        let mut input: Box<dyn BufRead> = Box::new(std::io::Cursor::new(text.to_vec()));
        document_given_as_trace(&mut input).is_some()
    }

    #[test]
    fn a_document_is_told_from_a_trace_by_its_first_meaningful_line() {
        assert!(hint(b"oatf: \"0.1\"\nattack: {}\n"));
        assert!(hint(b"# comment\r\n\r\n---\r\n  \nattack:\r\n"));
        assert!(hint(b"$schema: x\n"));
        assert!(!hint(b"{\"seq\": 1}\noatf: \"0.1\"\n"));
        // Indented, or after invalid UTF-8 on an earlier line: not a top-level key.
        assert!(!hint(b"  oatf: \"0.1\"\n"));
        assert!(!hint(b"\xff\xfe\noatf: \"0.1\"\n"));
        assert!(hint(b"\n\noatf: \xff\n"));
        // Only the first 4 KB are looked at.
        let mut late = vec![b'\n'; 4096];
        late.extend_from_slice(b"oatf: \"0.1\"\n");
        assert!(!hint(&late));
        assert!(!hint(b""));
    }
}
