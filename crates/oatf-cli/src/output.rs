//! A command's output sink: standard output with its errors kept, passed to every command as
//! `&mut Output` (so a command can be run in-process into a buffer, as the tests below do).
//!
//! Every command writes through [`Output::write`], and `main` ends with [`Output::finish`], which
//! flushes and turns a failed write into a message and exit 74 ([`EXIT_IOERR`]):
//! `oatf normalize doc.yaml > /dev/full` and `oatf normalize doc.yaml >&-` (stdout closed) must
//! never look like success. A closed pipe (`| head -c1`) ends quietly with the command's own code:
//! the reader has what it wanted.

use std::io::{ErrorKind, IoSlice, IsTerminal as _, Write};

/// Exit code: the output could not be written (sysexits `EX_IOERR`), for every command.
pub(crate) const EXIT_IOERR: u8 = 74;

/// Where a command writes its report, and the first write error, if any (later writes are skipped).
pub(crate) struct Output<'w> {
    sink: Box<dyn Write + 'w>,
    /// Where [`Output::finish`] says that the output could not be written: standard error, or in
    /// tests a buffer.
    errors: Box<dyn Write + 'w>,
    /// Whether the sink is a terminal (for `--color auto`).
    terminal: bool,
    /// Whether the sink was closed before the program started ([`crate::startup`]); the error is
    /// raised by the first write, as a write to a closed descriptor would.
    closed_at_start: bool,
    /// Whether a write was attempted.
    checked: bool,
    failed: Option<std::io::Error>,
}

impl Output<'static> {
    /// The process's standard output.
    pub(crate) fn stdout() -> Self {
        let stdout = std::io::stdout();
        Output {
            terminal: stdout.is_terminal(),
            sink: Box::new(stdout),
            errors: Box::new(std::io::stderr()),
            closed_at_start: closed_at_start(),
            checked: false,
            failed: None,
        }
    }
}

impl<'w> Output<'w> {
    /// An output into `sink`, which is not a terminal (no colour with `--color auto`); what
    /// [`Output::finish`] would say on standard error is dropped.
    #[cfg(test)]
    pub(crate) fn new(sink: impl Write + 'w) -> Self {
        Self::with_errors(sink, std::io::sink())
    }

    /// An output into `sink` whose write-error message goes to `errors`.
    #[cfg(test)]
    pub(crate) fn with_errors(sink: impl Write + 'w, errors: impl Write + 'w) -> Self {
        Output {
            sink: Box::new(sink),
            errors: Box::new(errors),
            terminal: false,
            closed_at_start: false,
            checked: false,
            failed: None,
        }
    }

    /// Whether the output is a terminal.
    pub(crate) fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// Writes `text`; a failure is kept for [`Output::finish`].
    pub(crate) fn write(&mut self, text: &str) {
        self.write_bytes(text.as_bytes());
    }

    /// Writes `bytes`, a part of a UTF-8 text; a failure is kept for [`Output::finish`].
    fn write_bytes(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || !self.ready() {
            return;
        }
        if let Err(e) = self.sink.write_all(bytes) {
            self.failed = Some(e);
        }
    }

    /// Whether a write may go ahead: no failure kept. The first write also finds out whether the
    /// output was closed before the command started.
    fn ready(&mut self) -> bool {
        if !self.checked {
            self.checked = true;
            if self.closed_at_start {
                self.failed = Some(closed_error());
            }
        }
        self.failed.is_none()
    }

    /// Writes `pieces` one after the other, as [`Output::write`] of their concatenation would, without
    /// copying them into one string: up to 1,024 at a time in one vectored write (`writev`). A
    /// campaign's report is its runs' texts, written by the workers, and copying 47 MB of JSON runs
    /// (20,000 runs) into chunks was most of its main thread's time (D-212).
    pub(crate) fn write_pieces<'p>(&mut self, pieces: impl IntoIterator<Item = &'p str>) {
        /// Pieces per vectored write: Linux's `IOV_MAX`.
        const BATCH: usize = 1024;
        let mut batch: Vec<IoSlice<'p>> = Vec::with_capacity(BATCH);
        for piece in pieces {
            if piece.is_empty() {
                continue;
            }
            batch.push(IoSlice::new(piece.as_bytes()));
            if batch.len() == BATCH {
                self.write_slices(&mut batch);
                batch.clear();
            }
        }
        self.write_slices(&mut batch);
    }

    /// Writes every byte of `slices` (which it consumes), as [`Output::write`] writes its text.
    fn write_slices(&mut self, mut slices: &mut [IoSlice<'_>]) {
        if slices.is_empty() || !self.ready() {
            return;
        }
        while self.failed.is_none() && !slices.is_empty() {
            match self.sink.write_vectored(slices) {
                Ok(0) => self.failed = Some(ErrorKind::WriteZero.into()),
                Ok(written) => IoSlice::advance_slices(&mut slices, written),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => self.failed = Some(e),
            }
        }
    }

    /// Flushes the output and gives the exit code: `code` when every write succeeded or the reader
    /// closed the pipe (nothing more is said), else [`EXIT_IOERR`] after a message on standard
    /// error.
    pub(crate) fn finish(mut self, code: u8) -> u8 {
        if self.failed.is_none()
            && let Err(e) = self.sink.flush()
        {
            self.failed = Some(e);
        }
        match self.failed.take() {
            None => code,
            Some(e) if e.kind() == ErrorKind::BrokenPipe => code,
            Some(e) => {
                // A standard error that cannot be written either leaves only the exit code.
                let _ = writeln!(self.errors, "error: cannot write to standard output: {e}");
                EXIT_IOERR
            }
        }
    }
}

