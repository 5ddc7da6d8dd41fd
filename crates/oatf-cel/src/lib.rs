//! The default CEL engine for OATF expression indicators (SDK §4.3, §6.1), on the `cel` crate.
//!
//! This crate owns [`CelEngine`], the implementation of [`oatf_eval::CelEvaluator`]: the CEL
//! environment is built once per engine, each expression is compiled once into a program, and each
//! evaluation binds `message` and the indicator's variables in a fresh context. It also owns the CEL
//! syntax check used by V-014 ([`check_cel_syntax`]). It must not know about documents, YAML or
//! traces; `oatf-eval` does not depend on it (the evaluator sees only the trait).
//!
//! ```
//! use std::sync::Arc;
//! use oatf_cel::CelEngine;
//! use oatf_eval::{CompiledIndicator, EvalOptions, IndicatorResult};
//! use oatf_model::Indicator;
//! use serde_json::json;
//!
//! let options = EvalOptions::new().with_cel_evaluator(Arc::new(CelEngine::new()));
//! let indicator: Indicator = serde_json::from_value(json!({
//!     "target": "",
//!     "expression": {"cel": "message.count + 1 > limit", "variables": {"limit": "policy.limit"}}
//! }))?;
//! let compiled = CompiledIndicator::new(&indicator, &options)?;
//! let verdict = compiled.evaluate(&json!({"count": 10, "policy": {"limit": 5}}));
//! assert_eq!(verdict.result, IndicatorResult::Matched);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Supported functions (SDK §6.1 partial compliance)
//! The CEL standard library of the `cel` crate (0.15) with its `strings` extension: `size`,
//! `contains`, `startsWith`, `endsWith`, `matches`, the macros `has`, `exists`, `exists_one`, `all`,
//! `filter`, `map`, the conversions `int`, `uint`, `double`, `string`, `bytes`, `type`, and the string
//! extension functions (`lowerAscii`, `upperAscii`, `split`, `join`, `replace`, `trim`, …). The
//! `timestamp` and `duration` types are not supported (the crate's `chrono` feature is off). Calling a
//! function the engine does not define is an error of kind `unsupported_method` (spec-decisions 19).
//!
//! `matches` uses RE2 semantics (the `regex` crate), finds a match anywhere in the string (add `^…$`
//! for a full match), and is backed by a per-engine cache of compiled, size-limited regexes.
//!
//! Numbers: JSON integers become CEL `int` (or `uint` beyond `i64`), other numbers `double`, so
//! `message.count + 1` works. In this CEL dialect `1 == 1.0` is `true` (numeric equality across
//! types), unlike cel-go's strict type checking.
//!
//! # Input safety
//! - Expressions longer than [`CelLimits::max_expression_len`] (16 KiB) or whose brackets nest deeper
//!   than [`CelLimits::max_nesting`] (64) are rejected before parsing.
//! - Parsing runs on one dedicated thread with a large stack, started on first use and kept; a parsed
//!   expression whose syntax tree is deeper than [`CelLimits::max_ast_depth`] (32) is rejected, so
//!   evaluation recursion fits in a 2 MiB thread stack even in unoptimized builds.
//! - Messages nested deeper than 128 levels are an evaluation error, not a deep recursion.
//! - Any panic of the `cel` crate is caught and reported as `cel_error`.
//! - Comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) share an iteration budget per
//!   evaluation, [`CelLimits::max_iterations`] (default 1,000,000): each comprehension is charged the
//!   size of the list or map it iterates when it starts, and an evaluation that would go over the
//!   budget stops with a `cel_error` before running that comprehension. Nested comprehensions over
//!   large lists (`xs.all(x, xs.all(y, …))`, O(n²)) are therefore bounded, whatever the message.
//! - The values one evaluation produces are bounded by [`CelLimits::max_produced_bytes`] (64 MiB):
//!   every call's result is charged its size, and `replace`, `join` and `split` their worst case
//!   before they run, so `s + s` in a balanced tree or in a loop body cannot grow to gigabytes.
//! - The work of calls is bounded by [`CelLimits::max_cost`] (100,000,000): every argument is charged
//!   its size, as in cel-go's cost model, so `size(s)`, `s.contains(t)` and `x in xs` on large
//!   operands cost what they scan, not one step; [`CelLimits::max_regex_compiles`] (64) bounds the
//!   `matches` patterns taken from the message that one evaluation compiles.
//! - Every budget error is a `cel_error` naming the limit, its value and the `CelLimits` field.
//!
//! Tests: unit tests in this file; the `evaluate/` conformance corpus is run by `oatf-conformance`.
//!
//! # Crate features
//! None.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod budget;
mod reads;

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(not(target_family = "wasm"))]
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use cel::common::ast::{CallExpr, EntryExpr, Expr, IdedExpr};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt,
};
use cel::common::value::CowVal;
use cel::common::value::Val;
use cel::extractors::This;
use cel::{Context, Env, ExecutionError, FunctionContext, Program, Value as CelValue};
use oatf_eval::{CelEvaluator, CompiledCel, EvaluationError, EvaluationErrorKind as Kind};
use oatf_model::{CelSyntaxError, CelSyntaxErrorKind};
use oatf_primitives::RegexLimits;
use regex::Regex;
use serde_json::Value;

