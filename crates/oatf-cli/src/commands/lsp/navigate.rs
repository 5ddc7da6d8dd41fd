//! Document symbols (the attack, its actors and their phases, its indicators by id) and go to
//! definition (an indicator's `actor:` to the actor; `{{actor.extractor}}` and `{{extractor}}` to the
//! extractor).

use std::ops::Range;

use lsp_types::{DocumentSymbol, SymbolKind};

use super::context;
use super::outline::Outline;
use super::text::LineIndex;

/// A symbol's name, kind, whole span and the span of what names it.
struct Symbol {
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    span: Range<usize>,
    name_span: Range<usize>,
    children: Vec<Symbol>,
}

impl Symbol {
    #[allow(
        deprecated,
        reason = "`deprecated` is a required field of lsp-types' struct"
    )]
    fn into_lsp(self, text: &str, index: &LineIndex) -> DocumentSymbol {
        DocumentSymbol {
            name: if self.name.is_empty() {
                "?".to_owned()
            } else {
                self.name
            },
            detail: self.detail,
            kind: self.kind,
            tags: None,
            deprecated: None,
            range: index.range(text, self.span),
            selection_range: index.range(text, self.name_span),
            children: Some(
                self.children
                    .into_iter()
                    .map(|c| c.into_lsp(text, index))
                    .collect(),
            ),
        }
    }
}

/// The item's symbol, named by its entry `key` (or `fallback`).
fn item_symbol(
    outline: &Outline,
    item: usize,
    key: &str,
    fallback: String,
    kind: SymbolKind,
) -> Symbol {
    let node = &outline.nodes[item];
    let named = outline
        .child(&node.children, key)
        .and_then(|c| outline.nodes[c].value.clone());
    let (name, name_span) = match named {
        Some((name, span)) => (name, span),
        None => (fallback, node.start..node.start + 1),
    };
    Symbol {
        name,
        detail: None,
        kind,
        span: node.start..node.end.max(name_span.end),
        name_span,
        children: Vec::new(),
    }
}

fn phases(outline: &Outline, holder: usize) -> Vec<Symbol> {
    let Some(list) = outline.child(&outline.nodes[holder].children, "phases") else {
        return Vec::new();
    };
    outline
        .items(list)
        .map(|item| {
            let index = outline.nodes[item].index;
            let fallback = oatf::model::generated_phase_name(index);
            item_symbol(outline, item, "name", fallback, SymbolKind::METHOD)
        })
        .collect()
}

/// The document's symbols.
pub(crate) fn symbols(text: &str, outline: &Outline) -> Vec<DocumentSymbol> {
    let Some(attack) = outline.at_keys(&["attack"]) else {
        return Vec::new();
    };
    let node = &outline.nodes[attack];
    let children = &node.children;
    let attack_id = outline.value_of(children, "id");
    let mut symbol = Symbol {
        name: outline
            .value_of(children, "name")
            .or(attack_id)
            .unwrap_or("attack")
            .to_owned(),
        detail: attack_id.map(str::to_owned),
        kind: SymbolKind::MODULE,
        span: node.start..node.end,
        name_span: node
            .key
            .as_ref()
            .map_or(node.start..node.start, |(_, s)| s.clone()),
        children: Vec::new(),
    };
    if let Some(execution) = outline.child(children, "execution") {
        for (item, _) in context::actors(outline) {
            let mut actor =
                item_symbol(outline, item, "name", "actor".to_owned(), SymbolKind::CLASS);
            actor.children = phases(outline, item);
            symbol.children.push(actor);
        }
        symbol.children.extend(phases(outline, execution));
    }
    if let Some(list) = outline.child(children, "indicators") {
        for item in outline.items(list) {
            let fallback =
                oatf::model::generated_indicator_id(attack_id, outline.nodes[item].index);
            symbol.children.push(item_symbol(
                outline,
                item,
                "id",
                fallback,
                SymbolKind::EVENT,
            ));
        }
    }
    let index = LineIndex::new(text);
    vec![symbol.into_lsp(text, &index)]
}

