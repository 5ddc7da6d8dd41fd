//! Walking a directory tree: the one walk of `oatf catalog`, `oatf test` (a threat library) and a
//! campaign's trace directories. Hidden entries (`.git`, `.cache`) are skipped, symbolic links to
//! directories are not followed (no cycles), and no directory deeper than [`MAX_WALK_DEPTH`] levels
//! below the root is read (a hostile tree cannot make the walk unbounded).

use std::path::{Path, PathBuf};

/// Directory levels a walk enters below a root; deeper directories are not read.
pub(crate) const MAX_WALK_DEPTH: usize = 32;

/// Calls `found` with every entry under `root` that is not a directory (files, and links, which are
/// not followed), in no particular order: the callers sort. A directory whose name `skip_dir`
/// accepts is not entered. An unreadable directory is an error naming it.
pub(crate) fn walk(
    root: &Path,
    skip_dir: impl Fn(&str) -> bool,
    mut found: impl FnMut(PathBuf),
) -> Result<(), String> {
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < MAX_WALK_DEPTH && !skip_dir(&name) {
                    stack.push((entry.path(), depth + 1));
                }
            } else {
                found(entry.path());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary directory, removed when dropped.
    struct Root(PathBuf);

    impl Drop for Root {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn names(root: &Path, skip: &[&str]) -> Result<Vec<String>, String> {
        let mut found = Vec::new();
        walk(
            root,
            |name| skip.contains(&name),
            |path| {
                found.push(
                    path.strip_prefix(root)
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                );
            },
        )?;
        found.sort();
        Ok(found)
    }

    #[test]
    fn a_walk_stops_at_the_depth_limit_and_skips_hidden_and_named_directories() {
        let root = Root(std::env::temp_dir().join(format!("oatf-walk-{}", std::process::id())));
        let _ = std::fs::remove_dir_all(&root.0);
        let mut deep = root.0.clone();
        for level in 0..=MAX_WALK_DEPTH {
            deep.push(format!("{level}"));
        }
        std::fs::create_dir_all(&deep).expect("deep dirs");
        // At the limit: found; one level below it: not read.
        std::fs::write(deep.parent().expect("parent").join("at"), "").expect("write");
        std::fs::write(deep.join("below"), "").expect("write");
        for hidden in [".hidden/a", ".b", "skipped/c", "d/e"] {
            let path = root.0.join(hidden);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
            std::fs::write(path, "").expect("write");
        }
        let found = names(&root.0, &["skipped"]).expect("walk");
        let at = (0..MAX_WALK_DEPTH)
            .map(|l| l.to_string())
            .chain(["at".to_owned()])
            .collect::<Vec<_>>()
            .join(std::path::MAIN_SEPARATOR_STR);
        assert_eq!(found, [at, format!("d{}e", std::path::MAIN_SEPARATOR)]);
        // Not skipped, `skipped/` is walked.
        assert_eq!(names(&root.0, &[]).expect("walk").len(), 3);
        assert!(
            names(&root.0.join("missing"), &[])
                .is_err_and(|e| e.starts_with("cannot read ") && e.contains("missing"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_directory_is_not_followed() {
        let root =
            Root(std::env::temp_dir().join(format!("oatf-walk-link-{}", std::process::id())));
        let _ = std::fs::remove_dir_all(&root.0);
        std::fs::create_dir_all(root.0.join("d")).expect("dir");
        std::fs::write(root.0.join("d/f"), "").expect("write");
        std::os::unix::fs::symlink(&root.0, root.0.join("d/loop")).expect("link");
        // The link is an entry, not a directory to enter: no cycle.
        assert_eq!(
            names(&root.0, &[]).expect("walk"),
            [
                format!("d{0}f", std::path::MAIN_SEPARATOR),
                format!("d{0}loop", std::path::MAIN_SEPARATOR)
            ]
        );
    }
}
