//! Unit tests of the CEL engine.

use serde_json::{Value, json};

use std::sync::Arc;

use oatf_eval::{CelEvaluator, EvaluationError, EvaluationErrorKind as Kind};
use oatf_primitives::RegexLimits;

use crate::program::CelProgram;
use crate::{CelEngine, CelLimits, check_cel_syntax};

#[track_caller]
fn run(expression: &str, message: Value) -> Result<bool, EvaluationError> {
    let engine = CelEngine::new();
    let program = engine.compile(expression, &[])?;
    program.evaluate(&message, &[])
}

#[track_caller]
fn check(expression: &str, message: Value, expect: Result<bool, Kind>) {
    let actual = run(expression, message).map_err(|e| e.kind());
    assert_eq!(actual, expect, "{expression}");
}

#[test]
fn arithmetic_on_json_integers() {
    check("message.count + 1 == 3", json!({"count": 2}), Ok(true));
    check("message.count * 2 > 3", json!({"count": 2}), Ok(true));
    check("message.ratio > 0.5", json!({"ratio": 0.75}), Ok(true));
    // Beyond i64 a JSON integer is a CEL uint.
    check(
        "message.big == 18446744073709551615u",
        json!({"big": u64::MAX}),
        Ok(true),
    );
}

#[test]
fn int_double_equality_is_numeric_in_this_dialect() {
    // Documented behaviour of the `cel` crate: numeric equality across int and double.
    check("1 == 1.0", json!({}), Ok(true));
    check("message.n == 1.0", json!({"n": 1}), Ok(true));
}

#[test]
fn missing_field_is_cel_error() {
    check(
        "message.missing == 'x'",
        json!({"present": "x"}),
        Err(Kind::CelError),
    );
    check("has(message.missing)", json!({"present": "x"}), Ok(false));
}

#[test]
fn non_bool_result_is_type_error() {
    check(
        "size(message.tools)",
        json!({"tools": [1]}),
        Err(Kind::TypeError),
    );
    check("message.name", json!({"name": "x"}), Err(Kind::TypeError));
}

#[test]
fn unknown_function_is_unsupported_method() {
    check(
        "message.name.frobnicate('x')",
        json!({"name": "x"}),
        Err(Kind::UnsupportedMethod),
    );
    check("frobnicate(1)", json!({}), Err(Kind::UnsupportedMethod));
    // An unknown identifier is not a function.
    check("nobody == 1", json!({}), Err(Kind::CelError));
}

#[test]
fn syntax_errors_are_cel_errors() {
    let engine = CelEngine::new();
    let err = engine
        .compile("message.tools.exists(t, t.name ==", &[])
        .err();
    assert_eq!(err.map(|e| e.kind()), Some(Kind::CelError));
    assert!(check_cel_syntax("size(message.tools) > 1").is_ok());
    let err = check_cel_syntax("size(message.tools) >").err();
    assert_eq!(
        err.as_ref().map(oatf_model::CelSyntaxError::kind),
        Some(oatf_model::CelSyntaxErrorKind::Syntax)
    );
    let err = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(err.starts_with("1:"), "{err}");
    let hook: &dyn oatf_model::CelSyntaxCheck = &engine;
    assert!(hook.check("message.a == 1").is_ok());
    assert!(hook.check("message.a ==").is_err());
}