/// The span the reference at `offset` points to: an actor's name or an extractor's name.
pub(crate) fn definition(text: &str, outline: &Outline, offset: usize) -> Option<Range<usize>> {
    let id = outline.last_before(offset.saturating_add(1))?;
    let node = &outline.nodes[id];
    if let (Some((key, _)), Some((value, span))) = (&node.key, &node.value)
        && key == "actor"
        && span.start <= offset
        && offset <= span.end
    {
        let (actor, _) = context::actors(outline)
            .into_iter()
            .find(|(_, name)| *name == Some(value.as_str()))?;
        let name = outline.child(&outline.nodes[actor].children, "name")?;
        return outline.nodes[name].value.as_ref().map(|(_, s)| s.clone());
    }
    let reference = template_at(text, offset)?;
    let (actor, name) = match reference.split_once('.') {
        Some(("request" | "response", _)) => return None,
        Some((actor, name)) => (Some(actor), name),
        None => (context::actor_name(outline, id), reference),
    };
    let extractors = context::extractors(outline);
    let found = extractors
        .iter()
        .find(|e| e.name == name && (actor.is_none() || e.actor == actor))
        .or_else(|| extractors.iter().find(|e| e.name == name))?;
    outline.nodes[found.node]
        .value
        .as_ref()
        .map(|(_, s)| s.clone())
}

/// The reference inside the `{{…}}` around `offset` on its line, trimmed.
fn template_at(text: &str, offset: usize) -> Option<&str> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line_end = text[offset..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| offset + i);
    let mut window_end = (offset + 2).min(line_end);
    while !text.is_char_boundary(window_end) {
        window_end -= 1;
    }
    let open = text[line_start..window_end].rfind("{{")? + line_start;
    let close = text[open + 2..line_end].find("}}")? + open + 2;
    (offset <= close + 1).then(|| text[open + 2..close].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "oatf: \"0.1\"\nattack:\n  id: ACME-001\n  execution:\n    actors:\n      - name: srv\n        mode: mcp_server\n        phases:\n          - extractors:\n              - name: tool\n          - name: two\n            state:\n              t: \"use {{tool}} and {{srv.tool}}\"\n  indicators:\n    - actor: srv\n      surface: tools/call\n    - id: ACME-001-09\n";

    #[track_caller]
    fn check_definition(at: &str, nth: usize, expect: Option<&str>) {
        let offset = DOC.match_indices(at).nth(nth).map_or(0, |(i, _)| i + 1);
        let outline = Outline::new(DOC);
        let got = definition(DOC, &outline, offset).map(|s| (s.start, &DOC[s]));
        let want = expect.map(|w| {
            let start = DOC.find(w).unwrap_or(0);
            (start, w)
        });
        assert_eq!(got, want);
    }

    #[test]
    fn definitions() {
        check_definition("srv\n      surface", 0, Some("srv"));
        check_definition("tool}}", 0, Some("tool"));
        check_definition("tool}}\"", 0, Some("tool"));
        check_definition("surface", 0, None);
    }

    #[test]
    fn symbols_name_actors_phases_and_indicators() {
        let outline = Outline::new(DOC);
        let symbols = symbols(DOC, &outline);
        let attack = &symbols[0];
        assert_eq!(attack.name, "ACME-001");
        let names: Vec<String> = attack
            .children
            .iter()
            .flatten()
            .map(|s| {
                let inner: Vec<&str> = s
                    .children
                    .iter()
                    .flatten()
                    .map(|c| c.name.as_str())
                    .collect();
                format!("{}{inner:?}", s.name)
            })
            .collect();
        assert_eq!(
            names,
            [
                "srv[\"phase-1\", \"two\"]",
                "ACME-001-01[]",
                "ACME-001-09[]"
            ]
        );
    }
}
