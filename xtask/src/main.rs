//! Project automation: `cargo xtask ci` runs what CI runs; `cargo xtask layering` checks the crate graph;
//! `cargo xtask man` writes the man pages of `oatf`; `cargo xtask shared-sync` checks the vendored spec files
//! against `../shared`; `cargo xtask format-doc` generates the document JSON Schema and `docs/format.md`;
//! `cargo xtask wasm` builds the npm package and `cargo xtask playground` the browser playground (`wasm.rs`);
//! `cargo xtask tidy` checks that the paths cited in docs exist and that every declared dependency is used;
//! `cargo xtask public-api` checks the public API of the published crates against its snapshots.
//!
//! The layering rules are the "Architecture invariant" lines of ARCHITECTURE.md, checked with `cargo tree`
//! (absences, as rust-analyzer does): a new edge between crates is a deliberate change made here and there.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool talks on stdout and stderr"
)]

use std::collections::BTreeSet;
use std::process::{Command, ExitCode};

mod doc_examples;
mod files;
mod format_doc;
mod public_api;
mod shared_sync;
mod source_rules;
mod tidy;
mod wasm;
mod wasm_names;

/// What the small modules of `oatf/validate` built on the model alone (validation, normalize) must not
/// depend on: the facade and the evaluation engine, the JavaScript glue of closures, the JSONPath
/// parser (D-221, D-270).
const SMALL_MODULE_ABSENT: &[&str] = &[
    "oatf-sdk",
    "oatf-eval",
    "oatf-runtime",
    "oatf-cel",
    "js-sys",
    "serde_json_path",
];

/// `(package, cargo tree extra args, crates that must not appear in its normal dependency tree)`.
const RULES: &[(&str, &[&str], &[&str])] = &[
    // The shared helpers without a stability promise (D-165) sit below everything.
    (
        "oatf-internal",
        &[],
        &[
            "oatf-primitives",
            "oatf-model",
            "oatf-eval",
            "oatf-runtime",
            "oatf-cel",
            "oatf-sdk",
            "oatf-report",
            "serde-saphyr",
            "cel",
            "clap",
            "miette",
        ],
    ),
    (
        "oatf-primitives",
        &[],
        &[
            "oatf-model",
            "oatf-eval",
            "oatf-runtime",
            "oatf-cel",
            "oatf-sdk",
            "oatf-report",
            "serde-saphyr",
            "cel",
            "clap",
            "miette",
        ],
    ),
    (
        "oatf-model",
        &[],
        &[
            "oatf-eval",
            "oatf-runtime",
            "oatf-cel",
            "oatf-sdk",
            "oatf-report",
            "cel",
            "clap",
        ],
    ),
    // oatf-eval has no features: what it pulls is what a small tool embedding the evaluator gets. It
    // uses oatf-model without features: no diagnostics renderer, no JSONPath parser (D-130).
    (
        "oatf-eval",
        &[],
        &[
            "oatf-runtime",
            "oatf-cel",
            "oatf-sdk",
            "oatf-report",
            "serde-saphyr",
            "cel",
            "clap",
            "miette",
            "serde_json_path",
        ],
    ),
    (
        "oatf-runtime",
        &[],
        &["oatf-eval", "oatf-cel", "oatf-sdk", "cel", "clap"],
    ),
    (
        "oatf-cel",
        &[],
        &["oatf-runtime", "oatf-sdk", "oatf-report", "clap"],
    ),
    // Reports depend on the model and the evaluator only: no YAML parser, CEL engine or CLI, and no
    // diagnostics renderer (the model's `miette` feature is off, D-130).
    (
        "oatf-report",
        &[],
        &[
            "oatf-runtime",
            "oatf-cel",
            "oatf-sdk",
            "serde-saphyr",
            "cel",
            "clap",
            "miette",
        ],
    ),
    (
        "oatf-sdk",
        &[],
        &["clap", "oatf-conformance", "oatf-cli", "oatf-bench", "oatf"],
    ),
    // The bench crate and the reference SDK (package `oatf`) stay out of everything users run.
    ("oatf-cli", &[], &["oatf-bench", "oatf"]),
    // The npm package is bindings over the facade: no CLI, runner, bench or Python pieces in the module.
    (
        "oatf-wasm",
        &[],
        &[
            "clap",
            "oatf-conformance",
            "oatf-cli",
            "oatf-bench",
            "oatf",
            "pyo3",
            "rayon",
        ],
    ),
    // The validation module of `oatf/validate` is built on the model alone: the facade's evaluator
    // turns on serde_json's `raw_value`, which links the JSON parser into every `Value` read (D-221).
    (
        "oatf-wasm",
        &["--no-default-features", "--features", "document"],
        SMALL_MODULE_ABSENT,
    ),
    // The normalize module of `oatf/validate` likewise (D-270).
    (
        "oatf-wasm",
        &["--no-default-features", "--features", "normalize"],
        SMALL_MODULE_ABSENT,
    ),
    (
        "oatf-sdk",
        &["--no-default-features"],
        &["clap", "cel", "oatf-cel", "serde-saphyr", "oatf-report"],
    ),
];