/// The deepest message nesting converted into a CEL value.
const MAX_MESSAGE_DEPTH: usize = 128;

/// The most regexes kept by one engine's `matches` cache before it is cleared.
const REGEX_CACHE_CAPACITY: usize = 256;

/// Stack of the thread that parses expressions; only touched pages are committed.
#[cfg(not(target_family = "wasm"))]
const PARSE_STACK_BYTES: usize = 256 << 20;

/// Marks a `matches` failure caused by a regex bound (reported as `regex_timeout`).
const REGEX_BOUND_MARKER: &str = "regex bound exceeded: ";

/// Bounds applied by a [`CelEngine`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CelLimits {
    /// The longest expression accepted, in bytes (default 16 KiB).
    pub max_expression_len: usize,
    /// The deepest nesting of `(`, `[` and `{` accepted (default 64).
    pub max_nesting: usize,
    /// The deepest parsed syntax tree accepted (default 32).
    pub max_ast_depth: usize,
    /// The most comprehension iterations (`all`, `exists`, `map`, …, nested ones multiplied) one
    /// evaluation may run (default 1,000,000).
    pub max_iterations: usize,
    /// The most bytes of values one evaluation may produce (default 64 MiB): every result of a
    /// function or operator is charged (a string or bytes its length, a list or map 48 bytes per
    /// element: a boxed value and its allocation), so `s + s + s` in a loop or a balanced tree of `+` stops with a `cel_error`.
    pub max_produced_bytes: usize,
    /// The most cost one evaluation may spend (default 100,000,000): every argument of a function or
    /// operator is charged its size (a string or bytes its length, a list or map its element count,
    /// anything else 1), as cel-go's cost model does, so `size(s)`, `s.contains(t)` and `x in xs` on
    /// large operands inside a comprehension are bounded by their operands, not by steps alone.
    pub max_cost: usize,
    /// The most distinct `matches` patterns one evaluation may compile (default 64): patterns taken
    /// from the message are compiled (and cached) once each, within this budget.
    pub max_regex_compiles: usize,
    /// Bounds of the regexes of `matches`.
    pub regex: RegexLimits,
}

impl Default for CelLimits {
    fn default() -> Self {
        CelLimits {
            max_expression_len: 16 << 10,
            max_nesting: 64,
            max_ast_depth: 32,
            max_iterations: 1_000_000,
            max_produced_bytes: 64 << 20,
            max_cost: 100_000_000,
            max_regex_compiles: 64,
            regex: RegexLimits::default(),
        }
    }
}

/// The default [`CelEvaluator`]: a CEL environment built once, shared by the programs it compiles.
///
/// `Send + Sync`; cloning shares the environment and the regex cache.
#[derive(Clone)]
pub struct CelEngine {
    env: Arc<Env>,
    regexes: Arc<RegexCache>,
    limits: CelLimits,
}

impl fmt::Debug for CelEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CelEngine")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for CelEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl CelEngine {
    /// An engine with the default [`CelLimits`].
    pub fn new() -> Self {
        Self::with_limits(CelLimits::default())
    }

    /// An engine with explicit limits.
    pub fn with_limits(limits: CelLimits) -> Self {
        CelEngine {
            env: shared_env(),
            regexes: Arc::new(RegexCache {
                limits: limits.regex,
                compiled: Mutex::new(HashMap::new()),
            }),
            limits,
        }
    }

    /// The limits of this engine.
    pub fn limits(&self) -> &CelLimits {
        &self.limits
    }

    /// How many compiled regexes the `matches` cache holds.
    pub fn cached_regexes(&self) -> usize {
        self.regexes.len()
    }

    /// Parses `expression` within the limits: the syntax check of V-014, and the first step of
    /// [`CelEvaluator::compile`].
    fn parse(&self, expression: &str) -> Result<Program, EvaluationError> {
        check_bounds(expression, &self.limits)?;
        let env = Arc::clone(&self.env);
        let source = expression.to_owned();
        let max_depth = self.limits.max_ast_depth;
        // The parser (ANTLR) and the syntax tree's drop recurse deeply in unoptimized builds: parse on
        // the parser thread, which has a large stack, and drop a rejected tree there too.
        on_parser_thread(move || {
            let program = env.compile(&source).map_err(|e| {
                EvaluationError::new(Kind::CelError, parse_diagnostic(&e.to_string()))
            })?;
            let depth = ast_depth(program.expression());
            if depth > max_depth {
                return Err(EvaluationError::new(
                    Kind::CelError,
                    format!(
                        "expression nests {depth} levels deep, more than the limit of {max_depth}"
                    ),
                ));
            }
            Ok(program)
        })
    }
}

