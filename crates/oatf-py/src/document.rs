//! Documents: `load`, `validate`, `normalize`, the `Document` class, diagnostics and `LoadError`.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use oatf::model::Finding;
use oatf::model::ParseOptions;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use serde_json::Value;

use crate::convert::to_py;
use crate::errors::LoadError;

/// One finding: a parse error, a validation error (`V-…`) or a warning (`W-…`); the SDK's
/// `oatf::model::Finding` owns its fields and their values (D-175).
#[pyclass(frozen, from_py_object, module = "oatf", name = "Diagnostic")]
#[derive(Clone, Debug)]
pub(crate) struct PyDiagnostic(Finding);

#[pymethods]
impl PyDiagnostic {
    /// `error` or `warning`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.0.severity().as_str()
    }

    /// `parse` (the YAML could not be read as a document), `validation` or `warning`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.0.kind().as_str()
    }

    /// The rule (`V-020`, `W-001`, …), when the finding has one.
    #[getter]
    fn rule(&self) -> Option<&str> {
        self.0.rule()
    }

    /// The dot-path of the offending field, when there is one.
    #[getter]
    fn path(&self) -> Option<&str> {
        self.0.path()
    }

    /// What is wrong.
    #[getter]
    fn message(&self) -> &str {
        self.0.message()
    }

    /// 1-based line in the YAML source.
    #[getter]
    fn line(&self) -> Option<usize> {
        self.0.line()
    }

    /// 1-based column (in characters) in the YAML source.
    #[getter]
    fn column(&self) -> Option<usize> {
        self.0.column()
    }

    fn __repr__(&self) -> String {
        let field = |value: Option<String>| value.unwrap_or_else(|| "None".to_owned());
        format!(
            "Diagnostic({}, rule={}, path={}, line={}, column={}, message={})",
            py_str(self.severity()),
            field(self.rule().map(py_str)),
            field(self.path().map(py_str)),
            field(self.line().map(|l| l.to_string())),
            field(self.column().map(|c| c.to_string())),
            py_str(self.message())
        )
    }

    fn __str__(&self) -> String {
        let mut text = String::new();
        if let Some(line) = self.line() {
            text.push_str(&format!("line {line}"));
            if let Some(column) = self.column() {
                text.push_str(&format!(", column {column}"));
            }
            text.push_str(": ");
        }
        if let Some(rule) = self.rule() {
            text.push_str(rule);
            text.push_str(": ");
        }
        text.push_str(self.message());
        if let Some(path) = self.path().filter(|p| !p.is_empty()) {
            text.push_str(&format!(" at `{path}`"));
        }
        text
    }

    /// The finding as a plain dict (the fields of `oatf::model::Finding`'s JSON).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(&self.0).unwrap_or(Value::Null);
        to_py(py, &value)
    }
}

impl PyDiagnostic {
    /// The Python view of a parse error, a validation error or a warning.
    fn of(finding: impl Into<Finding>) -> Self {
        PyDiagnostic(finding.into())
    }
}

