//! Conditions (SDK §2.11, §2.13, §5.3): the types, their compiled form and `evaluate_condition`.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::condition_error::{ConditionError, ConditionErrorKind};
use crate::lazy_regex::{LazyRegex, RegexBranch, RegexLimits};
use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::value::{compare_numbers, deep_equal};
use oatf_internal::json::write_compact_sorted;

/// The operator keys of a [`MatchCondition`], in the spec's order (SDK §2.13): a mapping whose keys
/// are all among them is a match condition, one with none of them is compared for equality.
///
/// ```
/// assert_eq!(oatf_primitives::OPERATORS[..4], ["contains", "starts_with", "ends_with", "regex"]);
/// ```
pub const OPERATORS: [&str; 10] = [
    "contains",
    "starts_with",
    "ends_with",
    "regex",
    "any_of",
    "gt",
    "lt",
    "gte",
    "lte",
    "exists",
];

/// A condition: a bare value compared by deep equality, or an operator object (SDK §2.13).
///
/// An object whose keys are all operator names is a [`MatchCondition`]; any other value, including an
/// object without operator keys, is an equality operand. An object that mixes operator keys with other
/// keys is rejected when deserializing, since it is neither.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// Deep equality with this value.
    Equals(Value),
    /// Every present operator must hold.
    Match(MatchCondition),
}

/// An operator object (SDK §2.11). Present operators combine with AND.
///
/// Numeric operands keep their JSON representation, so an integer bound stays an integer through a
/// round trip and compares exactly.
///
/// It is read from a JSON value ([`Condition::from_value`]) or with serde (its `Deserialize` reads
/// a value and hands it to the same code); unknown keys are rejected.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MatchCondition {
    /// Substring match (case-sensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// Prefix match (case-sensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starts_with: Option<String>,
    /// Suffix match (case-sensitive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ends_with: Option<String>,
    /// RE2 regular expression, matched anywhere in the value (partial match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// Matches if the value deeply equals any element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<Value>>,
    /// Greater than.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gt: Option<Number>,
    /// Less than.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lt: Option<Number>,
    /// Greater than or equal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gte: Option<Number>,
    /// Less than or equal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lte: Option<Number>,
    /// Whether the path must resolve (`true`) or must not (`false`); decided during resolution.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
}

impl MatchCondition {
    /// Whether no operator is present (V-rules require at least one).
    pub fn is_empty(&self) -> bool {
        *self == MatchCondition::default()
    }

    /// `Some(b)` when `exists: b` is the only operator present.
    pub fn lone_exists(&self) -> Option<bool> {
        let exists = self.exists?;
        let rest = MatchCondition {
            exists: None,
            ..self.clone()
        };
        rest.is_empty().then_some(exists)
    }
}

impl Condition {
    /// Builds a condition from a JSON value with the classification of SDK §2.13.
    ///
    /// This is the one reading of conditions: `Deserialize` of [`Condition`] and of
    /// [`MatchCondition`] read a value and call it, and its messages are those serde_json gives
    /// for the same value. Compiled once, not once per deserializer, and without a second
    /// deserializer over the value.
    #[inline(never)]
    pub fn from_value(value: Value) -> Result<Self, ConditionError> {
        let Value::Object(map) = value else {
            return Ok(Condition::Equals(value));
        };
        let operators = map
            .keys()
            .filter(|k| OPERATORS.contains(&k.as_str()))
            .count();
        if operators == 0 {
            return Ok(Condition::Equals(Value::Object(map)));
        }
        if operators != map.len() {
            let other = map
                .keys()
                .find(|k| !OPERATORS.contains(&k.as_str()))
                .map_or("", String::as_str);
            return Err(invalid(format!(
                "condition mixes operators with the unknown key `{other}`, expected one of {}",
                OPERATORS.join(", ")
            )));
        }
        MatchCondition::from_map(map).map(Condition::Match)
    }

    /// The condition as a JSON value, as it is written in a document.
    pub fn to_value(&self) -> Value {
        match self {
            Condition::Equals(value) => value.clone(),
            Condition::Match(m) => serde_json::to_value(m).unwrap_or(Value::Null),
        }
    }
}