/// The batch check of V-014 answers, in order, what the one-by-one check answers: valid, invalid,
/// over-long, too deeply bracketed, too deep a tree, repeated, empty, with the default limits and
/// with tight ones.
#[test]
fn the_batch_check_answers_as_one_by_one() {
    use oatf_model::CelSyntaxCheck;
    let long = format!("'{}' == ''", "a".repeat(20_000));
    let bomb = "(".repeat(100);
    let chain = format!("{} > 0", vec!["1"; 100].join(" + "));
    let near = format!("{}1{} == 1", "(".repeat(20), ")".repeat(20));
    let in_string = format!("'{}' == ''", "(".repeat(1000));
    let expressions = [
        "size(message.tools) > 1",
        "size(message.tools) >",
        long.as_str(),
        "message.a == 1",
        bomb.as_str(),
        chain.as_str(),
        "",
        "message.tools.exists(t, t.name ==",
        near.as_str(),
        in_string.as_str(),
        "size(message.tools) >",
        "'unterminated",
    ];
    let tight = CelLimits {
        max_expression_len: 40,
        max_nesting: 8,
        max_ast_depth: 6,
        ..CelLimits::default()
    };
    for engine in [CelEngine::new(), CelEngine::with_limits(tight)] {
        let one_by_one: Vec<_> = expressions.iter().map(|e| engine.check(e)).collect();
        let batch = engine.check_all(&expressions);
        assert_eq!(batch, one_by_one, "{:?}", engine.limits());
        // Every kind of answer is exercised, so the comparison is not vacuous.
        let kinds: std::collections::HashSet<_> = one_by_one
            .iter()
            .map(|a| a.as_ref().err().map(oatf_model::CelSyntaxError::kind))
            .collect();
        assert_eq!(kinds.len(), 3, "{one_by_one:?}");
        // And each answer on its own, as a batch of one.
        for (expression, alone) in expressions.iter().zip(&one_by_one) {
            assert_eq!(
                &engine.check_all(&[expression]),
                std::slice::from_ref(alone)
            );
        }
    }
    assert!(CelEngine::new().check_all(&[]).is_empty());
}

#[test]
fn nested_paren_bomb_is_rejected_before_parsing() {
    let bomb = "(".repeat(10_000);
    let err = check_cel_syntax(&bomb).err();
    assert_eq!(
        err.as_ref().map(oatf_model::CelSyntaxError::kind),
        Some(oatf_model::CelSyntaxErrorKind::Limit)
    );
    let err = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("nest deeper"), "{err}");
    let balanced = format!("{}true{}", "(".repeat(60), ")".repeat(60));
    // Within the bracket limit the parser runs; its own recursion limit may still refuse it.
    let _ = check_cel_syntax(&balanced);
    // Parentheses inside string literals do not count.
    let in_string = format!("'{}' == ''", "(".repeat(1000));
    assert_eq!(check_cel_syntax(&in_string), Ok(()));
}

#[test]
fn deep_operator_chains_are_rejected() {
    let chain = vec!["1"; 500].join(" + ");
    let err = check_cel_syntax(&format!("{chain} > 0"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("levels deep"), "{err}");
    let short = ["1"; 10].join(" + ");
    check(&format!("{short} == 10"), json!({}), Ok(true));
}

#[test]
fn one_megabyte_expression_is_rejected() {
    let huge = format!("'{}' == ''", "a".repeat(1 << 20));
    let err = check_cel_syntax(&huge)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("exceeds the limit"), "{err}");
}

#[test]
fn variables_are_bound_and_null_when_unresolved() {
    let engine = CelEngine::new();
    let program = engine.compile("cmd.startsWith('rm') && other == null", &["cmd", "other"]);
    let program = program.ok();
    let message = json!({});
    let rm = json!("rm -rf /");
    let outcome = program
        .as_ref()
        .map(|p| p.evaluate(&message, &[("cmd", &rm)]).map_err(|e| e.kind()));
    assert_eq!(outcome, Some(Ok(true)));
}

#[test]
fn matches_uses_a_cache_of_compiled_regexes() {
    let engine = CelEngine::new();
    let program = engine
        .compile(
            "message.name.matches('^ex[a-z]+$') && matches(message.name, 'c$')",
            &[],
        )
        .ok();
    for i in 0..100 {
        let message = json!({"name": if i % 2 == 0 { "exec" } else { "ls" }});
        let outcome = program.as_ref().map(|p| p.evaluate(&message, &[]).ok());
        assert_eq!(outcome, Some(Some(i % 2 == 0)));
    }
    assert_eq!(engine.cached_regexes(), 2);
    // RE2 semantics: lookaround is not supported, an error rather than a panic.
    check("'a'.matches('(?=a)')", json!({}), Err(Kind::CelError));
}

