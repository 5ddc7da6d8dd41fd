//! Helpers shared by the CLI tests that run `oatf` as a process on files in temporary directories.
#![allow(dead_code, reason = "each test binary uses its own subset")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh temporary directory, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<tmp>/oatf-<prefix>-<name>-<pid>`, empty.
    pub(crate) fn new(prefix: &str, name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("oatf-{prefix}-{name}-{}", std::process::id()));
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
    let output = Command::new(env!("CARGO_BIN_EXE_oatf"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
