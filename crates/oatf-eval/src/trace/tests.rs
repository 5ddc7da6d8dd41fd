//! Unit tests of whole-trace evaluation: each filter of format §6, direction for both roles, the grace
//! period, spec-decisions 23, streaming memory, and the JSON Lines reader.

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use oatf_model::{Document, SemanticExamples, SemanticIntentClass};
use serde_json::{Value, json};

use crate::*;

fn compile(document: Value, options: &EvalOptions) -> CompiledAttack {
    let document: Document = match serde_json::from_value(document) {
        Ok(document) => document,
        Err(e) => panic!("invalid test document: {e}"),
    };
    CompiledAttack::new(&document, options)
}

fn message(value: Value) -> TraceMessage {
    match serde_json::from_value(value) {
        Ok(message) => message,
        Err(e) => panic!("invalid test message: {e}"),
    }
}

/// Evaluates `trace` against `document` and checks each indicator's result (in declaration order).
#[track_caller]
fn check(document: Value, trace: &[Value], expect: &[IndicatorResult]) -> AttackVerdict {
    let attack = compile(document, &EvalOptions::new());
    let messages: Vec<TraceMessage> = trace.iter().cloned().map(message).collect();
    let verdict = evaluate_trace(&attack, &messages);
    let results: Vec<IndicatorResult> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| v.result)
        .collect();
    assert_eq!(results, expect, "{verdict:#?}");
    verdict
}

/// A multi-actor document: `srv` (mcp_server), `cli` (ag_ui_client), `odd` (a mode without role).
fn two_actors(indicators: Value) -> Value {
    json!({
        "oatf": "0.1",
        "attack": {
            "id": "T-001",
            "execution": {"actors": [
                {"name": "srv", "mode": "mcp_server", "phases": [{"name": "p", "state": {}}]},
                {"name": "cli", "mode": "ag_ui_client", "phases": [{"name": "p", "state": {}}]},
                {"name": "odd", "mode": "mcp", "phases": [{"name": "p", "state": {}}]}
            ]},
            "indicators": indicators
        }
    })
}

fn secret(extra: Value) -> Value {
    let mut indicator = json!({"target": "text", "pattern": {"contains": "SECRET"}});
    if let (Some(i), Some(e)) = (indicator.as_object_mut(), extra.as_object()) {
        i.extend(e.clone());
    }
    indicator
}

use IndicatorResult::{Error as E, Matched as M, NotMatched as N, Skipped as S};

#[test]
fn protocol_comes_from_the_actor_mode() {
    let doc = two_actors(json!([
        secret(json!({"protocol": "mcp"})),
        secret(json!({"protocol": "ag_ui"}))
    ]));
    let on = |actor: &str| json!({"seq": 1, "actor": actor, "direction": "incoming", "content": {"text": "SECRET"}});
    check(doc.clone(), &[on("srv")], &[M, N]);
    check(doc.clone(), &[on("cli")], &[N, M]);
    // `protocol` on the message does not override a declared actor's mode.
    check(
        doc,
        &[
            json!({"actor": "srv", "protocol": "ag_ui", "direction": "incoming", "content": {"text": "SECRET"}}),
        ],
        &[M, N],
    );
}

#[test]
fn undeclared_actors_use_the_message_protocol() {
    let doc = two_actors(json!([
        secret(json!({"protocol": "a2a"})),
        secret(json!({"protocol": "mcp"}))
    ]));
    check(
        doc.clone(),
        &[
            json!({"actor": "elsewhere", "protocol": "a2a", "direction": "incoming", "content": {"text": "SECRET"}}),
        ],
        &[M, N],
    );
    // Without actor and protocol, and with several actors, a message applies to no indicator.
    check(
        doc,
        &[json!({"direction": "incoming", "content": {"text": "SECRET"}})],
        &[N, N],
    );
}

#[test]
fn a_message_without_actor_belongs_to_the_only_actor() {
    let doc = json!({"oatf": "0.1", "attack": {
        "execution": {"mode": "mcp_server", "state": {}},
        "indicators": [secret(json!({"actor": "default", "direction": "request"}))]
    }});
    check(
        doc.clone(),
        &[json!({"direction": "incoming", "content": {"text": "SECRET"}})],
        &[M],
    );
    // Unless its protocol says it is another connection.
    check(
        doc,
        &[json!({"protocol": "a2a", "direction": "incoming", "content": {"text": "SECRET"}})],
        &[N],
    );
}

