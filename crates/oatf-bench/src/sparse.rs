//! The trace of the `sparse` measure (issue 25 part 2, D-91): a realistic session in which most
//! lines are traffic no indicator applies to.
//!
//! Of every ten lines, two are the requests the scaling attack ([`scaling_attack`]) watches (an MCP
//! `tools/call` and an A2A `message/send` request, as in [`scaling_trace_line`]); the other eight
//! are the responses to them, progress and log notifications, a `tools/list` request and its
//! response, a `ping` and a `resources/read` response, of similar sizes. Nothing matches.
//!
//! [`scaling_attack`]: crate::scaling::scaling_attack

use crate::scaling::scaling_trace_line;

/// Line `seq` (from 1) of the sparse trace (see the module documentation).
pub fn sparse_trace_line(seq: u64) -> String {
    let t = format!(
        "2026-11-20T{:02}:{:02}:{:02}.{:03}Z",
        seq / 3_600_000 % 24,
        seq / 60_000 % 60,
        seq / 1000 % 60,
        seq % 1000
    );
    let head = |actor: &str, direction: &str, method: &str| {
        format!(
            r#"{{"seq":{seq},"timestamp":"{t}","actor":"{actor}","phase":"serve","direction":"{direction}","method":"{method}","content":"#
        )
    };
    let m = seq % 97;
    match seq % 10 {
        // `seq % 10` 0 is even (an MCP request), 3 is odd (an A2A request).
        0 | 3 => scaling_trace_line(seq),
        1 => format!(
            r#"{}{{"content":[{{"type":"text","text":"running 42 tests\ntest handlers::orders::tests::quantity_is_positive ... ok\ntest handlers::orders::tests::quantity_above_limit ... FAILED\ntest handlers::orders::tests::rejects_negative ... ok\n\nfailures:\n---- handlers::orders::tests::quantity_above_limit stdout ----\nthread panicked at src/handlers/orders.rs:{m}:9: assertion failed: left == right\n  left: 1001\n right: 1000\n\ntest result: FAILED. 41 passed; 1 failed; 0 ignored"}}],"isError":false}}}}"#,
            head("mcp_0", "outgoing", "tools/call")
        ),
        2 => format!(
            r#"{}{{"progressToken":"run-{m}","progress":{p},"total":100,"message":"compiling service-{m} (bin \"orders\")"}}}}"#,
            head("mcp_0", "outgoing", "notifications/progress"),
            p = seq % 100
        ),
        4 => format!(
            r#"{}{{"id":"task-{seq}","contextId":"c-{m}","status":{{"state":"completed","timestamp":"{t}"}},"artifacts":[{{"artifactId":"a-{seq}","parts":[{{"kind":"text","text":"Region {m}: sales rose 4.2% in Q1 and 3.1% in Q2 against a forecast of 3.5%; Q3 fell 1.4% (forecast +2.0%). The three products whose margin changed most: chairs (+6.1 points), lamps (-4.8 points), desks (+3.9 points). Rows used: 1-412 of orders-{m}.csv."}}]}}],"kind":"task"}}}}"#,
            head("a2a_0", "outgoing", "message/send")
        ),
        5 => format!(
            r#"{}{{"level":"info","logger":"orders","data":{{"event":"request handled","path":"/api/orders/{seq}","status":200,"duration_ms":{d},"user":"u-{m}"}}}}}}"#,
            head("mcp_0", "outgoing", "notifications/message"),
            d = seq % 250
        ),
        6 => format!(r#"{}{{}}}}"#, head("mcp_0", "incoming", "tools/list")),
        7 => format!(
            r#"{}{{"tools":[{{"name":"run","description":"Runs a shell command in the project directory and returns its output.","inputSchema":{{"type":"object","properties":{{"command":{{"type":"string"}},"path":{{"type":"string"}},"notes":{{"type":"string"}},"timeout_ms":{{"type":"integer"}}}},"required":["command"]}}}},{{"name":"read_file","description":"Reads a file of the project.","inputSchema":{{"type":"object","properties":{{"path":{{"type":"string"}}}},"required":["path"]}}}}]}}}}"#,
            head("mcp_0", "outgoing", "tools/list")
        ),
        8 => format!(r#"{}{{}}}}"#, head("mcp_0", "incoming", "ping")),
        _ => format!(
            r##"{}{{"contents":[{{"uri":"file:///home/dev/projects/service-{m}/README.md","mimeType":"text/markdown","text":"# service-{m}\n\nThe orders service. Run `cargo test` before sending a change; the handlers live in `src/handlers`, the validation rules in `src/rules.rs`. Quantities above 1000 are rejected by design (see the decision of March)."}}]}}}}"##,
            head("mcp_0", "outgoing", "resources/read")
        ),
    }
}

/// A JSON Lines trace of `messages` lines of [`sparse_trace_line`].
pub fn sparse_trace(messages: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for seq in 1..=messages {
        out.extend_from_slice(sparse_trace_line(seq).as_bytes());
        out.push(b'\n');
    }
    out
}
