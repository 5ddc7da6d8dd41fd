//! Compiled indicators and the per-message evaluation functions (SDK §4.2–§4.4).

use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;

use oatf_model::{
    Closed, Direction, ExpressionMatch, Indicator, IndicatorMethod, PatternMatch, SemanticExamples,
    SemanticIntentClass, SemanticMatch,
};
use oatf_primitives::{
    CompiledCondition, ConditionError, ConditionErrorKind, PrefilterNeeds, RegexLimits, SimplePath,
    WildcardPath,
};
use serde_json::Value;

use crate::error::{EvaluationError, EvaluationErrorKind as Kind};
use crate::extension::{CelEvaluator, CelGuard, CompiledCel, SemanticEvaluator};
use crate::texts::{MessageTexts, truncate, value_text};
use crate::verdict::{IndicatorResult, IndicatorVerdict, generated_indicator_id};

/// The default semantic threshold when `semantic.threshold` is absent (format §6.4, SDK §4.4 step 1c).
pub const DEFAULT_SEMANTIC_THRESHOLD: f64 = 0.7;

/// The default longest evidence kept in a verdict, in characters.
pub const DEFAULT_EVIDENCE_CHARS: usize = 256;

/// The JSON `null` bound to CEL variables that do not resolve (spec-decisions 15).
static NULL: Value = Value::Null;

/// What evaluation is configured with: the extension points and the bounds.
///
/// Cloning is cheap (the evaluators are shared [`Arc`]s).
#[derive(Clone)]
pub struct EvalOptions {
    cel: Option<Arc<dyn CelEvaluator>>,
    semantic: Option<Arc<dyn SemanticEvaluator>>,
    regex_limits: RegexLimits,
    evidence_chars: usize,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            cel: None,
            semantic: None,
            regex_limits: RegexLimits::default(),
            evidence_chars: DEFAULT_EVIDENCE_CHARS,
        }
    }
}

impl fmt::Debug for EvalOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EvalOptions")
            .field("cel", &self.cel.is_some())
            .field("semantic", &self.semantic.is_some())
            .field("regex_limits", &self.regex_limits)
            .field("evidence_chars", &self.evidence_chars)
            .finish()
    }
}

impl EvalOptions {
    /// Options with the two optional evaluators of SDK §4.4's `evaluate_indicator` signature and the
    /// default limits.
    pub fn from_evaluators(
        cel_evaluator: Option<Arc<dyn CelEvaluator>>,
        semantic_evaluator: Option<Arc<dyn SemanticEvaluator>>,
    ) -> Self {
        EvalOptions {
            cel: cel_evaluator,
            semantic: semantic_evaluator,
            ..EvalOptions::default()
        }
    }

    /// No CEL evaluator, no semantic evaluator, default regex limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Evaluates expression indicators with `evaluator` (without one they are `skipped`).
    pub fn with_cel_evaluator(mut self, evaluator: Arc<dyn CelEvaluator>) -> Self {
        self.cel = Some(evaluator);
        self
    }

    /// Evaluates semantic indicators with `evaluator` (without one they are `skipped`).
    pub fn with_semantic_evaluator(mut self, evaluator: Arc<dyn SemanticEvaluator>) -> Self {
        self.semantic = Some(evaluator);
        self
    }

    /// Bounds regexes of pattern indicators (spec-decisions 17).
    pub fn with_regex_limits(mut self, limits: RegexLimits) -> Self {
        self.regex_limits = limits;
        self
    }

    /// Truncates evidence to `chars` characters (default [`DEFAULT_EVIDENCE_CHARS`]).
    pub fn with_evidence_chars(mut self, chars: usize) -> Self {
        self.evidence_chars = chars;
        self
    }

    /// The configured CEL evaluator.
    pub fn cel_evaluator(&self) -> Option<&Arc<dyn CelEvaluator>> {
        self.cel.as_ref()
    }

    /// The configured semantic evaluator.
    pub fn semantic_evaluator(&self) -> Option<&Arc<dyn SemanticEvaluator>> {
        self.semantic.as_ref()
    }
}

