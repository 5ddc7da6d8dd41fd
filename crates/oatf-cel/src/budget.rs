//! The budgets of one evaluation (iterations, produced bytes, cost, `matches` patterns), kept
//! per thread so that the functions charging them are registered once per program instead of into
//! a new context for every evaluation.
//!
//! An evaluation runs on the calling thread from start to end and never starts another one, so the
//! counters of a thread belong to the one evaluation running on it; [`reset`] starts each evaluation
//! from zero.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One budget of an evaluation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    /// Comprehension iterations (`CelLimits::max_iterations`).
    Iterations,
    /// Bytes of values produced (`CelLimits::max_produced_bytes`).
    Produced,
    /// Cost by operand size (`CelLimits::max_cost`).
    Cost,
}

struct Counters {
    iterations: AtomicUsize,
    produced: AtomicUsize,
    cost: AtomicUsize,
}

thread_local! {
    static SPENT: Counters = const {
        Counters {
            iterations: AtomicUsize::new(0),
            produced: AtomicUsize::new(0),
            cost: AtomicUsize::new(0),
        }
    };
    /// The distinct `matches` patterns of the evaluation (`CelLimits::max_regex_compiles`, D-96).
    static PATTERNS: RefCell<Vec<Box<str>>> = const { RefCell::new(Vec::new()) };
}

/// Sets every budget of this thread's next evaluation to zero spent.
pub(crate) fn reset() {
    SPENT.with(|s| {
        for counter in [&s.iterations, &s.produced, &s.cost] {
            counter.store(0, Ordering::Relaxed);
        }
    });
    PATTERNS.with(|p| p.borrow_mut().clear());
}

/// Runs `f` with the distinct `matches` patterns of the evaluation running on this thread.
pub(crate) fn with_patterns<R>(f: impl FnOnce(&RefCell<Vec<Box<str>>>) -> R) -> R {
    PATTERNS.with(f)
}

/// Runs `f` with the counter of `counter` of the evaluation running on this thread.
pub(crate) fn with<R>(counter: Counter, f: impl FnOnce(&AtomicUsize) -> R) -> R {
    SPENT.with(|s| {
        f(match counter {
            Counter::Iterations => &s.iterations,
            Counter::Produced => &s.produced,
            Counter::Cost => &s.cost,
        })
    })
}

/// What is left of `counter` under a total of `max`.
pub(crate) fn left(counter: Counter, max: usize) -> usize {
    with(counter, |spent| {
        max.saturating_sub(spent.load(Ordering::Relaxed))
    })
}

/// Adds `amount` to `counter` when the total stays within `max`; says whether it did.
pub(crate) fn charge(counter: Counter, amount: usize, max: usize) -> bool {
    with(counter, |spent| {
        let total = spent.load(Ordering::Relaxed).saturating_add(amount);
        if total > max {
            return false;
        }
        spent.store(total, Ordering::Relaxed);
        true
    })
}
