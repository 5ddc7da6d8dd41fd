//! `cargo xtask shared-sync`: the repository keeps its own copies of the spec files its tests need (a plain
//! clone has no `../shared`); this task checks that each copy equals its origin in `../shared`, or with
//! `--write` makes it so. It never runs inside `cargo test`: CI runs it as its own step.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// `(path under ../shared, path of the vendored copy in the repository)`: a file or a directory.
/// `third_party/oatf-spec/README.md` says what each copy is for; keep the two lists together.
const COPIES: &[(&str, &str)] = &[
    ("spec/LICENSE", "third_party/oatf-spec/LICENSE"),
    (
        "spec/schemas/v0.1.json",
        "third_party/oatf-spec/schemas/v0.1.json",
    ),
    (
        "conformance-format/FORMAT.md",
        "third_party/oatf-spec/conformance-format.md",
    ),
    (
        "conformance-format/samples",
        "third_party/oatf-spec/conformance-samples",
    ),
    (
        "spec-decisions.md",
        "third_party/oatf-spec/spec-decisions.md",
    ),
    (
        "bindings-registry.yaml",
        "crates/oatf-model/data/bindings-registry.yaml",
    ),
];

/// Runs the task with its arguments (after `shared-sync`); returns success.
/// Paths are relative to the workspace root, whatever the current directory.
pub(crate) fn shared_sync(args: &[String]) -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if let Err(e) = std::env::set_current_dir(&root) {
        eprintln!("shared-sync: cannot enter {}: {e}", root.display());
        return false;
    }
    let mut write = false;
    let mut shared = PathBuf::from("../shared");
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--write" => write = true,
            "--shared" => match args.next() {
                Some(dir) => shared = PathBuf::from(dir),
                None => {
                    eprintln!("shared-sync: --shared needs a directory");
                    return false;
                }
            },
            other => {
                eprintln!(
                    "shared-sync: unknown argument `{other}` (usage: shared-sync [--write] [--shared DIR])"
                );
                return false;
            }
        }
    }
    if !shared.is_dir() {
        eprintln!(
            "shared-sync: {} is not a directory: the vendored copies cannot be compared with their origin \
             (pass --shared DIR)",
            shared.display()
        );
        return false;
    }
    let mut differences = Vec::new();
    for (origin, copy) in COPIES {
        match compare(&shared.join(origin), Path::new(copy)) {
            Ok(found) => differences.extend(found),
            Err(message) => {
                eprintln!("shared-sync: {message}");
                return false;
            }
        }
    }
    if differences.is_empty() {
        println!(
            "shared-sync: {} vendored copies equal {}",
            COPIES.len(),
            shared.display()
        );
        return true;
    }
    if !write {
        for difference in &differences {
            println!("{difference}");
        }
        println!(
            "shared-sync: {} difference(s) between the vendored copies and {}; `cargo xtask shared-sync --write` \
             updates the copies",
            differences.len(),
            shared.display()
        );
        return false;
    }
    for difference in &differences {
        let described = difference.to_string();
        if let Err(message) = difference.apply() {
            eprintln!("shared-sync: {message}");
            return false;
        }
        println!("fixed {described}");
    }
    true
}

/// One way a vendored copy differs from its origin.
enum Difference {
    /// The file exists in both places with different bytes, or only in the origin.
    Stale { origin: PathBuf, copy: PathBuf },
    /// The copy has a file its origin does not.
    Extra { copy: PathBuf },
}

impl Difference {
    fn apply(&self) -> Result<(), String> {
        match self {
            Self::Stale { origin, copy } => {
                if let Some(parent) = copy.parent() {
                    fs::create_dir_all(parent)
                        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
                }
                fs::copy(origin, copy).map(|_| ()).map_err(|e| {
                    format!(
                        "cannot copy {} to {}: {e}",
                        origin.display(),
                        copy.display()
                    )
                })
            }
            Self::Extra { copy } => {
                fs::remove_file(copy).map_err(|e| format!("cannot remove {}: {e}", copy.display()))
            }
        }
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stale { origin, copy } if copy.exists() => {
                write!(
                    f,
                    "differs:   {} (from {})",
                    copy.display(),
                    origin.display()
                )
            }
            Self::Stale { origin, copy } => {
                write!(
                    f,
                    "missing:   {} (from {})",
                    copy.display(),
                    origin.display()
                )
            }
            Self::Extra { copy } => write!(f, "extra:     {} (not in the origin)", copy.display()),
        }
    }
}

/// The differences between `origin` (a file or a directory) and its copy.
fn compare(origin: &Path, copy: &Path) -> Result<Vec<Difference>, String> {
    if origin.is_file() {
        let same = fs::read(copy).ok() == Some(read(origin)?);
        return Ok(if same {
            Vec::new()
        } else {
            vec![Difference::Stale {
                origin: origin.to_path_buf(),
                copy: copy.to_path_buf(),
            }]
        });
    }
    if !origin.is_dir() {
        return Err(format!("{} does not exist", origin.display()));
    }
    let mut names = BTreeSet::new();
    files(origin, origin, &mut names)?;
    let mut in_copy = BTreeSet::new();
    if copy.is_dir() {
        files(copy, copy, &mut in_copy)?;
    }
    let mut differences = Vec::new();
    for name in &names {
        differences.extend(compare(&origin.join(name), &copy.join(name))?);
    }
    for name in in_copy.difference(&names) {
        differences.push(Difference::Extra {
            copy: copy.join(name),
        });
    }
    Ok(differences)
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Every file under `dir`, relative to `base`, in sorted order.
fn files(dir: &Path, base: &Path, out: &mut BTreeSet<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .path();
        if path.is_dir() {
            files(&path, base, out)?;
        } else if let Ok(relative) = path.strip_prefix(base) {
            out.insert(relative.to_path_buf());
        }
    }
    Ok(())
}