/// A Python string literal of `text` (its JSON form is one).
fn py_str(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A `LoadError` carrying every problem; its `rule`, `path`, `line`, `column` and `message` are those
/// of the first one.
fn load_error(py: Python<'_>, problems: Vec<PyDiagnostic>) -> PyErr {
    let count = problems.len();
    let headline = match problems.first() {
        Some(first) if count == 1 => first.__str__(),
        Some(first) => format!("{} (and {} more)", first.__str__(), count - 1),
        None => "the document could not be loaded".to_owned(),
    };
    let error = LoadError::new_err(headline);
    let value = error.value(py);
    let first = problems.first().cloned();
    let set = || -> PyResult<()> {
        value.setattr("rule", first.as_ref().and_then(|p| p.rule()))?;
        value.setattr("path", first.as_ref().and_then(|p| p.path()))?;
        value.setattr("line", first.as_ref().and_then(|p| p.line()))?;
        value.setattr("column", first.as_ref().and_then(|p| p.column()))?;
        value.setattr("message", first.as_ref().map(|p| p.message()))?;
        let list = PyList::empty(py);
        for problem in problems {
            list.append(Bound::new(py, problem)?)?;
        }
        value.setattr("errors", list)?;
        Ok(())
    };
    match set() {
        Ok(()) => error,
        Err(e) => e,
    }
}

fn parse_failed(py: Python<'_>, errors: &oatf::ParseErrors) -> PyErr {
    // Every problem at once: the parse errors, then the V- errors of the parts that parsed.
    let rest = py.detach(|| errors.validate_rest(&oatf::default_validate_options()));
    let problems = errors
        .iter()
        .map(PyDiagnostic::of)
        .chain(rest.errors().iter().map(PyDiagnostic::of))
        .collect();
    load_error(py, problems)
}

/// Where YAML comes from: text, bytes, or a file.
pub(crate) enum Source {
    Text(String),
    Document(Py<PyDocument>),
}

/// Reads the argument of `load`, `validate`, `normalize` and `compile`: a `Document`, an `os.PathLike`
/// (a file), `bytes` (UTF-8 YAML), or `str` — a path when it is one line naming an existing file, else
/// YAML text.
pub(crate) fn read_source(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(document) = source.cast::<PyDocument>() {
        return Ok(Source::Document(document.clone().unbind()));
    }
    if let Ok(bytes) = source.cast::<PyBytes>() {
        return decode(py, bytes.as_bytes().to_vec()).map(Source::Text);
    }
    if let Ok(text) = source.cast::<PyString>() {
        let text: String = text.extract()?;
        let path = PathBuf::from(&text);
        if !text.contains('\n') && !text.is_empty() && path.is_file() {
            return read_file(py, path).map(Source::Text);
        }
        if looks_like_file_name(&text) {
            if path.is_dir() {
                // errno 21 is EISDIR: IsADirectoryError.
                return Err(PyOSError::new_err((
                    21,
                    "Is a directory, not a document",
                    text,
                )));
            }
            // errno 2 is ENOENT on every platform; `filename` makes the message name the file.
            return Err(PyFileNotFoundError::new_err((
                2,
                "No such file or directory (a one-line str that is not a YAML mapping is read as a \
                 path)",
                text,
            )));
        }
        return Ok(Source::Text(text));
    }
    match source.extract::<PathBuf>() {
        Ok(path) => read_file(py, path).map(Source::Text),
        Err(_) => Err(PyTypeError::new_err(
            "expected YAML text (str or bytes), a path (os.PathLike) or an oatf.Document",
        )),
    }
}

/// Whether a `str` argument that is not an existing file was meant as one, so that
/// `oatf.load("missing.yaml")` or `oatf.load("attacks/tool-poisoning")` says the file is missing
/// rather than that the document root is a string (D-135): a single line ending in `.yaml`, `.yml`
/// or `.json`, or a single line that YAML cannot read as a mapping (no `: `, no `:` at its end, not
/// starting with a YAML indicator such as `{`, `[`, `-`, `#` or a quote, no control character or
/// byte order mark), which no document is.
fn looks_like_file_name(text: &str) -> bool {
    let trimmed = text.trim();
    if trimmed.is_empty() || text.chars().any(|c| c.is_control() || c == '\u{feff}') {
        return false;
    }
    let lower = trimmed.to_ascii_lowercase();
    let named = [".yaml", ".yml", ".json"]
        .iter()
        .any(|ext| lower.len() > ext.len() && lower.ends_with(ext));
    let mapping = trimmed.contains(": ") || trimmed.contains(":\t") || trimmed.ends_with(':');
    let indicator = trimmed.starts_with([
        '{', '[', '-', '#', '"', '\'', '!', '&', '*', '|', '>', '%', '@', '`', '?', ',',
    ]);
    named || !(mapping || indicator)
}

/// An `OSError` of the right subclass (`FileNotFoundError`, `PermissionError`, …) for `error`, with
/// `filename` set, so that the message names the file.
pub(crate) fn os_error(path: &Path, error: &std::io::Error) -> PyErr {
    let filename = path.display().to_string();
    match error.raw_os_error() {
        // OSError(errno, strerror, filename) picks the subclass from errno.
        Some(errno) => PyOSError::new_err((errno, error.to_string(), filename)),
        None => PyOSError::new_err(format!("{filename}: {error}")),
    }
}

fn read_file(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let limit = ParseOptions::DEFAULT_MAX_INPUT_BYTES;
    let bytes = py
        .detach(|| -> std::io::Result<Vec<u8>> {
            let file = std::fs::File::open(&path)?;
            // Read one byte past the limit at most: the parser reports the size error.
            let mut bytes = Vec::new();
            file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
            Ok(bytes)
        })
        .map_err(|e| os_error(&path, &e))?;
    decode(py, bytes)
}

/// UTF-8 text, or the parser's own error for the first invalid byte (with its line and column).
fn decode(py: Python<'_>, bytes: Vec<u8>) -> PyResult<String> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => match oatf::model::parse_bytes(e.as_bytes()) {
            Err(errors) => Err(parse_failed(py, &errors)),
            Ok(_) => Err(PyValueError::new_err("the input is not valid UTF-8")),
        },
    }
}