/// A condition that is not one, with what is wrong.
fn invalid(message: String) -> ConditionError {
    ConditionError::new(ConditionErrorKind::Invalid, message)
}

/// serde's `invalid type` error, in serde_json's words (`invalid type: string "x", expected a
/// boolean`), for a value that is not what `expected` says.
#[cold]
#[inline(never)]
pub(crate) fn invalid_type(found: &Value, expected: &str) -> ConditionError {
    let unexpected = match found {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => de::Unexpected::Unsigned(u),
            (None, Some(i)) => de::Unexpected::Signed(i),
            (None, None) => de::Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    };
    invalid(<serde_json::Error as de::Error>::invalid_type(unexpected, &expected).to_string())
}

/// What a [`MatchCondition`] is called where a value of another kind stands for one (serde's name
/// of a struct).
const MATCH_CONDITION: &str = "struct MatchCondition";

impl MatchCondition {
    /// Reads an operator object: each key an operator ([`OPERATORS`]), `null` for an absent one.
    fn from_map(map: serde_json::Map<String, Value>) -> Result<Self, ConditionError> {
        let mut condition = MatchCondition::default();
        for (key, value) in map {
            let Some(index) = OPERATORS.iter().position(|op| *op == key) else {
                return Err(invalid(
                    <serde_json::Error as de::Error>::unknown_field(&key, &OPERATORS).to_string(),
                ));
            };
            condition.set(index, value)?;
        }
        Ok(condition)
    }

    /// Reads the operators in the order of [`OPERATORS`] from a list, as serde reads a struct
    /// written as a sequence (a short list leaves the rest absent, a long one is an error).
    fn from_list(items: Vec<Value>) -> Result<Self, ConditionError> {
        let mut condition = MatchCondition::default();
        let count = items.len();
        for (index, value) in items.into_iter().enumerate().take(OPERATORS.len()) {
            condition.set(index, value)?;
        }
        if count > OPERATORS.len() {
            return Err(invalid(
                <serde_json::Error as de::Error>::invalid_length(count, &"fewer elements in array")
                    .to_string(),
            ));
        }
        Ok(condition)
    }

    /// Sets the operator at `index` of [`OPERATORS`] from its operand; `null` leaves it absent.
    fn set(&mut self, index: usize, value: Value) -> Result<(), ConditionError> {
        if value.is_null() {
            return Ok(());
        }
        let text = |slot: &mut Option<String>, value: Value| match value {
            Value::String(s) => {
                *slot = Some(s);
                Ok(())
            }
            other => Err(invalid_type(&other, "a string")),
        };
        let number = |slot: &mut Option<Number>, value: Value| match value {
            Value::Number(n) => {
                *slot = Some(n);
                Ok(())
            }
            other => Err(invalid_type(&other, "a JSON number")),
        };
        match (index, value) {
            (0, v) => text(&mut self.contains, v),
            (1, v) => text(&mut self.starts_with, v),
            (2, v) => text(&mut self.ends_with, v),
            (3, v) => text(&mut self.regex, v),
            (4, Value::Array(items)) => {
                self.any_of = Some(items);
                Ok(())
            }
            (4, other) => Err(invalid_type(&other, "a sequence")),
            (5, v) => number(&mut self.gt, v),
            (6, v) => number(&mut self.lt, v),
            (7, v) => number(&mut self.gte, v),
            (8, v) => number(&mut self.lte, v),
            (_, Value::Bool(b)) => {
                self.exists = Some(b);
                Ok(())
            }
            (_, other) => Err(invalid_type(&other, "a boolean")),
        }
    }

