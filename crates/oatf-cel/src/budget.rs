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

/// The rule of every budget, on both paths (D-350): `amount` is added to what was `spent`
/// whether or not it fits, and the charge is refused when the total is past `max`. So a refused
/// charge spends the rest of the budget: every later charge of the evaluation is refused too, and
/// measuring a value for one walks nothing (the budget left is zero). Without it an `all` or
/// `exists` loop, which goes on after an error in its body as CEL says, walked up to the budget
/// left again on every later iteration. Returns the new total and whether it is within `max`.
pub(crate) fn spend(spent: usize, amount: usize, max: usize) -> (usize, bool) {
    let total = spent.saturating_add(amount);
    (total, total <= max)
}

/// The sum of the sizes of `items` by `size` (given the budget left for it), each at least 1,
/// walked until it is past `cap`, the budget left: the one walk of a nested size on both paths
/// (`metering::deep_size` on CEL values, the direct path's on JSON values). Its answer is exact
/// when it is within `cap` and past `cap` otherwise, which is all a charge ([`spend`]) needs to
/// know: measuring a value costs at most what the budget allows, however large the value is.
pub(crate) fn sum_within<T>(
    items: impl Iterator<Item = T>,
    cap: usize,
    size: impl Fn(T, usize) -> usize,
) -> usize {
    let mut total: usize = 0;
    for item in items {
        total = total.saturating_add(size(item, cap - total).max(1));
        if total > cap {
            break;
        }
    }
    total
}

/// Adds `amount` to `counter` ([`spend`]); says whether the total is within `max`.
pub(crate) fn charge(counter: Counter, amount: usize, max: usize) -> bool {
    with(counter, |spent| {
        let (total, within) = spend(spent.load(Ordering::Relaxed), amount, max);
        spent.store(total, Ordering::Relaxed);
        within
    })
}
