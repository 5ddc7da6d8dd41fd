//! [`CelProgram`], a compiled expression, and one evaluation: binding `message` and the variables,
//! running the metered tree, and mapping the `cel` crate's errors to OATF error kinds.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use cel::common::ast::IdedExpr;
use cel::common::types::CelNull;
use cel::common::value::Val;
use cel::extractors::This;
use cel::{Context, Env, ExecutionError, Value as CelValue};
use oatf_eval::{CelGuard, CompiledCel, EvaluationError, EvaluationErrorKind as Kind};
use serde_json::Value;

#[cfg(test)]
use crate::convert::to_cel;
use crate::direct::Direct;
use crate::limits::CelLimits;
use crate::metering::{
    CHARGE_FUNCTION, COMPARE_FUNCTION, COPY_FUNCTION, COST_FUNCTION, COST_WHAT, ELEMENT_FUNCTION,
    PRECHECK_FUNCTION, PRODUCED_FUNCTION, PRODUCED_WHAT, compared_size, copy_budget, deep_size,
    element_budget, iteration_budget, produced_size, size_budget,
};
use crate::parse::first_line;
use crate::regex_cache::{REGEX_BOUND_MARKER, RegexCache};
use crate::{budget, reads};

/// A program compiled by a [`CelEngine`].
pub(crate) struct CelProgram {
    /// The program's syntax tree with every comprehension's range charged to the iteration budget.
    pub(crate) budgeted: IdedExpr,
    /// What the expression reads of `message` and of each variable: only that is bound.
    pub(crate) reads: reads::ReadSet,
    /// The context every evaluation runs in a child scope of: the environment and the functions
    /// `matches` and the budgets, registered once (their counters are per evaluation, [`budget`]).
    pub(crate) root: Context<'static, 'static>,
    pub(crate) variables: Vec<String>,
    pub(crate) functions: Vec<String>,
    /// The direct path, when the expression is in its subset ([`crate::direct`]); shared with
    /// the program's literal guard ([`CelProgram::literal_guard`]).
    pub(crate) direct: Option<Arc<Direct>>,
    /// The engine's limits and `matches` cache, for the direct path.
    pub(crate) limits: CelLimits,
    pub(crate) regexes: Arc<RegexCache>,
}

impl CompiledCel for CelProgram {
    fn evaluate(
        &self,
        message: &Value,
        variables: &[(&str, &Value)],
    ) -> Result<bool, EvaluationError> {
        let outcome = catch_unwind(AssertUnwindSafe(|| self.run(message, variables)));
        outcome.unwrap_or_else(|_| {
            Err(EvaluationError::new(
                Kind::CelError,
                "the CEL engine panicked while evaluating",
            ))
        })
    }
}

impl CelProgram {
    /// The literal guard of the program (D-95), when its direct form has one: the needles of its
    /// `contains`/`in` leaves on the message, and the direct form's residual, which evaluates
    /// exactly as the program on a message without them (`direct/guard.rs`).
    pub(crate) fn literal_guard(&self) -> Option<CelGuard> {
        let direct = Arc::clone(self.direct.as_ref()?);
        let guard = direct.guard.as_ref()?;
        let (needles, key) = (guard.needles.clone(), guard.key.clone());
        let (limits, regexes) = (self.limits, Arc::clone(&self.regexes));
        CelGuard::new(needles, key, move |message: &Value| {
            catch_unwind(AssertUnwindSafe(|| {
                direct.evaluate_residual(message, &limits, &regexes)
            }))
            .ok()
            .flatten()
        })
    }

    pub(crate) fn run(
        &self,
        message: &Value,
        variables: &[(&str, &Value)],
    ) -> Result<bool, EvaluationError> {
        // The direct path answers only when its answer is the interpreter's (`crate::direct`),
        // errors included (D-125).
        if let Some(direct) = &self.direct
            && let Some(outcome) = direct.evaluate(message, variables, &self.limits, &self.regexes)
        {
            return outcome.map_err(|error| self.execution_error(&error));
        }
        self.run_bound(message, variables, Binding::Pruned)
    }

    /// Evaluates with `message` and the variables bound as `binding` says (the whole binding is
    /// kept for the equivalence tests of the read sets).
    pub(crate) fn run_bound(
        &self,
        message: &Value,
        variables: &[(&str, &Value)],
        binding: Binding,
    ) -> Result<bool, EvaluationError> {
        budget::reset();
        let bind = |root: &str, value| match binding {
            Binding::Pruned => self.reads.bind(root, value),
            #[cfg(test)]
            Binding::Whole => to_cel(value, 0),
        };
        let root: &Context<'_, '_> = &self.root;
        let mut context = root.new_inner_scope();
        context.add_variable_as_val("message", bind("message", message)?);
        for name in &self.variables {
            // Declared variables that the caller did not bind are `null` (spec-decisions 15).
            let value = variables
                .iter()
                .find(|(n, _)| n == name)
                .map_or(Ok(Box::new(CelNull) as Box<dyn Val>), |(_, v)| {
                    bind(name, v)
                })?;
            context.add_variable_as_val(name.as_str(), value);
        }
        match CelValue::resolve(&self.budgeted, &context) {
            Ok(CelValue::Bool(b)) => Ok(b),
            Ok(other) => Err(EvaluationError::new(
                Kind::TypeError,
                format!(
                    "the expression evaluated to a {}, expected a bool",
                    type_name(&other)
                ),
            )),
            Err(error) => Err(self.execution_error(&error)),
        }
    }

