//! What an `mcp_server` actor answers (MCP binding §7.1.4): each request's result built from the
//! effective state, rendered for the request, its pass-through content as written (D-121).

use oatf::runtime::{Dispatch, PhaseEngine, TemplateDiagnostic};
use serde_json::{Map, Value, json};

use super::jsonrpc::{
    INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND, RpcError,
};

/// The binding's default `protocol_version`.
pub(crate) const DEFAULT_PROTOCOL_VERSION: &str = "2025-11-25";

/// The result or error of `method`, and the W-004 warnings of rendering it.
pub(crate) fn answer(
    engine: &PhaseEngine,
    method: &str,
    params: &Value,
) -> (Result<Value, RpcError>, Vec<TemplateDiagnostic>) {
    let (state, rendered) = engine
        .render_state(Some(params))
        .unwrap_or_else(|| (Value::Object(Map::new()), Vec::new()));
    // The whole state is rendered; only the warnings of the part this answer sends are the user's.
    let used: &[&str] = match method {
        "initialize" => &[
            "protocol_version",
            "server_info",
            "capabilities",
            "instructions",
        ],
        "tools/list" => &["tools"],
        "prompts/list" => &["prompts"],
        "resources/list" => &["resources"],
        "resources/templates/list" => &["resource_templates"],
        _ => &[],
    };
    let mut warnings: Vec<TemplateDiagnostic> = rendered
        .into_iter()
        .filter(|w| {
            let path = w.path();
            let top = path.split(['.', '[']).next().unwrap_or_default();
            used.contains(&top) && !path.contains(".responses[") && !path.contains(".content")
        })
        .collect();
    let empty = Map::new();
    let state = state.as_object().unwrap_or(&empty);
    let outcome = match method {
        "initialize" => Ok(initialize(state)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": listed(state.get("tools"), "responses")})),
        "prompts/list" => Ok(json!({"prompts": listed(state.get("prompts"), "responses")})),
        "resources/list" => Ok(json!({"resources": listed(state.get("resources"), "content")})),
        "resources/templates/list" => Ok(json!({
            "resourceTemplates": state.get("resource_templates").cloned().unwrap_or(json!([])),
        })),
        "resources/read" => read_resource(state, params),
        "tools/call" => call(engine, state, params, "tools", &mut warnings),
        "prompts/get" => call(engine, state, params, "prompts", &mut warnings),
        _ => Err(
            RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
                .with_data(json!({"method": method})),
        ),
    };
    (outcome, warnings)
}

/// The `initialize` result: `protocol_version`, `server_info`, `capabilities` and `instructions`
/// of the state (snake case mapped to MCP's camel case), with the binding's defaults; capabilities
/// default to tools, resources and prompts, each with `listChanged` (D-121).
fn initialize(state: &Map<String, Value>) -> Value {
    let mut result = Map::new();
    result.insert(
        "protocolVersion".to_owned(),
        state
            .get("protocol_version")
            .cloned()
            .unwrap_or_else(|| json!(DEFAULT_PROTOCOL_VERSION)),
    );
    result.insert(
        "capabilities".to_owned(),
        state.get("capabilities").cloned().unwrap_or_else(|| {
            json!({
                "tools": {"listChanged": true},
                "resources": {"listChanged": true},
                "prompts": {"listChanged": true},
            })
        }),
    );
    result.insert(
        "serverInfo".to_owned(),
        state
            .get("server_info")
            .cloned()
            .unwrap_or_else(|| json!({"name": "oatf-server", "version": "1.0.0"})),
    );
    if let Some(instructions) = state.get("instructions") {
        result.insert("instructions".to_owned(), instructions.clone());
    }
    Value::Object(result)
}

/// A list of the state as the client sees it: each object without the OATF extension key
/// (`responses`, a resource's `content`); anything else, the list itself included, as written.
fn listed(list: Option<&Value>, extension: &str) -> Value {
    match list {
        None => json!([]),
        Some(Value::Array(items)) => Value::Array(
            items
                .iter()
                .map(|item| match item {
                    Value::Object(object) => {
                        let mut object = object.clone();
                        object.remove(extension);
                        Value::Object(object)
                    }
                    other => other.clone(),
                })
                .collect(),
        ),
        Some(other) => other.clone(),
    }
}

/// The entry of `group` (`tools`, `prompts`) named by the request's `name`.
fn find<'s>(state: &'s Map<String, Value>, group: &str, name: &str) -> Option<&'s Value> {
    state
        .get(group)?
        .as_array()?
        .iter()
        .find(|item| item.get("name").and_then(Value::as_str) == Some(name))
}

