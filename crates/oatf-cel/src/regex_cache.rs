//! The per-engine cache of compiled, size-limited regexes behind `matches`, and the memory of the
//! patterns it rejected (D-126). A hit is served from the calling thread's own copies (D-182): no
//! lock, no reference count, no cache line written that another core reads.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// The most engines whose regexes one thread keeps copies of (D-182); the copies of the engine used
/// longest ago go first. With [`REGEX_CACHE_CAPACITY`], a thread keeps at most this many times that
/// many regexes.
const LOCAL_ENGINES: usize = 16;

/// The identity of the next engine's cache: never reused, unlike an address.
static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(0);

/// One engine's regexes as a thread keeps them: its cache's id, and the copies by pattern.
type LocalCopies = (u64, HashMap<Box<str>, Regex>);

thread_local! {
    /// This thread's copies of the regexes of the engines it used last, by cache identity, the most
    /// recent last (D-182). A copy shares the compiled program of the engine's regex and has its
    /// own matching scratch space, which the thread alone uses.
    static LOCAL: RefCell<Vec<LocalCopies>> = const { RefCell::new(Vec::new()) };
}

/// Marks a `matches` failure caused by a regex bound (reported as `regex_timeout`).
pub(crate) const REGEX_BOUND_MARKER: &str = "regex bound exceeded: ";

/// Compiled `matches` regexes of one engine, and the patterns it could not compile.
pub(crate) struct RegexCache {
    /// The key of this cache's copies in each thread's [`LOCAL`].
    id: u64,
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
            id: NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed),
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

    /// Counts `pattern` in the budget of this evaluation.
    fn count(
        pattern: &str,
        used: &RefCell<Vec<Box<str>>>,
        max_compiles: usize,
    ) -> Result<(), ExecutionError> {
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
        Ok(())
    }

    /// Whether this thread's copy of `pattern`'s regex matches `text`; `None` without a copy.
    fn local_match(&self, pattern: &str, text: &str) -> Option<bool> {
        LOCAL
            .try_with(|local| {
                let local = local.try_borrow().ok()?;
                let (_, regexes) = local.iter().rev().find(|(id, _)| *id == self.id)?;
                regexes.get(pattern).map(|regex| regex.is_match(text))
            })
            .ok()
            .flatten()
    }

    /// Keeps a copy of `regex` for this thread (bounded: see [`LOCAL_ENGINES`]).
    fn keep_local(&self, pattern: &str, regex: &Regex) {
        let _ = LOCAL.try_with(|local| {
            let Ok(mut local) = local.try_borrow_mut() else {
                return;
            };
            let at = match local.iter().position(|(id, _)| *id == self.id) {
                Some(at) => at,
                None => {
                    if local.len() >= LOCAL_ENGINES {
                        local.remove(0);
                    }
                    local.push((self.id, HashMap::new()));
                    local.len() - 1
                }
            };
            // The engine used last goes last: the first is the one to drop.
            let last = local.len() - 1;
            local[at..].rotate_left(1);
            let regexes = &mut local[last].1;
            if regexes.len() >= REGEX_CACHE_CAPACITY {
                regexes.clear();
            }
            regexes.insert(pattern.into(), regex.clone());
        });
    }

    fn get(&self, pattern: &str) -> Result<Arc<Regex>, ExecutionError> {
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
        Self::count(pattern, used, max_compiles)?;
        if let Some(matched) = self.local_match(pattern, text) {
            return Ok(matched);
        }
        let regex = self.get(pattern)?;
        self.keep_local(pattern, &regex);
        Ok(regex.is_match(text))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    fn is_match(cache: &RegexCache, text: &str, pattern: &str) -> Result<bool, ExecutionError> {
        cache.is_match(text, pattern, &RefCell::new(Vec::new()), 8)
    }

    /// D-182: once a thread has a regex, matching it again takes no lock.
    #[test]
    fn a_hit_takes_no_lock() {
        let cache = Arc::new(RegexCache::new(RegexLimits::default()));
        let (warm, warmed) = mpsc::channel();
        let (go, started) = mpsc::channel::<()>();
        let (done, finished) = mpsc::channel();
        let worker = {
            let cache = Arc::clone(&cache);
            std::thread::spawn(move || {
                let _ = warm.send(is_match(&cache, "exec", "^ex"));
                let _ = started.recv();
                let _ = done.send(is_match(&cache, "ls", "^ex"));
            })
        };
        assert_eq!(warmed.recv().ok().map(|r| r.ok()), Some(Some(true)));
        let held = cache.store.lock();
        let _ = go.send(());
        // With the store locked, the worker's second match is served from its own copy.
        let second = finished.recv_timeout(Duration::from_secs(20));
        drop(held);
        let _ = worker.join();
        assert_eq!(second.map(|r| r.ok()), Ok(Some(false)));
        assert_eq!(cache.attempts.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_thread_keeps_copies_of_a_bounded_number_of_engines_and_regexes() {
        std::thread::spawn(|| {
            let caches: Vec<RegexCache> = (0..LOCAL_ENGINES + 3)
                .map(|_| RegexCache::new(RegexLimits::default()))
                .collect();
            for cache in &caches {
                assert_eq!(is_match(cache, "a", "a").ok(), Some(true));
            }
            let engines = LOCAL.with(|l| l.borrow().len());
            assert_eq!(engines, LOCAL_ENGINES);
            let last = &caches[caches.len() - 1];
            for i in 0..REGEX_CACHE_CAPACITY + 10 {
                assert_eq!(is_match(last, "x", &format!("^{i}$")).ok(), Some(false));
            }
            let most = LOCAL.with(|l| l.borrow().iter().map(|(_, r)| r.len()).max());
            assert!(most.is_some_and(|n| n <= REGEX_CACHE_CAPACITY), "{most:?}");
            // The first engines' copies were dropped; their regexes are found again in their caches.
            assert_eq!(is_match(&caches[0], "a", "a").ok(), Some(true));
            assert_eq!(caches[0].attempts.load(Ordering::Relaxed), 1);
        })
        .join()
        .expect("the thread ends");
    }
}
