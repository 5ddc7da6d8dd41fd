//! One MCP session over stdio: the loop that reads the client's lines, answers them from the phase
//! engine, runs the entry actions of the phases entered and records every message.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use oatf::runtime::{
    Direction, Dispatch, EntryAction, PhaseEngine, PhaseEntry, TemplateDiagnostic,
};
use oatf::{TraceDirection, TraceMessage};
use serde_json::{Value, json};

use super::jsonrpc::{self, Incoming, Line, PARSE_ERROR, RpcError};
use super::mcp;
use super::record::Recorder;
use crate::render::safe_text::escape;

/// The most calls that wait for the client's answer to an elicitation at once.
const MAX_DEFERRED: usize = 1024;

/// The server side of a session: the engine, where replies go and where messages are recorded.
pub(crate) struct Session<'a, W: Write> {
    engine: PhaseEngine,
    out: W,
    recorder: Recorder<'a>,
    clock: Instant,
    /// Ids of the requests the server sent (`send` actions, elicitations), by id, with their method.
    pending: HashMap<String, String>,
    /// Requests whose reply waits for the client's answer to an elicitation, by the elicitation's
    /// id: the request's id, method and params.
    deferred: HashMap<String, (Value, String, Value)>,
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
            deferred: HashMap::new(),
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
                let key = id.to_string();
                let method = self.pending.remove(&key);
                self.record(TraceDirection::Incoming, method.as_deref(), content.clone());
                // The agent's answer to the server's request is data it sent: extractors see it.
                self.engine.capture(Direction::Incoming, &content);
                if let Some((id, method, params)) = self.deferred.remove(&key) {
                    self.reply(&id, &method, &params);
                }
            }
            Incoming::Invalid { id, error, content } => self.invalid(&id, &error, content),
        }
    }

    /// Answers a request from the phase it arrived in, then advances on it (the reply belongs to
    /// that phase; the next phase's entry actions follow the reply).
    fn request(&mut self, id: &Value, method: &str, params: &Value) {
        self.record(TraceDirection::Incoming, Some(method), params.clone());
        self.engine.capture(Direction::Incoming, params);
        // A client that never answers cannot make the server hold calls without bound: past
        // `MAX_DEFERRED` waiting calls, a call is answered without eliciting.
        if matches!(method, "tools/call" | "prompts/get")
            && self.deferred.len() < MAX_DEFERRED
            && let Some(elicitation) = self.engine.respond(Dispatch::List("elicitations"), params)
        {
            // Elicit first (binding §7.1.4); the reply follows the client's answer.
            self.warn(elicitation.diagnostics(), "elicitations");
            let mut request = elicitation.into_entry();
            request.remove("synthesize");
            let elicitation_id = self.next_id;
            if request.get("mode").and_then(Value::as_str) == Some("url") {
                request
                    .entry("elicitationId")
                    .or_insert_with(|| json!(format!("oatf-elicitation-{elicitation_id}")));
            }
            let key = self.send_request("elicitation/create", Some(Value::Object(request)));
            self.deferred
                .insert(key, (id.clone(), method.to_owned(), params.clone()));
            return;
        }
        self.reply(id, method, params);
    }

    /// Answers a request from the current phase, then advances on it.
    fn reply(&mut self, id: &Value, method: &str, params: &Value) {
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
            EntryAction::Send { method, params } if method.starts_with("notifications/") => {
                self.send(&jsonrpc::message(None, &method, params.as_ref()));
                self.record_sent(Some(&method), params.unwrap_or_else(|| json!({})));
            }
            EntryAction::Send { method, params } => {
                self.send_request(&method, params);
            }
            EntryAction::Log { message, level } => {
                eprintln!("oatf serve: [{}] {}", level.as_str(), escape(&message));
            }
            // A binding-specific spelling some documents use for a notification (D-121).
            EntryAction::Other { key, value }
                if key == "send_notification"
                    && value.get("method").is_some_and(Value::is_string) =>
            {
                let method = value["method"].as_str().unwrap_or_default().to_owned();
                let params = value.get("params").cloned();
                self.send(&jsonrpc::message(None, &method, params.as_ref()));
                self.record_sent(Some(&method), params.unwrap_or_else(|| json!({})));
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

    /// Sends a request of the server's own (id `oatf-N`), remembering its method for the answer;
    /// gives the id's key.
    fn send_request(&mut self, method: &str, params: Option<Value>) -> String {
        let id = json!(format!("oatf-{}", self.next_id));
        self.next_id += 1;
        let key = id.to_string();
        self.pending.insert(key.clone(), method.to_owned());
        self.send(&jsonrpc::message(Some(&id), method, params.as_ref()));
        self.record_sent(Some(method), params.unwrap_or_else(|| json!({})));
        key
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    const DOCUMENT: &str = r#"oatf: "0.1"
attack:
  id: T-001
  name: t
  version: 1
  status: experimental
  description: d
  severity: {level: low, confidence: 1}
  execution:
    mode: mcp_server
    phases:
      - state:
          tools:
            - name: t
              responses:
                - when: {arguments.x: {regex: "^a+$"}}
                  content: {content: [{type: text, text: "{{request.arguments.x}}{{v}}"}]}
                - content: [{type: text, text: "{{request.name}}"}]
        extractors:
          - {name: v, source: request, type: regex, selector: "(b+)"}
        trigger: {event: tools/call, count: 3}
      - on_enter:
          - send: {method: roots/list, params: {"{{v}}": "{{v}}"}}
          - {x-note: 1, log: {message: "{{v}}"}}
          - {delay_ms: 5}
          - send_notification: {method: notifications/tools/list_changed}
  indicators:
    - id: T-001-01
      protocol: mcp
      target: arguments
      pattern: {contains: "x"}
"#;

    /// Runs a session over `lines` (and the end of input); gives the reply lines and the recorder.
    fn serve(lines: &[String]) -> (Vec<Value>, u64) {
        serve_document(DOCUMENT, lines)
    }

    fn serve_document(document: &str, lines: &[String]) -> (Vec<Value>, u64) {
        let loaded = oatf::load(document).unwrap();
        let engine = PhaseEngine::for_document(&loaded.normalized(), None).unwrap();
        let (sender, receiver) = mpsc::channel();
        for line in lines {
            sender.send(Ok(Line::Text(line.clone()))).unwrap();
        }
        sender.send(Ok(Line::TooLong)).unwrap();
        drop(sender);
        let mut out = Vec::new();
        let recorder =
            Session::new(engine, &mut out, Recorder::new("default", None, None), 64).run(&receiver);
        let replies = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (replies, recorder.count())
    }

    #[test]
    fn every_request_gets_one_reply_whatever_the_input() {
        // Fragments of JSON-RPC, recombined pseudo-randomly: the session never panics, answers each
        // line that has an id exactly once, and records every line.
        let fragments = [
            r#"{"jsonrpc":"2.0","#,
            r#""id":1,"#,
            r#""id":"s","#,
            r#""id":null,"#,
            r#""id":[1],"#,
            r#""method":"tools/call","#,
            r#""method":"tools/list","#,
            r#""method":"notifications/x","#,
            r#""method":5,"#,
            r#""params":{"name":"t","arguments":{"x":"aaa"}},"#,
            r#""params":{"name":"t","arguments":{"x":"bbb"}},"#,
            r#""params":[1],"#,
            r#""params":"x","#,
            r#""result":{},"#,
            r#""error":{"code":1},"#,
            r#""z":0}"#,
            "}",
            "{",
            "\u{0}",
            "\"\\ud800\"",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % n as u64).unwrap()
        };
        let lines: Vec<String> = (0..3000)
            .map(|_| {
                (0..1 + next(6))
                    .map(|_| fragments[next(fragments.len())])
                    .collect()
            })
            .collect();
        let (replies, recorded) = serve(&lines);
        for reply in &replies {
            assert_eq!(reply["jsonrpc"], "2.0");
            assert!(
                reply.get("result").is_some() != reply.get("error").is_some()
                    || reply.get("method").is_some()
            );
        }
        let answerable = lines
            .iter()
            .filter(|l| {
                matches!(
                    jsonrpc::classify(l),
                    Incoming::Request { .. } | Incoming::Invalid { .. }
                )
            })
            .count();
        let answers = replies.iter().filter(|r| r.get("method").is_none()).count();
        // One answer per request and per invalid line, and one for the line too long.
        assert_eq!(answers, answerable + 1);
        assert!(recorded >= u64::try_from(lines.len()).unwrap());
    }

    #[test]
    fn a_phase_change_sends_rendered_requests_after_the_reply() {
        let call = |id: u32, x: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{{"x":"{x}"}}}}}}"#
            )
        };
        let answer = r#"{"jsonrpc":"2.0","id":"oatf-1","result":{"roots":[]}}"#.to_owned();
        let (replies, recorded) = serve(&[call(1, "aa"), call(2, "zbbz"), call(3, "aaa"), answer]);
        let texts: Vec<&Value> = replies
            .iter()
            .map(|r| &r["result"]["content"][0]["text"])
            .collect();
        // The value extracted from call 2 renders in call 3's reply; call 2's list content is wrapped;
        // the entry action's keys are not templates (SDK §5.5a), its values are.
        assert_eq!(texts[..3], [&json!("aa"), &json!("t"), &json!("aaabb")]);
        assert_eq!(
            replies[3],
            json!({"jsonrpc": "2.0", "id": "oatf-1", "method": "roots/list", "params": {"{{v}}": "bb"}})
        );
        // Then the `send_notification` spelling; the line too long gets a parse error: 6 requests and
        // replies, the sent request and notification, the request's answer, the long line and its error.
        assert_eq!(
            replies[4],
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        );
        assert_eq!(replies[5]["error"]["code"], jsonrpc::PARSE_ERROR);
        assert_eq!(recorded, 11);
    }

    #[test]
    fn calls_waiting_for_an_elicitation_are_bounded() {
        let document = DOCUMENT.replace(
            "      - state:\n          tools:",
            "      - state:\n          elicitations: [{message: pw?}]\n          tools:",
        );
        let calls: Vec<String> = (0..MAX_DEFERRED + 5)
            .map(|i| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t"}}}}"#
                )
            })
            .collect();
        let (replies, _) = serve_document(&document, &calls);
        let elicited = replies
            .iter()
            .filter(|r| r["method"] == "elicitation/create")
            .count();
        let answered = replies.iter().filter(|r| r.get("result").is_some()).count();
        assert_eq!((elicited, answered), (MAX_DEFERRED, 5));
        assert_eq!(replies[0]["params"], json!({"message": "pw?"}));
    }
}
