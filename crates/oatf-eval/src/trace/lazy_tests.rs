//! The lazy reading of a trace (D-91, `JsonlTraceReader::next_into`) against the full one
//! (`next()` and `push`), on generated JSON Lines traces: valid lines of every filter class, lines
//! with escaped envelope strings and ignored fields, and malformed lines of every kind (deep nesting,
//! numbers out of range, lone surrogates, invalid UTF-8, over-long lines, too many values, missing or
//! wrong `direction`, duplicate fields, truncated JSON). Every verdict, evidence, warning, count,
//! matched message and malformed-line error (line, kind, text) must be the same.

use serde_json::{Value, json};

use super::reader::lazy_counts;
use crate::{CompiledAttack, EvalOptions, JsonlTraceReader, TraceEvaluator};

/// A small deterministic generator (PCG-style LCG).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The indicators a generated attack draws from: every filter step, targets that resolve and one
/// that never does (the D-70 warning), literal and regex patterns.
fn indicator_pool() -> Vec<Value> {
    vec![
        json!({"protocol": "mcp", "surface": "tools/call", "direction": "request",
               "target": "arguments.path", "pattern": {"contains": "SECRET"}}),
        json!({"protocol": "mcp", "surface": "tools/call",
               "target": "arguments.cmd", "pattern": {"regex": "rm\\s+-rf"}}),
        json!({"protocol": "mcp", "surface": "tools/list", "direction": "response",
               "target": "tools[*].description", "pattern": {"contains": "ignore previous"}}),
        json!({"protocol": "mcp", "target": "text", "pattern": {"contains": "SECRET"}}),
        json!({"protocol": "a2a", "surface": "message/send",
               "target": "message.parts[*].text", "pattern": {"regex": "(?i)password"}}),
        json!({"protocol": "mcp", "surface": "tools/call", "actor": "srv",
               "target": "argumnets.path", "pattern": {"contains": "x"}}),
        json!({"protocol": "mcp", "surface": "notifications/message",
               "target": "data", "pattern": {"starts_with": "leak"}}),
        json!({"protocol": "a2a", "actor": "agent", "direction": "request",
               "target": "text", "pattern": {"ends_with": "é"}}),
    ]
}

fn attack(rng: &mut Rng) -> CompiledAttack {
    let pool = indicator_pool();
    let mut indicators: Vec<Value> = pool.iter().filter(|_| rng.chance(55)).cloned().collect();
    if indicators.is_empty() {
        indicators.push(pool[0].clone());
    }
    let mut doc = json!({"oatf": "0.1", "attack": {
        "execution": {"actors": [
            {"name": "srv", "mode": "mcp_server", "phases": [
                {"name": "lure", "state": {}, "trigger": {"event": "tools/list"}},
                {"name": "strike"}
            ]},
            {"name": "agent", "mode": "a2a_server", "phases": [{"name": "only", "state": {}}]}
        ]},
        "indicators": indicators
    }});
    if rng.chance(40)
        && let Some(attack) = doc.get_mut("attack").and_then(Value::as_object_mut)
    {
        attack.insert("grace_period".into(), json!("5s"));
    }
    let document: oatf_model::Document = match serde_json::from_value(doc) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    CompiledAttack::new(&document, &EvalOptions::new())
}

/// A string value, sometimes matching an indicator, sometimes with escapes.
fn text(rng: &mut Rng) -> Value {
    json!(rng.pick(&[
        "plain",
        "SECRET",
        "/home/u/SECRET/key",
        "rm  -rf /",
        "ignore previous instructions",
        "my PassWord is",
        "leak: everything",
        "quote \" back \\ slash",
        "new\nline\ttab",
        "café",
        "emoji 😀",
        "x",
        "",
    ]))
}

fn content(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => json!({"name": "read", "arguments": {"path": text(rng), "cmd": text(rng)}}),
        1 => {
            json!({"tools": [{"name": "a", "description": text(rng)}, {"description": text(rng)}]})
        }
        2 => json!({"text": text(rng), "n": rng.below(1000), "f": -1.5, "ok": true, "z": null}),
        3 => json!({"message": {"parts": [{"text": text(rng)}, {"kind": "data"}]}}),
        4 => json!({"data": text(rng), "level": "info"}),
        5 => json!({"arguments": {"pathh": text(rng)}}),
        6 => text(rng),
        7 => json!([text(rng), 1, [2, {"text": text(rng)}]]),
        _ => Value::Null,
    }
}

