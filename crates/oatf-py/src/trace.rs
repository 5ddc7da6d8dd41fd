//! Reading a trace into a [`TraceRun`]: JSON Lines from a file or text, or entries given by Python
//! (dicts or JSON strings), the compatibility profile by name, and why a trace has no verdict.

use oatf::CompiledAttack;
use oatf::JsonlTraceReader;
use oatf::TraceMessage;
use oatf::report::{ReadStep, TraceRun};
use oatf::trace::Compat;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::convert::to_json;
use crate::errors::trace_error;

/// Streams a JSON Lines trace through a [`TraceRun`], as `oatf evaluate` reads one: a malformed line
/// is counted and reading goes on (with `strict`, it ends the run); a read error ends it.
pub(crate) fn read_trace(
    attack: &CompiledAttack,
    input: impl std::io::BufRead,
    name: String,
    (strict, max_line_len): (bool, Option<usize>),
    compat: Compat,
) -> Result<TraceRun<'_>, Failure> {
    let mut reader = JsonlTraceReader::new(input);
    if let Some(max) = max_line_len {
        reader = reader.with_max_line_len(max);
    }
    let mut run = TraceRun::with_compat(attack, name, compat);
    while let Some(step) = run.read_next(&mut reader) {
        match step {
            Ok(ReadStep::Malformed(error)) if strict => {
                return Err(Failure::Malformed(Malformed {
                    shown: format!("{}: {error}", run.name()),
                    trace: run.name().to_owned(),
                    line: error.line(),
                    message: error.message().to_owned(),
                }));
            }
            Err(error) => return Err(Failure::Io(format!("{}: {error}", run.name()))),
            Ok(_) => {}
        }
    }
    Ok(run)
}

/// The compatibility profile named `name` (D-100): the default without one; an unknown name is a
/// `ValueError` listing the known ones.
pub(crate) fn compat_of(name: Option<&str>) -> PyResult<Compat> {
    match name {
        None => Ok(Compat::default()),
        Some(name) => name.parse().map_err(|e: oatf::trace::UnknownCompat| {
            pyo3::exceptions::PyValueError::new_err(e.to_string())
        }),
    }
}

/// Why a trace has no verdict.
pub(crate) enum Failure {
    Io(String),
    Malformed(Malformed),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io(message) => f.write_str(message),
            Failure::Malformed(malformed) => f.write_str(&malformed.shown),
        }
    }
}

/// A malformed trace entry that ends a strict evaluation (or a `push`): `oatf.TraceError`.
pub(crate) struct Malformed {
    /// The trace's name.
    trace: String,
    /// The line of the file, or the position of the entry (from 1).
    line: u64,
    /// What is wrong.
    message: String,
    /// The error's text.
    shown: String,
}

impl Malformed {
    /// What is wrong with the entry.
    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn into_py_err(self, py: Python<'_>) -> PyErr {
        trace_error(py, &self.trace, self.line, &self.message, self.shown)
    }
}

/// Messages of an iterable converted under the GIL, then evaluated without it, this many at a time.
pub(crate) const BATCH: usize = 256;

/// One entry of a trace: a message with its position, or why it is not one.
pub(crate) type Item = Result<(TraceMessage, u64), (u64, String)>;

/// A trace entry given by Python: a dict in the trace format, or one JSON line (str or bytes), read
/// with the trace reader's rules and words (`TraceMessage::from_json`, D-137). A value that is not
/// JSON data (a NaN, a set) makes the entry malformed, as a line that is not JSON is; an entry of
/// another type raises `TypeError`.
pub(crate) fn message_of(item: &Bound<'_, PyAny>, position: u64) -> PyResult<Item> {
    let parsed = if let Ok(text) = item.cast::<PyString>() {
        TraceMessage::from_json(&text.extract::<String>()?)
    } else if let Ok(bytes) = item.cast::<PyBytes>() {
        match std::str::from_utf8(bytes.as_bytes()) {
            Ok(text) => TraceMessage::from_json(text),
            Err(e) => Err(format!("not valid UTF-8 at byte {}", e.valid_up_to() + 1)),
        }
    } else if item.is_instance_of::<PyDict>() {
        match to_json(item) {
            Ok(value) => serde_json::from_value::<TraceMessage>(value)
                .map_err(|e| format!("not a trace message: {e}")),
            Err(e) => Err(format!("not JSON data: {}", e.value(item.py()))),
        }
    } else {
        let kind = item
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "an object".to_owned());
        return Err(PyTypeError::new_err(format!(
            "trace entry {position} is a {kind}, not a message: expected a dict or a JSON string"
        )));
    };
    Ok(parsed
        .map(|message| (message, position))
        .map_err(|e| (position, e)))
}

/// Pushes entries; in strict mode the first malformed one ends the run with its description.
pub(crate) fn push_all(
    run: &mut TraceRun<'_>,
    items: impl Iterator<Item = Item>,
    strict: bool,
) -> Result<(), Malformed> {
    for item in items {
        match item {
            Ok((message, line)) => run.push(&message, line),
            Err((line, error)) if strict => {
                return Err(Malformed {
                    shown: format!("{}: entry {line}: {error}", run.name()),
                    trace: run.name().to_owned(),
                    line,
                    message: error,
                });
            }
            Err((line, error)) => run.push_malformed(line, error),
        }
    }
    Ok(())
}
