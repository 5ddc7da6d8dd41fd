//! Standard output with its errors kept: every command writes through [`write`], and `main` ends
//! with [`finish`], which flushes and turns a failed write into a message and exit 74
//! ([`EXIT_IOERR`]): `oatf normalize doc.yaml > /dev/full` and `oatf normalize doc.yaml >&-` (stdout
//! closed) must never look like success. A closed pipe (`| head -c1`) ends quietly with the
//! command's own code: the reader has what it wanted.

use std::io::{ErrorKind, Write as _};
use std::sync::Mutex;

/// Exit code: the output could not be written (sysexits `EX_IOERR`), for every command.
pub(crate) const EXIT_IOERR: u8 = 74;

/// Whether a write was attempted, and the first write error, if any; later writes are skipped.
struct State {
    checked: bool,
    failed: Option<std::io::Error>,
}

static STATE: Mutex<State> = Mutex::new(State {
    checked: false,
    failed: None,
});

/// Writes `text` to standard output; a failure is kept for [`finish`].
pub(crate) fn write(text: &str) {
    if text.is_empty() {
        return;
    }
    let Ok(mut state) = STATE.lock() else {
        return;
    };
    if !state.checked {
        state.checked = true;
        if closed_at_start() {
            state.failed = Some(closed_error());
        }
    }
    if state.failed.is_some() {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
        state.failed = Some(e);
    }
}

/// Writes to standard error (the crate's `eprint!` and `eprintln!`); a failure is dropped, where
/// std's macros would panic.
pub(crate) fn write_stderr(args: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// Flushes standard output and gives the exit code: `code` when every write succeeded or the
/// reader closed the pipe (nothing more is said), else [`EXIT_IOERR`] after a message on standard
/// error.
pub(crate) fn finish(code: u8) -> u8 {
    let Ok(mut state) = STATE.lock() else {
        return EXIT_IOERR;
    };
    if state.failed.is_none()
        && let Err(e) = std::io::stdout().lock().flush()
    {
        state.failed = Some(e);
    }
    match state.failed.take() {
        None => code,
        Some(e) if e.kind() == ErrorKind::BrokenPipe => code,
        Some(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            EXIT_IOERR
        }
    }
}

/// The error of a write to a standard output that was closed at startup.
fn closed_error() -> std::io::Error {
    std::io::Error::other("it is closed")
}

/// Whether standard output was closed when the program started (`oatf … >&-`).
///
/// The Rust runtime opens `/dev/null` read-write on a standard stream that is closed at startup
/// (so that no file opened later takes its descriptor), and writes to it then succeed: the output
/// would be lost without a word. A shell's `> /dev/null` opens it write-only, so `/dev/null` opened
/// read-write on standard output is taken as a closed stdout. (A parent that hands its child a
/// read-write `/dev/null`, as `daemon(3)` does, looks the same; redirect with `> /dev/null` to
/// discard the output on purpose.)
#[cfg(unix)]
fn closed_at_start() -> bool {
    use rustix::fs::{FileType, OFlags};
    let stdout = std::io::stdout();
    let Ok(stat) = rustix::fs::fstat(&stdout) else {
        // Not even fstat works: the descriptor itself is unusable.
        return true;
    };
    if FileType::from_raw_mode(stat.st_mode) != FileType::CharacterDevice {
        return false;
    }
    let Ok(null) = rustix::fs::stat("/dev/null") else {
        return false;
    };
    let Ok(flags) = rustix::fs::fcntl_getfl(&stdout) else {
        return true;
    };
    stat.st_rdev == null.st_rdev && flags & OFlags::RWMODE == OFlags::RDWR
}

#[cfg(not(unix))]
fn closed_at_start() -> bool {
    false
}
