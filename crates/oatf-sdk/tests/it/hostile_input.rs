//! Hostile input: each input gets a clear error (or a correct result), no panic, and bounded time and
//! memory. Fast enough for CI in debug builds. The limits themselves are tested at their edges in
//! `input_limits.rs`; `docs/input-safety.md` lists them.

use std::io::{BufReader, Read};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oatf::CompiledAttack;
use oatf::EvaluationErrorKind;
use oatf::IndicatorResult;
use oatf::JsonlTraceReader;
use oatf::cel::CelEngine;
use oatf::default_eval_options;
use oatf::eval::CelEvaluator;
use oatf::eval::CompiledIndicator;
use oatf::evaluate_indicator;
use oatf::load;
use oatf::model::Indicator;
use oatf::model::ParseOptions;
use oatf::model::parse_bytes;
use oatf::model::parse_with;
use oatf::parse;
use oatf::trace::TraceErrorKind;
use oatf::validate;
use serde_json::{Map, Value, json};

/// A minimal valid document with `extra` appended under `attack:` (two-space indented lines).
fn document(extra: &str) -> String {
    format!(
        "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    state:\n      tools: []\n{extra}"
    )
}

/// How much slower than the nominal `limit` a loaded CI machine may be before [`within`] fails.
///
/// Each hostile-input test asserts the budget error that fired and which limit; the time bound is only
/// a backstop against the exponential blow-up the limits exist to prevent (seconds nominal, minutes
/// unbounded), so it is wide enough that a slow or busy machine never trips it.
const SLACK: u32 = 20;

/// Runs `f`, failing the test if it takes longer than `SLACK` times `limit`.
#[track_caller]
fn within<T>(limit: Duration, what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    let elapsed = started.elapsed();
    let ceiling = limit * SLACK;
    assert!(
        elapsed < ceiling,
        "{what} took {elapsed:?}, more than {ceiling:?} ({SLACK} × the nominal {limit:?})"
    );
    out
}

