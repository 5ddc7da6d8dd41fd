//! Known protocol vocabulary of the v0.1 bindings, embedded from `bindings-registry.yaml`.
//!
//! Used only for warnings: W-002 (unknown mode), W-003 (unknown protocol), V-029 (trigger event not
//! known for a known mode) and V-018 (surface not known for a known protocol). Nothing here ever
//! makes a document invalid.

/// The modes of each known protocol.
const PROTOCOLS: &[(&str, &[&str])] = &[
    ("mcp", &["mcp_server", "mcp_client"]),
    ("a2a", &["a2a_server", "a2a_client"]),
    ("ag_ui", &["ag_ui_client"]),
];

const MCP_SERVER: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "notifications/initialized",
    "notifications/roots/list_changed",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/tasks/status",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
];

const MCP_CLIENT: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/prompts/list_changed",
    "notifications/elicitation/complete",
    "notifications/message",
    "notifications/progress",
    "notifications/cancelled",
    "notifications/tasks/status",
];

const A2A_SERVER: &[&str] = &[
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
    "agent_card/get",
];

const A2A_CLIENT: &[&str] = &[
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
    "agent_card/get",
    "task/status",
    "task/artifact",
];

const AG_UI_CLIENT: &[&str] = &[
    "run_agent_input",
    "run_started",
    "run_finished",
    "run_error",
    "step_started",
    "step_finished",
    "text_message_start",
    "text_message_content",
    "text_message_end",
    "text_message_chunk",
    "tool_call_start",
    "tool_call_args",
    "tool_call_end",
    "tool_call_chunk",
    "tool_call_result",
    "state_snapshot",
    "state_delta",
    "messages_snapshot",
    "activity_snapshot",
    "activity_delta",
    "reasoning_start",
    "reasoning_message_start",
    "reasoning_message_content",
    "reasoning_message_end",
    "reasoning_message_chunk",
    "reasoning_end",
    "reasoning_encrypted_value",
    "raw",
    "custom",
];

/// Trigger event types each known mode can observe.
const EVENTS: &[(&str, &[&str])] = &[
    ("mcp_server", MCP_SERVER),
    ("mcp_client", MCP_CLIENT),
    ("a2a_server", A2A_SERVER),
    ("a2a_client", A2A_CLIENT),
    ("ag_ui_client", AG_UI_CLIENT),
];

/// The modes defined by the included protocol bindings (v0.1: `mcp_server`, `mcp_client`,
/// `a2a_server`, `a2a_client`, `ag_ui_client`).
pub fn known_modes() -> &'static [&'static str] {
    &[
        "mcp_server",
        "mcp_client",
        "a2a_server",
        "a2a_client",
        "ag_ui_client",
    ]
}

/// The protocols defined by the included protocol bindings (v0.1: `mcp`, `a2a`, `ag_ui`).
pub fn known_protocols() -> &'static [&'static str] {
    &["mcp", "a2a", "ag_ui"]
}

/// The trigger events of a known mode; `None` for an unknown mode (event checks are skipped).
pub fn known_events(mode: &str) -> Option<&'static [&'static str]> {
    EVENTS.iter().find(|(m, _)| *m == mode).map(|(_, e)| *e)
}

/// Whether `surface` names an operation of a known protocol; `None` for an unknown protocol.
/// The surfaces of a protocol are the union of the events of its modes.
pub fn is_known_surface(protocol: &str, surface: &str) -> Option<bool> {
    let (_, modes) = PROTOCOLS.iter().find(|(p, _)| *p == protocol)?;
    Some(
        modes
            .iter()
            .filter_map(|m| known_events(m))
            .any(|events| events.contains(&surface)),
    )
}

/// The surfaces of a known protocol (the events of its modes, repeated where modes share them);
/// nothing for an unknown protocol.
pub(crate) fn known_surfaces(protocol: &str) -> impl Iterator<Item = &'static str> {
    PROTOCOLS
        .iter()
        .filter(move |(p, _)| *p == protocol)
        .flat_map(|(_, modes)| modes.iter())
        .filter_map(|m| known_events(m))
        .flat_map(|events| events.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(condition: bool, what: &str) {
        assert!(condition, "{what}");
    }

    #[test]
    fn modes_and_protocols_agree() {
        for (protocol, modes) in PROTOCOLS {
            check(known_protocols().contains(protocol), protocol);
            for mode in *modes {
                check(known_modes().contains(mode), mode);
                check(known_events(mode).is_some(), mode);
            }
        }
        check(
            is_known_surface("mcp", "notifications/message") == Some(true),
            "mcp surface",
        );
        check(
            is_known_surface("mcp", "bogus") == Some(false),
            "mcp bogus surface",
        );
        check(is_known_surface("x", "y").is_none(), "unknown protocol");
    }

    /// The constants above equal `data/bindings-registry.yaml`, the project's registry file, vendored in
    /// this crate (`cargo xtask shared-sync` checks the copy against the spec's).
    #[cfg(feature = "yaml")]
    #[test]
    fn matches_registry_file() {
        let text = include_str!("../../data/bindings-registry.yaml");
        let file: serde_json::Value = match serde_saphyr::from_str(text) {
            Ok(v) => v,
            Err(e) => panic!("bindings-registry.yaml does not parse: {e}"),
        };
        let mut modes_in_file = Vec::new();
        if let Some(protocols) = file["protocols"].as_object() {
            check(protocols.len() == PROTOCOLS.len(), "protocol count");
            for (protocol, entry) in protocols {
                let modes: Vec<&str> = entry["modes"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|m| m.as_str()).collect())
                    .unwrap_or_default();
                let ours = PROTOCOLS
                    .iter()
                    .find(|(p, _)| p == protocol)
                    .map(|(_, m)| m.to_vec());
                assert_eq!(ours, Some(modes.clone()), "modes of {protocol}");
                modes_in_file.extend(modes);
            }
        }
        let events = file["events"].as_object().cloned().unwrap_or_default();
        check(events.len() == EVENTS.len(), "event table count");
        for (mode, list) in events {
            let file_events: Vec<&str> = list
                .as_array()
                .map(|a| a.iter().filter_map(|e| e.as_str()).collect())
                .unwrap_or_default();
            assert_eq!(
                known_events(&mode),
                Some(file_events.as_slice()),
                "events of {mode}"
            );
        }
        check(modes_in_file.len() == known_modes().len(), "mode count");
    }
}
