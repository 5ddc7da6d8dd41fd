//! Every documented input limit (`docs/input-safety.md`), tested just under and just over its edge.
//! Limits whose default edge is expensive to reach in a debug build are tested at a configured value
//! with the same code path, and their default is asserted.

use oatf::JsonlTraceReader;
use oatf::cel::CelEngine;
use oatf::cel::CelLimits;
use oatf::eval::CelEvaluator;
use oatf::eval::RegexLimits;
use oatf::model::ParseOptions;
use oatf::model::parse_bytes_with;
use oatf::model::parse_with;
use oatf::parse;
use oatf::primitives::CompiledCondition;
use oatf::primitives::Condition;
use oatf::primitives::MAX_PATH_DEPTH;
use oatf::primitives::SimplePath;
use oatf::primitives::WildcardPath;
use oatf::primitives::deep_equal;
use oatf::runtime::MAX_INTERPOLATION_DEPTH;
use oatf::runtime::interpolate_value;
use oatf::trace::DEFAULT_MAX_LINE_LEN;
use oatf::trace::TraceErrorKind;
use serde_json::{Value, json};

/// The first parse error's message, or `ok`.
fn outcome(result: Result<oatf::Document, oatf::ParseErrors>) -> String {
    match result {
        Ok(_) => "ok".to_owned(),
        Err(errors) => errors
            .first()
            .map(|e| e.message().to_owned())
            .unwrap_or_default(),
    }
}

/// A document of exactly `len` bytes (padded with a string under `attack.description`).
fn document_of_len(len: usize) -> String {
    let head = "oatf: \"0.1\"\nattack:\n  description: \"";
    let tail = "\"\n";
    format!("{head}{}{tail}", "x".repeat(len - head.len() - tail.len()))
}

#[test]
fn input_size_default_10_mib() {
    let limit = ParseOptions::DEFAULT_MAX_INPUT_BYTES;
    assert_eq!(limit, 10 * 1024 * 1024);
    assert_eq!(outcome(parse(&document_of_len(limit))), "ok");
    assert_eq!(
        outcome(parse(&document_of_len(limit + 1))),
        "input is 10485761 bytes, more than the limit of 10485760 bytes"
    );
    let options = ParseOptions::default().max_input_bytes(100);
    assert_eq!(
        outcome(parse_bytes_with(document_of_len(100).as_bytes(), &options)),
        "ok"
    );
    assert_eq!(
        outcome(parse_bytes_with(document_of_len(101).as_bytes(), &options)),
        "input is 101 bytes, more than the limit of 100 bytes"
    );
}

/// A document whose deepest collection is at nesting level `depth` (the root mapping is level 1).
fn nested(depth: usize) -> String {
    // root (1) → attack (2) → x-deep flow sequences (3…).
    let seqs = depth - 2;
    format!(
        "oatf: \"0.1\"\nattack:\n  x-deep: {}1{}\n",
        "[".repeat(seqs),
        "]".repeat(seqs)
    )
}

#[test]
fn yaml_nesting_default_128() {
    assert_eq!(ParseOptions::DEFAULT_MAX_DEPTH, 128);
    assert_eq!(outcome(parse(&nested(128))), "ok");
    assert_eq!(
        outcome(parse(&nested(129))),
        "nesting is deeper than the limit of 128 levels"
    );
    let options = ParseOptions::default().max_depth(10);
    assert_eq!(outcome(parse_with(&nested(10), &options)), "ok");
    assert_eq!(
        outcome(parse_with(&nested(11), &options)),
        "nesting is deeper than the limit of 10 levels"
    );
}

/// A document of exactly `nodes` YAML nodes: 7 for the frame, the rest in a flow sequence.
fn with_nodes(nodes: usize) -> String {
    // root map, `oatf`, `"0.1"`, `attack`, attack map, `x-n`, the sequence: 7 nodes.
    format!(
        "oatf: \"0.1\"\nattack:\n  x-n: [{}]\n",
        vec!["0"; nodes - 7].join(",")
    )
}

#[test]
fn yaml_node_budget_default_one_million() {
    assert_eq!(ParseOptions::DEFAULT_MAX_NODES, 1_000_000);
    let options = ParseOptions::default().max_nodes(1_000);
    assert_eq!(outcome(parse_with(&with_nodes(1_000), &options)), "ok");
    assert_eq!(
        outcome(parse_with(&with_nodes(1_001), &options)),
        "the document has more than the limit of 1000 yaml nodes"
    );
    // The default, at its edge (about 2 MB of YAML).
    assert_eq!(
        outcome(parse(&with_nodes(1_000_001))),
        "the document has more than the limit of 1000000 yaml nodes"
    );
}

