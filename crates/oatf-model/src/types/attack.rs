//! The attack envelope (SDK §2.3–§2.5, §2.17, §2.18, §2.3a).

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::enums::{
    Category, Closed, CorrelationLogic, Impact, Relationship, SeverityLevel, Status,
};
use super::execution::Execution;
use super::indicator::Indicator;

oatf_struct! {
    /// The attack definition (SDK §2.3).
    ///
    /// Every field is optional in the parsed model, `execution` included: a missing `execution` is
    /// reported by `validate` (V-004), not by `parse` (spec-decisions 1). After normalization `name`,
    /// `version` and `status` are present; [`NormalizedDocument`](crate::NormalizedDocument) reads them
    /// without `Option`.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Attack ("an attack mapping") {
        /// Unique identifier (`{PREFIX}-{NUMBER}`, V-023).
        opt id: String => "id",
        /// Human-readable name; default `"Untitled"`.
        opt name: String => "name",
        /// Document version, a positive integer (V-035); default `1`.
        opt version: i64 => "version",
        /// Lifecycle status; default `draft`.
        opt status: Closed<Status> => "status",
        /// First published, ISO 8601 date or date-time, kept as written.
        opt created: String => "created",
        /// Last modified, ISO 8601 date or date-time, kept as written.
        opt modified: String => "modified",
        /// Author or organization.
        opt author: String => "author",
        /// Prose description.
        opt description: String => "description",
        /// Post-terminal observation window, a duration string (V-046).
        opt grace_period: String => "grace_period",
        /// Severity, scalar or object form (object form after normalization).
        opt severity: Severity => "severity",
        /// Categories of harm, without duplicates (V-045).
        opt impact: Vec<Closed<Impact>> => "impact",
        /// Framework mappings and taxonomy.
        opt classification: Classification => "classification",
        /// External references.
        opt references: Vec<Reference> => "references",
        /// The execution profile (required; V-004 when absent).
        opt execution: Execution => "execution",
        /// Indicators; absent for simulation-only documents.
        opt indicators: Vec<Indicator> => "indicators",
        /// How indicator verdicts combine.
        opt correlation: Correlation => "correlation",
    }
    [extensions]
}

oatf_struct! {
    /// How indicator verdicts combine (SDK §2.3a).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Correlation ("a correlation mapping") {
        /// `any` (default) or `all`.
        opt logic: Closed<CorrelationLogic> => "logic",
    }
}

oatf_struct! {
    /// The object form of [`Severity`] (SDK §2.4).
    #[derive(Clone, Debug, PartialEq)]
    pub struct SeverityObject ("a severity mapping") {
        /// The severity level.
        req level: Closed<SeverityLevel> => "level",
        /// Author confidence, 0–100 (V-017); default `50`.
        opt confidence: i64 => "confidence",
    }
}

/// Severity of an attack (SDK §2.4), in the form it was written.
///
/// The scalar form (`severity: high`) is kept as written until normalization (N-002) expands it to
/// the object form with confidence `50`.
#[derive(Clone, Debug, PartialEq)]
pub enum Severity {
    /// `severity: high`.
    Scalar(Closed<SeverityLevel>),
    /// `severity: {level: high, confidence: 80}`.
    Object(SeverityObject),
}

impl Severity {
    /// The default confidence of the scalar form and of an object without `confidence`.
    pub const DEFAULT_CONFIDENCE: i64 = 50;

    /// The severity level, in either form.
    pub fn level(&self) -> &Closed<SeverityLevel> {
        match self {
            Severity::Scalar(level) => level,
            Severity::Object(object) => &object.level,
        }
    }

    /// The explicit confidence, if written.
    pub fn confidence(&self) -> Option<i64> {
        match self {
            Severity::Scalar(_) => None,
            Severity::Object(object) => object.confidence,
        }
    }

    /// The confidence with the default of 50 applied.
    pub fn effective_confidence(&self) -> i64 {
        self.confidence().unwrap_or(Self::DEFAULT_CONFIDENCE)
    }
}

impl Serialize for Severity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Severity::Scalar(level) => level.serialize(serializer),
            Severity::Object(object) => object.serialize(serializer),
        }
    }
}

impl super::Field for Severity {}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeverityVisitor;
        impl<'de> Visitor<'de> for SeverityVisitor {
            type Value = Severity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a severity level string or a severity mapping")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Severity, E> {
                Ok(Severity::Scalar(Closed::from_name(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Severity, A::Error> {
                SeverityObject::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(Severity::Object)
            }
        }
        deserializer.deserialize_any(SeverityVisitor)
    }
}

oatf_struct! {
    /// Framework mappings and taxonomy (SDK §2.5).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Classification ("a classification mapping") {
        /// OATF taxonomy category.
        opt category: Closed<Category> => "category",
        /// External framework mappings.
        opt mappings: Vec<FrameworkMapping> => "mappings",
        /// Free-form tags; lowercase and hyphenated after normalization (N-008).
        opt tags: Vec<String> => "tags",
    }
}

oatf_struct! {
    /// A mapping to an external security framework (SDK §2.18).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct FrameworkMapping ("a framework mapping") {
        /// The framework, an open string (`atlas`, `mitre_attack`, …; unknown values mean `other`).
        req framework: String => "framework",
        /// The entry identifier within the framework.
        req id: String => "id",
        /// Human-readable name of the entry.
        opt name: String => "name",
        /// Permalink to the entry.
        opt url: String => "url",
        /// `primary` (default) or `related`.
        opt relationship: Closed<Relationship> => "relationship",
    }
}

oatf_struct! {
    /// An external reference (SDK §2.17).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct Reference ("a reference mapping") {
        /// URL of the reference.
        req url: String => "url",
        /// Human-readable title.
        opt title: String => "title",
        /// Brief description.
        opt description: String => "description",
    }
}