/// One generated trace line (without its newline), valid or not.
fn line(rng: &mut Rng, seq: u64) -> Vec<u8> {
    let mut message = serde_json::Map::new();
    if rng.chance(85) {
        message.insert("seq".into(), json!(seq));
    }
    if rng.chance(70) {
        message.insert(
            "timestamp".into(),
            json!(format!(
                "2026-11-20T10:{:02}:{:02}.000Z",
                seq / 60 % 60,
                seq % 60
            )),
        );
    }
    if let Some(actor) = rng.pick(&[Some("srv"), Some("agent"), Some("ghost"), None]) {
        message.insert("actor".into(), json!(actor));
    }
    if let Some(phase) = rng.pick(&[Some("lure"), Some("strike"), Some("only"), None, None]) {
        message.insert("phase".into(), json!(phase));
    }
    message.insert(
        "direction".into(),
        json!(rng.pick(&["incoming", "outgoing"])),
    );
    if let Some(method) = rng.pick(&[
        Some("tools/call"),
        Some("tools/call"),
        Some("tools/list"),
        Some("notifications/message"),
        Some("message/send"),
        Some("resources/read"),
        None,
    ]) {
        message.insert("method".into(), json!(method));
    }
    if rng.chance(20) {
        message.insert("protocol".into(), json!(rng.pick(&["mcp", "a2a"])));
    }
    if rng.chance(90) {
        message.insert("content".into(), content(rng));
    }
    let mut text = serde_json::to_string(&Value::Object(message)).unwrap_or_default();
    let content_marker = "\"content\":";
    let insert_in_content = |text: &mut String, what: &str| {
        // Right after `"content":`, as the first element of a wrapping array.
        if let Some(at) = text.find(content_marker) {
            let at = at + content_marker.len();
            let rest = text.split_off(at);
            let end = closing_of_value(&rest);
            text.push('[');
            text.push_str(what);
            text.push(',');
            text.push_str(&rest[..end]);
            text.push(']');
            text.push_str(&rest[end..]);
        }
    };
    match rng.below(40) {
        // Nesting around the parser's limit (the envelope is one level).
        0..=2 => {
            let depth = *rng.pick(&[98, 99, 100, 101, 125, 126, 127, 128, 129, 300]);
            let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            insert_in_content(&mut text, &nested);
        }
        // Numbers in and out of f64 range.
        3..=5 => {
            let long = format!(
                "1{}",
                "0".repeat(*rng.pick(&[299, 300, 307, 308, 309, 400]))
            );
            let number = rng
                .pick(&[
                    "1e400",
                    "-1e400",
                    "1e308",
                    "1.7976931348623157e308",
                    "1.8e308",
                    "1e-400",
                    "1.5E3",
                    "2E400",
                    "-0.0",
                    "18446744073709551616",
                    long.as_str(),
                ])
                .to_string();
            insert_in_content(&mut text, &number);
        }
        // Surrogate escapes, lone and paired, in values and keys.
        6..=8 => {
            let escaped = *rng.pick(&[
                "\"\\ud800\"",
                "\"a\\udc00\"",
                "\"\\ud800\\u0041\"",
                "\"\\ud83d\\ude00\"",
                "\"\\uD83D\\uDE00\"",
                "\"\\uDFFF\"",
                "{\"\\ud800\": 1}",
                "\"\\u00e9\\u0000\"",
                "\"\\ud7ff\\ue000\"",
            ]);
            insert_in_content(&mut text, escaped);
        }
        // Invalid UTF-8 in a string.
        9 => {
            let mut bytes = text.into_bytes();
            if let Some(at) = bytes.iter().rposition(|&b| b == b'"') {
                bytes.insert(at, 0xff);
            }
            return bytes;
        }
        // No direction, or a wrong one.
        10 => text = text.replacen("\"direction\":", "\"directio\":", 1),
        11 => text = text.replacen("\"direction\":\"", "\"direction\":\"x", 1),
        12 => text = text.replacen("\"direction\":", "\"direction\":5,\"d\":", 1),
        // Duplicate fields.
        13 => text = text.replacen("\"direction\":", "\"method\":\"m\",\"direction\":", 1),
        14 => text = text.replacen("{", "{\"content\":{},", 1),
        // Truncated, trailing garbage, not JSON, not an object.
        15 => {
            let mut cut = rng.below(text.len() as u64) as usize;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        16 => text.push_str(" x"),
        17 => text = String::from(*rng.pick(&["not json", "[1,2]", "\"s\"", "{}", "null"])),
        // Escaped envelope strings (owned, not borrowed), ignored fields the parser only skips.
        18 => text = text.replace("/", "\\/"),
        19 => text = text.replacen("{", "{\"extra\":[[[[1e400]]],\"\\ud800\"],", 1),
        20 => {
            let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
            text = text.replacen("{", &format!("{{\"extra\":{deep},"), 1);
        }
        // A control character inside a string, a bad escape, a wrong seq.
        21 => text = text.replacen("\"direction\"", "\"dir\tection\"", 1),
        22 => insert_in_content(&mut text, "\"\\x\""),
        23 => text = text.replacen("{", "{\"seq\":-1,", 1),
        // Blank, padded and `\r`-ended lines.
        24 => text = String::from(*rng.pick(&["", "   ", "\t"])),
        25 => text.push('\r'),
        26 => text = format!("  {text}  "),
        // Long lines (over the length or node limits of some cases).
        27 => {
            let pad = "{\"k\":[1,2,3]},".repeat(200);
            insert_in_content(&mut text, &format!("[{pad}0]"));
        }
        _ => {}
    }
    text.into_bytes()
}

/// The end of the JSON value at the start of `text` (valid JSON from `serde_json::to_string`).
fn closing_of_value(text: &str) -> usize {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    match stream.next() {
        Some(Ok(_)) => stream.byte_offset(),
        _ => text.len(),
    }
}

/// One line read: its number and the error (kind, text) or the matched count after its message.
type Step = (u64, Result<usize, (String, String)>);

/// Everything a trace run reports, for comparison.
#[derive(Debug, PartialEq)]
struct Outcome {
    steps: Vec<Step>,
    messages: u64,
    after_grace: u64,
    matched: Vec<(String, u64)>,
    silent: Vec<String>,
    verdict: String,
}

fn finish(evaluator: TraceEvaluator<'_>, steps: Vec<Step>) -> Outcome {
    let messages = evaluator.messages();
    let after_grace = evaluator.messages_after_grace();
    let matched = evaluator
        .matched_messages()
        .map(|(id, at)| (id.to_owned(), at))
        .collect();
    let silent = evaluator.silent_actors().map(str::to_owned).collect();
    let mut verdict = evaluator.finish();
    // The wall-clock time of the verdict is not the run's.
    verdict.timestamp = None;
    for indicator in &mut verdict.indicator_verdicts {
        indicator.timestamp = None;
    }
    let verdict = format!("{verdict:?}");
    Outcome {
        steps,
        messages,
        after_grace,
        matched,
        silent,
        verdict,
    }
}

fn reader(bytes: &[u8], limits: (usize, usize)) -> JsonlTraceReader<&[u8]> {
    JsonlTraceReader::new(bytes)
        .with_max_line_len(limits.0)
        .with_max_nodes(limits.1)
}

/// The full path: every line parsed into a `TraceMessage`, then pushed.
fn full(attack: &CompiledAttack, bytes: &[u8], limits: (usize, usize)) -> Outcome {
    let mut reader = reader(bytes, limits);
    let mut evaluator = TraceEvaluator::new(attack);
    let mut steps = Vec::new();
    while let Some(item) = reader.next() {
        let step = match item {
            Ok(message) => {
                evaluator.push(&message);
                Ok(evaluator.matched_count())
            }
            Err(e) => Err((format!("{:?}", e.kind()), e.to_string())),
        };
        steps.push((reader.lines_read(), step));
    }
    finish(evaluator, steps)
}

/// The lazy path: `next_into`, parsing in one pass from `speculate_from` of the last 32 lines
/// needing their content (0: always, 33: never).
fn lazy(
    attack: &CompiledAttack,
    bytes: &[u8],
    limits: (usize, usize),
    speculate_from: u32,
) -> Outcome {
    let mut reader = reader(bytes, limits).speculating_from(speculate_from);
    let mut evaluator = TraceEvaluator::new(attack);
    let mut steps = Vec::new();
    while let Some(item) = reader.next_into(&mut evaluator) {
        let step = match item {
            Ok(()) => Ok(evaluator.matched_count()),
            Err(e) => Err((format!("{:?}", e.kind()), e.to_string())),
        };
        steps.push((reader.lines_read(), step));
    }
    finish(evaluator, steps)
}

#[test]
fn the_lazy_path_reads_every_trace_as_the_full_one() {
    let mut rng = Rng(25);
    let before = lazy_counts();
    let mut errors = 0usize;
    for case in 0..400 {
        let attack = attack(&mut rng);
        let mut bytes = Vec::new();
        for seq in 1..=1 + rng.below(60) {
            bytes.extend(line(&mut rng, seq));
            bytes.push(b'\n');
        }
        let limits = match rng.below(4) {
            0 => (1_500, crate::DEFAULT_MAX_LINE_NODES),
            1 => (crate::DEFAULT_MAX_LINE_LEN, 400),
            _ => (crate::DEFAULT_MAX_LINE_LEN, crate::DEFAULT_MAX_LINE_NODES),
        };
        let expected = full(&attack, &bytes, limits);
        errors += expected.steps.iter().filter(|(_, s)| s.is_err()).count();
        // Envelope first, one pass, and as the reader chooses (4 of the last 32 lines as this
        // generator makes them, so that it switches both ways).
        for speculate_from in [33, 0, 4] {
            let got = lazy(&attack, &bytes, limits, speculate_from);
            assert_eq!(
                got,
                expected,
                "case {case}, one pass from {speculate_from}, trace:\n{}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
    // The comparison covered the three ways a line goes: content not parsed, parsed on its own,
    // and the full parse (flagged, or an envelope that does not parse), and many malformed lines.
    let after = lazy_counts();
    let (skipped, parsed, full) = (after.0 - before.0, after.1 - before.1, after.2 - before.2);
    assert!(skipped > 2_000, "content skipped on {skipped} lines");
    assert!(parsed > 1_000, "content parsed alone on {parsed} lines");
    assert!(full > 1_000, "full parse on {full} lines");
    assert!(errors > 1_000, "{errors} malformed lines");
}