/// An indicator compiled once — paths parsed, regexes built, CEL program compiled — and evaluated
/// against any number of messages by reference.
///
/// It is `Send + Sync`: one compiled indicator can be shared across threads.
pub struct CompiledIndicator {
    id: String,
    protocol: Option<String>,
    surface: Option<String>,
    actor: Option<String>,
    direction: Option<Direction>,
    /// Whether `target` is one the context profile narrows to incoming calls (D-100, point 4).
    calls_only: bool,
    evidence_chars: usize,
    method: Method,
}

enum Method {
    Pattern(CompiledPattern),
    Expression(CompiledExpression),
    Semantic(CompiledSemantic),
    /// Not evaluated: no evaluator configured for the method (SDK §4.4).
    Skipped(&'static str),
}

struct CompiledPattern {
    target: WildcardPath,
    condition: CompiledCondition,
    /// What the trace prefilter looks for (D-75, D-90), computed on first use.
    needs: std::sync::OnceLock<Option<PrefilterNeeds>>,
}

struct CompiledExpression {
    program: Box<dyn CompiledCel>,
    variables: Vec<(String, SimplePath)>,
    /// The program's literal guard (D-95), for an expression without variables.
    guard: Option<CelGuard>,
}

struct CompiledSemantic {
    target: WildcardPath,
    intent: String,
    intent_class: Option<SemanticIntentClass>,
    threshold: Option<f64>,
    examples: Option<SemanticExamples>,
    evaluator: Arc<dyn SemanticEvaluator>,
}

impl fmt::Debug for CompiledIndicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let method = match &self.method {
            Method::Pattern(p) => format!("pattern on `{}`", p.target),
            Method::Expression(_) => String::from("expression"),
            Method::Semantic(s) => format!("semantic on `{}`", s.target),
            Method::Skipped(why) => format!("skipped ({why})"),
        };
        f.debug_struct("CompiledIndicator")
            .field("id", &self.id)
            .field("method", &method)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
thread_local! {
    /// Counts pattern compilations on this thread, so tests can prove compile-once.
    pub(crate) static PATTERN_COMPILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl CompiledIndicator {
    /// Compiles `indicator` (SDK §4.4 preconditions relaxed: un-normalized indicators are accepted).
    ///
    /// A pattern or semantic block without its own `target` uses the indicator `target`; a shorthand
    /// pattern is used through [`PatternMatch::effective_condition`]. An indicator whose method has no
    /// evaluator in `options` compiles to one that always gives `skipped`. An indicator without `id`
    /// is called `indicator-01`; [`CompiledAttack`](crate::CompiledAttack) gives the N-003 ids.
    ///
    /// Errors: an invalid target or variable path (`path_resolution`), a regex that is invalid
    /// (`unsupported_method`: RE2 cannot run it) or too large (`regex_timeout`), a CEL compile error
    /// (as the CEL evaluator reports it), a missing or ambiguous detection block (`unsupported_method`).
    pub fn new(indicator: &Indicator, options: &EvalOptions) -> Result<Self, EvaluationError> {
        let id = indicator
            .id
            .clone()
            .unwrap_or_else(|| generated_indicator_id(None, 0));
        Self::with_id(indicator, id, options)
    }

    pub(crate) fn with_id(
        indicator: &Indicator,
        id: String,
        options: &EvalOptions,
    ) -> Result<Self, EvaluationError> {
        let method = compile_method(indicator, options).map_err(|e| e.with_indicator_id(&id))?;
        Ok(CompiledIndicator {
            protocol: indicator.protocol.clone(),
            surface: indicator.surface.clone(),
            actor: indicator.actor.clone(),
            direction: indicator.direction.as_ref().and_then(Closed::known),
            calls_only: crate::compat::narrows_to_calls(&indicator.target),
            evidence_chars: options.evidence_chars,
            id,
            method,
        })
    }

    /// The indicator id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `indicator.protocol`, for trace filtering (format §6, step 1).
    pub fn protocol(&self) -> Option<&str> {
        self.protocol.as_deref()
    }

    /// `indicator.surface`, for trace filtering (step 2).
    pub fn surface(&self) -> Option<&str> {
        self.surface.as_deref()
    }

    /// `indicator.actor`, for trace filtering (step 3).
    pub fn actor(&self) -> Option<&str> {
        self.actor.as_deref()
    }

    /// `indicator.direction`, for trace filtering (step 4).
    pub fn direction(&self) -> Option<Direction> {
        self.direction
    }

    /// Whether the context profile narrows this indicator to incoming calls (D-100, point 4).
    pub(crate) fn calls_only(&self) -> bool {
        self.calls_only
    }

    /// Whether the indicator always gives `skipped` (no evaluator for its method).
    pub fn is_skipped(&self) -> bool {
        matches!(self.method, Method::Skipped(_))
    }

    /// Why the indicator is always `skipped`, when it is.
    pub(crate) fn skipped_reason(&self) -> Option<&'static str> {
        match self.method {
            Method::Skipped(why) => Some(why),
            _ => None,
        }
    }

    /// Evaluates the indicator against one message's content (SDK §4.4), without trace filtering
    /// (its `surface`, `direction`, `actor` and `protocol` are not looked at: that is
    /// [`TraceEvaluator`](crate::TraceEvaluator)'s job); an error becomes an `error` verdict whose
    /// evidence is the diagnostic.
    pub fn evaluate(&self, message: &Value) -> IndicatorVerdict {
        let (result, evidence) = self.evaluate_outcome(message);
        IndicatorVerdict::new(self.id.clone(), result, evidence)
    }

    /// [`evaluate`](Self::evaluate) without building a verdict (no id clone, no clock read): what
    /// whole-trace evaluation needs for each message.
    pub(crate) fn evaluate_outcome(&self, message: &Value) -> (IndicatorResult, Option<String>) {
        self.evaluate_outcome_with(message, &mut MessageTexts::default())
    }

    /// [`evaluate_outcome`](Self::evaluate_outcome), rendering the texts of non-string values
    /// through `texts`, the renders of the message being evaluated (shared by the indicators and
    /// the prefilter of one message).
    pub(crate) fn evaluate_outcome_with(
        &self,
        message: &Value,
        texts: &mut MessageTexts,
    ) -> (IndicatorResult, Option<String>) {
        let outcome = match &self.method {
            Method::Skipped(why) => Ok((IndicatorResult::Skipped, Some(String::from(*why)))),
            Method::Pattern(pattern) => {
                to_result(pattern.evaluate(message, self.evidence_chars, texts))
            }
            Method::Expression(expression) => {
                to_result(expression.evaluate(message).map(|b| (b, None)))
            }
            Method::Semantic(semantic) => to_result(semantic.evaluate(message)),
        };
        outcome.unwrap_or_else(|error| {
            let error = error.with_indicator_id(&self.id);
            (
                IndicatorResult::Error,
                Some(truncate(&error.to_string(), self.evidence_chars)),
            )
        })
    }

    /// The literal guard of an expression indicator without variables whose engine gave one
    /// (D-95): the prefilter can rule it out on a message by its residual.
    pub(crate) fn cel_guard(&self) -> Option<&CelGuard> {
        match &self.method {
            Method::Expression(e) => e.guard.as_ref(),
            _ => None,
        }
    }

    /// The target, condition and prefilter needs of a pattern indicator that the prefilter can
    /// rule out (`crate::prefilter`, D-75, D-90): not a lone `exists`, which resolution alone
    /// decides, nor a condition without needs. The needs are computed on the first call and kept.
    pub(crate) fn prefilter_parts(
        &self,
    ) -> Option<(&WildcardPath, &CompiledCondition, &PrefilterNeeds)> {
        match &self.method {
            Method::Pattern(p) if p.condition.lone_exists().is_none() => p
                .needs
                .get_or_init(|| p.condition.prefilter_needs())
                .as_ref()
                .map(|needs| (&p.target, &p.condition, needs)),
            _ => None,
        }
    }

    /// The path a pattern or semantic indicator tests (none for expressions and skipped ones): what
    /// trace evaluation checks resolves at least once (`trace/coverage.rs`).
    pub(crate) fn target(&self) -> Option<&WildcardPath> {
        match &self.method {
            Method::Pattern(pattern) => Some(&pattern.target),
            Method::Semantic(semantic) => Some(&semantic.target),
            Method::Expression(_) | Method::Skipped(_) => None,
        }
    }

    /// The longest evidence this indicator keeps, in characters.
    pub(crate) fn evidence_chars(&self) -> usize {
        self.evidence_chars
    }

    /// Evaluates the indicator against one message's content, without trace filtering, returning an
    /// evaluation error as `Err` (with the indicator id set) so that its kind can be inspected.
    pub fn try_evaluate(&self, message: &Value) -> Result<IndicatorVerdict, EvaluationError> {
        let (result, evidence) = match &self.method {
            Method::Skipped(why) => Ok((IndicatorResult::Skipped, Some(String::from(*why)))),
            Method::Pattern(pattern) => to_result(pattern.evaluate(
                message,
                self.evidence_chars,
                &mut MessageTexts::default(),
            )),
            Method::Expression(expression) => {
                to_result(expression.evaluate(message).map(|b| (b, None)))
            }
            Method::Semantic(semantic) => to_result(semantic.evaluate(message)),
        }
        .map_err(|e| e.with_indicator_id(&self.id))?;
        Ok(IndicatorVerdict::new(self.id.clone(), result, evidence))
    }
}

fn to_result(
    outcome: Result<(bool, Option<String>), EvaluationError>,
) -> Result<(IndicatorResult, Option<String>), EvaluationError> {
    outcome.map(|(matched, evidence)| {
        if matched {
            (IndicatorResult::Matched, evidence)
        } else {
            (IndicatorResult::NotMatched, None)
        }
    })
}

fn compile_method(indicator: &Indicator, options: &EvalOptions) -> Result<Method, EvaluationError> {
    let method = match &indicator.method {
        Some(Closed::Unknown(other)) => {
            return Err(EvaluationError::new(
                Kind::UnsupportedMethod,
                format!(
                    "unknown method `{}`, expected one of pattern, expression, semantic",
                    other.chars().take(64).collect::<String>()
                ),
            ));
        }
        _ => indicator.resolved_method(),
    };
    match method {
        Some(IndicatorMethod::Pattern) => match &indicator.pattern {
            Some(pattern) => Ok(Method::Pattern(CompiledPattern::new(
                pattern,
                Some(&indicator.target),
                &options.regex_limits,
            )?)),
            None => Err(missing_block("pattern")),
        },
        Some(IndicatorMethod::Expression) => match (&indicator.expression, &options.cel) {
            (None, _) => Err(missing_block("expression")),
            (Some(_), None) => Ok(Method::Skipped("CEL support is unavailable")),
            (Some(expression), Some(cel)) => Ok(Method::Expression(CompiledExpression::new(
                expression,
                cel.as_ref(),
            )?)),
        },
        Some(IndicatorMethod::Semantic) => match (&indicator.semantic, &options.semantic) {
            (None, _) => Err(missing_block("semantic")),
            (Some(_), None) => Ok(Method::Skipped("semantic evaluation is unavailable")),
            (Some(semantic), Some(evaluator)) => Ok(Method::Semantic(CompiledSemantic::new(
                semantic,
                &indicator.target,
                Arc::clone(evaluator),
            )?)),
        },
        None => Err(EvaluationError::new(
            Kind::UnsupportedMethod,
            "the indicator needs exactly one of pattern, expression, semantic",
        )),
    }
}

fn missing_block(method: &str) -> EvaluationError {
    EvaluationError::new(
        Kind::UnsupportedMethod,
        format!("the indicator's method is {method} but it has no `{method}` block"),
    )
}

fn parse_target(path: &str) -> Result<WildcardPath, EvaluationError> {
    WildcardPath::parse(path).map_err(|e| {
        EvaluationError::new(
            Kind::PathResolution,
            format!("invalid target `{path}`: {e}"),
        )
    })
}

fn condition_error(error: &ConditionError) -> EvaluationError {
    let kind = match error.kind() {
        ConditionErrorKind::RegexTooLarge | ConditionErrorKind::RegexInputTooLong => {
            Kind::RegexTimeout
        }
        // A pattern RE2 cannot run (V-013 rejects it at validate time).
        _ => Kind::UnsupportedMethod,
    };
    EvaluationError::new(kind, error.message())
}

impl CompiledPattern {
    fn new(
        pattern: &PatternMatch,
        indicator_target: Option<&str>,
        limits: &RegexLimits,
    ) -> Result<Self, EvaluationError> {
        #[cfg(test)]
        PATTERN_COMPILES.with(|c| c.set(c.get() + 1));
        let target = pattern
            .target
            .as_deref()
            .or(indicator_target)
            .ok_or_else(|| {
                EvaluationError::new(Kind::PathResolution, "the pattern has no target")
            })?;
        let condition = pattern.effective_condition().ok_or_else(|| {
            EvaluationError::new(Kind::UnsupportedMethod, "the pattern has no condition")
        })?;
        Ok(CompiledPattern {
            target: parse_target(target)?,
            condition: CompiledCondition::with_limits(&condition, limits)
                .map_err(|e| condition_error(&e))?,
            needs: std::sync::OnceLock::new(),
        })
    }

