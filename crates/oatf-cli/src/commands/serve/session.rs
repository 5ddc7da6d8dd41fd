//! One MCP session over stdio: the loop that reads the client's lines, answers them from the phase
//! engine, runs the entry actions of the phases entered and records every message.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use oatf::runtime::{Direction, EntryAction, PhaseEngine, PhaseEntry, TemplateDiagnostic};
use oatf::{TraceDirection, TraceMessage};
use serde_json::{Value, json};

use super::jsonrpc::{self, Incoming, Line, PARSE_ERROR, RpcError};
use super::mcp;
use super::record::Recorder;
use crate::render::safe_text::escape;

/// The server side of a session: the engine, where replies go and where messages are recorded.
pub(crate) struct Session<'a, W: Write> {
    engine: PhaseEngine,
    out: W,
    recorder: Recorder<'a>,
    clock: Instant,
    /// Ids of the requests the server sent (`send` actions), by id, with their method.
    pending: HashMap<String, String>,
    next_id: u64,
    max_line_len: usize,
    /// Why the client can no longer be written to, once a write failed.
    closed: Option<io::Error>,
}

impl<'a, W: Write> Session<'a, W> {
    pub(crate) fn new(
        engine: PhaseEngine,
        out: W,
        recorder: Recorder<'a>,
        max_line_len: usize,
    ) -> Self {
        Session {
            engine,
            out,
            recorder,
            clock: Instant::now(),
            pending: HashMap::new(),
            next_id: 1,
            max_line_len,
            closed: None,
        }
    }

    fn now(&self) -> Duration {
        self.clock.elapsed()
    }

    /// Serves until the client closes its input (or the reader fails), ticking the phase clock while no line arrives. Gives the recorder back, with what it holds.
    pub(crate) fn run(mut self, lines: &Receiver<io::Result<Line>>) -> Recorder<'a> {
        let first = self.engine.start(self.now());
        self.enter(vec![first]);
        // After a failed write (the client went away mid-call) the lines still coming are read and
        // recorded, unanswered, until the input ends: the trace keeps what the client sent.
        loop {
            let next = match self.engine.next_deadline() {
                Some(deadline) => lines.recv_timeout(deadline.saturating_sub(self.now())),
                None => lines.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match next {
                Err(RecvTimeoutError::Timeout) => {
                    let entered = self.engine.tick(self.now());
                    self.enter(entered);
                }
                Ok(Ok(Line::Text(line))) => self.line(&line),
                Ok(Ok(Line::TooLong)) => {
                    let message = format!(
                        "Parse error: a line longer than {} bytes",
                        self.max_line_len
                    );
                    let error = RpcError::new(PARSE_ERROR, message);
                    let content =
                        json!(format!("<a line longer than {} bytes>", self.max_line_len));
                    self.invalid(&Value::Null, &error, content);
                }
                Ok(Ok(Line::Eof)) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(Err(e)) => {
                    eprintln!("oatf serve: cannot read from the client: {e}");
                    break;
                }
            }
        }
        if let Some(e) = &self.closed
            && e.kind() != io::ErrorKind::BrokenPipe
        {
            eprintln!("oatf serve: cannot write to the client: {e}");
        }
        self.recorder
    }

