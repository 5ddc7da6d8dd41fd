//! Compiled attacks: every indicator plus the correlation logic.
//!
//! Whole-trace evaluation (format §6) is `trace.rs`'s alone ([`TraceEvaluator`](crate::TraceEvaluator));
//! the compiled actors it needs are in `actor.rs` and the per-indicator state in `accumulator.rs`.

use std::time::Duration;

use oatf_model::{
    Attack, Closed, CorrelationLogic, Document, NormalizedDocument, Tier, ValidationError,
};
use oatf_primitives::parse_duration;
use serde_json::Value;

use crate::accumulator::Accumulator;
use crate::actor::{CompiledActor, compile_actors};
use crate::error::EvaluationError;
use crate::indicator::{CompiledIndicator, EvalOptions};
use crate::plan_cache::PlanCache;
use crate::verdict::{
    AttackResult, AttackVerdict, IndicatorVerdict, Tiers, aggregate, declared_tiers,
    generated_indicator_id, unknown_logic_message,
};
use crate::warning::{SHAPE_CHECKS, TraceWarning, looks_like_trace_line};

/// An attack that went through `normalize` (SDK §3.3): the only input [`CompiledAttack`] compiles.
///
/// Built from a checked [`NormalizedDocument`] or from the output of [`oatf_model::normalize`], so
/// compilation never repeats a part of normalization (ids, protocols, actors).
#[derive(Clone, Copy)]
struct NormalizedAttack<'a>(&'a Attack);

impl<'a> NormalizedAttack<'a> {
    fn of_view(view: NormalizedDocument<'a>) -> Self {
        NormalizedAttack(view.attack())
    }

    /// The attack of a document returned by `normalize` (an absent attack is the empty attack).
    fn of_normalized(document: &'a Document) -> Self {
        static EMPTY: std::sync::OnceLock<Attack> = std::sync::OnceLock::new();
        NormalizedAttack(
            document
                .attack
                .as_ref()
                .unwrap_or_else(|| EMPTY.get_or_init(Attack::default)),
        )
    }
}

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
    /// The known tier of each declared indicator, by position (format §6.5).
    tiers: Vec<Option<Tier>>,
    actors: Vec<CompiledActor>,
    grace_period: Option<Duration>,
    /// The prefilter plans of its classes of message, shared by its evaluators (D-93).
    plans: PlanCache,
}

impl CompiledAttack {
    /// Compiles the attack of a document without validating it: whatever it is given compiles, and
    /// an indicator that does not compile gives `error` verdicts; [`try_new`](Self::try_new)
    /// validates and fails instead. A document that is not normalized yet is normalized first
    /// (a copy; the input is untouched); a document without `attack` compiles to an attack without
    /// indicators, whose verdict is `error`.
    pub fn new(document: &Document, options: &EvalOptions) -> Self {
        match NormalizedDocument::check(document) {
            Ok(view) => Self::from_normalized(view, options),
            Err(_) => {
                let normalized = oatf_model::normalized(document);
                Self::compile(NormalizedAttack::of_normalized(&normalized), options)
            }
        }
    }

