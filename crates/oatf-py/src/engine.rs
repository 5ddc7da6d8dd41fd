//! The phase engine (`oatf::runtime::PhaseEngine`) for Python: one actor of a document played
//! through its phases, with the time passed in as seconds on the caller's clock.

use std::time::Duration;

use oatf::runtime::{Direction, Dispatch, EntryAction, PhaseEngine, PhaseEntry};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Value, json};

use crate::convert::{to_json, to_py};
use crate::document::{Source, load, read_source};

/// One actor of a document played through its phases (format §5.2–§5.6): extractors run on the
/// messages observed, triggers evaluated on the events, entry actions rendered, responses selected
/// and rendered. Pure: no I/O; `now` is seconds on a clock the caller keeps (`time.monotonic()`).
#[pyclass(module = "oatf", name = "PhaseEngine")]
pub(crate) struct PyPhaseEngine {
    engine: PhaseEngine,
}

fn seconds(now: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(now)
        .map_err(|_| PyValueError::new_err(format!("now must be finite seconds >= 0, not {now}")))
}

fn parse_direction(text: &str) -> PyResult<Direction> {
    match text {
        "incoming" => Ok(Direction::Incoming),
        "outgoing" => Ok(Direction::Outgoing),
        other => Err(PyValueError::new_err(format!(
            "direction must be \"incoming\" or \"outgoing\", not {other:?}"
        ))),
    }
}