/// The messages of a failed parse, one per line.
#[track_caller]
fn parse_failure(input: &str) -> String {
    match parse(input) {
        Ok(_) => panic!("parsed:\n{}", &input[..input.len().min(300)]),
        Err(errors) => errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A value nested `depth` levels deep (`{"a": {"a": … "leaf" …}}`), built without recursion.
fn deep_object(depth: usize) -> Value {
    let mut value = json!("leaf");
    for _ in 0..depth {
        let mut map = Map::new();
        map.insert("a".to_owned(), value);
        value = Value::Object(map);
    }
    value
}

/// Drops a deeply nested value without recursion: serde_json's `Drop` recurses once per level and
/// would overflow the test thread's stack on 10,000 levels (that is the test's value, not the SDK's).
fn drop_deep(mut value: Value) {
    loop {
        value = match value {
            Value::Object(map) => match map.into_iter().next() {
                Some((_, inner)) => inner,
                None => return,
            },
            Value::Array(mut items) => match items.pop() {
                Some(inner) => inner,
                None => return,
            },
            _ => return,
        };
    }
}

#[test]
fn billion_laughs_is_rejected_before_expansion() {
    let mut bomb = String::from(
        "oatf: \"0.1\"\nattack:\n  x-l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..=9 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        bomb.push_str(&format!("  x-l{i}: &l{i} [{refs}]\n"));
    }
    let message = within(Duration::from_secs(2), "alias bomb", || {
        parse_failure(&bomb)
    });
    assert!(
        message.lines().all(|l| l.starts_with("V-020: ")),
        "{message}"
    );
    assert!(message.contains("anchor"), "{message}");
}

#[test]
fn ten_thousand_deep_yaml_is_rejected() {
    let flow = document(&format!(
        "  x-deep: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    ));
    let message = within(Duration::from_secs(5), "deep flow yaml", || {
        parse_failure(&flow)
    });
    assert!(
        message.contains("deeper than the limit of 128 levels"),
        "{message}"
    );

    // Block style, compact nested sequences: `- - - … x`.
    let block = document(&format!("  x-deep:\n    {}x\n", "- ".repeat(10_000)));
    let message = within(Duration::from_secs(10), "deep block yaml", || {
        parse_failure(&block)
    });
    assert!(
        message.contains("deeper than the limit of 128 levels"),
        "{message}"
    );
}

#[test]
fn ten_thousand_deep_json_message_is_evaluated_with_bounded_recursion() {
    let message = deep_object(10_000);
    let options = default_eval_options();
    let indicators: Vec<Value> = vec![
        json!({"id": "X-1", "target": "", "pattern": {"contains": "leaf"}}),
        json!({"id": "X-2", "target": "a.a.a", "pattern": {"exists": true}}),
        json!({"id": "X-3", "target": "", "pattern": {"regex": "le+af"}}),
        json!({"id": "X-4", "target": "a[*].a", "pattern": {"any_of": [{"a": 1}]}}),
        json!({"id": "X-5", "target": "", "expression": {"cel": "has(message.a)"}}),
        json!({"id": "X-6", "target": "", "semantic": {"intent": "anything"}}),
    ];
    for indicator in indicators {
        let indicator: Indicator = serde_json::from_value(indicator).expect("a valid indicator");
        let compiled = CompiledIndicator::new(&indicator, &options).expect("compiles");
        let verdict = within(Duration::from_secs(5), "deep message", || {
            compiled.evaluate(&message)
        });
        let convenience = evaluate_indicator(
            &indicator,
            &message,
            &oatf::EvalOptions::from_evaluators(options.cel_evaluator().cloned(), None),
        );
        assert_eq!(
            verdict.result, convenience.result,
            "{}",
            verdict.indicator_id
        );
        match verdict.indicator_id.as_str() {
            // Compact JSON stops at 512 levels (writes `null` below), so the leaf is not seen.
            "X-1" | "X-3" => assert_eq!(verdict.result, IndicatorResult::NotMatched),
            "X-2" => assert_eq!(verdict.result, IndicatorResult::Matched),
            "X-4" => assert_eq!(verdict.result, IndicatorResult::NotMatched),
            // CEL refuses messages deeper than 128 levels with a clear error.
            "X-5" => {
                assert_eq!(verdict.result, IndicatorResult::Error);
                let evidence = verdict.evidence.clone().unwrap_or_default();
                assert!(evidence.contains("deeper than 128 levels"), "{evidence}");
            }
            _ => assert_eq!(verdict.result, IndicatorResult::Skipped),
        }
    }
    drop_deep(message);
}

#[test]
fn ten_thousand_deep_json_text_is_refused_by_serde_json() {
    let text = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let error = serde_json::from_str::<Value>(&text)
        .err()
        .map(|e| e.to_string());
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.starts_with("recursion limit exceeded")),
        "{error:?}"
    );
}

#[test]
fn fifty_megabyte_document_is_rejected_before_reading() {
    let huge = document(&format!("  description: \"{}\"\n", "x".repeat(50 << 20)));
    let message = within(
        Duration::from_millis(500),
        "50 MB parse",
        || match parse_with(&huge, &ParseOptions::default()) {
            Ok(_) => panic!("a 50 MB document parsed"),
            Err(e) => e.first().map(ToString::to_string).unwrap_or_default(),
        },
    );
    assert_eq!(
        message,
        format!(
            "input is {} bytes, more than the limit of 10485760 bytes",
            huge.len()
        )
    );
    let bytes = within(Duration::from_millis(500), "50 MB parse_bytes", || {
        parse_bytes(huge.as_bytes()).err()
    });
    assert!(bytes.is_some_and(|e| e.first().is_some_and(|e| e.message() == message)));
    let loaded = within(Duration::from_millis(500), "50 MB load", || {
        load(&huge).err()
    });
    assert!(loaded.is_some_and(|e| {
        e.to_string()
            .contains("more than the limit of 10485760 bytes")
    }));
}

#[test]
fn huge_regex_is_rejected_at_compile_time() {
    let indicator: Indicator = serde_json::from_value(json!({
        "id": "R-1", "target": "", "pattern": {"regex": "(?:\\w{1000}){1000}"}
    }))
    .expect("indicator");
    let error = within(Duration::from_secs(5), "huge regex", || {
        CompiledIndicator::new(&indicator, &default_eval_options()).err()
    });
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("compiles to more than"), "{message}");
    // In a document it passes validation (V-013 checks RE2 syntax, not compiled size) and the
    // compiled attack reports the indicator as `error` with the same diagnostic.
    let yaml = document(
        "  indicators:\n    - target: \"\"\n      pattern: {regex: \"(?:\\\\w{1000}){1000}\"}\n",
    );
    let loaded = load(&yaml).expect("loads");
    let verdict =
        CompiledAttack::new(&loaded.document, &default_eval_options()).evaluate(&json!({}));
    let first = verdict.indicator_verdicts.first().expect("one verdict");
    assert_eq!(first.result, IndicatorResult::Error);
    assert!(
        first
            .evidence
            .as_deref()
            .is_some_and(|e| e.contains("compiles to more than")),
        "{first:?}"
    );
}

#[test]
fn catastrophic_backtracking_pattern_is_linear() {
    let indicator: Indicator = serde_json::from_value(json!({
        "id": "R-2", "target": "text", "pattern": {"regex": "(a+)+$"}
    }))
    .expect("indicator");
    let compiled = CompiledIndicator::new(&indicator, &default_eval_options()).expect("compiles");
    let text = format!("{}!", "a".repeat(100_000));
    let message = json!({ "text": text });
    let verdict = within(Duration::from_secs(2), "(a+)+$", || {
        compiled.evaluate(&message)
    });
    assert_eq!(verdict.result, IndicatorResult::NotMatched);
}

#[test]
fn deeply_nested_cel_is_rejected() {
    let engine = CelEngine::new();
    for expression in [
        format!("{}true{}", "(".repeat(5_000), ")".repeat(5_000)),
        format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000)),
        format!("1{}", " + 1".repeat(3_000)),
    ] {
        let error = within(Duration::from_secs(10), "nested cel", || {
            engine.compile(&expression, &[]).err()
        });
        let message = error.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("limit"),
            "{}…: {message}",
            &expression[..20]
        );
    }
    // 5,000 negations: the parser folds `!!` pairs, so this one compiles to a shallow tree and
    // evaluates at once.
    let program = engine
        .compile(&format!("{}true", "!".repeat(5_000)), &[])
        .expect("compiles");
    assert_eq!(program.evaluate(&json!({}), &[]), Ok(true));
}

