//! Completion: the keys valid at the cursor's place (from the schema, less those already written),
//! the values of a field (closed enumerations from the schema; modes, protocols, the surfaces of the
//! indicator's protocol, the events of the phase's mode, actor names for `actor:`), and extractor
//! names inside `{{…}}`.

use lsp_types::{CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind};

use super::context;
use super::outline::{Outline, Seg};
use super::schema;

/// Whether `c` can be part of a key being typed.
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$')
}

fn item(
    label: String,
    kind: CompletionItemKind,
    insert: String,
    doc: Option<(&str, &MarkupKind)>,
) -> CompletionItem {
    CompletionItem {
        label,
        kind: Some(kind),
        insert_text: Some(insert),
        documentation: doc.map(|(d, kind)| match kind {
            MarkupKind::Markdown => Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: d.to_owned(),
            }),
            MarkupKind::PlainText => Documentation::String(d.to_owned()),
        }),
        ..CompletionItem::default()
    }
}

/// Completion items and the span of the text they replace (the word or value typed so far).
pub(crate) struct Completions {
    pub(crate) items: Vec<CompletionItem>,
    pub(crate) replace: std::ops::Range<usize>,
}

/// The completions at byte `offset` of `text`, documentation written as `markup`.
pub(crate) fn complete(
    text: &str,
    outline: &Outline,
    offset: usize,
    markup: MarkupKind,
) -> Completions {
    let offset = offset.min(text.len());
    let (items, from) = items(text, outline, offset, &markup);
    Completions {
        items,
        replace: from.min(offset)..offset,
    }
}

/// The items at `offset`, and where the text they replace starts.
fn items(
    text: &str,
    outline: &Outline,
    offset: usize,
    markup: &MarkupKind,
) -> (Vec<CompletionItem>, usize) {
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let prefix = &text[line_start..offset];
    let line_no = text[..line_start].matches('\n').count()
        + text[..line_start].matches('\r').count()
        - text[..line_start].matches("\r\n").count();
    if let Some(open) = prefix.rfind("{{")
        && !prefix[open..].contains("}}")
    {
        let inner = &prefix[open + 2..];
        let from = line_start + open + 2 + (inner.len() - inner.trim_start().len());
        return (templates(outline, offset), from);
    }
    let content = prefix.trim_start_matches([' ', '-', '\t']);
    let lead = prefix.len() - content.len();
    if let Some(colon) = content
        .find(": ")
        .or_else(|| content.ends_with(':').then(|| content.len() - 1))
    {
        let key = content[..colon].trim().trim_matches(['"', '\'']);
        let col = lead;
        let node = outline.on_line(line_no).find(|n| {
            outline.nodes[*n].col == col
                && outline.nodes[*n]
                    .key
                    .as_ref()
                    .is_some_and(|(k, _)| k == key)
        });
        let Some(node) = node else {
            return (Vec::new(), offset);
        };
        let space = if content.ends_with(':') { " " } else { "" };
        let typed = &content[colon + 1..];
        let from = offset - typed.trim_start().len();
        return (values(outline, node, key, space), from);
    }
    if !content.chars().all(is_key_char) {
        return (Vec::new(), offset);
    }
    let from = offset - content.len();
    (keys(outline, from, line_start, line_no, markup), from)
}

/// The values of the field of entry `node`.
fn values(outline: &Outline, node: usize, key: &str, space: &str) -> Vec<CompletionItem> {
    let mut labels = context::values_for_key(outline, key, node).unwrap_or_default();
    for value in schema::enum_values(&outline.path(node)) {
        if !labels.iter().any(|l| l == value) {
            labels.push(value.to_owned());
        }
    }
    labels
        .into_iter()
        .map(|label| {
            let insert = format!("{space}{label}");
            item(label, CompletionItemKind::ENUM_MEMBER, insert, None)
        })
        .collect()
}

