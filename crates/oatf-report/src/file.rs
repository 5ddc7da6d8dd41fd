//! Opening an input file a tool was pointed at (a trace of a campaign, a document found by walking
//! a directory): regular files only, without blocking.
//!
//! A FIFO would block the open forever and a link to `/dev/zero` would read without end; here a
//! file is opened without blocking, its type is checked after links are resolved (a link loop is an
//! error of the open, `ELOOP`), and the error says what else it is. One owner, so that `oatf
//! evaluate`, `oatf catalog`/`oatf test` and the Python campaign rows say the same thing.

use std::fs::File;
use std::path::Path;

/// Opens `path` for reading if, after resolving links, it is a regular file, and gives its length:
/// without blocking on a FIFO, and with an error that says what else it is
/// (`not a regular file (a fifo), not read`).
///
/// ```
/// let dir = std::env::temp_dir();
/// let error = oatf_report::open_regular_file(&dir).unwrap_err();
/// assert_eq!(error, "not a regular file (a directory), not read");
/// ```
pub fn open_regular_file(path: &Path) -> Result<(File, u64), String> {
    let file = open_nonblocking(path).map_err(|e| format!("cannot open the file: {e}"))?;
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "not a regular file ({}), not read",
            describe(&metadata.file_type())
        ));
    }
    Ok((file, metadata.len()))
}

#[cfg(unix)]
fn describe(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a fifo"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn describe(kind: &std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting; reads of
    // regular files are not affected.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const O_NONBLOCK: i32 = 0o4000;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const O_NONBLOCK: i32 = 0x0004;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}