#[test]
fn matches_input_over_the_limit_is_regex_timeout() {
    let mut regex = RegexLimits::default();
    regex.max_input_len = 4;
    let limits = CelLimits {
        regex,
        ..CelLimits::default()
    };
    let engine = CelEngine::with_limits(limits);
    let outcome = engine
        .compile("message.s.matches('a')", &[])
        .and_then(|p| p.evaluate(&json!({"s": "aaaaaaaa"}), &[]));
    assert_eq!(outcome.map_err(|e| e.kind()), Err(Kind::RegexTimeout));
}

#[test]
fn standard_functions_and_macros() {
    let message = json!({"tools": [{"name": "a", "description": "IMPORTANT: x"}, {"name": "b", "description": "ok"}]});
    for expression in [
        "size(message.tools) == 2",
        "message.tools.exists(t, t.description.contains('IMPORTANT'))",
        "message.tools.all(t, size(t.name) == 1)",
        "message.tools.filter(t, t.name == 'a').size() == 1",
        "message.tools.map(t, t.name) == ['a', 'b']",
        "message.tools[0].description.startsWith('IMP')",
        "message.tools[1].description.endsWith('ok')",
        "'ABC'.lowerAscii() == 'abc'",
    ] {
        check(expression, message.clone(), Ok(true));
    }
}

#[test]
fn deep_messages_are_an_error() {
    let mut message = json!(1);
    for _ in 0..200 {
        message = json!([message]);
    }
    check("true", message, Err(Kind::CelError));
}

#[test]
fn engine_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CelEngine>();
    assert_send_sync::<CelProgram>();
}

/// A message `{"xs": [0, 1, …, n-1]}`.
fn list_message(n: usize) -> Value {
    json!({ "xs": (0..n).collect::<Vec<_>>() })
}

#[test]
fn nested_comprehensions_are_bounded_by_the_iteration_budget() {
    let nested = "message.xs.all(x, message.xs.all(y, x == y || true))";
    // 100 + 100² iterations: within the budget.
    check(nested, list_message(100), Ok(true));
    // The same expression over 1,000 and 10,000 elements is over a budget of 20,000: an error after
    // at most the budget's work (`oatf-sdk/tests/hostile.rs` runs it with the default budget).
    let engine = CelEngine::with_limits(CelLimits {
        max_iterations: 20_000,
        ..CelLimits::default()
    });
    let program = engine.compile(nested, &[]);
    for n in [1_000, 10_000] {
        let error = program
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|p| p.evaluate(&list_message(n), &[]))
            .err();
        assert_eq!(
            error.as_ref().map(EvaluationError::kind),
            Some(Kind::CelError)
        );
        assert!(
            error.is_some_and(|e| e.message()
                == "the expression needs more than the limit of 20000 comprehension iterations (CelLimits::max_iterations)"),
            "n = {n}"
        );
    }
}

#[test]
fn iteration_budget_is_configurable_and_counts_every_comprehension_kind() {
    let engine = CelEngine::with_limits(CelLimits {
        max_iterations: 10,
        ..CelLimits::default()
    });
    let eval = |expression: &str, message: Value| {
        engine
            .compile(expression, &[])
            .and_then(|p| p.evaluate(&message, &[]))
            .map_err(|e| e.kind())
    };
    // Just under: one comprehension over 10 elements.
    assert_eq!(
        eval("message.xs.all(x, x >= 0)", list_message(10)),
        Ok(true)
    );
    // Just over, for each macro, and for maps (iterated by key).
    for expression in [
        "message.xs.all(x, x >= 0)",
        "message.xs.exists(x, x < 0)",
        "message.xs.exists_one(x, x == 0)",
        "size(message.xs.map(x, x)) > 0",
        "size(message.xs.filter(x, x > 0)) > 0",
    ] {
        assert_eq!(
            eval(expression, list_message(11)),
            Err(Kind::CelError),
            "{expression}"
        );
    }
    let map: serde_json::Map<String, Value> =
        (0..11).map(|i| (format!("k{i}"), json!(i))).collect();
    assert_eq!(
        eval("message.m.all(k, k != '')", json!({ "m": map })),
        Err(Kind::CelError)
    );
    // Two sequential comprehensions share the budget: 6 + 6 > 10.
    assert_eq!(
        eval(
            "message.xs.all(x, x >= 0) && message.xs.all(x, x >= 0)",
            list_message(6)
        ),
        Err(Kind::CelError)
    );
    // Each evaluation has its own budget.
    assert_eq!(
        eval("message.xs.all(x, x >= 0)", list_message(10)),
        Ok(true)
    );
}

