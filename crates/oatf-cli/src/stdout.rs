//! Standard output with its errors kept: every command writes through [`write`], and `main` ends
//! with [`finish`], which flushes and turns a failed write into a message and a non-zero exit
//! (`oatf normalize doc.yaml > /dev/full`), while a closed pipe (`| head -c1`) ends quietly.

use std::io::{ErrorKind, Write as _};
use std::sync::Mutex;

/// The first write error, if any; later writes are skipped.
static FAILED: Mutex<Option<std::io::Error>> = Mutex::new(None);

fn record(error: std::io::Error) {
    if let Ok(mut failed) = FAILED.lock()
        && failed.is_none()
    {
        *failed = Some(error);
    }
}

fn failed() -> bool {
    FAILED.lock().map_or(true, |f| f.is_some())
}

/// Writes `text` to standard output; a failure is kept for [`finish`].
pub(crate) fn write(text: &str) {
    if failed() {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
        record(e);
    }
}

/// Flushes standard output and gives the exit code: `code` when every write succeeded or the
/// reader closed the pipe (nothing more is said), else `write_error_code` after a message on
/// standard error.
pub(crate) fn finish(code: u8, write_error_code: u8) -> u8 {
    if !failed()
        && let Err(e) = std::io::stdout().lock().flush()
    {
        record(e);
    }
    let error = FAILED.lock().ok().and_then(|mut f| f.take());
    match error {
        None => code,
        Some(e) if e.kind() == ErrorKind::BrokenPipe => code,
        Some(e) => {
            eprintln!("error: cannot write the output: {e}");
            write_error_code
        }
    }
}