    pub(crate) fn execution_error(&self, error: &ExecutionError) -> EvaluationError {
        match error {
            ExecutionError::NoSuchKey(key) => {
                EvaluationError::new(Kind::CelError, format!("no such key: {key}"))
            }
            ExecutionError::UndeclaredReference(name)
                if self.functions.iter().any(|f| f == name.as_str()) =>
            {
                EvaluationError::new(
                    Kind::UnsupportedMethod,
                    format!("the CEL function `{name}` is not supported by this evaluator"),
                )
            }
            ExecutionError::FunctionError { function, message }
                if function == "matches" && message.starts_with(REGEX_BOUND_MARKER) =>
            {
                EvaluationError::new(Kind::RegexTimeout, message.clone())
            }
            ExecutionError::FunctionError { function, message }
                if function == CHARGE_FUNCTION
                    || function == PRODUCED_FUNCTION
                    || function == PRECHECK_FUNCTION
                    || function == COST_FUNCTION
                    || (function == "matches" && message.starts_with("the expression")) =>
            {
                EvaluationError::new(Kind::CelError, message.clone())
            }
            other => EvaluationError::new(Kind::CelError, first_line(&other.to_string())),
        }
    }
}

/// How an evaluation binds `message` and the variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// Only what the expression reads ([`reads`]).
    Pruned,
    /// The whole values, as before the read sets (tests compare both).
    #[cfg(test)]
    Whole,
}

/// The root context of a program: the shared environment, `matches` and the budget functions.
/// Built once per program; each evaluation binds its variables in a child scope.
pub(crate) fn root_context(
    env: &Arc<Env>,
    regexes: &Arc<RegexCache>,
    limits: &CelLimits,
) -> Result<Context<'static, 'static>, EvaluationError> {
    let mut context = Context::with_env(Arc::clone(env));
    let regexes = Arc::clone(regexes);
    let max_compiles = limits.max_regex_compiles;
    let matches = move |This(text): This<Arc<String>>, pattern: Arc<String>| {
        budget::with_patterns(|used| regexes.is_match(&text, &pattern, used, max_compiles))
    };
    if context.add_function("matches", matches).is_err() {
        return Err(EvaluationError::new(
            Kind::CelError,
            "cannot register `matches` in the CEL context",
        ));
    }
    // The produced-bytes budget is shared by the charge after each call and the worst-case
    // charge before `replace`, `join` and `split`.
    let registered = [
        (
            CHARGE_FUNCTION,
            iteration_budget(limits.max_iterations, limits.max_cost),
        ),
        (
            PRODUCED_FUNCTION,
            size_budget(
                PRODUCED_FUNCTION,
                limits.max_produced_bytes,
                PRODUCED_WHAT,
                "max_produced_bytes",
                produced_size,
                budget::Counter::Produced,
            ),
        ),
        (
            PRECHECK_FUNCTION,
            size_budget(
                PRECHECK_FUNCTION,
                limits.max_produced_bytes,
                PRODUCED_WHAT,
                "max_produced_bytes",
                produced_size,
                budget::Counter::Produced,
            ),
        ),
        (
            COST_FUNCTION,
            size_budget(
                COST_FUNCTION,
                limits.max_cost,
                COST_WHAT,
                "max_cost",
                deep_size,
                budget::Counter::Cost,
            ),
        ),
        (
            // Its error is the cost function's, as on the direct path.
            COMPARE_FUNCTION,
            size_budget(
                COST_FUNCTION,
                limits.max_cost,
                COST_WHAT,
                "max_cost",
                compared_size,
                budget::Counter::Cost,
            ),
        ),
        (
            COPY_FUNCTION,
            copy_budget(limits.max_cost, limits.max_produced_bytes),
        ),
        (
            ELEMENT_FUNCTION,
            element_budget(limits.max_cost, limits.max_produced_bytes),
        ),
    ];
    for (name, function) in registered {
        if context.add_function(name, function).is_err() {
            return Err(EvaluationError::new(
                Kind::CelError,
                "cannot register the iteration budget in the CEL context",
            ));
        }
    }
    Ok(context)
}

fn type_name(value: &CelValue) -> &'static str {
    match value {
        CelValue::List(_) => "list",
        CelValue::Map(_) => "map",
        CelValue::Function(..) => "function",
        CelValue::Int(_) => "int",
        CelValue::UInt(_) => "uint",
        CelValue::Float(_) => "double",
        CelValue::String(_) => "string",
        CelValue::Bytes(_) => "bytes",
        CelValue::Bool(_) => "bool",
        CelValue::Null => "null",
        _ => "value",
    }
}
