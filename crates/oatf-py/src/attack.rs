//! Compiled attacks, verdicts, trace evaluation and the Python semantic evaluator.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor};
use std::path::PathBuf;
use std::sync::Arc;

use oatf::AttackVerdict;
use oatf::CompiledAttack;
use oatf::EvaluationError;
use oatf::EvaluationErrorKind;
use oatf::IndicatorVerdict;
use oatf::JsonlTraceReader;
use oatf::TraceMessage;
use oatf::eval::SemanticEvaluator;
use oatf::report::{FinishedRun, ReadStep, TraceRun};
use oatf::trace::Compat;
use oatf::trace::TraceWarning;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use serde_json::Value;

use crate::convert::{to_json, to_py};
use crate::document::{Source, load, read_source};
use crate::trace_error;

/// The verdict of one indicator (SDK §2.19).
#[pyclass(frozen, module = "oatf", name = "IndicatorVerdict")]
pub(crate) struct PyIndicatorVerdict {
    verdict: IndicatorVerdict,
}

#[pymethods]
impl PyIndicatorVerdict {
    /// The indicator's id.
    #[getter]
    fn indicator_id(&self) -> &str {
        &self.verdict.indicator_id
    }

    /// `matched`, `not_matched`, `error` or `skipped`.
    #[getter]
    fn result(&self) -> &'static str {
        self.verdict.result.as_str()
    }

    /// What matched (naming the message of a trace), or why the indicator failed or was skipped.
    #[getter]
    fn evidence(&self) -> Option<&str> {
        self.verdict.evidence.as_deref()
    }

    /// When the verdict was produced (RFC 3339, UTC).
    #[getter]
    fn timestamp(&self) -> Option<&str> {
        self.verdict.timestamp.as_deref()
    }

    /// The verdict as a dict, as in the JSON verdict document.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(&self.verdict).unwrap_or(Value::Null),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "IndicatorVerdict({:?}, {})",
            self.verdict.indicator_id, self.verdict.result
        )
    }
}

/// The verdict of an attack (SDK §2.19, format §9.3).
/// A warning of a trace evaluation (decision D-70): a declared actor without messages
/// (`actor_without_messages`) or an indicator target that never resolved (`unresolved_target`).
#[pyclass(frozen, module = "oatf", name = "TraceWarning")]
pub(crate) struct PyTraceWarning {
    warning: TraceWarning,
}

#[pymethods]
impl PyTraceWarning {
    /// `actor_without_messages` or `unresolved_target`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.warning.kind.as_str()
    }

    /// The indicator the warning is about (`unresolved_target`).
    #[getter]
    fn indicator_id(&self) -> Option<&str> {
        self.warning.indicator_id.as_deref()
    }

    /// The declared actor the warning is about (`actor_without_messages`).
    #[getter]
    fn actor(&self) -> Option<&str> {
        self.warning.actor.as_deref()
    }

    /// The target path that never resolved, as written.
    #[getter]
    fn path(&self) -> Option<&str> {
        self.warning.path.as_deref()
    }

    /// The closest path the messages had ("did you mean"), when one is close.
    #[getter]
    fn suggestion(&self) -> Option<&str> {
        self.warning.suggestion.as_deref()
    }

    /// The warning as people read it.
    #[getter]
    fn message(&self) -> &str {
        &self.warning.message
    }

    /// The warning as a dict, as in the JSON verdict document's `warnings`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(&self.warning).unwrap_or(Value::Null),
        )
    }

    fn __str__(&self) -> &str {
        &self.warning.message
    }

    fn __repr__(&self) -> String {
        format!(
            "TraceWarning({}, {:?})",
            self.warning.kind, self.warning.message
        )
    }
}

#[pyclass(frozen, module = "oatf", name = "Verdict")]
pub(crate) struct PyVerdict {
    verdict: AttackVerdict,
    /// What was read of the trace, for a trace evaluation (the exit code under `strict`).
    stats: Option<oatf::report::TraceStats>,
    /// The JSON verdict document of `oatf evaluate --format json` (`oatf::report::json_document`),
    /// for a trace evaluation.
    report: Option<Value>,
    /// The first malformed trace entries: (line or position, what is wrong).
    trace_errors: Vec<(u64, String)>,
}

impl PyVerdict {
    fn new(verdict: AttackVerdict) -> Self {
        PyVerdict {
            verdict,
            stats: None,
            report: None,
            trace_errors: Vec::new(),
        }
    }

