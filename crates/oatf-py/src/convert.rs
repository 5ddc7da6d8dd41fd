//! Python objects ⇄ `serde_json::Value`, with the depth limit of JSON text (serde_json refuses more
//! than 128 levels), so a Python value can never build a deeper `Value` than a trace line can.

use pyo3::IntoPyObjectExt as _;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// The deepest Python value converted to JSON: the nesting serde_json accepts in JSON text.
pub(crate) const MAX_DEPTH: usize = 128;

/// A Python value (dict, list, tuple, str, int, float, bool, None) as JSON.
///
/// Raises `ValueError` for values deeper than [`MAX_DEPTH`] and for NaN or infinite floats (JSON has
/// none), `TypeError` for other types and for non-string dict keys, naming where the value is.
pub(crate) fn to_json(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    convert(object, 1, &mut String::from("$"))
}

fn convert(object: &Bound<'_, PyAny>, depth: usize, at: &mut String) -> PyResult<Value> {
    if object.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = object.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if object.is_instance_of::<PyInt>() {
        if let Ok(i) = object.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = object.extract::<u64>() {
            return Ok(Value::from(u));
        }
        // Like a JSON parser without arbitrary precision: a larger integer becomes a float.
        let f: f64 = object.extract()?;
        return float(f, at);
    }
    if object.is_instance_of::<PyFloat>() {
        return float(object.extract()?, at);
    }
    if object.is_instance_of::<PyString>() {
        return Ok(Value::String(object.extract()?));
    }
    let deeper = depth + 1;
    if let Ok(dict) = object.cast::<PyDict>() {
        check_depth(depth, at)?;
        let mut map = Map::with_capacity(dict.len());
        for (key, value) in dict.iter() {
            let key: String = key.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{at}: a dict key is {}, JSON object keys must be str",
                    type_name(&key)
                ))
            })?;
            let len = at.len();
            at.push('.');
            at.push_str(&key);
            let value = convert(&value, deeper, at)?;
            at.truncate(len);
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if object.is_instance_of::<PyList>() || object.is_instance_of::<PyTuple>() {
        check_depth(depth, at)?;
        let mut items = Vec::with_capacity(object.len().unwrap_or(0));
        for (index, item) in object.try_iter()?.enumerate() {
            let len = at.len();
            at.push_str(&format!("[{index}]"));
            items.push(convert(&item?, deeper, at)?);
            at.truncate(len);
        }
        return Ok(Value::Array(items));
    }
    Err(PyTypeError::new_err(format!(
        "{at}: {} is not a JSON value (use dict, list, tuple, str, int, float, bool or None)",
        type_name(object)
    )))
}

fn check_depth(depth: usize, at: &str) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{at}: the value nests deeper than the limit of {MAX_DEPTH} levels"
        )));
    }
    Ok(())
}

fn float(f: f64, at: &str) -> PyResult<Value> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| PyValueError::new_err(format!("{at}: {f} is not a JSON number")))
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object".to_owned())
}

/// JSON as Python: objects become dicts (key order kept), arrays lists.
///
/// The values converted come from this library (documents read within the YAML nesting limit,
/// verdicts), so their depth is bounded; a deeper one is cut at [`MAX_DEPTH`] × 4 with `None`.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_py_at(py, value, 1)
}

fn to_py_at<'py>(py: Python<'py>, value: &Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH * 4 {
        return Ok(py.None().into_bound(py));
    }
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py),
            (None, Some(u)) => u.into_bound_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py_at(py, item, depth + 1)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, to_py_at(py, item, depth + 1)?)?;
            }
            Ok(dict.into_any())
        }
    }
}
