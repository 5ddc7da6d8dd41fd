//! The prefilter plans of a compiled attack, shared by every evaluator of it (decision D-93).
//!
//! A plan (`prefilter::Plan`: the groups, automata and regex branches of one class of message)
//! depends only on the attack and the class's applicable indicators, so it is built once per
//! attack, not once per trace: compile once, evaluate many (a campaign evaluates one attack over
//! many short traces, where building the plans cost more than evaluating the messages). The cache
//! holds its plans type-erased so that `attack` does not depend on `prefilter` (which depends on
//! `attack`).

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// How many plans a compiled attack keeps; past it, an evaluator builds its own (the trace filter
/// has at most 256 classes per evaluator, and classes with the same applicable indicators share).
const CACHED_PLANS: usize = 256;

type Shared = Arc<dyn Any + Send + Sync>;

/// Plans keyed by the applicable indicators of a class of message.
#[derive(Default)]
pub(crate) struct PlanCache {
    plans: Mutex<HashMap<Box<[u32]>, Shared>>,
}

impl fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plans = self.plans.lock().map_or(0, |plans| plans.len());
        f.debug_struct("PlanCache").field("plans", &plans).finish()
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
    ) -> Arc<P> {
        if let Ok(plans) = self.plans.lock()
            && let Some(plan) = plans.get(applicable)
            && let Ok(plan) = Arc::clone(plan).downcast::<P>()
        {
            return plan;
        }
        let plan = Arc::new(build());
        let Ok(mut plans) = self.plans.lock() else {
            return plan;
        };
        if plans.len() >= CACHED_PLANS && !plans.contains_key(applicable) {
            return plan;
        }
        let kept = plans
            .entry(applicable.into())
            .or_insert_with(|| Arc::clone(&plan) as Shared);
        Arc::clone(kept).downcast::<P>().unwrap_or(plan)
    }

    /// How many plans are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.plans.lock().map_or(0, |plans| plans.len())
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
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(builds, 1);
        let c = cache.get_or_build(&[2], || String::from("plan of [2]"));
        assert_eq!(*c, "plan of [2]");
        assert_eq!(cache.len(), 2);
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
