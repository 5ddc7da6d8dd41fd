//! Time is a stated property of the CEL budgets (D-127, docs/input-safety.md "Time bounds of the
//! CEL budgets"): generated hostile expressions and inputs at the budgets (nested comprehensions
//! with small and large bodies, string and list growth, copies into literals and optionals, loops
//! going on after a refused charge, deep nesting of the expression and of the message, `matches`
//! with large patterns) each end within the bound the documented per-unit costs give for the
//! limits, whatever their outcome.
//!
//! The limits are scaled down from the defaults so that the test takes seconds; the bound is
//! [`bound`] of those limits, times [`DEBUG_FACTOR`] in unoptimized builds and [`SLACK`] for a
//! loaded machine. Time is the evaluating thread's CPU time on Linux (the parser's thread and
//! other tests running at the same time do not count), wall time elsewhere.

use std::time::{Duration, Instant};

use oatf::cel::{CelEngine, CelLimits};
use oatf::eval::CelEvaluator;
use proptest::prelude::*;
use serde_json::{Value, json};

/// The documented worst-case cost of each budget unit, release build (docs/input-safety.md).
const PER_ITERATION: Duration = Duration::from_nanos(2_000);
const PER_COST_UNIT: Duration = Duration::from_nanos(15);
const PER_PRODUCED_BYTE: Duration = Duration::from_nanos(5);
const PER_REGEX_COMPILE: Duration = Duration::from_millis(6);
/// Parsing, metering and binding one expression and message, release build.
const FIXED: Duration = Duration::from_millis(20);

/// How much slower an unoptimized build is allowed to be.
const DEBUG_FACTOR: u32 = 5;
/// How much slower a loaded CI machine is allowed to be.
const SLACK: u32 = 4;

/// The worst-case time of one evaluation under `limits` (release build).
fn bound(limits: &CelLimits) -> Duration {
    let units = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    PER_ITERATION * units(limits.max_iterations)
        + PER_COST_UNIT * units(limits.max_cost)
        + PER_PRODUCED_BYTE * units(limits.max_produced_bytes)
        + PER_REGEX_COMPILE * units(limits.max_regex_compiles)
        + FIXED
}

/// The limits of the test: the defaults scaled down (the regex limits are the defaults).
fn limits() -> CelLimits {
    let mut limits = CelLimits::default();
    limits.max_iterations = 5_000;
    limits.max_cost = 500_000;
    limits.max_produced_bytes = 256 << 10;
    limits.max_regex_compiles = 2;
    limits
}

/// The CPU time of the calling thread (Linux), or `None`.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    // utime and stime, in clock ticks of 1/100 s.
    Some(Duration::from_millis((ticks(11)? + ticks(12)?) * 10))
}

/// The time `f` takes: thread CPU time where available, wall time otherwise.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let (wall, cpu) = (Instant::now(), thread_cpu());
    let out = f();
    let elapsed = match (cpu, thread_cpu()) {
        (Some(before), Some(after)) => after.saturating_sub(before),
        _ => wall.elapsed(),
    };
    (out, elapsed)
}

/// `n` loops nested over `message.xs`, named `a`, `b`, …, around `body`.
fn nested(depth: usize, macro_name: &str, body: &str) -> String {
    let vars = ["a", "b", "c", "d", "e", "f"];
    let mut expression = body.to_owned();
    for var in vars[..depth].iter().rev() {
        expression = match macro_name {
            "map" | "filter" => format!("size(message.xs.{macro_name}({var}, {expression})) >= 0"),
            _ => format!("message.xs.{macro_name}({var}, {expression})"),
        };
    }
    expression
}

/// A balanced tree of `&&`, `levels` deep, over the loop variables: nothing in it is a call the
/// metering charges, only the loop's weight does (D-127).
fn balanced(levels: u32, vars: &[&str]) -> String {
    if levels == 0 {
        return vars[0].to_owned();
    }
    let rotated: Vec<&str> = vars[1..].iter().chain(&vars[..1]).copied().collect();
    format!(
        "({} && {})",
        balanced(levels - 1, vars),
        balanced(levels - 1, &rotated)
    )
}