    /// SDK §4.2 over the compiled form; the evidence is the first matching value.
    fn evaluate(
        &self,
        message: &Value,
        evidence_chars: usize,
        texts: &mut MessageTexts,
    ) -> Result<(bool, Option<String>), EvaluationError> {
        if let Some(exists) = self.condition.lone_exists() {
            let resolved = self.target.any(message, |_| true);
            let evidence = (exists == resolved).then(|| {
                format!(
                    "`{}` {}",
                    self.target,
                    if resolved {
                        "resolved"
                    } else {
                        "did not resolve"
                    }
                )
            });
            return Ok((exists == resolved, evidence));
        }
        let mut outcome: Result<Option<&Value>, ConditionError> = Ok(None);
        let _ = self.target.try_for_each(message, &mut |value| {
            let text =
                (!value.is_string() && self.condition.reads_text()).then(|| texts.text(value));
            match self.condition.evaluate_with_text(value, text) {
                Ok(true) => {
                    outcome = Ok(Some(value));
                    ControlFlow::Break(())
                }
                Ok(false) => ControlFlow::Continue(()),
                Err(e) => {
                    outcome = Err(e);
                    ControlFlow::Break(())
                }
            }
        });
        match outcome {
            Ok(Some(value)) => Ok((true, Some(truncate(&value_text(value), evidence_chars)))),
            Ok(None) => Ok((false, None)),
            Err(e) => Err(condition_error(&e)),
        }
    }
}

impl CompiledExpression {
    fn new(expression: &ExpressionMatch, cel: &dyn CelEvaluator) -> Result<Self, EvaluationError> {
        let variables = expression
            .variables
            .iter()
            .flat_map(|v| v.iter())
            .map(|(name, path)| {
                SimplePath::parse(path)
                    .map(|p| (name.to_owned(), p))
                    .map_err(|e| {
                        EvaluationError::new(
                            Kind::PathResolution,
                            format!("invalid path `{path}` of variable `{name}`: {e}"),
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let names: Vec<&str> = variables.iter().map(|(n, _)| n.as_str()).collect();
        let (program, guard) = cel.compile_guarded(&expression.cel, &names)?;
        Ok(CompiledExpression {
            program,
            guard: guard.filter(|_| variables.is_empty()),
            variables,
        })
    }

    /// SDK §4.3 over the compiled form.
    fn evaluate(&self, message: &Value) -> Result<bool, EvaluationError> {
        let bound: Vec<(&str, &Value)> = self
            .variables
            .iter()
            .map(|(name, path)| (name.as_str(), path.resolve(message).unwrap_or(&NULL)))
            .collect();
        self.program.evaluate(message, &bound)
    }
}

impl CompiledSemantic {
    fn new(
        semantic: &SemanticMatch,
        indicator_target: &str,
        evaluator: Arc<dyn SemanticEvaluator>,
    ) -> Result<Self, EvaluationError> {
        Ok(CompiledSemantic {
            target: parse_target(semantic.target.as_deref().unwrap_or(indicator_target))?,
            intent: semantic.intent.clone(),
            intent_class: semantic.intent_class.as_ref().and_then(Closed::known),
            threshold: semantic.threshold,
            examples: semantic.examples.clone(),
            evaluator,
        })
    }

    /// SDK §4.4 step 1 (semantic): the highest score over the resolved values against the threshold.
    ///
    /// Scoring stops at the first value that reaches the threshold: the result cannot change, and
    /// each call may be an LLM request.
    fn evaluate(&self, message: &Value) -> Result<(bool, Option<String>), EvaluationError> {
        let threshold = self.threshold.unwrap_or(DEFAULT_SEMANTIC_THRESHOLD);
        let mut best: Option<f64> = None;
        let mut failure = None;
        let _ = self.target.try_for_each(message, &mut |value| {
            let text = value_text(value);
            match self.evaluator.evaluate(
                &text,
                &self.intent,
                self.intent_class,
                self.threshold,
                self.examples.as_ref(),
            ) {
                // The contract's range (SDK §6.2), checked here once for every evaluator, the
                // bindings' judges included (D-250): NaN and out-of-range scores are errors.
                Ok(score) if !(0.0..=1.0).contains(&score) => {
                    failure = Some(EvaluationError::new(
                        Kind::SemanticError,
                        format!(
                            "the semantic evaluator returned {score}, not a score between 0.0 and 1.0"
                        ),
                    ));
                    ControlFlow::Break(())
                }
                Ok(score) => {
                    best = Some(best.map_or(score, |b| b.max(score)));
                    if score >= threshold {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                }
                Err(e) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        Ok(match best {
            Some(score) if score >= threshold => (
                true,
                Some(format!("score {score} >= threshold {threshold}")),
            ),
            _ => (false, None),
        })
    }
}

/// Evaluates a pattern against a message's content (SDK §4.2), within the regex limits of `options`;
/// no trace filtering (a pattern has no surface or direction).
///
/// The pattern should be normalized (`target` and `condition` explicit); a shorthand pattern is
/// accepted, but a pattern without `target` is an error of kind `path_resolution`. Compiles on every
/// call: compile a [`CompiledIndicator`] to evaluate many messages.
///
/// The three entry points take the same `options` ([`EvalOptions`]): the evaluators, regex limits
/// and evidence length of one place.
pub fn evaluate_pattern(
    pattern: &PatternMatch,
    message: &Value,
    options: &EvalOptions,
) -> Result<bool, EvaluationError> {
    CompiledPattern::new(pattern, None, &options.regex_limits)?
        .evaluate(message, 0, &mut MessageTexts::default())
        .map(|(matched, _)| matched)
}

/// Evaluates a CEL expression against a message's content (SDK §4.3) with the CEL evaluator of
/// `options`; no trace filtering (an expression has no surface or direction).
///
/// Without one it returns an error of kind `unsupported_method` ("CEL evaluation is not
/// available"). Compiles on every call: compile a [`CompiledIndicator`] to evaluate many messages.
pub fn evaluate_expression(
    expression: &ExpressionMatch,
    message: &Value,
    options: &EvalOptions,
) -> Result<bool, EvaluationError> {
    let cel = options.cel.as_deref().ok_or_else(|| {
        EvaluationError::new(Kind::UnsupportedMethod, "CEL evaluation is not available")
    })?;
    CompiledExpression::new(expression, cel)?.evaluate(message)
}

/// Evaluates an indicator against a message's content (SDK §4.4) with the evaluators of `options`
/// (SDK §4.4's `cel_evaluator` and `semantic_evaluator`), without trace filtering: the indicator's
/// `surface`, `direction`, `actor` and `protocol` are not looked at ([`TraceEvaluator`](crate::TraceEvaluator)
/// filters).
///
/// Never fails: errors become an `error` verdict with the diagnostic as evidence; a method without
/// its evaluator gives `skipped`. Compiles on every call: compile a [`CompiledIndicator`] (or a
/// [`CompiledAttack`](crate::CompiledAttack)) to evaluate many messages.
pub fn evaluate_indicator(
    indicator: &Indicator,
    message: &Value,
    options: &EvalOptions,
) -> IndicatorVerdict {
    match CompiledIndicator::new(indicator, options) {
        Ok(compiled) => compiled.evaluate(message),
        Err(error) => IndicatorVerdict::new(
            error
                .indicator_id()
                .map_or_else(|| generated_indicator_id(None, 0), str::to_owned),
            IndicatorResult::Error,
            Some(truncate(&error.to_string(), options.evidence_chars)),
        ),
    }
}
