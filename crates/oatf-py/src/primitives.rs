//! The execution primitives a harness needs (SDK §5): paths, conditions, durations, templates.

use std::collections::HashMap;

use oatf::primitives::CompiledCondition;
use oatf::primitives::Condition;
use oatf::primitives::WildcardPath;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::convert::{to_json, to_py};

/// The values a wildcard dot-path (`content[*].text`) selects in `value` (SDK §5.1.2); an invalid
/// path raises `ValueError`.
#[pyfunction]
pub(crate) fn resolve_wildcard_path<'py>(
    py: Python<'py>,
    path: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let path = WildcardPath::parse(path).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let value = to_json(value)?;
    let list = PyList::empty(py);
    for found in path.resolve(&value) {
        list.append(to_py(py, found)?)?;
    }
    Ok(list)
}

/// The value a simple dot-path (`arguments.path`) names in `value`, or `None` (SDK §5.1.1).
#[pyfunction]
pub(crate) fn resolve_simple_path<'py>(
    py: Python<'py>,
    path: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let value = to_json(value)?;
    match oatf::primitives::resolve_simple_path(path, &value) {
        Some(found) => to_py(py, found),
        None => Ok(py.None().into_bound(py)),
    }
}

/// Whether `value` satisfies `condition` (SDK §5.3): a condition mapping such as
/// `{"contains": "x"}`, or a plain value compared for equality. An invalid condition (a bad regex, an
/// unknown operator) raises `ValueError`.
#[pyfunction]
pub(crate) fn evaluate_condition(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    let condition = Condition::from_value(to_json(condition)?)
        .and_then(|c| CompiledCondition::new(&c))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let value = to_json(value)?;
    py.detach(|| condition.evaluate(&value))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A duration (`30s`, `5m`, `PT1H30M`, SDK §5.2) as a `datetime.timedelta`; an invalid one raises
/// `ValueError`.
#[pyfunction]
pub(crate) fn parse_duration<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let duration =
        oatf::primitives::parse_duration(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let timedelta = py.import("datetime")?.getattr("timedelta")?;
    let seconds = duration.as_secs();
    // timedelta holds at most 999,999,999 days; a longer duration raises its OverflowError.
    timedelta.call1((0, seconds, duration.subsec_micros()))
}

/// Interpolates `{{name}}`, `{{request.path}}` and `{{response.path}}` references (SDK §5.6).
///
/// Returns the text and the diagnostics (W-004) of references that resolved to nothing.
#[pyfunction]
#[pyo3(signature = (template, extractors = None, request = None, response = None))]
pub(crate) fn interpolate_template(
    template: &str,
    extractors: Option<HashMap<String, String>>,
    request: Option<&Bound<'_, PyAny>>,
    response: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    let extractors = extractors.unwrap_or_default();
    let request = request.map(to_json).transpose()?;
    let response = response.map(to_json).transpose()?;
    let (text, diagnostics) = oatf::runtime::interpolate_template(
        template,
        &extractors,
        request.as_ref(),
        response.as_ref(),
    );
    Ok((text, diagnostics.iter().map(ToString::to_string).collect()))
}
