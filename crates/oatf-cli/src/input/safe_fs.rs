//! Opening the files a command finds by walking a directory: regular files only, size-checked before
//! reading.
//!
//! `catalog` and `test` read every `.yaml` they find. A FIFO would block the open forever, a link
//! to `/dev/zero` would read without end, a 200 MB file would be read whole. Here a file is opened
//! without blocking, its type is checked after links are resolved (a link loop is an error of the
//! open, `ELOOP`), and only a regular file within the size limit is read.

use std::io::Read as _;
use std::path::Path;

/// Opens `path` for reading if, after resolving links, it is a regular file
/// (`oatf::report::open_regular_file`, the one owner with the Python campaign rows).
pub(crate) use oatf::report::open_regular_file as open_regular;

/// Reads `path` whole if it is a regular file (see `open_regular`) of at most `limit` bytes;
/// the size is checked before reading, and no more than `limit + 1` bytes are read if the file
/// grows meanwhile.
pub(crate) fn read_limited(path: &Path, limit: usize) -> Result<Vec<u8>, String> {
    let (file, len) = open_regular(path)?;
    let too_large = || format!("larger than the input limit of {limit} bytes, not read");
    if len > limit as u64 {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if bytes.len() > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("oatf-safe-fs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = dir("kinds");
        let file = dir.join("a.yaml");
        std::fs::write(&file, "abc").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_limited(&file, 3).as_deref(), Ok(&b"abc"[..]));
        assert_eq!(
            read_limited(&file, 2),
            Err("larger than the input limit of 2 bytes, not read".to_owned())
        );
        let link = dir.join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            read_limited(&link, 10),
            Err("not a regular file (a character device), not read".to_owned())
        );
        let fifo = dir.join("fifo.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(
                read_limited(&fifo, 10),
                Err("not a regular file (a fifo), not read".to_owned())
            );
        }
        let looped = dir.join("loop.yaml");
        std::os::unix::fs::symlink(&looped, &looped).unwrap_or_else(|e| panic!("{e}"));
        assert!(read_limited(&looped, 10).is_err_and(|e| e.starts_with("cannot open the file")));
        assert!(read_limited(&dir, 10).is_err_and(|e| e.contains("a directory")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