    /// Validates the document with the rules of `oatf validate` (SDK §3.2, V-001 … V-050; CEL
    /// syntax is checked when the indicators compile), then compiles it, failing as `Regex::new`
    /// does: on an invalid document ([`AttackError::Invalid`], every error with its rule and path)
    /// or on an indicator that does not compile ([`AttackError::Compile`], with its id). The
    /// fallible form of [`new`](Self::new), which compiles whatever it is given and reports
    /// problems later as `error` verdicts (D-133).
    ///
    /// ```
    /// use oatf_eval::{AttackError, CompiledAttack, Document, EvalOptions};
    ///
    /// let document = Document::from_json_str(r#"{"oatf": "0.1", "attack": {
    ///     "execution": {"mode": "mcp_server", "state": {"tools": []}},
    ///     "indicators": [{"surface": "tools/call", "direction": "requets", "tier": "boundary-breach",
    ///                     "target": "arguments", "pattern": {"regex": "(unclosed"}}]}}"#)?;
    /// let Err(AttackError::Invalid(errors)) = CompiledAttack::try_new(&document, &EvalOptions::new())
    /// else { panic!("an invalid document compiled") };
    /// let found: Vec<(&str, &str)> = errors.iter().map(|e| (e.rule(), e.path())).collect();
    /// assert!(found.contains(&("V-005", "attack.indicators[0].direction")), "{found:?}");
    /// assert!(found.contains(&("V-050", "attack.indicators[0].tier")), "{found:?}");
    /// assert!(found.contains(&("V-013", "attack.indicators[0].pattern.regex")), "{found:?}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_new(document: &Document, options: &EvalOptions) -> Result<Self, AttackError> {
        let result = oatf_model::validate(document);
        if !result.is_valid() {
            return Err(AttackError::Invalid(result.errors().to_vec()));
        }
        let attack = Self::new(document, options);
        let errors: Vec<EvaluationError> = attack
            .compile_errors()
            .map(|(id, error)| error.clone().with_indicator_id(id))
            .collect();
        if errors.is_empty() {
            Ok(attack)
        } else {
            Err(AttackError::Compile(errors))
        }
    }

    /// Compiles a normalized document.
    pub fn from_normalized(document: NormalizedDocument<'_>, options: &EvalOptions) -> Self {
        Self::compile(NormalizedAttack::of_view(document), options)
    }

    /// Compiles an attack, normalizing a copy of it first (as [`CompiledAttack::new`] does).
    pub fn from_attack(attack: &Attack, options: &EvalOptions) -> Self {
        let mut document = Document::default();
        document.attack = Some(attack.clone());
        Self::new(&document, options)
    }

    /// Compiles every indicator and keeps what trace evaluation needs.
    ///
    /// The actors (their names, modes and terminal phases) and `attack.grace_period` are kept for
    /// whole-trace evaluation ([`TraceEvaluator`](crate::TraceEvaluator)); a grace period that does
    /// not parse is ignored (validation reports it).
    fn compile(attack: NormalizedAttack<'_>, options: &EvalOptions) -> Self {
        let NormalizedAttack(attack) = attack;
        let logic = match attack.correlation.as_ref().and_then(|c| c.logic.as_ref()) {
            None => Ok(CorrelationLogic::Any),
            Some(Closed::Known(logic)) => Ok(*logic),
            Some(Closed::Unknown(other)) => Err(unknown_logic_message(other)),
        };
        let indicators = attack
            .indicators
            .iter()
            .flatten()
            .enumerate()
            .map(|(index, indicator)| {
                // Normalization gave every indicator its N-003 id; the rule's owner is called only for
                // a document normalization could not complete.
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
            tiers: declared_tiers(attack),
            actors: compile_actors(attack.execution.as_ref()),
            grace_period: attack
                .grace_period
                .as_deref()
                .and_then(|g| parse_duration(g).ok()),
            plans: PlanCache::default(),
        }
    }

    /// The prefilter plans shared by the evaluators of this attack.
    pub(crate) fn plan_cache(&self) -> &PlanCache {
        &self.plans
    }

    /// `attack.grace_period`, when present and valid: how long after the terminal phases end
    /// messages are still evaluated (format §6).
    pub fn grace_period(&self) -> Option<Duration> {
        self.grace_period
    }

    /// The declared actors as `(name, mode)`, in declaration order; the one actor of the single-phase
    /// and multi-phase forms is called `default`, as normalization calls it.
    pub fn actors(&self) -> impl Iterator<Item = (&str, &str)> {
        self.actors
            .iter()
            .map(|a| (a.name.as_str(), a.mode.as_str()))
    }

    pub(crate) fn compiled_actors(&self) -> &[CompiledActor] {
        &self.actors
    }

    /// Every declared indicator in declaration order: compiled, or its id and compile error.
    pub(crate) fn indicator_entries(
        &self,
    ) -> &[Result<CompiledIndicator, (String, EvaluationError)>] {
        &self.indicators
    }

    /// The known tier of each declared indicator (format §6.5), in declaration order, with its id.
    pub fn indicator_tiers(&self) -> impl Iterator<Item = (&str, Option<Tier>)> {
        self.indicators
            .iter()
            .zip(&self.tiers)
            .map(|(entry, tier)| match entry {
                Ok(indicator) => (indicator.id(), *tier),
                Err((id, _)) => (id.as_str(), *tier),
            })
    }

    /// The known tier of each declared indicator, by position.
    pub(crate) fn declared_tiers(&self) -> &[Option<Tier>] {
        &self.tiers
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

    /// Evaluates every indicator against one bare message's content, **without trace filtering**:
    /// `surface`, `direction`, `actor` and `protocol` are not looked at, so an indicator for
    /// `tools/call` requests also matches a `prompts/get` response. For messages as a proxy sees
    /// them, push each into a [`TraceEvaluator`](crate::TraceEvaluator), which filters (format §6)
    /// and returns what the message newly matched.
    ///
    /// `message` is the content indicators see (SDK §4.1: `params` of a request, `result` of a
    /// response), not a whole trace line; one given in its place gets a
    /// [`ContentIsTraceLine`](crate::TraceWarningKind::ContentIsTraceLine) warning (D-134).
    pub fn evaluate(&self, message: &Value) -> AttackVerdict {
        self.evaluate_messages(std::slice::from_ref(message))
    }

    /// Evaluates a list of bare messages' contents, **without trace filtering** and without the
    /// grace period: every indicator against every message; an indicator matches if any message
    /// matches it. For a recorded trace (format §6 filtering by protocol, surface, actor and
    /// direction, and the grace period) use [`TraceEvaluator`](crate::TraceEvaluator) or
    /// [`evaluate_trace`](crate::evaluate_trace). See
    /// [`evaluate_messages_with`](Self::evaluate_messages_with) for a caller-chosen filter.
    pub fn evaluate_messages(&self, messages: &[Value]) -> AttackVerdict {
        let mut verdict = self.evaluate_messages_with(messages, |_, m| Some(m));
        let checked = usize::try_from(SHAPE_CHECKS).unwrap_or(usize::MAX);
        if let Some(position) = messages
            .iter()
            .take(checked)
            .position(looks_like_trace_line)
        {
            verdict
                .warnings
                .insert(0, TraceWarning::content_is_trace_line(position as u64 + 1));
        }
        verdict
    }

    /// Evaluates a list of entries of any type, filtered by the caller: `select` gives the message
    /// of an entry to evaluate for an indicator, or `None` when the entry does not apply to it (format §6 trace filtering by
    /// [`protocol`](CompiledIndicator::protocol), [`surface`](CompiledIndicator::surface),
    /// [`actor`](CompiledIndicator::actor), [`direction`](CompiledIndicator::direction)).
    ///
    /// Per indicator: `matched` if any message matched (evaluation stops there); else `error` if any
    /// evaluation failed; else `not_matched` (also when no message applied, spec-decisions 23);
    /// `skipped` when it has no evaluator. An empty trace gives `error`.
    pub fn evaluate_messages_with<'t, T>(
        &self,
        trace: &'t [T],
        select: impl Fn(&CompiledIndicator, &'t T) -> Option<&'t Value>,
    ) -> AttackVerdict {
        let verdicts: Vec<IndicatorVerdict> =
            self.indicators
                .iter()
                .map(|entry| match entry {
                    Err((id, error)) => Accumulator::compile_error(error).finish(id, String::new),
                    Ok(indicator) => {
                        let mut accumulator = Accumulator::new();
                        for message in trace.iter().filter_map(|t| select(indicator, t)) {
                            let (result, evidence) = indicator.evaluate_outcome(message);
                            accumulator.record(result, evidence, 0);
                            if accumulator.is_decided() {
                                break;
                            }
                        }
                        accumulator.finish(indicator.id(), || match trace.len() {
                        0 => String::from("the trace has no message"),
                        1 => String::from(
                            "no applicable message: the one message did not apply to this indicator",
                        ),
                        n => format!(
                            "no applicable message: none of the {n} messages applied to this indicator"
                        ),
                    })
                    }
                })
                .collect();
        let mut verdict = self.compute_verdict(&verdicts);
        if trace.is_empty() {
            verdict.result = AttackResult::Error;
            verdict.diagnostic = Some(String::from(
                "the trace has no message: nothing was observed",
            ));
        }
        verdict
    }

    /// Computes the attack verdict from indicator verdicts (SDK §4.5) with this attack's logic; its
    /// [`warnings`](AttackVerdict::warnings) name the indicators this attack cannot evaluate for want
    /// of an evaluator (D-134).
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
        let mut verdict = aggregate(
            logic,
            self.attack_id.as_deref(),
            &ids,
            Tiers::Declared(&self.tiers),
            indicator_verdicts,
        );
        // Indicators left out for want of an evaluator do not change the result: say so (D-134).
        verdict
            .warnings
            .extend(self.indicators().filter_map(|indicator| {
                let why = indicator.skipped_reason()?;
                Some(TraceWarning::indicator_skipped(indicator.id(), why))
            }));
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

/// Why [`CompiledAttack::try_new`] refused a document (D-133). `Display` gives a headline and one
/// line per problem.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AttackError {
    /// The document breaks validation rules (those of `oatf validate`): each error has its rule id,
    /// its dot-path and its message.
    Invalid(Vec<ValidationError>),
    /// Indicators did not compile (an invalid regex beyond validation's limits, a CEL syntax error
    /// found by the CEL engine): each error names its indicator.
    Compile(Vec<EvaluationError>),
}

impl std::fmt::Display for AttackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttackError::Invalid(errors) => {
                write!(f, "the document is not valid:")?;
                for error in errors {
                    write!(f, "\n  {error}")?;
                }
                Ok(())
            }
            AttackError::Compile(errors) => {
                write!(f, "indicators did not compile:")?;
                for error in errors {
                    write!(
                        f,
                        "\n  indicator {}: {error}",
                        error.indicator_id().unwrap_or("?")
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for AttackError {}
