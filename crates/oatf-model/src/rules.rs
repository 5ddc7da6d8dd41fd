//! The rule table (SDK §3.2, §7.0; spec-decisions; docs/decisions.md): every V- rule and W- warning
//! `validate` knows, with its id, severity, specification section, a one-line summary and the full
//! text of the rule. This is the one owner of rule ids: validation emits [`Rule`] variants, so a
//! typo in a rule id does not compile; `oatf explain`, the format reference (`schema/rules.json`,
//! checked against this table by `cargo test -p xtask`) and every other list of rules come from it.

use std::fmt;

/// Severity of a [`Diagnostic`](crate::Diagnostic) (SDK §2.20 `DiagnosticSeverity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagnosticSeverity {
    /// A conformance violation.
    Error,
    /// A non-fatal finding.
    Warning,
}

impl DiagnosticSeverity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticSeverity::Error => "error",
            DiagnosticSeverity::Warning => "warning",
        }
    }
}

impl fmt::Display for DiagnosticSeverity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! rules {
    ($(
        #[doc = $doc:literal]
        $variant:ident = ($id:literal, $severity:ident, $section:literal, $summary:literal, $text:literal),
    )*) => {
        /// A validation rule (V-) or warning (W-) of OATF v0.1: [`Rule::ALL`] lists them in order.
        ///
        /// ```
        /// use oatf_model::{DiagnosticSeverity, Rule};
        /// let rule = Rule::from_id("V-013").expect("a known rule");
        /// assert_eq!(rule, Rule::V013);
        /// assert_eq!((rule.id(), rule.severity()), ("V-013", DiagnosticSeverity::Error));
        /// assert_eq!(rule.spec_section(), "§6.2");
        /// assert_eq!(rule.summary(), "all regular expressions are syntactically valid RE2");
        /// assert_eq!(Rule::from_id("V-999"), None);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Rule {
            $(#[doc = $doc] $variant,)*
        }

        impl Rule {
            /// Every rule, V- rules first, each group in id order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule id (`V-013`, `W-001`).
            pub const fn id(self) -> &'static str {
                match self { $(Rule::$variant => $id,)* }
            }

            /// How `validate` reports a finding of this rule. V-002 is never reported under its own
            /// id: a document whose first key is not `oatf` gets the warning W-001
            /// (spec-decisions 2).
            pub const fn severity(self) -> DiagnosticSeverity {
                match self { $(Rule::$variant => DiagnosticSeverity::$severity,)* }
            }

            /// The specification section the rule comes from (`§11.1.1`; `SDK §7.0` for the
            /// warnings of the SDK specification).
            pub const fn spec_section(self) -> &'static str {
                match self { $(Rule::$variant => $section,)* }
            }

            /// One line: what the rule requires (lowercase, no trailing period).
            pub const fn summary(self) -> &'static str {
                match self { $(Rule::$variant => $summary,)* }
            }

            /// The full text of the rule, as the specification (or the decision that adds it)
            /// words it.
            pub const fn text(self) -> &'static str {
                match self { $(Rule::$variant => $text,)* }
            }
        }
    };
}

