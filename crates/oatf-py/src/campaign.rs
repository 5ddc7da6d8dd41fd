//! Campaign runs for the engine-neutral `oatf.campaign` (and `oatf.dask` over it): one row per run,
//! built by `oatf::report::campaign` (the CSV columns of `oatf evaluate --manifest`), and attacks
//! unpickled from their YAML through a per-process compile cache.

use std::collections::HashMap;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use oatf::CompiledAttack;
use oatf::report::campaign::{self, Cell, RunOutcome};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::attack::PyAttack;
use crate::document::PyDocument;
use crate::judge::eval_options;
use crate::trace::read_trace;

/// Compiled attacks this process keeps, by YAML text. Past this many, the cache starts over: a
/// campaign has few documents, and a worker that sees more only compiles again.
const CACHE_CAPACITY: usize = 256;

#[derive(Default)]
struct CompileCache {
    attacks: HashMap<Arc<str>, Arc<CompiledAttack>>,
    hits: u64,
    misses: u64,
}

fn cache() -> &'static Mutex<CompileCache> {
    static CACHE: OnceLock<Mutex<CompileCache>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// Unpickles an `Attack`: compiled from its YAML once per process (cached by text) unless it has a
/// semantic evaluator, which is compiled with the attack each time.
#[pyfunction]
#[pyo3(signature = (text, semantic_evaluator = None))]
pub(crate) fn _attack_from_yaml(
    py: Python<'_>,
    text: &str,
    semantic_evaluator: Option<Py<PyAny>>,
) -> PyResult<PyAttack> {
    let cached = semantic_evaluator.is_none();
    if cached {
        let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
        if let Some((source, attack)) = cache.attacks.get_key_value(text) {
            let attack = PyAttack::new(Arc::clone(attack), Arc::clone(source), None);
            cache.hits += 1;
            return Ok(attack);
        }
    }
    let options = eval_options(py, semantic_evaluator.as_ref())?;
    let document = PyDocument::from_text(py, text)?;
    let compiled = Arc::new(py.detach(|| CompiledAttack::new(&document.document, &options)));
    let source: Arc<str> = Arc::from(text);
    if cached {
        let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
        if cache.attacks.len() >= CACHE_CAPACITY {
            cache.attacks.clear();
        }
        cache
            .attacks
            .insert(Arc::clone(&source), Arc::clone(&compiled));
        cache.misses += 1;
    }
    Ok(PyAttack::new(compiled, source, semantic_evaluator))
}

/// `(hits, misses)` of this process's compile cache: a miss is one compilation.
/// The names of the compatibility profiles (D-100), the default first.
#[pyfunction]
pub(crate) fn _compat_profiles() -> Vec<&'static str> {
    oatf::trace::Compat::ALL
        .iter()
        .map(|c| c.as_str())
        .collect()
}

#[pyfunction]
pub(crate) fn _compile_cache_stats() -> (u64, u64) {
    let cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    (cache.hits, cache.misses)
}

/// The columns of a campaign row, in order (`oatf evaluate --manifest --format csv`), each with
/// whether it holds counts (int, or None in a run without a verdict) rather than text.
#[pyfunction]
pub(crate) fn campaign_columns() -> Vec<(&'static str, bool)> {
    campaign::CSV_COLUMNS
        .iter()
        .map(|name| (*name, campaign::COUNT_COLUMNS.contains(name)))
        .collect()
}

fn row<'py>(py: Python<'py>, cells: Vec<Cell>) -> PyResult<Bound<'py, PyTuple>> {
    let values: Vec<Py<PyAny>> = cells
        .into_iter()
        .map(|cell| -> PyResult<Py<PyAny>> {
            Ok(match cell {
                Cell::Text(text) => text.into_pyobject(py)?.into_any().unbind(),
                Cell::Count(n) => n.into_pyobject(py)?.into_any().unbind(),
                _ => py.None(),
            })
        })
        .collect::<PyResult<_>>()?;
    PyTuple::new(py, values)
}

/// A Python binary file object (`read(n)` returning bytes) as a `Read`; each read takes the GIL.
struct PyReader<'a>(&'a Py<PyAny>);