/// The standard library with the strings extension, built once per process and shared by every
/// engine: building it costs more than validating a small document (docs/performance.md).
fn shared_env() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    Arc::clone(ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        // The strings extension only adds overloads; a clash would leave the standard library intact.
        let _ = env.add_extension(cel::extensions::strings);
        Arc::new(env)
    }))
}

#[cfg(not(target_family = "wasm"))]
type ParseJob = Box<dyn FnOnce() + Send>;

/// Runs `parse` on the process's CEL parser thread (stack of [`PARSE_STACK_BYTES`]), started on first
/// use and kept: starting a thread with such a stack for every expression cost more than the parse
/// itself (docs/performance.md). Parses from several threads take turns; a panic is caught and
/// reported, and the thread goes on.
#[cfg(not(target_family = "wasm"))]
fn on_parser_thread<T: Send + 'static>(
    parse: impl FnOnce() -> Result<T, EvaluationError> + Send + 'static,
) -> Result<T, EvaluationError> {
    static PARSER: OnceLock<Result<mpsc::Sender<ParseJob>, String>> = OnceLock::new();
    let parser = PARSER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<ParseJob>();
        std::thread::Builder::new()
            .name(String::from("oatf-cel-parse"))
            .stack_size(PARSE_STACK_BYTES)
            .spawn(move || queue.into_iter().for_each(|job| job()))
            .map(|_| jobs)
            .map_err(|e| e.to_string())
    });
    let unavailable = |why: &str| {
        EvaluationError::new(Kind::CelError, format!("cannot run the CEL parser: {why}"))
    };
    let jobs = parser.as_ref().map_err(|e| unavailable(e))?;
    let (reply, answer) = mpsc::sync_channel(1);
    jobs.send(Box::new(move || {
        let _ = reply.send(catch_unwind(AssertUnwindSafe(parse)));
    }))
    .map_err(|_| unavailable("the parser thread stopped"))?;
    match answer.recv() {
        Ok(Ok(parsed)) => parsed,
        Ok(Err(_)) => Err(EvaluationError::new(
            Kind::CelError,
            "the CEL parser panicked",
        )),
        Err(_) => Err(unavailable("the parser thread stopped")),
    }
}

/// WebAssembly cannot start threads: the parse runs inline, on the module's stack, which the npm
/// build makes large (`cargo xtask wasm` links with a 16 MiB stack); `check_bounds` has already bounded
/// the nesting the parser recurses on.
#[cfg(target_family = "wasm")]
fn on_parser_thread<T: Send + 'static>(
    parse: impl FnOnce() -> Result<T, EvaluationError> + Send + 'static,
) -> Result<T, EvaluationError> {
    parse()
}