#[test]
fn anchors_and_aliases_are_not_allowed_at_all() {
    // V-020: the limit is zero anchors and zero aliases; it is not configurable (the format forbids
    // them), and aliases are never expanded.
    assert_eq!(outcome(parse("oatf: \"0.1\"\nattack:\n  x-a: [1]\n")), "ok");
    let errors = parse("oatf: \"0.1\"\nattack:\n  x-a: &a [1]\n").expect_err("anchor");
    assert!(errors.iter().all(|e| e.rule() == Some("V-020")));
    let errors = parse("oatf: \"0.1\"\nattack:\n  x-a: *a\n").expect_err("alias");
    assert!(errors.iter().any(|e| e.rule() == Some("V-020")));
}

#[test]
fn path_depth_64_segments() {
    assert_eq!(MAX_PATH_DEPTH, 64);
    let mut value = json!(1);
    for _ in 0..70 {
        value = json!({ "a": value });
    }
    let path = |n: usize| vec!["a"; n].join(".");
    assert!(SimplePath::parse(&path(64)).is_ok());
    assert!(SimplePath::parse(&path(64)).is_ok_and(|p| p.resolve(&value).is_some()));
    assert!(SimplePath::parse(&path(65)).is_err());
    assert_eq!(
        oatf::primitives::resolve_simple_path(&path(65), &value),
        None
    );
    assert!(WildcardPath::parse(&path(64)).is_ok());
    assert!(WildcardPath::parse(&path(65)).is_err());
    assert!(oatf::primitives::resolve_wildcard_path(&path(65), &value).is_empty());
}

#[test]
fn regex_limits() {
    let limits = RegexLimits::default();
    assert_eq!(
        (
            limits.size_limit,
            limits.dfa_size_limit,
            limits.nest_limit,
            limits.max_input_len
        ),
        (1 << 20, 2 << 20, 100, 16 << 20)
    );
    // Syntax nesting: 100 groups compile, 101 do not.
    let groups = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    assert!(limits.compile(&groups(100)).is_ok());
    assert!(limits.compile(&groups(101)).is_err());
    // Compiled size: find the largest `\w{n}` that fits in 1 MiB; one more repetition does not.
    let fits = |n: usize| limits.compile(&format!("\\w{{{n}}}")).is_ok();
    let (mut low, mut high) = (1usize, 20_000usize);
    assert!(fits(low) && !fits(high));
    while high - low > 1 {
        let mid = (low + high) / 2;
        if fits(mid) { low = mid } else { high = mid }
    }
    let error = limits
        .compile(&format!("\\w{{{high}}}"))
        .err()
        .map(|e| e.message().to_owned());
    assert!(error.is_some_and(|e| e.contains("compiles to more than 1048576 bytes")));
    // Matched text: 16 MiB is matched, one byte more is an error.
    let condition =
        CompiledCondition::new(&Condition::from_value(json!({"regex": "y$"})).expect("condition"))
            .expect("compiles");
    let text = |n: usize| Value::String(format!("{}y", "x".repeat(n - 1)));
    assert_eq!(condition.evaluate(&text(16 << 20)), Ok(true));
    assert!(condition.evaluate(&text((16 << 20) + 1)).is_err());
}

/// The first error message of compiling `expression` with `engine`, or `ok`.
fn compile(engine: &CelEngine, expression: &str) -> String {
    match engine.compile(expression, &[]) {
        Ok(_) => "ok".to_owned(),
        Err(e) => e.message().to_owned(),
    }
}

#[test]
fn cel_expression_size_16_kib() {
    let engine = CelEngine::new();
    assert_eq!(engine.limits().max_expression_len, 16 * 1024);
    let of_len = |n: usize| format!("'{}' != ''", "a".repeat(n - 8));
    assert_eq!(of_len(16 * 1024).len(), 16 * 1024);
    assert_eq!(compile(&engine, &of_len(16 * 1024)), "ok");
    assert_eq!(
        compile(&engine, &of_len(16 * 1024 + 1)),
        "expression of 16385 bytes exceeds the limit of 16384 bytes"
    );
}

#[test]
fn cel_bracket_nesting_64() {
    let engine = CelEngine::new();
    assert_eq!(engine.limits().max_nesting, 64);
    let parens = |n: usize| format!("{}true{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(compile(&engine, &parens(64)), "ok");
    assert_eq!(
        compile(&engine, &parens(65)),
        "brackets nest deeper than the limit of 64 at byte 64"
    );
}

#[test]
fn cel_ast_depth_32() {
    let engine = CelEngine::new();
    assert_eq!(engine.limits().max_ast_depth, 32);
    // `[[…[1]…]]`: each list is one level of the syntax tree, the literal one more.
    let lists = |n: usize| format!("size({}1{}) > 0", "[".repeat(n), "]".repeat(n));
    // size(...) > 0: `>` (1) → size (2) → lists (3…) → literal.
    assert_eq!(compile(&engine, &lists(29)), "ok");
    assert_eq!(
        compile(&engine, &lists(30)),
        "expression nests 33 levels deep, more than the limit of 32"
    );
}

#[test]
fn cel_iteration_budget_one_million() {
    assert_eq!(CelLimits::default().max_iterations, 1_000_000);
    let mut limits = CelLimits::default();
    limits.max_iterations = 1_000;
    let engine = CelEngine::with_limits(limits);
    let program = engine
        .compile("message.xs.all(x, x >= 0)", &[])
        .expect("compiles");
    let xs = |n: usize| json!({ "xs": (0..n).collect::<Vec<_>>() });
    assert_eq!(program.evaluate(&xs(1_000), &[]), Ok(true));
    assert_eq!(
        program
            .evaluate(&xs(1_001), &[])
            .map_err(|e| e.message().to_owned()),
        Err("the expression needs more than the limit of 1000 comprehension iterations (CelLimits::max_iterations)".to_owned())
    );
}

/// `{"a": {"a": … 1 …}}` with `depth` objects.
fn deep(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = json!({ "a": value });
    }
    value
}