impl Read for PyReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let chunk = self
                .0
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            let bytes = chunk
                .cast::<PyBytes>()
                .map_err(|_| std::io::Error::other("read() did not return bytes"))?
                .as_bytes();
            // A file object may return more than asked for; never more than fits.
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            Ok(n)
        })
    }
}

/// Reads from `python_file` this much at a time, so that the GIL is taken once per chunk.
const PY_READ_CHUNK: usize = 1 << 20;

/// Evaluates `trace` against `attack` and returns the run's row. `document` and `trace` name the
/// inputs in the row, `group` is its last column; the trace is read from `file` (a binary file
/// object, such as an fsspec file) when given, else opened as a local path. A trace that cannot be
/// opened or read gives a row with the error, never an exception.
#[pyfunction]
#[pyo3(signature = (document, attack, trace, file = None, *, max_line_len = None, group = None, compat = None))]
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per argument of the Python function, as pyo3 maps them"
)]
pub(crate) fn evaluate_run<'py>(
    py: Python<'py>,
    document: &str,
    attack: &PyAttack,
    trace: &str,
    file: Option<Py<PyAny>>,
    max_line_len: Option<usize>,
    group: Option<&str>,
    compat: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let compat = crate::trace::compat_of(compat)?;
    let compiled = &*attack.attack;
    let attack_id = campaign::attack_label(document, true, compiled.attack_id());
    let max_line_len = max_line_len.or(Some(oatf::trace::DEFAULT_MAX_LINE_LEN));
    let outcome = py.detach(|| -> Result<_, (bool, String)> {
        let input: Box<dyn std::io::BufRead> = match &file {
            Some(file) => Box::new(BufReader::with_capacity(PY_READ_CHUNK, PyReader(file))),
            None => Box::new(BufReader::with_capacity(
                1 << 16,
                oatf::report::open_regular_file(Path::new(trace))
                    .map_err(|reason| (true, reason))?
                    .0,
            )),
        };
        match read_trace(
            compiled,
            input,
            trace.to_owned(),
            (false, max_line_len),
            compat,
        ) {
            Ok(run) => Ok(run.finish()),
            Err(failure) => Err((false, failure.to_string())),
        }
    });
    let cells = match &outcome {
        Ok(run) => campaign::campaign_row(
            document,
            &attack_id,
            trace,
            group,
            RunOutcome::Verdict(&run.verdict, &run.stats),
        ),
        Err((true, reason)) => campaign::campaign_row(
            document,
            &attack_id,
            trace,
            group,
            RunOutcome::Unreadable { reason },
        ),
        Err((false, message)) => campaign::campaign_row(
            document,
            &attack_id,
            trace,
            group,
            RunOutcome::Failed {
                exit_code: campaign::EXIT_NO_INPUT,
                message,
            },
        ),
    };
    row(py, cells)
}

/// Why the local trace file `path` cannot be read, in the words of a campaign row (the checks of
/// `oatf::report::open_regular_file`: it opens, and is a regular file), or `None`. `oatf.campaign`
/// asks before opening a compressed trace itself (D-139).
#[pyfunction]
pub(crate) fn trace_file_problem(py: Python<'_>, path: &str) -> Option<String> {
    py.detach(|| oatf::report::open_regular_file(Path::new(path)).err())
}

/// The row of a run without a verdict. With `attack`, the trace could not be opened (`reason`
/// says why; exit code 66); without, the document could not be loaded (exit code 65).
#[pyfunction]
#[pyo3(signature = (document, attack, trace, reason, *, group = None))]
pub(crate) fn failed_run<'py>(
    py: Python<'py>,
    document: &str,
    attack: Option<&PyAttack>,
    trace: &str,
    reason: &str,
    group: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let cells = match attack {
        Some(attack) => campaign::campaign_row(
            document,
            &campaign::attack_label(document, true, attack.attack.attack_id()),
            trace,
            group,
            RunOutcome::Unreadable { reason },
        ),
        None => campaign::campaign_row(
            document,
            &campaign::attack_label(document, false, None),
            trace,
            group,
            RunOutcome::Failed {
                exit_code: campaign::EXIT_INVALID_DOCUMENT,
                message: campaign::DOCUMENT_NOT_LOADED,
            },
        ),
    };
    row(py, cells)
}