impl Rule {
    /// The rule whose id is `id` (exact, case-sensitive), if any.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|rule| rule.id() == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

rules! {
/// V-001: `oatf` field is present and is a supported version string.
V001 = ("V-001", Error, "§11.1.1",
    "`oatf` field is present and is a supported version string",
    "`oatf` field is present and is a supported version string."),
/// V-002: `oatf` SHOULD be the first key in the document (reported as the warning W-001).
V002 = ("V-002", Warning, "§11.1.2",
    "`oatf` SHOULD be the first key in the document (reported as the warning W-001)",
    "`oatf` SHOULD be the first key in the document. This is a canonical form recommendation, not a validity requirement. SDKs that can detect key ordering SHOULD emit a warning (not an error) when `oatf` is not first. SDKs that cannot preserve key ordering MAY skip this check. SDKs that serialize OATF documents MUST emit `oatf` as the first key."),
/// V-003: exactly one `attack` object is present.
V003 = ("V-003", Error, "§11.1.3",
    "exactly one `attack` object is present",
    "Exactly one `attack` object is present."),
/// V-004: required fields present: `execution`.
V004 = ("V-004", Error, "§11.1.4",
    "required fields present: `execution`",
    "Required fields present: `execution`."),
/// V-005: all closed enumeration values are valid members of their respective types.
V005 = ("V-005", Error, "§11.1.5",
    "all closed enumeration values are valid members of their respective types",
    "All closed enumeration values are valid members of their respective types. Open enumerations (§2.20: Protocol, Mode, Surface, Framework) are validated by their pattern or format constraints only, not by membership in a fixed set."),
/// V-006: `indicators`, when present, contains at least one entry.
V006 = ("V-006", Error, "§11.1.9",
    "`indicators`, when present, contains at least one entry",
    "`indicators`, when present, contains at least one entry."),
/// V-007: in multi-phase form: `execution.phases` contains at least one entry.
V007 = ("V-007", Error, "§11.1.7, §11.1.8",
    "in multi-phase form: `execution.phases` contains at least one entry",
    "In multi-phase form: `execution.phases` contains at least one entry. In multi-actor form: each actor's `phases` contains at least one entry. (Single-phase form always has exactly one implicit phase.)"),
/// V-008: at most one terminal phase per actor (no `trigger`), and it is the last phase in the actor's list.
V008 = ("V-008", Error, "§11.1.7",
    "at most one terminal phase per actor (no `trigger`), and it is the last phase in the actor's list",
    "At most one terminal phase per actor (no `trigger`), and it is the last phase in the actor's list."),
/// V-009: first phase in each actor includes `state`.
V009 = ("V-009", Error, "§11.1.7",
    "first phase in each actor includes `state`",
    "First phase in each actor includes `state`. In single-phase form, `execution.state` is present, which always satisfies this. In multi-phase and multi-actor forms, check `phases[0].state` directly."),
/// V-010: all explicitly specified `indicator.id` values are unique.
V010 = ("V-010", Error, "§11.1.10",
    "all explicitly specified `indicator.id` values are unique",
    "All explicitly specified `indicator.id` values are unique."),
/// V-011: in multi-phase form: all explicitly specified `phase.name` values are unique.
V011 = ("V-011", Error, "§11.1.7",
    "in multi-phase form: all explicitly specified `phase.name` values are unique",
    "In multi-phase form: all explicitly specified `phase.name` values are unique. In multi-actor form: explicitly specified phase names are unique within each actor (but MAY duplicate across actors). Omitted names (auto-generated) are guaranteed unique by their positional generation."),
/// V-012: each indicator has exactly one detection key (`pattern`, `expression`, or `semantic`).
V012 = ("V-012", Error, "§11.1.11",
    "each indicator has exactly one detection key (`pattern`, `expression`, or `semantic`)",
    "Each indicator has exactly one detection key (`pattern`, `expression`, or `semantic`)."),
/// V-013: all regular expressions are syntactically valid RE2.
V013 = ("V-013", Error, "§6.2",
    "all regular expressions are syntactically valid RE2",
    "All regular expressions are syntactically valid RE2."),
/// V-014: all CEL expressions are syntactically valid (parse without error).
V014 = ("V-014", Error, "§6.3",
    "all CEL expressions are syntactically valid (parse without error)",
    "All CEL expressions are syntactically valid (parse without error)."),
/// V-015: all JSONPath expressions are syntactically valid.
V015 = ("V-015", Error, "§5.5",
    "all JSONPath expressions are syntactically valid",
    "All JSONPath expressions are syntactically valid."),
/// V-016: all template references use valid syntax (no unclosed `{{`).
V016 = ("V-016", Error, "§5.7",
    "all template references use valid syntax (no unclosed `{{`)",
    "All template references use valid syntax (no unclosed `{{`). Escaped sequences (`\\{{`) are not template references and MUST NOT be flagged."),
/// V-017: `severity.confidence` is in range 0–100 when present.
V017 = ("V-017", Error, "§4.3",
    "`severity.confidence` is in range 0–100 when present",
    "`severity.confidence` is in range 0–100 when present."),
/// V-018: when indicator surface is present and the indicator's resolved protocol is a recognized binding, the surface value SHOULD be a valid operation name for that protocol.
V018 = ("V-018", Error, "§7",
    "when indicator surface is present and the indicator's resolved protocol is a recognized binding, the surface value SHOULD be a valid operation name for that protocol",
    "When indicator surface is present and the indicator's resolved protocol is a recognized binding, the surface value SHOULD be a valid operation name for that protocol. SDKs SHOULD emit a warning for unrecognized surface values."),
/// V-019: trigger `count` and `match` are only present when `event` is also present.
V019 = ("V-019", Error, "§5.3",
    "trigger `count` and `match` are only present when `event` is also present",
    "Trigger `count` and `match` are only present when `event` is also present."),
/// V-020: document does not contain YAML anchors, aliases, merge keys, or custom YAML tags (e.g., `!include`, `!!python/object`).
V020 = ("V-020", Error, "§11.1.1",
    "document does not contain YAML anchors, aliases, merge keys, or custom YAML tags (e.g., `!include`, `!!python/object`)",
    "Document does not contain YAML anchors, aliases, merge keys, or custom YAML tags (e.g., `!include`, `!!python/object`). SDKs that parse via a YAML library exposing anchor/alias/tag information SHOULD check this; SDKs whose parsers silently resolve aliases MAY skip this check."),
/// V-021: the indicator-level `target` field and all explicit `target` fields on `PatternMatch` and `SemanticMatch` MUST be syntactically valid wildcard dot-path expressions per the grammar in SDK spec §5.1.2.
V021 = ("V-021", Error, "§6.1, §6.2, §6.4",
    "the indicator-level `target` field and all explicit `target` fields on `PatternMatch` and `SemanticMatch` MUST be syntactically valid wildcard dot-path expressions per the grammar in SDK spec §5.1.2",
    "The indicator-level `target` field and all explicit `target` fields on `PatternMatch` and `SemanticMatch` MUST be syntactically valid wildcard dot-path expressions per the grammar in SDK spec §5.1.2. Valid paths consist of identifiers (alphanumeric, underscores, hyphens) separated by `.`, with optional `[*]` (wildcard) suffix on any segment. The empty string `\"\"` is valid (targets root). Numeric indices (`[0]`, `[1]`) are not valid in target paths. Invalid examples: `tools[*.description` (unclosed bracket), `tools..name` (empty segment), `tools[0]` (numeric index)."),
/// V-022: `semantic.threshold`, when explicitly present, is in range [0.0, 1.0] inclusive.
V022 = ("V-022", Error, "§6.4",
    "`semantic.threshold`, when explicitly present, is in range [0.0, 1.0] inclusive",
    "`semantic.threshold`, when explicitly present, is in range [0.0, 1.0] inclusive. The default threshold (0.7, applied at evaluation time per SDK spec §4.4) is not subject to this check."),
/// V-023: `attack.id`, when present, matches the pattern `^[A-Z][A-Z0-9-]*-[0-9]{3,}$`.
V023 = ("V-023", Error, "§4.2",
    "`attack.id`, when present, matches the pattern `^[A-Z][A-Z0-9-]*-[0-9]{3,}$`",
    "`attack.id`, when present, matches the pattern `^[A-Z][A-Z0-9-]*-[0-9]{3,}$`."),
/// V-024: each explicitly specified `indicator.id`, when `attack.id` is present, matches the pattern `^[A-Z][A-Z0-9-]*-[0-9]{3,}-[0-9]{2,}$` AND its prefix (the portion before the final `-NN` segment) equals `attack.id`.
V024 = ("V-024", Error, "§6.1",
    "each explicitly specified `indicator.id`, when `attack.id` is present, matches the pattern `^[A-Z][A-Z0-9-]*-[0-9]{3,}-[0-9]{2,}$` AND its prefix (the portion before the final `-NN` segment) equals `attack.id`",
    "Each explicitly specified `indicator.id`, when `attack.id` is present, matches the pattern `^[A-Z][A-Z0-9-]*-[0-9]{3,}-[0-9]{2,}$` AND its prefix (the portion before the final `-NN` segment) equals `attack.id`. For example, indicator `ACME-003-02` is valid in attack `ACME-003` but invalid in attack `ACME-007`. When `attack.id` is absent, explicitly specified indicator IDs are accepted without pattern constraints but MUST still be unique (V-010)."),
/// V-025: `indicator.confidence`, when explicitly present, is in range 0–100 inclusive.
V025 = ("V-025", Error, "§6.1",
    "`indicator.confidence`, when explicitly present, is in range 0–100 inclusive",
    "`indicator.confidence`, when explicitly present, is in range 0–100 inclusive."),
/// V-026: all `expression.variables` values are syntactically valid simple dot-path expressions per the grammar in §5.1.1.
V026 = ("V-026", Error, "§6.3",
    "all `expression.variables` values are syntactically valid simple dot-path expressions per the grammar in §5.1.1",
    "All `expression.variables` values are syntactically valid simple dot-path expressions per the grammar in §5.1.1. No wildcards or indices. These values are resolved via `resolve_simple_path` at evaluation time (§4.3) and malformed paths should be caught early."),
/// V-027: all dot-path keys in `MatchPredicate` entries are syntactically valid simple dot-path expressions per the grammar in SDK spec §5.1.1.
V027 = ("V-027", Error, "§5.4",
    "all dot-path keys in `MatchPredicate` entries are syntactically valid simple dot-path expressions per the grammar in SDK spec §5.1.1",
    "All dot-path keys in `MatchPredicate` entries are syntactically valid simple dot-path expressions per the grammar in SDK spec §5.1.1. No wildcards or indices. This applies to match predicates in `trigger.match` (phase advancement conditions) and in response entry `when` predicates within execution state (MCP `responses`, `sampling_responses`, `elicitation_responses`, A2A `task_responses`, AG-UI `tool_responses`). A typo in a predicate key (e.g., `argumens.command` instead of `arguments.command`) causes the predicate to silently never match; this rule catches such errors at validation time."),
/// V-028: when `execution.mode` is absent and `execution.actors` is absent (mode-less multi-phase form), every phase MUST specify `phase.mode`, and all phase modes MUST be identical.
V028 = ("V-028", Error, "§5.1",
    "when `execution.mode` is absent and `execution.actors` is absent (mode-less multi-phase form), every phase MUST specify `phase.mode`, and all phase modes MUST be identical",
    "When `execution.mode` is absent and `execution.actors` is absent (mode-less multi-phase form), every phase MUST specify `phase.mode`, and all phase modes MUST be identical. Attacks requiring different modes (including role changes within the same protocol) require the multi-actor form. When `execution.mode` is absent, regardless of whether `execution.actors` is present, every indicator (when `indicators` is present) MUST specify `indicator.protocol`. In multi-actor form, `actor.mode` provides phase-level inheritance (so `phase.mode` is typically omitted), but indicators are document-level and `indicator.protocol` remains required."),
/// V-029: for recognized modes (v0.1: mcp_server, mcp_client, a2a_server, a2a_client, ag_ui_client), trigger event types SHOULD be valid for the actor's mode.
V029 = ("V-029", Error, "§7",
    "for recognized modes (v0.1: mcp_server, mcp_client, a2a_server, a2a_client, ag_ui_client), trigger event types SHOULD be valid for the actor's mode",
    "For recognized modes (v0.1: mcp_server, mcp_client, a2a_server, a2a_client, ag_ui_client), trigger event types SHOULD be valid for the actor's mode. SDKs SHOULD emit a warning for unrecognized event types on recognized modes. For unrecognized modes, skip event validation."),
/// V-030: exactly one of `execution.state`, `execution.phases`, or `execution.actors` MUST be present.
V030 = ("V-030", Error, "§5.1",
    "exactly one of `execution.state`, `execution.phases`, or `execution.actors` MUST be present",
    "Exactly one of `execution.state`, `execution.phases`, or `execution.actors` MUST be present. A document with more than one is invalid. When `execution.state` is present, `execution.mode` MUST also be present."),
/// V-031: in multi-actor form: all `actor.name` values MUST be unique.
V031 = ("V-031", Error, "§5.1",
    "in multi-actor form: all `actor.name` values MUST be unique",
    "In multi-actor form: all `actor.name` values MUST be unique. Each name MUST match `[a-z][a-z0-9_]*`. Each actor MUST declare `mode`. Each actor MUST have at least one phase. Phase names MUST be unique within each actor."),
/// V-032: cross-actor extractor references (`{{actor_name.extractor_name}}`) MUST reference an `actor.name` that exists in the document.
V032 = ("V-032", Error, "§5.5",
    "cross-actor extractor references (`{{actor_name.extractor_name}}`) MUST reference an `actor.name` that exists in the document",
    "Cross-actor extractor references (`{{actor_name.extractor_name}}`) MUST reference an `actor.name` that exists in the document."),
/// V-033: in any `responses`, `sampling_responses`, `elicitation_responses`, `task_responses`, or `tool_responses` list, at most one entry MAY omit `when`.
V033 = ("V-033", Error, "§11.1.14",
    "in any `responses`, `sampling_responses`, `elicitation_responses`, `task_responses`, or `tool_responses` list, at most one entry MAY omit `when`",
    "In any `responses`, `sampling_responses`, `elicitation_responses`, `task_responses`, or `tool_responses` list, at most one entry MAY omit `when`. An entry without `when` following another entry without `when` is invalid."),
/// V-034: all mode values (`execution.mode`, `actor.mode`, `phase.mode`) MUST match the pattern `[a-z][a-z0-9_]*_(server|client)`.
V034 = ("V-034", Error, "§5.1",
    "all mode values (`execution.mode`, `actor.mode`, `phase.mode`) MUST match the pattern `[a-z][a-z0-9_]*_(server|client)`",
    "All mode values (`execution.mode`, `actor.mode`, `phase.mode`) MUST match the pattern `[a-z][a-z0-9_]*_(server|client)`. All `indicator.protocol` values MUST match `[a-z][a-z0-9_]*`."),
/// V-035: `attack.version`, when present, MUST be a positive integer (≥ 1).
V035 = ("V-035", Error, "§4.2",
    "`attack.version`, when present, MUST be a positive integer (≥ 1)",
    "`attack.version`, when present, MUST be a positive integer (≥ 1)."),
/// V-036: `trigger.after`, when present, MUST be a valid duration (shorthand or ISO 8601).
V036 = ("V-036", Error, "§5.2",
    "`trigger.after`, when present, MUST be a valid duration (shorthand or ISO 8601)",
    "`trigger.after`, when present, MUST be a valid duration (shorthand or ISO 8601)."),
/// V-037: extractor names MUST match the pattern `[a-z][a-z0-9_]*`.
V037 = ("V-037", Error, "§5.5",
    "extractor names MUST match the pattern `[a-z][a-z0-9_]*`",
    "Extractor names MUST match the pattern `[a-z][a-z0-9_]*`."),
/// V-038: `phase.extractors`, when present, MUST contain at least one entry.
V038 = ("V-038", Error, "§11.1.7",
    "`phase.extractors`, when present, MUST contain at least one entry",
    "`phase.extractors`, when present, MUST contain at least one entry."),
/// V-039: all `expression.variables` keys MUST be valid CEL identifiers, matching `^[_a-zA-Z][_a-zA-Z0-9]*$`.
V039 = ("V-039", Error, "§11.1.15",
    "all `expression.variables` keys MUST be valid CEL identifiers, matching `^[_a-zA-Z][_a-zA-Z0-9]*$`",
    "All `expression.variables` keys MUST be valid CEL identifiers, matching `^[_a-zA-Z][_a-zA-Z0-9]*$`. Names containing hyphens, dots, or other non-identifier characters are rejected because CEL would parse them as operators rather than variable references."),
/// V-040: trigger MUST specify at least one of `event` or `after`.
V040 = ("V-040", Error, "§5.3",
    "trigger MUST specify at least one of `event` or `after`",
    "Trigger MUST specify at least one of `event` or `after`. An empty trigger object is invalid."),
/// V-041: binding-specific action objects (those containing no known action key) MUST contain exactly one non-`x-` key.
V041 = ("V-041", Error, "§11.1.16",
    "binding-specific action objects (those containing no known action key) MUST contain exactly one non-`x-` key",
    "Binding-specific action objects (those containing no known action key) MUST contain exactly one non-`x-` key."),
/// V-042: when `extractor.type` is `regex`, the `extractor.selector` MUST contain at least one capture group.
V042 = ("V-042", Error, "§5.5",
    "when `extractor.type` is `regex`, the `extractor.selector` MUST contain at least one capture group",
    "When `extractor.type` is `regex`, the `extractor.selector` MUST contain at least one capture group."),
/// V-043: `phase.on_enter`, when present, MUST contain at least one entry.
V043 = ("V-043", Error, "§5.2",
    "`phase.on_enter`, when present, MUST contain at least one entry",
    "`phase.on_enter`, when present, MUST contain at least one entry."),
/// V-044: in multi-actor form, `phase.mode` when specified MUST match `actor.mode`.
V044 = ("V-044", Error, "§5.2",
    "in multi-actor form, `phase.mode` when specified MUST match `actor.mode`",
    "In multi-actor form, `phase.mode` when specified MUST match `actor.mode`. Cross-protocol attacks use separate actors."),
/// V-045: `attack.impact`, when present, MUST NOT contain duplicate values.
V045 = ("V-045", Error, "§4.2",
    "`attack.impact`, when present, MUST NOT contain duplicate values",
    "`attack.impact`, when present, MUST NOT contain duplicate values."),
/// V-046: `attack.grace_period`, when present, MUST be a valid duration (shorthand or ISO 8601).
V046 = ("V-046", Error, "§4.2",
    "`attack.grace_period`, when present, MUST be a valid duration (shorthand or ISO 8601)",
    "`attack.grace_period`, when present, MUST be a valid duration (shorthand or ISO 8601)."),
/// V-047: `correlation`, when present, MUST only appear when `indicators` is also present.
V047 = ("V-047", Error, "§2.3a",
    "`correlation`, when present, MUST only appear when `indicators` is also present",
    "`correlation`, when present, MUST only appear when `indicators` is also present. Correlation governs how indicator verdicts combine and is meaningless without indicators."),
/// V-048: when `indicator.actor` is present, it MUST reference an `actor.name` that exists in the document's (normalized) actors.
V048 = ("V-048", Error, "§6.1",
    "when `indicator.actor` is present, it MUST reference an `actor.name` that exists in the document's (normalized) actors",
    "When `indicator.actor` is present, it MUST reference an `actor.name` that exists in the document's (normalized) `execution.actors` list. In single-phase and multi-phase forms, normalization creates a single actor named `\"default\"`."),
/// V-049: when `indicator.method` is present, it MUST match the detection key present on the indicator (`pattern`, `expression`, or `semantic`).
V049 = ("V-049", Error, "§6.1",
    "when `indicator.method` is present, it MUST match the detection key present on the indicator (`pattern`, `expression`, or `semantic`)",
    "When `indicator.method` is present, it MUST match the detection key present on the indicator (`pattern`, `expression`, or `semantic`). For example, an indicator with `method: pattern` MUST contain a `pattern` field, not `expression` or `semantic`."),
/// V-050: `indicator.tier`, when present, is one of `ingested`, `local_action`, `boundary_breach` (format §6.5; spec-decisions item 22).
V050 = ("V-050", Error, "§6.5",
    "`indicator.tier`, when present, is one of `ingested`, `local_action`, `boundary_breach` (format §6.5; spec-decisions item 22)",
    "`indicator.tier`, when present, is one of `ingested`, `local_action`, `boundary_breach` (format §6.5; spec-decisions item 22)."),
/// W-001: `oatf` is not the first key in the document (V-002).
W001 = ("W-001", Warning, "SDK §7.0",
    "`oatf` is not the first key in the document (V-002)",
    "`oatf` is not the first key in the document (V-002)."),
/// W-002: a mode passes pattern validation but is not one of the modes of the included protocol bindings.
W002 = ("W-002", Warning, "SDK §7.0",
    "a mode passes pattern validation but is not one of the modes of the included protocol bindings",
    "A mode passes pattern validation but is not in the set of modes defined by included protocol bindings (v0.1: `mcp_server`, `mcp_client`, `a2a_server`, `a2a_client`, `ag_ui_client`). Likely typo."),
/// W-003: a protocol passes pattern validation but is not in the set of protocols defined by included protocol bindings (v0.1: `mcp`, `a2a`, `ag_ui`).
W003 = ("W-003", Warning, "SDK §7.0",
    "a protocol passes pattern validation but is not in the set of protocols defined by included protocol bindings (v0.1: `mcp`, `a2a`, `ag_ui`)",
    "A protocol passes pattern validation but is not in the set of protocols defined by included protocol bindings (v0.1: `mcp`, `a2a`, `ag_ui`). Likely typo."),
/// W-004: template interpolation references an undefined extractor or an unresolvable message path.
W004 = ("W-004", Warning, "SDK §7.0",
    "template interpolation references an undefined extractor or an unresolvable message path",
    "Template interpolation references an undefined extractor or an unresolvable message path. Two sub-cases: (a) \"unknown extractor reference\", detectable at validate time by cross-referencing template expressions against declared extractor names; (b) \"request/response path failed to resolve\", detectable only at runtime when the actual message is available."),
/// W-005: an indicator targets a protocol with no matching actor in the execution profile.
W005 = ("W-005", Warning, "SDK §7.0",
    "an indicator targets a protocol with no matching actor in the execution profile",
    "An indicator targets a protocol with no matching actor in the execution profile."),
/// W-006: a `synthesize` block is present.
W006 = ("W-006", Warning, "SDK §7.0",
    "a `synthesize` block is present",
    "A `synthesize` block is present. The `synthesize` feature is reserved for a future version; documents using it may not produce expected results."),
/// W-007: an indicator uses the `semantic` detection method, which is experimental and model-dependent.
W007 = ("W-007", Warning, "SDK §7.0",
    "an indicator uses the `semantic` detection method, which is experimental and model-dependent",
    "An indicator uses the `semantic` detection method, which is experimental and model-dependent. Cross-tool reproducibility is not guaranteed."),
/// W-014: a CEL expression whose syntax could not be checked because no CEL checker was installed.
W014 = ("W-014", Warning, "docs/decisions.md",
    "a CEL expression whose syntax could not be checked because no CEL checker was installed",
    "A CEL expression whose syntax could not be checked because no CEL checker was installed (an SDK built without the `cel` feature); see docs/decisions.md."),
/// W-015: a JSONPath extractor selector whose syntax could not be checked (`oatf-model` without `jsonpath`).
W015 = ("W-015", Warning, "docs/decisions.md",
    "a JSONPath selector whose syntax could not be checked because the JSONPath parser was left out",
    "A `json_path` extractor selector whose syntax (V-015) could not be checked because `oatf-model` was built without its `jsonpath` feature (an evaluator-only build, D-130); see docs/decisions.md."),}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_well_formed_and_match_their_variant() {
        let mut seen = std::collections::HashSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "{id} listed twice");
            assert_eq!(format!("{rule:?}"), id.replace('-', ""), "variant of {id}");
            let (prefix, digits) = id.split_once('-').expect("a dash");
            assert!(prefix == "V" || prefix == "W", "{id}");
            assert!(
                digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()),
                "{id}"
            );
            let expected = if prefix == "W" || *rule == Rule::V002 {
                DiagnosticSeverity::Warning
            } else {
                DiagnosticSeverity::Error
            };
            assert_eq!(rule.severity(), expected, "{id}");
            assert_eq!(Rule::from_id(id), Some(*rule));
        }
        // V-001 … V-050 without gaps.
        let v: Vec<_> = Rule::ALL
            .iter()
            .filter(|r| r.id().starts_with('V'))
            .collect();
        assert_eq!(v.len(), 50);
        assert_eq!(Rule::ALL[49].id(), "V-050");
    }

    #[test]
    fn summaries_are_one_lowercase_line_without_a_trailing_period() {
        for rule in Rule::ALL {
            let summary = rule.summary();
            let first = summary.chars().next().expect("a summary");
            assert!(
                !first.is_uppercase() || summary.starts_with("RE2"),
                "{rule}: {summary}"
            );
            assert!(
                !summary.ends_with('.') && !summary.contains('\n'),
                "{rule}: {summary}"
            );
            assert!(rule.spec_section().contains('§') || rule.spec_section().starts_with("docs/"));
            assert!(!rule.text().is_empty());
        }
    }
}