#[test]
fn cel_message_depth_128() {
    let engine = CelEngine::new();
    let program = engine.compile("true", &[]).expect("compiles");
    // The message itself is level 0; 128 nested objects put the leaf at level 128.
    assert_eq!(program.evaluate(&deep(128), &[]), Ok(true));
    assert_eq!(
        program
            .evaluate(&deep(129), &[])
            .map_err(|e| e.message().to_owned()),
        Err("the message nests deeper than 128 levels".to_owned())
    );
}

#[test]
fn interpolation_depth_128() {
    assert_eq!(MAX_INTERPOLATION_DEPTH, 128);
    let extractors = std::collections::HashMap::from([("x".to_owned(), "done".to_owned())]);
    let in_arrays = |n: usize| {
        let mut value = json!("{{x}}");
        for _ in 0..n {
            value = json!([value]);
        }
        value
    };
    let leaf = |mut value: &Value| {
        while let Value::Array(items) = value {
            value = &items[0];
        }
        value.clone()
    };
    let (out, _) = interpolate_value(&in_arrays(128), &extractors, None, None);
    assert_eq!(leaf(&out), json!("done"));
    let (out, _) = interpolate_value(&in_arrays(129), &extractors, None, None);
    assert_eq!(leaf(&out), json!("{{x}}"));
}

#[test]
fn compact_json_and_deep_equality_512() {
    // The compact JSON a string operator sees of a value writes what is nested deeper than 512
    // levels as `null`.
    let contains = |needle: &str| {
        CompiledCondition::new(&Condition::from_value(json!({ "contains": needle })).unwrap())
            .unwrap()
    };
    assert!(contains(":1}").evaluate(&deep(512)).unwrap());
    assert!(!contains(":null}").evaluate(&deep(512)).unwrap());
    assert!(contains(":null}").evaluate(&deep(513)).unwrap());
    assert!(!contains(":1}").evaluate(&deep(513)).unwrap());
    // Deep equality gives up (unequal) below 512 levels.
    assert!(deep_equal(&deep(512), &deep(512)));
    assert!(!deep_equal(&deep(513), &deep(513)));
}

#[test]
fn trace_line_length_default_16_mib() {
    assert_eq!(DEFAULT_MAX_LINE_LEN, 16 * 1024 * 1024);
    let line = |len: usize| {
        let head = "{\"seq\":1,\"direction\":\"incoming\",\"content\":\"";
        let tail = "\"}";
        format!(
            "{head}{}{tail}\n",
            "x".repeat(len - head.len() - tail.len())
        )
    };
    let first = |input: String, max: Option<usize>| {
        let reader = JsonlTraceReader::new(std::io::BufReader::new(std::io::Cursor::new(input)));
        let mut reader = match max {
            Some(max) => reader.with_max_line_len(max),
            None => reader,
        };
        reader
            .next()
            .map(|item| item.map(|m| m.seq).map_err(|e| e.kind()))
    };
    assert_eq!(first(line(DEFAULT_MAX_LINE_LEN), None), Some(Ok(Some(1))));
    assert_eq!(
        first(line(DEFAULT_MAX_LINE_LEN + 1), None),
        Some(Err(TraceErrorKind::TooLong))
    );
    assert_eq!(first(line(100), Some(100)), Some(Ok(Some(1))));
    assert_eq!(
        first(line(101), Some(100)),
        Some(Err(TraceErrorKind::TooLong))
    );
}

#[test]
fn descendant_jsonpath_depth_128() {
    assert_eq!(oatf::runtime::MAX_DESCENDANT_QUERY_DEPTH, 128);
    let extractor: oatf::model::Extractor = serde_json::from_value(json!({
        "name": "x", "source": "request", "type": "json_path", "selector": "$..leaf",
    }))
    .expect("extractor");
    let compiled = oatf::runtime::CompiledExtractor::new(&extractor).expect("compiles");
    // `deep(n)` has its leaf `1` at level n; wrap it so that `leaf` names it.
    let message = |n: usize| {
        let mut value = json!({"leaf": 1});
        for _ in 0..n - 1 {
            value = json!({ "a": value });
        }
        value
    };
    let extract = |v: &Value| compiled.evaluate(v, oatf::model::ExtractorSource::Request);
    assert_eq!(extract(&message(128)).as_deref(), Some("1"));
    assert_eq!(extract(&message(129)), None);
}
