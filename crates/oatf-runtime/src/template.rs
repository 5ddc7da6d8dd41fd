//! Template interpolation (SDK §5.5, §5.5a; format §5.6): `interpolate_template`, `interpolate_value`
//! and [`Template`], the parsed form.
//!
//! A template is scanned once, left to right, by the scanner validation also uses
//! (`oatf_internal::scan_template`). `\{{` is a literal `{{`; `{{name}}` is an expression ending at
//! the next `}}` and never spanning another `{{` (`{{a{{b}}` is the text `{{a` and the expression `b`);
//! an unclosed `{{` and everything else is literal text. Substituted text is appended to the
//! output and never scanned again, so an extracted value containing `{{secret}}` stays literal
//! (SDK §5.5a "No re-expansion"). There is no placeholder that input could collide with.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::hash::{BuildHasher, Hash};

use oatf_internal::{TemplateToken, scan_template};
use oatf_primitives::SimplePath;
use serde_json::Value;

/// How deep [`interpolate_value`] descends into nested objects and arrays.
///
/// Strings nested deeper are left as written. Documents read by `oatf-model` are at most 128 levels
/// deep as a whole, so a state value never reaches this bound.
pub const MAX_INTERPOLATION_DEPTH: usize = 128;

/// Where template expressions find extractor values: a map from names (`token`, or qualified
/// `actor.token`) to captured strings (SDK §5.5).
///
/// Implemented for `HashMap` and `BTreeMap` with string-like keys and values. The runtime fills the
/// map with the current actor's names unqualified and every actor's names qualified; lookup is a plain
/// key lookup.
pub trait ExtractorLookup {
    /// The value captured under `name`, or `None` when it is undefined.
    fn lookup(&self, name: &str) -> Option<&str>;
}

impl<K, V, S> ExtractorLookup for HashMap<K, V, S>
where
    K: Borrow<str> + Hash + Eq,
    V: AsRef<str>,
    S: BuildHasher,
{
    fn lookup(&self, name: &str) -> Option<&str> {
        self.get(name).map(AsRef::as_ref)
    }
}

impl<K, V> ExtractorLookup for BTreeMap<K, V>
where
    K: Borrow<str> + Ord,
    V: AsRef<str>,
{
    fn lookup(&self, name: &str) -> Option<&str> {
        self.get(name).map(AsRef::as_ref)
    }
}

impl<T: ExtractorLookup + ?Sized> ExtractorLookup for &T {
    fn lookup(&self, name: &str) -> Option<&str> {
        (**self).lookup(name)
    }
}

/// A warning produced while rendering a template: W-004, a reference that resolved to nothing and
/// was replaced with the empty string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateDiagnostic {
    kind: TemplateDiagnosticKind,
    reference: String,
    path: String,
}

/// The kind of a [`TemplateDiagnostic`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TemplateDiagnosticKind {
    /// `{{name}}` names no extractor value (W-004 case a).
    UndefinedExtractor,
    /// `{{request.path}}` did not resolve, or there is no request (W-004 case b).
    UnresolvedRequestPath,
    /// `{{response.path}}` did not resolve, or there is no response (W-004 case b).
    UnresolvedResponsePath,
}

impl TemplateDiagnostic {
    /// The diagnostic code: always `W-004`.
    pub fn code(&self) -> &'static str {
        oatf_model::Rule::W004.id()
    }

    /// Which kind of reference failed.
    pub fn kind(&self) -> TemplateDiagnosticKind {
        self.kind
    }

    /// The reference as written between the braces (`token`, `request.arguments.path`).
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// Where the template sat inside the value given to [`interpolate_value`], as a dot-path
    /// (`tools[0].description`; keys joined by `.`, list positions as `[N]`); empty for the root and
    /// for [`interpolate_template`]. Prefix it with the path of the value in the document
    /// (`attack.execution.actors[0].phases[1].state`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A human-readable description (lowercase, no trailing period), without the path.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// This warning as an `oatf-model` [`Diagnostic`](oatf_model::Diagnostic) (severity warning,
    /// code `W-004`), its path prefixed with `prefix`, the document path of the interpolated value
    /// (may be empty).
    pub fn to_diagnostic(&self, prefix: &str) -> oatf_model::Diagnostic {
        let path = match (prefix.is_empty(), self.path.is_empty()) {
            (_, true) => prefix.to_owned(),
            (true, false) => self.path.clone(),
            (false, false) if self.path.starts_with('[') => format!("{prefix}{}", self.path),
            (false, false) => format!("{prefix}.{}", self.path),
        };
        oatf_model::Diagnostic::new(
            oatf_model::DiagnosticSeverity::Warning,
            self.code(),
            Some(path).filter(|p| !p.is_empty()),
            self.message(),
        )
    }
}

