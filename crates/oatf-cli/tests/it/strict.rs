//! A misspelt actor or target never gives a silent "not exploited" (decisions D-69 and D-70). The evidence and warnings say what happened, and `--strict` fails the run with
//! exit code 6 in every format and in campaigns.

use crate::support::{TempDir, examples, oatf};
use serde_json::Value;

fn document(target: &str) -> String {
    format!(
        "oatf: \"0.1\"\nattack:\n  id: T-001\n  execution:\n    mode: mcp_server\n    state: {{tools: [{{name: fetch, description: Fetches a page}}]}}\n  indicators:\n    - {{surface: tools/call, direction: request, target: {target}, pattern: {{contains: evil.example}}}}\n"
    )
}

fn trace(actor: &str, lines: usize, url: &str) -> String {
    (1..=lines)
        .map(|seq| {
            format!(
                "{{\"seq\": {seq}, \"actor\": \"{actor}\", \"direction\": \"incoming\", \"method\": \"tools/call\", \"content\": {{\"name\": \"fetch\", \"arguments\": {{\"url\": \"{url}\"}}}}}}\n"
            )
        })
        .collect()
}

/// A directory with the right document, one with a misspelt target, and traces: from a misspelt
/// actor, clean (`default`, a harmless URL) and exploited.
fn setup(name: &str) -> TempDir {
    let dir = TempDir::new("strict", name);
    dir.write("doc.yaml", &document("arguments.url"))
        .write("ulr.yaml", &document("arguments.ulr"))
        .write(
            "actor.jsonl",
            &trace("docs-search", 12, "https://evil.example/x"),
        )
        .write(
            "traces/clean.jsonl",
            &trace("default", 3, "https://docs.example"),
        )
        .write(
            "exploited.jsonl",
            &trace("default", 2, "https://evil.example/y"),
        );
    dir
}

const ACTOR_EVIDENCE: &str = "no applicable message: no message from actor `default`; the trace has `docs-search` (12 messages)";
const ACTOR_WARNING: &str = "actor `default` has no message in the trace";
const TARGET_WARNING: &str = "target `arguments.ulr` did not resolve in any of the 3 messages it applied to, so its condition was never tested; did you mean `arguments.url`?";

