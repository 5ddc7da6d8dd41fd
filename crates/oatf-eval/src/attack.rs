//! Compiled attacks: every indicator plus the correlation logic, and whole-trace evaluation.

use oatf_model::{Attack, Closed, CorrelationLogic, Document};
use serde_json::Value;

use crate::EvaluationError;
use crate::indicator::{CompiledIndicator, EvalOptions};
use crate::verdict::{
    AttackResult, AttackVerdict, IndicatorResult, IndicatorVerdict, compute_verdict_for_ids,
    generated_indicator_id,
};

/// An attack compiled once (all indicators and the correlation logic) and evaluated against any
/// number of messages or traces. `Send + Sync`.
///
/// An indicator that fails to compile (an invalid regex, a CEL syntax error) does not stop the others:
/// it gives an `error` verdict on every evaluation.
#[derive(Debug)]
pub struct CompiledAttack {
    attack_id: Option<String>,
    logic: Result<CorrelationLogic, String>,
    has_indicators: bool,
    indicators: Vec<Result<CompiledIndicator, (String, EvaluationError)>>,
}

impl CompiledAttack {
    /// Compiles the attack of a (normalized) document; a document without `attack` compiles to an
    /// attack without indicators, whose verdict is `error`.
    pub fn new(document: &Document, options: &EvalOptions) -> Self {
        match &document.attack {
            Some(attack) => Self::from_attack(attack, options),
            None => Self::from_attack(&Attack::default(), options),
        }
    }

    /// Compiles an attack. Indicators without `id` get the N-003 ids.
    pub fn from_attack(attack: &Attack, options: &EvalOptions) -> Self {
        let logic = match attack.correlation.as_ref().and_then(|c| c.logic.as_ref()) {
            None => Ok(CorrelationLogic::Any),
            Some(Closed::Known(logic)) => Ok(*logic),
            Some(Closed::Unknown(other)) => Err(format!(
                "unknown correlation logic `{}`, expected one of any, all",
                other.chars().take(64).collect::<String>()
            )),
        };
        let indicators = attack
            .indicators
            .iter()
            .flatten()
            .enumerate()
            .map(|(index, indicator)| {
                let id = indicator
                    .id
                    .clone()
                    .unwrap_or_else(|| generated_indicator_id(attack.id.as_deref(), index));
                CompiledIndicator::with_id(indicator, id.clone(), options).map_err(|e| (id, e))
            })
            .collect();
        CompiledAttack {
            attack_id: attack.id.clone(),
            logic,
            has_indicators: attack.indicators.is_some(),
            indicators,
        }
    }

    /// The attack id, when the document has one.
    pub fn attack_id(&self) -> Option<&str> {
        self.attack_id.as_deref()
    }

    /// The indicators that compiled, in declaration order.
    pub fn indicators(&self) -> impl Iterator<Item = &CompiledIndicator> {
        self.indicators.iter().filter_map(|i| i.as_ref().ok())
    }

    /// The indicators that failed to compile, with their ids and errors.
    pub fn compile_errors(&self) -> impl Iterator<Item = (&str, &EvaluationError)> {
        self.indicators
            .iter()
            .filter_map(|i| i.as_ref().err().map(|(id, e)| (id.as_str(), e)))
    }

    /// Evaluates every indicator against one message and computes the verdict.
    pub fn evaluate(&self, message: &Value) -> AttackVerdict {
        self.evaluate_trace_with(std::slice::from_ref(message), |_, m| Some(m))
    }

    /// Evaluates a trace: every indicator against every message; an indicator matches if any message
    /// matches it (format §6). See [`evaluate_trace_with`](Self::evaluate_trace_with) for filtering.
    pub fn evaluate_trace(&self, messages: &[Value]) -> AttackVerdict {
        self.evaluate_trace_with(messages, |_, m| Some(m))
    }

    /// Evaluates a trace of any entry type: `select` gives the message of an entry to evaluate for an
    /// indicator, or `None` when the entry does not apply to it (format §6 trace filtering by
    /// [`protocol`](CompiledIndicator::protocol), [`surface`](CompiledIndicator::surface),
    /// [`actor`](CompiledIndicator::actor), [`direction`](CompiledIndicator::direction)).
    ///
    /// Per indicator: `matched` if any message matched (evaluation stops there); else `error` if any
    /// evaluation failed; else `not_matched`; `skipped` when it has no evaluator or no message applied.
    pub fn evaluate_trace_with<'t, T>(
        &self,
        trace: &'t [T],
        select: impl Fn(&CompiledIndicator, &'t T) -> Option<&'t Value>,
    ) -> AttackVerdict {
        let verdicts: Vec<IndicatorVerdict> = self
            .indicators
            .iter()
            .map(|entry| match entry {
                Err((id, error)) => IndicatorVerdict::new(
                    id.clone(),
                    IndicatorResult::Error,
                    Some(error.to_string()),
                ),
                Ok(indicator) => {
                    let mut first_error: Option<IndicatorVerdict> = None;
                    let mut last: Option<IndicatorVerdict> = None;
                    for message in trace.iter().filter_map(|t| select(indicator, t)) {
                        let verdict = indicator.evaluate(message);
                        match verdict.result {
                            IndicatorResult::Matched => return verdict,
                            IndicatorResult::Error if first_error.is_none() => {
                                first_error = Some(verdict);
                            }
                            IndicatorResult::Skipped => return verdict,
                            _ => last = Some(verdict),
                        }
                    }
                    first_error.or(last).unwrap_or_else(|| {
                        IndicatorVerdict::new(
                            indicator.id().to_owned(),
                            IndicatorResult::Skipped,
                            Some(String::from(
                                "no message of the trace applied to this indicator",
                            )),
                        )
                    })
                }
            })
            .collect();
        self.compute_verdict(&verdicts)
    }

    /// Computes the attack verdict from indicator verdicts (SDK §4.5) with this attack's logic.
    pub fn compute_verdict(&self, indicator_verdicts: &[IndicatorVerdict]) -> AttackVerdict {
        let ids: Vec<&str> = self
            .indicators
            .iter()
            .map(|entry| match entry {
                Ok(indicator) => indicator.id(),
                Err((id, _)) => id.as_str(),
            })
            .collect();
        let logic = self.logic.as_ref().map_or(CorrelationLogic::Any, |l| *l);
        let mut verdict =
            compute_verdict_for_ids(logic, self.attack_id.as_deref(), &ids, indicator_verdicts);
        if let Err(diagnostic) = &self.logic {
            verdict.result = AttackResult::Error;
            verdict.diagnostic = Some(diagnostic.clone());
        } else if !self.has_indicators {
            verdict.diagnostic = Some(String::from(
                "the attack has no indicators: it can be simulated but not evaluated",
            ));
        }
        verdict
    }
}
