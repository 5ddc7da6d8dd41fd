//! Compiled attacks: `compile` and `Attack`, evaluating one message, a whole trace or verdicts
//! produced elsewhere.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor};
use std::path::PathBuf;
use std::sync::Arc;

use oatf::CompiledAttack;
use oatf::IndicatorVerdict;
use oatf::report::TraceRun;
use oatf::trace::Compat;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use serde_json::Value;

use crate::convert::to_json;
use crate::document::{Source, load, read_source};
use crate::judge::{eval_options, in_thread};
use crate::trace::{BATCH, Failure, Item, compat_of, message_of, push_all, read_trace};
use crate::verdict::PyVerdict;

/// What `Attack.__reduce__` returns: `_attack_from_yaml` and its arguments (the text, the evaluator).
type Reduced<'py> = (Bound<'py, PyAny>, (String, Option<Py<PyAny>>));

/// An attack compiled for evaluation: immutable, safe to share between threads.
#[pyclass(frozen, module = "oatf", name = "Attack")]
pub(crate) struct PyAttack {
    pub(crate) attack: Arc<CompiledAttack>,
    /// The YAML it was compiled from, what it pickles as (`crate::campaign` recompiles it, once per
    /// process).
    pub(crate) source: Arc<str>,
    /// The semantic evaluator it was compiled with, pickled beside the text.
    semantic_evaluator: Option<Py<PyAny>>,
}

impl PyAttack {
    pub(crate) fn new(
        attack: Arc<CompiledAttack>,
        source: Arc<str>,
        semantic_evaluator: Option<Py<PyAny>>,
    ) -> Self {
        PyAttack {
            attack,
            source,
            semantic_evaluator,
        }
    }
}

/// Compiles a document for evaluation (regexes, paths and CEL programs compiled once).
#[pyfunction]
#[pyo3(signature = (document, *, semantic_evaluator = None))]
pub(crate) fn compile(
    py: Python<'_>,
    document: &Bound<'_, PyAny>,
    semantic_evaluator: Option<Py<PyAny>>,
) -> PyResult<PyAttack> {
    let options = eval_options(py, semantic_evaluator.as_ref())?;
    let loaded = match read_source(py, document)? {
        Source::Document(document) => document,
        Source::Text(_) => Py::new(py, load(py, document)?)?,
    };
    let document = loaded.get();
    let attack = py.detach(|| CompiledAttack::new(&document.document, &options));
    Ok(PyAttack::new(
        Arc::new(attack),
        document.source_text(),
        semantic_evaluator,
    ))
}

#[pymethods]
impl PyAttack {
    /// The attack's id, when the document has one.
    #[getter]
    fn attack_id(&self) -> Option<&str> {
        self.attack.attack_id()
    }

    /// The ids of the indicators, in declaration order.
    #[getter]
    fn indicator_ids(&self) -> Vec<String> {
        self.attack
            .indicators()
            .map(|i| i.id().to_owned())
            .chain(self.attack.compile_errors().map(|(id, _)| id.to_owned()))
            .collect()
    }

    /// Evaluates every indicator against one message's content (SDK §4.1: the value indicators
    /// see), without the trace filters, and computes the verdict. `message` is a Python value or its
    /// JSON text (str or bytes); a whole trace line raises `ValueError` saying what to pass (D-135).
    fn evaluate_message(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<PyVerdict> {
        let message = message_content(message)?;
        let attack = &self.attack;
        Ok(PyVerdict::new(py.detach(|| attack.evaluate(&message))))
    }

    /// `await attack.evaluate_message_async(message)`: `evaluate_message` in a worker thread, with
    /// `async def` judges run on the caller's event loop (D-138).
    #[pyo3(signature = (*args, **kwargs))]
    fn evaluate_message_async<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_thread(slf.getattr("evaluate_message")?, args, kwargs)
    }

