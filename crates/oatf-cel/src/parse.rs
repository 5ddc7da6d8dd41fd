//! Parsing within the limits: the bounds checked before the parser runs (length, bracket nesting),
//! the parser thread with its large stack, the depth of the parsed tree, and the parser's
//! diagnostics in house style.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
#[cfg(not(target_family = "wasm"))]
use std::sync::{OnceLock, mpsc};

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Env, Program};
use oatf_eval::{EvaluationError, EvaluationErrorKind as Kind};

use crate::limits::CelLimits;

/// Stack of the thread that parses expressions; only touched pages are committed.
#[cfg(not(target_family = "wasm"))]
const PARSE_STACK_BYTES: usize = 256 << 20;

/// Parses `expression` within `limits` in `env`.
pub(crate) fn parse(
    env: &Arc<Env>,
    expression: &str,
    limits: &CelLimits,
) -> Result<Program, EvaluationError> {
    check_bounds(expression, limits)?;
    let env = Arc::clone(env);
    let source = expression.to_owned();
    let max_depth = limits.max_ast_depth;
    // The parser (ANTLR) and the syntax tree's drop recurse deeply in unoptimized builds: parse on
    // the parser thread, which has a large stack, and drop a rejected tree there too.
    on_parser_thread(move || parse_here(&env, &source, max_depth))
}

/// Why [`check_all`] refused an expression.
pub(crate) enum Refusal {
    /// Over the length or bracket-nesting limit: refused by [`check_bounds`], never parsed.
    Bounds(EvaluationError),
    /// Refused by the parser, or its syntax tree too deep, or the parser panicked or could not run.
    Parser(EvaluationError),
}

/// Checks each of `expressions` as [`parse`] would parse it, answering in the same order: the ones
/// within the bounds go to the parser thread in one hand-off (not one each), where each parse is
/// guarded on its own, so a panic refuses only the expression that caused it; every program is
/// dropped there.
pub(crate) fn check_all(
    env: &Arc<Env>,
    expressions: &[&str],
    limits: &CelLimits,
) -> Vec<Result<(), Refusal>> {
    check_all_with(env, expressions, limits, parse_here)
}

/// The parse of one expression: [`parse_here`], or in tests one that panics.
type ParseOne = fn(&Env, &str, usize) -> Result<Program, EvaluationError>;

/// [`check_all`] with the parse of one expression given.
fn check_all_with(
    env: &Arc<Env>,
    expressions: &[&str],
    limits: &CelLimits,
    parse_one: ParseOne,
) -> Vec<Result<(), Refusal>> {
    let mut answers: Vec<Result<(), Refusal>> = expressions
        .iter()
        .map(|expression| check_bounds(expression, limits).map_err(Refusal::Bounds))
        .collect();
    let to_parse: Vec<(usize, String)> = expressions
        .iter()
        .zip(&answers)
        .enumerate()
        .filter(|(_, (_, bounded))| bounded.is_ok())
        .map(|(i, (expression, _))| (i, (*expression).to_owned()))
        .collect();
    if to_parse.is_empty() {
        return answers;
    }
    let env = Arc::clone(env);
    let max_depth = limits.max_ast_depth;
    let parsed = on_parser_thread(move || {
        Ok(to_parse
            .into_iter()
            .map(|(i, source)| (i, guarded(|| parse_one(&env, &source, max_depth).map(drop))))
            .collect::<Vec<_>>())
    });
    match parsed {
        Ok(parsed) => {
            for (i, answer) in parsed {
                if let Some(slot) = answers.get_mut(i) {
                    *slot = answer.map_err(Refusal::Parser);
                }
            }
        }
        // The parser thread could not run: each expression it was to parse gets the reason.
        Err(e) => {
            for slot in answers.iter_mut().filter(|a| a.is_ok()) {
                *slot = Err(Refusal::Parser(e.clone()));
            }
        }
    }
    answers
}

/// Parses `source` on the calling thread and rejects a syntax tree deeper than `max_depth`: run it
/// only on the parser thread (or inline on WebAssembly), after [`check_bounds`].
fn parse_here(env: &Env, source: &str, max_depth: usize) -> Result<Program, EvaluationError> {
    let program = env
        .compile(source)
        .map_err(|e| EvaluationError::new(Kind::CelError, parse_diagnostic(&e.to_string())))?;
    let depth = ast_depth(program.expression());
    if depth > max_depth {
        return Err(EvaluationError::new(
            Kind::CelError,
            format!("expression nests {depth} levels deep, more than the limit of {max_depth}"),
        ));
    }
    Ok(program)
}

