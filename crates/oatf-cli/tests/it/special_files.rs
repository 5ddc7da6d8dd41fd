//! `catalog` and `test` on a library that holds hostile files: FIFOs, links to
//! devices, link loops and huge files are reported, never opened blocking or read whole; symlinked
//! test files and traces are followed, and trace files are read line by line.

use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

use crate::support::{TempDir, examples, oatf};

/// A library with one good document, its test file and traces behind symbolic links, and hostile
/// files named like documents.
fn hostile_library(name: &str) -> TempDir {
    let dir = TempDir::new("files", name);
    let lib = dir.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let example = examples().join("a2a-skill-poisoning.yaml");
    std::fs::copy(&example, lib.join("a2a-skill-poisoning.yaml")).unwrap();
    for linked in [
        "a2a-skill-poisoning.test.yaml",
        "a2a-skill-poisoning.complied.jsonl",
        "a2a-skill-poisoning.resisted.jsonl",
    ] {
        symlink(
            examples().join(linked).canonicalize().unwrap(),
            lib.join(linked),
        )
        .unwrap();
    }
    symlink("/dev/zero", lib.join("zero.yaml")).unwrap();
    symlink("loop.yaml", lib.join("loop.yaml")).unwrap();
    symlink("missing-target.yaml", lib.join("dangling.yaml")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(lib.join("fifo.yaml"))
        .status()
        .unwrap();
    assert!(fifo.success());
    // 200 MB, sparse: nothing is written, and nothing may be read.
    std::fs::File::create(lib.join("big.yaml"))
        .and_then(|f| f.set_len(200 << 20))
        .unwrap();
    dir
}

fn run(dir: &TempDir, args: &[&str]) -> (i32, String) {
    let started = Instant::now();
    let (code, stdout, stderr) = oatf(dir.path(), args);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{args:?} took {:?}",
        started.elapsed()
    );
    (code, format!("{stdout}{stderr}"))
}

#[test]
fn catalog_reports_hostile_files_and_keeps_the_good_one() {
    let dir = hostile_library("catalog");
    let (code, out) = run(&dir, &["catalog", "lib"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("OATF-EX-002"), "{out}");
    for (file, why) in [
        ("zero.yaml", "not a regular file (a character device)"),
        ("fifo.yaml", "not a regular file (a fifo)"),
        ("big.yaml", "larger than the input limit of 10485760 bytes"),
        ("loop.yaml", "cannot open the file"),
        ("dangling.yaml", "cannot open the file"),
    ] {
        assert!(
            out.lines().any(|l| l.contains(file) && l.contains(why)),
            "{file}: `{why}` missing in\n{out}"
        );
    }
}

#[test]
fn test_runs_symlinked_test_files_with_streamed_traces() {
    let dir = hostile_library("test");
    let (_, out) = run(&dir, &["test", "lib"]);
    // The symlinked test file runs, with its symlinked traces.
    assert!(out.contains("fail_case"), "{out}");
    assert!(out.contains("pass_case"), "{out}");
    assert!(!out.contains("cannot read trace"), "{out}");
    // A trace that is a link to /dev/zero or a FIFO is refused, not read forever.
    let lib = dir.path().join("lib");
    std::fs::remove_file(lib.join("a2a-skill-poisoning.complied.jsonl")).unwrap();
    symlink("/dev/zero", lib.join("a2a-skill-poisoning.complied.jsonl")).unwrap();
    std::fs::remove_file(lib.join("a2a-skill-poisoning.resisted.jsonl")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(lib.join("a2a-skill-poisoning.resisted.jsonl"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let (code, out) = run(&dir, &["test", "lib"]);
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("not a regular file (a character device)"),
        "{out}"
    );
    assert!(out.contains("not a regular file (a fifo)"), "{out}");
}