    /// Handles one line from the client.
    fn line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let entered = self.engine.tick(self.now());
        self.enter(entered);
        match jsonrpc::classify(line) {
            Incoming::Request { id, method, params } => self.request(&id, &method, &params),
            Incoming::Notification { method, params } => {
                self.record(TraceDirection::Incoming, Some(&method), params.clone());
                let now = self.now();
                let entered = self
                    .engine
                    .observe(Direction::Incoming, &method, &params, now);
                self.enter(entered);
            }
            Incoming::Response { id, content } => {
                let method = self.pending.remove(&id.to_string());
                self.record(TraceDirection::Incoming, method.as_deref(), content);
            }
            Incoming::Invalid { id, error, content } => self.invalid(&id, &error, content),
        }
    }

    /// Answers a request from the phase it arrived in, then advances on it (the reply belongs to
    /// that phase; the next phase's entry actions follow the reply).
    fn request(&mut self, id: &Value, method: &str, params: &Value) {
        self.record(TraceDirection::Incoming, Some(method), params.clone());
        self.engine.capture(Direction::Incoming, params);
        let (outcome, warnings) = mcp::answer(&self.engine, method, params);
        self.warn(&warnings, method);
        self.send(&jsonrpc::response(id, &outcome));
        let content = match &outcome {
            Ok(result) => {
                self.engine.capture(Direction::Outgoing, result);
                result.clone()
            }
            Err(error) => error.to_value(),
        };
        self.record_sent(Some(method), content);
        let now = self.now();
        let entered = self.engine.advance_on(method, params, now);
        self.enter(entered);
    }

    /// Answers what is not a JSON-RPC message with the error a server gives, recording both.
    fn invalid(&mut self, id: &Value, error: &RpcError, content: Value) {
        self.record(TraceDirection::Incoming, None, content);
        self.send(&jsonrpc::response(id, &Err(error.clone())));
        self.record_sent(None, error.to_value());
    }

    /// Runs the entry actions of the phases entered, in order.
    fn enter(&mut self, entered: Vec<PhaseEntry>) {
        for entry in entered {
            if let Some(reason) = entry.reason {
                eprintln!(
                    "oatf serve: phase {} {} entered ({reason})",
                    entry.index + 1,
                    escape(&entry.name)
                );
            }
            self.warn(&entry.diagnostics, &format!("on_enter of {}", entry.name));
            for action in entry.actions {
                self.action(action);
            }
        }
    }

    fn action(&mut self, action: EntryAction) {
        match action {
            EntryAction::Send { method, params } => {
                let id = (!method.starts_with("notifications/")).then(|| {
                    let id = json!(format!("oatf-{}", self.next_id));
                    self.next_id += 1;
                    self.pending.insert(id.to_string(), method.clone());
                    id
                });
                self.send(&jsonrpc::message(id.as_ref(), &method, params.as_ref()));
                self.record_sent(Some(&method), params.unwrap_or_else(|| json!({})));
            }
            EntryAction::Log { message, level } => {
                eprintln!("oatf serve: [{}] {}", level.as_str(), escape(&message));
            }
            EntryAction::Other { key, .. } if key.is_empty() => {
                eprintln!("oatf serve: warning: skipped an entry action without exactly one key");
            }
            EntryAction::Other { key, .. } => {
                eprintln!(
                    "oatf serve: warning: skipped the entry action {}: oatf serve does not implement it",
                    escape(&key)
                );
            }
            _ => eprintln!("oatf serve: warning: skipped an entry action it does not know"),
        }
    }

    fn warn(&self, warnings: &[TemplateDiagnostic], context: &str) {
        for warning in warnings {
            eprintln!(
                "oatf serve: warning: {} ({}): {}",
                warning.code(),
                escape(context),
                escape(&warning.message())
            );
        }
    }

    /// Writes one message to the client, flushed; after a failed write nothing more is written.
    fn send(&mut self, message: &Value) {
        if self.closed.is_some() {
            return;
        }
        let mut line = message.to_string();
        line.push('\n');
        if let Err(e) = self
            .out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.flush())
        {
            self.closed = Some(e);
        }
    }

    /// Records a message the server sent, when it reached the client (nothing is delivered after
    /// a failed write, so nothing is recorded as sent).
    fn record_sent(&mut self, method: Option<&str>, content: Value) {
        if self.closed.is_none() {
            self.record(TraceDirection::Outgoing, method, content);
        }
    }

    fn record(&mut self, direction: TraceDirection, method: Option<&str>, content: Value) {
        let message = match method {
            Some(method) => TraceMessage::new(direction, method, content),
            None => TraceMessage::without_method(direction, content),
        };
        self.recorder.record(message, self.engine.phase_name());
    }
}
