//! The Python judge: a callable as the SDK's `SemanticEvaluator`, the evaluation options that
//! install it, and the `oatf._judges` helpers that run async judges and the `*_async` methods
//! (D-138).

use std::sync::Arc;

use oatf::EvaluationError;
use oatf::EvaluationErrorKind;
use oatf::eval::SemanticEvaluator;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use serde_json::Value;

use crate::convert::to_py;

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
                // The range is the evaluator's rule (oatf-eval, D-250), not the binding's.
                Ok(score) => Ok(score),
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
pub(crate) fn in_thread<'py>(
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