    /// `await attack.evaluate_trace_async(trace, ...)`: `evaluate_trace` in a worker thread, with
    /// `async def` judges run on the caller's event loop (D-138).
    #[pyo3(signature = (*args, **kwargs))]
    fn evaluate_trace_async<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_thread(slf.getattr("evaluate_trace")?, args, kwargs)
    }

    /// Evaluates a whole trace (format §6): a JSON Lines file (a path), JSON Lines text (bytes, or a
    /// str that has a line break or starts with `{`, D-135), or an iterable of messages (dicts in the
    /// trace format, or JSON strings). Streams: memory does not grow with the trace.
    ///
    /// `compat` names a compatibility profile (D-100): `"thoughtjack-context"` scores the trace as
    /// ThoughtJack's context mode does; the default, `"spec-exact"`, is format §6 as written.
    #[pyo3(signature = (trace, *, strict = false, max_line_len = None, compat = None))]
    fn evaluate_trace(
        &self,
        py: Python<'_>,
        trace: &Bound<'_, PyAny>,
        strict: bool,
        max_line_len: Option<usize>,
        compat: Option<&str>,
    ) -> PyResult<PyVerdict> {
        let compat = compat_of(compat)?;
        if let Some(text) = jsonl_text(trace)? {
            let input = Cursor::new(text);
            return self.evaluate_input(
                py,
                input,
                "<text>".to_owned(),
                (strict, max_line_len),
                compat,
            );
        }
        if trace.is_instance_of::<PyString>() || !trace.hasattr("__iter__")? {
            let path: PathBuf = trace.extract().map_err(|_| {
                PyTypeError::new_err(
                    "trace must be a path (str or os.PathLike) or an iterable of messages",
                )
            })?;
            return self.evaluate_file(py, path, (strict, max_line_len), compat);
        }
        if trace.is_instance_of::<PyDict>() {
            return Err(PyTypeError::new_err(
                "trace must be a path, JSON Lines text or an iterable of messages, not a dict (for \
                 one message, use evaluate_trace([message]), or evaluate_message(message[\"content\"]) \
                 without the trace filters)",
            ));
        }
        let attack = &*self.attack;
        let mut run = TraceRun::with_compat(attack, "<iterable>", compat);
        let mut batch: Vec<Item> = Vec::with_capacity(BATCH);
        let mut position = 0u64;
        let mut items = trace.try_iter()?;
        loop {
            let mut ended = true;
            for item in items.by_ref() {
                position += 1;
                batch.push(message_of(&item?, position)?);
                if batch.len() == BATCH {
                    ended = false;
                    break;
                }
            }
            let outcome = py.detach(|| push_all(&mut run, batch.drain(..), strict));
            if let Err(malformed) = outcome {
                return Err(malformed.into_py_err(py));
            }
            if ended {
                break;
            }
        }
        Ok(PyVerdict::of_run(run.finish()))
    }

    /// Computes the attack verdict from indicator verdicts produced elsewhere (SDK §4.5), for
    /// example by your own judge: dicts with `indicator_id` and `result` (`matched`, `not_matched`,
    /// `error`, `skipped`), optionally `evidence`, `timestamp`, `source`. A declared indicator without a
    /// verdict counts as `skipped`.
    fn compute_verdict(&self, verdicts: &Bound<'_, PyAny>) -> PyResult<PyVerdict> {
        let mut parsed = Vec::new();
        for (index, item) in verdicts.try_iter()?.enumerate() {
            let value = to_json(&item?)?;
            let verdict: IndicatorVerdict = serde_json::from_value(value).map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("indicator verdict {index}: {e}"))
            })?;
            parsed.push(verdict);
        }
        Ok(PyVerdict::new(self.attack.compute_verdict(&parsed)))
    }

    /// Pickles by YAML text: unpickled, the attack is compiled again, once per process (a Dask worker
    /// compiles each document once, however many traces it evaluates).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let rebuild = py.import("oatf._oatf")?.getattr("_attack_from_yaml")?;
        let evaluator = self.semantic_evaluator.as_ref().map(|c| c.clone_ref(py));
        Ok((rebuild, (self.source.to_string(), evaluator)))
    }

    fn __repr__(&self) -> String {
        format!(
            "Attack({:?})",
            self.attack.attack_id().unwrap_or("(no attack id)")
        )
    }
}

impl PyAttack {
    fn evaluate_file(
        &self,
        py: Python<'_>,
        path: PathBuf,
        (strict, max_line_len): (bool, Option<usize>),
        compat: Compat,
    ) -> PyResult<PyVerdict> {
        let file = File::open(&path).map_err(|e| crate::document::os_error(&path, &e))?;
        let name = path.display().to_string();
        let input = BufReader::with_capacity(1 << 16, file);
        self.evaluate_input(py, input, name, (strict, max_line_len), compat)
    }

    /// Streams JSON Lines from `input` (a file, or text held in memory).
    fn evaluate_input(
        &self,
        py: Python<'_>,
        input: impl BufRead + Send,
        name: String,
        (strict, max_line_len): (bool, Option<usize>),
        compat: Compat,
    ) -> PyResult<PyVerdict> {
        let attack = &*self.attack;
        let outcome =
            py.detach(move || read_trace(attack, input, name, (strict, max_line_len), compat));
        match outcome {
            Ok(run) => Ok(PyVerdict::of_run(run.finish())),
            Err(Failure::Io(message)) => Err(pyo3::exceptions::PyOSError::new_err(message)),
            Err(Failure::Malformed(malformed)) => Err(malformed.into_py_err(py)),
        }
    }
}

/// The JSON Lines text `trace` holds, when it is text rather than a path or an iterable (D-135):
/// bytes, or a str with a line break or whose first non-blank character is `{` (a file name has
/// neither; a message has both).
fn jsonl_text(trace: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(bytes) = trace.cast::<PyBytes>() {
        return Ok(Some(bytes.as_bytes().to_vec()));
    }
    let Ok(text) = trace.cast::<PyString>() else {
        return Ok(None);
    };
    let text: String = text.extract()?;
    let is_text = text.contains(['\n', '\r']) || text.trim_start().starts_with('{');
    Ok(is_text.then(|| text.into_bytes()))
}

/// The content `evaluate_message` evaluates: a Python value, or JSON text (str or bytes) parsed
/// (D-135). A whole trace line (`oatf::trace::looks_like_trace_line`) is refused with what to
/// pass instead: evaluated as content it would match nothing, silently.
fn message_content(message: &Bound<'_, PyAny>) -> PyResult<Value> {
    let parsed = |text: &str| {
        serde_json::from_str::<Value>(text).map_err(|e| {
            PyValueError::new_err(format!(
                "the message is {}",
                oatf::trace::describe_json_error(&e)
            ))
        })
    };
    let value = if let Ok(text) = message.cast::<PyString>() {
        parsed(&text.extract::<String>()?)?
    } else if let Ok(bytes) = message.cast::<PyBytes>() {
        let text = std::str::from_utf8(bytes.as_bytes()).map_err(|e| {
            PyValueError::new_err(format!(
                "the message is not valid UTF-8 at byte {}",
                e.valid_up_to() + 1
            ))
        })?;
        parsed(text)?
    } else {
        to_json(message)?
    };
    if oatf::trace::looks_like_trace_line(&value) {
        return Err(PyValueError::new_err(
            "evaluate_message takes a message's content, and this is a whole trace line (it has \
             `direction` and `content`): pass message[\"content\"] to evaluate the content without \
             the trace filters, or use evaluate_trace([message]) to apply them (protocol, surface, \
             actor, direction)",
        ));
    }
    Ok(value)
}
