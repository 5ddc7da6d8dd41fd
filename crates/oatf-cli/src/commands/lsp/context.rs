//! What the document says around a place: the actors, the extractors, the mode or protocol that
//! applies to a node, and the known vocabulary of the bindings (the model's registry). Hover,
//! completion and navigation all ask here.

use oatf::model::{known_events, known_modes, known_protocols};
use oatf::primitives::extract_protocol;

use super::outline::Outline;

/// Whether a document is one this server speaks for (D-118): it has a root key `oatf` or `attack`,
/// or nothing but blank lines and comments yet (a new file). Other YAML an editor opens (a CI workflow, a compose file) gets
/// no diagnostics and no answers, so `oatf lsp` can be attached to every YAML file.
pub(crate) fn is_oatf(outline: &Outline) -> bool {
    outline.roots.is_empty()
        || outline.roots.iter().any(|r| {
            outline.nodes[*r]
                .key
                .as_ref()
                .is_some_and(|(k, _)| k == "oatf" || k == "attack")
        })
}

/// The actor items of `attack.execution.actors`, each with its name when written.
pub(crate) fn actors(outline: &Outline) -> Vec<(usize, Option<&str>)> {
    let Some(list) = outline.at_keys(&["attack", "execution", "actors"]) else {
        return Vec::new();
    };
    outline
        .items(list)
        .map(|item| {
            (
                item,
                outline.value_of(&outline.nodes[item].children, "name"),
            )
        })
        .collect()
}

/// An extractor: its name's value node, and the name of the actor it belongs to (`None` in a
/// single-actor document).
pub(crate) struct Extractor<'a> {
    pub(crate) name: &'a str,
    pub(crate) node: usize,
    pub(crate) actor: Option<&'a str>,
}

/// Every extractor of the document (entries `name` of the items of an `extractors` list).
pub(crate) fn extractors(outline: &Outline) -> Vec<Extractor<'_>> {
    let mut out = Vec::new();
    for (id, node) in outline.nodes.iter().enumerate() {
        if node.key.as_ref().is_none_or(|(k, _)| k != "extractors") {
            continue;
        }
        let actor = actor_name(outline, id);
        for item in outline.items(id) {
            let children = &outline.nodes[item].children;
            if let (Some(name), Some(node)) = (
                outline.value_of(children, "name"),
                outline.child(children, "name"),
            ) {
                out.push(Extractor { name, node, actor });
            }
        }
    }
    out
}

/// The name of the actor whose subtree holds `id`.
pub(crate) fn actor_name(outline: &Outline, id: usize) -> Option<&str> {
    let actor = outline.enclosing_item(id, "actors")?;
    outline.value_of(&outline.nodes[actor].children, "name")
}

/// The mode that applies at `id`: its phase's, its actor's, else `attack.execution.mode`.
pub(crate) fn mode_at(outline: &Outline, id: usize) -> Option<&str> {
    let from_item = |key: &str| {
        let item = outline.enclosing_item(id, key)?;
        outline.value_of(&outline.nodes[item].children, "mode")
    };
    from_item("phases")
        .or_else(|| from_item("actors"))
        .or_else(|| execution_mode(outline))
}

fn execution_mode(outline: &Outline) -> Option<&str> {
    let execution = outline.at_keys(&["attack", "execution"])?;
    outline.value_of(&outline.nodes[execution].children, "mode")
}

