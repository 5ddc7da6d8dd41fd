//! The errors the direct path answers (D-125) against the interpreter's: budgets going over
//! their limits and `matches` errors, inside `&&`, `||`, `?:`, `!` and loops, where the `cel`
//! crate absorbs some errors (`error && false` is `false`, a loop keeps a body's error until a
//! deciding body drops it) and keeps others.

use serde_json::{Value, json};

use super::{ERRORS, Rng, agree};
use crate::{CelEngine, CelLimits};
use oatf_primitives::RegexLimits;

/// A boolean expression over `message.xs` (a list of small integers), `message.ys` (a list of
/// integers, strings, maps and lists), `message.m`
/// (a map) and `message.p`/`message.q` (a text and a pattern), with the loop variables `vars`.
fn failing(rng: &mut Rng, vars: &[&str], depth: usize) -> String {
    let number = |rng: &mut Rng| -> String {
        if !vars.is_empty() && rng.below(3) > 0 {
            (*rng.pick(vars)).to_owned()
        } else {
            (*rng.pick(&["1", "2", "0", "size(message.xs)"])).to_owned()
        }
    };
    let leaf = depth > 3 || rng.below(4) == 0;
    match rng.below(if leaf { 5 } else { 12 }) {
        0 => format!(
            "{} {} {}",
            number(rng),
            rng.pick(&["<", ">=", "==", "!="]),
            number(rng)
        ),
        1 => format!(
            "{} {} {} > {}",
            number(rng),
            rng.pick(&["+", "-", "*"]),
            number(rng),
            number(rng)
        ),
        2 => (*rng.pick(&["true", "false"])).to_owned(),
        3 => format!(
            "message.p.matches({})",
            rng.pick(&["'('", "'a'", "'b+'", "message.q", "'[z'"])
        ),
        4 => format!(
            "message.p.contains({})",
            rng.pick(&["'a'", "message.q", "message.p"])
        ),
        5..=7 => format!(
            "({} {} {})",
            failing(rng, vars, depth + 1),
            rng.pick(&["&&", "||"]),
            failing(rng, vars, depth + 1)
        ),
        8 => format!("!({})", failing(rng, vars, depth + 1)),
        9 => format!(
            "({} ? {} : {})",
            failing(rng, vars, depth + 1),
            failing(rng, vars, depth + 1),
            failing(rng, vars, depth + 1)
        ),
        _ => {
            let var = ["a", "b", "c", "d"][vars.len().min(3)];
            let mut inner = vars.to_vec();
            inner.push(var);
            let range = rng.pick(&["message.xs", "message.xs", "message.ys", "message.m"]);
            let name = rng.pick(&["exists", "all"]);
            format!("{range}.{name}({var}, {})", failing(rng, &inner, depth + 1))
        }
    }
}

fn message(rng: &mut Rng) -> Value {
    let list = |rng: &mut Rng| -> Vec<i64> {
        (0..rng.below(5))
            .map(|_| i64::try_from(rng.below(4)).unwrap_or(0))
            .collect()
    };
    let mut m = serde_json::Map::new();
    for key in ["a", "b", "c"].iter().take(rng.below(4)) {
        m.insert((*key).to_owned(), json!(1));
    }
    // Elements of different sizes: a loop is charged each bound element's size (D-127).
    let ys: Vec<Value> = (0..rng.below(5))
        .map(|_| {
            rng.pick(&[
                json!(1),
                json!(2),
                json!("abcd"),
                json!({"k": "xy"}),
                json!([1, "ab"]),
            ])
            .clone()
        })
        .collect();
    json!({
        "xs": list(rng),
        "ys": ys,
        "m": m,
        "p": *rng.pick(&["", "a", "abba", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]),
        "q": *rng.pick(&["(", "a", "b", "x{1000}{1000}"]),
    })
}