#[test]
fn nested_cel_loops_over_large_lists_are_bounded() {
    // O(n²) work: the comprehension budget (1,000,000 iterations by default) stops it with an error
    // before the work exceeds the budget.
    let engine = CelEngine::new();
    let program = engine
        .compile("message.xs.all(x, message.xs.all(y, x == y || true))", &[])
        .expect("compiles");
    for n in [1_000usize, 10_000] {
        let message = json!({ "xs": (0..n).collect::<Vec<_>>() });
        let error = within(Duration::from_secs(15), "nested comprehension", || {
            program.evaluate(&message, &[]).err()
        });
        let error = error.expect("over the budget");
        assert_eq!(error.kind(), EvaluationErrorKind::CelError);
        assert_eq!(
            error.message(),
            "the expression needs more than the limit of 1000000 comprehension iterations (CelLimits::max_iterations)"
        );
    }
}

#[test]
fn invalid_utf8_is_located() {
    let mut bytes = document("  name: \"caf").into_bytes();
    let offset = bytes.len();
    bytes.extend_from_slice(b"\xff\xfe\"\n");
    let errors = parse_bytes(&bytes).expect_err("rejected");
    let error = errors.first().expect("one error");
    assert_eq!(
        error.message(),
        format!("the input is not valid utf-8: invalid byte 0xff at byte {offset}")
    );
    assert_eq!((error.line(), error.column()), (Some(7), Some(13)));
    assert_eq!(error.span(), Some(offset..offset + 1));
    // Valid bytes parse as the string does. (`oatf validate` on a file: `crates/oatf-cli/tests/it/input_limits.rs`.)
    assert!(parse_bytes(document("").as_bytes()).is_ok());
}

