//! The attack and trace of the scaling measure (issue 25): cost per message against the number of
//! indicators, when most indicators apply to each message.
//!
//! Two actors, `mcp_0` (`mcp_server`) and `a2a_0` (`a2a_server`). Indicator `i` watches the
//! agent's requests of one of them (`tools/call` for MCP, `message/send` for A2A, alternating), so
//! every message of the trace, a request of one of the two, is evaluated by half of the indicators.
//! Of every ten indicators seven are regexes of the library ([`public_library_regexes`]: every regex
//! of the library documents in `crates/oatf-sdk/tests/library`, in turn, each made distinct by an
//! alternative of its own), one `contains`, one `starts_with`, and one a CEL
//! expression (or, without CEL, a `contains`). MCP indicators look at `arguments` as a whole (a
//! third of the regexes), `arguments.command`, `arguments.path` or `arguments.notes`; A2A
//! indicators at `message.parts[*].text`. The messages are about 700 bytes of ordinary traffic
//! (code, paths, prose); nothing matches, so every applicable indicator does all its work.

use std::fmt::Write as _;

use crate::library::public_library_regexes;

/// Literals of the `contains` and `starts_with` indicators (none occurs in the trace).
const LITERALS: [&str; 8] = [
    "BEGIN OPENSSH PRIVATE KEY",
    "/etc/shadow",
    ".aws/credentials",
    "sk-live-",
    "ghp_",
    "xoxb-",
    "../../",
    "DROP TABLE",
];

/// The scaling attack with `indicators` indicators, as YAML (see the module documentation).
pub fn scaling_attack(indicators: usize, cel: bool) -> String {
    let mut out = String::from(
        "oatf: \"0.1\"\nattack:\n  id: OATF-960\n  name: \"Scaling benchmark attack\"\n  version: 1\n  \
         status: experimental\n  description: \"Synthetic attack: most indicators apply to each message.\"\n  \
         execution:\n    actors:\n      - name: mcp_0\n        mode: mcp_server\n        phases:\n          \
         - name: serve\n            state:\n              tools:\n                - name: run\n                  \
         description: \"Runs a command.\"\n                  inputSchema:\n                    type: object\n      \
         - name: a2a_0\n        mode: a2a_server\n        phases:\n          - name: serve\n            state:\n              \
         agent_card:\n                name: \"Analyst\"\n                description: \"Analyzes.\"\n                \
         url: \"https://analyst.example.com/a2a\"\n                skills: []\n  indicators:\n",
    );
    let regexes = public_library_regexes();
    for i in 0..indicators {
        let mcp = i.is_multiple_of(2);
        let (actor, protocol, surface) = if mcp {
            ("mcp_0", "mcp", "tools/call")
        } else {
            ("a2a_0", "a2a", "message/send")
        };
        let text_target = if mcp {
            ["arguments.command", "arguments.path", "arguments.notes"][(i / 2) % 3]
        } else {
            "message.parts[*].text"
        };
        let literal = LITERALS[i % LITERALS.len()];
        let (target, block) = match i % 10 {
            7 => (
                text_target,
                format!("pattern:\n        contains: \"{literal}{i}\""),
            ),
            8 => (
                text_target,
                format!("pattern:\n        starts_with: \"{literal}{i}\""),
            ),
            9 if cel => {
                let expression = if mcp {
                    format!(
                        "message.arguments.exists(k, k in ['password', 'api_key', 'secret_{i}'])"
                    )
                } else {
                    format!(
                        "message.message.parts.exists(p, p.kind == 'text' && p.text.contains('api_key {i}'))"
                    )
                };
                (
                    "arguments",
                    format!("expression:\n        cel: \"{expression}\""),
                )
            }
            9 => (
                text_target,
                format!("pattern:\n        contains: \"{literal}-{i}\""),
            ),
            _ => {
                let target = if mcp && (i / 2).is_multiple_of(3) {
                    "arguments"
                } else {
                    text_target
                };
                let regex = &regexes[(i / 10 * 7 + i % 10) % regexes.len()];
                (
                    target,
                    format!("pattern:\n        regex: '{regex}|oatf-canary-{i:04}'"),
                )
            }
        };
        let _ = write!(
            out,
            "    - id: OATF-960-{n:04}\n      actor: {actor}\n      protocol: {protocol}\n      surface: {surface}\n      \
             direction: request\n      target: \"{target}\"\n      {block}\n",
            n = i + 1
        );
    }
    out.push_str("  correlation:\n    logic: any\n");
    out
}

/// Line `seq` (from 1) of the scaling trace: an MCP `tools/call` request or an A2A `message/send`
/// request, alternating, of about 700 bytes.
pub fn scaling_trace_line(seq: u64) -> String {
    let timestamp = format!(
        "2026-11-20T{:02}:{:02}:{:02}.{:03}Z",
        seq / 3_600_000 % 24,
        seq / 60_000 % 60,
        seq / 1000 % 60,
        seq % 1000
    );
    if seq.is_multiple_of(2) {
        format!(
            r#"{{"seq":{seq},"timestamp":"{timestamp}","actor":"mcp_0","phase":"serve","direction":"incoming","method":"tools/call","content":{{"name":"run","arguments":{{"command":"cargo test --workspace --all-features -- --test-threads 2 module_{m}::tests","path":"/home/dev/projects/service-{m}/src/handlers/orders.rs","notes":"The build of request {seq} failed on the orders handler: the quantity field is parsed as a signed integer and the validation rejects values above 1000. Please run the tests of the module again after formatting the code and report which cases still fail, with the first lines of each failure.","env":{{"RUST_LOG":"info","CI":"false"}},"timeout_ms":{t}}}}}}}"#,
            m = seq % 97,
            t = 30_000 + seq % 1000
        )
    } else {
        format!(
            r#"{{"seq":{seq},"timestamp":"{timestamp}","actor":"a2a_0","phase":"serve","direction":"incoming","method":"message/send","content":{{"message":{{"messageId":"m-{seq}","role":"user","parts":[{{"kind":"text","text":"Summarize the sales of region {r} by quarter for the last two years, compare them with the forecast the planning team sent in March, and list the three products whose margin changed the most. Keep the answer under two hundred words and cite the rows of the dataset you used."}},{{"kind":"text","text":"The dataset is attached as orders-{r}.csv; the currency is EUR and the fiscal year starts in April."}}],"metadata":{{"priority":{p},"conversation":"c-{r}"}}}}}}}}"#,
            r = seq % 53,
            p = seq % 10
        )
    }
}

/// A JSON Lines trace of `messages` lines of [`scaling_trace_line`].
pub fn scaling_trace(messages: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for seq in 1..=messages {
        out.extend_from_slice(scaling_trace_line(seq).as_bytes());
        out.push(b'\n');
    }
    out
}