fn main() -> ExitCode {
    if let Some(code) = wasm::rustc_wrapper() {
        return code;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = args.first().cloned().unwrap_or_default();
    let ok = match task.as_str() {
        "layering" => layering(),
        "ci" => run("bash", &[".ci/run"]),
        "man" => man(),
        "shared-sync" => shared_sync::shared_sync(&args[1..]),
        "format-doc" => format_doc::format_doc(&args[1..]),
        "wasm" => wasm::build_package(),
        "playground" => wasm::build_playground(),
        "tidy" => tidy::tidy(),
        "public-api" => public_api::public_api(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <ci|layering|man|shared-sync|format-doc|wasm|playground|tidy|public-api>"
            );
            eprintln!("  ci        run every check CI runs (.ci/run)");
            eprintln!("  layering  check the crate graph against ARCHITECTURE.md");
            eprintln!("  man       write the man pages of `oatf` into target/man");
            eprintln!(
                "  shared-sync [--write] [--shared DIR]  check (or update) the vendored copies of ../shared"
            );
            eprintln!(
                "  format-doc [--check]  generate (or check) schema/oatf-v0.1.json and docs/format.md"
            );
            eprintln!("  wasm      build the npm package (WebAssembly) into target/npm");
            eprintln!(
                "  playground  build the npm package and the playground into target/playground"
            );
            eprintln!(
                "  tidy      check that cited repository paths exist and declared dependencies are used"
            );
            eprintln!(
                "  public-api [--write]  check (or update) the public API listings in docs/public-api/"
            );
            false
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes the man pages (clap_mangen, from the CLI's clap definition) into `target/man`.
fn man() -> bool {
    let dir = "target/man";
    let ok = run(
        env!("CARGO"),
        &["run", "--quiet", "-p", "oatf-cli", "--", "__man", dir],
    );
    if ok {
        println!("man pages written to {dir} (read one with `man -l {dir}/oatf.1`)");
    }
    ok
}

fn run(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

/// The names of the crates in `package`'s normal dependency tree.
fn tree(package: &str, extra: &[&str]) -> Result<BTreeSet<String>, String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree", "--quiet", "-e", "normal", "--prefix", "none", "--format", "{p}", "-p", package,
        ])
        .args(extra)
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect())
}

fn layering() -> bool {
    let mut ok = true;
    for (package, extra, forbidden) in RULES {
        let flags = extra.join(" ");
        match tree(package, extra) {
            Ok(names) => {
                let found: Vec<&&str> = forbidden.iter().filter(|f| names.contains(**f)).collect();
                if found.is_empty() {
                    println!("ok   {package} {flags}");
                } else {
                    println!("FAIL {package} {flags} depends on {found:?}");
                    ok = false;
                }
            }
            Err(message) => {
                println!("FAIL {package} {flags}: {message}");
                ok = false;
            }
        }
    }
    ok
}