#[test]
fn nul_bytes_are_rejected_with_a_location() {
    let input = document("  name: \"a\0b\"\n");
    let message = parse_failure(&input);
    assert!(message.contains("line 7"), "{message}");
    let input = document("  name: a\0b\n");
    let message = parse_failure(&input);
    assert!(message.contains("line 7"), "{message}");
    // Escaped in a double-quoted scalar, NUL is a legal character of a string.
    let input = document("  name: \"a\\0b\"\n");
    let document = parse(&input).expect("escaped NUL parses");
    assert_eq!(
        document.attack.and_then(|a| a.name).as_deref(),
        Some("a\0b")
    );
}

#[test]
fn byte_order_mark_at_stream_start_is_accepted() {
    // YAML 1.2 §5.2: "A BOM must not appear inside a document", but may start the stream.
    let input = format!("\u{feff}{}", document(""));
    let parsed = parse(&input).expect("a leading BOM is accepted");
    assert!(validate(&parsed).is_valid());
    let mut bytes = vec![0xef, 0xbb, 0xbf];
    bytes.extend_from_slice(document("").as_bytes());
    assert!(parse_bytes(&bytes).is_ok());
    // Inside the document it is an error.
    let message = parse_failure(&document("  name: a\n  \u{feff}description: b\n"));
    assert!(
        message.to_lowercase().contains("bom") || message.contains("line 8"),
        "{message}"
    );
}

#[test]
fn keys_colliding_after_normalization_are_reported() {
    // An explicit id equal to the id another indicator gets generated (N-003: `{attack.id}-{NN}`).
    let yaml = "oatf: \"0.1\"\nattack:\n  id: ACME-001\n  execution:\n    mode: mcp_server\n    state: {tools: []}\n  indicators:\n    - id: ACME-001-02\n      target: \"\"\n      pattern: {contains: a}\n    - target: \"\"\n      pattern: {contains: b}\n";
    let result = validate(&parse(yaml).expect("parses"));
    assert!(
        result.errors().iter().any(|e| e.rule() == "V-010"
            && e.path() == "attack.indicators[1].id"
            && e.message()
                == "the indicator id generated for this indicator, `ACME-001-02`, is already used at `attack.indicators[0].id`"),
        "duplicate indicator ids after generation must be reported: {:?}",
        result.errors()
    );
    // An explicit phase name equal to a generated one (`phase-N`, decision 10).
    let yaml = "oatf: \"0.1\"\nattack:\n  execution:\n    mode: mcp_server\n    phases:\n      - state: {tools: []}\n        trigger: {event: tools/call}\n      - name: phase-1\n";
    let result = validate(&parse(yaml).expect("parses"));
    assert!(
        result.errors().iter().any(|e| e.rule() == "V-011"
            && e.path() == "attack.execution.phases[1].name"
            && e.message().contains("`attack.execution.phases[0]`")),
        "duplicate phase names after generation must be reported: {:?}",
        result.errors()
    );
}

#[test]
fn ten_thousand_indicators_load_validate_compile_and_evaluate() {
    let mut yaml = document("  indicators:\n");
    for i in 0..10_000 {
        yaml.push_str(&format!(
            "    - target: \"tools[*].description\"\n      pattern: {{contains: \"needle-{i}\"}}\n"
        ));
    }
    let loaded = within(Duration::from_secs(20), "load 10,000 indicators", || {
        load(&yaml)
    })
    .expect("loads");
    let compiled = within(Duration::from_secs(10), "compile", || {
        CompiledAttack::new(&loaded.document, &default_eval_options())
    });
    let message = json!({"tools": [{"description": "a needle-9999 here"}]});
    let verdict = within(Duration::from_secs(10), "evaluate", || {
        compiled.evaluate(&message)
    });
    let verdicts = &verdict.indicator_verdicts;
    assert_eq!(verdicts.len(), 10_000);
    let matched = verdicts
        .iter()
        .filter(|v| v.result == IndicatorResult::Matched)
        .count();
    // `needle-999` and `needle-99` and `needle-9` are substrings of `needle-9999` too.
    assert_eq!(matched, 4);
}

