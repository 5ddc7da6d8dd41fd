//! Times hostile CEL expressions and traces at the default budgets (docs/input-safety.md, "Time
//! bounds of the CEL budgets"; D-127):
//!
//! ```sh
//! cargo build --release -p oatf-bench --example hostile_cel
//! target/release/examples/hostile_cel            # every case, one evaluation each
//! target/release/examples/hostile_cel trace 2000 # the 2,000-line trace of distinct rejected patterns
//! ```
//!
//! Each line gives the case, the outcome (the error names the budget that stopped it) and the
//! process's CPU time (user + system, from `/proc/self/stat`, so a loaded machine does not
//! inflate it) next to the wall time.
#![allow(
    clippy::print_stdout,
    reason = "prints each case's outcome and time, the purpose of the example"
)]
#![allow(missing_docs, reason = "an example binary")]

use std::time::{Duration, Instant};

use oatf::cel::CelEngine;
use oatf::eval::CelEvaluator;
use serde_json::{Value, json};

/// The CPU time of this process so far, the CEL parser's thread included (Linux; zero elsewhere).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with the last `)`): utime is the 12th, stime the 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // Clock ticks are 1/100 s on Linux.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn time<T>(what: &str, f: impl FnOnce() -> T)
where
    T: std::fmt::Debug,
{
    let (wall, cpu0) = (Instant::now(), cpu());
    let out = f();
    let (wall, cpu) = (wall.elapsed(), cpu() - cpu0);
    let shown = format!("{out:?}");
    let shown: String = shown.chars().take(150).collect();
    println!("{what:<38} cpu {cpu:>9.2?}  wall {wall:>9.2?}  {shown}");
}

fn eval(engine: &CelEngine, expression: &str, message: &Value) -> Result<bool, String> {
    engine
        .compile(expression, &[])
        .and_then(|p| p.evaluate(message, &[]))
        .map_err(|e| e.to_string())
}

fn nested(depth: usize, body: &str, macro_name: &str) -> String {
    let vars = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    let mut expression = body.to_owned();
    for var in vars[..depth].iter().rev() {
        expression = format!("message.xs.{macro_name}({var}, {expression})");
    }
    expression
}

