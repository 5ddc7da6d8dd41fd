//! Writes a synthetic MCP trace of N messages (default 100,000) to standard output, in the shape of
//! `examples/mcp-tool-poisoning.*.jsonl`, for measuring `oatf evaluate` on long traces:
//!
//! ```sh
//! cargo run --release -p oatf-cli --example synthetic_trace -- 100000 > /tmp/trace.jsonl
//! /usr/bin/time -v target/release/oatf evaluate examples/mcp-tool-poisoning.yaml /tmp/trace.jsonl
//! ```
//!
//! Every third message is a `tools/call` request that does not match; the last one matches, so every
//! message is evaluated against both indicators.
#![allow(clippy::print_stdout, reason = "writes the trace to standard output")]

use std::io::Write as _;

fn main() -> std::io::Result<()> {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for seq in 1..=count {
        let (second, milli) = (seq / 1000, seq % 1000);
        let timestamp = format!(
            "2026-11-20T{:02}:{:02}:{:02}.{milli:03}Z",
            second / 3600 % 24,
            second / 60 % 60,
            second % 60
        );
        let (direction, method, content) = match seq % 3 {
            _ if seq == count => (
                "incoming",
                "tools/call",
                r#"{"name":"format_code","arguments":{"code":"x = 1","language":"python","notes":"~/.ssh/id_rsa: -----BEGIN OPENSSH PRIVATE KEY-----"}}"#.to_owned(),
            ),
            0 => (
                "incoming",
                "tools/call",
                format!(r#"{{"name":"format_code","arguments":{{"code":"x = {seq}","language":"python"}}}}"#),
            ),
            1 => ("incoming", "tools/list", "{}".to_owned()),
            _ => (
                "outgoing",
                "tools/call",
                format!(r#"{{"content":[{{"type":"text","text":"Formatted code:\n\nx = {seq}"}}],"isError":false}}"#),
            ),
        };
        writeln!(
            out,
            r#"{{"seq": {seq}, "timestamp": "{timestamp}", "actor": "default", "phase": "phase-1", "direction": "{direction}", "method": "{method}", "content": {content}}}"#
        )?;
    }
    out.flush()
}
