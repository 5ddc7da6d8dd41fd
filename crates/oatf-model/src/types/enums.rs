//! Closed enumerations (SDK §2.20) and [`Closed`], the field type that keeps unknown values; beside
//! them the open strings (protocols, modes, surfaces, frameworks) and extension fields.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// Extension fields: `x-` keys with their values, in their original relative order.
pub type Extensions = serde_json::Map<String, Value>;

/// Protocol: an open string (`mcp`, `a2a`, `ag_ui`, …) matching `[a-z][a-z0-9_]*`.
pub type Protocol = String;
/// Mode: an open string (`mcp_server`, …) matching `[a-z][a-z0-9_]*_(server|client)`.
pub type Mode = String;
/// Surface: an open string naming a protocol operation (`tools/call`, …).
pub type Surface = String;
/// Framework: an open string (`atlas`, `mitre_attack`, …; unknown values mean `other`).
pub type Framework = String;

/// A closed enumeration of SDK §2.20: a fixed set of canonical strings.
pub trait ClosedEnum: Copy + Eq + fmt::Debug + Sized + 'static {
    /// Every value, in the specification's order.
    const VARIANTS: &'static [Self];
    /// What the enumeration is called in messages (for example `status`).
    const LABEL: &'static str;
    /// The validation rule that reports an unknown value: V-005, except where the spec gives the
    /// field a rule of its own (V-050 for `indicator.tier`, spec-decisions 22).
    const RULE: crate::rules::Rule = crate::rules::Rule::V005;

    /// The canonical string of a value.
    fn as_str(self) -> &'static str;

    /// The value whose canonical string is `name`, if any. Matching is exact (case-sensitive).
    fn from_name(name: &str) -> Option<Self> {
        Self::VARIANTS.iter().copied().find(|v| v.as_str() == name)
    }

    /// The canonical strings of every value, joined with `, ` (for messages).
    fn expected() -> String {
        Self::VARIANTS
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A string that is not a value of a closed enumeration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant {
    label: &'static str,
    value: String,
    expected: String,
    /// `; did you mean …?`, or empty.
    hint: String,
}

impl UnknownVariant {
    pub(crate) fn new<T: ClosedEnum>(value: &str) -> Self {
        UnknownVariant {
            label: T::LABEL,
            value: value.chars().take(128).collect(),
            expected: T::expected(),
            hint: crate::suggest::hint(value, T::VARIANTS.iter().map(|v| v.as_str())),
        }
    }

    /// The rejected string (at most 128 characters of it).
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} `{}`, expected one of {}{}",
            self.label, self.value, self.expected, self.hint
        )
    }
}

impl std::error::Error for UnknownVariant {}

/// The value of a closed-enumeration field as written in a document: a known value, or the unknown
/// string kept so that `validate` can report it (V-005) instead of `parse` failing (spec-decisions 1).
///
/// ```
/// use oatf_model::{Closed, Status};
///
/// let status: Closed<Status> = serde_json::from_str("\"stable\"")?;
/// assert_eq!(status, Status::Stable);
/// assert_eq!(status.known(), Some(Status::Stable));
///
/// let odd: Closed<Status> = serde_json::from_str("\"frozen\"")?;
/// assert_eq!(odd.known(), None);
/// assert_eq!(odd.as_str(), "frozen");
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// It serializes as the plain string in both cases, so documents round-trip unchanged. A non-string
/// value (a number, a mapping) is still a parse error of kind type mismatch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Closed<T> {
    /// A member of the enumeration.
    Known(T),
    /// A string that is not a member; validation reports it under V-005.
    Unknown(String),
}

impl<T: ClosedEnum> Closed<T> {
    /// Classifies a string.
    pub fn from_name(name: &str) -> Self {
        match T::from_name(name) {
            Some(v) => Closed::Known(v),
            None => Closed::Unknown(name.to_owned()),
        }
    }

    /// The known value, or `None` for an unknown string.
    pub fn known(&self) -> Option<T> {
        match self {
            Closed::Known(v) => Some(*v),
            Closed::Unknown(_) => None,
        }
    }

    /// Whether the value is a member of the enumeration.
    pub fn is_known(&self) -> bool {
        matches!(self, Closed::Known(_))
    }