#[test]
fn surface_is_compared_with_the_method() {
    let doc = two_actors(json!([secret(
        json!({"protocol": "mcp", "surface": "tools/call"})
    )]));
    let at = |method: Value| json!({"actor": "srv", "direction": "incoming", "method": method, "content": {"text": "SECRET"}});
    check(doc.clone(), &[at(json!("prompts/get"))], &[N]);
    check(doc.clone(), &[at(Value::Null)], &[N]);
    check(doc.clone(), &[at(json!("tools/call"))], &[M]);
    check(
        doc,
        &[at(json!("prompts/get")), at(json!("tools/call"))],
        &[M],
    );
}

#[test]
fn actor_restricts_to_one_connection() {
    let doc = json!({"oatf": "0.1", "attack": {
        "execution": {"actors": [
            {"name": "a", "mode": "mcp_server", "phases": [{"state": {}}]},
            {"name": "b", "mode": "mcp_server", "phases": [{"state": {}}]}
        ]},
        "indicators": [secret(json!({"protocol": "mcp", "actor": "b"}))]
    }});
    let on = |actor: &str, text: &str| json!({"actor": actor, "direction": "incoming", "content": {"text": text}});
    check(doc.clone(), &[on("a", "SECRET")], &[N]);
    check(doc.clone(), &[on("a", "SECRET"), on("b", "nothing")], &[N]);
    check(doc, &[on("a", "x"), on("b", "SECRET")], &[M]);
}

#[test]
fn direction_for_a_server_actor() {
    let doc = two_actors(json!([
        secret(json!({"protocol": "mcp", "direction": "request"})),
        secret(json!({"protocol": "mcp", "direction": "response"})),
        secret(json!({"protocol": "mcp"}))
    ]));
    let going = |d: &str| json!({"actor": "srv", "direction": d, "content": {"text": "SECRET"}});
    check(doc.clone(), &[going("incoming")], &[M, N, M]);
    check(doc, &[going("outgoing")], &[N, M, M]);
}

#[test]
fn direction_for_a_client_actor() {
    let doc = two_actors(json!([
        secret(json!({"protocol": "ag_ui", "direction": "request"})),
        secret(json!({"protocol": "ag_ui", "direction": "response"}))
    ]));
    let going = |d: &str| json!({"actor": "cli", "direction": d, "content": {"text": "SECRET"}});
    check(doc.clone(), &[going("outgoing")], &[M, N]);
    check(doc, &[going("incoming")], &[N, M]);
}

#[test]
fn direction_needs_a_known_role() {
    let doc = two_actors(json!([
        secret(json!({"protocol": "mcp", "actor": "odd", "direction": "request"})),
        secret(json!({"protocol": "mcp", "actor": "odd"}))
    ]));
    check(
        doc,
        &[json!({"actor": "odd", "direction": "incoming", "content": {"text": "SECRET"}})],
        &[N, M],
    );
}

#[test]
fn first_match_wins_and_later_messages_are_not_evaluated() {
    struct Counting(AtomicUsize);
    impl SemanticEvaluator for Counting {
        fn evaluate(
            &self,
            text: &str,
            _intent: &str,
            _class: Option<SemanticIntentClass>,
            _threshold: Option<f64>,
            _examples: Option<&SemanticExamples>,
        ) -> Result<f64, EvaluationError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(if text == "bad" { 0.9 } else { 0.1 })
        }
    }
    let counting = Arc::new(Counting(AtomicUsize::new(0)));
    let options = EvalOptions::new().with_semantic_evaluator(counting.clone());
    let attack = compile(
        json!({"oatf": "0.1", "attack": {
            "execution": {"mode": "mcp_server", "state": {}},
            "indicators": [{"target": "text", "semantic": {"intent": "bad things"}}]
        }}),
        &options,
    );
    let trace: Vec<TraceMessage> = ["ok", "bad", "bad", "bad"]
        .iter()
        .enumerate()
        .map(|(i, text)| message(json!({"seq": i + 10, "direction": "incoming", "method": "m", "content": {"text": text}})))
        .collect();
    let verdict = evaluate_trace(&attack, &trace);
    assert_eq!(verdict.result, AttackResult::Exploited);
    assert_eq!(counting.0.load(Ordering::SeqCst), 2);
    let evidence = verdict.indicator_verdicts[0].evidence.as_deref();
    assert_eq!(evidence, Some("seq 11 (m): score 0.9 >= threshold 0.7"));
}

