//! Recording of missing required fields while `parse` deserializes (spec-decisions 1).
//!
//! The model's required fields are plain values (`Actor::mode` is a `String`), but a document missing
//! one must still parse so that `validate` reports it with its rule. While a collector is active on
//! the current thread, a struct that misses a required field records the key and takes the field's
//! default; the deserializer of the enclosing mapping turns the keys into dot-paths.
//! Without an active collector (plain serde use), a missing required field is an error as usual.

use std::cell::RefCell;

#[derive(Default)]
struct Collector {
    frames: Vec<Vec<&'static str>>,
    paths: Vec<String>,
}

thread_local! {
    static COLLECTOR: RefCell<Option<Collector>> = const { RefCell::new(None) };
}

/// Records `key` as missing in the innermost mapping and returns the default, when collecting.
pub(crate) fn missing_required<T: Default>(key: &'static str) -> Option<T> {
    COLLECTOR.with(|c| {
        let mut c = c.borrow_mut();
        let frame = c.as_mut()?.frames.last_mut()?;
        frame.push(key);
        Some(T::default())
    })
}

/// Activates collection for the current thread until the guard is dropped.
pub(crate) struct CollectGuard(());

impl CollectGuard {
    pub(crate) fn start() -> Self {
        COLLECTOR.with(|c| *c.borrow_mut() = Some(Collector::default()));
        CollectGuard(())
    }

    /// The dot-paths recorded so far.
    pub(crate) fn take_paths(&self) -> Vec<String> {
        COLLECTOR.with(|c| {
            c.borrow_mut()
                .as_mut()
                .map(|c| std::mem::take(&mut c.paths))
                .unwrap_or_default()
        })
    }
}

impl Drop for CollectGuard {
    fn drop(&mut self) {
        COLLECTOR.with(|c| *c.borrow_mut() = None);
    }
}

/// Opens a frame for the mapping being deserialized (no-op when not collecting).
pub(crate) fn enter_map() {
    COLLECTOR.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            c.frames.push(Vec::new());
        }
    });
}

/// Closes the mapping's frame; on success its missing keys become paths under `path`.
pub(crate) fn leave_map(path: &str, success: bool) {
    COLLECTOR.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut()
            && let Some(keys) = c.frames.pop()
            && success
        {
            for key in keys {
                c.paths.push(if path.is_empty() {
                    key.to_owned()
                } else {
                    format!("{path}.{key}")
                });
            }
        }
    });
}