    /// Reads a match condition from a JSON value: an operator object (each key one of
    /// [`OPERATORS`], `null` for an absent operator), or (as serde reads a struct) a list of the
    /// operands in the order of [`OPERATORS`]. What `Deserialize` reads, with serde_json's messages.
    ///
    /// ```
    /// use oatf_primitives::MatchCondition;
    /// use serde_json::json;
    ///
    /// let condition = MatchCondition::from_value(json!({"contains": "rm", "gt": null}))?;
    /// assert_eq!(condition.contains.as_deref(), Some("rm"));
    /// let error = MatchCondition::from_value(json!({"gt": "5"})).unwrap_err();
    /// assert_eq!(error.message(), "invalid type: string \"5\", expected a JSON number");
    /// # Ok::<(), oatf_primitives::ConditionError>(())
    /// ```
    #[inline(never)]
    pub fn from_value(value: Value) -> Result<Self, ConditionError> {
        match value {
            Value::Object(map) => MatchCondition::from_map(map),
            Value::Array(items) => MatchCondition::from_list(items),
            other => Err(invalid_type(&other, MATCH_CONDITION)),
        }
    }
}

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Condition::Equals(value) => value.serialize(serializer),
            Condition::Match(m) => m.serialize(serializer),
        }
    }
}

/// Reads a value, then [`Condition::from_value`].
impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Condition::from_value(value).map_err(|e| de::Error::custom(e.message()))
    }
}

/// Reads a value, then what [`Condition::from_value`] reads of an operator object.
impl<'de> Deserialize<'de> for MatchCondition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        MatchCondition::from_value(value).map_err(|e| de::Error::custom(e.message()))
    }
}

/// What a text must hold for a condition to hold on it ([`CompiledCondition::prefilter_needs`]):
/// one of the folded `literals`, or a match of one of the regex's `branches`. A tool that evaluates
/// many conditions on each text (as `oatf-eval`'s trace prefilter does, D-75, D-90) searches all the
/// literals at once and evaluates only the conditions whose needs it found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PrefilterNeeds {
    /// Folded literals, none empty, searched ASCII case-insensitively.
    pub literals: Vec<Vec<u8>>,
    /// Branches of the regex to search, each on its own.
    pub branches: Vec<RegexBranch>,
}

/// A condition compiled once (regex built, operands prepared) and evaluated against many values.
///
/// ```
/// use oatf_primitives::{CompiledCondition, Condition};
/// use serde_json::json;
///
/// let condition = Condition::from_value(json!({"regex": "rm -rf", "starts_with": "sudo"}))?;
/// let compiled = CompiledCondition::new(&condition)?;
/// assert!(compiled.evaluate(&json!("sudo rm -rf /"))?);
/// assert!(!compiled.evaluate(&json!("rm -rf /"))?);
/// # Ok::<(), oatf_primitives::ConditionError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CompiledCondition {
    inner: Compiled,
    max_input_len: usize,
}

#[derive(Clone, Debug)]
enum Compiled {
    Equals(Value),
    Ops(Box<Ops>),
}

/// A numeric operand with the orderings of `value.cmp(operand)` that satisfy its operator.
type NumericBound = (Number, fn(Ordering) -> bool);

#[derive(Clone, Debug)]
struct Ops {
    contains: Option<Box<str>>,
    starts_with: Option<Box<str>>,
    ends_with: Option<Box<str>>,
    regex: Option<LazyRegex>,
    any_of: Option<Box<[Value]>>,
    numeric: Box<[NumericBound]>,
    exists: Option<bool>,
    lone_exists: Option<bool>,
}

impl CompiledCondition {
    /// Compiles `condition` with the default [`RegexLimits`].
    pub fn new(condition: &Condition) -> Result<Self, ConditionError> {
        Self::with_limits(condition, &RegexLimits::default())
    }

