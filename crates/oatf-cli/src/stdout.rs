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
/// The Rust runtime opens `/dev/null` on a standard stream that is closed at startup (so that no file
/// opened later takes its descriptor), and writes to it then succeed: the output would be lost
/// without a word. So descriptor 1 is looked at before the runtime starts, by [`crate::startup`]. A
/// `/dev/null` that the parent hands over on purpose (`> /dev/null`, Python's
/// `subprocess.DEVNULL`, Node's `stdio: 'ignore'`, `1<>/dev/null`) is not a closed stdout and works.
fn closed_at_start() -> bool {
    crate::startup::stdout_was_closed()
}