#[test]
fn evidence_names_the_message_position_without_seq() {
    let doc = two_actors(json!([secret(json!({"protocol": "mcp"}))]));
    let verdict = check(
        doc,
        &[
            json!({"actor": "srv", "direction": "incoming", "content": {"text": "no"}}),
            json!({"actor": "srv", "direction": "incoming", "content": {"text": "a SECRET"}}),
        ],
        &[M],
    );
    assert_eq!(
        verdict.indicator_verdicts[0].evidence.as_deref(),
        Some("message 2: a SECRET")
    );
}

#[test]
fn an_error_is_kept_unless_a_later_message_matches() {
    // A regex on a 20-byte text with a 10-byte input limit is an evaluation error.
    let mut limits = RegexLimits::default();
    limits.max_input_len = 10;
    let options = EvalOptions::new().with_regex_limits(limits);
    let attack = compile(
        two_actors(json!([{"protocol": "mcp", "target": "text", "pattern": {"regex": "SECRET"}}])),
        &options,
    );
    let long = message(
        json!({"seq": 1, "actor": "srv", "direction": "incoming", "content": {"text": "01234567890123456789"}}),
    );
    let short = message(
        json!({"seq": 2, "actor": "srv", "direction": "incoming", "content": {"text": "SECRET"}}),
    );
    let verdict = evaluate_trace(&attack, [&long]);
    assert_eq!(verdict.indicator_verdicts[0].result, E);
    let evidence = verdict.indicator_verdicts[0]
        .evidence
        .clone()
        .unwrap_or_default();
    assert!(evidence.starts_with("seq 1: regex_timeout"), "{evidence}");
    assert_eq!(verdict.result, AttackResult::Error);
    let verdict = evaluate_trace(&attack, [&long, &short]);
    assert_eq!(verdict.indicator_verdicts[0].result, M);
}

#[test]
fn no_applicable_message_is_not_matched_and_an_empty_trace_is_an_error() {
    // Spec-decisions 23.
    let doc = two_actors(json!([
        secret(json!({"protocol": "a2a"})),
        secret(json!({"protocol": "mcp"}))
    ]));
    let verdict = check(doc.clone(), &[], &[N, N]);
    assert_eq!(verdict.result, AttackResult::Error);
    assert_eq!(
        verdict.diagnostic.as_deref(),
        Some("the trace has no message: nothing was observed")
    );
    assert_eq!(
        verdict.indicator_verdicts[0].evidence.as_deref(),
        Some("the trace has no message")
    );
    let verdict = check(
        doc,
        &[json!({"actor": "srv", "direction": "incoming", "content": {"text": "x"}})],
        &[N, N],
    );
    assert_eq!(verdict.result, AttackResult::NotExploited);
    assert_eq!(
        verdict.indicator_verdicts[0].evidence.as_deref(),
        Some("no applicable message: 1 message, none of protocol a2a")
    );
    // An indicator with a verdict of its own (no message matched) has no such evidence.
    assert_eq!(verdict.indicator_verdicts[1].evidence, None);
}

#[test]
fn the_evidence_names_the_filter_that_removed_the_messages() {
    let doc = json!({"oatf": "0.1", "attack": {
        "execution": {"actors": [
            {"name": "mcp_a", "mode": "mcp_server", "phases": [{"state": {}}]},
            {"name": "mcp_b", "mode": "mcp_server", "phases": [{"state": {}}]}
        ]},
        "indicators": [
            secret(json!({"protocol": "mcp", "surface": "tools/call"})),
            secret(json!({"protocol": "mcp", "surface": "tools/list", "actor": "mcp_b"})),
            secret(json!({"protocol": "mcp", "surface": "tools/list", "direction": "response"})),
            secret(json!({"protocol": "mcp", "surface": "tools/list", "actor": "mcp_a", "direction": "response"}))
        ]
    }});
    let list = json!({"actor": "mcp_a", "direction": "incoming", "method": "tools/list", "content": {"text": "SECRET"}});
    let mut trace = vec![list.clone(); 13];
    trace.push(json!({"actor": "mcp_a", "direction": "incoming", "method": "ping", "content": {}}));
    let verdict = check(doc.clone(), &trace, &[N, N, N, N]);
    assert_eq!(verdict.result, AttackResult::NotExploited);
    let evidence: Vec<Option<&str>> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| v.evidence.as_deref())
        .collect();
    assert_eq!(
        evidence,
        [
            Some("no applicable message: 14 mcp messages, none with method tools/call"),
            Some(
                "no applicable message: 13 mcp messages with method tools/list, none from actor mcp_b"
            ),
            Some(
                "no applicable message: 13 mcp messages with method tools/list, none that is a response"
            ),
            Some(
                "no applicable message: 13 mcp messages with method tools/list, none that is a response of the actor"
            ),
        ]
    );
    // The actor that never ran is reported.
    let attack = compile(doc, &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    evaluator.push(&message(list));
    assert_eq!(evaluator.silent_actors().collect::<Vec<_>>(), ["mcp_b"]);
}