impl fmt::Display for TemplateDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            TemplateDiagnosticKind::UndefinedExtractor => "undefined extractor reference",
            TemplateDiagnosticKind::UnresolvedRequestPath => "request path did not resolve",
            TemplateDiagnosticKind::UnresolvedResponsePath => "response path did not resolve",
        };
        write!(
            f,
            "{what}: {{{{{}}}}} was replaced with the empty string",
            self.reference
        )
    }
}

/// A lexical piece of a template.
enum Token<'t> {
    Text(&'t str),
    Expression(&'t str),
}

/// Scans `template` into literal text and expressions with the one template scanner of
/// `oatf-primitives` ([`scan_template`], whose rules the module docs repeat): an escape is the literal
/// `{{`, an unclosed `{{` is literal text.
fn scan(template: &str, mut emit: impl FnMut(Token<'_>)) {
    scan_template(template, |token| match token {
        TemplateToken::Text(text) | TemplateToken::Unclosed(text) => emit(Token::Text(text)),
        TemplateToken::EscapedOpen => emit(Token::Text("{{")),
        TemplateToken::Expression(name) => emit(Token::Expression(name)),
        // A token kind added later would need a rendering decided here.
        _ => {}
    });
}

/// Which message a `request.` / `response.` reference reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Request,
    Response,
}

/// What an expression may resolve against: besides an extractor of its full name, a message path.
fn message_reference(name: &str) -> Option<(Side, &str)> {
    if let Some(path) = name.strip_prefix("request.") {
        Some((Side::Request, path))
    } else {
        name.strip_prefix("response.")
            .map(|path| (Side::Response, path))
    }
}

/// Writes a resolved message value: a string as is, anything else as compact JSON in document order.
fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.push_str(s),
        other => oatf_internal::json::write_compact(other, out),
    }
}

/// Resolves one expression into `out` (SDK §5.5 step 3).
fn resolve(
    name: &str,
    message_path: Option<(Side, Option<&SimplePath>)>,
    extractors: &(impl ExtractorLookup + ?Sized),
    request: Option<&Value>,
    response: Option<&Value>,
    out: &mut String,
    diagnostics: &mut Vec<TemplateDiagnostic>,
) {
    // Step a: an extractor key wins, even over a `request.` path (an actor may be named `request`).
    if let Some(value) = extractors.lookup(name) {
        out.push_str(value);
        return;
    }
    let kind = match message_path {
        Some((side, path)) => {
            let message = match side {
                Side::Request => request,
                Side::Response => response,
            };
            let resolved = message.zip(path).and_then(|(m, p)| p.resolve(m));
            if let Some(value) = resolved {
                push_value(out, value);
                return;
            }
            match side {
                Side::Request => TemplateDiagnosticKind::UnresolvedRequestPath,
                Side::Response => TemplateDiagnosticKind::UnresolvedResponsePath,
            }
        }
        None => TemplateDiagnosticKind::UndefinedExtractor,
    };
    // Steps b–d: unresolvable references become the empty string, with W-004.
    diagnostics.push(TemplateDiagnostic {
        kind,
        reference: name.to_owned(),
        path: String::new(),
    });
}

