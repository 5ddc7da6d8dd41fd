//! `oatf catalog` run as a process on threat libraries written to temporary directories.

use crate::support::{TempDir, oatf, repo};

/// A valid document with the given id and classification mappings (`framework: id` pairs).
fn document(id: &str, mappings: &[(&str, &str)]) -> String {
    let mut text = format!(
        "oatf: \"0.1\"\nattack:\n  id: {id}\n  name: Attack {id}\n  severity: high\n  classification:\n    category: capability_poisoning\n    tags: [injection]\n"
    );
    if !mappings.is_empty() {
        text.push_str("    mappings:\n");
        for (framework, entry) in mappings {
            text.push_str(&format!(
                "      - framework: {framework}\n        id: \"{entry}\"\n"
            ));
        }
    }
    text.push_str(
        "  execution:\n    mode: mcp_server\n    state:\n      tools:\n        - name: t\n          description: d\n          inputSchema: {type: object}\n  indicators:\n    - target: arguments\n      pattern: {contains: x}\n",
    );
    text
}

#[test]
fn index_as_table_and_json() {
    let dir = TempDir::new("catalog", "index");
    dir.write(
        "lib/a.yaml",
        &document("CAT-001", &[("owasp_llm", "LLM01")]),
    )
    .write(
        "lib/nested/b.yml",
        &document("CAT-002", &[("owasp_mcp", "MCP-03")]),
    )
    .write(
        "lib/a.test.yaml",
        "- name: x\n  message: {content: {}}\n  expect: error\n",
    )
    .write("lib/ci.yaml", "jobs: {}\n");
    let (code, stdout, stderr) = oatf(dir.path(), &["catalog", "lib"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("ID "), "{stdout}");
    assert!(lines[1].starts_with("CAT-001  high "), "{stdout}");
    assert!(lines[2].contains("lib/nested/b.yml"), "{stdout}");
    assert!(
        stderr.contains("2 documents, 0 invalid, 0 errors, 0 warnings"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note: skipped 1 YAML file without a top-level `oatf` or `attack` key"),
        "{stderr}"
    );

    let (code, stdout, _) = oatf(dir.path(), &["catalog", "lib", "--format", "json"]);
    assert_eq!(code, 0);
    let index: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let first = &index["documents"][0];
    assert_eq!(first["id"], "CAT-001");
    assert_eq!(first["name"], "Attack CAT-001");
    assert_eq!(first["file"], "lib/a.yaml");
    assert_eq!(
        first["severity"],
        serde_json::json!({"level": "high", "confidence": 50})
    );
    assert_eq!(first["status"], "draft");
    assert_eq!(first["category"], "capability_poisoning");
    assert_eq!(first["tags"], serde_json::json!(["injection"]));
    assert_eq!(first["protocols"], serde_json::json!(["mcp"]));
    assert_eq!(first["modes"], serde_json::json!(["mcp_server"]));
    assert_eq!(first["mappings"][0]["framework"], "owasp_llm");
    assert_eq!(first["mappings"][0]["id"], "LLM01");
    assert_eq!(first["mappings"][0]["relationship"], "primary");
}

#[test]
fn invalid_documents_fail_with_file_and_line() {
    let dir = TempDir::new("catalog", "invalid");
    dir.write("a.yaml", &document("CAT-001", &[]))
        .write(
            "b.yaml",
            &document("CAT-002", &[]).replace("severity: high", "severity: extreme"),
        )
        .write("c.yaml", "oatf: \"0.1\"\nattack: [\n");
    let (code, stdout, stderr) = oatf(dir.path(), &["catalog", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("./b.yaml:5:13: error[V-005]: unknown severity level `extreme`"),
        "{stderr}"
    );
    assert!(stderr.contains("./c.yaml:"), "{stderr}");
    assert!(stderr.contains("3 documents, 2 invalid"), "{stderr}");
    // The valid document is still indexed.
    assert!(stdout.contains("CAT-001"), "{stdout}");
}

#[test]
fn duplicate_ids_across_files() {
    let dir = TempDir::new("catalog", "dup");
    dir.write("one/a.yaml", &document("CAT-001", &[]))
        .write("two/b.yaml", &document("CAT-001", &[]))
        .write("two/c.yaml", &document("CAT-003", &[]));
    let (code, _, stderr) = oatf(dir.path(), &["catalog", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "./two/b.yaml:3: error: duplicate attack id `CAT-001`: also in ./one/a.yaml:3"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("1 error,"), "{stderr}");
}

#[test]
fn coverage_of_a_framework_with_a_shipped_list() {
    let dir = TempDir::new("catalog", "coverage");
    dir.write(
        "a.yaml",
        &document(
            "CAT-001",
            &[("owasp_agentic", "ASI-01"), ("owasp_llm", "LLM01")],
        ),
    )
    .write(
        "b.yaml",
        &document(
            "CAT-002",
            &[("owasp_agentic", "ASI-01"), ("owasp_agentic", "ASI-06")],
        ),
    );
    let (code, stdout, stderr) = oatf(dir.path(), &["catalog", ".", "--coverage", "owasp_agentic"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("owasp_agentic: OWASP Top 10 for Agentic Applications\n"),
        "{stdout}"
    );
    let asi01 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("ASI-01"))
        .unwrap();
    assert!(asi01.ends_with("CAT-001, CAT-002"), "{stdout}");
    let asi02 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("ASI-02"))
        .unwrap();
    assert!(asi02.ends_with(" -"), "{stdout}");
    assert!(
        stdout.contains("2 of 10 entries covered; no document covers ASI-02, ASI-03, ASI-04, ASI-05, ASI-07, ASI-08, ASI-09, ASI-10"),
        "{stdout}"
    );

    let (_, stdout, _) = oatf(
        dir.path(),
        &[
            "catalog",
            ".",
            "--coverage",
            "owasp_llm",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["entries"][0]["id"], "LLM01");
    assert_eq!(report["entries"][0]["title"], "Prompt Injection");
    assert_eq!(report["entries"][0]["documents"][0]["id"], "CAT-001");
    assert_eq!(report["uncovered"].as_array().map(Vec::len), Some(9));
}

#[test]
fn coverage_without_a_shipped_list_and_unlisted_entries() {
    let dir = TempDir::new("catalog", "cwe");
    dir.write(
        "a.yaml",
        &document("CAT-001", &[("cwe", "CWE-200"), ("owasp_mcp", "MCP-11")]),
    )
    .write("b.yaml", &document("CAT-002", &[("cwe", "CWE-74")]));
    let (_, stdout, _) = oatf(dir.path(), &["catalog", ".", "--coverage", "cwe"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "cwe: entries used by the documents (no shipped entry list)"
    );
    assert!(lines[1].trim_start().starts_with("CWE-74"), "{stdout}");
    assert!(lines[2].trim_start().starts_with("CWE-200"), "{stdout}");
    let (_, stdout, _) = oatf(dir.path(), &["catalog", ".", "--coverage", "owasp_mcp"]);
    assert!(
        stdout.contains("MCP-11  -  CAT-001  [not in the shipped list]"),
        "{stdout}"
    );
    let (code, _, stderr) = oatf(dir.path(), &["catalog", ".", "--coverage", "nist"]);
    assert_ne!(code, 0, "{stderr}");
}

#[test]
fn non_canonical_framework_ids_warn_with_the_canonical_spelling() {
    let dir = TempDir::new("catalog", "canonical");
    dir.write(
        "a.yaml",
        &document(
            "CAT-001",
            &[
                ("owasp_agentic", "ASI01"),
                ("owasp_mcp", "MCP01"),
                ("owasp_llm", "LLM01:2025"),
                ("cwe", "cwe-74"),
                ("OWASP-LLM", "LLM02"),
            ],
        ),
    );
    let (code, _, stderr) = oatf(dir.path(), &["catalog", "."]);
    assert_eq!(code, 0, "{stderr}");
    for (line, written, canonical) in [
        (11, "ASI01", "ASI-01"),
        (13, "MCP01", "MCP-01"),
        (15, "LLM01:2025", "LLM01"),
        (17, "cwe-74", "CWE-74"),
    ] {
        let expected = format!("./a.yaml:{line}: warning: non-canonical ");
        let found = stderr
            .lines()
            .find(|l| l.starts_with(&expected))
            .unwrap_or_default();
        assert!(
            found.contains(&format!("`{written}`: write `{canonical}`")),
            "{stderr}"
        );
    }
    assert!(
        stderr.contains(
            "framework `OWASP-LLM` is read as `other` (format §4.5): did you mean `owasp_llm`?"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("0 errors, 5 warnings"), "{stderr}");
    // Counted under the canonical id.
    let (_, stdout, _) = oatf(dir.path(), &["catalog", ".", "--coverage", "owasp_agentic"]);
    assert!(stdout.contains("1 of 10 entries covered"), "{stdout}");
    // --strict fails on warnings.
    let (code, _, _) = oatf(dir.path(), &["catalog", ".", "--strict"]);
    assert_eq!(code, 1);
}

#[test]
fn the_shipped_examples_are_a_valid_library() {
    let root = repo();
    let (code, stdout, stderr) = oatf(&root, &["catalog", "examples"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
}

/// The index lists the tiers of each document and counts them; a document that failed to load is
/// listed in the index and the coverage report, counted, and fails the run.
#[test]
fn tiers_and_documents_that_failed_to_load() {
    let dir = TempDir::new("catalog", "tiers");
    let tiered = document("ACME-701", &[("owasp_mcp", "MCP-03")]).replace(
        "      pattern: {contains: x}\n",
        "      tier: boundary_breach\n      pattern: {contains: x}\n    - target: arguments\n      tier: ingested\n      pattern: {contains: y}\n",
    );
    dir.write("a.yaml", &tiered)
        .write("broken.yaml", "oatf: \"0.1\"\nattack:\n  execution: {}\n");
    let (code, stdout, stderr) = oatf(dir.path(), &["catalog", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("TIERS"), "{stdout}");
    assert!(stdout.contains("boundary_breach,ingested"), "{stdout}");
    assert!(
        stdout.contains("FAILED TO LOAD") && stdout.contains("broken.yaml"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "indicator tiers: 1 ingested, 0 local_action, 1 boundary_breach, 0 without tier"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("2 documents, 1 invalid"), "{stderr}");
    let (_, stdout, _) = oatf(dir.path(), &["catalog", ".", "--format", "json"]);
    let index: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(index["tier_counts"]["boundary_breach"], 1);
    assert_eq!(index["documents"][0]["tiers"]["ingested"], 1);
    assert!(
        index["failed_to_load"][0]
            .as_str()
            .unwrap()
            .ends_with("broken.yaml")
    );
    let (code, stdout, _) = oatf(dir.path(), &["catalog", ".", "--coverage", "owasp_mcp"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("1 document failed to load and is not counted: ")
            && stdout.contains("broken.yaml"),
        "{stdout}"
    );
    let (code, _, _) = oatf(
        dir.path(),
        &["catalog", ".", "--coverage", "owasp_mcp", "--strict"],
    );
    assert_eq!(code, 1);
}

/// `oatf validate` walks directories, skips test files with a note, and points a test file given
/// by name at `oatf test`.
#[test]
fn validate_accepts_directories() {
    let dir = TempDir::new("catalog", "validate-dir");
    dir.write("lib/a.yaml", &document("ACME-702", &[]))
        .write("lib/deep/b.yaml", &document("ACME-703", &[]))
        .write("lib/a.test.yaml", "cases: []\n");
    let (code, stdout, stderr) = oatf(dir.path(), &["validate", "lib", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let reports: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(reports.as_array().unwrap().len(), 2, "{reports}");
    assert!(
        stderr.contains("note: skipped 1 test file under lib (run them with `oatf test`)"),
        "{stderr}"
    );
    dir.write(
        "lib/deep/bad.yaml",
        "oatf: \"0.1\"\nattack:\n  severity: extreme\n",
    );
    let (code, _, _) = oatf(dir.path(), &["validate", "lib"]);
    assert_eq!(code, 1);
    let (code, _, stderr) = oatf(dir.path(), &["validate", "lib/a.test.yaml"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("is a test file: run its cases with `oatf test"),
        "{stderr}"
    );
}