#[test]
fn no_evaluator_is_still_skipped() {
    // `skipped` stays for "could not evaluate" (SDK §4.5): a CEL indicator without CEL evaluator.
    let doc = json!({"oatf": "0.1", "attack": {
        "execution": {"mode": "mcp_server", "state": {}},
        "indicators": [{"target": "text", "expression": {"cel": "true"}}]
    }});
    let verdict = check(
        doc,
        &[json!({"direction": "incoming", "content": {"text": "x"}})],
        &[S],
    );
    assert_eq!(verdict.result, AttackResult::Error);
}

fn phased(grace: Option<&str>) -> Value {
    let mut doc = json!({"oatf": "0.1", "attack": {
        "execution": {"mode": "mcp_server", "phases": [
            {"name": "lure", "state": {}, "trigger": {"event": "tools/list"}},
            {"name": "strike"}
        ]},
        "indicators": [secret(json!({}))]
    }});
    if let (Some(grace), Some(attack)) =
        (grace, doc.get_mut("attack").and_then(Value::as_object_mut))
    {
        attack.insert("grace_period".into(), json!(grace));
    }
    doc
}

fn at(second: u32, phase: Option<&str>, text: &str) -> Value {
    json!({
        "timestamp": format!("2026-11-20T10:00:{second:02}.000Z"),
        "phase": phase,
        "direction": "incoming",
        "content": {"text": text}
    })
}

#[test]
fn grace_period_ends_evaluation_after_the_terminal_phase() {
    let base = [
        at(0, Some("lure"), "x"),
        at(1, Some("strike"), "x"),
        at(5, Some("strike"), "x"),
    ];
    let with = |last: Value| {
        let mut trace = base.to_vec();
        trace.push(last);
        trace
    };
    // Within 10s of the last terminal-phase message (second 5): evaluated.
    check(phased(Some("10s")), &with(at(15, None, "SECRET")), &[M]);
    // Past it: not evaluated.
    let attack = compile(phased(Some("10s")), &EvalOptions::new());
    let mut evaluator = TraceEvaluator::new(&attack);
    for m in with(at(16, None, "SECRET")) {
        evaluator.push(&message(m));
    }
    assert_eq!(evaluator.messages_after_grace(), 1);
    assert_eq!(evaluator.finish().indicator_verdicts[0].result, N);
    // A later message still in the terminal phase belongs to it.
    check(
        phased(Some("10s")),
        &with(at(59, Some("strike"), "SECRET")),
        &[M],
    );
    // A non-terminal phase after the end is past the grace period too.
    check(
        phased(Some("10s")),
        &with(at(59, Some("lure"), "SECRET")),
        &[N],
    );
    // Without a grace period, or without a timestamp, everything is evaluated.
    check(phased(None), &with(at(59, None, "SECRET")), &[M]);
    let untimed = json!({"direction": "incoming", "content": {"text": "SECRET"}});
    check(phased(Some("10s")), &with(untimed), &[M]);
    // Before any terminal-phase message there is no end to measure from.
    check(
        phased(Some("1s")),
        &[at(0, Some("lure"), "x"), at(30, None, "SECRET")],
        &[M],
    );
}

