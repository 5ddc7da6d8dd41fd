//! Hostile and malformed input: nothing panics, limits hold, and the pipeline stays consistent.

use oatf_model::{ParseOptions, normalize, parse, parse_with, serialize, validate};

/// Runs the whole pipeline on `input`; it may fail, but must not panic, and a serialized document
/// must parse again.
#[track_caller]
fn check(input: &str) {
    if let Ok(document) = parse(input) {
        let _ = validate(&document);
        let yaml = serialize(&normalize(document));
        assert!(
            parse(&yaml).is_ok(),
            "serialized output does not parse:\n{yaml}"
        );
    }
}

#[test]
fn deep_nesting_is_rejected_without_overflow() {
    let flow = format!(
        "oatf: \"0.1\"\nattack:\n  x-deep: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(parse(&flow).is_err());
    let mut block = String::from("oatf: \"0.1\"\nattack:\n  x-deep:\n");
    for depth in 0..2_000 {
        block.push_str(&" ".repeat(4 + depth));
        block.push_str("k:\n");
    }
    assert!(parse(&block).is_err());
    let ok = format!("a: {}1{}\n", "[".repeat(100), "]".repeat(100));
    assert!(
        parse_with(&ok, &ParseOptions::default())
            .is_err_and(|e| e.iter().all(|e| e.rule().is_none()))
    );
}

#[test]
fn alias_bomb_is_rejected_before_expansion() {
    let mut bomb = String::from(
        "oatf: \"0.1\"\nattack:\n  x-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        bomb.push_str(&format!("  x-a{i}: &a{i} [{}]\n", vec![prev; 9].join(", ")));
    }
    let errors = match parse(&bomb) {
        Ok(_) => panic!("alias bomb parsed"),
        Err(e) => e,
    };
    assert!(errors.iter().all(|e| e.rule() == Some("V-020")));
    assert!(errors.len() < 200);
}

#[test]
fn size_limit() {
    let options = ParseOptions::default().max_input_bytes(64);
    assert!(
        parse_with(
            &format!(
                "oatf: \"0.1\"\nattack:\n  description: {}\n",
                "x".repeat(100)
            ),
            &options
        )
        .is_err()
    );
}

#[test]
fn mutated_documents_never_panic() {
    let seeds = [
        "oatf: \"0.1\"\nattack:\n  id: ACME-001\n  severity: {level: high, confidence: 5}\n  execution:\n    actors:\n      - name: a\n        mode: mcp_server\n        phases:\n          - name: p\n            state: {tools: [{name: t, responses: [{when: {a.b: {regex: \"x\"}}, content: \"{{a.c}}\"}]}]}\n            extractors: [{name: c, source: request, type: regex, selector: \"(.*)\"}]\n            on_enter: [{send: {method: m}}, {log: {message: \"{{c}}\"}}]\n            trigger: {event: tools/call, count: 2, match: {name: x}, after: 5s}\n          - {name: q}\n  indicators:\n    - {target: \"a[*].b\", pattern: {condition: {contains: x}}}\n    - {target: \"\", expression: {cel: \"true\", variables: {v: a.b}}}\n    - {target: \"\", semantic: {intent: i, threshold: 0.5, examples: {positive: [a]}}}\n  correlation: {logic: all}\n",
        "oatf: \"0.1\"\nattack:\n  execution:\n    mode: ag_ui_client\n    phases:\n      - state: {run_agent_input: {threadId: t, runId: r}}\n        trigger: {event: run_started}\n      - state: {}\n",
    ];
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let alphabet: &[u8] = b" :-[]{}&*!|>'\"#%@,?\n\t0123456789abcxyz.~";
    for seed in seeds {
        check(seed);
        for _ in 0..1500 {
            let mut bytes = seed.as_bytes().to_vec();
            for _ in 0..(1 + next() % 4) {
                let len = bytes.len().max(1);
                let at = usize::try_from(next() % len as u64).unwrap_or(0);
                let byte = alphabet[usize::try_from(next() % alphabet.len() as u64).unwrap_or(0)];
                match next() % 3 {
                    0 if at < bytes.len() => bytes[at] = byte,
                    1 => bytes.insert(at.min(bytes.len()), byte),
                    _ if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => {}
                }
            }
            if let Ok(text) = String::from_utf8(bytes) {
                check(&text);
            }
        }
    }
}
