//! JSON-RPC 2.0 over MCP's stdio transport (newline-delimited messages), spoken with `serde_json`
//! (D-120): reading bounded lines, classifying what arrived, and the error objects a server sends.

use std::io::{self, BufRead};

use serde_json::{Map, Value, json};

/// JSON-RPC error codes (JSON-RPC 2.0 §5.1, and MCP's "resource not found").
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The `error` member of a response.
    pub(crate) fn to_value(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let (Some(data), Some(object)) = (&self.data, error.as_object_mut()) {
            object.insert("data".to_owned(), data.clone());
        }
        error
    }
}

/// What one line from the client is.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A request: its id, method and params (`{}` when absent).
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification: method and params.
    Notification { method: String, params: Value },
    /// A response to a request the server sent: its id and its `result`, or its `error` object.
    Response { id: Value, content: Value },
    /// Not a JSON-RPC message: the error to answer (with id `null` unless the id could be read)
    /// and what to record (the parsed value, or the line as a string).
    Invalid {
        id: Value,
        error: RpcError,
        content: Value,
    },
}

/// Classifies one line (JSON-RPC 2.0 §4–§5): a request has `method` and `id`, a notification
/// `method` and no `id`, a response `id` and `result` or `error`. A batch (an array) is refused:
/// MCP 2025-06-18 removed batching.
pub(crate) fn classify(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
                content: Value::String(line.to_owned()),
            };
        }
    };
    let Value::Object(mut object) = value else {
        return invalid(value, Value::Null, "Invalid Request: not a JSON object");
    };
    let id = object.get("id").cloned();
    let valid_id = id
        .as_ref()
        .is_none_or(|id| id.is_string() || id.is_number() || id.is_null());
    if !valid_id || object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let id = id.filter(|_| valid_id).unwrap_or(Value::Null);
        return invalid(
            Value::Object(object),
            id,
            "Invalid Request: jsonrpc must be \"2.0\" and id a string or a number",
        );
    }
    match (object.remove("method"), id) {
        (Some(Value::String(method)), id) => {
            let params = match object.remove("params") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(params) => params,
            };
            match id {
                Some(id) => Incoming::Request { id, method, params },
                None => Incoming::Notification { method, params },
            }
        }
        (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
            let content = object
                .remove("result")
                .or_else(|| object.remove("error"))
                .unwrap_or(Value::Null);
            Incoming::Response { id, content }
        }
        (method, id) => {
            if let Some(method) = method {
                object.insert("method".to_owned(), method);
            }
            invalid(
                Value::Object(object),
                id.unwrap_or(Value::Null),
                "Invalid Request: no string method",
            )
        }
    }
}

fn invalid(content: Value, id: Value, message: &str) -> Incoming {
    Incoming::Invalid {
        id,
        error: RpcError::new(INVALID_REQUEST, message),
        content,
    }
}

/// A response line's value.
pub(crate) fn response(id: &Value, outcome: &Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error.to_value()}),
    }
}

/// A notification (`id` `None`) or a server-initiated request.
pub(crate) fn message(id: Option<&Value>, method: &str, params: Option<&Value>) -> Value {
    let mut object = Map::new();
    object.insert("jsonrpc".to_owned(), json!("2.0"));
    if let Some(id) = id {
        object.insert("id".to_owned(), id.clone());
    }
    object.insert("method".to_owned(), json!(method));
    if let Some(params) = params {
        object.insert("params".to_owned(), params.clone());
    }
    Value::Object(object)
}

/// One line read by [`read_line`].
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// A line (without its `\n` and a trailing `\r`), lossily decoded from UTF-8.
    Text(String),
    /// A line longer than the limit, skipped up to its newline without being held.
    TooLong,
    /// The end of the input.
    Eof,
}

/// Reads one line of at most `max` bytes; a longer line is skipped to its newline, never held.
pub(crate) fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            break;
        }
        read_any = true;
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        if !too_long && line.len() + chunk.len() <= max {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let consumed = done.unwrap_or(buffer.len());
        input.consume(consumed);
        if done.is_some() {
            break;
        }
    }
    if too_long {
        return Ok(Line::TooLong);
    }
    if !read_any {
        return Ok(Line::Eof);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Line::Text(String::from_utf8_lossy(&line).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_requests_notifications_responses_and_garbage() {
        let request = classify(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        assert_eq!(
            request,
            Incoming::Request {
                id: json!(1),
                method: "tools/list".into(),
                params: json!({})
            }
        );
        let note =
            classify(r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"a":1}}"#);
        assert!(
            matches!(note, Incoming::Notification { ref params, .. } if params == &json!({"a": 1}))
        );
        let reply = classify(r#"{"jsonrpc":"2.0","id":"oatf-1","error":{"code":1}}"#);
        assert_eq!(
            reply,
            Incoming::Response {
                id: json!("oatf-1"),
                content: json!({"code": 1})
            }
        );
        for (line, code, id) in [
            ("not json", PARSE_ERROR, Value::Null),
            ("[1,2]", INVALID_REQUEST, Value::Null),
            (r#"{"id":3,"method":"x"}"#, INVALID_REQUEST, json!(3)),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#,
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":7}"#,
                INVALID_REQUEST,
                json!(4),
            ),
        ] {
            match classify(line) {
                Incoming::Invalid { id: got, error, .. } => {
                    assert_eq!((error.code, got), (code, id), "{line}");
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn lines_are_bounded() {
        let mut input = io::Cursor::new(b"short\r\nxxxxxxxxxxxxxxxx\nlast".to_vec());
        let mut small = io::BufReader::with_capacity(4, &mut input);
        assert_eq!(
            read_line(&mut small, 8).unwrap(),
            Line::Text("short".into())
        );
        assert_eq!(read_line(&mut small, 8).unwrap(), Line::TooLong);
        assert_eq!(read_line(&mut small, 8).unwrap(), Line::Text("last".into()));
        assert_eq!(read_line(&mut small, 8).unwrap(), Line::Eof);
    }
}