#[test]
fn grace_period_waits_for_every_actor() {
    let doc = json!({"oatf": "0.1", "attack": {
        "grace_period": "5s",
        "execution": {"actors": [
            {"name": "a", "mode": "mcp_server", "phases": [{"name": "only", "state": {}}]},
            {"name": "b", "mode": "mcp_server", "phases": [
                {"name": "first", "state": {}, "trigger": {"after": "1s"}},
                {"name": "last"}
            ]}
        ]},
        "indicators": [secret(json!({"protocol": "mcp"}))]
    }});
    let on = |actor: &str, second: u32, phase: &str, text: &str| {
        let mut m = at(second, Some(phase), text);
        m["actor"] = json!(actor);
        m
    };
    // `b` is still in its first phase: `a` being done does not end the attack.
    check(
        doc.clone(),
        &[on("a", 0, "only", "x"), on("b", 30, "first", "SECRET")],
        &[M],
    );
    check(
        doc,
        &[
            on("a", 0, "only", "x"),
            on("b", 1, "last", "x"),
            on("b", 30, "first", "SECRET"),
        ],
        &[N],
    );
}

#[test]
fn streaming_memory_does_not_grow_with_the_trace() {
    let attack = compile(
        two_actors(json!([
            secret(json!({"protocol": "mcp", "surface": "tools/call"})),
            secret(json!({"protocol": "mcp", "direction": "response"})),
            {"protocol": "mcp", "target": "n", "pattern": {"gt": 99_999}}
        ])),
        &EvalOptions::new(),
    );
    let mut evaluator = TraceEvaluator::new(&attack);
    let mut retained_after_first_thousand = 0;
    for seq in 1..=100_000u64 {
        let m = TraceMessage {
            seq: Some(seq),
            timestamp: Some(format!(
                "2026-11-20T10:{:02}:{:02}Z",
                seq / 3600 % 60,
                seq % 60
            )),
            actor: Some("srv".into()),
            phase: Some("p".into()),
            direction: if seq % 2 == 0 {
                TraceDirection::Incoming
            } else {
                TraceDirection::Outgoing
            },
            method: Some(
                if seq % 3 == 0 {
                    "tools/call"
                } else {
                    "tools/list"
                }
                .into(),
            ),
            content: json!({"text": format!("message {seq}"), "n": seq}),
            protocol: None,
        };
        evaluator.push(&m);
        if seq == 1_000 {
            retained_after_first_thousand = evaluator.retained_bytes();
        }
    }
    assert_eq!(evaluator.messages(), 100_000);
    // The two undecided indicators were evaluated against every applicable message, and the state
    // kept for them did not grow; only the third indicator's match (at the last message) added its
    // evidence.
    let retained = evaluator.retained_bytes();
    // About 2 KB of state, plus the literal prefilter's plan of each class of message (its
    // automaton, D-75), fixed by the attack and the classes, not by the trace.
    assert!(retained < 16_384, "{retained}");
    assert!(
        retained - retained_after_first_thousand <= 64,
        "{retained} vs {retained_after_first_thousand}"
    );
    assert_eq!(
        evaluator.matched_messages().collect::<Vec<_>>(),
        [("T-001-03", 100_000)]
    );
    let verdict = evaluator.finish();
    let results: Vec<IndicatorResult> = verdict
        .indicator_verdicts
        .iter()
        .map(|v| v.result)
        .collect();
    assert_eq!(results, [N, N, M]);
}

#[test]
fn a_method_without_evaluator_is_skipped_with_its_reason() {
    let verdict = check(
        two_actors(
            json!([{"protocol": "mcp", "target": "text", "expression": {"cel": "true"}}, secret(json!({"protocol": "mcp"}))]),
        ),
        &[json!({"actor": "srv", "direction": "incoming", "content": {"text": "no"}})],
        &[S, N],
    );
    assert_eq!(
        verdict.indicator_verdicts[0].evidence.as_deref(),
        Some("CEL support is unavailable")
    );
    assert_eq!(verdict.result, AttackResult::NotExploited);
}

#[test]
fn compile_errors_are_error_verdicts() {
    let verdict = check(
        two_actors(
            json!([{"protocol": "mcp", "target": "a..b", "pattern": {"contains": "x"}}, secret(json!({"protocol": "mcp"}))]),
        ),
        &[json!({"actor": "srv", "direction": "incoming", "content": {"text": "SECRET"}})],
        &[E, M],
    );
    assert_eq!(verdict.result, AttackResult::Error);
}