    /// The verdict of a trace run, with its JSON verdict document and its first malformed entries.
    fn of_run(run: FinishedRun) -> Self {
        let report = run.json_document();
        PyVerdict {
            trace_errors: run
                .malformed
                .into_iter()
                .map(|entry| (entry.line, entry.message))
                .collect(),
            verdict: run.verdict,
            stats: Some(run.stats),
            report: Some(report),
        }
    }

    /// The JSON verdict document: for a trace evaluation the one `oatf evaluate --format json` writes
    /// (with `trace` and `warnings`), else the serialized `AttackVerdict`.
    fn document(&self) -> Value {
        match &self.report {
            Some(report) => report.clone(),
            None => serde_json::to_value(&self.verdict).unwrap_or(Value::Null),
        }
    }
}

#[pymethods]
impl PyVerdict {
    /// `exploited`, `not_exploited`, `partial` or `error`.
    #[getter]
    fn result(&self) -> &'static str {
        self.verdict.result.as_str()
    }

    /// Whether the result is `exploited`.
    #[getter]
    fn exploited(&self) -> bool {
        self.verdict.result == oatf::AttackResult::Exploited
    }

    /// The attack's id, when the document has one.
    #[getter]
    fn attack_id(&self) -> Option<&str> {
        self.verdict.attack_id.as_deref()
    }

    /// The highest outcome tier among matched indicators that have one (`ingested`, `local_action`,
    /// `boundary_breach`), or `None` (SDK §4.5).
    #[getter]
    fn max_tier(&self) -> Option<&'static str> {
        self.verdict.max_tier.map(|tier| tier.as_str())
    }

    /// One verdict per declared indicator, in declaration order.
    #[getter]
    fn indicator_verdicts(&self) -> Vec<PyIndicatorVerdict> {
        self.verdict
            .indicator_verdicts
            .iter()
            .map(|v| PyIndicatorVerdict { verdict: v.clone() })
            .collect()
    }

    /// Counts of each indicator result: `matched`, `not_matched`, `error`, `skipped`.
    #[getter]
    fn evaluation_summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.verdict.evaluation_summary).unwrap_or(Value::Null),
        )
    }

    /// Why the result is `error` when no indicator verdict says it.
    #[getter]
    fn diagnostic(&self) -> Option<&str> {
        self.verdict.diagnostic.as_deref()
    }

    /// When the verdict was produced (RFC 3339, UTC).
    #[getter]
    fn timestamp(&self) -> Option<&str> {
        self.verdict.timestamp.as_deref()
    }

    /// What was read of the trace (messages, malformed lines, …), for a trace evaluation.
    #[getter]
    fn trace<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let trace = self.report.as_ref().and_then(|report| report.get("trace"));
        to_py(py, trace.unwrap_or(&Value::Null))
    }

    /// The first 100 malformed trace entries as `(line, message)`; a trace read from an iterable
    /// numbers its items from 1.
    #[getter]
    fn trace_errors(&self) -> Vec<(u64, String)> {
        self.trace_errors.clone()
    }

    /// What may make the result meaningless although it is right (decision D-70): declared actors
    /// without messages and indicator targets that never resolved, for a trace evaluation.
    #[getter]
    fn warnings(&self) -> Vec<PyTraceWarning> {
        let warnings = match &self.stats {
            Some(stats) => oatf::report::warnings(&self.verdict, stats),
            None => self.verdict.warnings.clone(),
        };
        warnings
            .into_iter()
            .map(|warning| PyTraceWarning { warning })
            .collect()
    }

    /// The exit code `oatf evaluate` gives this verdict (spec-decisions 24): 0 `not_exploited`,
    /// 1 to 3 `exploited` by tier, 4 `partial`, 5 `error`; with `strict=True`, 6 for a
    /// `not_exploited` run that has warnings or malformed trace lines (`--strict`, decision D-69).
    #[pyo3(signature = (*, strict = false))]
    fn exit_code(&self, strict: bool) -> u8 {
        let mut stats = self
            .stats
            .clone()
            .unwrap_or_else(|| oatf::report::TraceStats::new(""));
        stats.strict = strict;
        oatf::report::run_exit_code(&self.verdict, &stats)
    }

    /// The JSON verdict document, as `oatf evaluate --format json` writes it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.document())
    }

    fn __repr__(&self) -> String {
        let s = &self.verdict.evaluation_summary;
        format!(
            "Verdict({}, attack_id={:?}, matched={}, not_matched={}, error={}, skipped={})",
            self.verdict.result,
            self.verdict.attack_id.as_deref().unwrap_or(""),
            s.matched,
            s.not_matched,
            s.error,
            s.skipped
        )
    }
}

