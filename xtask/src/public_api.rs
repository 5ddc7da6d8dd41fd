//! `cargo xtask public-api [--write]`: the public API of each published library crate, listed from
//! its rustdoc JSON by the `public-api` crate, against the snapshots in `docs/public-api/` (D-168).
//!
//! The promise cannot grow or shrink by accident: a change to a listing fails the check until the
//! snapshot is rewritten (`--write`) and the change is reviewed in the diff. `oatf-internal` is not
//! listed: it promises nothing (D-165).
//!
//! Rustdoc JSON is unstable: its format changes between compiler releases and each `public-api`
//! version reads one. The check therefore runs one pinned release, [`TOOLCHAIN`], with
//! `RUSTC_BOOTSTRAP=1` for rustdoc's `-Z unstable-options` (installed with rustup when missing), and
//! the workspace pins `public-api` exactly; the two move together.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compiler whose rustdoc JSON (format 57) the pinned `public-api` (0.52.1) reads.
const TOOLCHAIN: &str = "1.95.0";

/// The published library crates whose API is a promise: `(package, library name)`.
const CRATES: &[(&str, &str)] = &[
    ("oatf-primitives", "oatf_primitives"),
    ("oatf-model", "oatf_model"),
    ("oatf-eval", "oatf_eval"),
    ("oatf-runtime", "oatf_runtime"),
    ("oatf-cel", "oatf_cel"),
    ("oatf-report", "oatf_report"),
    ("oatf-conformance", "oatf_conformance"),
    ("oatf-sdk", "oatf"),
];

/// Where the snapshots live, relative to the workspace root.
const SNAPSHOTS: &str = "docs/public-api";

/// Checks (or with `--write` rewrites) every crate's snapshot; `false` on a difference or failure.
pub(crate) fn public_api(args: &[String]) -> bool {
    let write = args.iter().any(|a| a == "--write");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if !toolchain_installed() {
        println!(
            "installing the {TOOLCHAIN} toolchain (its rustdoc writes the JSON format public-api reads)"
        );
        let installed = Command::new("rustup")
            .args(["toolchain", "install", TOOLCHAIN, "--profile", "minimal"])
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            eprintln!("public-api: cannot install toolchain {TOOLCHAIN} with rustup");
            return false;
        }
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let mut ok = true;
    for (package, lib) in CRATES {
        let listing = match listing(&root, &target, package, lib) {
            Ok(listing) => listing,
            Err(e) => {
                eprintln!("public-api: {package}: {e}");
                ok = false;
                continue;
            }
        };
        let snapshot = root.join(SNAPSHOTS).join(format!("{package}.txt"));
        let old = fs::read_to_string(&snapshot).unwrap_or_default();
        if old == listing {
            println!("ok   {package} ({} items)", listing.lines().count());
            continue;
        }
        if write {
            let written = fs::create_dir_all(root.join(SNAPSHOTS))
                .and_then(|()| fs::write(&snapshot, &listing));
            match written {
                Ok(()) => println!(
                    "wrote {SNAPSHOTS}/{package}.txt ({} items)",
                    listing.lines().count()
                ),
                Err(e) => {
                    eprintln!("public-api: cannot write {}: {e}", snapshot.display());
                    ok = false;
                }
            }
            continue;
        }
        ok = false;
        eprintln!("FAIL {package}: the public API differs from {SNAPSHOTS}/{package}.txt");
        for line in difference(&old, &listing) {
            eprintln!("  {line}");
        }
    }
    if !ok && !write {
        eprintln!(
            "if the change is meant, run `cargo xtask public-api --write` and review the snapshot diff (D-168)"
        );
    }
    ok
}

fn toolchain_installed() -> bool {
    Command::new("rustup")
        .args(["run", TOOLCHAIN, "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The listing of `package`'s public API, one item a line, sorted, with every feature on.
fn listing(root: &Path, target: &Path, package: &str, lib: &str) -> Result<String, String> {
    let status = Command::new("rustup")
        .args([
            "run", TOOLCHAIN, "cargo", "rustdoc", "--quiet", "-p", package,
        ])
        .args(["--lib", "--all-features", "--", "-Z", "unstable-options"])
        // A `#[doc(hidden)]` public item is as much a promise as a documented one: list it.
        .arg("--document-hidden-items")
        .args(["--output-format", "json"])
        .env("RUSTC_BOOTSTRAP", "1")
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo rustdoc: {e}"))?;
    if !status.success() {
        return Err(format!("cargo rustdoc failed ({status})"));
    }
    let json = target.join("doc").join(format!("{lib}.json"));
    let api = public_api::Builder::from_rustdoc_json(&json)
        .omit_blanket_impls(true)
        .build()
        .map_err(|e| format!("cannot read {}: {e}", json.display()))?;
    Ok(format!("{api}"))
}

/// The lines only in `old` (`-`) and only in `new` (`+`): the listings are sorted sets of items.
fn difference(old: &str, new: &str) -> Vec<String> {
    let old: BTreeSet<&str> = old.lines().collect();
    let new: BTreeSet<&str> = new.lines().collect();
    old.difference(&new)
        .map(|line| format!("- {line}"))
        .chain(new.difference(&old).map(|line| format!("+ {line}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_names_removed_and_added_items() {
        let old = "pub fn a()\npub fn b()\n";
        let new = "pub fn b()\npub fn c()\n";
        assert_eq!(difference(old, new), ["- pub fn a()", "+ pub fn c()"]);
        assert!(difference(old, old).is_empty());
    }

    /// Every published library crate has a snapshot, and nothing else does: a crate added to the
    /// workspace's publish list without one, or a snapshot left behind, fails here without a toolchain.
    #[test]
    fn each_listed_crate_has_its_snapshot() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files: Vec<String> = fs::read_dir(root.join(SNAPSHOTS))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let mut expected: Vec<String> = CRATES.iter().map(|(p, _)| format!("{p}.txt")).collect();
        expected.sort();
        assert_eq!(files, expected);
    }
}