/// The keys the mapping that holds a key starting at `word_start` may still take.
fn keys(
    outline: &Outline,
    word_start: usize,
    line_start: usize,
    line_no: usize,
    markup: &MarkupKind,
) -> Vec<CompletionItem> {
    let col = word_start - line_start;
    // An item opened on this line (`- |`) holds the key; otherwise the innermost node above that is
    // indented less than the key.
    let on_line = outline
        .on_line(line_no)
        .filter(|n| outline.nodes[*n].key.is_none() && outline.nodes[*n].col < col)
        .last();
    let parent = on_line.or_else(|| {
        let mut p = outline.last_before(line_start);
        while let Some(id) = p {
            if outline.nodes[id].col < col {
                break;
            }
            p = outline.nodes[id].parent;
        }
        p
    });
    let (path, present): (Vec<Seg>, Vec<&str>) = match parent {
        Some(p) => {
            let node = &outline.nodes[p];
            let present = node
                .children
                .iter()
                .filter(|c| outline.nodes[**c].line != line_no)
                .filter_map(|c| outline.nodes[*c].key.as_ref().map(|(k, _)| k.as_str()))
                .collect();
            (outline.path(p), present)
        }
        None => (
            Vec::new(),
            outline
                .roots
                .iter()
                .filter(|c| outline.nodes[**c].line != line_no)
                .filter_map(|c| outline.nodes[*c].key.as_ref().map(|(k, _)| k.as_str()))
                .collect(),
        ),
    };
    schema::keys(&path)
        .into_iter()
        .filter(|(k, _)| !present.contains(k))
        .map(|(k, doc)| {
            let doc = doc.map(|d| (d, markup));
            item(
                k.to_owned(),
                CompletionItemKind::PROPERTY,
                format!("{k}: "),
                doc,
            )
        })
        .collect()
}

/// Extractor names for a template: the current actor's by name, the others' as `actor.name`.
fn templates(outline: &Outline, offset: usize) -> Vec<CompletionItem> {
    let here = outline
        .last_before(offset)
        .and_then(|id| context::actor_name(outline, id));
    let mut labels: Vec<String> = Vec::new();
    for e in context::extractors(outline) {
        let label = match e.actor {
            Some(actor) if Some(actor) != here => format!("{actor}.{}", e.name),
            _ => e.name.to_owned(),
        };
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    labels
        .into_iter()
        .map(|l| item(l.clone(), CompletionItemKind::VARIABLE, l, None))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The labels offered at the `|` of `marked`.
    fn labels(marked: &str) -> Vec<String> {
        let offset = marked.find('|').unwrap_or(0);
        let text = marked.replacen('|', "", 1);
        let outline = Outline::new(&text);
        complete(&text, &outline, offset, MarkupKind::Markdown)
            .items
            .into_iter()
            .map(|c| c.label)
            .collect()
    }

    #[track_caller]
    fn check(marked: &str, includes: &[&str], excludes: &[&str]) {
        let got = labels(marked);
        for i in includes {
            assert!(got.iter().any(|g| g == i), "{i} not in {got:?}");
        }
        for e in excludes {
            assert!(!got.iter().any(|g| g == e), "{e} in {got:?}");
        }
    }

    const ACTORS: &str = "oatf: \"0.1\"\nattack:\n  execution:\n    actors:\n      - name: srv\n        mode: mcp_server\n        phases:\n          - name: p\n            extractors:\n              - name: tool\n            trigger:\n              event: \n      - name: cli\n        mode: ag_ui_client\n        phases: []\n";

    #[test]
    fn keys_at_the_cursor() {
        check(
            "attack:\n  severity:\n    |\n",
            &["level", "confidence"],
            &["name"],
        );
        check(
            "attack:\n  severity:\n    level: high\n    c|\n",
            &["confidence"],
            &["level"],
        );
        check("|\n", &["oatf", "attack", "$schema"], &[]);
        check(
            "attack:\n  name: x\n  |\n",
            &["execution", "severity"],
            &["name"],
        );
        check(
            "attack:\n  indicators:\n    - |\n",
            &["target", "pattern"],
            &[],
        );
    }

    #[test]
    fn values_of_fields() {
        check("attack:\n  severity: |\n", &["critical", "low"], &[]);
        check("attack:\n  status: |\n", &["draft", "experimental"], &[]);
        check(
            "attack:\n  indicators:\n    - tier: |\n",
            &["ingested", "local_action"],
            &[],
        );
        check(
            "attack:\n  indicators:\n    - protocol: |\n",
            &["mcp", "a2a", "ag_ui"],
            &[],
        );
        check(
            "attack:\n  execution:\n    mode: |\n",
            &["mcp_server", "ag_ui_client"],
            &[],
        );
        let doc = format!("{ACTORS}  indicators:\n    - actor: |\n");
        check(&doc, &["srv", "cli"], &[]);
        let doc = format!("{ACTORS}  indicators:\n    - actor: cli\n      surface: |\n");
        check(&doc, &["run_agent_input"], &["tools/call"]);
        let doc = ACTORS.replace("event: \n", "event: |\n");
        check(&doc, &["tools/call"], &["run_agent_input"]);
    }

    #[test]
    fn extractors_in_templates() {
        let doc = ACTORS.replace(
            "phases: []",
            "phases:\n          - state:\n              x: \"{{|\"",
        );
        check(&doc, &["srv.tool"], &["tool"]);
        let doc = ACTORS.replace("event: \n", "event: x\n            state: '{{|'\n");
        check(&doc, &["tool"], &["srv.tool"]);
    }
}
