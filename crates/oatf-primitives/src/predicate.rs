//! Match predicates (SDK §2.10, §5.4): the type, its compiled form and `evaluate_predicate`.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::condition::{CompiledCondition, Condition, invalid_type};
use crate::condition_error::ConditionError;
use crate::lazy_regex::RegexLimits;
use crate::path::SimplePath;

/// What a predicate is, in messages about a value that is not one.
const EXPECTED: &str = "a map from dot-paths to conditions";

/// A map from simple dot-paths to conditions, combined with AND (SDK §2.10).
///
/// Entries keep the order in which they were written. Keys are kept verbatim, valid or not:
/// V-027 reports invalid keys, and at evaluation time an invalid key never resolves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchPredicate {
    entries: Vec<(String, Condition)>,
}

impl MatchPredicate {
    /// Builds a predicate from its entries in order.
    pub fn new(entries: Vec<(String, Condition)>) -> Self {
        MatchPredicate { entries }
    }

    /// Builds a predicate from a JSON object: each value a condition ([`Condition::from_value`]),
    /// as `Deserialize` reads one, with serde_json's messages.
    pub fn from_value(value: Value) -> Result<Self, ConditionError> {
        let Value::Object(map) = value else {
            return Err(invalid_type(&value, EXPECTED));
        };
        let mut entries = Vec::with_capacity(map.len());
        for (key, value) in map {
            entries.push((key, Condition::from_value(value)?));
        }
        Ok(MatchPredicate { entries })
    }

    /// The entries in order.
    pub fn entries(&self) -> &[(String, Condition)] {
        &self.entries
    }

    /// Whether the predicate has no entries (it then matches every value).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Serialize for MatchPredicate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (key, condition) in &self.entries {
            map.serialize_entry(key, condition)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for MatchPredicate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PredicateVisitor;
        impl<'de> Visitor<'de> for PredicateVisitor {
            type Value = MatchPredicate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
                while let Some((key, condition)) = map.next_entry::<String, Condition>()? {
                    entries.push((key, condition));
                }
                Ok(MatchPredicate { entries })
            }
        }
        deserializer.deserialize_map(PredicateVisitor)
    }
}

/// A predicate compiled once (paths parsed, regexes built) and evaluated against many values.
#[derive(Clone, Debug)]
pub struct CompiledPredicate {
    entries: Box<[(Option<SimplePath>, CompiledCondition)]>,
}

impl CompiledPredicate {
    /// Compiles `predicate` with the default [`RegexLimits`].
    pub fn new(predicate: &MatchPredicate) -> Result<Self, ConditionError> {
        Self::with_limits(predicate, &RegexLimits::default())
    }

    /// Compiles `predicate` with explicit regex limits.
    pub fn with_limits(
        predicate: &MatchPredicate,
        limits: &RegexLimits,
    ) -> Result<Self, ConditionError> {
        let entries = predicate
            .entries
            .iter()
            .map(|(key, condition)| {
                // An invalid key (V-027) never resolves.
                let path = SimplePath::parse(key).ok();
                Ok((path, CompiledCondition::with_limits(condition, limits)?))
            })
            .collect::<Result<_, ConditionError>>()?;
        Ok(CompiledPredicate { entries })
    }

    /// Evaluates the predicate against `value` (SDK §5.4): every entry must hold.
    pub fn evaluate(&self, value: &Value) -> Result<bool, ConditionError> {
        for (path, condition) in &*self.entries {
            let resolved = path.as_ref().and_then(|p| p.resolve(value));
            if !condition.evaluate_resolution(resolved)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Evaluates `predicate` against `value` (SDK §5.4).
///
/// A convenience over [`CompiledPredicate`]: it compiles on every call, and a predicate that cannot be
/// compiled or evaluated (an invalid regex) is `false`. Compile once to evaluate many values.
pub fn evaluate_predicate(predicate: &MatchPredicate, value: &Value) -> bool {
    CompiledPredicate::new(predicate)
        .and_then(|p| p.evaluate(value))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(predicate: Value, value: Value, expect: bool) {
        let predicate = MatchPredicate::from_value(predicate).unwrap();
        assert_eq!(
            evaluate_predicate(&predicate, &value),
            expect,
            "{predicate:?} on {value}"
        );
    }

    #[test]
    fn entries_combine_with_and_and_keep_order() {
        let p = json!({"z": 1, "a.b": {"contains": "x"}});
        let predicate = MatchPredicate::from_value(p.clone()).unwrap();
        assert_eq!(serde_json::to_value(&predicate).unwrap(), p);
        check(p.clone(), json!({"z": 1.0, "a": {"b": "xyz"}}), true);
        check(p, json!({"z": 2, "a": {"b": "xyz"}}), false);
    }

    #[test]
    fn exists_and_resolution() {
        check(json!({"missing": {"exists": false}}), json!({}), true);
        check(
            json!({"present": {"exists": false}}),
            json!({"present": 1}),
            false,
        );
        check(json!({"nul": {"exists": true}}), json!({"nul": null}), true);
        check(
            json!({"missing": {"exists": false, "contains": "a"}}),
            json!({}),
            false,
        );
        check(
            json!({"tools[0]": {"exists": false}}),
            json!({"tools": [1]}),
            true,
        );
        check(json!({"tools[0]": 1}), json!({"tools": [1]}), false);
        check(json!({}), json!("anything"), true);
    }
}
