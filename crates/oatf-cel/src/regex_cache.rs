//! The per-engine cache of compiled, size-limited regexes behind `matches`, and the memory of the
//! patterns it rejected (D-126).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cel::ExecutionError;
use oatf_primitives::RegexLimits;
use regex::Regex;

/// The most regexes kept by one engine's `matches` cache before it is cleared.
const REGEX_CACHE_CAPACITY: usize = 256;

/// The most rejected patterns one engine remembers before the memory is cleared (D-126).
const REJECTED_CAPACITY: usize = 4096;

/// The most bytes of text (patterns and their error messages) the rejection memory holds before it
/// is cleared; a rejection larger than this alone is not remembered (D-126).
const REJECTED_BYTES: usize = 8 << 20;

/// Marks a `matches` failure caused by a regex bound (reported as `regex_timeout`).
pub(crate) const REGEX_BOUND_MARKER: &str = "regex bound exceeded: ";

/// Compiled `matches` regexes of one engine, and the patterns it could not compile.
pub(crate) struct RegexCache {
    limits: RegexLimits,
    store: Mutex<Store>,
    /// Compile attempts so far, for the tests of D-126.
    #[cfg(test)]
    pub(crate) attempts: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct Store {
    compiled: HashMap<String, Arc<Regex>>,
    /// Rejected patterns with the error message their compilation gave (D-126): compiling is
    /// deterministic under the engine's limits, so the message is the one a new attempt would give.
    rejected: HashMap<Box<str>, Box<str>>,
    /// Bytes of the patterns and messages in `rejected`.
    rejected_bytes: usize,
}

impl RegexCache {
    pub(crate) fn new(limits: RegexLimits) -> Self {
        RegexCache {
            limits,
            store: Mutex::new(Store::default()),
            #[cfg(test)]
            attempts: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.store.lock().map_or(0, |s| s.compiled.len())
    }

    /// How many rejected patterns are remembered, and their bytes (for the tests of D-126).
    #[cfg(test)]
    pub(crate) fn rejected(&self) -> (usize, usize) {
        self.store
            .lock()
            .map_or((0, 0), |s| (s.rejected.len(), s.rejected_bytes))
    }

    fn get(
        &self,
        pattern: &str,
        used: &RefCell<Vec<Box<str>>>,
        max_compiles: usize,
    ) -> Result<Arc<Regex>, ExecutionError> {
        // The budget counts the distinct patterns of this evaluation, cached or not (D-96): what
        // earlier evaluations compiled, on this thread or another, does not change the outcome.
        let new = !used.borrow().iter().any(|p| **p == *pattern);
        if new {
            if used.borrow().len() >= max_compiles {
                return Err(ExecutionError::function_error(
                    "matches",
                    format!(
                        "the expression needs more than the limit of {max_compiles} regex \
                         compilations in one evaluation (CelLimits::max_regex_compiles)"
                    ),
                ));
            }
            used.borrow_mut().push(pattern.into());
        }
        if let Ok(store) = self.store.lock() {
            if let Some(regex) = store.compiled.get(pattern) {
                return Ok(Arc::clone(regex));
            }
            // A remembered rejection is the error a new attempt would give (D-126).
            if let Some(message) = store.rejected.get(pattern) {
                return Err(ExecutionError::function_error("matches", message));
            }
        }
        #[cfg(test)]
        self.attempts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match self.limits.compile(pattern) {
            Ok(regex) => {
                let regex = Arc::new(regex);
                if let Ok(mut store) = self.store.lock() {
                    if store.compiled.len() >= REGEX_CACHE_CAPACITY {
                        store.compiled.clear();
                    }
                    store
                        .compiled
                        .insert(pattern.to_owned(), Arc::clone(&regex));
                }
                Ok(regex)
            }
            Err(error) => {
                let message = error.message();
                let bytes = pattern.len().saturating_add(message.len());
                if bytes <= REJECTED_BYTES
                    && let Ok(mut store) = self.store.lock()
                {
                    if store.rejected.len() >= REJECTED_CAPACITY
                        || store.rejected_bytes.saturating_add(bytes) > REJECTED_BYTES
                    {
                        store.rejected.clear();
                        store.rejected_bytes = 0;
                    }
                    if store
                        .rejected
                        .insert(pattern.into(), message.into())
                        .is_none()
                    {
                        store.rejected_bytes += bytes;
                    }
                }
                Err(ExecutionError::function_error("matches", message))
            }
        }
    }

    pub(crate) fn is_match(
        &self,
        text: &str,
        pattern: &str,
        used: &RefCell<Vec<Box<str>>>,
        max_compiles: usize,
    ) -> Result<bool, ExecutionError> {
        if text.len() > self.limits.max_input_len {
            return Err(ExecutionError::function_error(
                "matches",
                format!(
                    "{REGEX_BOUND_MARKER}text of {} bytes exceeds the regex input limit of {} bytes",
                    text.len(),
                    self.limits.max_input_len
                ),
            ));
        }
        Ok(self.get(pattern, used, max_compiles)?.is_match(text))
    }
}