/// The output as a writer, for a serializer that writes a report straight to it (D-212): every write
/// succeeds here, and the first failure is kept for [`Output::finish`] as [`Output::write`] keeps it.
impl Write for Output<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_bytes(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes to standard error (the crate's `eprint!` and `eprintln!`); a failure is dropped, where
/// std's macros would panic. Standard error holds no state, so it is not part of [`Output`].
pub(crate) fn write_stderr(args: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink whose every write fails with `kind`.
    struct Failing(ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(self.0.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_reach_the_sink_and_keep_the_code() {
        let mut buffer = Vec::new();
        let mut out = Output::new(&mut buffer);
        out.write("a");
        out.write("");
        out.write("b\n");
        assert_eq!(out.finish(3), 3);
        assert_eq!(buffer, b"ab\n");
    }

    #[test]
    fn a_failed_write_exits_74() {
        let mut errors = Vec::new();
        let mut out = Output::with_errors(Failing(ErrorKind::StorageFull), &mut errors);
        out.write("text");
        assert_eq!(out.finish(0), EXIT_IOERR);
        let said = String::from_utf8_lossy(&errors);
        assert!(
            said.starts_with("error: cannot write to standard output: "),
            "{said}"
        );
    }

    /// A sink that takes at most 5 bytes a write, across slices, and is interrupted every third.
    struct Trickle {
        taken: Vec<u8>,
        writes: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.write_vectored(&[IoSlice::new(buf)])
        }
        fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> std::io::Result<usize> {
            self.writes += 1;
            if self.writes.is_multiple_of(3) {
                return Err(ErrorKind::Interrupted.into());
            }
            let before = self.taken.len();
            for slice in slices {
                let room = 5 - (self.taken.len() - before);
                self.taken.extend(slice.iter().take(room));
            }
            Ok(self.taken.len() - before)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn pieces_are_written_whole_and_in_order() {
        let pieces: Vec<String> = (0..2500).map(|i| format!("{i},")).collect();
        let mut sink = Trickle {
            taken: Vec::new(),
            writes: 0,
        };
        let mut out = Output::new(&mut sink);
        out.write_pieces(pieces.iter().map(String::as_str).chain(["", "end\n"]));
        assert_eq!(out.finish(2), 2);
        assert_eq!(
            String::from_utf8_lossy(&sink.taken),
            pieces.concat() + "end\n"
        );
        let mut errors = Vec::new();
        let mut out = Output::with_errors(Failing(ErrorKind::StorageFull), &mut errors);
        out.write_pieces(["a", "b"]);
        assert_eq!(out.finish(0), EXIT_IOERR);
        let mut out = Output::new(Failing(ErrorKind::BrokenPipe));
        out.write_pieces(["a"]);
        assert_eq!(out.finish(1), 1);
    }

    #[test]
    fn a_serializer_writes_to_the_output_and_its_failure_is_kept() {
        let mut buffer = Vec::new();
        let mut out = Output::new(&mut buffer);
        assert!(serde_json::to_writer(&mut out, &["é", "b"]).is_ok());
        assert_eq!(out.finish(0), 0);
        assert_eq!(buffer, "[\"é\",\"b\"]".as_bytes());
        let mut out = Output::new(Failing(ErrorKind::StorageFull));
        assert!(serde_json::to_writer(&mut out, &[1, 2]).is_ok());
        assert_eq!(out.finish(0), EXIT_IOERR);
    }

    #[test]
    fn a_closed_pipe_keeps_the_code() {
        let mut out = Output::new(Failing(ErrorKind::BrokenPipe));
        out.write("text");
        assert_eq!(out.finish(1), 1);
    }
}