/// Interpolates `template` (SDK §5.5): returns the rendered string and a W-004 diagnostic for every
/// reference replaced with the empty string.
///
/// `{{name}}` (also a qualified `{{actor.name}}`) is looked up in `extractors` first;
/// `{{request.path}}` / `{{response.path}}` then resolve a simple dot-path against `request` /
/// `response`, writing strings as they are and other values as compact JSON (key order as in the
/// message). `\{{` is a literal `{{`. Substituted text is never re-expanded.
///
/// ```
/// use std::collections::HashMap;
/// use oatf_runtime::interpolate_template;
/// use serde_json::json;
///
/// let extractors = HashMap::from([("token", "sk-1")]);
/// let request = json!({"arguments": {"path": "/etc/passwd"}});
/// let (text, warnings) = interpolate_template(
///     r"read {{request.arguments.path}} with {{token}}, not \{{token}} or {{nothing}}",
///     &extractors,
///     Some(&request),
///     None,
/// );
/// assert_eq!(text, "read /etc/passwd with sk-1, not {{token}} or ");
/// assert_eq!(warnings[0].code(), "W-004");
/// assert_eq!(warnings[0].reference(), "nothing");
/// ```
pub fn interpolate_template(
    template: &str,
    extractors: &(impl ExtractorLookup + ?Sized),
    request: Option<&Value>,
    response: Option<&Value>,
) -> (String, Vec<TemplateDiagnostic>) {
    let mut out = String::with_capacity(template.len());
    let mut diagnostics = Vec::new();
    render_into(
        template,
        extractors,
        request,
        response,
        &mut out,
        &mut diagnostics,
    );
    (out, diagnostics)
}

fn render_into(
    template: &str,
    extractors: &(impl ExtractorLookup + ?Sized),
    request: Option<&Value>,
    response: Option<&Value>,
    out: &mut String,
    diagnostics: &mut Vec<TemplateDiagnostic>,
) {
    scan(template, |token| match token {
        Token::Text(text) => out.push_str(text),
        Token::Expression(name) => {
            let parsed = message_reference(name).map(|(side, p)| (side, SimplePath::parse(p).ok()));
            let path = parsed.as_ref().map(|(side, p)| (*side, p.as_ref()));
            resolve(name, path, extractors, request, response, out, diagnostics);
        }
    });
}

/// Interpolates every string of `value` (SDK §5.5a), recursing into object values and array elements
/// (object keys are left as written); other scalars are unchanged. Returns the new value and the
/// diagnostics of every string, in document order.
///
/// Nesting deeper than [`MAX_INTERPOLATION_DEPTH`] is copied without interpolation.
///
/// ```
/// use std::collections::BTreeMap;
/// use oatf_runtime::interpolate_value;
/// use serde_json::json;
///
/// let extractors = BTreeMap::from([("tool".to_owned(), "exec".to_owned())]);
/// let state = json!({"tools": [{"name": "{{tool}}", "limit": 3}]});
/// let (value, warnings) = interpolate_value(&state, &extractors, None, None);
/// assert_eq!(value, json!({"tools": [{"name": "exec", "limit": 3}]}));
/// assert!(warnings.is_empty());
/// ```
pub fn interpolate_value(
    value: &Value,
    extractors: &(impl ExtractorLookup + ?Sized),
    request: Option<&Value>,
    response: Option<&Value>,
) -> (Value, Vec<TemplateDiagnostic>) {
    let mut out = clone_value(value);
    let diagnostics = interpolate_value_in_place(&mut out, extractors, request, response);
    (out, diagnostics)
}

