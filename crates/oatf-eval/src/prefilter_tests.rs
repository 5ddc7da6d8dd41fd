//! Differential test of the literal prefilter (D-75): the prefiltered engine against the
//! straightforward one on generated attacks and traces, same compiled attack, same messages.
//! Verdicts, evidence, the first matching message and the counts must be equal.

use serde_json::{Value, json};

use crate::{
    AttackVerdict, CompiledAttack, Document, EvalOptions, RegexLimits, TraceDirection,
    TraceEvaluator, TraceMessage,
};

/// SplitMix64: a small deterministic generator (no dependency, fixed seed).
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
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Words of the generated texts and patterns: overlapping, in several cases, with the characters
/// that fold to ASCII letters (`ſ`, `K`), non-ASCII and JSON-significant characters.
const WORDS: &[&str] = &[
    "secret",
    "SECRET",
    "Secret",
    "seCret",
    "paſſword",
    "password",
    "PASSWORD",
    "\u{212A}ey",
    "key",
    "KEY",
    "token",
    "tok",
    "rm -rf",
    "RM  -RF",
    "/etc/passwd",
    "/ETC/shadow",
    "AKIA1234",
    "akia",
    "é",
    "É",
    "x",
    "xx",
    "\"",
    "{",
    "0",
    "42",
    "ngrok",
    "a b",
    "id_rsa",
    "ID_RSA",
    "привет",
    "pаsswоrd",
    "abcd+/=",
    "line\nnext",
    "i-d",
    "",
];

/// Pieces of generated regexes (each valid RE2 on its own).
const REGEX_ATOMS: &[&str] = &[
    "secret",
    "password",
    "key",
    "tok(en)?",
    "rm\\s+-rf",
    "/etc/(passwd|shadow)",
    "AKIA[0-9]+",
    "id_rsa",
    "[a-c]",
    "\\d+",
    "\\s*",
    ".?",
    "x{2,3}",
    "(x|y)",
    "\\b",
    "^",
    "$",
    "é",
    "[éÉ]",
    "\\w+",
    "[sk]",
    "k",
    "s",
    "(secret|token|ngrok)",
    "e+",
    "a?",
    "\\{",
    "\"",
    // No literal, or one too short to look for: branches searched on their own (D-90).
    "[A-Za-z0-9/+=]{4}",
    "(?:^|[^a-z])[a-z]{3}(?:$|[^a-z])",
    "\\p{Cyrillic}{1,3}",
    "\\p{Latin}+",
    "(?m:^)",
    "(?m:$)",
    "\\W{0,2}",
    "\\bi\\W?d",
    "\\A",
    "\\z",
    "(?-u:\\b)",
];

const TARGETS: &[&str] = &[
    "text",
    "arguments",
    "arguments.path",
    "items[*].name",
    "items[*]",
    "items",
    "n",
    "missing",
    "",
];

fn regex(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(50) {
        out.push_str("(?i)");
    }
    if rng.chance(20) {
        out.push_str("(?m)");
    }
    if rng.chance(10) {
        // A capture group around the whole alternation: its branches are still top-level.
        return format!("({})", regex(rng));
    }
    let alternatives = 1 + rng.below(3);
    for a in 0..alternatives {
        if a > 0 {
            out.push('|');
        }
        for _ in 0..1 + rng.below(3) {
            out.push_str(rng.pick(REGEX_ATOMS));
        }
    }
    out
}