    /// The string as written.
    pub fn as_str(&self) -> &str {
        match self {
            Closed::Known(v) => v.as_str(),
            Closed::Unknown(s) => s,
        }
    }

    /// The known value, or an [`UnknownVariant`] error.
    pub fn to_known(&self) -> Result<T, UnknownVariant> {
        match self {
            Closed::Known(v) => Ok(*v),
            Closed::Unknown(s) => Err(UnknownVariant::new::<T>(s)),
        }
    }
}

/// The default is the empty unknown string: the placeholder of a missing required field.
impl<T> Default for Closed<T> {
    fn default() -> Self {
        Closed::Unknown(String::new())
    }
}

impl<T> From<T> for Closed<T> {
    fn from(value: T) -> Self {
        Closed::Known(value)
    }
}

impl<T: PartialEq> PartialEq<T> for Closed<T> {
    fn eq(&self, other: &T) -> bool {
        matches!(self, Closed::Known(v) if v == other)
    }
}

impl<T: ClosedEnum> fmt::Display for Closed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<T: ClosedEnum> Serialize for Closed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de, T: ClosedEnum> Deserialize<'de> for Closed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = deserializer.deserialize_string(ClosedText(T::LABEL))?;
        Ok(Closed::from_name(&text))
    }
}

/// Read as its text through one seed for every enumeration ([`ClosedSeed`]), written as its text.
impl<T: ClosedEnum> super::Field for Closed<T> {
    fn read<'de, A: de::MapAccess<'de>>(map: &mut A) -> Result<Option<Self>, A::Error> {
        let text = super::collect::next_value_seed(map, ClosedSeed(T::LABEL))?.flatten();
        Ok(text.map(|text| Closed::from_name(&text)))
    }

    fn write<M: SerializeMap>(
        map: &mut M,
        key: &'static str,
        value: &Self,
    ) -> Result<(), M::Error> {
        map.serialize_entry(key, value.as_str())
    }
}

