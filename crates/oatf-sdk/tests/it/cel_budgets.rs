//! CEL on hostile messages: the values one evaluation produces and the
//! work its calls do on large operands are bounded, and the excess is a `cel_error` naming the limit
//! (`CelLimits::max_produced_bytes`, `max_cost`, `max_regex_compiles`). Each case would take
//! gigabytes or minutes unbounded; here each ends in well under a few seconds in a debug build.

use std::time::{Duration, Instant};

use oatf::EvaluationError;
use oatf::EvaluationErrorKind;
use oatf::cel::CelEngine;
use oatf::cel::CelLimits;
use oatf::eval::CelEvaluator;
use serde_json::{Value, json};

fn run(expression: &str, message: &Value) -> Result<bool, EvaluationError> {
    run_with(CelLimits::default(), expression, message)
}

fn run_with(limits: CelLimits, expression: &str, message: &Value) -> Result<bool, EvaluationError> {
    let engine = CelEngine::with_limits(limits);
    let program = engine.compile(expression, &[])?;
    program.evaluate(message, &[])
}

/// Runs `expression` and checks it fails with a `cel_error` naming `limit`, quickly.
#[track_caller]
fn over(expression: &str, message: &Value, limit: &str) {
    over_any(expression, message, &[limit]);
}

/// Like [`over`], for an expression that exceeds several budgets (whichever is reached first).
#[track_caller]
fn over_any(expression: &str, message: &Value, limits: &[&str]) {
    let started = Instant::now();
    let outcome = run(expression, message);
    let elapsed = started.elapsed();
    let error = match outcome {
        Err(error) => error,
        Ok(value) => {
            panic!("{expression}: evaluated to {value}, expected an error naming {limits:?}")
        }
    };
    assert_eq!(
        error.kind(),
        EvaluationErrorKind::CelError,
        "{expression}: {}",
        error.message()
    );
    assert!(
        limits
            .iter()
            .any(|limit| error.message().contains(&format!("CelLimits::{limit}")))
            && error.message().contains("more than the limit of"),
        "{expression}: {}",
        error.message()
    );
    assert!(
        elapsed < Duration::from_secs(10),
        "{expression} took {elapsed:?}"
    );
}

fn text(bytes: usize) -> String {
    "a".repeat(bytes)
}

