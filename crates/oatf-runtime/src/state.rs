//! State inheritance across phases (SDK §5.10, format §5.2 `phase.state`).

use oatf_model::Phase;
use serde_json::Value;

/// The effective state of the phase at `phase_index` (SDK §5.10), by reference.
///
/// Walking from phase 0 to `phase_index`, a phase with `state` replaces the effective state entirely
/// (no merging at any level) and a phase without `state` inherits it unchanged. `None` when
/// `phase_index` is out of range or no phase up to it has a state (V-008 requires one on the first).
/// Template expressions inside the state are returned as written: interpolation is a separate step
/// ([`interpolate_value`](crate::interpolate_value)).
///
/// ```
/// use oatf_runtime::{Phase, compute_effective_state};
/// use serde_json::json;
///
/// let phases: Vec<Phase> = serde_json::from_value(json!([
///     {"name": "trust", "state": {"tools": [{"name": "calc"}]}},
///     {"name": "wait"},
/// ]))?;
/// assert_eq!(compute_effective_state(&phases, 1), Some(&json!({"tools": [{"name": "calc"}]})));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn compute_effective_state(phases: &[Phase], phase_index: usize) -> Option<&Value> {
    phases
        .get(..=phase_index)?
        .iter()
        .rev()
        .find_map(|phase| phase.state.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(phases: Value, index: usize, expect: Option<Value>) {
        let phases: Vec<Phase> = serde_json::from_value(phases).unwrap();
        assert_eq!(compute_effective_state(&phases, index), expect.as_ref());
    }

    #[test]
    fn replacement_and_inheritance() {
        let phases = json!([{"state": {"v": 1}}, {}, {"state": {"w": 3}}, {}]);
        check(phases.clone(), 0, Some(json!({"v": 1})));
        check(phases.clone(), 1, Some(json!({"v": 1})));
        check(phases.clone(), 2, Some(json!({"w": 3})));
        check(phases.clone(), 3, Some(json!({"w": 3})));
        check(phases, 4, None);
        check(json!([{"name": "no state"}]), 0, None);
        check(json!([]), 0, None);
    }
}