#[test]
fn errors_agree_with_the_interpreter() {
    let mut rng = Rng(0x0a7f_2026_e770_0034);
    let mut short_texts = RegexLimits::default();
    short_texts.max_input_len = 8;
    let engines: Vec<CelEngine> = (0..24)
        .map(|i| {
            CelEngine::with_limits(CelLimits {
                max_iterations: [2, 4, 7, 12, 1_000][i % 5],
                max_cost: [6, 15, 30, 60, 1_000][(i / 5) % 5],
                max_produced_bytes: [1, 3, 8, 1_000][i % 4],
                max_regex_compiles: 1 + i % 3,
                regex: if i % 2 == 0 {
                    short_texts
                } else {
                    RegexLimits::default()
                },
                ..CelLimits::default()
            })
        })
        .collect();
    let before = ERRORS.with(std::cell::Cell::get);
    let (mut cases, mut answered) = (0, 0);
    for round in 0..1500 {
        let expression = failing(&mut rng, &[], 0);
        let engine = &engines[round % engines.len()];
        for _ in 0..4 {
            let message = message(&mut rng);
            cases += 1;
            if agree(engine, &expression, &message, &Value::Null, &Value::Null) {
                answered += 1;
            }
        }
    }
    let errors = ERRORS.with(std::cell::Cell::get) - before;
    assert!(
        answered * 2 >= cases && errors * 8 >= answered,
        "the direct path answered {answered} of {cases} cases, {errors} of them errors"
    );
}

/// After a loop over a map, which the interpreter iterates in hash order and may stop early, the
/// direct path's charges only bound the interpreter's: an error after it is left to the
/// interpreter, a result is still answered.
#[test]
fn errors_after_a_loop_over_a_map_are_left_to_the_interpreter() {
    let message = json!({"m": {"a": 1, "b": 2, "c": 3}, "xs": [1, 1]});
    let expression = "message.m.exists(k, k != 'z') && message.xs.all(a, a >= 0)";
    let mut answered = 0;
    for max_cost in 0..160 {
        let engine = CelEngine::with_limits(CelLimits {
            max_cost,
            ..CelLimits::default()
        });
        if agree(&engine, expression, &message, &Value::Null, &Value::Null) {
            answered += 1;
        }
    }
    // Not answered where the direct path's charges go over the limit after the map's loop.
    assert!(answered < 160, "{answered}");
}

/// A loop is charged each bound element's copy, nested parts included, and its weight per
/// element (D-127, D-330), on both paths: at every cost limit around the charges of a loop over
/// nested elements, the direct path answers the interpreter's result or error.
#[test]
fn loops_are_charged_their_elements_sizes_on_both_paths() {
    let message = json!({"ys": [{"k": "xyzw"}, "abcdefgh", [1, "ab"]]});
    let (mut results, mut errors) = (0, 0);
    for max_cost in 0..160 {
        let engine = CelEngine::with_limits(CelLimits {
            max_cost,
            ..CelLimits::default()
        });
        for expression in ["message.ys.exists(a, false)", "message.ys.all(a, true)"] {
            let program = engine.compile_program(expression, &[]).expect("compiles");
            let direct = program.direct.as_ref().expect("in the subset");
            match direct.evaluate(&message, &[], engine.limits(), &engine.regexes) {
                Some(Ok(_)) => results += 1,
                Some(Err(_)) => errors += 1,
                None => {}
            }
            assert!(agree(
                &engine,
                expression,
                &message,
                &Value::Null,
                &Value::Null
            ));
        }
    }
    assert!(
        results > 0 && errors > 0,
        "{results} results, {errors} errors"
    );
}

/// A refused charge spends the rest of the budget, on both paths (D-350): once one iteration of a
/// loop goes over the cost limit, every later charge is refused too, so an `exists` whose first
/// body is refused cannot answer `true` from a cheaper later one, and a smaller limit never
/// answers what a larger one refuses.
#[test]
fn a_refused_charge_refuses_every_later_one_on_both_paths() {
    let message = json!({"xs": ["a string of thirty characters.", "a", "b"]});
    let expression = "message.xs.exists(a, size(a) == 1)";
    let mut answered = Vec::new();
    for max_cost in 0..200 {
        let engine = CelEngine::with_limits(CelLimits {
            max_cost,
            ..CelLimits::default()
        });
        assert!(
            agree(&engine, expression, &message, &Value::Null, &Value::Null),
            "the direct path abstained at max_cost {max_cost}"
        );
        let program = engine.compile_program(expression, &[]).expect("compiles");
        answered.push(program.run(&message, &[]).is_ok());
    }
    let first = answered.iter().position(|ok| *ok).expect("answered at 199");
    assert!(first > 0, "answered at every limit");
    assert!(
        answered[first..].iter().all(|ok| *ok),
        "a result below an error: {answered:?}"
    );
}
