//! `oatf validate --format sarif`: one SARIF result per diagnostic (rule id, level, file, line and
//! column, message), the rules used described from the rule table (`oatf::model::Rule`), unreadable files as
//! tool notifications, and the same exit codes as the other formats.
use crate::support::{TempDir, oatf};
use crate::validate::FOUR_MISTAKES;
use serde_json::Value;

/// A valid document whose first key is not `oatf`: the warning W-001 (spec-decisions 2), at the
/// `oatf` field (line 5, column 7).
const WARNED: &str = r#"attack:
  execution: {mode: mcp_server, state: {tools: []}}
  indicators:
    - {surface: tools/call, target: arguments.path, pattern: {contains: passwd}}
oatf: "0.1"
"#;

fn sarif(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// `ruleId|level|uri:line:column` of each result.
fn results(run: &Value) -> Vec<String> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let at = &r["locations"][0]["physicalLocation"];
            format!(
                "{}|{}|{}:{}:{}",
                r["ruleId"].as_str().unwrap_or("-"),
                r["level"].as_str().unwrap_or("-"),
                at["artifactLocation"]["uri"].as_str().unwrap_or("-"),
                at["region"]["startLine"],
                at["region"]["startColumn"],
            )
        })
        .collect()
}

#[test]
fn one_result_per_diagnostic_at_its_line_and_column() {
    let dir = TempDir::new("validate-sarif", "four");
    dir.write("lib/four.yaml", FOUR_MISTAKES)
        .write("lib/warned.yaml", WARNED);
    let (code, stdout, stderr) = oatf(
        dir.path(),
        &[
            "validate",
            "--format",
            "sarif",
            "lib/four.yaml",
            "lib/warned.yaml",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    let log = sarif(&stdout);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(
        results(run),
        [
            "parse/type_mismatch|error|lib/four.yaml:3:3",
            "parse/type_mismatch|error|lib/four.yaml:6:17",
            "V-031|error|lib/four.yaml:13:9",
            "V-048|error|lib/four.yaml:17:14",
            "W-001|warning|lib/warned.yaml:5:7",
        ],
        "{stdout}"
    );
    // The message says what, with the field it is about; the field is also the logical location.
    let v048 = &run["results"][3];
    let text = v048["message"]["text"].as_str().unwrap();
    assert!(text.contains("sever"), "{text}");
    assert!(
        text.ends_with("(at `attack.indicators[0].actor`)"),
        "{text}"
    );
    assert_eq!(
        v048["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "attack.indicators[0].actor"
    );
    // Each result points at its rule in the driver's list.
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result}");
    }
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn the_rules_used_are_described_from_the_rule_table() {
    let dir = TempDir::new("validate-sarif", "rules");
    dir.write("four.yaml", FOUR_MISTAKES)
        .write("warned.yaml", WARNED);
    let (_, stdout, _) = oatf(
        dir.path(),
        &["validate", "--format", "sarif", "four.yaml", "warned.yaml"],
    );
    let log = sarif(&stdout);
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    // Each rule used once: table rules in table order, then the parse errors' own rule.
    assert_eq!(ids, ["V-031", "V-048", "W-001", "parse/type_mismatch"]);
    for rule in rules.iter().take(3) {
        let id = rule["id"].as_str().unwrap();
        let table = oatf::model::Rule::from_id(id).unwrap();
        assert_eq!(rule["shortDescription"]["text"], table.summary(), "{id}");
        assert_eq!(rule["fullDescription"]["text"], table.text(), "{id}");
        assert_eq!(
            rule["properties"]["specSection"],
            table.spec_section(),
            "{id}"
        );
        let help = rule["help"]["text"].as_str().unwrap();
        assert!(help.contains(table.spec_section()), "{help}");
        let level = if id.starts_with('W') {
            "warning"
        } else {
            "error"
        };
        assert_eq!(rule["defaultConfiguration"]["level"], level, "{id}");
    }
    let parse = &rules[3];
    assert_eq!(parse["properties"]["specSection"], "SDK §7.1");
    assert!(
        !parse["fullDescription"]["text"]
            .as_str()
            .unwrap()
            .is_empty(),
        "{parse}"
    );
}

#[test]
fn a_valid_library_has_no_results_and_exits_0() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (code, stdout, stderr) = oatf(&root, &["validate", "--format", "sarif", "examples"]);
    assert_eq!(code, 0, "{stderr}");
    let log = sarif(&stdout);
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().map(Vec::len), Some(0), "{stdout}");
    assert!(run["artifacts"].as_array().unwrap().len() > 1, "{stdout}");
    for artifact in run["artifacts"].as_array().unwrap() {
        let uri = artifact["location"]["uri"].as_str().unwrap();
        assert!(uri.starts_with("examples/"), "{uri}");
        assert_eq!(artifact["location"]["uriBaseId"], "%SRCROOT%");
    }
}

#[test]
fn strict_unreadable_files_and_traces_keep_their_exit_codes() {
    let dir = TempDir::new("validate-sarif", "codes");
    dir.write("warned.yaml", WARNED).write(
        "run.jsonl",
        "{\"seq\": 1, \"direction\": \"incoming\", \"method\": \"tools/call\", \"content\": {}}\n",
    );
    let (code, _, _) = oatf(
        dir.path(),
        &["validate", "--format", "sarif", "warned.yaml"],
    );
    assert_eq!(code, 0);
    let (code, _, _) = oatf(
        dir.path(),
        &["validate", "--format", "sarif", "--strict", "warned.yaml"],
    );
    assert_eq!(code, 1);

    let (code, stdout, _) = oatf(
        dir.path(),
        &["validate", "--format", "sarif", "missing.yaml", "run.jsonl"],
    );
    assert_eq!(code, 2, "{stdout}");
    let log = sarif(&stdout);
    let run = &log["runs"][0];
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notification = &invocation["toolExecutionNotifications"][0];
    assert_eq!(notification["level"], "error");
    assert!(
        notification["message"]["text"]
            .as_str()
            .unwrap()
            .contains("missing.yaml"),
        "{notification}"
    );
    // A trace given by mistake is a syntax error of the file, with the command to run instead.
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "parse/syntax");
    assert!(
        result["message"]["text"]
            .as_str()
            .unwrap()
            .contains("oatf evaluate"),
        "{result}"
    );
}