/// One of `expressions` on a message of `xs`, 1 to 2,000 integers, and `big`, 1 to 2,000 values
/// made by `element`.
fn over_big(
    expressions: Vec<&'static str>,
    element: fn(usize) -> Value,
) -> impl Strategy<Value = (String, Value)> {
    (
        prop::sample::select(expressions),
        1usize..=2_000,
        1usize..=2_000,
    )
        .prop_map(move |(expression, n, m)| {
            let big: Vec<Value> = (0..m).map(element).collect();
            (
                expression.to_owned(),
                json!({"xs": (0..n).collect::<Vec<_>>(), "big": big}),
            )
        })
}

/// A hostile expression and the message it runs on.
fn hostile() -> impl Strategy<Value = (String, Value)> {
    let xs = |n: usize| json!({ "xs": (0..n).collect::<Vec<_>>() });
    let loops = (
        1usize..=4,
        prop::sample::select(vec!["all", "exists", "exists_one", "map", "filter"]),
        prop::sample::select(vec![0u32, 5, 9, 11]),
        prop::bool::ANY,
        0usize..=3,
    )
        .prop_map(move |(depth, name, levels, strings, extra)| {
            // Lists just long enough for the nested loops to reach the iteration budget.
            let mut n: usize = 1;
            while n.pow(u32::try_from(depth).unwrap_or(1)) < limits().max_iterations {
                n += 1;
            }
            let n = n + extra;
            let vars = &["a", "b", "c", "d", "e", "f"][..depth];
            let body = if strings {
                format!(
                    "{} != 'x'",
                    vars.iter()
                        .map(|v| format!("string({v})"))
                        .collect::<Vec<_>>()
                        .join(" + ")
                )
            } else {
                balanced(levels, vars)
            };
            let body = match name {
                "map" => format!("({body}) ? 1 : 0"),
                _ => body,
            };
            let message = if strings {
                xs(n)
            } else {
                json!({ "xs": vec![true; n] })
            };
            (nested(depth, name, &body), message)
        });
    let strings = (
        prop::sample::select(vec![
            "size(message.s + message.s + message.s) > 0",
            "size(message.s.replace('a', message.s)) > 0",
            "size(message.s.split('')) > 0",
            "size(message.s.split('').join(message.s)) > 0",
            "message.s.contains(message.s + 'x')",
            "size(message.s.lowerAscii()) > 0",
        ]),
        1usize..=200_000,
        1usize..=200,
    )
        .prop_map(|(body, len, n)| {
            (
                format!("message.xs.all(x, {body})"),
                json!({"s": "ab".repeat(len / 2 + 1), "xs": (0..n).collect::<Vec<_>>()}),
            )
        });
    let lists = over_big(
        vec![
            "size(message.xs.map(x, message.xs)) > 0",
            "message.xs.all(x, message.xs + message.xs == message.xs)",
            "message.xs.all(x, message.big == message.big)",
            "message.xs.all(x, message.xs.exists(y, y in message.big))",
            "size(message.xs.map(x, message.big)) > 0",
            "size(message.xs.filter(x, message.big.all(y, true))) > 0",
        ],
        |i| json!([i, [i, "abc"]]),
    );
    // Values copied into what a literal or an optional makes, around a large part of the message,
    // in loops that go on after the first refused charge (`all` keeps an error until a deciding
    // body): the copies are charged before they are made, and a refused charge refuses the rest.
    let containers = over_big(
        vec![
            "message.xs.all(x, size([message.big, x]) > 0)",
            "message.xs.all(x, size({'k': message.big, 'x': x}) > 0)",
            "message.xs.all(x, message.?big.hasValue())",
            "message.xs.all(x, message[?'big'].hasValue())",
            "message.xs.all(x, optional.of(message.big).hasValue())",
            "message.xs.exists(x, size([?message.?big]) < 0)",
            "message.xs.all(x, size(message.big) > 0)",
        ],
        |i| json!({"i": i, "s": "abc"}),
    );
    let depth = (1usize..=40, 1usize..=140).prop_map(|(levels, message_depth)| {
        let mut expression = String::from("message.a");
        for _ in 0..levels {
            expression = format!("({expression} + 1)");
        }
        let mut message = json!(1);
        for _ in 0..message_depth {
            message = json!({ "d": message });
        }
        (
            format!("{expression} > 0 && size(message) >= 0"),
            json!({"a": 1, "m": message}),
        )
    });
    let patterns = (
        prop::sample::select(vec![10usize, 500, 1_100, 1_500]),
        1usize..=6,
        prop::sample::select(vec![r"\w{{{}}}", r"(?i)[\w\W]{{{}}}", r"(a|b|\d){{{}}}"]),
    )
        .prop_map(|(size, count, shape)| {
            let patterns: Vec<String> = (0..count)
                .map(|i| shape.replace("{{{}}}", &format!("{{{}}}", size + i)))
                .collect();
            (
                "message.ps.all(p, !message.s.matches(p))".to_owned(),
                json!({"ps": patterns, "s": "x".repeat(1_000)}),
            )
        });
    prop_oneof![3 => loops, 1 => strings, 1 => lists, 1 => containers, 1 => depth, 1 => patterns]
}

