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
mod primitives;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

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
pyo3::create_exception!(
    oatf,
    TraceError,
    OATFError,
    "A trace entry that is not a message (raised by `TraceEvaluator.push`, and by \
     `Attack.evaluate_trace` with `strict=True`)."
);

/// The module `oatf._oatf`.
#[pymodule]
fn _oatf(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("OATFError", py.get_type::<OATFError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add_class::<document::PyDocument>()?;
    m.add_class::<document::PyDiagnostic>()?;
    m.add_class::<document::PyValidationResult>()?;
    m.add_class::<attack::PyAttack>()?;
    m.add_class::<attack::PyVerdict>()?;
    m.add_class::<attack::PyIndicatorVerdict>()?;
    m.add_class::<attack::PyTraceWarning>()?;
    m.add_class::<attack::PyTraceEvaluator>()?;
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
    m.add_function(wrap_pyfunction!(primitives::resolve_wildcard_path, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::resolve_simple_path, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::evaluate_condition, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(primitives::interpolate_template, m)?)?;
    Ok(())
}
