//! `TraceEvaluator`: a trace evaluated one pushed message at a time, owning its attack.

use std::sync::Arc;

use oatf::CompiledAttack;
use oatf::report::TraceRun;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::attack::PyAttack;
use crate::judge::in_thread;
use crate::trace::{compat_of, message_of, push_all};
use crate::verdict::PyVerdict;

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
                        run.push_malformed(self.position, malformed.message().to_owned());
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