/// Evaluates `expression` on `message` with a fresh engine under [`limits`] and checks the time.
fn within_bound(expression: &str, message: &Value) -> Result<(), String> {
    let limits = limits();
    let factor = if cfg!(debug_assertions) {
        DEBUG_FACTOR
    } else {
        1
    };
    let ceiling = bound(&limits) * factor * SLACK;
    let (outcome, elapsed) = timed(|| {
        // A fresh engine each time: `matches` compiles its patterns, as on first sight.
        CelEngine::with_limits(limits)
            .compile(expression, &[])
            .and_then(|program| program.evaluate(message, &[]))
    });
    if elapsed <= ceiling {
        Ok(())
    } else {
        Err(format!(
            "{} took {elapsed:?}, more than {ceiling:?}: {outcome:?}",
            expression.chars().take(200).collect::<String>()
        ))
    }
}

/// The worst cases found by hand (docs/input-safety.md), at the test's limits: loops whose body
/// is as large as an expression may be, on both paths; ten nested loops; the two inputs of the
/// issue that made time a stated property (five nested `all()`, patterns rejected as too large);
/// loops going on after the cost limit, measuring or copying a large value each time (D-350,
/// D-351).
#[test]
fn the_worst_known_cases_end_within_the_stated_bound() {
    let bools = json!({ "xs": vec![true; 18] });
    let body = balanced(11, &["a", "b", "c"]);
    let sum = "a + b + c + d + e >= 0";
    let patterns: Vec<String> = (0..4).map(|i| format!(r"\w{{{}}}", 1_500 + i)).collect();
    let big = json!({
        "xs": (0..2_000).collect::<Vec<_>>(),
        "big": (0..2_000).map(|i| json!([i, [i, "abc"]])).collect::<Vec<_>>(),
    });
    let cases = [
        (nested(3, "all", &body), bools.clone()),
        (nested(3, "exists_one", &body), bools),
        (
            nested(6, "exists_one", &balanced(9, &["a"])),
            json!({ "xs": vec![true; 5] }),
        ),
        (
            nested(5, "all", sum),
            json!({ "xs": (0..6).collect::<Vec<_>>() }),
        ),
        (
            nested(5, "exists_one", sum),
            json!({ "xs": (0..6).collect::<Vec<_>>() }),
        ),
        (
            "message.ps.all(p, !message.s.matches(p))".to_owned(),
            json!({"ps": patterns, "s": "x"}),
        ),
        // Loops that go on after the cost limit, measuring or copying a large value each time.
        (
            "message.xs.all(x, message.big == message.big)".to_owned(),
            big.clone(),
        ),
        ("message.xs.all(x, size([message.big]) > 0)".to_owned(), big),
    ];
    for (expression, message) in &cases {
        if let Err(failure) = within_bound(expression, message) {
            panic!("{failure}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 40,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every evaluation ends within the stated bound of its limits, at the budgets or under them.
    #[test]
    fn hostile_evaluations_end_within_the_stated_bound((expression, message) in hostile()) {
        let checked = within_bound(&expression, &message);
        prop_assert!(checked.is_ok(), "{}", checked.err().unwrap_or_default());
    }
}
