//! Verdicts as Python sees them: `Verdict`, `IndicatorVerdict` and `TraceWarning`.

use oatf::AttackVerdict;
use oatf::IndicatorVerdict;
use oatf::report::FinishedRun;
use oatf::trace::TraceWarning;
use pyo3::prelude::*;
use serde_json::Value;

use crate::convert::to_py;

/// The verdict of one indicator (SDK §2.19).
#[pyclass(frozen, module = "oatf", name = "IndicatorVerdict")]
pub(crate) struct PyIndicatorVerdict {
    verdict: IndicatorVerdict,
}

#[pymethods]
impl PyIndicatorVerdict {
    /// The indicator's id.
    #[getter]
    fn indicator_id(&self) -> &str {
        &self.verdict.indicator_id
    }

    /// `matched`, `not_matched`, `error` or `skipped`.
    #[getter]
    fn result(&self) -> &'static str {
        self.verdict.result.as_str()
    }

    /// What matched (naming the message of a trace), or why the indicator failed or was skipped.
    #[getter]
    fn evidence(&self) -> Option<&str> {
        self.verdict.evidence.as_deref()
    }

    /// When the verdict was produced (RFC 3339, UTC).
    #[getter]
    fn timestamp(&self) -> Option<&str> {
        self.verdict.timestamp.as_deref()
    }

    /// The verdict as a dict, as in the JSON verdict document.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(&self.verdict).unwrap_or(Value::Null),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "IndicatorVerdict({:?}, {})",
            self.verdict.indicator_id, self.verdict.result
        )
    }
}

/// The verdict of an attack (SDK §2.19, format §9.3).
/// A warning of a trace evaluation (decision D-70): a declared actor without messages
/// (`actor_without_messages`) or an indicator target that never resolved (`unresolved_target`).
#[pyclass(frozen, module = "oatf", name = "TraceWarning")]
pub(crate) struct PyTraceWarning {
    warning: TraceWarning,
}

#[pymethods]
impl PyTraceWarning {
    /// `actor_without_messages` or `unresolved_target`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.warning.kind.as_str()
    }

    /// The indicator the warning is about (`unresolved_target`).
    #[getter]
    fn indicator_id(&self) -> Option<&str> {
        self.warning.indicator_id.as_deref()
    }

    /// The declared actor the warning is about (`actor_without_messages`).
    #[getter]
    fn actor(&self) -> Option<&str> {
        self.warning.actor.as_deref()
    }

    /// The target path that never resolved, as written.
    #[getter]
    fn path(&self) -> Option<&str> {
        self.warning.path.as_deref()
    }

    /// The closest path the messages had ("did you mean"), when one is close.
    #[getter]
    fn suggestion(&self) -> Option<&str> {
        self.warning.suggestion.as_deref()
    }

    /// The warning as people read it.
    #[getter]
    fn message(&self) -> &str {
        &self.warning.message
    }

    /// The warning as a dict, as in the JSON verdict document's `warnings`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(&self.warning).unwrap_or(Value::Null),
        )
    }

    fn __str__(&self) -> &str {
        &self.warning.message
    }

    fn __repr__(&self) -> String {
        format!(
            "TraceWarning({}, {:?})",
            self.warning.kind, self.warning.message
        )
    }
}

#[pyclass(frozen, module = "oatf", name = "Verdict")]
pub(crate) struct PyVerdict {
    verdict: AttackVerdict,
    /// What was read of the trace, for a trace evaluation (the exit code under `strict`).
    stats: Option<oatf::report::TraceStats>,
    /// The JSON verdict document of `oatf evaluate --format json` (`oatf::report::json_document`),
    /// for a trace evaluation.
    report: Option<Value>,
    /// The first malformed trace entries: (line or position, what is wrong).
    trace_errors: Vec<(u64, String)>,
}

impl PyVerdict {
    pub(crate) fn new(verdict: AttackVerdict) -> Self {
        PyVerdict {
            verdict,
            stats: None,
            report: None,
            trace_errors: Vec::new(),
        }
    }

    /// The verdict of a trace run, with its JSON verdict document and its first malformed entries.
    pub(crate) fn of_run(run: FinishedRun) -> Self {
        let report = run.json_document();
        PyVerdict {
            trace_errors: run
                .malformed
                .into_iter()
                .map(|entry| (entry.line, entry.message))
                .collect(),
            verdict: run.verdict,
            stats: Some(run.stats),
            report: Some(report),
        }
    }