#[test]
fn trace_messages_ignore_unknown_fields_and_need_a_direction() {
    let m = message(json!({"direction": "outgoing", "extra": [1, 2], "seq": 3}));
    assert_eq!(m.direction, TraceDirection::Outgoing);
    assert_eq!(m.content, Value::Null);
    assert!(serde_json::from_value::<TraceMessage>(json!({"seq": 1})).is_err());
    assert!(serde_json::from_value::<TraceMessage>(json!({"direction": "sideways"})).is_err());
    let text = serde_json::to_string(&m).unwrap_or_default();
    assert_eq!(text, r#"{"seq":3,"direction":"outgoing","content":null}"#);
}

// --- JsonlTraceReader -------------------------------------------------------------------------

fn read_all<R: BufRead>(reader: JsonlTraceReader<R>) -> Vec<Result<u64, (u64, TraceErrorKind)>> {
    reader
        .map(|item| match item {
            Ok(m) => Ok(m.seq.unwrap_or(0)),
            Err(e) => Err((e.line(), e.kind())),
        })
        .collect()
}

#[test]
fn reader_reports_malformed_lines_and_goes_on() {
    let text = "{\"seq\":1,\"direction\":\"incoming\"}\r\n\
                \n   \n\
                {\"seq\":2}\n\
                [1,2\n\
                {\"seq\":3,\"direction\":\"outgoing\",\"content\":{\"a\":1}}";
    let items = read_all(JsonlTraceReader::new(text.as_bytes()));
    use TraceErrorKind::Malformed;
    assert_eq!(
        items,
        [Ok(1), Err((4, Malformed)), Err((5, Malformed)), Ok(3)]
    );
    let error = JsonlTraceReader::new("{\"seq\":2}\n".as_bytes()).find_map(Result::err);
    let shown = error.map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        shown,
        "line 1: not a trace message: missing field `direction` (column 9)"
    );
    // Text that is not JSON says so (D-137), and so does the end of a line inside a value.
    let errors: Vec<String> =
        JsonlTraceReader::new("nope\n{\"direction\": \"incoming\"\n{\"a\" 1}\n".as_bytes())
            .filter_map(Result::err)
            .map(|e| e.to_string())
            .collect();
    assert_eq!(
        errors,
        [
            "line 1: not JSON (expected ident at column 2)",
            "line 2: not JSON (EOF while parsing an object at column 24)",
            "line 3: not JSON (expected `:` at column 6)",
        ]
    );
    let bad_utf8: &[u8] = b"{\"direction\":\"incoming\",\"x\":\"\xff\"}\n";
    assert_eq!(
        read_all(JsonlTraceReader::new(bad_utf8)),
        [Err((1, Malformed))]
    );
}

#[test]
fn reader_bounds_depth() {
    let deep = format!(
        "{{\"direction\":\"incoming\",\"content\":{}{}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let items = read_all(JsonlTraceReader::new(deep.as_bytes()));
    assert_eq!(items, [Err((1, TraceErrorKind::Malformed))]);
    let error = JsonlTraceReader::new(deep.as_bytes()).find_map(Result::err);
    assert!(error.is_some_and(|e| {
        e.message()
            .starts_with("not read: nests deeper than the limit of 128")
    }),);
}

#[test]
fn reader_skips_an_overlong_line_without_buffering_it() {
    // 64 MiB of `x` with no newline in sight, produced lazily, then two good lines.
    let huge = std::io::repeat(b'x').take(64 * 1024 * 1024);
    let rest = "\n{\"seq\":2,\"direction\":\"incoming\"}\n{\"seq\":3,\"direction\":\"outgoing\"}\n"
        .as_bytes();
    let input = BufReader::with_capacity(8192, huge.chain(rest));
    let mut reader = JsonlTraceReader::new(input).with_max_line_len(1024);
    let first = reader.next();
    assert!(
        matches!(&first, Some(Err(e)) if e.line() == 1 && e.kind() == TraceErrorKind::TooLong),
        "{first:?}"
    );
    assert!(
        reader.buffer_capacity() <= 1024 + 8192,
        "{}",
        reader.buffer_capacity()
    );
    let rest: Vec<_> = read_all(reader);
    assert_eq!(rest, [Ok(2), Ok(3)]);
    // A line exactly at the limit is accepted.
    let line = format!(
        "{{\"direction\":\"incoming\",\"seq\":7,\"pad\":\"{}\"}}",
        "y".repeat(100)
    );
    let reader = JsonlTraceReader::new(line.as_bytes()).with_max_line_len(line.len());
    assert_eq!(read_all(reader), [Ok(7)]);
    let reader = JsonlTraceReader::new(line.as_bytes()).with_max_line_len(line.len() - 1);
    assert_eq!(read_all(reader), [Err((1, TraceErrorKind::TooLong))]);
}

#[test]
fn reader_stops_after_an_io_error() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let input = "{\"seq\":1,\"direction\":\"incoming\"}\n"
        .as_bytes()
        .chain(Failing);
    let items = read_all(JsonlTraceReader::new(BufReader::new(input)));
    assert_eq!(items, [Ok(1), Err((2, TraceErrorKind::Io))]);
}

