//! The direct path against the interpreter: generated cases, edge cases, the subset's bounds.

use serde_json::{Value, json};

use crate::program::Binding;
use crate::{CelEngine, CelLimits};

/// A small deterministic generator (xorshift64*), so that the test needs no dependency and
/// every run sees the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const KEYS: [&str; 6] = ["a", "b", "name", "kind", "text", "items"];
const STRINGS: [&str; 8] = ["", "x", "a", "api_key 1", "exec", "rm -rf /", "é€", "xa"];

fn gen_message(rng: &mut Rng, depth: usize) -> Value {
    if depth < 2 && rng.below(3) > 0 {
        // Mostly objects holding most keys, so that expressions reach their operators.
        let mut map = serde_json::Map::new();
        for key in KEYS {
            if rng.below(5) > 0 {
                map.insert(key.to_owned(), gen_message(rng, depth + 1));
            }
        }
        return Value::Object(map);
    }
    let choice = if depth >= 3 {
        rng.below(6)
    } else {
        rng.below(9)
    };
    match choice {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(i64::try_from(rng.below(5)).unwrap_or(0) - 2),
        3 => json!(*rng.pick(&[0.5, 1.0, -2.5, 1e300])),
        4 => json!(*rng.pick(&STRINGS)),
        5 => json!(*rng.pick(&[u64::MAX, 1u64 << 63])),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| gen_message(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut map = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                map.insert((*rng.pick(&KEYS)).to_owned(), gen_message(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// A value expression; `vars` are the comprehension variables in scope.
fn value(rng: &mut Rng, vars: &[&str], depth: usize) -> String {
    let key = *rng.pick(&KEYS);
    let root = if !vars.is_empty() && rng.below(2) == 0 {
        (*rng.pick(vars)).to_owned()
    } else {
        (*rng.pick(&["message", "message", "v", "w"])).to_owned()
    };
    match rng.below(if depth > 2 { 6 } else { 12 }) {
        0 => root,
        1 | 2 => format!("{root}.{key}"),
        3 => format!("{root}['{key}']"),
        4 => (*rng.pick(&[
            "'x'",
            "'a'",
            "''",
            "'é€'",
            "1",
            "0",
            "-2",
            "1u",
            "0.5",
            "1.0",
            "true",
            "null",
            "['a', 'x', 1]",
            "['a', 'x']",
            "['api_key 1', 'exec', '']",
            "[]",
            "b'x'",
            "{'a': 1}",
        ]))
        .to_owned(),
        5 => format!("{root}.{key}.{}", rng.pick(&KEYS)),
        6 => format!("{root}.items[{}]", rng.below(3)),
        7 => format!("size({})", value(rng, vars, depth + 1)),
        8 => format!("{}.size()", value(rng, vars, depth + 1)),
        9 => format!(
            "({} ? {} : {})",
            boolean(rng, vars, depth + 1),
            value(rng, vars, depth + 1),
            value(rng, vars, depth + 1)
        ),
        10 => format!("{} + 1", value(rng, vars, depth + 1)),
        _ => format!(
            "{}[{}]",
            value(rng, vars, depth + 1),
            value(rng, vars, depth + 1)
        ),
    }
}

fn boolean(rng: &mut Rng, vars: &[&str], depth: usize) -> String {
    let leaf = depth > 3;
    let v = |rng: &mut Rng| value(rng, vars, depth + 1);
    match rng.below(if leaf { 9 } else { 18 }) {
        0 => format!("{} == {}", v(rng), v(rng)),
        1 => format!("{} != {}", v(rng), v(rng)),
        2 => format!(
            "{} {} {}",
            v(rng),
            rng.pick(&["<", "<=", ">", ">="]),
            v(rng)
        ),
        3 => format!("{} in {}", v(rng), v(rng)),
        4 => format!(
            "{}.{}({})",
            v(rng),
            rng.pick(&["contains", "startsWith", "endsWith"]),
            v(rng)
        ),
        5 => format!(
            "{}.matches({})",
            v(rng),
            rng.pick(&["'^a'", "'x$'", "'(a|é)'", "'['", "message.text"])
        ),
        6 => format!(
            "has({}.{})",
            rng.pick(&["message", "message.a", "v"]),
            rng.pick(&KEYS)
        ),
        7 => (*rng.pick(&["true", "false", "message", "v"])).to_owned(),
        8 => format!(
            "{} {} {}",
            v(rng),
            rng.pick(&["==", "!=", "<", ">="]),
            rng.pick(&["'x'", "1", "null", "true", "0.5", "'a'", "-2"])
        ),
        16 => format!(
            "size({}) {} {}",
            v(rng),
            rng.pick(&["==", ">", "<="]),
            rng.below(6)
        ),
        9 | 10 => format!(
            "({} {} {})",
            boolean(rng, vars, depth + 1),
            rng.pick(&["&&", "||"]),
            boolean(rng, vars, depth + 1)
        ),
        11 => format!("!({})", boolean(rng, vars, depth + 1)),
        12 => format!(
            "({} ? {} : {})",
            boolean(rng, vars, depth + 1),
            boolean(rng, vars, depth + 1),
            boolean(rng, vars, depth + 1)
        ),
        13..=15 => {
            let var = ["x", "y", "message"][vars.len().min(2)];
            let mut inner = vars.to_vec();
            inner.push(var);
            let range = rng.pick(&[
                "message",
                "message.items",
                "message.a",
                "v",
                "message.items[0]",
                "['a', 'x']",
            ]);
            let macro_name = rng.pick(&["exists", "all", "exists", "all", "exists_one"]);
            format!(
                "{range}.{macro_name}({var}, {})",
                boolean(rng, &inner, depth + 1)
            )
        }
        _ => format!("type({}) == string", v(rng)),
    }
}

thread_local! {
    static OK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The errors the direct path answered (D-125).
    static ERRORS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `expression` on both paths: whenever the direct path answers, the interpreter gives the
/// same outcome, a result or an error of the same kind and message (D-125). Returns whether the
/// direct path answered.
fn agree(engine: &CelEngine, expression: &str, message: &Value, v: &Value, w: &Value) -> bool {
    let Ok(program) = engine.compile_program(expression, &["v", "w"]) else {
        return false;
    };
    let Some(direct) = &program.direct else {
        return false;
    };
    let bound = [("v", v), ("w", w)];
    let answer = direct
        .evaluate(message, &bound, engine.limits(), &engine.regexes)
        .map(|outcome| {
            outcome.map_err(|e| {
                let e = program.execution_error(&e);
                (e.kind(), e.message().to_owned())
            })
        });
    let interpreted = program
        .run_bound(message, &bound, Binding::Pruned)
        .map_err(|e| (e.kind(), e.message().to_owned()));
    if interpreted.is_ok() {
        OK.with(|c| c.set(c.get() + 1));
    }
    let answered = answer.is_some();
    if let Some(outcome) = answer {
        assert_eq!(
            interpreted, outcome,
            "{expression} on {message} with v = {v}, w = {w}"
        );
        if outcome.is_err() {
            ERRORS.with(|c| c.set(c.get() + 1));
        }
        // The evaluation callers see takes the direct path and gives the same.
        assert_eq!(
            program
                .run(message, &bound)
                .map_err(|e| (e.kind(), e.message().to_owned())),
            outcome
        );
    }
    answered
}

#[test]
fn direct_path_agrees_with_the_interpreter() {
    let mut rng = Rng(0x0a7f_2026_ce10_0001);
    let tight = CelLimits {
        max_cost: 12,
        max_iterations: 3,
        max_regex_compiles: 1,
        ..CelLimits::default()
    };
    let tighter = CelLimits {
        max_cost: 3,
        ..CelLimits::default()
    };
    let engines = [
        CelEngine::new(),
        CelEngine::with_limits(tight),
        CelEngine::with_limits(tighter),
    ];
    let (mut cases, mut answered) = (0, 0);
    for round in 0..2500 {
        let expression = boolean(&mut rng, &[], 0);
        let engine = &engines[[0, 0, 0, 1, 2][round % 5]];
        for _ in 0..4 {
            let message = gen_message(&mut rng, 0);
            let v = message_or(&mut rng, &message);
            let w = gen_message(&mut rng, 1);
            cases += 1;
            if agree(engine, &expression, &message, &v, &w) {
                answered += 1;
            }
        }
    }
    let ok = OK.with(std::cell::Cell::get);
    let errors = ERRORS.with(std::cell::Cell::get);
    // The test exercises the direct path, not only the fallback: it answers most of the cases
    // the interpreter evaluates without an error, and errors of the budgets and `matches`.
    assert!(
        answered >= 800 && answered * 20 >= ok * 13 && errors >= 100,
        "the direct path answered {answered} of {cases} cases ({errors} errors), the interpreter {ok} without an error"
    );
    eprintln!(
        "the direct path answered {answered} of {cases} cases ({errors} errors), the interpreter {ok} without an error"
    );
}

fn message_or(rng: &mut Rng, message: &Value) -> Value {
    if rng.below(3) == 0 {
        message.clone()
    } else {
        gen_message(rng, 0)
    }
}

#[test]
fn edge_cases_agree_with_the_interpreter() {
    let engine = CelEngine::new();
    let message = json!({
        "i": 1, "d": 1.0, "h": 0.5, "u": u64::MAX, "s": "é€", "e": "", "t": true, "n": null,
        "l": [1, "a", null], "o": {"a": 1, "b": {"c": "x"}}, "items": [{"name": "x"}, {"name": "é€"}]
    });
    let expressions = [
        // Numbers of different kinds: equal by value in the `cel` crate.
        "message.i == 1.0",
        "message.d == 1",
        "message.d == 1u",
        "message.u == 18446744073709551615u",
        "message.i != 1.0",
        "message.h > 0",
        "message.i < 1.5",
        "message.u > 1",
        // Kinds that are never equal.
        "message.s == 1",
        "message.n == 0",
        "message.t == 1",
        "message.n == null",
        "message.i == null",
        "message.o == null",
        "message.l == null",
        "message.l == [1, 'a', null]",
        // Strings: sizes in code points, byte order.
        "size(message.s) == 2",
        "message.s.size() == 2",
        "size(message.e) == 0",
        "message.s > 'z'",
        "message.s.contains('€')",
        "message.e.contains('')",
        "message.s.contains('é€x')",
        "message.s.startsWith('é')",
        "message.s.endsWith('')",
        "message.s.matches('^.€$')",
        "message.s.matches('[')",
        // Maps and lists.
        "size(message.o) == 2",
        "message.o.size() == 2",
        "size(message.l) == 3",
        "'a' in message.o",
        "1 in message.o",
        "'a' in message.l",
        "1u in message.l",
        "null in message.l",
        "1.0 in message.l",
        "has(message.o.a)",
        "has(message.o.z)",
        "has(message.s.a)",
        "message.o['b'].c == 'x'",
        "message.l[1] == 'a'",
        "message.l[3] == 'a'",
        "message.l[-1] == 1",
        "message.o.z == 1",
        // Logic with errors on the side that is not needed, or on the side that is.
        "true || message.z",
        "false && message.z",
        "message.z || true",
        "message.t ? true : message.z",
        "!message.t",
        "!message.i",
        "message.i && true",
        // Comprehensions, shadowing, maps iterated by key.
        "message.items.exists(x, size(x.name) > 1)",
        "message.items.all(x, has(x.name))",
        "message.o.exists(k, k == 'b')",
        "message.o.all(k, message.o[k] == 1)",
        "message.items.exists(message, message.name == 'x')",
        "message.items.exists(message, has(message.name))",
        "message.l.exists(x, x > 0)",
        "message.l.all(x, x == 1)",
        "message.s.exists(x, true)",
        "message.items.exists(x, message.items.exists(y, x.name == y.name))",
    ];
    let mut answered = 0;
    for expression in expressions {
        if agree(&engine, expression, &message, &Value::Null, &Value::Null) {
            answered += 1;
        }
    }
    assert!(
        answered >= 30,
        "the direct path answered {answered} edge cases"
    );
}

#[test]
fn the_benchmark_shapes_take_the_direct_path() {
    let engine = CelEngine::new();
    for expression in [
        "message.arguments.items.exists(x, size(x.name) > 64)",
        "message.arguments.exists(k, k in ['password', 'api_key', 'secret_9'])",
        "message.message.parts.exists(p, p.kind == 'text' && p.text.contains('api_key 9'))",
        "message.tools.all(t, t.name.startsWith('safe_'))",
        "has(message.state.admin) && message.state.admin == true",
        "message.arguments.path.matches('^/etc/(passwd|shadow)$')",
        "message.count + 1 == 3",
        "message.xs.all(a, message.xs.all(b, a + b - a * b >= 0))",
    ] {
        let program = engine.compile_program(expression, &[]).expect("compiles");
        assert!(program.direct.is_some(), "{expression}");
    }
    for expression in [
        "message.count / 2 == 1",
        "message.tools.map(t, t.name).exists(n, n == 'exec')",
        "type(message) == map",
    ] {
        let program = engine.compile_program(expression, &[]).expect("compiles");
        assert!(program.direct.is_none(), "{expression}");
    }
    // A variable named like a function namespace keeps the interpreter.
    let program = engine
        .compile_program("strings.contains('x')", &["strings"])
        .expect("compiles");
    assert!(program.direct.is_none());
}

#[test]
fn deep_messages_are_left_to_the_interpreter_and_budgets_answered() {
    let engine = CelEngine::new();
    let mut deep = json!("leaf");
    for _ in 0..200 {
        deep = json!({ "d": deep });
    }
    let message = json!({"a": 1, "other": deep});
    let program = engine
        .compile_program("message.a == 1", &[])
        .expect("compiles");
    let direct = program.direct.as_ref().expect("in the subset");
    assert_eq!(
        direct.evaluate(&message, &[], engine.limits(), &engine.regexes),
        None
    );
    assert!(program.run(&message, &[]).is_err());

    let limits = CelLimits {
        max_iterations: 3,
        ..CelLimits::default()
    };
    let engine = CelEngine::with_limits(limits);
    let program = engine
        .compile_program("message.exists(x, x == 9)", &[])
        .expect("compiles");
    let message = json!([1, 2, 3, 4]);
    let direct = program.direct.as_ref().expect("in the subset");
    // The budget's error is the direct path's answer (D-125), the interpreter's error.
    let answer = direct
        .evaluate(&message, &[], engine.limits(), &engine.regexes)
        .expect("answered")
        .map_err(|e| program.execution_error(&e));
    let interpreted = program.run_bound(&message, &[], Binding::Pruned);
    assert_eq!(answer, interpreted);
    let error = answer.expect_err("over the budget");
    assert!(
        error.message().contains("max_iterations"),
        "{}",
        error.message()
    );
}

/// The direct forms of string comparisons (`== 'lit'`, `in [strings]`, field paths) are charged
/// as the metered tree charges them: at every cost limit around their charges, the direct path
/// answers only with the interpreter's answer, and answers at the larger limits.
#[test]
fn string_comparisons_are_charged_at_every_limit() {
    let expressions = [
        "message.t in ['a', 'x', 'y']",
        "'abc' == message.t",
        "message.t != 'xa'",
        "message.n.m.t in ['exec', 'x']",
        "message.keys.exists(k, k in ['password', 'api_key'])",
    ];
    let messages = [
        json!({"t": "xa", "n": {"m": {"t": "exec"}}, "keys": {"password": 1, "user": 2}}),
        json!({"t": "abc", "n": {"m": {"t": 3}}, "keys": {"a": 1}}),
        json!({"t": 1.5, "n": {"m": {}}, "keys": {"api_key": [], "b": null, "c": 1}}),
        json!({"t": ["a"], "n": 7, "keys": {}}),
    ];
    for expression in expressions {
        let mut answered = 0;
        for max_cost in 0..16 {
            let engine = CelEngine::with_limits(CelLimits {
                max_cost,
                ..CelLimits::default()
            });
            for message in &messages {
                if agree(&engine, expression, message, &Value::Null, &Value::Null) {
                    answered += 1;
                }
            }
        }
        assert!(answered > 0, "{expression} never took the direct path");
    }
}

/// A generated expression over `message` (and comprehension variables `vars`, one of which may
/// shadow `message`) that mostly searches its strings for literals, in the shapes the literal guard
/// erases and those it keeps: `?:` and literal targets, loops over list literals, `matches`,
/// `startsWith`, ordering, `size` of multi-byte strings, `has`.
fn searching(rng: &mut Rng, vars: &[&str], depth: usize) -> String {
    let path = |rng: &mut Rng| {
        let root = if !vars.is_empty() && rng.below(2) == 0 {
            (*rng.pick(vars)).to_owned()
        } else {
            String::from("message")
        };
        match rng.below(8) {
            0 => root,
            1 | 2 => format!("{root}.{}", rng.pick(&KEYS)),
            3 => format!("{root}['{}']", rng.pick(&KEYS)),
            4 => format!("{root}.{}.{}", rng.pick(&KEYS), rng.pick(&KEYS)),
            5 => format!("(true ? {root}.a : {root}.b)"),
            6 => String::from("'xa'"),
            _ => format!("{root}.items[{}]", rng.below(2)),
        }
    };
    let literal = |rng: &mut Rng| {
        (*rng.pick(&[
            "'x'",
            "'a'",
            "'api_key 1'",
            "'é'",
            "'€'",
            "'zz'",
            "''",
            "'xa'",
        ]))
        .to_owned()
    };
    let leaf = depth > 2;
    match rng.below(if leaf { 10 } else { 14 }) {
        0 | 1 => format!("{}.contains({})", path(rng), literal(rng)),
        2 => format!(
            "{} in {}",
            path(rng),
            rng.pick(&["['x', 'a']", "['é€']", "['zz']", "['x', 1]", "[]", "['']"])
        ),
        3 => format!("{} == {}", path(rng), literal(rng)),
        4 => format!("has({}.{})", path(rng), rng.pick(&KEYS)),
        5 => format!(
            "size({}) {} {}",
            path(rng),
            rng.pick(&[">", "==", "<"]),
            rng.below(4)
        ),
        6 => format!(
            "{}.matches({})",
            path(rng),
            rng.pick(&["'^a'", "'x'", "'['", "'é'"])
        ),
        7 => format!("{}.startsWith({})", path(rng), literal(rng)),
        8 => format!("{} {} {}", path(rng), rng.pick(&["<", ">="]), literal(rng)),
        9 => (*rng.pick(&["true", "false", "message", "message.a"])).to_owned(),
        10 | 11 => {
            let var = *rng.pick(&["x", "y", "message", "x"]);
            let mut inner = vars.to_vec();
            inner.push(var);
            let range = if rng.below(4) == 0 {
                String::from("['xa', 'a']")
            } else {
                path(rng)
            };
            format!(
                "{range}.{}({var}, {})",
                rng.pick(&["exists", "all"]),
                searching(rng, &inner, depth + 1)
            )
        }
        12 => format!(
            "({} {} {})",
            searching(rng, vars, depth + 1),
            rng.pick(&["&&", "||"]),
            searching(rng, vars, depth + 1)
        ),
        _ => format!(
            "!({} ? {} : {})",
            searching(rng, vars, depth + 1),
            searching(rng, vars, depth + 1),
            searching(rng, vars, depth + 1)
        ),
    }
}

/// Every string of `value`: object keys and string values, at any depth.
fn strings_of(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings_of(item, out)),
        Value::Object(map) => {
            for (key, item) in map {
                out.push(key.clone());
                strings_of(item, out);
            }
        }
        _ => {}
    }
}

/// The literal guard (D-95) on generated expressions and messages: on every message none of whose
/// strings contains a needle, the residual answers exactly as the direct path (the same result,
/// or both abstain), and so as the interpreter.
#[test]
fn the_residual_answers_as_the_expression_where_no_needle_occurs() {
    let mut rng = Rng(0x0a7f_2026_ce10_0095);
    let engines = [
        CelEngine::new(),
        CelEngine::with_limits(CelLimits {
            max_cost: 12,
            max_iterations: 3,
            max_regex_compiles: 1,
            ..CelLimits::default()
        }),
        CelEngine::with_limits(CelLimits {
            max_cost: 3,
            ..CelLimits::default()
        }),
    ];
    let (mut guarded, mut compared, mut answered) = (0, 0, 0);
    for round in 0..6000 {
        let expression = searching(&mut rng, &[], 0);
        let engine = &engines[round % 3];
        let Ok(program) = engine.compile_program(&expression, &[]) else {
            continue;
        };
        let Some(direct) = &program.direct else {
            continue;
        };
        let Some(guard) = &direct.guard else {
            continue;
        };
        guarded += 1;
        for _ in 0..6 {
            let message = gen_message(&mut rng, 0);
            let mut strings = Vec::new();
            strings_of(&message, &mut strings);
            if guard
                .needles
                .iter()
                .any(|needle| strings.iter().any(|s| s.contains(needle.as_str())))
            {
                continue;
            }
            compared += 1;
            let residual = direct.evaluate_residual(&message, engine.limits(), &engine.regexes);
            let whole = direct.evaluate(&message, &[], engine.limits(), &engine.regexes);
            // The residual answers no errors and may charge more (D-127): where it answers, the
            // expression answers the same.
            if let Some(result) = residual {
                assert_eq!(whole, Some(Ok(result)), "{expression} on {message}");
            }
            if let Some(result) = residual {
                answered += 1;
                assert_eq!(
                    program.run(&message, &[]).map_err(|e| e.kind()),
                    Ok(result),
                    "{expression} on {message}"
                );
            }
        }
    }
    assert!(
        guarded > 800 && compared > 3000 && answered > 100,
        "guarded {guarded}, compared {compared}, answered {answered}"
    );
}

/// Expressions that differ only in their needles share one residual; the benchmark's shapes
/// have a guard.
#[test]
fn expressions_differing_in_needles_share_a_residual() {
    let engine = CelEngine::new();
    let key = |expression: &str| {
        let program = engine.compile_program(expression, &[]).expect("compiles");
        let guard = program.direct.as_ref().and_then(|d| d.guard.as_ref());
        guard.map(|g| (g.key.clone(), g.needles.clone()))
    };
    let (a, needles_a) =
        key("message.arguments.exists(k, k in ['password', 'api_key', 'secret_1'])").unwrap();
    let (b, needles_b) =
        key("message.arguments.exists(k, k in ['password', 'api_key', 'secret_22'])").unwrap();
    assert_eq!(a, b);
    assert_eq!(needles_a, ["password", "api_key", "secret_1"]);
    assert_ne!(needles_a, needles_b);
    let (c, _) =
        key("message.message.parts.exists(p, p.kind == 'text' && p.text.contains('api_key 7'))")
            .unwrap();
    let (d, needles_d) =
        key("message.message.parts.exists(p, p.kind == 'text' && p.text.contains('api_key 8'))")
            .unwrap();
    assert_eq!(c, d);
    assert_eq!(needles_d, ["api_key 8"]);
    assert_ne!(a, c);
    // A literal that is not searched in the message, an empty needle: no guard.
    assert_eq!(key("'abc'.contains('b')"), None);
    assert_eq!(key("message.t.contains('')"), None);
}

mod errors;
