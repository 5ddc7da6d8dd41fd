//! Response dispatch (SDK §5.7, §2.24): `select_response` and its compiled form.

use oatf_model::ResponseEntry;
use oatf_primitives::{CompiledPredicate, RegexLimits};
use serde_json::Value;

use crate::error::CompileError;

/// A dispatch list (`responses`, `sampling_responses`, `elicitation_responses`, `task_responses`,
/// `tool_responses`) with its `when` predicates compiled once, for selecting a response per request.
///
/// ```
/// use oatf_runtime::{ResponseEntry, ResponseSelector};
/// use serde_json::json;
///
/// let entries: Vec<ResponseEntry> = serde_json::from_value(json!([
///     {"content": [{"type": "text", "text": "default"}]},
///     {"when": {"arguments.path": {"contains": "passwd"}}, "content": [{"type": "text", "text": "root:x:0:0"}]},
/// ]))?;
/// let selector = ResponseSelector::new(entries)?;
/// let request = json!({"name": "read_file", "arguments": {"path": "/etc/passwd"}});
/// let entry = selector.select(&request).ok_or("no entry")?;
/// assert_eq!(entry.content, Some(json!([{"type": "text", "text": "root:x:0:0"}])));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ResponseSelector {
    entries: Vec<ResponseEntry>,
    /// The compiled `when` of each entry with one, by entry index, in order.
    predicates: Box<[(usize, CompiledPredicate)]>,
    /// The first entry without `when`.
    default: Option<usize>,
}

impl ResponseSelector {
    /// Compiles the `when` predicates of `entries` with the default [`RegexLimits`].
    pub fn new(entries: Vec<ResponseEntry>) -> Result<Self, CompileError> {
        Self::with_limits(entries, &RegexLimits::default())
    }

    /// Compiles the `when` predicates of `entries` with explicit regex limits.
    pub fn with_limits(
        entries: Vec<ResponseEntry>,
        limits: &RegexLimits,
    ) -> Result<Self, CompileError> {
        let mut predicates = Vec::new();
        let mut default = None;
        for (index, entry) in entries.iter().enumerate() {
            match &entry.when {
                Some(when) => {
                    let compiled = CompiledPredicate::with_limits(when, limits).map_err(|e| {
                        CompileError::from_condition(&e, &format!("invalid when of entry {index}"))
                    })?;
                    predicates.push((index, compiled));
                }
                None => {
                    default.get_or_insert(index);
                }
            }
        }
        Ok(ResponseSelector {
            entries,
            predicates: predicates.into_boxed_slice(),
            default,
        })
    }

    /// The entries as given.
    pub fn entries(&self) -> &[ResponseEntry] {
        &self.entries
    }

    /// Selects the entry for `request` (SDK §5.7); see [`ResponseSelector::select_index`].
    pub fn select(&self, request: &Value) -> Option<&ResponseEntry> {
        self.entries.get(self.select_index(request)?)
    }

    /// The index of the entry selected for `request` (SDK §5.7): the first entry whose `when` matches,
    /// else the first entry without `when`, else `None`.
    ///
    /// A predicate that cannot be evaluated (a regex over a text longer than
    /// [`RegexLimits::max_input_len`]) does not match.
    pub fn select_index(&self, request: &Value) -> Option<usize> {
        self.predicates
            .iter()
            .find(|(_, predicate)| predicate.evaluate(request).unwrap_or(false))
            .map(|(index, _)| *index)
            .or(self.default)
    }
}

/// Selects the response entry for `request` from a dispatch list (SDK §5.7): the first entry whose
/// `when` predicate matches `request`, else the default entry (the first without `when`, wherever it
/// is listed), else `None`. The whole entry is returned (spec-decisions 21).
///
/// A convenience that compiles each predicate it evaluates; a `when` that does not compile never
/// matches. Compile the list once with [`ResponseSelector`] to serve many requests.
pub fn select_response<'e>(
    entries: &'e [ResponseEntry],
    request: &Value,
) -> Option<&'e ResponseEntry> {
    entries
        .iter()
        .find(|entry| {
            entry.when.as_ref().is_some_and(|when| {
                CompiledPredicate::new(when)
                    .and_then(|p| p.evaluate(request))
                    .unwrap_or(false)
            })
        })
        .or_else(|| entries.iter().find(|entry| entry.when.is_none()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(entries: Value, request: Value, expect: Option<usize>) {
        let entries: Vec<ResponseEntry> = serde_json::from_value(entries).unwrap();
        let selected = select_response(&entries, &request);
        assert_eq!(selected, expect.map(|i| &entries[i]), "{request}");
        let selector = ResponseSelector::new(entries.clone()).unwrap();
        assert_eq!(
            selector.select_index(&request),
            expect,
            "compiled {request}"
        );
    }

    #[test]
    fn first_match_then_default() {
        let entries = json!([
            {"content": "default"},
            {"when": {"name": "a"}, "content": "a1"},
            {"when": {"name": {"starts_with": "a"}}, "content": "a2"},
            {"content": "second default"},
        ]);
        check(entries.clone(), json!({"name": "a"}), Some(1));
        check(entries.clone(), json!({"name": "ab"}), Some(2));
        check(entries, json!({"name": "b"}), Some(0));
        check(json!([{"when": {"name": "a"}}]), json!({"name": "b"}), None);
        check(json!([]), json!(null), None);
    }

    #[test]
    fn invalid_predicates_never_match() {
        let entries = json!([{"when": {"x": {"regex": "("}}, "content": 1}, {"content": 2}]);
        let entries: Vec<ResponseEntry> = serde_json::from_value(entries).unwrap();
        let selected = select_response(&entries, &json!({"x": "("}));
        assert_eq!(selected, Some(&entries[1]));
        assert!(ResponseSelector::new(entries).is_err());
    }
}