/// Clones `value` with an explicit stack: `Value::clone` recurses once per level and overflows the
/// stack on a hand-built value thousands of levels deep.
fn clone_value(value: &Value) -> Value {
    enum Frame<'a> {
        Array(Vec<Value>, std::slice::Iter<'a, Value>),
        Object(
            serde_json::Map<String, Value>,
            serde_json::map::Iter<'a>,
            Option<&'a String>,
        ),
    }
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        // Descend into `next`, or finish a leaf.
        let mut done = match next.take() {
            Some(Value::Array(items)) => {
                stack.push(Frame::Array(Vec::with_capacity(items.len()), items.iter()));
                None
            }
            Some(Value::Object(map)) => {
                stack.push(Frame::Object(serde_json::Map::new(), map.iter(), None));
                None
            }
            Some(leaf) => Some(leaf.clone()),
            None => None,
        };
        // Attach finished values to their parents until a parent has more children.
        loop {
            let Some(frame) = stack.last_mut() else {
                return done.unwrap_or(Value::Null);
            };
            match frame {
                Frame::Array(items, rest) => {
                    items.extend(done.take());
                    if let Some(item) = rest.next() {
                        next = Some(item);
                        break;
                    }
                }
                Frame::Object(map, rest, key) => {
                    if let (Some(k), Some(v)) = (key.take(), done.take()) {
                        map.insert(k.clone(), v);
                    }
                    if let Some((k, item)) = rest.next() {
                        *key = Some(k);
                        next = Some(item);
                        break;
                    }
                }
            }
            done = match stack.pop() {
                Some(Frame::Array(items, _)) => Some(Value::Array(items)),
                Some(Frame::Object(map, ..)) => Some(Value::Object(map)),
                None => None,
            };
        }
    }
}

/// Interpolates every string of `value` in place; see [`interpolate_value`].
pub(crate) fn interpolate_value_in_place(
    value: &mut Value,
    extractors: &(impl ExtractorLookup + ?Sized),
    request: Option<&Value>,
    response: Option<&Value>,
) -> Vec<TemplateDiagnostic> {
    let mut walker = Walker {
        path: String::new(),
        diagnostics: Vec::new(),
        render: |s: &mut String, diagnostics: &mut Vec<TemplateDiagnostic>| {
            let mut out = String::with_capacity(s.len());
            render_into(s, extractors, request, response, &mut out, diagnostics);
            *s = out;
        },
    };
    walker.walk(value, 0);
    walker.diagnostics
}

/// The state of an [`interpolate_value_in_place`] walk: the dot-path of the current node.
struct Walker<F> {
    path: String,
    diagnostics: Vec<TemplateDiagnostic>,
    render: F,
}

impl<F: FnMut(&mut String, &mut Vec<TemplateDiagnostic>)> Walker<F> {
    /// Applies `render` to every string containing `{{` (SDK §5.5a steps 1–5), depth first.
    fn walk(&mut self, value: &mut Value, depth: usize) {
        match value {
            Value::String(s) if s.contains("{{") => {
                let first = self.diagnostics.len();
                (self.render)(s, &mut self.diagnostics);
                for diagnostic in &mut self.diagnostics[first..] {
                    diagnostic.path.clone_from(&self.path);
                }
            }
            _ if depth >= MAX_INTERPOLATION_DEPTH => {}
            Value::Array(items) => {
                let len = self.path.len();
                for (index, item) in items.iter_mut().enumerate() {
                    let _ = write!(self.path, "[{index}]");
                    self.walk(item, depth + 1);
                    self.path.truncate(len);
                }
            }
            Value::Object(map) => {
                let len = self.path.len();
                for (key, item) in map.iter_mut() {
                    if len > 0 {
                        self.path.push('.');
                    }
                    self.path.push_str(key);
                    self.walk(item, depth + 1);
                    self.path.truncate(len);
                }
            }
            _ => {}
        }
    }
}

/// A parsed template: scanned once, rendered against many messages.
///
/// ```
/// use std::collections::HashMap;
/// use oatf_runtime::Template;
/// use serde_json::json;
///
/// let template = Template::parse("You ran {{request.arguments.command}}");
/// let none: HashMap<String, String> = HashMap::new();
/// for command in ["ls", "id"] {
///     let request = json!({"arguments": {"command": command}});
///     let (text, _) = template.render(&none, Some(&request), None);
///     assert_eq!(text, format!("You ran {command}"));
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Box<[Part]>,
    literal_len: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(Box<str>),
    Expression {
        name: Box<str>,
        /// For `request.` / `response.` names: the side and the parsed path (`None` when invalid,
        /// which never resolves).
        message_path: Option<(Side, Option<SimplePath>)>,
    },
}

