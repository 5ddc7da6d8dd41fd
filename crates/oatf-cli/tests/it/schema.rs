//! `oatf schema` prints the document JSON Schema the repository ships (`schema/oatf-v0.1.json`), whole and
//! unchanged, as JSON a draft 2020-12 validator accepts as a schema. That the examples and the corpus
//! validate against it is checked with the reference Python validator (`crates/oatf-cli/tests/document_schema/`, run by
//! `.ci/run`).

use serde_json::Value;

use crate::support::{command, repo};

#[test]
fn prints_the_shipped_schema() {
    let output = command().arg("schema").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stderr.is_empty());
    let shipped = std::fs::read(repo().join("schema/oatf-v0.1.json")).unwrap();
    assert!(
        output.stdout == shipped,
        "`oatf schema` differs from schema/oatf-v0.1.json"
    );
    let schema: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(required, ["oatf", "attack"]);
    assert_eq!(
        schema["$defs"]["Indicator"]["properties"]["tier"]["enum"],
        serde_json::json!(["ingested", "local_action", "boundary_breach"])
    );
}
