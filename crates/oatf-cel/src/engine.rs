//! [`CelEngine`], the public API: the environment, compiling expressions into programs, and the
//! syntax check of V-014.

use std::fmt;
use std::sync::{Arc, OnceLock};

use cel::{Env, Program};
use oatf_eval::{CelEvaluator, CelGuard, CompiledCel, EvaluationError};
use oatf_model::{CelSyntaxError, CelSyntaxErrorKind};

use crate::direct::Direct;
use crate::limits::CelLimits;
use crate::parse::Refusal;
use crate::program::{self, CelProgram};
use crate::regex_cache::RegexCache;
use crate::{metering, parse, reads};

/// The default [`CelEvaluator`]: a CEL environment built once, shared by the programs it compiles.
///
/// `Send + Sync`; cloning shares the environment and the regex cache.
#[derive(Clone)]
pub struct CelEngine {
    pub(crate) env: Arc<Env>,
    pub(crate) regexes: Arc<RegexCache>,
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
            regexes: Arc::new(RegexCache::new(limits.regex)),
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
        parse::parse(&self.env, expression, &self.limits)
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

impl CelEvaluator for CelEngine {
    fn compile(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<Box<dyn CompiledCel>, EvaluationError> {
        Ok(Box::new(self.compile_program(expression, variables)?))
    }

    /// The program and, for an expression on the direct path without variables that looks for
    /// literals in the message's strings, its literal guard (D-95, [`CelGuard`]).
    fn compile_guarded(
        &self,
        expression: &str,
        variables: &[&str],
    ) -> Result<(Box<dyn CompiledCel>, Option<CelGuard>), EvaluationError> {
        let program = self.compile_program(expression, variables)?;
        let guard = program.literal_guard();
        Ok((Box::new(program), guard))
    }
}

impl CelEngine {
    /// Compiles `expression` into a [`CelProgram`]: parsed, metered, and with its read set.
    pub(crate) fn compile_program(
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
        metering::meter(&mut budgeted);
        let weights = metering::iteration_weights(program.expression());
        metering::charge_comprehensions(&mut budgeted, &weights);
        let roots: Vec<&str> = std::iter::once("message")
            .chain(variables.iter().copied())
            .collect();
        Ok(CelProgram {
            reads: reads::ReadSet::of(&budgeted, &roots),
            budgeted,
            root: program::root_context(&self.env, &self.regexes, &self.limits)?,
            variables: variables.iter().map(|v| (*v).to_owned()).collect(),
            functions,
            direct: Direct::of(program.expression(), variables, &self.limits, &weights)
                .map(Arc::new),
            limits: self.limits,
            regexes: Arc::clone(&self.regexes),
        })
    }
}

/// The V-014 hook of the model: `validate_with(ValidateOptions::new().with_cel_check(Arc::new(engine)))`.
impl oatf_model::CelSyntaxCheck for CelEngine {
    fn check(&self, expression: &str) -> Result<(), CelSyntaxError> {
        self.check_syntax(expression)
    }

    /// All of a document's expressions in one hand-off to the parser thread, instead of one each
    /// (docs/performance.md, "Load"); the answers are those of
    /// [`check`](oatf_model::CelSyntaxCheck::check), in order.
    fn check_all(&self, expressions: &[&str]) -> Vec<Result<(), CelSyntaxError>> {
        parse::check_all(&self.env, expressions, &self.limits)
            .into_iter()
            .map(|answer| {
                answer.map_err(|refusal| match refusal {
                    Refusal::Bounds(e) => {
                        CelSyntaxError::new(CelSyntaxErrorKind::Limit, e.message())
                    }
                    Refusal::Parser(e) => {
                        CelSyntaxError::new(CelSyntaxErrorKind::Syntax, e.message())
                    }
                })
            })
            .collect()
    }
}

impl CelEngine {
    /// V-014 within this engine's limits: an expression beyond the length or bracket-nesting limit is
    /// a [`CelSyntaxErrorKind::Limit`], refused before the parser runs; anything the parser refuses
    /// (or a syntax tree deeper than the limit) is a [`CelSyntaxErrorKind::Syntax`].
    fn check_syntax(&self, expression: &str) -> Result<(), CelSyntaxError> {
        parse::check_bounds(expression, &self.limits)
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