/// A semantic evaluator written in Python: a callable taking keyword arguments `text`, `intent`,
/// `intent_class`, `threshold`, `examples` and returning a score between 0.0 and 1.0.
struct PySemanticEvaluator {
    callable: Py<PyAny>,
}

impl SemanticEvaluator for PySemanticEvaluator {
    fn evaluate(
        &self,
        text: &str,
        intent: &str,
        intent_class: Option<oatf::model::SemanticIntentClass>,
        threshold: Option<f64>,
        examples: Option<&oatf::model::SemanticExamples>,
    ) -> Result<f64, EvaluationError> {
        let failed =
            |message: String| EvaluationError::new(EvaluationErrorKind::SemanticError, message);
        Python::attach(|py| {
            let call = || -> PyResult<Bound<'_, PyAny>> {
                let kwargs = PyDict::new(py);
                kwargs.set_item("text", text)?;
                kwargs.set_item("intent", intent)?;
                kwargs.set_item("intent_class", intent_class.map(|c| c.as_str()))?;
                kwargs.set_item("threshold", threshold)?;
                let examples = examples
                    .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
                    .unwrap_or(Value::Null);
                kwargs.set_item("examples", to_py(py, &examples)?)?;
                // Through `oatf._judges.call`, which awaits what an `async def` judge returns (D-138).
                judges(py, "call")?.call1((self.callable.bind(py), kwargs))
            };
            let score = match call() {
                Ok(score) => score,
                Err(e) => {
                    let kind = e
                        .get_type(py)
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_else(|_| "an exception".to_owned());
                    return Err(failed(format!(
                        "the semantic evaluator raised {kind}: {}",
                        e.value(py)
                    )));
                }
            };
            match score.extract::<f64>() {
                Ok(score) if (0.0..=1.0).contains(&score) => Ok(score),
                Ok(score) => Err(failed(format!(
                    "the semantic evaluator returned {score}, not a score between 0.0 and 1.0"
                ))),
                Err(_) => {
                    let kind = score
                        .get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_else(|_| "an object".to_owned());
                    Err(failed(format!(
                        "the semantic evaluator returned a {kind}, not a number between 0.0 and 1.0"
                    )))
                }
            }
        })
    }
}

/// A function of the Python module `oatf._judges` (async judges and the `*_async` methods, D-138).
fn judges<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || Ok::<_, PyErr>(py.import("oatf._judges")?.unbind()))?
        .bind(py)
        .getattr(name)
}

/// A coroutine that runs the sync method `method` in a worker thread of the running event loop,
/// where an `async def` judge runs on that loop (`oatf._judges.in_thread`, D-138). The arguments
/// are checked against the method's signature at once.
fn in_thread<'py>(
    method: Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = method.py();
    let kwargs = match kwargs {
        Some(kwargs) => kwargs.clone(),
        None => PyDict::new(py),
    };
    judges(py, "in_thread")?.call1((method, args, kwargs))
}

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

/// The evaluation options of `compile`: the defaults, with `semantic_evaluator` when given.
pub(crate) fn eval_options(
    py: Python<'_>,
    semantic_evaluator: Option<&Py<PyAny>>,
) -> PyResult<oatf::EvalOptions> {
    let options = oatf::default_eval_options();
    let Some(callable) = semantic_evaluator else {
        return Ok(options);
    };
    if !callable.bind(py).is_callable() {
        return Err(PyTypeError::new_err(
            "semantic_evaluator must be a callable returning a score between 0.0 and 1.0",
        ));
    }
    Ok(
        options.with_semantic_evaluator(Arc::new(PySemanticEvaluator {
            callable: callable.clone_ref(py),
        })),
    )
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
    fn into_py_err(self, py: Python<'_>) -> PyErr {
        trace_error(py, &self.trace, self.line, &self.message, self.shown)
    }
}

/// Messages of an iterable converted under the GIL, then evaluated without it, this many at a time.
const BATCH: usize = 256;

/// One entry of a trace: a message with its position, or why it is not one.
type Item = Result<(TraceMessage, u64), (u64, String)>;

