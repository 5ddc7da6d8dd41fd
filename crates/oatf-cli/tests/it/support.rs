//! Helpers shared by the CLI tests: the `oatf` binary run as a process, temporary directories, and
//! the repository's `examples/`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../../../oatf-conformance/tests/it/support/readme_tables.rs"]
mod readme_tables;

pub(crate) use readme_tables::{examples, readme_tables};

/// The `oatf` binary cargo built for these tests.
pub(crate) const OATF: &str = env!("CARGO_BIN_EXE_oatf");

/// A valid document: one tool, `lookup`, and one indicator, `T-001-01`, that matches a private key in
/// the tool's `query` argument. The in-process tests of `src/tests.rs` use the same file.
pub(crate) const VALID: &str = include_str!("../../src/tests/exfiltration.yaml");

/// A trace of two messages in which the agent sends a private key to `lookup`: `VALID` matches it.
pub(crate) const EXPLOITED_TRACE: &str = r#"{"seq": 1, "direction": "incoming", "method": "tools/list", "content": {}}
{"seq": 2, "direction": "incoming", "method": "tools/call", "content": {"name": "lookup", "arguments": {"query": "-----BEGIN OPENSSH PRIVATE KEY----- abc"}}}
"#;

/// A command running the `oatf` binary, with nothing set up yet.
pub(crate) fn command() -> Command {
    Command::new(OATF)
}

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The path of `name` in `examples/`, as a string argument.
pub(crate) fn example(name: &str) -> String {
    examples().join(name).display().to_string()
}

/// Bytes of process output as text, invalid UTF-8 replaced.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh temporary directory, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<tmp>/oatf-<prefix>-<name>-<pid>-<n>`, empty; `n` counts the directories this process
    /// made, so that tests running in parallel never share one.
    pub(crate) fn new(prefix: &str, name: &str) -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("oatf-{prefix}-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `text` to `name` below the directory, creating parent directories.
    pub(crate) fn write(&self, name: &str, text: &str) -> &Self {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
        self
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `oatf` with `args` in `dir`; gives the exit code, stdout and stderr.
pub(crate) fn oatf(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = command().args(args).current_dir(dir).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// Runs `oatf` with `args` in the current directory, `stdin` on standard input (none: `/dev/null`).
pub(crate) fn oatf_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = command()
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// Writes `content` to `name` in one temporary directory that the whole test process shares and
/// gives its path; the name must be unique among the tests.
pub(crate) fn scratch_file(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oatf-cli-scratch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// Replaces every RFC 3339 UTC timestamp (`2026-11-20T10:00:00Z`, with or without a fraction) with
/// `[time]`: verdicts carry the moment they were made.
pub(crate) fn mask_times(text: &str) -> String {
    let bytes = text.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let fits = bytes.len() - i >= shape.len()
            && shape.iter().zip(&bytes[i..]).all(|(s, b)| match s {
                b'd' => b.is_ascii_digit(),
                s => s == b,
            });
        if fits {
            let mut end = i + shape.len();
            if bytes.get(end) == Some(&b'.') {
                end += 1;
                while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
            }
            if bytes.get(end) == Some(&b'Z') {
                out.push_str("[time]");
                i = end + 1;
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(c);
        i += c.len_utf8().max(1);
    }
    out
}