/// A balanced tree of `&&` over `leaves`, `levels` deep (2^levels leaves).
fn balanced(levels: u32, leaves: &[&str]) -> String {
    if levels == 0 {
        return leaves[usize::try_from(levels).unwrap_or(0) % leaves.len()].to_owned();
    }
    let half = balanced(levels - 1, leaves);
    let other = balanced(
        levels - 1,
        &leaves[1..]
            .iter()
            .chain(&leaves[..1])
            .copied()
            .collect::<Vec<_>>(),
    );
    format!("({half}&&{other})")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("trace") {
        let n: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(2_000);
        return trace(n);
    }
    let engine = CelEngine::new();
    let xs = |n: usize| json!({ "xs": (0..n).collect::<Vec<_>>() });
    // Iterations: five nested loops over 100 elements, on the direct path and in the interpreter.
    let sum = "a + b + c + d + e >= 0";
    time("iterations, direct path", || {
        eval(&engine, &nested(5, sum, "all"), &xs(100))
    });
    time("iterations, interpreter", || {
        eval(&engine, &nested(5, sum, "exists_one"), &xs(100))
    });
    time("iterations, interpreter, map", || {
        eval(
            &engine,
            &format!("size({}) > 0", nested(3, "a + b + c", "map")),
            &xs(100),
        )
    });
    time("iterations, interpreter, strings", || {
        eval(
            &engine,
            &nested(3, "string(a) + string(b) + string(c) != 'x'", "exists_one"),
            &xs(100),
        )
    });
    // A body as large as an expression may be: 2,048 unmetered `&&` leaves per iteration.
    let big_body = balanced(11, &["a", "b", "c"]);
    let bools = json!({ "xs": vec![true; 100] });
    time("steps, large body, direct path", || {
        eval(&engine, &nested(3, &big_body, "all"), &bools)
    });
    time("steps, large body, interpreter", || {
        eval(&engine, &nested(3, &big_body, "exists_one"), &bools)
    });
    // Ten nested loops over 4 elements, a body of 512 references to the outermost variable.
    let deep_body = balanced(9, &["a"]);
    let four = json!({ "xs": vec![true; 4] });
    time("steps, 10 nested loops, direct path", || {
        eval(&engine, &nested(10, &deep_body, "all"), &four)
    });
    time("steps, 10 nested loops, interpreter", || {
        eval(&engine, &nested(10, &deep_body, "exists_one"), &four)
    });
    // Copies (D-330): each step of a `map` copies a list of the message into the result; each
    // loop over a list of large lists binds a copy of each.
    time("copies, map appends a list", || {
        eval(
            &engine,
            "size(message.xs.map(x, message.xs)) > 0",
            &xs(10_000),
        )
    });
    let large = json!({"xs": (0..1_000).collect::<Vec<_>>(), "ys": vec![(0..50_000).collect::<Vec<_>>(); 2]});
    time("copies, loops bind large lists", || {
        eval(
            &engine,
            "message.xs.all(x, message.ys.all(y, true))",
            &large,
        )
    });
    // After the cost limit (D-350, D-351): an `all` goes on after an error in its body, so every
    // later iteration measures or copies a large value again before its charge is refused.
    let after = json!({
        "xs": (0..100_000).collect::<Vec<_>>(),
        "big": (0..100_000).map(|i| json!([i, [i, "abc"]])).collect::<Vec<_>>(),
    });
    time("after the limit, comparing", || {
        eval(
            &engine,
            "message.xs.all(x, message.big == message.big)",
            &after,
        )
    });
    time("after the limit, list literal", || {
        eval(
            &engine,
            "message.xs.all(x, size([message.big]) > 0)",
            &after,
        )
    });
    time("after the limit, optional", || {
        eval(
            &engine,
            "message.xs.all(x, message.?big.hasValue())",
            &after,
        )
    });
    // Cost: scanning large strings in a loop.
    let big = json!({"xs": (0..1_000).collect::<Vec<_>>(), "s": "a".repeat(10 << 20), "t": "ab"});
    time("cost, contains", || {
        eval(
            &engine,
            "message.xs.all(x, !message.s.contains(message.t))",
            &big,
        )
    });
    time("cost, size", || {
        eval(&engine, "message.xs.all(x, size(message.s) > 0)", &big)
    });
    time("cost, matches scan", || {
        eval(&engine, "message.xs.all(x, !message.s.matches('b'))", &big)
    });
    let text: String = (0..(1 << 20))
        .map(|i: u32| {
            char::from(b'a' + u8::try_from((i.wrapping_mul(2_654_435_761) >> 7) % 26).unwrap_or(0))
        })
        .collect();
    let random = json!({"xs": (0..1_000).collect::<Vec<_>>(), "s": text});
    time("cost, matches DFA thrash", || {
        eval(
            &engine,
            r"message.xs.all(x, !message.s.matches('[a-q][^u-z]{13}x\\d'))",
            &random,
        )
    });
    time("cost, matches unicode thrash", || {
        eval(
            &engine,
            r"message.xs.all(x, !message.s.matches('\\w{50}\\d'))",
            &random,
        )
    });
    // Produced bytes: concatenation, replace, split, join.
    let one_mb = json!({"xs": (0..1_000).collect::<Vec<_>>(), "s": "ab".repeat(1 << 19)});
    time("produced, concatenation", || {
        eval(
            &engine,
            "message.xs.all(x, size(message.s + message.s) > 0)",
            &one_mb,
        )
    });
    time("produced, replace", || {
        eval(
            &engine,
            "message.xs.all(x, size(message.s.replace('a', 'xyz')) > 0)",
            &one_mb,
        )
    });
    time("produced, split", || {
        eval(
            &engine,
            "message.xs.all(x, size(message.s.split('a')) > 0)",
            &one_mb,
        )
    });
    time("produced, split + join", || {
        eval(
            &engine,
            "message.xs.all(x, size(message.s.split('').join('-')) > 0)",
            &one_mb,
        )
    });
    // `matches` compiles: 64 distinct patterns near the size limit, on a fresh engine each time.
    for (what, from) in [("compiles, accepted", 1_100), ("compiles, rejected", 1_500)] {
        let patterns: Vec<String> = (0..64).map(|i| format!(r"\w{{{}}}", from + i)).collect();
        let message = json!({ "ps": patterns });
        time(what, || {
            eval(
                &CelEngine::new(),
                "message.ps.all(p, !'x'.matches(p))",
                &message,
            )
        });
    }
    let patterns: Vec<String> = (0..64)
        .map(|i| format!(r"(?i)[\w\W]{{{}}}", 100 + i))
        .collect();
    time("compiles, case-folded classes", || {
        eval(
            &CelEngine::new(),
            "message.ps.all(p, !'x'.matches(p))",
            &json!({ "ps": patterns }),
        )
    });
    // Depth and size: the longest expressions accepted, parsed and evaluated.
    let wide = format!("[{}].size() > 0", vec!["1"; 8_000].join(","));
    time("size, 16 KiB list literal", || {
        eval(&engine, &wide, &json!({}))
    });
    let mut deep = String::from("message.a");
    for _ in 0..30 {
        deep = format!("({deep} + 1)");
    }
    time("depth, 30 levels", || {
        eval(&engine, &format!("{deep} > 0"), &json!({"a": 1}))
    });
    let mut message = json!(1);
    for _ in 0..127 {
        message = json!([message]);
    }
    time("depth, 127-level message", || {
        eval(&engine, "size(message) > 0", &message)
    });
}

/// The trace of the issue: `n` messages, each giving `matches` a different pattern rejected as
/// compiling to more than 1 MiB, evaluated by one compiled attack.
fn trace(n: usize) {
    let yaml = "oatf: \"0.1\"\nattack:\n  id: OATF-900\n  execution: {mode: mcp_server, state: {tools: [{name: read, description: Reads}]}}\n  indicators:\n    - {surface: tools/call, target: \"\", expression: {cel: \"message.s.matches(message.p)\"}}\n";
    let loaded = oatf::load(yaml).expect("loads");
    let attack = oatf::CompiledAttack::new(&loaded.document, &oatf::default_eval_options());
    let lines: String = (0..n)
        .map(|i| {
            let p = format!("\\w{{{}}}", 1_500 + i);
            json!({"direction": "incoming", "method": "tools/call", "content": {"s": "x", "p": p}})
                .to_string()
                + "\n"
        })
        .collect();
    let messages: Vec<_> = oatf::JsonlTraceReader::new(lines.as_bytes())
        .collect::<Result<_, _>>()
        .expect("reads");
    time(&format!("trace, {n} rejected patterns"), || {
        oatf::evaluate_trace(&attack, &messages).result
    });
    time(&format!("trace, {n} again"), || {
        oatf::evaluate_trace(&attack, &messages).result
    });
}
