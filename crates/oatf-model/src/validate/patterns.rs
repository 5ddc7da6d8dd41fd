//! The small pattern checks of the V- rules (identifiers, modes, attack ids, template references,
//! capture groups) and the text of their messages: plain functions of a string, no document.

/// `[a-z][a-z0-9_]*`
pub(super) fn is_lower_ident(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// `[a-z][a-z0-9_]*_(server|client)` (V-034).
pub(super) fn is_mode(s: &str) -> bool {
    s.strip_suffix("_server")
        .or_else(|| s.strip_suffix("_client"))
        .is_some_and(is_lower_ident)
}

/// `[_a-zA-Z][_a-zA-Z0-9]*` (V-039).
pub(super) fn is_cel_ident(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

/// `[A-Z][A-Z0-9-]*` followed by `-` and at least `min_digits` digits; returns the prefix.
pub(super) fn split_numbered(s: &str, min_digits: usize) -> Option<&str> {
    let dash = s.rfind('-')?;
    let (prefix, digits) = (&s[..dash], &s[dash + 1..]);
    let digits_ok = digits.len() >= min_digits && digits.bytes().all(|b| b.is_ascii_digit());
    let mut pb = prefix.bytes();
    let prefix_ok = matches!(pb.next(), Some(b'A'..=b'Z'))
        && pb.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-');
    (digits_ok && prefix_ok).then_some(prefix)
}

/// `^[A-Z][A-Z0-9-]*-[0-9]{3,}$` (V-023).
pub(super) fn is_attack_id(s: &str) -> bool {
    split_numbered(s, 3).is_some()
}

/// A value in a message: at most 80 characters, `…` when clipped.
pub(super) fn shown(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// The message of a duplicate identifier (V-010, V-011, V-031), naming the first occurrence; either
/// may be a generated id or name (spec-decisions 10).
pub(super) fn duplicate_message(
    what: &str,
    value: &str,
    later_generated: bool,
    first_generated: bool,
    first: &str,
) -> String {
    let value = shown(value);
    let owner = first.rsplit_once('.').map_or(first, |(owner, _)| owner);
    match (later_generated, first_generated) {
        (false, false) => format!("duplicate {what} `{value}`, first used at `{first}`"),
        (false, true) => format!("{what} `{value}` equals the {what} generated for `{owner}`"),
        (true, _) => {
            let noun = what.split(' ').next().unwrap_or(what);
            format!("the {what} generated for this {noun}, `{value}`, is already used at `{first}`")
        }
    }
}

/// A template reference found in a string.
pub(super) enum TemplateRef<'s> {
    /// `{{name}}` or `{{actor.name}}` or `{{request.x}}`.
    Name(&'s str),
    /// `{{` without a closing `}}`, or an empty `{{}}`.
    Malformed(&'static str),
}

/// The template references of a string, found by the one template scanner
/// ([`oatf_internal::scan_template`]) that the runtime renders with; `\{{` is an escape, not a
/// reference (V-016).
pub(super) fn template_refs(s: &str) -> Vec<TemplateRef<'_>> {
    let mut refs = Vec::new();
    oatf_internal::scan_template(s, |token| match token {
        oatf_internal::TemplateToken::Expression("") => {
            refs.push(TemplateRef::Malformed("empty template reference `{{}}`"));
        }
        oatf_internal::TemplateToken::Expression(name) => refs.push(TemplateRef::Name(name)),
        oatf_internal::TemplateToken::Unclosed(_) => {
            refs.push(TemplateRef::Malformed("unclosed template reference `{{`"));
        }
        _ => {}
    });
    refs
}

/// Number of explicit capture groups in a regex, when it parses.
pub(super) fn capture_groups(pattern: &str) -> Option<usize> {
    regex_syntax::ParserBuilder::new()
        .nest_limit(100)
        .build()
        .parse(pattern)
        .ok()
        .map(|hir| hir.properties().explicit_captures_len())
}
