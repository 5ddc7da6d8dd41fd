//! The exceptions of the package: `OATFError`, its `LoadError` and `TraceError` (decision D-136).

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

pub(crate) fn trace_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
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
