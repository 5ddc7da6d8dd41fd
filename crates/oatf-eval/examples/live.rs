//! A live checker on `oatf-eval` alone: an OATF document as JSON, trace messages as JSON Lines on
//! standard input, one alert line per indicator the moment a message first matches it.
//!
//! ```sh
//! cargo run -p oatf-eval --example live -- attack.json < trace.jsonl
//! ```
//!
//! `oatf-eval` has no YAML parser: convert a YAML document first (for example
//! `python3 -c 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)' < a.yaml`).
//! Exit status: 0 when the run ends `not_exploited`, 1 `exploited` or `partial`, 2 `error`, 3 when
//! the document is invalid (its errors are printed with their paths), 4 when the input cannot be read.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line example"
)]

use std::io::Write;
use std::process::ExitCode;

use oatf_eval::{
    AttackResult, CompiledAttack, Document, EvalOptions, JsonlTraceReader, TraceEvaluator,
    safe_text::escape,
};

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: live ATTACK.json < TRACE.jsonl");
        return ExitCode::from(4);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("cannot read {}: {error}", path.to_string_lossy());
            return ExitCode::from(4);
        }
    };
    // Validation with the rules of `oatf validate`: a typo never evaluates silently.
    let document = match Document::from_json_str(&text) {
        Ok(document) => document,
        Err(errors) => {
            for error in &errors {
                eprintln!("error: {}", escape(&error.to_string()));
            }
            return ExitCode::from(3);
        }
    };
    let attack = match CompiledAttack::try_new(&document, &EvalOptions::new()) {
        Ok(attack) => attack,
        Err(error) => {
            // A headline, then one line per problem (rule, message, path).
            for line in error.to_string().lines() {
                eprintln!("error: {}", escape(line.trim_start()));
            }
            return ExitCode::from(3);
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut evaluator = TraceEvaluator::new(&attack);
    for line in JsonlTraceReader::new(stdin.lock()) {
        let message = match line {
            Ok(message) => message,
            Err(error) => {
                eprintln!("skipped: {}", escape(&error.to_string()));
                continue;
            }
        };
        // Filters by protocol, surface, actor and direction (format §6); cheap when nothing matched.
        for hit in evaluator.push(&message) {
            let tier = hit.tier().map_or(String::new(), |t| format!("[{t}] "));
            let evidence = hit.evidence_escaped().unwrap_or_default();
            // A closed pipe ends the run quietly.
            if writeln!(out, "ALERT {} {tier}{evidence}", escape(hit.indicator_id())).is_err() {
                return ExitCode::SUCCESS;
            }
        }
        if out.flush().is_err() {
            return ExitCode::SUCCESS;
        }
    }
    let verdict = evaluator.finish();
    for warning in &verdict.warnings {
        eprintln!("warning: {}", escape(&warning.message));
    }
    let _ = writeln!(out, "verdict: {}", verdict.result);
    ExitCode::from(match verdict.result {
        AttackResult::NotExploited => 0,
        AttackResult::Exploited | AttackResult::Partial => 1,
        _ => 2,
    })
}
