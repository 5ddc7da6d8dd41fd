//! The recording of a session: every message as a [`TraceMessage`] line of `docs/trace-format.md`
//! (written and flushed one at a time, so a killed session keeps what happened), and, with
//! `--evaluate`, the same messages streamed through a [`TraceEvaluator`].

use std::fs::File;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use oatf::{AttackVerdict, TraceEvaluator, TraceMessage};

use crate::render::safe_text::escape;

/// Where the messages of a session go.
pub(crate) struct Recorder<'a> {
    actor: String,
    file: Option<(String, File)>,
    evaluator: Option<TraceEvaluator<'a>>,
    seq: u64,
}

impl<'a> Recorder<'a> {
    /// Records messages of `actor` into `file` (named `name` in errors) and `evaluator`, each when
    /// given.
    pub(crate) fn new(
        actor: &str,
        file: Option<(String, File)>,
        evaluator: Option<TraceEvaluator<'a>>,
    ) -> Self {
        Recorder {
            actor: actor.to_owned(),
            file,
            evaluator,
            seq: 0,
        }
    }

    /// Records one message observed while the actor was in `phase`: numbered, time-stamped now,
    /// written as one line and flushed. A failed write is reported once and recording to the file
    /// stops; the session goes on.
    pub(crate) fn record(&mut self, message: TraceMessage, phase: &str) {
        self.seq += 1;
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let message = message
            .with_seq(self.seq)
            .with_timestamp_at(since_epoch)
            .with_actor(self.actor.as_str())
            .with_phase(phase);
        if let Some((name, file)) = &mut self.file {
            let written = serde_json::to_string(&message)
                .map_err(std::io::Error::other)
                .and_then(|mut line| {
                    line.push('\n');
                    file.write_all(line.as_bytes())?;
                    file.flush()
                });
            if let Err(e) = written {
                eprintln!(
                    "oatf serve: error: cannot write the trace {}: {e}; recording stops",
                    escape(name)
                );
                self.file = None;
            }
        }
        if let Some(evaluator) = &mut self.evaluator {
            evaluator.push(&message);
        }
    }

    /// The number of messages recorded.
    pub(crate) fn count(&self) -> u64 {
        self.seq
    }

    /// The verdict of the messages recorded, with `--evaluate`.
    pub(crate) fn finish(self) -> Option<AttackVerdict> {
        self.evaluator.map(TraceEvaluator::finish)
    }
}