#[test]
fn gigabyte_trace_line_is_skipped_and_reading_goes_on() {
    // 1 GiB of `x` with no newline, produced lazily, then a valid message: never held in memory.
    // Unoptimized builds scan about 35 MB/s, so debug runs (CI) use 128 MiB, eight times the default
    // limit; `cargo test --release` runs the full gigabyte.
    let len: u64 = if cfg!(debug_assertions) {
        128 << 20
    } else {
        1 << 30
    };
    let huge = std::io::repeat(b'x').take(len);
    let rest = &b"\n{\"seq\": 2, \"direction\": \"incoming\", \"content\": {}}\n"[..];
    let input = BufReader::with_capacity(1 << 20, huge.chain(rest));
    let mut reader = JsonlTraceReader::new(input);
    let first = within(Duration::from_secs(20), "huge line", || reader.next());
    let first = first.expect("an item");
    let error = first.expect_err("too long");
    assert_eq!((error.line(), error.kind()), (1, TraceErrorKind::TooLong));
    let second = reader
        .next()
        .expect("an item")
        .expect("the next line reads");
    assert_eq!(second.seq, Some(2));
    assert!(reader.next().is_none());
}

#[test]
fn cel_engine_is_shareable_across_threads() {
    let engine: Arc<dyn CelEvaluator> = Arc::new(CelEngine::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            let engine = Arc::clone(&engine);
            scope.spawn(move || {
                let program = engine
                    .compile("size(message.xs) == 3", &[])
                    .expect("compiles");
                assert_eq!(program.evaluate(&json!({"xs": [1, 2, 3]}), &[]), Ok(true));
            });
        }
    });
}

#[test]
fn ten_thousand_deep_values_through_templates() {
    let value = deep_object(10_000);
    let extractors = std::collections::HashMap::from([("x".to_owned(), "y".to_owned())]);
    let (text, _) =
        oatf::runtime::interpolate_template("{{request.a.a.a}}", &extractors, Some(&value), None);
    // Compact JSON stops at 512 levels.
    assert!(
        text.starts_with(r#"{"a":{"a":"#) && text.contains("null"),
        "{}",
        &text[..40]
    );
    drop_deep(value);
}

#[test]
fn ten_thousand_deep_values_through_interpolate_value() {
    let value = deep_object(10_000);
    let extractors = std::collections::HashMap::from([("x".to_owned(), "y".to_owned())]);
    let (out, _) = oatf::runtime::interpolate_value(&value, &extractors, None, None);
    drop_deep(out);
    drop_deep(value);
}

#[test]
fn ten_thousand_deep_values_through_extractors() {
    let value = deep_object(10_000);
    let extract = |kind: &str, selector: &str| {
        let extractor: oatf::model::Extractor = serde_json::from_value(json!({
            "name": "x", "source": "request", "type": kind, "selector": selector,
        }))
        .expect("extractor");
        let compiled = oatf::runtime::CompiledExtractor::new(&extractor).expect("compiles");
        within(Duration::from_secs(5), selector, || {
            compiled.evaluate(&value, oatf::model::ExtractorSource::Request)
        })
    };
    // A descendant query on a message deeper than 128 levels captures nothing (serde_json_path
    // recurses per level); a plain path works, and compact JSON stops at 512 levels.
    assert_eq!(extract("json_path", "$..a"), None);
    let two = extract("json_path", "$.a.a").expect("found");
    assert!(two.starts_with(r#"{"a":{"a":"#) && two.contains("null"));
    assert_eq!(extract("regex", "(le+af)"), None);
    drop_deep(value);
}
