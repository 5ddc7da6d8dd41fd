//! A threat library on disk: finding its documents and test files, and loading documents with every
//! problem located by file and line. Shared by `oatf catalog` and `oatf test`.

use std::fmt;
use std::path::{Path, PathBuf};

use oatf::Document;
use oatf::ValidateOptions;

/// The suffix of a test file: `NAME.test.yaml` holds the cases of `NAME.yaml`.
pub(crate) const TEST_SUFFIXES: &[&str] = &[".test.yaml", ".test.yml"];

/// Directories never entered: version control, build output, dependencies.
const SKIPPED_DIRS: &[&str] = &["target", "node_modules"];

/// What a walk found, each list sorted.
#[derive(Debug, Default)]
pub(crate) struct Library {
    /// OATF documents (`*.yaml`, `*.yml` with a top-level `oatf` or `attack` key).
    pub(crate) documents: Vec<PathBuf>,
    /// Test files (`*.test.yaml`, `*.test.yml`).
    pub(crate) tests: Vec<PathBuf>,
    /// YAML files found while walking that are not OATF documents (no top-level `oatf`/`attack`).
    pub(crate) other_yaml: Vec<PathBuf>,
}

/// A problem with a file, located as precisely as known; `Display` is `file:line:column: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) file: String,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
    /// The rule (`V-013`), when there is one.
    pub(crate) code: Option<String>,
    pub(crate) message: String,
    pub(crate) warning: bool,
}

impl Problem {
    /// The problem as a GitHub workflow annotation (`crate::github`).
    pub(crate) fn annotation(&self) -> String {
        let level = if self.warning {
            crate::render::github::Level::Warning
        } else {
            crate::render::github::Level::Error
        };
        let at = crate::render::github::At {
            file: &self.file,
            line: self.line,
            column: self.column,
        };
        crate::render::github::annotation(level, at, self.code.as_deref(), &self.message)
    }