/// `tools/call` and `prompts/get`: the response entry selected for the request (SDK §5.7).
fn call(
    engine: &PhaseEngine,
    state: &Map<String, Value>,
    params: &Value,
    group: &str,
    warnings: &mut Vec<TemplateDiagnostic>,
) -> Result<Value, RpcError> {
    let what = if group == "tools" { "tool" } else { "prompt" };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("Missing {what} name"),
        ));
    };
    let Some(item) = find(state, group, name) else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("Unknown {what}: {name}"),
        ));
    };
    let dispatch = if group == "tools" {
        Dispatch::Tool(name)
    } else {
        Dispatch::Prompt(name)
    };
    let response = engine.respond(dispatch, params);
    if let Some(response) = &response {
        warnings.extend(response.diagnostics().iter().cloned());
        if response.is_synthesized() {
            return Err(RpcError::new(
                INTERNAL_ERROR,
                "the document asks for LLM synthesis (synthesize), which oatf serve does not do",
            ));
        }
    }
    if group == "tools" {
        // D-121: an object is the result as written; a list is the result's content items.
        return Ok(match response.as_ref().and_then(|r| r.content()) {
            Some(Value::Array(items)) => {
                // The CallToolResult's other members may sit beside `content` in the entry.
                let mut result = Map::new();
                result.insert("content".to_owned(), Value::Array(items.clone()));
                let entry = response.as_ref().map(|r| r.entry());
                for key in ["isError", "structuredContent", "_meta"] {
                    if let Some(value) = entry.and_then(|e| e.get(key)) {
                        result.insert(key.to_owned(), value.clone());
                    }
                }
                Value::Object(result)
            }
            Some(content) => content.clone(),
            None => json!({"content": []}),
        });
    }
    let mut result = Map::new();
    if let Some(description) = item.get("description") {
        result.insert("description".to_owned(), description.clone());
    }
    let messages = response
        .as_ref()
        .and_then(|r| r.entry().get("messages").or_else(|| r.content()))
        .cloned()
        .unwrap_or_else(|| json!([]));
    result.insert("messages".to_owned(), messages);
    Ok(Value::Object(result))
}