/// A loaded OATF document: parsed, validated and normalized (SDK §3.5).
#[pyclass(frozen, module = "oatf", name = "Document")]
pub(crate) struct PyDocument {
    pub(crate) document: oatf::Document,
    warnings: Vec<PyDiagnostic>,
    /// The document as JSON, for the accessors below and `to_dict`.
    value: Value,
    /// The YAML it was loaded from (pickled as is, so nothing the author wrote is lost), or `None`
    /// for the result of `normalize`, which pickles as its canonical YAML.
    source: Option<Arc<str>>,
}

impl PyDocument {
    fn new(document: oatf::Document, warnings: Vec<PyDiagnostic>) -> Self {
        let value = serde_json::to_value(&document).unwrap_or(Value::Null);
        PyDocument {
            document,
            warnings,
            value,
            source: None,
        }
    }

    /// The YAML text that rebuilds this document: the text it was loaded from, else its canonical
    /// serialization.
    pub(crate) fn source_text(&self) -> Arc<str> {
        match &self.source {
            Some(source) => Arc::clone(source),
            None => Arc::from(oatf::model::serialize(&self.document)),
        }
    }

    /// Loads `text` (a document that loaded before, on another process).
    pub(crate) fn from_text(py: Python<'_>, text: &str) -> PyResult<Self> {
        match py.detach(|| oatf::load(text)) {
            Ok(loaded) => {
                let mut document = PyDocument::new(
                    loaded.document,
                    loaded.warnings.iter().map(PyDiagnostic::of).collect(),
                );
                document.source = Some(Arc::from(text));
                Ok(document)
            }
            Err(oatf::LoadError::Parse(errors)) => Err(parse_failed(py, &errors)),
            Err(oatf::LoadError::Invalid(errors)) => Err(load_error(
                py,
                errors.iter().map(PyDiagnostic::of).collect(),
            )),
            Err(other) => Err(PyValueError::new_err(other.to_string())),
        }
    }

    fn attack(&self, key: &str) -> Option<&Value> {
        self.value.get("attack").and_then(|a| a.get(key))
    }
}

#[pymethods]
impl PyDocument {
    /// `attack.id`, when the document has one.
    #[getter]
    fn id(&self) -> Option<&str> {
        self.attack("id").and_then(Value::as_str)
    }

    /// `attack.name`.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.attack("name").and_then(Value::as_str)
    }

    /// The severity level (`informational` … `critical`), whichever form it was written in.
    #[getter]
    fn severity(&self) -> Option<&str> {
        let severity = self.attack("severity")?;
        severity
            .as_str()
            .or_else(|| severity.get("level").and_then(Value::as_str))
    }

    /// The indicators, as dicts (after normalization every one has its `id`).
    #[getter]
    fn indicators<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let empty = Value::Array(Vec::new());
        to_py(py, self.attack("indicators").unwrap_or(&empty))
    }

    /// The actors of `attack.execution`, as dicts (normalization gives single-actor documents one
    /// actor named `default`).
    #[getter]
    fn actors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let empty = Value::Array(Vec::new());
        let actors = self
            .attack("execution")
            .and_then(|e| e.get("actors"))
            .unwrap_or(&empty);
        to_py(py, actors)
    }

    /// The warnings validation gave (`W-…`); a loaded document has no errors.
    #[getter]
    fn warnings(&self) -> Vec<PyDiagnostic> {
        self.warnings.clone()
    }

    /// The document as plain Python data (dicts, lists, str, int, float, bool, None).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.value)
    }

    /// The document as canonical YAML (SDK §3.4).
    fn to_yaml(&self) -> String {
        oatf::model::serialize(&self.document)
    }

    /// Pickles by YAML text (the text it was loaded from): loaded again when unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String, bool))> {
        let rebuild = py.import("oatf._oatf")?.getattr("_document_from_yaml")?;
        Ok((
            rebuild,
            (self.source_text().to_string(), self.source.is_some()),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Document(id={:?}, name={:?})",
            self.id().unwrap_or(""),
            self.name().unwrap_or("")
        )
    }
}

