//! What `parse` collects while it deserializes, so that one run reports every problem
//! (spec-decisions 1; D-67).
//!
//! Two things are collected on the current thread while a [`CollectGuard`] is active:
//!
//! - **Missing required fields.** The model's required fields are plain values (`Actor::mode` is a
//!   `String`), but a document missing one must still parse so that `validate` reports it with its
//!   rule. A struct that misses a required field records the key and takes the field's default; the
//!   deserializer of the enclosing mapping turns the keys into dot-paths.
//! - **Recovered errors.** An unknown key or a value of the wrong type does not stop the document:
//!   the YAML deserializer records the located error ([`record`]) and marks it pending; the struct
//!   being read ([`next_value`], [`unknown_field`]) takes the mark, leaves the field out and goes on
//!   with the next key. The error path of the field left out is kept, so that `validate` on the rest
//!   of the document does not report what was only missing because it failed to parse.
//!
//! Without an active collector (plain serde use, for example from JSON), nothing is recorded: a
//! missing required field, an unknown key or a type mismatch is an error as usual.

use std::cell::RefCell;

use serde::de::{self, DeserializeSeed, MapAccess};

use crate::error::ParseError;
use crate::span::join_key;

/// At most this many errors are recorded; later ones are counted but not kept.
pub(crate) const MAX_ERRORS: usize = 100;

#[derive(Default)]
struct Collector {
    frames: Vec<Vec<&'static str>>,
    paths: Vec<String>,
    errors: Vec<ParseError>,
    /// Errors past [`MAX_ERRORS`].
    more: usize,
    /// Paths of the fields left out because they failed.
    dropped: Vec<String>,
    /// The path of the value whose error was recorded and not yet taken by a struct.
    pending: Option<String>,
}

thread_local! {
    static COLLECTOR: RefCell<Option<Collector>> = const { RefCell::new(None) };
}

fn with<R>(f: impl FnOnce(&mut Collector) -> R) -> Option<R> {
    COLLECTOR.with(|c| c.borrow_mut().as_mut().map(f))
}

/// Records `key` as missing in the innermost mapping, when collecting: `true` when recorded (the
/// field then takes its default). Not generic, so compiled once for every field type.
pub(crate) fn missing_required(key: &'static str) -> bool {
    with(|c| {
        let Some(frame) = c.frames.last_mut() else {
            return false;
        };
        frame.push(key);
        true
    })
    .unwrap_or(false)
}

/// Whether a collector is active on this thread.
pub(crate) fn collecting() -> bool {
    with(|_| ()).is_some()
}

/// Records a located error of the value at `path` and marks it pending (when collecting). `fresh` is
/// false when the error was already recorded deeper down and is only passing through.
pub(crate) fn record(error: Option<ParseError>, path: &str) {
    with(|c| {
        if let Some(error) = error {
            if c.errors.len() < MAX_ERRORS {
                c.errors.push(error);
            } else {
                c.more += 1;
            }
        }
        c.pending = Some(path.to_owned());
    });
}

/// Takes the pending mark: `true` when the error just returned was recorded and the caller may
/// leave its field out and go on.
fn take_pending() -> bool {
    with(|c| match c.pending.take() {
        Some(path) => {
            c.dropped.push(path);
            true
        }
        None => false,
    })
    .unwrap_or(false)
}

/// Reads the next value of a mapping. `Ok(None)` when it failed and the error was recorded (the
/// caller leaves the field out); `Err` when not collecting.
pub(crate) fn next_value<'de, A, T>(map: &mut A) -> Result<Option<T>, A::Error>
where
    A: MapAccess<'de>,
    T: de::Deserialize<'de>,
{
    next_value_seed(map, std::marker::PhantomData::<T>)
}

/// [`next_value`] with a seed.
pub(crate) fn next_value_seed<'de, A, S>(map: &mut A, seed: S) -> Result<Option<S::Value>, A::Error>
where
    A: MapAccess<'de>,
    S: DeserializeSeed<'de>,
{
    match map.next_value_seed(seed) {
        Ok(value) => Ok(Some(value)),
        Err(_) if take_pending() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Handles a key the struct does not know: records an unknown-field error located at the key and
/// skips its value when collecting; otherwise the error.
pub(crate) fn unknown_field<'de, A>(
    map: &mut A,
    key: &str,
    expected: &'static [&'static str],
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
{
    match map.next_value_seed(UnknownField { key, expected }) {
        Ok(()) => Ok(()),
        Err(_) if take_pending() => Ok(()),
        Err(e) => Err(e),
    }
}

/// A seed that fails with "unknown field" without reading its value; the mapping's deserializer
/// locates the error at the key.
struct UnknownField<'k> {
    key: &'k str,
    expected: &'static [&'static str],
}

impl<'de> DeserializeSeed<'de> for UnknownField<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
        Err(de::Error::unknown_field(self.key, self.expected))
    }
}

/// What a collection gathered.
#[derive(Default)]
pub(crate) struct Collected {
    pub(crate) missing: Vec<String>,
    pub(crate) errors: Vec<ParseError>,
    pub(crate) more: usize,
    pub(crate) dropped: Vec<String>,
}

/// Activates collection for the current thread until the guard is dropped.
pub(crate) struct CollectGuard(());

impl CollectGuard {
    pub(crate) fn start() -> Self {
        COLLECTOR.with(|c| *c.borrow_mut() = Some(Collector::default()));
        CollectGuard(())
    }

    /// Everything recorded so far.
    pub(crate) fn take(&self) -> Collected {
        with(|c| Collected {
            missing: std::mem::take(&mut c.paths),
            errors: std::mem::take(&mut c.errors),
            more: std::mem::take(&mut c.more),
            dropped: std::mem::take(&mut c.dropped),
        })
        .unwrap_or_default()
    }
}

impl Drop for CollectGuard {
    fn drop(&mut self) {
        COLLECTOR.with(|c| *c.borrow_mut() = None);
    }
}

/// Opens a frame for the mapping being deserialized (no-op when not collecting).
pub(crate) fn enter_map() {
    with(|c| c.frames.push(Vec::new()));
}

/// Closes the mapping's frame; on success its missing keys become paths under the mapping's path
/// (written out only when a key is missing).
pub(crate) fn leave_map(success: bool, path: impl FnOnce() -> String) {
    with(|c| {
        if let Some(keys) = c.frames.pop()
            && success
            && !keys.is_empty()
        {
            let path = path();
            for key in keys {
                c.paths.push(join_key(&path, key));
            }
        }
    });
}
