//! Embeds our conformance corpus (`corpus/`, a link to the workspace's `conformance/` that `cargo package`
#![allow(
    clippy::print_stdout,
    reason = "cargo reads a build script's instructions on its standard output"
)]
//! follows) in the binary, so that an installed `oatf conformance` runs it from any directory.
//!
//! Writes `$OUT_DIR/corpus.rs`: `CORPUS: &[(&str, &[u8])]`, every file by its `/`-separated path relative
//! to the corpus, in sorted order.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, base: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, base, files);
        } else if path.is_file()
            && let Ok(relative) = path.strip_prefix(base)
        {
            let name: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push((name.join("/"), path));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let corpus = manifest.join("corpus");
    println!("cargo::rerun-if-changed={}", corpus.display());
    let mut files = Vec::new();
    collect(&corpus, &corpus, &mut files);
    files.sort();
    let mut code =
        String::from("/// The embedded conformance corpus: (relative path, contents).\n");
    code.push_str("pub(crate) static CORPUS: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("corpus.rs");
    if let Err(e) = std::fs::write(&out, code) {
        panic!("cannot write {}: {e}", out.display());
    }
}