impl Template {
    /// Parses `template`. Parsing never fails: an unclosed `{{` is literal text.
    pub fn parse(template: &str) -> Self {
        let mut parts: Vec<Part> = Vec::new();
        let mut literal_len = 0;
        scan(template, |token| match token {
            Token::Text("") => {}
            Token::Text(text) => {
                literal_len += text.len();
                match parts.last_mut() {
                    Some(Part::Text(previous)) => {
                        let mut joined = String::with_capacity(previous.len() + text.len());
                        joined.push_str(previous);
                        joined.push_str(text);
                        *previous = joined.into_boxed_str();
                    }
                    _ => parts.push(Part::Text(text.into())),
                }
            }
            Token::Expression(name) => parts.push(Part::Expression {
                name: name.into(),
                message_path: message_reference(name)
                    .map(|(side, path)| (side, SimplePath::parse(path).ok())),
            }),
        });
        Template {
            parts: parts.into_boxed_slice(),
            literal_len,
        }
    }

    /// Whether the template has any expression (a template without one renders to a constant).
    pub fn has_expressions(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::Expression { .. }))
    }

    /// The names referenced by the template's expressions, in order (for checking them against the
    /// declared extractors, W-004 case a).
    pub fn references(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Expression { name, .. } => Some(&**name),
            Part::Text(_) => None,
        })
    }

    /// Renders the template (SDK §5.5); see [`interpolate_template`].
    pub fn render(
        &self,
        extractors: &(impl ExtractorLookup + ?Sized),
        request: Option<&Value>,
        response: Option<&Value>,
    ) -> (String, Vec<TemplateDiagnostic>) {
        let mut out = String::with_capacity(self.literal_len);
        let mut diagnostics = Vec::new();
        self.render_into(extractors, request, response, &mut out, &mut diagnostics);
        (out, diagnostics)
    }

    /// Renders the template, appending to `out` and `diagnostics`.
    pub fn render_into(
        &self,
        extractors: &(impl ExtractorLookup + ?Sized),
        request: Option<&Value>,
        response: Option<&Value>,
        out: &mut String,
        diagnostics: &mut Vec<TemplateDiagnostic>,
    ) {
        for part in &*self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Expression { name, message_path } => {
                    let path = message_path.as_ref().map(|(side, p)| (*side, p.as_ref()));
                    resolve(name, path, extractors, request, response, out, diagnostics);
                }
            }
        }
    }
}

/// A value whose template strings are parsed once (for example a phase `state`, rendered for every
/// request it answers) and rendered against many messages; see [`interpolate_value`].
///
/// ```
/// use std::collections::HashMap;
/// use oatf_runtime::ValueTemplate;
/// use serde_json::json;
///
/// let state = ValueTemplate::parse(json!({"content": [{"type": "text", "text": "ran {{request.arguments.cmd}}"}]}));
/// let none: HashMap<String, String> = HashMap::new();
/// let request = json!({"arguments": {"cmd": "id"}});
/// let (value, warnings) = state.render(&none, Some(&request), None);
/// assert_eq!(value, json!({"content": [{"type": "text", "text": "ran id"}]}));
/// assert!(warnings.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ValueTemplate {
    value: Value,
    /// The parsed strings containing `{{`, in the order of the depth-first walk.
    templates: Box<[Template]>,
}

impl ValueTemplate {
    /// Parses every string of `value` that contains `{{` (down to [`MAX_INTERPOLATION_DEPTH`]).
    pub fn parse(mut value: Value) -> Self {
        let mut templates = Vec::new();
        let mut walker = Walker {
            path: String::new(),
            diagnostics: Vec::new(),
            render: |s: &mut String, _: &mut Vec<TemplateDiagnostic>| {
                templates.push(Template::parse(s));
            },
        };
        walker.walk(&mut value, 0);
        ValueTemplate {
            value,
            templates: templates.into_boxed_slice(),
        }
    }

    /// The value as written.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Whether some string of the value contains `{{` (an expression, an escape or a stray opening).
    pub fn has_templates(&self) -> bool {
        !self.templates.is_empty()
    }