impl CelEvaluator for CelEngine {
    fn compile(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<Box<dyn CompiledCel>, EvaluationError> {
        Ok(Box::new(self.compile_program(expression, variables)?))
    }
}

impl CelEngine {
    /// Compiles `expression` into a [`CelProgram`]: parsed, metered, and with its read set.
    fn compile_program(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<CelProgram, EvaluationError> {
        let program = self.parse(expression)?;
        let functions = program
            .references()
            .functions()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let mut budgeted = program.expression().clone();
        meter(&mut budgeted);
        charge_comprehensions(&mut budgeted);
        let roots: Vec<&str> = std::iter::once("message")
            .chain(variables.iter().copied())
            .collect();
        Ok(CelProgram {
            reads: reads::ReadSet::of(&budgeted, &roots),
            budgeted,
            root: root_context(&self.env, &self.regexes, &self.limits)?,
            variables: variables.iter().map(|v| (*v).to_owned()).collect(),
            functions,
        })
    }
}

/// The V-014 hook of the model: `validate_with(ValidateOptions::new().with_cel_check(Arc::new(engine)))`.
impl oatf_model::CelSyntaxCheck for CelEngine {
    fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
        self.check_syntax(expression)
    }
}

impl CelEngine {
    /// V-014 within this engine's limits: an expression beyond the length or bracket-nesting limit is
    /// a [`CelSyntaxErrorKind::Limit`], refused before the parser runs; anything the parser refuses
    /// (or a syntax tree deeper than the limit) is a [`CelSyntaxErrorKind::Syntax`].
    fn check_syntax(&self, expression: &str) -> Result<(), CelSyntaxError> {
        check_bounds(expression, &self.limits)
            .map_err(|e| CelSyntaxError::new(CelSyntaxErrorKind::Limit, e.message()))?;
        self.parse(expression)
            .map(drop)
            .map_err(|e| CelSyntaxError::new(CelSyntaxErrorKind::Syntax, e.message()))
    }
}

/// Checks the syntax of a CEL expression within the default limits (V-014).
///
/// The error's message is the parser's diagnostic (first line), or the limit the expression exceeds.
///
/// ```
/// use oatf_model::CelSyntaxErrorKind;
/// assert!(oatf_cel::check_cel_syntax("size(message.tools) > 1").is_ok());
/// let error = oatf_cel::check_cel_syntax("size(message.tools) >").unwrap_err();
/// assert_eq!(error.kind(), CelSyntaxErrorKind::Syntax);
/// assert!(error.message().starts_with("1:"));
/// ```
pub fn check_cel_syntax(expression: &str) -> Result<(), CelSyntaxError> {
    thread_local! {
        static ENGINE: CelEngine = CelEngine::new();
    }
    ENGINE.with(|engine| engine.check_syntax(expression))
}

/// A program compiled by a [`CelEngine`].
struct CelProgram {
    /// The program's syntax tree with every comprehension's range charged to the iteration budget.
    budgeted: IdedExpr,
    /// What the expression reads of `message` and of each variable: only that is bound.
    reads: reads::ReadSet,
    /// The context every evaluation runs in a child scope of: the environment and the functions
    /// `matches` and the budgets, registered once (their counters are per evaluation, [`budget`]).
    root: Context<'static, 'static>,
    variables: Vec<String>,
    functions: Vec<String>,
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
    fn run(&self, message: &Value, variables: &[(&str, &Value)]) -> Result<bool, EvaluationError> {
        self.run_bound(message, variables, Binding::Pruned)
    }