/// The protocol of the indicator holding `id`: its `protocol`, else its actor's mode's, else the
/// execution mode's.
pub(crate) fn protocol_at(outline: &Outline, id: usize) -> Option<String> {
    if let Some(indicator) = outline.enclosing_item(id, "indicators") {
        let children = &outline.nodes[indicator].children;
        if let Some(protocol) = outline.value_of(children, "protocol") {
            return Some(protocol.to_owned());
        }
        if let Some(actor) = outline.value_of(children, "actor") {
            let mode = actors(outline)
                .into_iter()
                .find(|(_, name)| *name == Some(actor))
                .and_then(|(item, _)| outline.value_of(&outline.nodes[item].children, "mode"));
            if let Some(mode) = mode {
                return Some(extract_protocol(mode).to_owned());
            }
        }
    }
    let mode = execution_mode(outline).or_else(|| {
        let modes: Vec<&str> = actors(outline)
            .into_iter()
            .filter_map(|(item, _)| outline.value_of(&outline.nodes[item].children, "mode"))
            .collect();
        // With several actors the protocol is the indicator's to say; with one it is that actor's.
        (modes.len() == 1).then(|| modes[0])
    })?;
    Some(extract_protocol(mode).to_owned())
}

/// The surfaces of a protocol (the events of its modes), or of every known protocol.
pub(crate) fn surfaces(protocol: Option<&str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for mode in known_modes() {
        if protocol.is_some_and(|p| extract_protocol(mode) != p) {
            continue;
        }
        for event in known_events(mode).unwrap_or(&[]) {
            if !out.contains(event) {
                out.push(event);
            }
        }
    }
    out
}

/// The trigger events of a mode, or of every known mode.
pub(crate) fn events(mode: Option<&str>) -> Vec<&'static str> {
    match mode.and_then(known_events) {
        Some(events) => events.to_vec(),
        None => surfaces(None),
    }
}

/// What a surface or event name is: the modes of the bindings that know it, as a sentence.
pub(crate) fn explain_operation(name: &str) -> Option<String> {
    let modes: Vec<&str> = known_modes()
        .iter()
        .copied()
        .filter(|m| known_events(m).is_some_and(|e| e.contains(&name)))
        .collect();
    if modes.is_empty() {
        return None;
    }
    let mut protocols: Vec<&str> = modes.iter().map(|m| extract_protocol(m)).collect();
    protocols.dedup();
    Some(format!(
        "`{name}`: an operation of the {} binding{} (format §7), a surface of indicators of that \
         protocol and a trigger event of the modes {}.",
        protocols.join(", "),
        crate::render::plural(protocols.len()),
        modes
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Values known for a field, by its key: modes, protocols, surfaces, events and actor names.
pub(crate) fn values_for_key(outline: &Outline, key: &str, id: usize) -> Option<Vec<String>> {
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_owned).collect();
    Some(match key {
        "mode" => owned(known_modes().to_vec()),
        "protocol" => owned(known_protocols().to_vec()),
        "surface" => owned(surfaces(protocol_at(outline, id).as_deref())),
        "event" => owned(events(mode_at(outline, id))),
        "actor" => actors(outline)
            .into_iter()
            .filter_map(|(_, name)| name.map(str::to_owned))
            .collect(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_oatf(text: &str, expect: bool) {
        assert_eq!(is_oatf(&Outline::new(text)), expect, "{text:?}");
    }

    #[test]
    fn only_oatf_documents_and_new_files_are_answered() {
        check_oatf("oatf: \"0.1\"\n", true);
        check_oatf("# a comment\nattack:\n  name: x\n", true);
        check_oatf("", true);
        check_oatf("# just a comment\n", true);
        check_oatf("name: ci\non: [push]\n", false);
        check_oatf("- a\n- b\n", false);
    }

    #[test]
    fn surfaces_belong_to_their_protocol() {
        let a2a = surfaces(Some("a2a"));
        assert!(
            a2a.contains(&"message/send") && !a2a.contains(&"tools/call"),
            "{a2a:?}"
        );
        assert!(surfaces(None).contains(&"run_agent_input"));
        assert!(surfaces(Some("nope")).is_empty());
        assert_eq!(
            events(Some("ag_ui_client")).first(),
            Some(&"run_agent_input")
        );
        let text = explain_operation("tools/call").unwrap_or_default();
        assert!(
            text.contains("`mcp_server`") && text.contains("mcp binding"),
            "{text}"
        );
        assert_eq!(explain_operation("nope"), None);
    }
}