    pub(crate) fn new(file: impl Into<String>, line: Option<usize>, message: String) -> Self {
        Problem {
            file: file.into(),
            line,
            column: None,
            code: None,
            message,
            warning: false,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        f.write_str(if self.warning { ": warning" } else { ": error" })?;
        if let Some(code) = &self.code {
            write!(f, "[{code}]")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The files that PATH arguments name, in order (the one owner of this expansion for `oatf fmt`,
/// `oatf validate` and `oatf normalize --check`): `-` (stdin) and files are kept as named, a
/// directory is replaced by its OATF documents ([`discover`], with [`skipped_note`] unless `quiet`),
/// and a test file is handed to `on_test_file` (each command says what it does with one) and left
/// out. Without `expand_dirs` a directory is kept as named, for the command to refuse.
pub(crate) fn expand_path_args(
    paths: &[PathBuf],
    expand_dirs: bool,
    quiet: bool,
    mut on_test_file: impl FnMut(&Path),
) -> PathArgs {
    let mut expanded = PathArgs::default();
    for path in paths {
        if path.as_os_str() == "-" {
            expanded.files.push(path.clone());
        } else if is_test_file(path) {
            on_test_file(path);
        } else if !(expand_dirs && path.is_dir()) {
            expanded.files.push(path.clone());
        } else {
            match discover(std::slice::from_ref(path)) {
                Ok(library) => {
                    if !quiet {
                        skipped_note(path, &library);
                    }
                    expanded.files.extend(library.documents);
                }
                Err(message) => {
                    eprintln!("error: {}", crate::render::safe_text::escape(&message));
                    expanded.unreadable = true;
                }
            }
        }
    }
    expanded
}

/// What [`expand_path_args`] found.
#[derive(Debug, Default)]
pub(crate) struct PathArgs {
    /// The files to read, in order.
    pub(crate) files: Vec<PathBuf>,
    /// A directory could not be read (the error was printed).
    pub(crate) unreadable: bool,
}

/// A path as shown on the terminal: its attacker-controllable bytes escaped (`safe_text`).
pub(crate) fn shown(path: &Path) -> String {
    crate::render::safe_text::escape(&path.display().to_string()).into_owned()
}

/// Walks `roots` (files or directories) in sorted order. Hidden entries (`.git`, `.cache`) and
/// [`SKIPPED_DIRS`] are skipped when walking, symbolic links to directories are not followed (no
/// cycles), and no directory deeper than [`MAX_WALK_DEPTH`](super::walk::MAX_WALK_DEPTH) levels below a root is
/// read (`super::walk`).
/// A file named on the command line is taken whatever its content.
pub(crate) fn discover(roots: &[PathBuf]) -> Result<Library, String> {
    let mut library = Library::default();
    for root in roots {
        let metadata =
            std::fs::metadata(root).map_err(|e| format!("cannot read {}: {e}", root.display()))?;
        if metadata.is_dir() {
            walk(root, &mut library)?;
        } else if is_test_file(root) {
            library.tests.push(root.clone());
        } else {
            library.documents.push(root.clone());
        }
    }
    for list in [
        &mut library.documents,
        &mut library.tests,
        &mut library.other_yaml,
    ] {
        list.sort();
        list.dedup();
    }
    Ok(library)
}

fn walk(root: &Path, library: &mut Library) -> Result<(), String> {
    super::walk::walk(
        root,
        |name| SKIPPED_DIRS.contains(&name),
        |path| {
            if is_test_file(&path) {
                library.tests.push(path);
            } else if is_yaml(&path) {
                if looks_like_oatf(&path) {
                    library.documents.push(path);
                } else {
                    library.other_yaml.push(path);
                }
            }
        },
    )
}

fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

pub(crate) fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy());
    name.is_some_and(|n| TEST_SUFFIXES.iter().any(|s| n.ends_with(s)))
}

/// Whether a YAML file has a top-level `oatf` or `attack` key (block style, possibly quoted).
/// Unreadable files count as documents so that the error is reported, not hidden.
fn looks_like_oatf(path: &Path) -> bool {
    let Ok(text) = crate::input::safe_fs::read_limited(
        path,
        oatf::model::ParseOptions::DEFAULT_MAX_INPUT_BYTES,
    ) else {
        return true;
    };
    let text = String::from_utf8_lossy(&text);
    has_top_level_key(&text, &["oatf", "attack"])
}

/// Whether `text` has one of `keys` as a top-level block mapping key (possibly quoted).
fn has_top_level_key(text: &str, keys: &[&str]) -> bool {
    text.lines().any(|line| {
        let key = line.trim_start_matches(['"', '\'']);
        line.len() == line.trim_start().len()
            && keys.iter().any(|k| {
                key.strip_prefix(k)
                    .map(|r| r.trim_start_matches(['"', '\'']))
                    .is_some_and(|r| r.starts_with(':'))
            })
    })
}

/// The note for a file that does not parse as a document because it is a test file under another
/// name (a top-level `cases`, no `oatf` or `attack`), so that `unknown field `cases`` is explained.
pub(crate) fn test_file_note(name: &str, text: &str) -> Option<String> {
    (has_top_level_key(text, &["cases"]) && !has_top_level_key(text, &["oatf", "attack"])).then(|| {
        format!(
            "note: {} looks like a test file (top-level `cases`), not a document: test files are \
             named NAME.test.yaml beside NAME.yaml and run with `oatf test`",
            crate::render::safe_text::escape(name)
        )
    })
}

/// The document a test file is about: `NAME.test.yaml` → `NAME.yaml` or `NAME.yml`.
pub(crate) fn document_of_test(test: &Path) -> Vec<PathBuf> {
    let name = test
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(stem) = TEST_SUFFIXES.iter().find_map(|s| name.strip_suffix(s)) else {
        return Vec::new();
    };
    ["yaml", "yml"]
        .iter()
        .map(|ext| test.with_file_name(format!("{stem}.{ext}")))
        .collect()
}

/// The test file of a document, if one exists: `NAME.yaml` → `NAME.test.yaml` or `NAME.test.yml`.
pub(crate) fn test_of_document(document: &Path) -> Option<PathBuf> {
    let stem = document.file_stem()?.to_string_lossy().into_owned();
    TEST_SUFFIXES
        .iter()
        .map(|s| document.with_file_name(format!("{stem}{s}")))
        .find(|p| p.is_file())
}

/// A document that parsed and validated.
#[derive(Debug)]
pub(crate) struct LoadedDocument {
    /// The path as shown to the user.
    pub(crate) file: String,
    /// The document as parsed (source locations), not normalized.
    pub(crate) parsed: Document,
    /// The normalized document.
    pub(crate) document: Document,
    /// Validation warnings.
    pub(crate) warnings: Vec<Problem>,
    source: String,
}

impl LoadedDocument {
    /// The 1-based line of the node at a diagnostic dot-path (or its nearest ancestor).
    pub(crate) fn line_of(&self, path: &str) -> Option<usize> {
        let span = self.parsed.source_span(path)?;
        Some(line_of_offset(&self.source, span.start))
    }
}

/// The 1-based line holding byte `offset` of `text`.
pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()
        .get(..end)
        .map_or(0, |b| b.iter().filter(|c| **c == b'\n').count())
        + 1
}

/// Reads a file as UTF-8.
pub(crate) fn read_text(path: &Path) -> Result<String, Problem> {
    let file = path.display().to_string();
    let bytes = crate::input::safe_fs::read_limited(
        path,
        oatf::model::ParseOptions::DEFAULT_MAX_INPUT_BYTES,
    )
    .map_err(|e| Problem::new(file.clone(), None, e))?;
    String::from_utf8(bytes).map_err(|e| Problem::new(file, None, format!("not valid utf-8: {e}")))
}

/// Parses, validates and normalizes one document; on failure every problem, located.
pub(crate) fn load_document(
    path: &Path,
    options: &ValidateOptions,
) -> Result<LoadedDocument, Vec<Problem>> {
    let file = path.display().to_string();
    let source = read_text(path).map_err(|p| vec![p])?;
    let parsed = oatf::parse(&source);
    let result = match &parsed {
        Ok(parsed) => oatf::validate_with(parsed, options),
        // The V- errors of the parts that parsed come with the parse errors.
        Err(errors) => errors.validate_rest(options),
    };
    let located = |warning: bool,
                   code: &str,
                   message: &str,
                   path: Option<&str>,
                   location: Option<&oatf::model::SourceLocation>| Problem {
        file: file.clone(),
        line: location.map(|l| l.line),
        column: location.map(|l| l.column),
        code: Some(code.to_owned()),
        message: crate::render::diagnostic::with_path(message, path),
        warning,
    };
    let parsed =
        match parsed {
            Ok(parsed) if result.is_valid() => parsed,
            outcome => {
                let parse_errors = outcome.err();
                let parse_problems = parse_errors.iter().flatten().map(|e| Problem {
                    file: file.clone(),
                    line: e.line(),
                    column: e.column(),
                    code: e.rule().map(str::to_owned),
                    message: crate::render::diagnostic::parse_headline(e),
                    warning: false,
                });
                return Err(parse_problems
                    .chain(result.errors().iter().map(|e| {
                        located(false, e.rule(), e.message(), Some(e.path()), e.location())
                    }))
                    .collect());
            }
        };
    let warnings = result
        .warnings()
        .iter()
        .map(|w| located(true, w.code(), w.message(), w.path(), w.location()))
        .collect();
    let document = oatf::model::normalize(parsed.clone());
    Ok(LoadedDocument {
        file,
        parsed,
        document,
        warnings,
        source,
    })
}

/// Loads every document, in parallel on the available cores (order kept).
pub(crate) fn load_all(paths: &[PathBuf]) -> Vec<Result<LoadedDocument, Vec<Problem>>> {
    let options = crate::options::validate_options();
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk = paths.len().div_ceil(workers.max(1)).max(1);
    if paths.len() < 16 || workers == 1 {
        return paths.iter().map(|p| load_document(p, &options)).collect();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| {
                let options = &options;
                scope.spawn(move || {
                    part.iter()
                        .map(|p| load_document(p, options))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .zip(paths.chunks(chunk))
            .flat_map(|(handle, part)| {
                handle.join().unwrap_or_else(|_| {
                    part.iter()
                        .map(|p| {
                            Err(vec![Problem::new(
                                p.display().to_string(),
                                None,
                                "internal error while loading this document".to_owned(),
                            )])
                        })
                        .collect()
                })
            })
            .collect()
    })
}

/// The note for what a directory walk left out: test files, and YAML files that are not OATF
/// documents (no top-level `oatf` or `attack`). Shared by `fmt` and `normalize --check`.
pub(crate) fn skipped_note(dir: &Path, library: &Library) {
    let dir = crate::render::safe_text::escape(&dir.display().to_string()).into_owned();
    if !library.tests.is_empty() {
        eprintln!(
            "note: skipped {} test file{} under {dir} (run them with `oatf test`)",
            library.tests.len(),
            crate::render::plural(library.tests.len()),
        );
    }
    if !library.other_yaml.is_empty() {
        eprintln!(
            "note: skipped {} yaml file{} under {dir} that {} not OATF documents (no top-level `oatf` or `attack`)",
            library.other_yaml.len(),
            crate::render::plural(library.other_yaml.len()),
            if library.other_yaml.len() == 1 {
                "is"
            } else {
                "are"
            },
        );
    }
    if library.documents.is_empty() {
        eprintln!("note: no OATF document under {dir}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::walk::MAX_WALK_DEPTH;

    #[test]
    fn lines_of_offsets() {
        assert_eq!(line_of_offset("a\nb\nc", 0), 1);
        assert_eq!(line_of_offset("a\nb\nc", 2), 2);
        assert_eq!(line_of_offset("a\nb\nc", 99), 3);
    }

    #[test]
    fn test_files_are_recognised_by_their_content() {
        let note = test_file_note("t.yaml", "# cases\ncases:\n  - name: x\n");
        assert!(note.is_some_and(|n| n.contains("t.yaml looks like a test file")));
        assert_eq!(test_file_note("d.yaml", "oatf: \"0.1\"\ncases: 1\n"), None);
        assert_eq!(test_file_note("d.yaml", "attack:\n  cases: 1\n"), None);
    }

    #[test]
    fn test_file_names() {
        assert!(is_test_file(Path::new("x/a.test.yaml")));
        assert!(!is_test_file(Path::new("x/a.yaml")));
        assert_eq!(
            document_of_test(Path::new("x/a.test.yml")),
            vec![PathBuf::from("x/a.yaml"), PathBuf::from("x/a.yml")]
        );
    }

    #[test]
    fn walks_stop_at_the_depth_limit_and_path_arguments_expand_in_order() {
        let dir = std::env::temp_dir().join(format!("oatf-walk-depth-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = Root(dir);
        let document = "oatf: \"0.1\"\nattack: {}\n";
        let mut deep = root.0.as_path().to_path_buf();
        for level in 0..=MAX_WALK_DEPTH {
            deep.push(format!("d{level}"));
        }
        std::fs::create_dir_all(&deep).expect("deep dirs");
        // At the limit: found; one level below it: not read.
        std::fs::write(deep.parent().expect("parent").join("at.yaml"), document).expect("write");
        std::fs::write(deep.join("below.yaml"), document).expect("write");
        std::fs::write(root.0.as_path().join("a.test.yaml"), "cases: []\n").expect("write");
        let library = discover(&[root.0.as_path().to_path_buf()]).expect("walk");
        let names: Vec<_> = library
            .documents
            .iter()
            .filter_map(|p| p.file_name())
            .collect();
        assert_eq!(names, ["at.yaml"]);

        let test_file = root.0.as_path().join("a.test.yaml");
        let args = [
            PathBuf::from("-"),
            test_file.clone(),
            root.0.as_path().to_path_buf(),
        ];
        let mut refused = Vec::new();
        let expanded = expand_path_args(&args, true, true, |p| refused.push(p.to_path_buf()));
        assert_eq!(refused, [test_file]);
        assert!(!expanded.unreadable);
        assert_eq!(expanded.files.len(), 2);
        assert_eq!(expanded.files[0], PathBuf::from("-"));
        let kept = expand_path_args(&args[2..], false, true, |_| {});
        assert_eq!(kept.files, [root.0.as_path().to_path_buf()]);
    }

    /// A temporary directory, removed when dropped.
    struct Root(PathBuf);

    impl Drop for Root {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