    /// Compiles `condition` with explicit regex limits.
    pub fn with_limits(
        condition: &Condition,
        limits: &RegexLimits,
    ) -> Result<Self, ConditionError> {
        let inner = match condition {
            Condition::Equals(value) => Compiled::Equals(value.clone()),
            Condition::Match(m) => {
                let bound = |operand: &Option<Number>, holds: fn(Ordering) -> bool| {
                    operand.clone().map(|n| (n, holds))
                };
                let numeric: Vec<NumericBound> = [
                    bound(&m.gt, Ordering::is_gt),
                    bound(&m.lt, Ordering::is_lt),
                    bound(&m.gte, Ordering::is_ge),
                    bound(&m.lte, Ordering::is_le),
                ]
                .into_iter()
                .flatten()
                .collect();
                Compiled::Ops(Box::new(Ops {
                    contains: m.contains.as_deref().map(Into::into),
                    starts_with: m.starts_with.as_deref().map(Into::into),
                    ends_with: m.ends_with.as_deref().map(Into::into),
                    regex: m
                        .regex
                        .as_deref()
                        .map(|p| LazyRegex::new(p, limits))
                        .transpose()?,
                    any_of: m.any_of.clone().map(Vec::into_boxed_slice),
                    numeric: numeric.into_boxed_slice(),
                    exists: m.exists,
                    lone_exists: m.lone_exists(),
                }))
            }
        };
        Ok(CompiledCondition {
            inner,
            max_input_len: limits.max_input_len,
        })
    }

    /// `Some(b)` when the condition is exactly `{exists: b}`: it is then decided by resolution alone.
    pub fn lone_exists(&self) -> Option<bool> {
        match &self.inner {
            Compiled::Ops(ops) => ops.lone_exists,
            Compiled::Equals(_) => None,
        }
    }

    /// Evaluates the condition against a resolved value (SDK §5.3 with spec-decisions item 14).
    ///
    /// `exists: true` holds and `exists: false` fails against any resolved value; the other operators
    /// must all hold. The errors are a text longer than [`RegexLimits::max_input_len`] for `regex`, and,
    /// rarely, a regex whose full build (on first use) exceeds [`RegexLimits::size_limit`] although the
    /// check at compile time passed.
    pub fn evaluate(&self, value: &Value) -> Result<bool, ConditionError> {
        self.evaluate_with_text(value, None)
    }

