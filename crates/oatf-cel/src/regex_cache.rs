//! The per-engine cache of compiled, size-limited regexes behind `matches`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cel::ExecutionError;
use oatf_primitives::RegexLimits;
use regex::Regex;

/// The most regexes kept by one engine's `matches` cache before it is cleared.
const REGEX_CACHE_CAPACITY: usize = 256;

/// Marks a `matches` failure caused by a regex bound (reported as `regex_timeout`).
pub(crate) const REGEX_BOUND_MARKER: &str = "regex bound exceeded: ";

/// Compiled `matches` regexes of one engine.
pub(crate) struct RegexCache {
    pub(crate) limits: RegexLimits,
    pub(crate) compiled: Mutex<HashMap<String, Arc<Regex>>>,
}

impl RegexCache {
    pub(crate) fn len(&self) -> usize {
        self.compiled.lock().map_or(0, |m| m.len())
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
        if let Ok(map) = self.compiled.lock()
            && let Some(regex) = map.get(pattern)
        {
            return Ok(Arc::clone(regex));
        }
        let regex = Arc::new(
            self.limits
                .compile(pattern)
                .map_err(|e| ExecutionError::function_error("matches", e.message()))?,
        );
        if let Ok(mut map) = self.compiled.lock() {
            if map.len() >= REGEX_CACHE_CAPACITY {
                map.clear();
            }
            map.insert(pattern.to_owned(), Arc::clone(&regex));
        }
        Ok(regex)
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