#[test]
fn every_json_type_is_bound_as_its_cel_value() {
    // The message is bound without the `cel::Value` route (strings are borrowed): the values must be
    // the same as before, for each JSON type.
    let message = json!({
        "nothing": null, "yes": true, "int": -3, "big": 18446744073709551615u64, "float": 0.5,
        "text": "ünï", "list": [1, "a"], "map": {"k": "v"}
    });
    for expression in [
        "message.nothing == null",
        "message.yes",
        "message.int + 1 == -2",
        "message.big == 18446744073709551615u",
        "message.float * 2.0 == 1.0",
        "size(message.text) == 3 && message.text + '!' == 'ünï!'",
        "message.list == [1, 'a'] && message.list[1] == 'a'",
        "message.map == {'k': 'v'} && 'k' in message.map && !('x' in message.map)",
        "message.exists(k, k == 'map') && size(message) == 8",
    ] {
        check(expression, message.clone(), Ok(true));
    }
}

#[test]
fn expressions_compile_from_many_threads_on_the_shared_parser() {
    let engine = CelEngine::new();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let engine = &engine;
            scope.spawn(move || {
                for i in 0..20 {
                    let program = engine.compile(&format!("message.n == {}", t * 100 + i), &[]);
                    let outcome = program.and_then(|p| p.evaluate(&json!({"n": t * 100 + i}), &[]));
                    assert_eq!(outcome.map_err(|e| e.kind()), Ok(true));
                }
                assert!(engine.compile("message.n ==", &[]).is_err());
            });
        }
    });
    // Engines share one standard environment instead of building it each time.
    assert!(Arc::ptr_eq(&engine.env, &CelEngine::new().env));
}

/// D-126: a pattern `matches` cannot compile costs one compile attempt per engine, whichever path
/// (direct or interpreter) and evaluation asks for it again, and a remembered rejection gives the
/// error a fresh attempt gives.
#[test]
fn rejected_patterns_are_compiled_once_per_engine() {
    use std::sync::atomic::Ordering;
    let fresh_error = |expression: &str, message: &Value| {
        CelEngine::new()
            .compile(expression, &[])
            .and_then(|p| p.evaluate(message, &[]))
            .expect_err("rejected")
    };
    for expression in [
        "message.s.matches(message.p)",
        "message.p.size() > 0 && message.s.matches(message.p)",
    ] {
        let engine = CelEngine::new();
        let program = engine.compile_program(expression, &[]).expect("compiles");
        let patterns = [r"\w{1500}", r"\w{1501}", "(", r"\w{1500}", "a+", "("];
        for (round, pattern) in patterns.iter().enumerate() {
            let message = json!({"s": "x", "p": pattern});
            let outcome = CompiledProgram(&program).evaluate(&message);
            let distinct = patterns[..=round]
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len();
            // One attempt per distinct pattern, remembered or cached.
            assert_eq!(
                engine.regexes.attempts.load(Ordering::Relaxed),
                distinct,
                "{pattern}"
            );
            if *pattern == "a+" {
                assert_eq!(outcome, Ok(false));
            } else {
                let error = outcome.expect_err("rejected");
                assert_eq!(error, fresh_error(expression, &message), "{pattern}");
                assert_eq!(error.kind(), Kind::CelError);
            }
        }
    }
}

/// D-126: the memory of rejected patterns is bounded in entries and in bytes.
#[test]
fn the_memory_of_rejected_patterns_is_bounded() {
    let engine = CelEngine::new();
    let program = engine
        .compile_program("message.s.matches(message.p)", &[])
        .expect("compiles");
    // 5,000 distinct invalid patterns (cheap to reject): more than the memory holds.
    for i in 0..5_000 {
        let message = json!({"s": "x", "p": format!("({i}")});
        assert!(CompiledProgram(&program).evaluate(&message).is_err());
        let (entries, bytes) = engine.regexes.rejected();
        assert!(
            entries <= 4_096 && bytes <= 8 << 20,
            "{entries} entries, {bytes} bytes"
        );
    }
    // A pattern of 1 MiB is remembered alone (with its error message, which quotes it and points
    // at it, 4 MiB); one
    // of 5 MiB is not remembered.
    for (size, remembered) in [(1usize << 20, true), (5 << 20, false)] {
        let message = json!({"s": "x", "p": format!("({}", "a".repeat(size))});
        assert!(CompiledProgram(&program).evaluate(&message).is_err());
        let (entries, bytes) = engine.regexes.rejected();
        assert!(bytes <= 8 << 20, "{bytes} bytes");
        assert_eq!(bytes > size, remembered, "{entries} entries, {bytes} bytes");
    }
}