/// Runs `parse`, a panic of the `cel` crate becoming a `cel_error`.
fn guarded<T>(parse: impl FnOnce() -> Result<T, EvaluationError>) -> Result<T, EvaluationError> {
    catch_unwind(AssertUnwindSafe(parse)).unwrap_or_else(|_| {
        Err(EvaluationError::new(
            Kind::CelError,
            "the CEL parser panicked",
        ))
    })
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
        let _ = reply.send(guarded(parse));
    }))
    .map_err(|_| unavailable("the parser thread stopped"))?;
    answer
        .recv()
        .unwrap_or_else(|_| Err(unavailable("the parser thread stopped")))
}

/// WebAssembly cannot start threads: the parse runs inline, on the module's stack, which the npm
/// build makes large (`cargo xtask wasm` links with a 16 MiB stack); `check_bounds` has already bounded
/// the nesting the parser recurses on.
#[cfg(target_family = "wasm")]
fn on_parser_thread<T: Send + 'static>(
    parse: impl FnOnce() -> Result<T, EvaluationError> + Send + 'static,
) -> Result<T, EvaluationError> {
    guarded(parse)
}

/// Rejects expressions over the size and bracket-nesting limits before they reach the parser.
pub(crate) fn check_bounds(expression: &str, limits: &CelLimits) -> Result<(), EvaluationError> {
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

/// A parser diagnostic in house style: `1:5: syntax error: …` instead of `ERROR: <input>:1:5: Syntax error: …`.
fn parse_diagnostic(text: &str) -> String {
    let line = first_line(text);
    let line = line.strip_prefix("ERROR: ").unwrap_or(&line);
    let line = line.strip_prefix("<input>:").unwrap_or(line);
    line.replacen("Syntax error", "syntax error", 1)
}

/// The first line of a (possibly multi-line) diagnostic, at most 512 characters.
pub(crate) fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .chars()
        .take(512)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panics_on_boom(
        env: &Env,
        source: &str,
        max_depth: usize,
    ) -> Result<Program, EvaluationError> {
        assert!(!source.contains("boom"), "a panic inside the parser");
        parse_here(env, source, max_depth)
    }

    fn messages(answers: Vec<Result<(), Refusal>>) -> Vec<Result<(), String>> {
        answers
            .into_iter()
            .map(|a| {
                a.map_err(|r| match r {
                    Refusal::Bounds(e) => format!("bounds: {}", e.message()),
                    Refusal::Parser(e) => format!("parser: {}", e.message()),
                })
            })
            .collect()
    }

    #[test]
    fn a_panic_in_a_batch_refuses_only_its_expression() {
        let env = Arc::new(Env::stdlib());
        let limits = CelLimits::default();
        let answers = check_all_with(
            &env,
            &["a == 1", "boom == 1", "b ==", "c == 2"],
            &limits,
            panics_on_boom,
        );
        let answers = messages(answers);
        assert_eq!(answers[0], Ok(()));
        assert_eq!(
            answers[1],
            Err("parser: the CEL parser panicked".to_owned())
        );
        assert!(
            matches!(&answers[2], Err(m) if m.starts_with("parser: 1:")),
            "{answers:?}"
        );
        assert_eq!(answers[3], Ok(()));
        // The parser thread survived the panic.
        assert!(parse(&env, "d == 3", &limits).is_ok());
        assert_eq!(messages(check_all(&env, &["e == 4"], &limits)), [Ok(())]);
    }

    /// The deepest expressions the bounds let through, checked in one batch from a thread with a
    /// 256 KiB stack: the parse runs on the parser thread's stack, not the caller's, also in
    /// unoptimized builds.
    #[test]
    fn a_batch_from_a_small_stack_parses_on_the_parser_thread() {
        let limits = CelLimits::default();
        let brackets = format!(
            "{}1{} == 1",
            "(".repeat(limits.max_nesting),
            ")".repeat(limits.max_nesting)
        );
        let lists = format!(
            "{}1{} == 1",
            "[".repeat(limits.max_nesting),
            "]".repeat(limits.max_nesting)
        );
        let chain = format!("{} > 0", vec!["1"; 30].join(" + "));
        let small = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let env = Arc::new(Env::stdlib());
                messages(check_all(&env, &[&brackets, &lists, &chain], &limits))
            })
            .map(|t| t.join());
        let answers = match small {
            Ok(Ok(answers)) => answers,
            _ => panic!("the small-stack thread failed"),
        };
        assert_eq!(answers[0], Ok(()), "{answers:?}");
        assert!(
            matches!(&answers[1], Err(m) if m.contains("levels deep")),
            "{answers:?}"
        );
        assert_eq!(answers[2], Ok(()), "{answers:?}");
    }
}