/// Runs `args` without and with `--strict` in every single-run format and checks the codes
/// (0, then 6) and that each report says `needle`.
#[track_caller]
fn check_every_format(dir: &TempDir, args: &[&str], needle: &str) {
    for format in ["human", "json", "sarif", "junit"] {
        let mut plain = args.to_vec();
        plain.extend(["--format", format]);
        let (code, out, err) = oatf(dir.path(), &plain);
        assert_eq!(code, 0, "{format} without --strict: {out}{err}");
        assert!(out.contains(needle), "{format}: {out}");
        plain.push("--strict");
        let (code, out, err) = oatf(dir.path(), &plain);
        assert_eq!(code, 6, "{format} with --strict: {out}{err}");
        assert!(out.contains(needle), "{format} --strict: {out}");
        match format {
            "human" => assert!(out.contains("error: --strict"), "{out}"),
            "json" => {
                let report: Value = serde_json::from_str(&out).unwrap();
                assert_eq!(report["exit_code"], 6);
                assert_eq!(report["result"], "not_exploited");
            }
            "sarif" => {
                let report: Value = serde_json::from_str(&out).unwrap();
                let invocation = &report["runs"][0]["invocations"][0];
                assert_eq!(invocation["executionSuccessful"], false, "{out}");
                assert!(
                    invocation["toolExecutionNotifications"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|n| n["level"] == "error"
                            && n["message"]["text"].as_str().unwrap().contains(needle)),
                    "{out}"
                );
            }
            _ => {
                assert!(
                    out.contains(r#"<property name="exit_code" value="6"/>"#),
                    "{out}"
                );
                assert!(out.contains(r#"name="warnings">"#), "{out}");
                assert!(out.contains(r#"<failure type="strict""#), "{out}");
            }
        }
    }
}

#[test]
fn a_misspelt_actor_explains_the_evidence_and_fails_under_strict() {
    let dir = setup("actor");
    let (code, out, _) = oatf(dir.path(), &["evaluate", "doc.yaml", "actor.jsonl"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(ACTOR_EVIDENCE), "{out}");
    assert!(out.contains(&format!("warning: {ACTOR_WARNING}")), "{out}");
    check_every_format(
        &dir,
        &["evaluate", "doc.yaml", "actor.jsonl"],
        ACTOR_WARNING,
    );
    let (_, out, _) = oatf(
        dir.path(),
        &["evaluate", "doc.yaml", "actor.jsonl", "--format", "json"],
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["indicator_verdicts"][0]["evidence"], ACTOR_EVIDENCE);
    assert_eq!(report["warnings"][0]["kind"], "actor_without_messages");
    assert_eq!(report["warnings"][0]["actor"], "default");
    assert_eq!(report["exit_code"], 0);
}

#[test]
fn a_misspelt_target_is_a_warning_with_did_you_mean_and_fails_under_strict() {
    let dir = setup("target");
    let args = ["evaluate", "ulr.yaml", "traces/clean.jsonl"];
    check_every_format(&dir, &args, TARGET_WARNING);
    let (_, out, _) = oatf(dir.path(), &[&args[..], &["--format", "json"]].concat());
    let report: Value = serde_json::from_str(&out).unwrap();
    let warning = &report["warnings"][0];
    assert_eq!(warning["kind"], "unresolved_target");
    assert_eq!(warning["indicator_id"], "T-001-01");
    assert_eq!(warning["path"], "arguments.ulr");
    assert_eq!(warning["suggestion"], "arguments.url");
    // The right target on the same trace: no warning, and --strict passes.
    let (code, out, _) = oatf(
        dir.path(),
        &["evaluate", "doc.yaml", "traces/clean.jsonl", "--strict"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("warning"), "{out}");
}

/// Warnings do not hide an exploit: a verdict that already fails keeps its code.
#[test]
fn strict_keeps_the_code_of_a_failing_verdict() {
    let dir = setup("exploited");
    let (code, out, _) = oatf(
        dir.path(),
        &["evaluate", "doc.yaml", "exploited.jsonl", "--strict"],
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn campaigns_fail_under_strict_in_every_format() {
    let dir = setup("campaign");
    dir.write(
        "manifest.yaml",
        "runs:\n  - {document: ulr.yaml, trace: traces/clean.jsonl}\n  - {document: doc.yaml, trace: traces/clean.jsonl}\n",
    );
    for args in [
        &["evaluate", "doc.yaml", "actor.jsonl", "traces/clean.jsonl"][..],
        &["evaluate", "ulr.yaml", "traces"][..],
        &["evaluate", "--manifest", "manifest.yaml"][..],
    ] {
        for format in ["human", "json", "sarif", "junit", "csv"] {
            let mut run = args.to_vec();
            run.extend(["--format", format]);
            let (code, out, err) = oatf(dir.path(), &run);
            assert_eq!(code, 0, "{run:?}: {out}{err}");
            run.push("--strict");
            let (code, out, err) = oatf(dir.path(), &run);
            assert_eq!(code, 6, "{run:?}: {out}{err}");
            match format {
                "json" => {
                    let report: Value = serde_json::from_str(&out).unwrap();
                    assert_eq!(report["exit_code"], 6, "{out}");
                }
                "csv" => assert!(out.contains(",6,"), "{out}"),
                "junit" => assert!(out.contains(r#"<failure type="strict""#), "{out}"),
                "sarif" => assert!(out.contains("\"executionSuccessful\": false"), "{out}"),
                _ => assert!(out.contains("failed by --strict"), "{out}"),
            }
        }
    }
    // An exploited run is worse than a run failed by --strict.
    let (code, out, _) = oatf(
        dir.path(),
        &[
            "evaluate",
            "doc.yaml",
            "actor.jsonl",
            "exploited.jsonl",
            "--strict",
        ],
    );
    assert_eq!(code, 1, "{out}");
}

/// `--strict` does not fail resistance: every shipped example trace exits as without it (an
/// optional field the agent did not fill is not a misspelt target, D-70).
#[test]
fn the_examples_exit_the_same_under_strict() {
    let examples = examples();
    let mut traces: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    traces.sort();
    assert!(traces.len() >= 8, "{traces:?}");
    for trace in traces {
        let name = trace.file_name().unwrap().to_str().unwrap().to_owned();
        let document = examples.join(format!("{}.yaml", name.split('.').next().unwrap()));
        let (document, trace) = (document.to_str().unwrap(), trace.to_str().unwrap());
        let (plain, out, _) = oatf(&examples, &["evaluate", document, trace]);
        let (strict, strict_out, _) = oatf(&examples, &["evaluate", document, trace, "--strict"]);
        assert_eq!(plain, strict, "{name}: {out}\n{strict_out}");
        assert!(!out.contains("warning"), "{name}: {out}");
    }
}
