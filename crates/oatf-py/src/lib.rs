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
mod errors;
mod judge;
mod primitives;
mod trace;
mod trace_evaluator;
mod verdict;

use pyo3::prelude::*;

use errors::{LoadError, OATFError, trace_error_type};

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
