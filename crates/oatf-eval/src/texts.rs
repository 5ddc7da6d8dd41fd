//! The text of a resolved value as the text operators see it, and the renders of one message kept
//! for its indicators ([`MessageTexts`]).

use std::borrow::Cow;

use oatf_internal::json::write_compact_sorted;
use serde_json::Value;

/// The most bytes of renders [`MessageTexts`] keeps for one message; past it a value is rendered
/// on each use, so memory does not grow with the message beyond this.
const MAX_KEPT_TEXT_BYTES: usize = 1 << 20;

/// The texts of the non-string values resolved in the message being evaluated (compact JSON with
/// sorted keys, spec-decisions 13), so that the prefilter and the indicators that look at one
/// object (`arguments`, say) render it once per message instead of once per indicator.
///
/// A render is keyed by the address of the value: the message is borrowed, unchanged, while it
/// is evaluated, and distinct values of it have distinct addresses. [`clear`](Self::clear) must be
/// called before each message, since a later message may reuse an address.
///
/// The default keeps nothing (every use renders, as a one-shot evaluation does; the
/// straightforward engine, the reference of the differential test, uses it);
/// [`per_message`](Self::per_message) keeps up to [`MAX_KEPT_TEXT_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct MessageTexts {
    kept: Vec<(usize, Box<str>)>,
    kept_bytes: usize,
    /// The most bytes of renders kept.
    budget: usize,
    /// The render of a value past the budget.
    scratch: String,
}

impl MessageTexts {
    /// Renders kept for the message being evaluated, up to [`MAX_KEPT_TEXT_BYTES`].
    pub(crate) fn per_message() -> Self {
        MessageTexts {
            budget: MAX_KEPT_TEXT_BYTES,
            ..MessageTexts::default()
        }
    }

    /// Forgets the renders of the previous message.
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
        self.kept_bytes = 0;
    }

    /// The text of a non-string `value` of the message being evaluated.
    pub(crate) fn text(&mut self, value: &Value) -> &str {
        let address = std::ptr::from_ref(value) as usize;
        if let Some(index) = self.kept.iter().position(|(a, _)| *a == address) {
            return self.kept.get(index).map_or("", |(_, text)| text);
        }
        self.scratch.clear();
        write_compact_sorted(value, &mut self.scratch);
        if self.kept_bytes + self.scratch.len() > self.budget {
            return &self.scratch;
        }
        self.kept_bytes += self.scratch.len();
        self.kept.push((address, self.scratch.as_str().into()));
        self.kept.last().map_or("", |(_, text)| text)
    }

    /// The heap bytes held between messages.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.kept.capacity() * std::mem::size_of::<(usize, Box<str>)>()
            + self.kept_bytes
            + self.scratch.capacity()
    }
}

/// A value as text: a string as itself, anything else as compact JSON with sorted keys
/// (spec-decisions 13).
pub(crate) fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => {
            let mut out = String::new();
            write_compact_sorted(other, &mut out);
            Cow::Owned(out)
        }
    }
}

/// At most `chars` characters of `text`, with `…` when cut.
pub(crate) fn truncate(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}
