//! Whole-trace evaluation with CEL expressions ruled out by their literal guard (D-95) against the
//! straightforward engine: generated attacks with many expressions per message (so that the
//! guard is used) over generated traces whose strings hold the needles or not, with expressions
//! that match, fail (a missing field, a wrong type) or abstain from the direct path. Verdicts,
//! evidence and the first matching message must be equal, reading the trace message by message
//! and through the lazy reader.

use oatf::{AttackVerdict, CompiledAttack, Document, TraceEvaluator};
use serde_json::{Value, json};

/// SplitMix64 (fixed seed, no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Needles of the expressions and words of the messages: overlapping, so that a message holds
/// some needles and not others.
const WORDS: &[&str] = &[
    "password", "api_key", "secret_1", "secret_2", "rm -rf", "rm", "passwd", "é", "token", "x",
];

fn expression(rng: &mut Rng) -> String {
    let a = rng.pick(WORDS);
    let b = rng.pick(WORDS);
    match rng.below(10) {
        0 => format!("message.arguments.exists(k, k in ['{a}', '{b}'])"),
        1 => format!("message.arguments.command.contains('{a}')"),
        2 => format!("!message.arguments.notes.contains('{a}')"),
        3 => format!("has(message.arguments.path) && message.arguments.path.contains('{a}')"),
        4 => format!("message.items.exists(p, p.kind == 'text' && p.text.contains('{a}'))"),
        5 => format!(
            "message.arguments.command.contains('{a}') || message.arguments.path.contains('{b}')"
        ),
        6 => format!("size(message.arguments) > 2 && message.arguments.exists(k, k in ['{a}'])"),
        7 => format!("message.items.all(p, !(p.text in ['{a}', '{b}']))"),
        8 => format!("message.arguments.command in ['{a}', '{b}']"),
        _ => format!("message.name == 'run' && message.arguments.path.contains('{a}')"),
    }
}

fn attack(rng: &mut Rng) -> Value {
    let count = 8 + rng.below(16);
    let indicators: Vec<Value> = (0..count)
        .map(|i| {
            if rng.below(8) == 0 {
                json!({
                    "id": format!("OATF-902-{:02}", i + 1),
                    "surface": "tools/call",
                    "target": "arguments.command",
                    "pattern": {"contains": rng.pick(WORDS)},
                })
            } else {
                json!({
                    "id": format!("OATF-902-{:02}", i + 1),
                    "surface": "tools/call",
                    "target": "arguments",
                    "expression": {"cel": expression(rng)},
                })
            }
        })
        .collect();
    json!({
        "oatf": "0.1",
        "attack": {
            "id": "OATF-902",
            "execution": {"mode": "mcp_server", "state": {"tools": []}},
            "indicators": indicators,
        }
    })
}