/// The text of an optional closed-enumeration value (`null` is absent) for the enumeration
/// labelled `.0`, as `Option<Closed<T>>` reads it.
struct ClosedSeed(&'static str);

impl<'de> DeserializeSeed<'de> for ClosedSeed {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<String>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for ClosedSeed {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<String>, D::Error> {
        deserializer
            .deserialize_string(ClosedText(self.0))
            .map(Some)
    }
}

/// The text of a closed-enumeration value, for the enumeration labelled `.0`: one visitor for every
/// enumeration, so that a deserializer compiles its reading of a string once for all of them (D-220).
struct ClosedText(&'static str);

impl Visitor<'_> for ClosedText {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} string", self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
}

closed_enum! {
    /// Severity level of an attack or indicator (§4.3).
    pub enum SeverityLevel ("severity level") {
        /// Observation only.
        Informational = "informational",
        /// Limited impact.
        Low = "low",
        /// Moderate impact.
        Medium = "medium",
        /// Significant impact.
        High = "high",
        /// Severe impact.
        Critical = "critical",
    }
}

closed_enum! {
    /// Category of harm (§4.4).
    pub enum Impact ("impact") {
        /// Reasoning or decisions corrupted.
        BehaviorManipulation = "behavior_manipulation",
        /// Data sent to an attacker.
        DataExfiltration = "data_exfiltration",
        /// Persistent data modified.
        DataTampering = "data_tampering",
        /// Out-of-scope actions.
        UnauthorizedActions = "unauthorized_actions",
        /// Information revealed.
        InformationDisclosure = "information_disclosure",
        /// Credentials exposed.
        CredentialTheft = "credential_theft",
        /// Service degraded or denied.
        ServiceDisruption = "service_disruption",
        /// Capabilities gained.
        PrivilegeEscalation = "privilege_escalation",
    }
}

closed_enum! {
    /// OATF taxonomy category (§4.5).
    pub enum Category ("category") {
        /// Poisoned capability descriptions.
        CapabilityPoisoning = "capability_poisoning",
        /// Fabricated responses.
        ResponseFabrication = "response_fabrication",
        /// Manipulated reasoning context.
        ContextManipulation = "context_manipulation",
        /// Circumvented human oversight.
        OversightBypass = "oversight_bypass",
        /// Timing and state-transition abuse.
        TemporalManipulation = "temporal_manipulation",
        /// Resource exhaustion and protocol abuse.
        AvailabilityDisruption = "availability_disruption",
        /// Attacks spanning protocols.
        CrossProtocolChain = "cross_protocol_chain",
    }
}

closed_enum! {
    /// Lifecycle status of a document (§4.2).
    pub enum Status ("status") {
        /// Under active development (the default).
        Draft = "draft",
        /// Complete and testable.
        Experimental = "experimental",
        /// Validated against tools.
        Stable = "stable",
        /// Superseded.
        Deprecated = "deprecated",
    }
}

closed_enum! {
    /// How indicator verdicts combine (§4.7).
    pub enum CorrelationLogic ("correlation logic") {
        /// Exploited if any indicator matches (the default).
        Any = "any",
        /// Exploited only if every indicator matches.
        All = "all",
    }
}

closed_enum! {
    /// Which message an extractor reads (§5.5).
    pub enum ExtractorSource ("extractor source") {
        /// The protocol request.
        Request = "request",
        /// The protocol response.
        Response = "response",
    }
}

closed_enum! {
    /// How an extractor selects its value (§5.5).
    pub enum ExtractorType ("extractor type") {
        /// RFC 9535 JSONPath, first node.
        JsonPath = "json_path",
        /// Regular expression, first capture group of the first match.
        Regex = "regex",
    }
}

closed_enum! {
    /// Intent class hint for semantic indicators (§6.4).
    pub enum SemanticIntentClass ("intent class") {
        /// Prompt injection.
        PromptInjection = "prompt_injection",
        /// Data exfiltration.
        DataExfiltration = "data_exfiltration",
        /// Privilege escalation.
        PrivilegeEscalation = "privilege_escalation",
        /// Social engineering.
        SocialEngineering = "social_engineering",
        /// Instruction override.
        InstructionOverride = "instruction_override",
    }
}

closed_enum! {
    /// How a framework mapping relates to the attack (§4.5).
    pub enum Relationship ("relationship") {
        /// Directly implements the technique (the default).
        Primary = "primary",
        /// Related but not a direct implementation.
        Related = "related",
    }
}

closed_enum! {
    /// Level of a `log` entry action (SDK §2.7a).
    pub enum LogLevel ("log level") {
        /// Informational.
        Info = "info",
        /// Warning.
        Warn = "warn",
        /// Error.
        Error = "error",
    }
}

closed_enum! {
    /// Mode of an MCP elicitation in binding state (§7.1.4).
    pub enum ElicitationMode ("elicitation mode") {
        /// Form-mode elicitation (the default).
        Form = "form",
        /// URL-mode elicitation.
        Url = "url",
    }
}

closed_enum! {
    /// Action of an MCP `elicitation_responses` entry in binding state (§7.1.5).
    pub enum ElicitationAction ("elicitation action") {
        /// Accept (the default).
        Accept = "accept",
        /// Decline.
        Decline = "decline",
        /// Cancel.
        Cancel = "cancel",
    }
}

closed_enum! {
    /// Which side of an exchange an indicator examines (§6.1).
    pub enum Direction ("direction") {
        /// The request.
        Request = "request",
        /// The response.
        Response = "response",
    }
}

closed_enum! {
    /// An indicator's detection method (§6.1).
    pub enum IndicatorMethod ("indicator method") {
        /// Pattern matching.
        Pattern = "pattern",
        /// CEL expression.
        Expression = "expression",
        /// Semantic analysis.
        Semantic = "semantic",
    }
}

closed_enum! {
    /// Outcome tier of an indicator (format §6.5, SDK §2.20): how far the attack progressed when the
    /// indicator matches. Ordered: `Ingested < LocalAction < BoundaryBreach` (`Ord` follows it).
    ///
    /// ```
    /// use oatf_model::Tier;
    /// assert!(Tier::Ingested < Tier::LocalAction && Tier::LocalAction < Tier::BoundaryBreach);
    /// ```
    pub enum Tier ("tier", rule V050) {
        /// T1: the payload was ingested or trusted, no tool was weaponized.
        Ingested = "ingested",
        /// T2: a tool was weaponized within the local environment.
        LocalAction = "local_action",
        /// T3: data, control or disruptive traffic crossed a trust boundary.
        BoundaryBreach = "boundary_breach",
    }
}
