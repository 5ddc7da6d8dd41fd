//! The prefilter plans of a compiled attack, shared by every evaluator of it (decision D-93).
//!
//! A plan (`prefilter::Plan`: the groups, automata and regex branches of one class of message)
//! depends only on the attack and the class's applicable indicators, so it is built once per
//! attack, not once per trace: compile once, evaluate many (a campaign evaluates one attack over
//! many short traces, where building the plans cost more than evaluating the messages). The cache
//! holds its plans type-erased so that `attack` does not depend on `prefilter` (which depends on
//! `attack`).

use std::any::Any;
use std::fmt;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

/// How many plans a compiled attack keeps; past it, an evaluator builds its own (the trace filter
/// has at most 256 classes per evaluator, and classes with the same applicable indicators share).
const CACHED_PLANS: usize = 256;

/// Slots of the open-addressed table: twice the plans kept, so that probes stay short.
const SLOTS: usize = 2 * CACHED_PLANS;

type Shared = Arc<dyn Any + Send + Sync>;

/// A kept plan and its key; set once.
type Slot = OnceLock<(Box<[u32]>, Shared)>;

/// Plans keyed by the applicable indicators of a class of message.
///
/// Readers take no lock and touch no shared counter (D-110): every evaluator of a campaign looks
/// its classes' plans up here, one run after another on every core, and a lock or an `Arc` count
/// on the way made all cores wait on one cache line. The slots are set once and never emptied, so
/// a plan lives as long as the attack and is lent by reference; writers take `insert` in turn.
#[derive(Default)]
pub(crate) struct PlanCache {
    slots: OnceLock<Box<[Slot]>>,
    /// How many slots are set; held while one is claimed.
    insert: Mutex<usize>,
}

impl fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlanCache")
            .field("plans", &self.len())
            .finish()
    }
}

/// A plan from [`PlanCache::get_or_build`]: the attack's, or, past the cache's limit, the caller's
/// own.
#[derive(Debug)]
pub(crate) enum Cached<'a, P> {
    Shared(&'a P),
    Own(Arc<P>),
}

impl<P> Deref for Cached<'_, P> {
    type Target = P;

    fn deref(&self) -> &P {
        match self {
            Cached::Shared(plan) => plan,
            Cached::Own(plan) => plan,
        }
    }
}

impl PlanCache {
    /// The plan kept for `applicable`, or the one `build` makes, kept for the next evaluator.
    /// `build` runs outside the lock (two evaluators may both build a plan; the first kept is the
    /// one both use). A poisoned lock or a full cache leaves the caller the plan it built.
    pub(crate) fn get_or_build<P: Any + Send + Sync>(
        &self,
        applicable: &[u32],
        build: impl FnOnce() -> P,
    ) -> Cached<'_, P> {
        let slots = self
            .slots
            .get_or_init(|| (0..SLOTS).map(|_| OnceLock::new()).collect());
        let start = BuildHasherDefault::<DefaultHasher>::default().hash_one(applicable) as usize;
        let probe = || {
            // The key's slot or the first empty one after it (slots are never emptied).
            (0..SLOTS)
                .map(|i| &slots[(start + i) % SLOTS])
                .find(|slot| slot.get().is_none_or(|(key, _)| **key == *applicable))
        };
        if let Some((_, plan)) = probe().and_then(OnceLock::get)
            && let Some(plan) = plan.downcast_ref::<P>()
        {
            return Cached::Shared(plan);
        }
        let plan = Arc::new(build());
        let Ok(mut kept) = self.insert.lock() else {
            return Cached::Own(plan);
        };
        let Some(slot) = probe() else {
            return Cached::Own(plan);
        };
        if slot.get().is_none() && *kept < CACHED_PLANS {
            *kept += 1;
            slot.get_or_init(|| (applicable.into(), Arc::clone(&plan) as Shared));
        }
        match slot.get().and_then(|(_, kept)| kept.downcast_ref::<P>()) {
            Some(kept) => Cached::Shared(kept),
            None => Cached::Own(plan),
        }
    }

    /// How many plans are kept.
    pub(crate) fn len(&self) -> usize {
        self.insert.lock().map_or(0, |kept| *kept)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_is_built_once_per_key_and_shared() {
        let cache = PlanCache::default();
        let mut builds = 0;
        let a = cache.get_or_build(&[1, 2], || {
            builds += 1;
            String::from("plan of [1, 2]")
        });
        let b = cache.get_or_build(&[1, 2], || {
            builds += 1;
            String::from("another")
        });
        assert!(std::ptr::eq(&*a, &*b));
        assert!(matches!(a, Cached::Shared(_)));
        assert_eq!(builds, 1);
        let c = cache.get_or_build(&[2], || String::from("plan of [2]"));
        assert_eq!(*c, "plan of [2]");
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn threads_share_one_plan_per_key() {
        let cache = PlanCache::default();
        let seen: Vec<Vec<usize>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        (0..64_u32)
                            .map(|k| {
                                let plan = cache.get_or_build(&[k, k + 1], || k);
                                assert_eq!(*plan, k);
                                assert!(matches!(plan, Cached::Shared(_)));
                                std::ptr::from_ref::<u32>(&plan) as usize
                            })
                            .collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for plans in &seen {
            assert_eq!(plans, &seen[0]);
        }
        assert_eq!(cache.len(), 64);
    }

    #[test]
    fn past_the_limit_plans_are_built_and_not_kept() {
        let cache = PlanCache::default();
        for key in 0..CACHED_PLANS as u32 {
            cache.get_or_build(&[key], || key);
        }
        let mut builds = 0;
        for _ in 0..2 {
            let plan = cache.get_or_build(&[u32::MAX], || {
                builds += 1;
                7_u32
            });
            assert_eq!(*plan, 7);
        }
        assert_eq!(builds, 2);
        assert_eq!(cache.len(), CACHED_PLANS);
        // A kept plan is still shared.
        assert_eq!(*cache.get_or_build(&[3], || 0_u32), 3);
    }
}
