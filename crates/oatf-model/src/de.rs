//! What the deserializers of documents share (YAML's located tree in `yaml/de.rs`, JSON values in
//! `json.rs`): the error that knows its dot-path, the words of its messages (with "did you mean" for
//! unknown keys and values), the borrowed path of the value being read, and the collection of every
//! error of a document in one run (`types::collect`).

use std::fmt;

use serde::de;

use crate::error::{ParseError, ParseErrorKind};
use crate::span::{Location, join_index, join_key};
use crate::types::Document;
use crate::types::collect::{self, CollectGuard};

/// A deserialization error, located by the innermost node that saw it.
#[derive(Debug)]
pub(crate) struct DeError {
    kind: ParseErrorKind,
    message: String,
    pub(crate) missing_field: Option<&'static str>,
    pub(crate) key_fault: bool,
    /// Already recorded by the collector of `parse` (see `types::collect`).
    pub(crate) recorded: bool,
    /// The path of the value and its source location (none for a document read from JSON).
    pub(crate) located: Option<(String, Option<Location>)>,
}

impl DeError {
    fn new(kind: ParseErrorKind, message: String) -> Self {
        DeError {
            kind,
            message,
            missing_field: None,
            key_fault: false,
            recorded: false,
            located: None,
        }
    }

    /// Whether the collector of `parse` already holds this error.
    pub(crate) fn recorded(&self) -> bool {
        self.recorded
    }

    pub(crate) fn to_parse_error(&self) -> ParseError {
        let mut error = ParseError::new(self.kind, self.message.clone());
        error.unknown_field = self.key_fault && self.kind == ParseErrorKind::TypeMismatch;
        if let Some((path, location)) = &self.located {
            error.path = Some(path.clone());
            if let Some(location) = location {
                error.line = Some(location.line);
                error.column = Some(location.column);
                error.span = Some(location.span.clone());
            }
        }
        error
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

fn lower(text: String) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if first.is_uppercase() => {
            let mut out: String = first.to_lowercase().collect();
            out.push_str(chars.as_str());
            out
        }
        _ => text,
    }
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::new(ParseErrorKind::TypeMismatch, lower(msg.to_string()))
    }

    fn invalid_type(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        DeError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "expected {}, found {}",
                expected_in_words(&exp.to_string()),
                found_in_words(&unexp)
            ),
        )
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let shown: String = variant.chars().take(64).collect();
        DeError::new(
            ParseErrorKind::UnknownVariant,
            format!(
                "unknown value `{shown}`{}",
                crate::suggest::one_of(variant, expected)
            ),
        )
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let shown: String = field.chars().take(64).collect();
        let mut e = DeError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "unknown field `{shown}`{}",
                crate::suggest::one_of(field, expected)
            ),
        );
        e.key_fault = true;
        e
    }

    fn missing_field(field: &'static str) -> Self {
        let mut e = DeError::new(
            ParseErrorKind::TypeMismatch,
            format!("missing required field `{field}`"),
        );
        e.missing_field = Some(field);
        e
    }

    fn duplicate_field(field: &'static str) -> Self {
        let mut e = DeError::new(ParseErrorKind::Syntax, format!("duplicate field `{field}`"));
        e.key_fault = true;
        e
    }
}

/// What a visitor expects, in the words of a YAML author rather than of Rust (`i64` is "an integer").
fn expected_in_words(expected: &str) -> String {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "u8" | "u16" | "u32" | "u64" | "u128" => {
            "an integer".to_owned()
        }
        "f32" | "f64" => "a number".to_owned(),
        "a sequence" => "a list".to_owned(),
        "a map" => "a mapping".to_owned(),
        "a borrowed string" | "a character" => "a string".to_owned(),
        "unit" => "null".to_owned(),
        other => other.to_owned(),
    }
}

/// What was found, with the value when it is a scalar (`the string "high"`, `the integer 5`).
fn found_in_words(found: &de::Unexpected<'_>) -> String {
    match found {
        de::Unexpected::Bool(b) => format!("the boolean {b}"),
        de::Unexpected::Unsigned(u) => format!("the integer {u}"),
        de::Unexpected::Signed(i) => format!("the integer {i}"),
        de::Unexpected::Float(f) => format!("the number {f}"),
        de::Unexpected::Str(s) => format!("the string {}", quoted(s)),
        de::Unexpected::Unit => "null".to_owned(),
        de::Unexpected::Seq => "a list".to_owned(),
        de::Unexpected::Map => "a mapping".to_owned(),
        other => other.to_string(),
    }
}

/// A string as a double-quoted literal, shortened to 64 characters.
fn quoted(text: &str) -> String {
    const MAX: usize = 64;
    let mut shown: String = text.chars().take(MAX).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    serde_json::to_string(&shown).unwrap_or_default()
}

/// The dot-path of the node being read, as a chain of borrowed segments: it is written out only
/// when an error or a missing field needs it, so reading a valid document builds no path.
#[derive(Clone, Copy)]
pub(crate) enum Path<'p> {
    Root,
    Key(&'p Path<'p>, &'p str),
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    /// The path as diagnostics write it ([`join_key`], [`join_index`]).
    pub(crate) fn render(&self) -> String {
        let mut segments = Vec::new();
        let mut current = self;
        loop {
            match current {
                Path::Root => break,
                Path::Key(parent, _) | Path::Index(parent, _) => {
                    segments.push(current);
                    current = parent;
                }
            }
        }
        let mut path = String::new();
        for segment in segments.iter().rev() {
            path = match segment {
                Path::Key(_, key) => join_key(&path, key),
                Path::Index(_, index) => join_index(&path, *index),
                Path::Root => path,
            };
        }
        path
    }
}

/// Deserializes a document with `read` while collecting every error (`types::collect`): the
/// document (when it could be read at all), the errors, and the fields left out (D-67), with the
/// missing required fields recorded in the document.
pub(crate) fn collect_document(
    read: impl FnOnce() -> Result<Document, DeError>,
) -> (Option<Document>, Vec<ParseError>, Vec<String>) {
    let collect = CollectGuard::start();
    let result = read();
    let collected = collect.take();
    let mut errors = collected.errors;
    if collected.more > 0 {
        errors.push(ParseError::new(
            ParseErrorKind::TypeMismatch,
            format!(
                "{} more errors of the same kinds after the first {}",
                collected.more,
                collect::MAX_ERRORS
            ),
        ));
    }
    let mut document = None;
    let mut dropped = Vec::new();
    match result {
        Ok(mut doc) => {
            doc.source.missing_fields = collected.missing;
            document = Some(doc);
            dropped = collected.dropped;
        }
        Err(e) if !e.recorded() => errors.push(e.to_parse_error()),
        Err(_) => {}
    }
    for error in &mut errors {
        // `oatf: 0.1` (a float) is a type mismatch that is also a V-001 fault.
        if error.rule.is_none() && error.path.as_deref() == Some("oatf") {
            error.rule = Some(crate::rules::Rule::V001);
        }
    }
    (document, errors, dropped)
}