fn text(rng: &mut Rng) -> String {
    (0..rng.below(4))
        .map(|_| {
            rng.pick(&[
                "plain", "words", "here", "rm", "secret_1", "é", "api", "key",
            ])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn content(rng: &mut Rng) -> Value {
    let mut arguments = serde_json::Map::new();
    for key in ["command", "path", "notes", "password", "api_key", "token"] {
        if rng.below(3) > 0 {
            let value = match rng.below(8) {
                0 => json!(7),
                1 => json!([text(rng)]),
                2 => json!(rng.pick(WORDS)),
                _ => json!(text(rng)),
            };
            arguments.insert(key.to_owned(), value);
        }
    }
    let items: Vec<Value> = (0..rng.below(3))
        .map(|_| match rng.below(4) {
            0 => json!({"kind": "text"}),
            1 => json!({"kind": "data", "text": 1}),
            _ => json!({"kind": "text", "text": text(rng)}),
        })
        .collect();
    match rng.below(12) {
        0 => json!({"name": "run", "arguments": text(rng)}),
        1 => json!({"name": "run"}),
        _ => json!({"name": rng.pick(&["run", "other"]), "arguments": arguments, "items": items}),
    }
}

fn same(a: &AttackVerdict, b: &AttackVerdict) -> bool {
    a.result == b.result
        && a.evaluation_summary == b.evaluation_summary
        && a.indicator_verdicts.len() == b.indicator_verdicts.len()
        && a.indicator_verdicts
            .iter()
            .zip(&b.indicator_verdicts)
            .all(|(x, y)| {
                (&x.indicator_id, x.result, &x.evidence) == (&y.indicator_id, y.result, &y.evidence)
            })
}

#[test]
fn guarded_expressions_give_the_straightforward_verdicts() {
    let mut rng = Rng(0x0A7F_2026_0095);
    let options = oatf::default_eval_options();
    let (mut matched, mut errors, mut not_matched) = (0, 0, 0);
    for case in 0..300 {
        let document: Document = serde_json::from_value(attack(&mut rng)).unwrap();
        let attack = CompiledAttack::new(&document, &options);
        assert!(attack.compile_errors().next().is_none(), "case {case}");
        let jsonl: String = (1..=1 + rng.below(30))
            .map(|seq| {
                json!({
                    "seq": seq,
                    "direction": "incoming",
                    "method": rng.pick(&["tools/call", "tools/call", "tools/list"]),
                    "content": content(&mut rng),
                })
                .to_string()
                    + "\n"
            })
            .collect();
        let messages: Vec<oatf::TraceMessage> = oatf::JsonlTraceReader::new(jsonl.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        let mut fast = TraceEvaluator::new(&attack);
        let mut reference = TraceEvaluator::without_prefilter(&attack);
        for m in &messages {
            fast.push(m);
            reference.push(m);
            assert_eq!(
                fast.matched_messages().collect::<Vec<_>>(),
                reference.matched_messages().collect::<Vec<_>>(),
                "case {case}, after message {:?}",
                m.seq
            );
        }
        let mut lazy = TraceEvaluator::new(&attack);
        let mut reader = oatf::JsonlTraceReader::new(jsonl.as_bytes());
        while let Some(step) = reader.next_into(&mut lazy) {
            step.unwrap();
        }
        let (a, b, c) = (fast.finish(), reference.finish(), lazy.finish());
        assert!(
            same(&a, &b),
            "case {case}\n{a:#?}\n{b:#?}\n{jsonl}\n{document:#?}"
        );
        assert!(same(&c, &b), "case {case}, lazy reader\n{c:#?}\n{b:#?}");
        for verdict in &b.indicator_verdicts {
            match verdict.result {
                oatf::IndicatorResult::Matched => matched += 1,
                oatf::IndicatorResult::Error => errors += 1,
                oatf::IndicatorResult::NotMatched => not_matched += 1,
                _ => {}
            }
        }
    }
    // The cases reach every verdict.
    assert!(
        matched > 300 && errors > 300 && not_matched > 300,
        "matched {matched}, errors {errors}, not matched {not_matched}"
    );
}

/// An expression that takes more `matches` patterns than `max_regex_compiles` allows fails the
/// same way whether or not a guarded expression's residual compiled one of its patterns earlier in
/// the message (found in review: the budget counted only patterns missing from the engine's cache,
/// D-96). Each run has its own compiled attack, so its own cache.
#[test]
fn a_residual_calling_matches_does_not_change_another_expressions_budget() {
    let patterns: Vec<String> = (0..65).map(|i| format!("'p{i:03}'")).collect();
    let mut indicators = vec![json!({
        "id": "OATF-903-01",
        "surface": "tools/call",
        "target": "arguments",
        "expression": {"cel": format!("[{}].exists(r, message.t.matches(r))", patterns.join(", "))},
    })];
    // Enough guarded expressions sharing one residual for the guard to search the message.
    for i in 1..12 {
        indicators.push(json!({
            "id": format!("OATF-903-{:02}", i + 1),
            "surface": "tools/call",
            "target": "arguments",
            "expression": {"cel": format!("message.t.contains('n{i}') || message.t.matches('p000')")},
        }));
    }
    let document: Document = serde_json::from_value(json!({
        "oatf": "0.1",
        "attack": {
            "id": "OATF-903",
            "execution": {"mode": "mcp_server", "state": {"tools": []}},
            "indicators": indicators,
        }
    }))
    .unwrap();
    let message: oatf::TraceMessage = serde_json::from_value(json!({
        "seq": 1, "direction": "incoming", "method": "tools/call", "content": {"t": "zzz"}
    }))
    .unwrap();
    let run = |prefiltered: bool| {
        let attack = CompiledAttack::new(&document, &oatf::default_eval_options());
        let mut evaluator = if prefiltered {
            TraceEvaluator::new(&attack)
        } else {
            TraceEvaluator::without_prefilter(&attack)
        };
        evaluator.push(&message);
        evaluator.finish()
    };
    let (fast, reference) = (run(true), run(false));
    assert!(same(&fast, &reference), "{fast:#?}\n{reference:#?}");
    assert_eq!(
        reference.indicator_verdicts.first().map(|v| v.result),
        Some(oatf::IndicatorResult::Error)
    );
}