    /// Renders the value (SDK §5.5a): the same result as [`interpolate_value`] on the value as written.
    pub fn render(
        &self,
        extractors: &(impl ExtractorLookup + ?Sized),
        request: Option<&Value>,
        response: Option<&Value>,
    ) -> (Value, Vec<TemplateDiagnostic>) {
        let mut value = clone_value(&self.value);
        let mut templates = self.templates.iter();
        let mut walker = Walker {
            path: String::new(),
            diagnostics: Vec::new(),
            render: |s: &mut String, diagnostics: &mut Vec<TemplateDiagnostic>| {
                // The walk meets the same strings in the same order as in `parse`.
                if let Some(template) = templates.next() {
                    let mut out = String::with_capacity(s.len());
                    template.render_into(extractors, request, response, &mut out, diagnostics);
                    *s = out;
                }
            },
        };
        walker.walk(&mut value, 0);
        (value, walker.diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_value_copies_every_shape_and_deep_values_without_recursion() {
        let value = serde_json::json!({"a": [1, {"b": null, "c": []}, "x"], "d": {}, "e": 1.5});
        assert_eq!(clone_value(&value), value);
        for leaf in [
            serde_json::json!(null),
            serde_json::json!("s"),
            serde_json::json!([]),
        ] {
            assert_eq!(clone_value(&leaf), leaf);
        }
        // 100,000 levels: `Value::clone` would overflow the stack. Both values are taken apart
        // iteratively afterwards, because `Value`'s drop recurses too.
        let mut deep = serde_json::json!("{{x}}");
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        let mut copy = clone_value(&deep);
        let mut levels = 0;
        for value in [&mut deep, &mut copy] {
            let mut current = std::mem::take(value);
            while let Value::Array(mut items) = current {
                current = items.pop().unwrap_or_default();
                levels += 1;
            }
        }
        assert_eq!(levels, 200_000);
    }
    use serde_json::json;

    #[track_caller]
    fn check(template: &str, request: Value, expect: &str, warnings: &[&str]) {
        let extractors = HashMap::from([
            ("name", "world"),
            ("recon.key", "sk-1"),
            ("request.name", "from-extractor"),
            ("payload", "{{name}}"),
            ("empty", ""),
        ]);
        let request = Some(&request).filter(|r| !r.is_null());
        let response = json!({"id": "r-1", "obj": {"z": 1, "a": [true, null]}});
        let (text, diagnostics) =
            interpolate_template(template, &extractors, request, Some(&response));
        assert_eq!(text, expect, "{template:?}");
        let references: Vec<&str> = diagnostics.iter().map(|d| d.reference()).collect();
        assert_eq!(references, warnings, "{template:?}");
        // The parsed form renders the same.
        let (text, diagnostics) =
            Template::parse(template).render(&extractors, request, Some(&response));
        assert_eq!(text, expect, "parsed {template:?}");
        assert_eq!(diagnostics.len(), warnings.len(), "parsed {template:?}");
    }

    #[test]
    fn extractors_and_paths() {
        check(
            "Hello {{name}}{{name}}!",
            json!(null),
            "Hello worldworld!",
            &[],
        );
        check(
            "{{ name }}|{{empty}}|{{recon.key}}",
            json!(null),
            "world||sk-1",
            &[],
        );
        check(
            "{{request.name}}",
            json!({"name": "x"}),
            "from-extractor",
            &[],
        );
        check("{{request.a.b}}", json!({"a": {"b": 2.5}}), "2.5", &[]);
        check(
            "{{response.obj}}",
            json!(null),
            r#"{"z":1,"a":[true,null]}"#,
            &[],
        );
        check("[{{request.a}}]", json!(null), "[]", &["request.a"]);
        check(
            "[{{request.a.0}}]",
            json!({"a": [1]}),
            "[]",
            &["request.a.0"],
        );
        check(
            "[{{request}}|{{missing}}|{{}}]",
            json!({}),
            "[||]",
            &["request", "missing", ""],
        );
        check(
            "[{{request.bad path}}]",
            json!({"bad path": 1}),
            "[]",
            &["request.bad path"],
        );
    }

    #[test]
    fn escapes_and_no_re_expansion() {
        check(r"\{{name}} {{name}}", json!(null), "{{name}} world", &[]);
        check(r"use \{{ to open", json!(null), "use {{ to open", &[]);
        check(r"\\{{name}}", json!(null), r"\{{name}}", &[]);
        check("{{payload}}", json!(null), "{{name}}", &[]);
        check("{{request.t}}", json!({"t": "{{name}}"}), "{{name}}", &[]);
        check(
            "{{closed later }} {{",
            json!(null),
            " {{",
            &["closed later"],
        );
        check("a {{ unclosed", json!(null), "a {{ unclosed", &[]);
        check("{{a{{name}}", json!(null), "{{aworld", &[]);
        check("}} {name} {", json!(null), "}} {name} {", &[]);
        check("é{{name}}ü", json!(null), "éworldü", &[]);
    }

    #[test]
    fn values_recurse_into_values_not_keys() {
        let extractors = BTreeMap::from([("name".to_owned(), "world".to_owned())]);
        let value = json!({"{{name}}": ["{{name}}", 1, null, {"k": "x{{nope}}"}], "n": 2});
        let (out, diagnostics) = interpolate_value(&value, &extractors, None, None);
        assert_eq!(
            out,
            json!({"{{name}}": ["world", 1, null, {"k": "x"}], "n": 2})
        );
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(
            diagnostics[0].kind(),
            TemplateDiagnosticKind::UndefinedExtractor
        );
        assert_eq!(
            diagnostics[0].to_string(),
            "undefined extractor reference: {{nope}} was replaced with the empty string"
        );
    }

    #[test]
    fn deep_values_are_bounded() {
        let mut value = json!("{{name}}");
        for _ in 0..(MAX_INTERPOLATION_DEPTH + 10) {
            value = json!([value]);
        }
        let extractors = HashMap::from([("name", "world")]);
        let (out, diagnostics) = interpolate_value(&value, &extractors, None, None);
        assert_eq!(out, value);
        assert!(diagnostics.is_empty());
        assert!(!ValueTemplate::parse(value).has_templates());
    }

    #[test]
    fn every_short_template_renders_the_same_both_ways() {
        // Every string of up to 6 characters over an alphabet of the template syntax: no panic, the
        // parsed form agrees with the one-pass form, and text without `{{` is returned unchanged.
        const ALPHABET: [char; 6] = ['\\', '{', '}', 'a', '.', 'é'];
        let extractors = HashMap::from([("a", "{{a}}"), ("a.a", "X")]);
        let request = json!({"a": "{{"});
        let mut count = 0;
        for len in 1..=6u32 {
            for mut n in 0..ALPHABET.len().pow(len) {
                let mut template = String::new();
                for _ in 0..len {
                    template.push(ALPHABET[n % ALPHABET.len()]);
                    n /= ALPHABET.len();
                }
                count += 1;
                let (text, diagnostics) =
                    interpolate_template(&template, &extractors, Some(&request), None);
                let parsed = Template::parse(&template).render(&extractors, Some(&request), None);
                assert_eq!(
                    (&text, &diagnostics),
                    (&parsed.0, &parsed.1),
                    "{template:?}"
                );
                if !template.contains("{{") {
                    assert_eq!(text, template);
                }
            }
        }
        assert!(count > 50_000);
    }

    #[test]
    fn message_paths_follow_resolve_simple_path() {
        // `request.` followed by the empty path resolves the root (SDK §5.1.1), as written in §5.5 3b.
        check("{{request.}}", json!({"k": 1}), r#"{"k":1}"#, &[]);
        check("{{response.id}}", json!(null), "r-1", &[]);
    }

    #[test]
    fn parsed_templates_report_references() {
        let template = Template::parse(r"a \{{b}} {{ c }} {{request.d}}");
        assert_eq!(
            template.references().collect::<Vec<_>>(),
            ["c", "request.d"]
        );
        assert!(template.has_expressions());
        assert!(!Template::parse("plain").has_expressions());
    }
}