fn word(rng: &mut Rng) -> String {
    let mut out = String::new();
    for i in 0..rng.below(4) {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
    out
}

fn condition(rng: &mut Rng) -> Value {
    let text = |rng: &mut Rng| Value::String(rng.pick(WORDS).to_owned());
    match rng.below(12) {
        0 => json!({"contains": text(rng)}),
        1 => json!({"starts_with": text(rng)}),
        2 => json!({"ends_with": text(rng)}),
        3..=5 => json!({"regex": regex(rng)}),
        6 => json!({"regex": regex(rng), "contains": text(rng)}),
        7 => text(rng),
        8 => json!({"exists": rng.chance(50)}),
        9 => json!({"exists": false, "regex": regex(rng)}),
        10 => json!({"gt": 10, "regex": "\\d"}),
        _ => json!({"any_of": [text(rng), 42], "contains": text(rng)}),
    }
}

fn attack(rng: &mut Rng) -> Value {
    let indicators: Vec<Value> = (0..1 + rng.below(10))
        .map(|_| {
            let mut indicator = json!({
                "protocol": "mcp",
                "target": rng.pick(TARGETS),
                "pattern": {"condition": condition(rng)},
            });
            if rng.chance(60) {
                indicator["surface"] = json!(rng.pick(&["tools/call", "tools/list"]));
            }
            if rng.chance(40) {
                indicator["direction"] = json!(rng.pick(&["request", "response"]));
            }
            indicator
        })
        .collect();
    json!({
        "oatf": "0.1",
        "attack": {
            "id": "OATF-901",
            "execution": {"mode": "mcp_server", "state": {"tools": []}},
            "indicators": indicators,
        }
    })
}

fn message(rng: &mut Rng, seq: u64) -> TraceMessage {
    let items: Vec<Value> = (0..rng.below(4))
        .map(|_| match rng.below(3) {
            0 => json!({"name": word(rng)}),
            1 => json!(word(rng)),
            _ => json!({"name": 7}),
        })
        .collect();
    let mut content = json!({
        "text": word(rng),
        "arguments": {"path": word(rng), "n": rng.below(50)},
        "items": items,
        "n": rng.below(50),
    });
    if rng.chance(10) {
        content = json!(word(rng));
    }
    let direction = if rng.chance(50) {
        TraceDirection::Incoming
    } else {
        TraceDirection::Outgoing
    };
    let method = rng.pick(&["tools/call", "tools/list", "ping"]);
    TraceMessage::new(direction, method, content).with_seq(seq)
}

fn same(a: &AttackVerdict, b: &AttackVerdict) -> bool {
    a.result == b.result
        && a.diagnostic == b.diagnostic
        && a.warnings == b.warnings
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
fn prefiltered_and_straightforward_engines_agree() {
    let mut rng = Rng(0x0A7F_2025);
    let mut ruled_out_somewhere = 0;
    let mut branch_hits = 0;
    let mut matched = 0;
    let mut warned = 0;
    for case in 0..1200 {
        let document: Document = serde_json::from_value(attack(&mut rng)).unwrap();
        // Some cases with a small input limit, so that regexes fail on long texts.
        let options = if rng.chance(15) {
            let mut limits = RegexLimits::default();
            limits.max_input_len = 12;
            EvalOptions::new().with_regex_limits(limits)
        } else {
            EvalOptions::new()
        };
        let attack = CompiledAttack::new(&document, &options);
        let messages: Vec<TraceMessage> = (1..=1 + rng.below(24) as u64)
            .map(|seq| message(&mut rng, seq))
            .collect();
        // The engines see the messages as the JSON Lines reader gives them back (its node count
        // and line splitting on generated content).
        let jsonl: String = messages
            .iter()
            .map(|m| serde_json::to_string(m).unwrap() + "\n")
            .collect();
        let read: Vec<TraceMessage> = crate::JsonlTraceReader::new(jsonl.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(read, messages, "case {case}");
        let mut fast = TraceEvaluator::new(&attack);
        let mut reference = TraceEvaluator::without_prefilter(&attack);
        for m in &messages {
            fast.push(m);
            reference.push(m);
            assert_eq!(
                fast.matched_messages().collect::<Vec<_>>(),
                reference.matched_messages().collect::<Vec<_>>(),
                "case {case}, after message {:?}: {document:?}",
                m.seq
            );
        }
        if fast
            .prefilter
            .as_ref()
            .is_some_and(|p| p.ruled_out_count() > 0)
        {
            ruled_out_somewhere += 1;
        }
        branch_hits += fast.prefilter.as_ref().map_or(0, |p| p.branch_hit_count());
        // Streaming from the reader, each message dropped before the next is read, as the CLI
        // does: the allocator reuses addresses, which the per-message renders must not confuse.
        let mut streamed = TraceEvaluator::new(&attack);
        for m in crate::JsonlTraceReader::new(jsonl.as_bytes()) {
            streamed.push(&m.unwrap());
        }
        let streamed = streamed.finish();
        let (a, b) = (fast.finish(), reference.finish());
        assert!(
            same(&streamed, &b),
            "case {case}, streamed\n{streamed:#?}\n{b:#?}"
        );
        warned += usize::from(!a.warnings.is_empty());
        matched += usize::from(
            a.indicator_verdicts
                .iter()
                .any(|v| v.result == crate::IndicatorResult::Matched),
        );
        assert!(
            same(&a, &b),
            "case {case}\nprefiltered {a:#?}\nstraightforward {b:#?}\nmessages {messages:#?}\n{document:#?}"
        );
    }
    // The generator reaches both sides of the prefilter.
    assert!(ruled_out_somewhere > 400, "{ruled_out_somewhere}");
    // ... and the branches searched on their own (D-90) make candidates.
    assert!(branch_hits > 700, "{branch_hits}");
    assert!(matched > 200, "{matched}");
    // ... and the unresolved-target warnings (D-70), which see the ruled-out indicators too.
    assert!(warned > 50, "{warned}");
}