/// `resources/read`: the resource of the requested `uri`, its `content` wrapped into MCP's
/// `contents[]` (`uri`, `mimeType` when the resource has one, then `text` / `blob` as written; a
/// string content is the text).
fn read_resource(state: &Map<String, Value>, params: &Value) -> Result<Value, RpcError> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::new(INVALID_PARAMS, "Missing resource uri"));
    };
    let resource = state
        .get("resources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|r| r.get("uri").and_then(Value::as_str) == Some(uri))
        .ok_or_else(|| {
            RpcError::new(RESOURCE_NOT_FOUND, "Resource not found").with_data(json!({"uri": uri}))
        })?;
    let mut item = Map::new();
    item.insert("uri".to_owned(), json!(uri));
    if let Some(mime) = resource.get("mimeType") {
        item.insert("mimeType".to_owned(), mime.clone());
    }
    match resource.get("content") {
        Some(Value::Object(content)) => {
            item.extend(content.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Some(Value::String(text)) => {
            item.insert("text".to_owned(), json!(text));
        }
        Some(other) => {
            item.insert("text".to_owned(), other.clone());
        }
        None => {
            item.insert("text".to_owned(), json!(""));
        }
    }
    Ok(json!({"contents": [item]}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(state: Value) -> PhaseEngine {
        let actor: oatf::model::Actor = serde_json::from_value(json!({
            "name": "default", "mode": "mcp_server", "phases": [{"state": state}],
        }))
        .unwrap();
        PhaseEngine::new(&actor).unwrap()
    }

    fn ok(engine: &PhaseEngine, method: &str, params: Value) -> Value {
        answer(engine, method, &params).0.unwrap()
    }

    fn err(engine: &PhaseEngine, method: &str, params: Value) -> i64 {
        answer(engine, method, &params).0.unwrap_err().code
    }

    #[test]
    fn initialize_maps_the_state_and_defaults() {
        let plain = engine(json!({}));
        let init = ok(&plain, "initialize", json!({}));
        assert_eq!(init["protocolVersion"], DEFAULT_PROTOCOL_VERSION);
        assert_eq!(
            init["serverInfo"],
            json!({"name": "oatf-server", "version": "1.0.0"})
        );
        assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
        assert!(init.get("instructions").is_none());
        let custom = engine(json!({
            "protocol_version": "2024-11-05", "server_info": {"name": "x", "x-odd": [1]},
            "capabilities": {"logging": {}}, "instructions": "hi {{request.clientInfo.name}}",
        }));
        let init = ok(
            &custom,
            "initialize",
            json!({"clientInfo": {"name": "agent"}}),
        );
        assert_eq!(
            init,
            json!({"protocolVersion": "2024-11-05", "capabilities": {"logging": {}},
                   "serverInfo": {"name": "x", "x-odd": [1]}, "instructions": "hi agent"})
        );
    }

    #[test]
    fn lists_drop_the_oatf_keys_and_keep_malformed_content() {
        let e = engine(json!({
            "tools": [{"name": "t", "description": 42, "responses": [], "x-extra": true}, "odd"],
            "prompts": "not a list",
            "resources": [{"uri": "file:///a", "name": "a", "mimeType": "text/plain", "content": {"text": "A"}}],
        }));
        assert_eq!(
            ok(&e, "tools/list", json!({})),
            json!({"tools": [{"name": "t", "description": 42, "x-extra": true}, "odd"]})
        );
        assert_eq!(
            ok(&e, "prompts/list", json!({})),
            json!({"prompts": "not a list"})
        );
        assert_eq!(
            ok(&e, "resources/list", json!({})),
            json!({"resources": [{"uri": "file:///a", "name": "a", "mimeType": "text/plain"}]})
        );
        assert_eq!(
            ok(&e, "resources/read", json!({"uri": "file:///a"})),
            json!({"contents": [{"uri": "file:///a", "mimeType": "text/plain", "text": "A"}]})
        );
        assert_eq!(
            err(&e, "resources/read", json!({"uri": "file:///b"})),
            RESOURCE_NOT_FOUND
        );
        assert_eq!(
            ok(&e, "resources/templates/list", json!({})),
            json!({"resourceTemplates": []})
        );
    }

    #[test]
    fn calls_select_by_arguments_and_unknown_things_are_errors() {
        let e = engine(json!({
            "tools": [
                {"name": "read", "responses": [
                    {"when": {"arguments.path": {"contains": "passwd"}}, "content": [{"type": "text", "text": "root"}], "isError": false, "other": 1},
                    {"content": {"content": [{"type": "text", "text": "{{request.arguments.path}}"}], "isError": true}},
                ]},
                {"name": "bare"},
                {"name": "gen", "responses": [{"synthesize": {"prompt": "p"}}]},
            ],
            "prompts": [{"name": "p", "description": "d", "responses": [{"messages": [{"role": "user"}]}]}],
        }));
        let call = |name: &str, args: Value| json!({"name": name, "arguments": args});
        assert_eq!(
            ok(
                &e,
                "tools/call",
                call("read", json!({"path": "/etc/passwd"}))
            ),
            json!({"content": [{"type": "text", "text": "root"}], "isError": false})
        );
        assert_eq!(
            ok(&e, "tools/call", call("read", json!({"path": "/tmp/x"}))),
            json!({"content": [{"type": "text", "text": "/tmp/x"}], "isError": true})
        );
        assert_eq!(
            ok(&e, "tools/call", call("bare", json!({}))),
            json!({"content": []})
        );
        assert_eq!(
            err(&e, "tools/call", call("gen", json!({}))),
            INTERNAL_ERROR
        );
        assert_eq!(
            err(&e, "tools/call", call("nope", json!({}))),
            INVALID_PARAMS
        );
        assert_eq!(err(&e, "tools/call", json!({})), INVALID_PARAMS);
        assert_eq!(
            ok(&e, "prompts/get", json!({"name": "p"})),
            json!({"description": "d", "messages": [{"role": "user"}]})
        );
        assert_eq!(err(&e, "prompts/get", json!({"name": "q"})), INVALID_PARAMS);
        assert_eq!(
            err(&e, "sampling/createMessage", json!({})),
            METHOD_NOT_FOUND
        );
        assert_eq!(ok(&e, "ping", json!({})), json!({}));
    }
}