/// Evaluates a [`CelProgram`] as callers do (the direct path, then the interpreter).
struct CompiledProgram<'a>(&'a CelProgram);

impl CompiledProgram<'_> {
    fn evaluate(&self, message: &Value) -> Result<bool, EvaluationError> {
        oatf_eval::CompiledCel::evaluate(self.0, message, &[])
    }
}

#[test]
fn the_engine_offers_the_literal_guard_of_a_direct_expression() {
    let engine = CelEngine::new();
    let compiled = engine.compile_guarded("message.a.contains('rm') || message.b == 1", &[]);
    let Ok((program, Some(guard))) = compiled else {
        panic!("no guard");
    };
    assert_eq!(guard.needles(), ["rm"]);
    for (message, expect) in [
        (json!({"a": "ls", "b": 2}), false),
        (json!({"a": "ls", "b": 1}), true),
    ] {
        assert_eq!(guard.evaluate_residual(&message), Some(expect), "{message}");
        assert_eq!(
            program.evaluate(&message, &[]).ok(),
            Some(expect),
            "{message}"
        );
    }
    // With variables, or off the direct path's literal leaves, there is no guard.
    let with_variable = engine.compile_guarded("message.a.contains('rm') && v", &["v"]);
    assert!(with_variable.is_ok_and(|(_, guard)| guard.is_none()));
    let no_literal = engine.compile_guarded("message.b == 1", &[]);
    assert!(no_literal.is_ok_and(|(_, guard)| guard.is_none()));
}

/// What a `map` or `filter` appends is a copy kept in its result (D-330): charged to the produced
/// bytes per nested value and to the cost per nested value, so a loop copying a large part of the
/// message into its result stops at the budgets, not after copying it once per element.
#[test]
fn appended_copies_are_charged_to_both_budgets() {
    let message = json!({"xs": (0..10).collect::<Vec<_>>(), "big": (0..100).collect::<Vec<_>>()});
    let with = |max_cost: usize, max_produced_bytes: usize| {
        let engine = CelEngine::with_limits(CelLimits {
            max_cost,
            max_produced_bytes,
            ..CelLimits::default()
        });
        let program = engine
            .compile("size(message.xs.map(x, message.big)) == 10", &[])
            .expect("compiles");
        program.evaluate(&message, &[])
    };
    // Ten copies of 101 values: 48,480 bytes and 8,080 cost units, besides the rest.
    assert_eq!(with(1_000_000, 1_000_000), Ok(true));
    let produced = with(1_000_000, 40_000).expect_err("over the produced bytes");
    assert!(
        produced.message().contains("max_produced_bytes"),
        "{produced}"
    );
    let cost = with(7_000, 1_000_000).expect_err("over the cost");
    assert!(cost.message().contains("max_cost"), "{cost}");
    // `filter` appends its element: a nested one is charged its nested values.
    let nested = json!({"ys": vec![(0..100).collect::<Vec<_>>(); 10]});
    let engine = CelEngine::with_limits(CelLimits {
        max_produced_bytes: 40_000,
        ..CelLimits::default()
    });
    let filtered = engine
        .compile("size(message.ys.filter(y, true)) == 10", &[])
        .expect("compiles")
        .evaluate(&nested, &[]);
    assert!(filtered.is_err(), "{filtered:?}");
}