/// Parses, validates and normalizes a document (SDK §3.5).
#[pyfunction]
pub(crate) fn load(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<PyDocument> {
    let text = match read_source(py, source)? {
        Source::Text(text) => text,
        Source::Document(document) => {
            let document = document.get();
            let mut copy = PyDocument::new(document.document.clone(), document.warnings.clone());
            copy.source = document.source.clone();
            return Ok(copy);
        }
    };
    PyDocument::from_text(py, &text)
}

/// Unpickles a `Document`: `loaded` documents are loaded from their text again, the others (results
/// of `normalize`) normalized from their canonical YAML.
#[pyfunction]
pub(crate) fn _document_from_yaml(
    py: Python<'_>,
    text: &str,
    loaded: bool,
) -> PyResult<PyDocument> {
    if loaded {
        return PyDocument::from_text(py, text);
    }
    let document = py
        .detach(|| oatf::parse(text))
        .map_err(|errors| parse_failed(py, &errors))?;
    Ok(PyDocument::new(
        py.detach(|| oatf::model::normalize(document)),
        Vec::new(),
    ))
}

/// The outcome of `validate`: every error and warning.
#[pyclass(frozen, module = "oatf", name = "ValidationResult")]
pub(crate) struct PyValidationResult {
    /// Parse and validation errors.
    #[pyo3(get)]
    errors: Vec<PyDiagnostic>,
    /// Warnings.
    #[pyo3(get)]
    warnings: Vec<PyDiagnostic>,
}

#[pymethods]
impl PyValidationResult {
    /// Whether the document is conforming (no errors; warnings allowed).
    #[getter]
    fn valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Errors, then warnings.
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.errors.iter().chain(&self.warnings).cloned().collect()
    }

    fn __bool__(&self) -> bool {
        self.valid()
    }

    fn __repr__(&self) -> String {
        format!(
            "ValidationResult(valid={}, errors={}, warnings={})",
            if self.valid() { "True" } else { "False" },
            self.errors.len(),
            self.warnings.len()
        )
    }
}

/// Validates a document (SDK §3.2); a document that does not parse gives its parse errors.
#[pyfunction]
pub(crate) fn validate(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<PyValidationResult> {
    let text = match read_source(py, source) {
        Ok(Source::Text(text)) => text,
        Ok(Source::Document(document)) => {
            let result = py.detach(|| oatf::validate(&document.get().document));
            return Ok(validation_result(&result));
        }
        Err(e) if e.is_instance_of::<LoadError>(py) => {
            // Undecodable bytes: report them as the parse error they are.
            let errors = e
                .value(py)
                .getattr("errors")?
                .extract::<Vec<PyDiagnostic>>()?;
            return Ok(PyValidationResult {
                errors,
                warnings: Vec::new(),
            });
        }
        Err(e) => return Err(e),
    };
    let outcome = py.detach(|| match oatf::parse(&text) {
        Ok(document) => Ok(oatf::validate(&document)),
        Err(errors) => {
            let rest = errors.validate_rest(&oatf::default_validate_options());
            Err((errors, rest))
        }
    });
    Ok(match outcome {
        Ok(result) => validation_result(&result),
        // The parse errors, then the findings of the parts that parsed.
        Err((errors, rest)) => {
            let rest = validation_result(&rest);
            PyValidationResult {
                errors: errors
                    .iter()
                    .map(PyDiagnostic::of)
                    .chain(rest.errors)
                    .collect(),
                warnings: rest.warnings,
            }
        }
    })
}

fn validation_result(result: &oatf::ValidationResult) -> PyValidationResult {
    PyValidationResult {
        errors: result.errors().iter().map(PyDiagnostic::of).collect(),
        warnings: result.warnings().iter().map(PyDiagnostic::of).collect(),
    }
}

/// Parses and normalizes a document without validating it (SDK §3.3): the defaults and generated ids
/// filled in. Raises `LoadError` when it does not parse.
#[pyfunction]
pub(crate) fn normalize(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<PyDocument> {
    let document = match read_source(py, source)? {
        Source::Text(text) => py
            .detach(|| oatf::parse(&text))
            .map_err(|errors| parse_failed(py, &errors))?,
        Source::Document(document) => document.get().document.clone(),
    };
    Ok(PyDocument::new(
        py.detach(|| oatf::model::normalize(document)),
        Vec::new(),
    ))
}