    /// Evaluates with `message` and the variables bound as `binding` says (the whole binding is
    /// kept for the equivalence tests of the read sets).
    fn run_bound(
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

    fn execution_error(&self, error: &ExecutionError) -> EvaluationError {
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
enum Binding {
    /// Only what the expression reads ([`reads`]).
    Pruned,
    /// The whole values, as before the read sets (tests compare both).
    #[cfg(test)]
    Whole,
}

/// The root context of a program: the shared environment, `matches` and the budget functions.
/// Built once per program; each evaluation binds its variables in a child scope.
fn root_context(
    env: &Arc<Env>,
    regexes: &Arc<RegexCache>,
    limits: &CelLimits,
) -> Result<Context<'static, 'static>, EvaluationError> {
    let mut context = Context::with_env(Arc::clone(env));
    let regexes = Arc::clone(regexes);
    let max_compiles = limits.max_regex_compiles;
    let matches = move |This(text): This<Arc<String>>, pattern: Arc<String>| {
        budget::with(budget::Counter::RegexCompiles, |compiles| {
            regexes.is_match(&text, &pattern, compiles, max_compiles)
        })
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
        (CHARGE_FUNCTION, iteration_budget(limits.max_iterations)),
        (
            PRODUCED_FUNCTION,
            size_budget(
                PRODUCED_FUNCTION,
                limits.max_produced_bytes,
                "bytes of values produced",
                "max_produced_bytes",
                48,
                budget::Counter::Produced,
            ),
        ),
        (
            PRECHECK_FUNCTION,
            size_budget(
                PRECHECK_FUNCTION,
                limits.max_produced_bytes,
                "bytes of values produced",
                "max_produced_bytes",
                48,
                budget::Counter::Produced,
            ),
        ),
        (
            COST_FUNCTION,
            size_budget(
                COST_FUNCTION,
                limits.max_cost,
                "cost",
                "max_cost",
                1,
                budget::Counter::Cost,
            ),
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

/// The function wrapped around the result of every function and operator call: charges its size to
/// the evaluation's [`CelLimits::max_produced_bytes`].
const PRODUCED_FUNCTION: &str = "@oatf_charge_produced";
/// The function wrapped around every argument of a function or operator call: charges its size to
/// the evaluation's [`CelLimits::max_cost`].
const COST_FUNCTION: &str = "@oatf_charge_cost";

/// The function wrapped around the target of `replace`, `join` and `split`, with their arguments:
/// charges the worst-case size of the result to [`CelLimits::max_produced_bytes`] before the call.
const PRECHECK_FUNCTION: &str = "@oatf_charge_worst_case";

/// Operators whose operands are not walked (logic on booleans, indexing) and whose results are
/// existing values or booleans: not metered.
fn unmetered(function: &str) -> bool {
    matches!(
        function,
        "_&&_" | "_||_" | "_?_:_" | "!_" | "@not_strictly_false" | "_[_]" | "_[?_]" | "-_"
    ) || function.starts_with("@oatf_")
}

fn wrap(function: &str, expr: &mut IdedExpr) {
    let inner = std::mem::take(expr);
    *expr = IdedExpr {
        id: inner.id,
        expr: Expr::Call(CallExpr {
            func_name: function.to_owned(),
            target: None,
            args: vec![inner],
        }),
    };
}

/// Meters `expr` (see [`CelLimits::max_cost`] and [`CelLimits::max_produced_bytes`]): every argument
/// of a call (its target too) is wrapped in [`COST_FUNCTION`], every call in [`PRODUCED_FUNCTION`].
/// Literals are not wrapped (they are part of the bounded expression). The loop steps of
/// comprehensions keep the shapes the `cel` crate recognizes (see [`meter_step`]). The tree is at
/// most [`CelLimits::max_ast_depth`] deep, so recursion is bounded.
fn meter(expr: &mut IdedExpr) {
    match &mut expr.expr {
        Expr::Call(call) => {
            let metered = !unmetered(&call.func_name);
            if let Some(target) = call.target.as_deref_mut() {
                meter(target);
                if metered && !matches!(target.expr, Expr::Literal(_)) {
                    wrap(COST_FUNCTION, target);
                }
            }
            for arg in &mut call.args {
                meter(arg);
                if metered && !matches!(arg.expr, Expr::Literal(_)) {
                    wrap(COST_FUNCTION, arg);
                }
            }
            // Functions whose one call can produce far more than their operands (`s.replace("", t)`,
            // a `join` of a list holding one large string many times, `split` into one string per
            // character) are charged their worst case before they run.
            if metered
                && matches!(call.func_name.as_str(), "replace" | "join" | "split")
                && let Some(target) = call.target.as_deref_mut()
            {
                let inner = std::mem::take(target);
                let mut args = vec![inner];
                args.extend(call.args.iter().cloned());
                *target = IdedExpr {
                    id: args[0].id,
                    expr: Expr::Call(CallExpr {
                        func_name: PRECHECK_FUNCTION.to_owned(),
                        target: None,
                        args,
                    }),
                };
            }
            // Comparisons, membership and tests give a boolean or a number: nothing to charge.
            let small_result = matches!(
                call.func_name.as_str(),
                "_==_"
                    | "_!=_"
                    | "_<_"
                    | "_<=_"
                    | "_>_"
                    | "_>=_"
                    | "@in"
                    | "size"
                    | "contains"
                    | "startsWith"
                    | "endsWith"
                    | "matches"
                    | "has"
            );
            if metered && !small_result {
                wrap(PRODUCED_FUNCTION, expr);
            }
        }
        Expr::Comprehension(c) => {
            let accu = c.accu_var.clone();
            meter(&mut c.iter_range);
            meter(&mut c.accu_init);
            meter_step(&mut c.loop_cond, &accu);
            meter_step(&mut c.loop_step, &accu);
            meter(&mut c.result);
        }
        Expr::List(list) => list.elements.iter_mut().for_each(meter),
        Expr::Map(map) => meter_entries(&mut map.entries),
        Expr::Struct(s) => meter_entries(&mut s.entries),
        Expr::Select(select) => meter(&mut select.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Meters a comprehension's loop condition or step without changing its shape: `accu && x`,
/// `accu || x`, `accu + [x]` and `c ? accu + [x] : accu` keep their operators, the accumulator and
/// the list literal; what they combine (`x`, `c`) is metered. The list the step appends to is the
/// comprehension's own, charged by the iteration budget.
fn meter_step(expr: &mut IdedExpr, accu: &str) {
    match &mut expr.expr {
        Expr::Call(call)
            if call.target.is_none()
                && matches!(call.func_name.as_str(), "_&&_" | "_||_" | "_+_" | "_?_:_") =>
        {
            for arg in &mut call.args {
                match &mut arg.expr {
                    Expr::Ident(name) if name == accu => {}
                    Expr::List(list) => list.elements.iter_mut().for_each(meter),
                    Expr::Call(_) => meter_step(arg, accu),
                    _ => meter(arg),
                }
            }
        }
        _ => meter(expr),
    }
}

fn meter_entries(entries: &mut [cel::common::ast::IdedEntryExpr]) {
    for entry in entries {
        match &mut entry.expr {
            EntryExpr::StructField(field) => meter(&mut field.value),
            EntryExpr::MapEntry(e) => {
                meter(&mut e.key);
                meter(&mut e.value);
            }
        }
    }
}

/// The size of a value for the budgets: a string or bytes its length in bytes (not its code points:
/// counting them is linear), a list or map its element count times `per_element`, anything else 1.
fn value_size(value: &dyn Val, per_element: usize) -> usize {
    if let Some(s) = value.downcast_ref::<CelString<'_>>() {
        s.inner().len()
    } else if let Some(b) = value.downcast_ref::<cel::common::types::CelBytes<'_>>() {
        b.inner().len()
    } else if let Some(sizer) = value.as_sizer() {
        usize::try_from(*sizer.size().inner())
            .unwrap_or(usize::MAX)
            .saturating_mul(per_element)
    } else {
        1
    }
}

/// The worst-case size in bytes of `target.replace(old, new)`, `target.join(sep)` and
/// `target.split(sep)`, from the target and the arguments (`args[0]` is the target); strings
/// produced by `split` are charged 48 bytes each besides their text.
fn worst_case(args: &[CowVal<'_, '_>]) -> usize {
    let text = |i: usize| {
        args.get(i)
            .and_then(|v| v.downcast_ref::<CelString<'_>>())
            .map_or(0, |s| s.inner().len())
    };
    let target = args.first().map(|v| v.as_ref());
    if let Some(list) = target.and_then(|v| v.downcast_ref::<CelList<'_>>()) {
        // join: every element and a separator between each two.
        let items: usize = list
            .inner()
            .iter()
            .map(|item| value_size(item.as_ref(), 48))
            .fold(0, usize::saturating_add);
        return items.saturating_add(list.inner().len().saturating_mul(text(1)));
    }
    let len = text(0);
    match args.len() {
        // split(sep) and split(sep, n): at most one piece per separator or per character.
        2 | 3
            if args
                .get(2)
                .is_none_or(|v| v.downcast_ref::<CelString<'_>>().is_none()) =>
        {
            let pieces = len / text(1).max(1) + 1;
            len.saturating_add(pieces.saturating_mul(48))
        }
        // replace(old, new) and replace(old, new, n): at most one replacement per occurrence of
        // `old`, or per character and at both ends for an empty `old`.
        _ => {
            let occurrences = len / text(1).max(1) + 1;
            len.saturating_add(occurrences.saturating_mul(text(2)))
        }
    }
}

/// A budget function of one evaluation: charges the size of its argument (see [`value_size`]) to
/// a total of at most `max` and passes the value through unchanged.
fn size_budget(
    function: &'static str,
    max: usize,
    what: &'static str,
    option: &'static str,
    per_element: usize,
    counter: budget::Counter,
) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let value = if function == PRECHECK_FUNCTION {
            let size = worst_case(&ftx.args);
            if ftx.args.is_empty() {
                return Err(ExecutionError::invalid_argument_count(1, 0));
            }
            (ftx.args.swap_remove(0), size)
        } else {
            let Some(value) = ftx.args.pop() else {
                return Err(ExecutionError::invalid_argument_count(1, 0));
            };
            let size = value_size(value.as_ref(), per_element);
            (value, size)
        };
        let (value, size) = value;
        if !budget::charge(counter, size, max) {
            return Err(ExecutionError::function_error(
                function,
                format!(
                    "the expression needs more than the limit of {max} {what} in one evaluation \
                     (CelLimits::{option})"
                ),
            ));
        }
        Ok(value)
    })
}

/// The function wrapped around the range of every comprehension; `@` cannot start a CEL identifier,
/// so an expression can neither call nor shadow it.
const CHARGE_FUNCTION: &str = "@oatf_charge_iterations";

/// Wraps the range of every comprehension of `expr` in [`CHARGE_FUNCTION`]. The loop condition and
/// step are left alone: the `cel` crate recognizes their shapes to run `all`/`exists`/`map`/`filter`
/// efficiently. The tree is at most [`CelLimits::max_ast_depth`] deep, so recursion is bounded.
fn charge_comprehensions(expr: &mut IdedExpr) {
    match &mut expr.expr {
        Expr::Call(call) => {
            if let Some(target) = call.target.as_deref_mut() {
                charge_comprehensions(target);
            }
            call.args.iter_mut().for_each(charge_comprehensions);
        }
        Expr::Comprehension(c) => {
            for child in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                charge_comprehensions(child);
            }
            let range = std::mem::take(&mut c.iter_range);
            c.iter_range = IdedExpr {
                id: range.id,
                expr: Expr::Call(CallExpr {
                    func_name: CHARGE_FUNCTION.to_owned(),
                    target: None,
                    args: vec![range],
                }),
            };
        }
        Expr::List(list) => list.elements.iter_mut().for_each(charge_comprehensions),
        Expr::Map(map) => charge_entries(&mut map.entries),
        Expr::Struct(s) => charge_entries(&mut s.entries),
        Expr::Select(select) => charge_comprehensions(&mut select.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn charge_entries(entries: &mut [cel::common::ast::IdedEntryExpr]) {
    for entry in entries {
        match &mut entry.expr {
            EntryExpr::StructField(field) => charge_comprehensions(&mut field.value),
            EntryExpr::MapEntry(e) => {
                charge_comprehensions(&mut e.key);
                charge_comprehensions(&mut e.value);
            }
        }
    }
}

/// The [`CHARGE_FUNCTION`] of one evaluation: charges the size of each list or map a comprehension
/// is about to iterate to a budget of `max` iterations and passes the value through unchanged.
fn iteration_budget(max: usize) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let Some(range) = ftx.args.pop() else {
            return Err(ExecutionError::invalid_argument_count(1, 0));
        };
        if range.as_iterable().is_some() {
            let size = range.as_sizer().map_or(0, |s| {
                usize::try_from(*s.size().inner()).unwrap_or(usize::MAX)
            });
            if !budget::charge(budget::Counter::Iterations, size, max) {
                return Err(ExecutionError::function_error(
                    CHARGE_FUNCTION,
                    format!(
                        "the expression needs more than the limit of {max} comprehension iterations \
                         (CelLimits::max_iterations)"
                    ),
                ));
            }
        }
        Ok(range)
    })
}

/// A function registered with raw access to its arguments (the `cel` crate's `Function`, which it
/// does not export by name).
type BuiltinFunction = Box<
    dyn for<'c, 'a> Fn(&mut FunctionContext<'c, 'a>) -> Result<CowVal<'c, 'a>, ExecutionError>
        + Send
        + Sync,
>;

/// Compiled `matches` regexes of one engine.
struct RegexCache {
    limits: RegexLimits,
    compiled: Mutex<HashMap<String, Arc<Regex>>>,
}

impl RegexCache {
    fn len(&self) -> usize {
        self.compiled.lock().map_or(0, |m| m.len())
    }

    fn get(
        &self,
        pattern: &str,
        compiles: &AtomicUsize,
        max_compiles: usize,
    ) -> Result<Arc<Regex>, ExecutionError> {
        if let Ok(map) = self.compiled.lock()
            && let Some(regex) = map.get(pattern)
        {
            return Ok(Arc::clone(regex));
        }
        // Patterns taken from the message: each new one costs a compilation.
        if compiles.fetch_add(1, Ordering::Relaxed) >= max_compiles {
            return Err(ExecutionError::function_error(
                "matches",
                format!(
                    "the expression needs more than the limit of {max_compiles} regex compilations \
                     in one evaluation (CelLimits::max_regex_compiles)"
                ),
            ));
        }
        let regex = Arc::new(
            self.limits
                .compile(pattern)
                .map_err(|e| ExecutionError::function_error("matches", e.message()))?,
        );
        if let Ok(mut map) = self.compiled.lock() {
            if map.len() >= REGEX_CACHE_CAPACITY {
                map.clear();
            }
            map.insert(pattern.to_owned(), Arc::clone(&regex));
        }
        Ok(regex)
    }

    fn is_match(
        &self,
        text: &str,
        pattern: &str,
        compiles: &AtomicUsize,
        max_compiles: usize,
    ) -> Result<bool, ExecutionError> {
        if text.len() > self.limits.max_input_len {
            return Err(ExecutionError::function_error(
                "matches",
                format!(
                    "{REGEX_BOUND_MARKER}text of {} bytes exceeds the regex input limit of {} bytes",
                    text.len(),
                    self.limits.max_input_len
                ),
            ));
        }
        Ok(self.get(pattern, compiles, max_compiles)?.is_match(text))
    }
}

/// Rejects expressions over the size and bracket-nesting limits before they reach the parser.
fn check_bounds(expression: &str, limits: &CelLimits) -> Result<(), EvaluationError> {
    if expression.len() > limits.max_expression_len {
        return Err(EvaluationError::new(
            Kind::CelError,
            format!(
                "expression of {} bytes exceeds the limit of {} bytes",
                expression.len(),
                limits.max_expression_len
            ),
        ));
    }
    let bytes = expression.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > limits.max_nesting {
                    return Err(EvaluationError::new(
                        Kind::CelError,
                        format!(
                            "brackets nest deeper than the limit of {} at byte {i}",
                            limits.max_nesting
                        ),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' | b'\'' => {
                i = skip_string(bytes, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// The index just past the string literal starting at `start` (single, double or triple quoted; a
/// backslash escapes the next byte). An unterminated literal runs to the end.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes.get(start).copied().unwrap_or(b'"');
    let triple = bytes.get(start + 1) == Some(&quote) && bytes.get(start + 2) == Some(&quote);
    let mut i = start + if triple { 3 } else { 1 };
    while let Some(&b) = bytes.get(i) {
        if b == b'\\' {
            i += 2;
            continue;
        }
        if b == quote {
            if !triple {
                return i + 1;
            }
            if bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) {
                return i + 3;
            }
        }
        i += 1;
    }
    bytes.len()
}

/// The depth of a syntax tree, computed with an explicit stack.
fn ast_depth(root: &IdedExpr) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&IdedExpr, usize)> = vec![(root, 1)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        let next = depth + 1;
        match &node.expr {
            Expr::Call(call) => {
                stack.extend(call.target.as_deref().map(|t| (t, next)));
                stack.extend(call.args.iter().map(|a| (a, next)));
            }
            Expr::Comprehension(c) => {
                for child in [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_cond,
                    &c.loop_step,
                    &c.result,
                ] {
                    stack.push((child, next));
                }
            }
            Expr::List(list) => stack.extend(list.elements.iter().map(|e| (e, next))),
            Expr::Map(map) => push_entries(&mut stack, &map.entries, next),
            Expr::Struct(s) => push_entries(&mut stack, &s.entries, next),
            Expr::Select(select) => stack.push((&select.operand, next)),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    deepest
}

fn push_entries<'a>(
    stack: &mut Vec<(&'a IdedExpr, usize)>,
    entries: &'a [cel::common::ast::IdedEntryExpr],
    depth: usize,
) {
    for entry in entries {
        match &entry.expr {
            EntryExpr::StructField(field) => stack.push((&field.value, depth)),
            EntryExpr::MapEntry(e) => {
                stack.push((&e.key, depth));
                stack.push((&e.value, depth));
            }
        }
    }
}

/// Converts a JSON value to a CEL value: integers to `int` (`uint` beyond `i64`), other numbers to
/// `double`, objects to maps with string keys.
/// The CEL value of a JSON value, built directly as the `cel` crate's values and borrowing the
/// message's strings: the `cel::Value` route converted the message twice and copied every string, which
/// was most of the time of an expression indicator (docs/performance.md).
fn to_cel<'v>(value: &'v Value, depth: usize) -> Result<Box<dyn Val + 'v>, EvaluationError> {
    if depth > MAX_MESSAGE_DEPTH {
        return Err(EvaluationError::new(
            Kind::CelError,
            format!("the message nests deeper than {MAX_MESSAGE_DEPTH} levels"),
        ));
    }
    Ok(match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Box::new(CelInt::from(i)),
            (None, Some(u)) => Box::new(CelUInt::from(u)),
            (None, None) => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Array(items) => Box::new(CelList::from(
            items
                .iter()
                .map(|item| to_cel(item, depth + 1))
                .collect::<Result<Vec<_>, _>>()?,
        )),
        Value::Object(map) => {
            let mut out = HashMap::with_capacity(map.len());
            for (key, item) in map {
                out.insert(
                    CelMapKey::String(CelString::from(key.as_str())),
                    to_cel(item, depth + 1)?,
                );
            }
            Box::new(CelMap::from(out))
        }
    })
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

/// A parser diagnostic in house style: `1:5: syntax error: …` instead of `ERROR: <input>:1:5: Syntax error: …`.
fn parse_diagnostic(text: &str) -> String {
    let line = first_line(text);
    let line = line.strip_prefix("ERROR: ").unwrap_or(&line);
    let line = line.strip_prefix("<input>:").unwrap_or(line);
    line.replacen("Syntax error", "syntax error", 1)
}

/// The first line of a (possibly multi-line) diagnostic, at most 512 characters.
fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .chars()
        .take(512)
        .collect()
}

#[cfg(test)]
mod tests;