    /// [`evaluate`](Self::evaluate), given the text of a non-string `value` when the caller has
    /// it: callers that evaluate many conditions on one value render it once. The text must be the
    /// value as compact JSON with keys sorted by their UTF-8 bytes and strings and numbers written
    /// as `serde_json` writes them (spec-decisions item 13); another text gives another answer.
    /// Without it, or for a string value, the same as [`evaluate`](Self::evaluate).
    ///
    /// ```
    /// use oatf_primitives::{CompiledCondition, Condition};
    /// use serde_json::json;
    ///
    /// let condition = CompiledCondition::new(&Condition::from_value(json!({"contains": "\"a\":1"}))?)?;
    /// let value = json!({"b": 2, "a": 1});
    /// assert!(condition.reads_text());
    /// let text = r#"{"a":1,"b":2}"#; // rendered once, shared by every condition on `value`
    /// assert!(condition.evaluate_with_text(&value, Some(text))?);
    /// assert_eq!(condition.evaluate_with_text(&value, Some(text))?, condition.evaluate(&value)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evaluate_with_text(
        &self,
        value: &Value,
        text: Option<&str>,
    ) -> Result<bool, ConditionError> {
        match &self.inner {
            Compiled::Equals(expected) => Ok(deep_equal(expected, value)),
            Compiled::Ops(ops) => ops.evaluate(value, self.max_input_len, text),
        }
    }

    /// Whether evaluating the condition on a non-string value reads its text (a `contains`,
    /// `starts_with`, `ends_with` or `regex` operator), so that a caller renders it only then
    /// ([`evaluate_with_text`](Self::evaluate_with_text)).
    pub fn reads_text(&self) -> bool {
        match &self.inner {
            Compiled::Equals(_) => false,
            Compiled::Ops(ops) => ops.has_string_operator(),
        }
    }

    /// Folded literals one of which the text of a value (a string itself, anything else as compact
    /// JSON with sorted keys) must contain, ASCII case-insensitively, for the condition to hold on
    /// it; `None` when the condition requires no literal (see the module `literals`, D-75).
    ///
    /// The promise holds for texts without `ſ` or `K` ([`text_defeats_literals`]): on any other
    /// text that contains none of the literals, [`evaluate`](Self::evaluate) gives `Ok(false)`,
    /// unless the text is longer than [`regex_input_limit`](Self::regex_input_limit) or the regex
    /// [`may_fail_to_build`](Self::may_fail_to_build).
    ///
    /// [`text_defeats_literals`]: crate::text_defeats_literals
    ///
    /// ```
    /// use oatf_primitives::{CompiledCondition, Condition};
    /// use serde_json::json;
    ///
    /// let condition = Condition::from_value(json!({"regex": "(?i)/etc/(passwd|shadow)"}))?;
    /// let literals = CompiledCondition::new(&condition)?.required_literals().unwrap();
    /// assert_eq!(literals, [b"/etc/passwd".to_vec(), b"/etc/shadow".to_vec()]);
    /// # Ok::<(), oatf_primitives::ConditionError>(())
    /// ```
    pub fn required_literals(&self) -> Option<Vec<Vec<u8>>> {
        let ops = match &self.inner {
            Compiled::Equals(Value::String(s)) => {
                return crate::literals::better(
                    Some(vec![crate::literals::fold(s.as_bytes())]),
                    None,
                );
            }
            Compiled::Equals(_) => return None,
            Compiled::Ops(ops) => ops,
        };
        if ops.exists == Some(false) {
            // Never holds on a resolved value: every text rules it out, so no literal can be found.
            return Some(Vec::new());
        }
        let operand = |o: &Option<Box<str>>| {
            o.as_deref()
                .map(|s| vec![crate::literals::fold(s.as_bytes())])
        };
        let mut best = crate::literals::better(operand(&ops.contains), operand(&ops.starts_with));
        best = crate::literals::better(best, operand(&ops.ends_with));
        if let Some(regex) = &ops.regex {
            best = crate::literals::better(best, regex.literals());
        }
        best
    }

    /// How the trace prefilter can rule the condition out on a text (D-75, D-90): `None` when it
    /// cannot. On a text (a string itself, anything else as compact JSON with sorted keys) without
    /// `ſ` or `K`, within [`regex_input_limit`](Self::regex_input_limit), when the regex cannot
    /// fail to build ([`may_fail_to_build`](Self::may_fail_to_build)), the condition holds only
    /// if one of the needs' literals occurs (ASCII case-insensitively) or one of its branches
    /// matches. Empty needs: the condition never holds on a resolved value.
    ///
    /// Unlike [`required_literals`](Self::required_literals), a regex with a top-level branch that
    /// has no useful literal still has needs: that branch, searched on its own ([`RegexBranch`]).
    ///
    /// ```
    /// use oatf_primitives::{CompiledCondition, Condition};
    /// use serde_json::json;
    ///
    /// let condition = Condition::from_value(json!({"regex": "(?i)passwd|[0-9]{3}-[0-9]{4}"}))?;
    /// let needs = CompiledCondition::new(&condition)?.prefilter_needs().unwrap();
    /// assert_eq!(needs.literals, [b"passwd".to_vec()]);
    /// assert_eq!(needs.branches.len(), 1);
    /// assert_eq!(needs.branches[0].is_match("call 555-0100"), Some(true));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prefilter_needs(&self) -> Option<PrefilterNeeds> {
        let ops = match &self.inner {
            Compiled::Ops(ops) => ops,
            Compiled::Equals(_) => {
                return self.required_literals().map(|literals| PrefilterNeeds {
                    literals,
                    branches: Vec::new(),
                });
            }
        };
        if ops.exists == Some(false) {
            return Some(PrefilterNeeds::default());
        }
        let operand = |o: &Option<Box<str>>| {
            o.as_deref()
                .map(|s| vec![crate::literals::fold(s.as_bytes())])
        };
        let mut best = crate::literals::better(operand(&ops.contains), operand(&ops.starts_with));
        best = crate::literals::better(best, operand(&ops.ends_with));
        match (ops.regex.as_ref().and_then(LazyRegex::branches), best) {
            // Every branch of the regex has useful literals: the better set, as `required_literals`.
            (Some((literals, branches)), best) if branches.is_empty() => {
                crate::literals::better(best, Some(literals)).map(|literals| PrefilterNeeds {
                    literals,
                    branches: Vec::new(),
                })
            }
            // An operand's literal is cheaper to look for than a branch to search.
            (_, Some(literals)) => Some(PrefilterNeeds {
                literals,
                branches: Vec::new(),
            }),
            (Some((literals, branches)), None) => Some(PrefilterNeeds { literals, branches }),
            (None, None) => None,
        }
    }

    /// The longest text, in bytes, the condition's regex runs on ([`RegexLimits::max_input_len`]),
    /// when it has a regex: evaluating it on a longer text can fail.
    pub fn regex_input_limit(&self) -> Option<usize> {
        match &self.inner {
            Compiled::Ops(ops) if ops.regex.is_some() => Some(self.max_input_len),
            _ => None,
        }
    }

    /// Whether evaluating this condition can fail for another reason than the input limit: a
    /// regex whose full build, on first use, exceeds the size limit. Does not build the regex (it
    /// checks the one part of the build that can fail, once). A condition that cannot fail, on a
    /// text within [`regex_input_limit`](Self::regex_input_limit) that lacks its
    /// [`required_literals`](Self::required_literals), is `false`.
    pub fn may_fail_to_build(&self) -> bool {
        match &self.inner {
            Compiled::Ops(ops) => ops.regex.as_ref().is_some_and(LazyRegex::may_fail_to_build),
            Compiled::Equals(_) => false,
        }
    }

    /// Evaluates the condition against the outcome of resolving a path (SDK §5.4 steps b and c):
    /// `None` means the path did not resolve, which satisfies only a lone `exists: false`.
    pub fn evaluate_resolution(&self, resolved: Option<&Value>) -> Result<bool, ConditionError> {
        match resolved {
            Some(value) => self.evaluate(value),
            None => Ok(self.lone_exists() == Some(false)),
        }
    }
}

