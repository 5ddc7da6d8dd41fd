//! Python bindings of the oatf SDK: the extension module `oatf._oatf` of the `oatf` wheel.
//!
//! A thin layer over the `oatf` facade: every rule lives in the SDK; this crate converts between
//! Python and Rust values, releases the GIL while the SDK works, and turns SDK errors into Python
//! exceptions. The Python package (`python/oatf/`) re-exports this module and carries the typing
//! stubs. `docs/python.md` is the user guide.
#![forbid(unsafe_code)]

mod attack;
mod campaign;
mod convert;
mod document;
mod engine;
mod judge;
mod primitives;
mod trace;
mod trace_evaluator;
mod verdict;

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

pyo3::create_exception!(
    oatf,
    OATFError,
    PyException,
    "Base class of the errors raised by oatf."
);
pyo3::create_exception!(
    oatf,
    LoadError,
    OATFError,
    "A document that does not parse or is not valid. `errors` holds every problem (`Diagnostic`); \
     `rule`, `path`, `line`, `column` and `message` are those of the first."
);

/// `oatf.TraceError`, a subclass of both `OATFError` and `ValueError` (decision D-136): a class
/// with two bases is made by calling `type`, once per interpreter.
static TRACE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const TRACE_ERROR_DOC: &str = "A trace entry that is not a message: not JSON, or JSON that is not a \
     trace message (raised by `TraceEvaluator.push`, and by `Attack.evaluate_trace` with \
     `strict=True`). A `ValueError` as well as an `OATFError`. `line` is the line of the file (or \
     the position of the entry, from 1), `trace` names the trace, `message` says what is wrong.";

fn trace_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    TRACE_ERROR
        .get_or_try_init(py, || {
            let namespace = PyDict::new(py);
            namespace.set_item("__doc__", TRACE_ERROR_DOC)?;
            namespace.set_item("__module__", "oatf")?;
            let bases = (py.get_type::<OATFError>(), py.get_type::<PyValueError>());
            let class = py
                .get_type::<PyType>()
                .call1(("TraceError", bases, namespace))?;
            Ok(class.cast_into::<PyType>()?.unbind())
        })
        .map(|class| class.bind(py))
}

/// A `TraceError` whose text is `shown` and whose attributes say which trace, which line and what.
pub(crate) fn trace_error(
    py: Python<'_>,
    trace: &str,
    line: u64,
    message: &str,
    shown: String,
) -> PyErr {
    let make = || -> PyResult<PyErr> {
        let error = trace_error_type(py)?.call1((shown,))?;
        error.setattr("trace", trace)?;
        error.setattr("line", line)?;
        error.setattr("message", message)?;
        Ok(PyErr::from_value(error))
    };
    make().unwrap_or_else(|e| e)
}

/// The module `oatf._oatf`.
#[pymodule]
fn _oatf(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("OATFError", py.get_type::<OATFError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("TraceError", trace_error_type(py)?)?;
    m.add_class::<document::PyDocument>()?;
    m.add_class::<document::PyDiagnostic>()?;
    m.add_class::<document::PyValidationResult>()?;
    m.add_class::<attack::PyAttack>()?;
    m.add_class::<verdict::PyVerdict>()?;
    m.add_class::<verdict::PyIndicatorVerdict>()?;
    m.add_class::<verdict::PyTraceWarning>()?;
    m.add_class::<trace_evaluator::PyTraceEvaluator>()?;
    m.add_class::<engine::PyPhaseEngine>()?;
    m.add_function(wrap_pyfunction!(document::load, m)?)?;
    m.add_function(wrap_pyfunction!(document::validate, m)?)?;
    m.add_function(wrap_pyfunction!(document::normalize, m)?)?;
    m.add_function(wrap_pyfunction!(attack::compile, m)?)?;
    m.add_function(wrap_pyfunction!(document::_document_from_yaml, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::_attack_from_yaml, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::_compile_cache_stats, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::_compat_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::campaign_columns, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::evaluate_run, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::failed_run, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::trace_file_problem, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::resolve_wildcard_path, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::resolve_simple_path, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::evaluate_condition, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::interpolate_template, m)?)?;
    Ok(())
}