    /// The JSON verdict document: for a trace evaluation the one `oatf evaluate --format json` writes
    /// (with `trace` and `warnings`), else the serialized `AttackVerdict`.
    fn document(&self) -> Value {
        match &self.report {
            Some(report) => report.clone(),
            None => serde_json::to_value(&self.verdict).unwrap_or(Value::Null),
        }
    }
}

#[pymethods]
impl PyVerdict {
    /// `exploited`, `not_exploited`, `partial` or `error`.
    #[getter]
    fn result(&self) -> &'static str {
        self.verdict.result.as_str()
    }

    /// Whether the result is `exploited`.
    #[getter]
    fn exploited(&self) -> bool {
        self.verdict.result == oatf::AttackResult::Exploited
    }

    /// The attack's id, when the document has one.
    #[getter]
    fn attack_id(&self) -> Option<&str> {
        self.verdict.attack_id.as_deref()
    }

    /// The highest outcome tier among matched indicators that have one (`ingested`, `local_action`,
    /// `boundary_breach`), or `None` (SDK §4.5).
    #[getter]
    fn max_tier(&self) -> Option<&'static str> {
        self.verdict.max_tier.map(|tier| tier.as_str())
    }

    /// One verdict per declared indicator, in declaration order.
    #[getter]
    fn indicator_verdicts(&self) -> Vec<PyIndicatorVerdict> {
        self.verdict
            .indicator_verdicts
            .iter()
            .map(|v| PyIndicatorVerdict { verdict: v.clone() })
            .collect()
    }

    /// Counts of each indicator result: `matched`, `not_matched`, `error`, `skipped`.
    #[getter]
    fn evaluation_summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.verdict.evaluation_summary).unwrap_or(Value::Null),
        )
    }

    /// Why the result is `error` when no indicator verdict says it.
    #[getter]
    fn diagnostic(&self) -> Option<&str> {
        self.verdict.diagnostic.as_deref()
    }

    /// When the verdict was produced (RFC 3339, UTC).
    #[getter]
    fn timestamp(&self) -> Option<&str> {
        self.verdict.timestamp.as_deref()
    }

    /// What was read of the trace (messages, malformed lines, …), for a trace evaluation.
    #[getter]
    fn trace<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let trace = self.report.as_ref().and_then(|report| report.get("trace"));
        to_py(py, trace.unwrap_or(&Value::Null))
    }

    /// The first 100 malformed trace entries as `(line, message)`; a trace read from an iterable
    /// numbers its items from 1.
    #[getter]
    fn trace_errors(&self) -> Vec<(u64, String)> {
        self.trace_errors.clone()
    }

    /// What may make the result meaningless although it is right (decision D-70): declared actors
    /// without messages and indicator targets that never resolved, for a trace evaluation.
    #[getter]
    fn warnings(&self) -> Vec<PyTraceWarning> {
        let warnings = match &self.stats {
            Some(stats) => oatf::report::warnings(&self.verdict, stats),
            None => self.verdict.warnings.clone(),
        };
        warnings
            .into_iter()
            .map(|warning| PyTraceWarning { warning })
            .collect()
    }

    /// The exit code `oatf evaluate` gives this verdict (spec-decisions 24): 0 `not_exploited`,
    /// 1 to 3 `exploited` by tier, 4 `partial`, 5 `error`; with `strict=True`, 6 for a
    /// `not_exploited` run that has warnings or malformed trace lines (`--strict`, decision D-69).
    #[pyo3(signature = (*, strict = false))]
    fn exit_code(&self, strict: bool) -> u8 {
        let mut stats = self
            .stats
            .clone()
            .unwrap_or_else(|| oatf::report::TraceStats::new(""));
        stats.strict = strict;
        oatf::report::run_exit_code(&self.verdict, &stats)
    }

    /// The JSON verdict document, as `oatf evaluate --format json` writes it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.document())
    }

    fn __repr__(&self) -> String {
        let s = &self.verdict.evaluation_summary;
        format!(
            "Verdict({}, attack_id={:?}, matched={}, not_matched={}, error={}, skipped={})",
            self.verdict.result,
            self.verdict.attack_id.as_deref().unwrap_or(""),
            s.matched,
            s.not_matched,
            s.error,
            s.skipped
        )
    }
}
