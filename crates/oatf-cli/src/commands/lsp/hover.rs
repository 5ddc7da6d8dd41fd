//! Hover: on a key, what the field means (the schema's description, the text of `docs/format.md`);
//! on a rule code (`V-013`), the rule as `oatf explain` gives it; on a surface or event name, which
//! bindings and modes know it.

use std::ops::Range;

use super::context;
use super::outline::Outline;
use super::schema;

/// Whether `c` can be part of a word hover looks at (rule ids, surface names, keys).
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '$')
}

/// The word around byte `offset` and its span.
pub(crate) fn word_at(text: &str, offset: usize) -> Option<(&str, Range<usize>)> {
    let offset = offset.min(text.len());
    let before = text.get(..offset)?;
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let after = text.get(offset..)?;
    let end = offset + after.find(|c: char| !is_word(c)).unwrap_or(after.len());
    (start < end).then(|| (&text[start..end], start..end))
}

/// What a field means, as the row of `docs/format.md` says it: the description and the rules that
/// check it.
fn field_text(key: &str, path: &[super::outline::Seg]) -> Option<String> {
    let description = schema::description(path)?;
    let rules = schema::rules_of(path);
    Some(if rules.is_empty() {
        format!("**`{key}`**: {description}")
    } else {
        format!(
            "**`{key}`**: {description}\n\nChecked by {}.",
            rules.join(", ")
        )
    })
}

/// The hover text (Markdown) at byte `offset` and the span it is about.
pub(crate) fn hover(
    text: &str,
    outline: &Outline,
    offset: usize,
) -> Option<(String, Range<usize>)> {
    let word = word_at(text, offset);
    if let Some((word, span)) = &word
        && let Some(rule) = oatf::model::Rule::from_id(word)
    {
        return Some((crate::render::rule::explain(rule), span.clone()));
    }
    let id = outline.last_before(offset.saturating_add(1))?;
    let node = &outline.nodes[id];
    if let Some((key, key_span)) = &node.key
        && key_span.start <= offset
        && offset <= key_span.end
    {
        return Some((field_text(key, &outline.path(id))?, key_span.clone()));
    }
    if let Some((value, span)) = &node.value
        && span.start <= offset
        && offset <= span.end
    {
        if let Some(text) = context::explain_operation(value) {
            return Some((text, span.clone()));
        }
        let key = node.key.as_ref().map_or("", |(k, _)| k.as_str());
        return Some((field_text(key, &outline.path(id))?, span.clone()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hover at the `|` of `marked`, without the marker.
    #[track_caller]
    fn check(marked: &str, expect: Option<&str>) {
        let offset = marked.find('|').unwrap_or(0);
        let text = marked.replacen('|', "", 1);
        let outline = Outline::new(&text);
        let got = hover(&text, &outline, offset).map(|(h, _)| h);
        match expect {
            Some(part) => assert!(got.as_deref().is_some_and(|h| h.contains(part)), "{got:?}"),
            None => assert_eq!(got, None),
        }
    }

    #[test]
    fn keys_rules_and_operations() {
        check("attack:\n  sev|erity: high\n", Some("**`severity`**"));
        check(
            "attack:\n  severity:\n    confi|dence: 5\n",
            Some("Confidence in"),
        );
        check(
            "attack:\n  indicators:\n    - surf|ace: x\n",
            Some("Checked by V-018."),
        );
        check("attack:\n  na|me: x\n", Some("**`name`**"));
        check("# see V-0|13\n", Some("V-013 (error"));
        check("x:\n  surface: tools/c|all\n", Some("`mcp_server`"));
        check("attack:\n  state:\n    anyth|ing: 1\n", None);
    }
}
