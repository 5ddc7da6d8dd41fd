//! The stdio transport: `Content-Length` framed JSON-RPC messages on standard input and output, as
//! `lsp-server`'s own, except that a message that cannot be read is answered or skipped instead of
//! ending the server (D-116): a string with a lone UTF-16 surrogate escape (`"\ud800"`, which an
//! editor's `JSON.stringify` writes for a lone surrogate in a document) is read with U+FFFD in its
//! place, bytes that are not UTF-8 likewise, and a message larger than [`MAX_MESSAGE`] is skipped.

use std::io::{self, BufRead, Read};
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, bounded};
use lsp_server::{Connection, ErrorCode, Message, RequestId, Response};
use serde_json::Value;

/// The largest message read: past the parser's 10 MiB input limit with room for JSON escaping.
pub(crate) const MAX_MESSAGE: usize = 64 << 20;

/// The threads that move messages between the connection and standard input and output.
pub(crate) struct Threads {
    reader: JoinHandle<()>,
    writer: JoinHandle<io::Result<()>>,
}

impl Threads {
    /// Waits for the writer to send what is queued, once the reader is done (after `exit` or the end of
    /// the input); a reader still blocked on standard input is left to the process's end.
    pub(crate) fn join(self) -> io::Result<()> {
        if !self.reader.is_finished() {
            return Ok(());
        }
        let _ = self.reader.join();
        self.writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")))
    }
}

/// A connection over standard input and output.
pub(crate) fn stdio() -> io::Result<(Connection, Threads)> {
    let (to_writer, from_server) = bounded::<Message>(16);
    let (to_server, from_reader) = bounded::<Message>(0);
    let writer = std::thread::Builder::new()
        .name("oatf-lsp-writer".to_owned())
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            for message in from_server {
                message.write(&mut out)?;
            }
            Ok(())
        })?;
    let answer = to_writer.clone();
    let reader = std::thread::Builder::new()
        .name("oatf-lsp-reader".to_owned())
        .spawn(move || {
            let stdin = io::stdin();
            read_loop(&mut stdin.lock(), &to_server, &answer);
        })?;
    let connection = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    Ok((connection, Threads { reader, writer }))
}

/// Reads messages until the input ends, an `exit` notification, or framing that cannot be followed.
pub(crate) fn read_loop<R: BufRead>(
    input: &mut R,
    server: &Sender<Message>,
    answer: &Sender<Message>,
) {
    loop {
        let body = match read_frame(input) {
            Ok(Some(Some(body))) => body,
            Ok(Some(None)) => continue,
            Ok(None) => return,
            Err(e) => {
                eprintln!("error: oatf lsp: {e}");
                return;
            }
        };
        match decode(&body) {
            Ok(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if server.send(message).is_err() || exit {
                    return;
                }
            }
            Err(Some(id)) => {
                let response = Response::new_err(
                    id,
                    ErrorCode::InvalidRequest as i32,
                    "oatf lsp cannot read this request".to_owned(),
                );
                let _ = answer.send(Message::Response(response));
            }
            Err(None) => eprintln!("warning: oatf lsp: a message that is not JSON-RPC was skipped"),
        }
    }
}

/// One frame's body: `None` at the end of the input, `Some(None)` for a body too large (skipped).
fn read_frame<R: BufRead>(input: &mut R) -> io::Result<Option<Option<Vec<u8>>>> {
    let mut size = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.by_ref().take(4096).read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if size.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            size = value.trim().parse::<usize>().ok();
        }
    }
    let size = size.unwrap_or(0);
    if size > MAX_MESSAGE {
        io::copy(&mut input.by_ref().take(size as u64), &mut io::sink())?;
        eprintln!("warning: oatf lsp: a message of {size} bytes was skipped (limit {MAX_MESSAGE})");
        return Ok(Some(None));
    }
    let mut body = vec![0; size];
    input.read_exact(&mut body)?;
    Ok(Some(Some(body)))
}

/// The message of a body; when it cannot be read, the id of the request to answer, if any.
fn decode(body: &[u8]) -> Result<Message, Option<RequestId>> {
    let text = String::from_utf8_lossy(body);
    if let Ok(message) = serde_json::from_str::<Message>(&text) {
        return Ok(message);
    }
    let repaired = replace_lone_surrogates(&text);
    if let Ok(message) = serde_json::from_str::<Message>(&repaired) {
        return Ok(message);
    }
    let value: Value = serde_json::from_str(&repaired).map_err(|_| None)?;
    let id = value.get("id").cloned().ok_or(None)?;
    Err(serde_json::from_value::<RequestId>(id).ok())
}

/// `text` with each `\uXXXX` escape of a lone surrogate replaced by `\ufffd`.
fn replace_lone_surrogates(text: &str) -> String {
    let hex = |s: &str| s.get(..4).and_then(|h| u16::from_str_radix(h, 16).ok());
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        if let Some(unit) = escape.strip_prefix("\\u").and_then(hex) {
            let high = (0xD800..0xDC00).contains(&unit);
            let low = (0xDC00..0xE000).contains(&unit);
            let paired = high
                && escape
                    .get(6..)
                    .and_then(|n| n.strip_prefix("\\u"))
                    .and_then(hex)
                    .is_some_and(|n| (0xDC00..0xE000).contains(&n));
            if paired {
                out.push_str(&escape[..12]);
                rest = &escape[12..];
            } else if high || low {
                out.push_str("\\ufffd");
                rest = &escape[6..];
            } else {
                out.push_str(&escape[..6]);
                rest = &escape[6..];
            }
        } else {
            // Any other escape: the backslash and the character it escapes.
            let len = escape[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
            out.push_str(&escape[..len]);
            rest = &escape[len..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn lone_surrogates_are_replaced_and_pairs_kept() {
        assert_eq!(replace_lone_surrogates(r#""a\ud800b""#), r#""a\ufffdb""#);
        assert_eq!(replace_lone_surrogates(r#""\udc00""#), r#""\ufffd""#);
        assert_eq!(
            replace_lone_surrogates(r#""\ud83d\ude00""#),
            r#""\ud83d\ude00""#
        );
        assert_eq!(replace_lone_surrogates(r#""\\ud800""#), r#""\\ud800""#);
    }

    #[test]
    fn unreadable_messages_do_not_end_the_loop() {
        let open = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a","languageId":"yaml","version":1,"text":"a: \ud800"}}}"#;
        let bad_request = r#"{"jsonrpc":"2.0","id":7,"method":5}"#;
        let input = format!(
            "{}{}{}{}",
            frame(open),
            frame("not json"),
            frame(bad_request),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
        );
        let (server, from_reader) = crossbeam_channel::unbounded();
        let (answer, answers) = crossbeam_channel::unbounded();
        read_loop(&mut input.as_bytes(), &server, &answer);
        let got: Vec<String> = from_reader
            .try_iter()
            .map(|m| match m {
                Message::Notification(n) => n.method,
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(got, ["textDocument/didOpen", "exit"]);
        let answered: Vec<Message> = answers.try_iter().collect();
        assert!(
            matches!(answered.as_slice(), [Message::Response(r)] if r.id == RequestId::from(7)),
            "{answered:?}"
        );
    }
}