fn xs(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// `message.s` added to itself in a balanced tree of `2^levels` leaves.
fn balanced(levels: u32) -> String {
    let mut e = "message.s".to_owned();
    for _ in 0..levels {
        e = format!("({e}+{e})");
    }
    e
}

#[test]
fn a_balanced_tree_of_string_concatenations_is_bounded() {
    // 1,024 leaves of 100 KB: 100 MB unbounded, more with a larger message.
    let message = json!({"s": text(100_000)});
    over(
        &format!("size({}) > 0", balanced(10)),
        &message,
        "max_produced_bytes",
    );
    // The same tree over a short string is fine.
    assert_eq!(
        run(
            &format!("size({}) == 1024", balanced(10)),
            &json!({"s": "a"})
        )
        .ok(),
        Some(true)
    );
}

#[test]
fn concatenation_inside_a_comprehension_body_is_bounded() {
    let message = json!({"s": text(100_000), "xs": xs(2_000)});
    over(
        "message.xs.map(x, message.s + message.s + message.s + message.s).size() > 0",
        &message,
        "max_produced_bytes",
    );
    over_any(
        "message.xs.filter(x, size(message.s + message.s) > 0).size() > 0",
        &message,
        &["max_produced_bytes", "max_cost"],
    );
    // Lists: every `xs + xs` is 4,000 elements, 2,000 times.
    let lists = json!({"xs": xs(2_000)});
    over(
        "message.xs.map(x, message.xs + message.xs).size() > 0",
        &lists,
        "max_produced_bytes",
    );
    assert_eq!(
        run(
            "message.xs.map(x, message.s + message.s).size() == 2000",
            &json!({"s": "ab", "xs": xs(2_000)})
        )
        .ok(),
        Some(true)
    );
}

#[test]
fn functions_that_multiply_their_input_are_charged_before_they_run() {
    // 100 KB with a 100 KB replacement between every two characters: 10 GB.
    let message = json!({"s": text(100_000), "xs": xs(100_000)});
    over(
        "message.s.replace('', message.s).size() > 0",
        &message,
        "max_produced_bytes",
    );
    over(
        "message.s.replace('a', message.s, 100000).size() > 0",
        &message,
        "max_produced_bytes",
    );
    // 100,000 references to one 100 KB string, joined: 10 GB. The list is charged its size, its
    // strings included, as the argument of `join` (D-127), before the worst case of `join` is.
    over_any(
        "message.xs.map(x, message.s).join().size() > 0",
        &message,
        &["max_produced_bytes", "max_cost"],
    );
    over(
        "message.xs.map(x, 'a').join(message.s).size() > 0",
        &message,
        "max_produced_bytes",
    );
    // One string per character of 2 MB.
    over(
        "message.t.split('').size() > 0",
        &json!({"t": text(2_000_000)}),
        "max_produced_bytes",
    );
    // Small inputs still work.
    assert_eq!(
        run("'abc'.replace('', '-') == '-a-b-c-'", &json!({})).ok(),
        Some(true)
    );
    assert_eq!(
        run(
            "['a', 'b'].join(',') == 'a,b' && 'a,b'.split(',').size() == 2",
            &json!({})
        )
        .ok(),
        Some(true)
    );
}

#[test]
fn linear_calls_on_large_operands_in_a_loop_are_charged_by_size() {
    // 5,000 iterations × 100 KB: 5 × 10^8 bytes scanned, within the iteration budget. The default
    // cost budget (10^8) is reached after 1,000 iterations.
    let message = json!({"s": text(100_000), "xs": xs(5_000)});
    over(
        "message.xs.all(x, size(message.s) > 0)",
        &message,
        "max_cost",
    );
    // The other shapes (2,000 iterations × 10 KB) against a budget of 10^7 (the default takes a second each in a debug build).
    let mut limits = CelLimits::default();
    limits.max_cost = 10_000_000;
    for expression in [
        "message.xs.exists(x, message.s.contains(message.t))",
        "message.xs.all(x, !message.s.startsWith(message.t))",
        "message.xs.all(x, message.s != message.t)",
        "message.xs.exists(x, message.s.matches(message.t))",
        "message.ys.all(y, y in message.ys)",
    ] {
        let message = json!({"s": text(10_000), "t": "b", "xs": xs(2_000), "ys": xs(20_000)});
        let error = run_with(limits, expression, &message);
        assert!(
            error.as_ref().is_err_and(|e| e.message()
                == "the expression needs more than the limit of 10000000 cost in one evaluation \
                    (CelLimits::max_cost)"),
            "{expression}: {error:?}"
        );
    }
    // The same calls on small operands run.
    assert_eq!(
        run_with(
            limits,
            "message.ys.all(y, y in message.ys)",
            &json!({"ys": xs(1_000)})
        )
        .ok(),
        Some(true)
    );
    let small = json!({"t": "b", "xs": xs(10_000)});
    assert_eq!(
        run("message.xs.all(x, size(message.t) == 1)", &small),
        Ok(true)
    );
}

#[test]
fn patterns_from_the_message_have_a_compile_budget() {
    let patterns: Vec<String> = (0..1_000).map(|i| format!("^x{i}$")).collect();
    over(
        "message.ps.exists(p, message.s.matches(p))",
        &json!({"s": "nothing", "ps": patterns}),
        "max_regex_compiles",
    );
    // Within the budget they compile and match.
    let few: Vec<String> = (0..10).map(|i| format!("^x{i}$")).collect();
    assert_eq!(
        run(
            "message.ps.exists(p, message.s.matches(p))",
            &json!({"s": "x7", "ps": few})
        )
        .ok(),
        Some(true)
    );
}

/// The `matches` budget counts the distinct patterns of the evaluation, whether or not the
/// engine compiled them before (D-96): the same message gives the same answer on a fresh engine,
/// after an evaluation that compiled some of its patterns, and from another thread.
#[test]
fn the_matches_budget_does_not_depend_on_earlier_evaluations() {
    let mut limits = CelLimits::default();
    limits.max_regex_compiles = 2;
    let engine = CelEngine::with_limits(limits);
    let program = engine
        .compile("message.ps.exists(p, message.s.matches(p))", &[])
        .unwrap();
    let three = json!({"s": "nothing", "ps": ["^a$", "^b$", "^c$"]});
    let fresh = program.evaluate(&three, &[]);
    let error = fresh.as_ref().expect_err("three patterns, a budget of two");
    assert!(error.message().contains("max_regex_compiles"), "{error}");
    // Two of the three patterns compiled and cached by an evaluation within the budget.
    let two = json!({"s": "nothing", "ps": ["^a$", "^b$"]});
    assert_eq!(program.evaluate(&two, &[]).ok(), Some(false));
    let warmed = program.evaluate(&three, &[]);
    assert_eq!(
        warmed.as_ref().map_err(EvaluationError::kind),
        fresh.as_ref().map_err(EvaluationError::kind)
    );
    let threaded = std::thread::scope(|s| s.spawn(|| program.evaluate(&three, &[])).join());
    assert!(threaded.unwrap().is_err());
    // A pattern used many times counts once.
    let repeated = json!({"s": "nothing", "ps": ["^a$", "^a$", "^a$", "^b$", "^a$"]});
    assert_eq!(program.evaluate(&repeated, &[]).ok(), Some(false));
}