/// A trace entry given by Python: a dict in the trace format, or one JSON line (str or bytes), read
/// with the trace reader's rules and words (`TraceMessage::from_json`, D-137). A value that is not
/// JSON data (a NaN, a set) makes the entry malformed, as a line that is not JSON is; an entry of
/// another type raises `TypeError`.
fn message_of(item: &Bound<'_, PyAny>, position: u64) -> PyResult<Item> {
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
fn push_all(
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

type LiveRunState<'a> = Option<TraceRun<'a>>;

self_cell::self_cell!(
    /// A run that owns the attack it borrows.
    struct LiveRun {
        owner: Arc<CompiledAttack>,
        #[covariant]
        dependent: LiveRunState,
    }
);

/// Evaluates a trace one message at a time: `push(message)` each, then `finish()`; or in a `with`
/// block, which finishes it at the end (its verdict is then `verdict`).
#[pyclass(module = "oatf", name = "TraceEvaluator")]
pub(crate) struct PyTraceEvaluator {
    run: LiveRun,
    position: u64,
    /// The verdict, once finished.
    verdict: Option<Py<PyVerdict>>,
}

#[pymethods]
impl PyTraceEvaluator {
    /// An evaluator of `attack`'s indicators, in the compatibility profile `compat` (D-100;
    /// `"spec-exact"` by default, or `"thoughtjack-context"`).
    #[new]
    #[pyo3(signature = (attack, *, compat = None))]
    fn new(attack: &PyAttack, compat: Option<&str>) -> PyResult<Self> {
        let compat = compat_of(compat)?;
        Ok(PyTraceEvaluator {
            run: LiveRun::new(Arc::clone(&attack.attack), |attack| {
                Some(TraceRun::with_compat(attack, "<push>", compat))
            }),
            position: 0,
            verdict: None,
        })
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Finishes the evaluation (unless `finish()` was called in the block); never suppresses an
    /// exception of the block.
    #[pyo3(signature = (*_exception))]
    fn __exit__(&mut self, py: Python<'_>, _exception: &Bound<'_, PyTuple>) -> PyResult<bool> {
        if self.verdict.is_none() {
            self.finish(py)?;
        }
        Ok(false)
    }

    /// The verdict, once `finish()` was called or the `with` block ended; else `None`.
    #[getter]
    fn verdict(&self, py: Python<'_>) -> Option<Py<PyVerdict>> {
        self.verdict.as_ref().map(|v| v.clone_ref(py))
    }

    /// `await evaluator.push_async(message)`: `push` in a worker thread, with `async def` judges run
    /// on the caller's event loop (D-138).
    #[pyo3(signature = (*args, **kwargs))]
    fn push_async<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_thread(slf.getattr("push")?, args, kwargs)
    }

    /// Evaluates one message (a dict in the trace format, or a JSON string). A malformed message
    /// raises `TraceError` (a `ValueError`) and is counted; evaluation goes on with the next one.
    fn push(&mut self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.verdict.is_some() {
            return Err(finished());
        }
        self.position += 1;
        let item = message_of(message, self.position)?;
        let outcome = py.detach(|| {
            self.run.with_dependent_mut(|_, run| match run {
                None => Err(None),
                Some(run) => push_all(run, std::iter::once(item), true).map_err(Some),
            })
        });
        match outcome {
            Ok(()) => Ok(()),
            Err(None) => Err(finished()),
            Err(Some(malformed)) => {
                self.run.with_dependent_mut(|_, run| {
                    if let Some(run) = run {
                        run.push_malformed(self.position, malformed.message.clone());
                    }
                });
                Err(malformed.into_py_err(py))
            }
        }
    }

    /// How many messages were evaluated.
    #[getter]
    fn messages(&self) -> u64 {
        self.run
            .borrow_dependent()
            .as_ref()
            .map_or(0, |run| run.evaluator().messages())
    }

    /// How many indicators have matched so far.
    #[getter]
    fn matched_count(&self) -> usize {
        self.run
            .borrow_dependent()
            .as_ref()
            .map_or(0, |run| run.evaluator().matched_count())
    }

    /// The verdict of the messages pushed (also kept as `verdict`); the evaluator cannot be used
    /// afterwards.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyVerdict>> {
        let verdict = self
            .run
            .with_dependent_mut(|_, run| run.take().map(|run| PyVerdict::of_run(run.finish())))
            .ok_or_else(finished)?;
        let verdict = Py::new(py, verdict)?;
        self.verdict = Some(verdict.clone_ref(py));
        Ok(verdict)
    }
}

/// The error of a `TraceEvaluator` used after it finished.
fn finished() -> PyErr {
    PyRuntimeError::new_err(
        "the evaluator is finished (by finish() or at the end of its with block): its verdict is \
         .verdict; make a new TraceEvaluator for another trace",
    )
}