/// Measuring a value for a budget walks it only until the budget left is spent (D-330): a copy of
/// a list of a million elements is measured past a small budget after a few elements.
#[test]
fn measuring_a_value_stops_past_the_budget_left() {
    use crate::metering::{Copied, Left, deep_size};
    let items = json!((0..1_000_000).collect::<Vec<_>>());
    let list = crate::convert::to_cel(&items, 0).expect("converts");
    let mut copied = Copied::default();
    copied.add(
        list.as_ref(),
        Left {
            cost: 100,
            produced: usize::MAX,
        },
    );
    assert!(
        copied.cost() > 100 && copied.cost() <= 100 + 16,
        "{copied:?}"
    );
    let size = deep_size(list.as_ref(), 100);
    assert!(size > 100 && size <= 102, "{size}");
    assert_eq!(deep_size(list.as_ref(), usize::MAX), 1_000_000);
}

/// The outcome of `expression` on `message` under a cost limit of `max_cost`.
fn with_cost(expression: &str, message: &Value, max_cost: usize) -> Result<bool, EvaluationError> {
    let engine = CelEngine::with_limits(CelLimits {
        max_cost,
        ..CelLimits::default()
    });
    engine.compile(expression, &[])?.evaluate(message, &[])
}

/// Each of `expressions` answers `true` on `message` under a cost limit of 5,000 and fails with
/// the cost error under 500.
#[track_caller]
fn true_within_5000_over_500(expressions: &[&str], message: &Value) {
    for &expression in expressions {
        assert_eq!(
            with_cost(expression, message, 5_000),
            Ok(true),
            "{expression}"
        );
        let error = with_cost(expression, message, 500).expect_err(expression);
        assert!(
            error.message().contains("max_cost"),
            "{expression}: {error}"
        );
    }
}

/// The functions of the `optional` namespace are called (metering leaves a namespace's name
/// alone), and what they put in an optional is charged as a copy (D-351).
#[test]
fn optional_functions_are_called_and_charged_as_copies() {
    let message = json!({"a": 1, "big": (0..100).collect::<Vec<_>>()});
    check(
        "optional.of(message.a).value() == 1",
        message.clone(),
        Ok(true),
    );
    check("optional.none().hasValue()", message.clone(), Ok(false));
    check(
        "optional.ofNonZeroValue(0).hasValue()",
        message.clone(),
        Ok(false),
    );
    // A copy of 101 values is 808 units; measuring the list for `size` is 100.
    assert_eq!(with_cost("size(message.big) > 0", &message, 500), Ok(true));
    true_within_5000_over_500(
        &[
            "optional.of(message.big).hasValue()",
            "message.?big.hasValue()",
            "message[?'big'].hasValue()",
        ],
        &message,
    );
}

/// A list or map literal copies its elements, keys and values into the value it makes: each is
/// charged as a copy before it is made (D-351), so a literal built around a large part of the
/// message in a loop stops at the cost limit.
#[test]
fn literals_charge_the_copies_they_make() {
    let message = json!({"big": (0..100).collect::<Vec<_>>(), "k": "key"});
    true_within_5000_over_500(
        &[
            "size([message.big]) == 1",
            "size({'k': message.big}) == 1",
            "size([?optional.of(message.big)]) == 1",
        ],
        &message,
    );
    // A key is copied as well: 8 units and its bytes.
    assert_eq!(
        with_cost("size({message.k: 1}) == 1", &message, 20),
        Ok(true)
    );
    assert!(with_cost("size({message.k: 1}) == 1", &message, 5).is_err());
}

/// An operand of `==`, `!=` or `in` that is a list or map is charged three times its size
/// (D-353): comparing nested boxed values costs more than measuring them. A scalar or a string is
/// charged as before.
#[test]
fn compared_lists_are_charged_their_weighted_size() {
    let message = json!({"a": 1, "s": "abcd", "big": (0..100).collect::<Vec<_>>()});
    // 2 × 3 × 100 units: over 500, within 5,000; 200 units before the weight.
    true_within_5000_over_500(
        &[
            "message.big == message.big",
            "!(message.big != message.big)",
            "!(1000 in message.big) && !(1000 in message.big)",
        ],
        &message,
    );
    assert_eq!(with_cost("message.a == 1", &message, 1), Ok(true));
    assert_eq!(with_cost("message.s == 'abcd'", &message, 4), Ok(true));
}