impl Ops {
    fn has_string_operator(&self) -> bool {
        self.contains.is_some()
            || self.starts_with.is_some()
            || self.ends_with.is_some()
            || self.regex.is_some()
    }

    fn evaluate(
        &self,
        value: &Value,
        max_input_len: usize,
        rendered: Option<&str>,
    ) -> Result<bool, ConditionError> {
        if self.exists == Some(false) {
            return Ok(false);
        }
        for (operand, holds) in &*self.numeric {
            let Value::Number(n) = value else {
                return Ok(false);
            };
            if !compare_numbers(n, operand).is_some_and(holds) {
                return Ok(false);
            }
        }
        if let Some(any_of) = &self.any_of
            && !any_of.iter().any(|candidate| deep_equal(candidate, value))
        {
            return Ok(false);
        }
        if !self.has_string_operator() {
            return Ok(true);
        }
        // Non-strings are coerced once to compact JSON with sorted keys (spec-decisions item 13).
        let text: Cow<'_, str> = match (value, rendered) {
            (Value::String(s), _) => Cow::Borrowed(s),
            (_, Some(rendered)) => Cow::Borrowed(rendered),
            (other, None) => {
                let mut out = String::new();
                write_compact_sorted(other, &mut out);
                Cow::Owned(out)
            }
        };
        let text_holds = self.contains.as_deref().is_none_or(|n| text.contains(n))
            && self
                .starts_with
                .as_deref()
                .is_none_or(|p| text.starts_with(p))
            && self.ends_with.as_deref().is_none_or(|s| text.ends_with(s));
        if !text_holds {
            return Ok(false);
        }
        if let Some(regex) = &self.regex {
            if text.len() > max_input_len {
                return Err(ConditionError::new(
                    ConditionErrorKind::RegexInputTooLong,
                    format!(
                        "text of {} bytes exceeds the regex input limit of {max_input_len} bytes",
                        text.len()
                    ),
                ));
            }
            if !regex.is_match(&text)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Evaluates `condition` against a resolved `value` (SDK §5.3).
///
/// A convenience over [`CompiledCondition`]: it compiles on every call, and a condition that cannot be
/// compiled or evaluated (an invalid regex) is `false`. Compile once to evaluate many values.
pub fn evaluate_condition(condition: &Condition, value: &Value) -> bool {
    CompiledCondition::new(condition)
        .and_then(|c| c.evaluate(value))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn check(condition: Value, value: Value, expect: bool) {
        let condition = Condition::from_value(condition).unwrap();
        assert_eq!(
            evaluate_condition(&condition, &value),
            expect,
            "{condition:?} on {value}"
        );
    }

    #[test]
    fn classification_of_objects() {
        let c = Condition::from_value(json!({"a": 1})).unwrap();
        assert_eq!(c, Condition::Equals(json!({"a": 1})));
        let c = Condition::from_value(json!({"contains": "x"})).unwrap();
        assert!(matches!(c, Condition::Match(_)));
        let err = Condition::from_value(json!({"contains": "x", "a": 1})).unwrap_err();
        assert!(err.message().contains("unknown key `a`"), "{err}");
        let err = Condition::from_value(json!({"contains": 5})).unwrap_err();
        assert_eq!(err.kind(), ConditionErrorKind::Invalid);
    }

    #[test]
    fn operators_combine_with_and() {
        check(
            json!({"contains": "secret", "regex": "key_[0-9]+"}),
            json!("secret key_12"),
            true,
        );
        check(
            json!({"contains": "secret", "regex": "key_[0-9]+"}),
            json!("secret key_x"),
            false,
        );
        check(json!({"gt": 1, "lt": 3}), json!(2.5), true);
        check(json!({"gte": 2, "lte": 2}), json!(2.0), true);
        check(json!({"gt": 1}), json!("5"), false);
        check(json!({"exists": true, "contains": "a"}), json!("abc"), true);
        check(
            json!({"exists": false, "contains": "a"}),
            json!("abc"),
            false,
        );
    }

    #[test]
    fn string_operators_coerce_to_sorted_compact_json() {
        check(
            json!({"contains": r#"{"a":2,"b":1}"#}),
            json!({"b": 1, "a": 2}),
            true,
        );
        check(json!({"starts_with": "4"}), json!(42), true);
        check(json!({"regex": "^null$"}), json!(null), true);
        check(json!({"ends_with": "e"}), json!(true), true);
    }

    #[test]
    fn regex_input_limit_is_an_error() {
        let condition = Condition::from_value(json!({"regex": "a"})).unwrap();
        let limits = RegexLimits {
            max_input_len: 4,
            ..RegexLimits::default()
        };
        let compiled = CompiledCondition::with_limits(&condition, &limits).unwrap();
        assert!(compiled.evaluate(&json!("aaaa")).unwrap());
        let err = compiled.evaluate(&json!("aaaaa")).unwrap_err();
        assert_eq!(err.kind(), ConditionErrorKind::RegexInputTooLong);
    }

    #[test]
    fn regex_size_limit_rejects_huge_programs() {
        let condition = Condition::from_value(json!({"regex": "(\\w{100}){100}"})).unwrap();
        let err = CompiledCondition::new(&condition).unwrap_err();
        assert_eq!(err.kind(), ConditionErrorKind::RegexTooLarge);
        let condition = Condition::from_value(json!({"regex": "(?=a)"})).unwrap();
        let err = CompiledCondition::new(&condition).unwrap_err();
        assert_eq!(err.kind(), ConditionErrorKind::InvalidRegex);
    }

    #[test]
    fn lone_exists_is_decided_by_resolution() {
        let exists_false = Condition::from_value(json!({"exists": false})).unwrap();
        let compiled = CompiledCondition::new(&exists_false).unwrap();
        assert_eq!(compiled.lone_exists(), Some(false));
        assert!(compiled.evaluate_resolution(None).unwrap());
        assert!(!compiled.evaluate_resolution(Some(&Value::Null)).unwrap());
        let combined = Condition::from_value(json!({"exists": false, "contains": "x"})).unwrap();
        let compiled = CompiledCondition::new(&combined).unwrap();
        assert_eq!(compiled.lone_exists(), None);
        assert!(!compiled.evaluate_resolution(None).unwrap());
    }
}