#[test]
fn reader_bounds_the_values_of_one_line() {
    use TraceErrorKind::TooManyNodes;
    // A line with `n` elements in its content list: the message object, 2 keys, 2 values, the list
    // and its `n` elements is n + 5 values.
    let line = |content: String| format!("{{\"direction\":\"incoming\",\"content\":{content}}}\n");
    let list = |n: usize, item: &str| format!("[{}]", vec![item; n].join(","));
    let read = |text: &str, max: usize| {
        read_all(JsonlTraceReader::new(text.as_bytes()).with_max_nodes(max))
    };
    // Just under and just over, in several shapes.
    for item in ["0", "{}", "[]", "\"s\"", "null"] {
        let text = line(list(95, item));
        assert_eq!(read(&text, 100), [Ok(0)], "{item}");
        assert_eq!(read(&text, 99), [Err((1, TooManyNodes))], "{item}");
    }
    let objects = line(format!(
        "{{{}}}",
        (0..50)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",")
    ));
    // The message, 2 keys, 2 values, the content object and 50 keys with 50 values: 105.
    assert_eq!(read(&objects, 105), [Ok(0)]);
    assert_eq!(read(&objects, 104), [Err((1, TooManyNodes))]);
    // Commas, colons and brackets inside strings (escaped quotes too) are not values.
    let strings = line("\"a,b:[c]{d}\\\",:[{\"".to_owned());
    assert_eq!(read(&strings, 5), [Ok(0)]);
    // The next line is read after a rejected one, and the error says which limit and how to raise it.
    let text = format!("{}{}", line(list(2_000, "{}")), line("1".to_owned()));
    let items: Vec<_> = JsonlTraceReader::new(text.as_bytes())
        .with_max_nodes(1_000)
        .collect();
    let message = items[0]
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert_eq!(
        message,
        "line 1: holds more than the limit of 1000 json values (keys included), not read; \
         raise it with JsonlTraceReader::with_max_nodes"
    );
    assert!(items[1].is_ok());
}

#[test]
fn default_node_limit_rejects_a_15_megabyte_line_of_small_objects() {
    let content = vec!["{}"; 5_000_000].join(",");
    let text = format!("{{\"direction\":\"incoming\",\"content\":[{content}]}}\n");
    assert!(text.len() > 14_000_000);
    let started = std::time::Instant::now();
    let items = read_all(JsonlTraceReader::new(text.as_bytes()));
    assert_eq!(items, [Err((1, TraceErrorKind::TooManyNodes))]);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_reader_after_lines_numbers_on_from_them() {
    let text = "{\"seq\":1,\"direction\":\"incoming\"}\n\nnot json\n{\"seq\":4,\"direction\":\"outgoing\"}\nnope\n";
    let whole = read_all(JsonlTraceReader::new(text.as_bytes()));
    assert_eq!(
        whole,
        [
            Ok(1),
            Err((3, TraceErrorKind::Malformed)),
            Ok(4),
            Err((5, TraceErrorKind::Malformed))
        ]
    );
    // The same trace in two pieces split after its second line (a blank one), the second piece read
    // by a reader of its own: the same items at the same lines.
    let (first, second) = text.split_at(text.find("not json").unwrap_or(0));
    let mut reader = JsonlTraceReader::new(first.as_bytes());
    let mut pieces = read_all(JsonlTraceReader::new(first.as_bytes()));
    while reader.next().is_some() {}
    assert_eq!(reader.lines_read(), 2);
    pieces.extend(read_all(
        JsonlTraceReader::new(second.as_bytes()).after_lines(reader.lines_read()),
    ));
    assert_eq!(pieces, whole);
}
