//! `oatf validate` reports every problem of a document in one run: parse errors in the
//! author's words, the V- findings of the parts that parsed, each at its line and column; and a trace
//! given by mistake is recognised.

use crate::support::{TempDir, oatf};

/// Four mistakes of four kinds: an unknown key (line 3), a type mismatch (line 6), a missing required
/// field (the second actor's `mode`, line 13) and a V- rule (V-048, line 17).
pub(crate) const FOUR_MISTAKES: &str = r#"oatf: "0.1"
attack:
  descripton: Tool poisoning
  severity:
    level: high
    confidence: "high"
  execution:
    actors:
      - name: server
        mode: mcp_server
        phases:
          - state: {tools: []}
      - name: client
        phases:
          - state: {}
  indicators:
    - actor: sever
      protocol: mcp
      target: content
      pattern: {contains: secret}
"#;

#[test]
fn four_mistakes_in_one_run_human() {
    let dir = TempDir::new("validate", "human");
    dir.write("four.yaml", FOUR_MISTAKES);
    let (code, stdout, stderr) = oatf(dir.path(), &["validate", "four.yaml"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn four_mistakes_in_one_run_json() {
    let dir = TempDir::new("validate", "json");
    dir.write("four.yaml", FOUR_MISTAKES);
    let (code, stdout, stderr) = oatf(dir.path(), &["validate", "--format", "json", "four.yaml"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    let file = &report[0];
    assert_eq!(file["valid"], false);
    let found: Vec<String> = ["parse_errors", "errors"]
        .iter()
        .flat_map(|list| file[list].as_array().cloned().unwrap_or_default())
        .map(|d| {
            format!(
                "{}|{}|{}|{}:{}",
                d["rule"].as_str().unwrap_or("-"),
                d["kind"].as_str().unwrap_or("-"),
                d["path"].as_str().unwrap_or("-"),
                d["location"]["line"],
                d["location"]["column"]
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            "-|type_mismatch|attack.descripton|3:3",
            "-|type_mismatch|attack.severity.confidence|6:17",
            "V-031|-|attack.execution.actors[1].mode|13:9",
            "V-048|-|attack.indicators[0].actor|17:14",
        ],
        "{stdout}"
    );
}

#[test]
fn four_mistakes_in_one_run_github() {
    let dir = TempDir::new("validate", "github");
    dir.write("four.yaml", FOUR_MISTAKES);
    let (code, stdout, _) = oatf(dir.path(), &["validate", "--format", "github", "four.yaml"]);
    assert_eq!(code, 1, "{stdout}");
    let places: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("::error file=four.yaml,"))
        .filter_map(|l| l.split("::").next())
        .collect();
    assert_eq!(
        places,
        [
            "line=3,col=3",
            "line=6,col=17",
            "line=13,col=9,title=V-031",
            "line=17,col=14,title=V-048",
        ],
        "{stdout}"
    );
}

#[test]
fn a_trace_is_recognised_and_the_evaluate_command_shown() {
    let dir = TempDir::new("validate", "trace");
    let trace = "{\"seq\": 1, \"direction\": \"incoming\", \"method\": \"tools/call\", \"content\": {}}\n\
                 {\"seq\": 2, \"direction\": \"outgoing\", \"content\": {}}\n";
    dir.write("run.jsonl", trace).write("run.txt", trace);
    for name in ["run.jsonl", "run.txt"] {
        let (code, stdout, stderr) = oatf(dir.path(), &["validate", name]);
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert_eq!(
            stdout,
            format!(
                "error: {name} looks like a JSON Lines trace, not an OATF document; to evaluate it \
                 against a document, run `oatf evaluate DOCUMENT.yaml {name}`\n\
                 {name}: invalid (not an OATF document)\n"
            )
        );
    }
    // A name that needs quoting is quoted in the command.
    dir.write("my run.jsonl", trace);
    let (_, stdout, _) = oatf(dir.path(), &["validate", "my run.jsonl"]);
    assert!(
        stdout.contains("run `oatf evaluate DOCUMENT.yaml 'my run.jsonl'`"),
        "{stdout}"
    );
    // A document written as one line of JSON is a document, however wrong: its errors are shown.
    dir.write(
        "doc.json",
        "{\"oatf\": \"0.1\", \"attack\": {\"bogus\": 1}}\n",
    );
    let (code, stdout, _) = oatf(dir.path(), &["validate", "doc.json"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("unknown field `bogus`"), "{stdout}");
    assert!(!stdout.contains("JSON Lines"), "{stdout}");
}
