//! `oatf fmt`: the formatter keeps every document the same document, keeps every character the author
//! wrote (only whitespace and the place of entries change), is idempotent, and its `--check` and
//! `--diff` modes write nothing. Run on the shipped examples and on every document of the corpus
//! that parses.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{TempDir, command, oatf, repo};

/// Every document text of the repository: the examples, `parse/valid/`, and the `input` strings of the
/// `validate`, `normalize` and `roundtrip` cases; only those `oatf::parse` accepts.
fn corpus() -> Vec<(String, String)> {
    let mut documents = Vec::new();
    let read_dir = |dir: &Path| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        paths.sort();
        paths
    };
    for path in read_dir(&repo().join("examples")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".test.yaml") {
            documents.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    for path in read_dir(&repo().join("conformance/parse/valid")) {
        let name = format!("valid-{}", path.file_name().unwrap().to_string_lossy());
        documents.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    for category in ["validate", "normalize", "roundtrip"] {
        for path in read_dir(&repo().join("conformance").join(category)) {
            let text = std::fs::read_to_string(&path).unwrap();
            let cases: Value = serde_saphyr::from_str(&text).unwrap();
            for case in cases.as_array().unwrap() {
                if let (Some(id), Some(input)) = (case["id"].as_str(), case["input"].as_str()) {
                    documents.push((format!("{id}.yaml"), input.to_owned()));
                }
            }
        }
    }
    documents.retain(|(_, text)| oatf::parse(text).is_ok());
    documents
}

/// The characters other than whitespace, sorted: what the formatter must never change.
fn ink(text: &str) -> Vec<char> {
    let mut chars: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{feff}')
        .collect();
    chars.sort_unstable();
    chars
}

#[test]
fn every_corpus_document_formats_to_the_same_document_and_is_idempotent() {
    let documents = corpus();
    eprintln!("{} documents", documents.len());
    assert!(documents.len() > 100, "only {} documents", documents.len());
    let dir = TempDir::new("fmt", "corpus");
    for (name, text) in &documents {
        dir.write(name, text);
    }
    let (code, _, stderr) = oatf(dir.path(), &["fmt", "."]);
    assert_eq!(code, 0, "{stderr}");
    let mut changed = 0;
    for (name, before) in &documents {
        let after = std::fs::read_to_string(dir.path().join(name)).unwrap();
        changed += usize::from(after != *before);
        let parsed_before = oatf::parse(before).unwrap();
        let parsed_after =
            oatf::parse(&after).unwrap_or_else(|e| panic!("{name} no longer parses: {e}\n{after}"));
        assert_eq!(
            parsed_after, parsed_before,
            "{name} changed meaning:\n{after}"
        );
        assert_eq!(
            ink(&after),
            ink(before),
            "{name} lost or gained text:\n{after}"
        );
        assert!(after.ends_with('\n') && !after.ends_with("\n\n"), "{name}");
        // `oatf` is the first key (after the file's header comments).
        let first_key = after
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with(['#', '-', '%', '\u{feff}']))
            .unwrap();
        if parsed_before.oatf.is_some() && !first_key.starts_with('{') {
            assert!(
                first_key
                    .trim_start_matches(['"', '\''])
                    .starts_with("oatf"),
                "{name}: {first_key}"
            );
        }
    }
    // The corpus is written in many layouts: the formatter had work to do.
    assert!(changed > 10, "only {changed} documents changed");
    // Idempotent: formatted output is already formatted.
    let (code, stdout, stderr) = oatf(dir.path(), &["fmt", "--check", "."]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
}

/// Every variant of each example with one line removed, indented by one space, given a trailing
/// comment, or preceded by a line of spaces: each variant that parses is either formatted (to the same
/// document, the same characters, already formatted the second time) or refused and left unchanged.
#[test]
fn mutated_examples_are_formatted_or_refused_never_damaged() {
    let dir = TempDir::new("fmt", "mutated");
    let mut variants = Vec::new();
    // One example, every line (the others share its shapes); a debug build formats about 60 variants a second.
    let name = "mcp-tool-poisoning.yaml";
    let text = std::fs::read_to_string(repo().join("examples").join(name)).unwrap();
    {
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..lines.len() {
            for variant in 0..4 {
                let mut changed: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
                match variant {
                    0 => {
                        changed.remove(i);
                    }
                    1 => changed[i].insert(0, ' '),
                    2 => changed[i].push_str(" # note"),
                    _ => changed[i].insert_str(0, "   \n"),
                }
                let input = changed.join("\n") + "\n";
                if oatf::parse(&input).is_ok() {
                    let file = format!("{name}-{i}-{variant}.yaml");
                    dir.write(&file, &input);
                    variants.push((file, input));
                }
            }
        }
    }
    assert!(variants.len() > 300, "{} variants", variants.len());
    let (_, _, stderr) = oatf(dir.path(), &["fmt", "--quiet", "."]);
    let mut refused = 0;
    for (file, before) in &variants {
        let after = std::fs::read_to_string(dir.path().join(file)).unwrap();
        if stderr.contains(&format!("{file}:")) {
            refused += 1;
            assert_eq!(after, *before, "{file} was refused but changed");
            continue;
        }
        let parsed = oatf::parse(&after).unwrap_or_else(|e| panic!("{file}: {e}\n{after}"));
        assert_eq!(parsed, oatf::parse(before).unwrap(), "{file}:\n{after}");
        assert_eq!(ink(&after), ink(before), "{file}:\n{after}");
    }
    // A refusal is the exception (a line the walk cannot place), never the rule.
    assert!(
        refused * 50 < variants.len(),
        "{refused} of {} refused:\n{stderr}",
        variants.len()
    );
    let (_, stdout, _) = oatf(dir.path(), &["fmt", "--check", "--quiet", "."]);
    assert!(stdout.is_empty(), "not idempotent:\n{stdout}");
}

#[test]
fn the_shipped_examples_are_formatted() {
    let (code, stdout, stderr) = oatf(&repo(), &["fmt", "--check", "examples/"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stderr.contains("skipped 3 test files"), "{stderr}");
    assert!(stderr.contains("3 files already formatted"), "{stderr}");
}

const UNFORMATTED: &str =
    "# the header\n\nattack:\n    name: x   # the name\n    version: 2\noatf: \"0.1\"\n";
const FORMATTED: &str =
    "# the header\n\noatf: \"0.1\"\nattack:\n  name: x   # the name\n  version: 2\n";

#[test]
fn check_lists_the_files_and_writes_nothing() {
    let dir = TempDir::new("fmt", "check");
    dir.write("a.yaml", UNFORMATTED).write("b.yaml", FORMATTED);
    let (code, stdout, stderr) = oatf(dir.path(), &["fmt", "--check", "a.yaml", "b.yaml"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "would reformat: a.yaml\n");
    assert!(
        stderr.contains("1 file would be reformatted, 1 file already formatted"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.yaml")).unwrap(),
        UNFORMATTED
    );
}

#[test]
fn diff_prints_a_unified_diff_and_writes_nothing() {
    let dir = TempDir::new("fmt", "diff");
    dir.write("a.yaml", UNFORMATTED);
    let (code, stdout, _) = oatf(dir.path(), &["fmt", "--diff", "a.yaml"]);
    assert_eq!(code, 1);
    assert!(
        stdout.starts_with("--- a.yaml\n+++ a.yaml\n@@ "),
        "{stdout}"
    );
    assert!(stdout.contains("\n+oatf: \"0.1\"\n"), "{stdout}");
    assert!(stdout.contains("\n-    name: x   # the name\n"), "{stdout}");
    assert!(stdout.contains("\n+  name: x   # the name\n"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.yaml")).unwrap(),
        UNFORMATTED
    );
    let (code, stdout, _) = oatf(dir.path(), &["fmt", "--diff", "-q", "a.yaml"]);
    assert_eq!((code, stdout.is_empty()), (1, false));
}

#[test]
fn fmt_rewrites_files_in_place_and_standard_input_to_standard_output() {
    let dir = TempDir::new("fmt", "write");
    dir.write("a.yaml", UNFORMATTED);
    let (code, _, stderr) = oatf(dir.path(), &["fmt", "a.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 file reformatted"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.yaml")).unwrap(),
        FORMATTED
    );
    let output = command()
        .args(["fmt", "-"])
        .stdin(std::fs::File::open(dir.path().join("a.yaml")).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), FORMATTED);
}

#[test]
fn directories_skip_test_files_and_other_yaml_with_a_note() {
    let dir = TempDir::new("fmt", "walk");
    dir.write("lib/a.yaml", UNFORMATTED)
        .write("lib/a.test.yaml", "cases:\n  - name: x\n")
        .write("lib/ci.yaml", "jobs: {}\n");
    let (code, _, stderr) = oatf(dir.path(), &["fmt", "lib"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note: skipped 1 test file under lib"),
        "{stderr}"
    );
    assert!(
        stderr.contains("skipped 1 yaml file under lib that is not"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("lib/a.yaml")).unwrap(),
        FORMATTED
    );
    // A test file named on the command line (as a pre-commit hook passes it) is not an error.
    let (code, _, stderr) = oatf(dir.path(), &["fmt", "--check", "lib/a.test.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("is a test file"), "{stderr}");
    // `normalize --check` walks directories the same way.
    let (code, _, stderr) = oatf(dir.path(), &["normalize", "--check", "lib"]);
    assert!(
        stderr.contains("note: skipped 1 test file under lib"),
        "{stderr}"
    );
    assert_eq!(
        code, 1,
        "the document is not in its normalized form: {stderr}"
    );
}

#[test]
fn a_document_that_does_not_parse_or_cannot_be_placed_is_left_alone() {
    let dir = TempDir::new("fmt", "refuse");
    let broken = "oatf: \"0.1\"\nattack:\n  nmae: x\n";
    let complex = "oatf: \"0.1\"\nattack:\n  ? name\n  : x\n";
    dir.write("broken.yaml", broken)
        .write("complex.yaml", complex);
    let (code, _, stderr) = oatf(dir.path(), &["fmt", "broken.yaml", "complex.yaml"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("broken.yaml: not formatted"), "{stderr}");
    assert!(stderr.contains("complex.yaml:3: cannot format"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("broken.yaml")).unwrap(),
        broken
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("complex.yaml")).unwrap(),
        complex
    );
    let (code, _, stderr) = oatf(dir.path(), &["fmt", "missing.yaml"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn a_test_file_under_another_name_is_recognised_by_every_document_command() {
    let dir = TempDir::new("fmt", "cases");
    dir.write("cases.yaml", "cases:\n  - name: x\n");
    for command in ["fmt", "normalize", "validate"] {
        let (code, _, stderr) = oatf(dir.path(), &[command, "cases.yaml"]);
        assert_eq!(code, 1, "{command}: {stderr}");
        assert!(
            stderr.contains("note: cases.yaml looks like a test file (top-level `cases`)"),
            "{command}: {stderr}"
        );
    }
}