/// A phase entry as a dict; actions in the document's own shape (`{"send": {...}}`).
fn entry_value(entry: &PhaseEntry) -> Value {
    let actions: Vec<Value> = entry
        .actions
        .iter()
        .map(|action| match action {
            EntryAction::Send { method, params } => {
                let mut send = json!({"method": method});
                if let (Some(params), Some(object)) = (params, send.as_object_mut()) {
                    object.insert("params".to_owned(), params.clone());
                }
                json!({"send": send})
            }
            EntryAction::Log { message, level } => {
                json!({"log": {"message": message, "level": level.as_str()}})
            }
            EntryAction::Other { key, value } => json!({ key.as_str(): value }),
            _ => Value::Null,
        })
        .collect();
    json!({
        "index": entry.index,
        "name": entry.name,
        "reason": entry.reason.map(|r| r.as_str()),
        "at": entry.at.as_secs_f64(),
        "actions": actions,
        "warnings": entry.diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

fn entries<'py>(py: Python<'py>, entered: &[PhaseEntry]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for entry in entered {
        list.append(to_py(py, &entry_value(entry))?)?;
    }
    Ok(list)
}

#[pymethods]
impl PyPhaseEngine {
    /// The engine of `actor` (its name) of `document` (a `Document`, a path or YAML text), or of its
    /// only actor when `actor` is `None`. Raises `LoadError` for a document that does not load and
    /// `ValueError` for an unknown or ambiguous actor.
    #[new]
    #[pyo3(signature = (document, actor = None))]
    fn new(py: Python<'_>, document: &Bound<'_, PyAny>, actor: Option<&str>) -> PyResult<Self> {
        let loaded = match read_source(py, document)? {
            Source::Document(document) => document,
            Source::Text(_) => Py::new(py, load(py, document)?)?,
        };
        let normalized = oatf::model::normalize(loaded.get().document.clone());
        let view = oatf::model::NormalizedDocument::check(&normalized)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let engine = PhaseEngine::for_document(&view, actor)
            .map_err(|e| PyValueError::new_err(e.message().to_owned()))?;
        Ok(PyPhaseEngine { engine })
    }

    /// The actor's name.
    #[getter]
    fn actor(&self) -> &str {
        self.engine.actor()
    }

    /// The actor's mode (`mcp_server`, …).
    #[getter]
    fn mode(&self) -> &str {
        self.engine.mode()
    }

    /// The name of the current phase.
    #[getter]
    fn phase(&self) -> &str {
        self.engine.phase_name()
    }

    /// The index of the current phase.
    #[getter]
    fn phase_index(&self) -> usize {
        self.engine.phase_index()
    }

    /// The names of every phase, in order.
    #[getter]
    fn phase_names(&self) -> Vec<String> {
        self.engine.phase_names().map(str::to_owned).collect()
    }

    /// Whether the current phase is terminal (it has no trigger).
    #[getter]
    fn is_terminal(&self) -> bool {
        self.engine.is_terminal()
    }

    /// The matching events counted so far in the current phase.
    #[getter]
    fn event_count(&self) -> u64 {
        self.engine.event_count()
    }

    /// When the current phase's `after` elapses (seconds), or `None`.
    #[getter]
    fn next_deadline(&self) -> Option<f64> {
        self.engine.next_deadline().map(|d| d.as_secs_f64())
    }

    /// The extracted values by the names templates use (`token`, `actor.token`).
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.engine.values() {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// Enters the first phase at `now`; returns its entry (`index`, `name`, `reason`, `at`,
    /// `actions`, `warnings`).
    #[pyo3(signature = (now = 0.0))]
    fn start<'py>(&mut self, py: Python<'py>, now: f64) -> PyResult<Bound<'py, PyAny>> {
        let entry = self.engine.start(seconds(now)?);
        to_py(py, &entry_value(&entry))
    }

    /// Applies the current phase's extractors to a message travelling `direction` (`"incoming"`
    /// from the peer, `"outgoing"` to it); returns how many values were captured.
    fn capture(&mut self, direction: &str, content: &Bound<'_, PyAny>) -> PyResult<usize> {
        let content = to_json(content)?;
        Ok(self.engine.capture(parse_direction(direction)?, &content))
    }

    /// Evaluates the current trigger on an event observed from the peer at `now`; returns the phases
    /// entered (a list of entries, empty when the actor stays).
    fn advance_on<'py>(
        &mut self,
        py: Python<'py>,
        event: &str,
        content: &Bound<'py, PyAny>,
        now: f64,
    ) -> PyResult<Bound<'py, PyList>> {
        let content = to_json(content)?;
        let entered = self.engine.advance_on(event, &content, seconds(now)?);
        entries(py, &entered)
    }

    /// `capture` then, for an incoming message, `advance_on`: for traffic that needs no reply.
    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        direction: &str,
        event: &str,
        content: &Bound<'py, PyAny>,
        now: f64,
    ) -> PyResult<Bound<'py, PyList>> {
        let content = to_json(content)?;
        let entered =
            self.engine
                .observe(parse_direction(direction)?, event, &content, seconds(now)?);
        entries(py, &entered)
    }

    /// Advances on every `after` timeout elapsed by `now`; returns the phases entered.
    fn tick<'py>(&mut self, py: Python<'py>, now: f64) -> PyResult<Bound<'py, PyList>> {
        let entered = self.engine.tick(seconds(now)?);
        entries(py, &entered)
    }

    /// The effective state rendered for `request`, with the W-004 warnings; `None` before any state.
    #[pyo3(signature = (request = None))]
    fn render_state<'py>(
        &self,
        py: Python<'py>,
        request: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<(Bound<'py, PyAny>, Vec<String>)>> {
        let request = request.map(to_json).transpose()?;
        self.engine
            .render_state(request.as_ref())
            .map(|(state, warnings)| {
                Ok((
                    to_py(py, &state)?,
                    warnings.iter().map(ToString::to_string).collect(),
                ))
            })
            .transpose()
    }

    /// The response selected for `request` from a dispatch list and rendered: `kind` is `"tool"` or
    /// `"prompt"` (`name` the tool or prompt) or `"list"` (`name` a top-level list such as
    /// `sampling_responses`). Returns `{"index", "entry", "warnings"}`, or `None` when nothing applies.
    fn respond<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        name: &str,
        request: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let dispatch = match kind {
            "tool" => Dispatch::Tool(name),
            "prompt" => Dispatch::Prompt(name),
            "list" => Dispatch::List(name),
            other => {
                return Err(PyValueError::new_err(format!(
                    "kind must be \"tool\", \"prompt\" or \"list\", not {other:?}"
                )));
            }
        };
        let request = to_json(request)?;
        self.engine
            .respond(dispatch, &request)
            .map(|response| {
                let warnings: Vec<String> = response
                    .diagnostics()
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                let value = json!({
                    "index": response.index(),
                    "entry": Value::Object(response.into_entry()),
                    "warnings": warnings,
                });
                to_py(py, &value)
            })
            .transpose()
    }

    /// Makes another actor's extracted value visible as `{{actor.name}}`.
    fn import_value(&mut self, actor: &str, name: &str, value: &str) {
        self.engine.import(actor, name, value);
    }

    fn __repr__(&self) -> String {
        format!(
            "PhaseEngine(actor={:?}, phase={:?})",
            self.engine.actor(),
            self.engine.phase_name()
        )
    }
}
