//! `normalize` (SDK §3.3): N-001 … N-008, and the [`NormalizedDocument`] view of the guarantees.

use oatf_primitives::{Condition, extract_protocol};

use crate::types::{
    Actor, Attack, Closed, Correlation, CorrelationLogic, Document, Execution, Indicator,
    IndicatorMethod, Phase, Relationship, Severity, SeverityObject, Status,
};

/// The id N-003 gives the indicator at `index` (0-based) when it has none: `{attack.id}-{NN}`, or
/// `indicator-{NN}` without an attack id (`NN` two digits at least, from 01).
///
/// The one place this rule lives: normalize, validate (V-010 collisions), verdicts and tools use it.
pub fn generated_indicator_id(attack_id: Option<&str>, index: usize) -> String {
    format!("{}-{:02}", attack_id.unwrap_or("indicator"), index + 1)
}

/// The name normalization gives the phase at `index` (0-based) of an actor when it has none:
/// `phase-{N}`, from 1.
///
/// The one place this rule lives: normalize, validate (V-011 collisions) and the evaluator use it.
pub fn generated_phase_name(index: usize) -> String {
    format!("phase-{}", index + 1)
}

/// Normalizes a document (SDK §3.3), consuming it: N-001 … N-008 in the specification's order, plus
/// `phase.mode` materialized from the actor's mode (spec-decisions 9).
///
/// Idempotent: `normalize(normalize(d)) == normalize(d)`. A document that did not pass validation is
/// normalized as far as its shape allows; nothing panics.
///
/// ```
/// let document = oatf_model::Document::from_json_str(
///     r#"{"oatf": "0.1", "attack": {"severity": "high", "execution": {"mode": "mcp_server", "state": {}}}}"#,
/// )?;
/// let normalized = oatf_model::normalize(document);
/// let view = oatf_model::NormalizedDocument::check(&normalized).expect("normalized");
/// assert_eq!(view.name(), "Untitled");
/// assert_eq!(view.actors()[0].phases[0].name.as_deref(), Some("phase-1"));
/// # Ok::<(), oatf_model::ParseErrors>(())
/// ```
pub fn normalize(mut document: Document) -> Document {
    if let Some(attack) = &mut document.attack {
        normalize_attack(attack);
    }
    document
}

/// Copying variant of [`normalize`]: the input is left untouched.
pub fn normalized(document: &Document) -> Document {
    normalize(document.clone())
}

fn normalize_attack(attack: &mut Attack) {
    let execution_mode = attack.execution.as_ref().and_then(|e| e.mode.clone());

    // N-001: defaults.
    attack.name.get_or_insert_with(|| "Untitled".to_owned());
    attack.version.get_or_insert(1);
    attack.status.get_or_insert(Closed::Known(Status::Draft));
    if let Some(classification) = &mut attack.classification {
        for mapping in classification.mappings.iter_mut().flatten() {
            mapping
                .relationship
                .get_or_insert(Closed::Known(Relationship::Primary));
        }
    }
    if attack.indicators.is_some() {
        attack
            .correlation
            .get_or_insert_with(Correlation::default)
            .logic
            .get_or_insert(Closed::Known(CorrelationLogic::Any));
    }
    if let Some(execution) = &mut attack.execution {
        for phases in phase_lists(execution) {
            for (i, phase) in phases.iter_mut().enumerate() {
                phase.name.get_or_insert_with(|| generated_phase_name(i));
                if let Some(trigger) = &mut phase.trigger
                    && trigger.event.is_some()
                {
                    trigger.count.get_or_insert(1);
                }
            }
        }
        if let Some(mode) = &execution_mode
            && let Some(phases) = &mut execution.phases
        {
            for phase in phases {
                phase.mode.get_or_insert_with(|| mode.clone());
            }
        }
    }

    // N-002: severity scalar form → object form.
    if let Some(severity) = &mut attack.severity {
        let object = match severity {
            Severity::Scalar(level) => SeverityObject {
                level: level.clone(),
                confidence: Some(Severity::DEFAULT_CONFIDENCE),
            },
            Severity::Object(object) => SeverityObject {
                level: object.level.clone(),
                confidence: Some(object.confidence.unwrap_or(Severity::DEFAULT_CONFIDENCE)),
            },
        };
        *severity = Severity::Object(object);
    }

    if let Some(indicators) = &mut attack.indicators {
        for (i, indicator) in indicators.iter_mut().enumerate() {
            // N-003: indicator ids.
            indicator
                .id
                .get_or_insert_with(|| generated_indicator_id(attack.id.as_deref(), i));
            // N-004: protocol from the mode; method-specific targets from the indicator target.
            if let Some(mode) = &execution_mode {
                indicator
                    .protocol
                    .get_or_insert_with(|| extract_protocol(mode).to_owned());
            }
            let target = indicator.target.clone();
            if let Some(pattern) = &mut indicator.pattern {
                pattern.target.get_or_insert_with(|| target.clone());
                // N-005: shorthand → standard form.
                if pattern.is_shorthand() {
                    let shorthand = std::mem::take(&mut pattern.shorthand);
                    pattern.condition.get_or_insert(Condition::Match(shorthand));
                }
            }
            if let Some(semantic) = &mut indicator.semantic {
                semantic.target.get_or_insert(target);
            }
        }
    }

    if let Some(execution) = &mut attack.execution {
        // N-006: single-phase form → multi-actor form.
        if execution.actors.is_none()
            && execution.phases.is_none()
            && let Some(state) = execution.state.take()
        {
            let mode = execution.mode.take().unwrap_or_default();
            execution.actors = Some(vec![Actor {
                name: "default".to_owned(),
                mode: mode.clone(),
                phases: vec![Phase {
                    name: Some(generated_phase_name(0)),
                    mode: Some(mode),
                    state: Some(state),
                    ..Phase::default()
                }],
                extensions: Default::default(),
            }]);
        }
        // N-007: multi-phase form → multi-actor form.
        if execution.actors.is_none()
            && let Some(phases) = execution.phases.take()
        {
            let mode = execution
                .mode
                .take()
                .or_else(|| phases.first().and_then(|p| p.mode.clone()))
                .unwrap_or_default();
            execution.actors = Some(vec![Actor {
                name: "default".to_owned(),
                mode,
                phases,
                extensions: Default::default(),
            }]);
        }
        // N-001 in multi-actor form (spec-decisions 9): phase.mode → actor.mode.
        for actor in execution.actors.iter_mut().flatten() {
            for (i, phase) in actor.phases.iter_mut().enumerate() {
                phase.mode.get_or_insert_with(|| actor.mode.clone());
                phase.name.get_or_insert_with(|| generated_phase_name(i));
            }
        }
    }

    // N-008: tags lowercase and hyphen-delimited.
    if let Some(classification) = &mut attack.classification {
        for tag in classification.tags.iter_mut().flatten() {
            *tag = tag.to_lowercase().replace(['_', ' '], "-");
        }
    }
}

fn phase_lists(execution: &mut Execution) -> Vec<&mut Vec<Phase>> {
    let mut lists = Vec::new();
    if let Some(phases) = &mut execution.phases {
        lists.push(phases);
    }
    for actor in execution.actors.iter_mut().flatten() {
        lists.push(&mut actor.phases);
    }
    lists
}

/// Why a document does not satisfy the post-normalization guarantees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotNormalized {
    path: String,
    what: &'static str,
}

impl NotNormalized {
    /// Dot-path of the first field that breaks a guarantee.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl std::fmt::Display for NotNormalized {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "document is not normalized: {} at `{}`",
            self.what, self.path
        )
    }
}

impl std::error::Error for NotNormalized {}

/// A checked view of a normalized document: the guarantees of SDK §3.3 as plain accessors, without
/// `Option` where normalization guarantees presence.
///
/// Obtain it with [`NormalizedDocument::check`] (any document, checked once) or from a
/// [`Loaded`](crate::Loaded) document.
#[derive(Clone, Copy, Debug)]
pub struct NormalizedDocument<'a> {
    attack: &'a Attack,
    document: &'a Document,
}

fn fail(path: impl Into<String>, what: &'static str) -> NotNormalized {
    NotNormalized {
        path: path.into(),
        what,
    }
}

impl<'a> NormalizedDocument<'a> {
    /// Checks every post-normalization guarantee (SDK §3.3) and returns the view.
    pub fn check(document: &'a Document) -> Result<Self, NotNormalized> {
        let attack = document
            .attack
            .as_ref()
            .ok_or_else(|| fail("attack", "missing attack"))?;
        if attack.name.is_none() {
            return Err(fail("attack.name", "missing name"));
        }
        if attack.version.is_none() {
            return Err(fail("attack.version", "missing version"));
        }
        if attack.status.is_none() {
            return Err(fail("attack.status", "missing status"));
        }
        if let Some(severity) = &attack.severity
            && severity.confidence().is_none()
        {
            return Err(fail("attack.severity", "severity not in object form"));
        }
        let execution = attack
            .execution
            .as_ref()
            .ok_or_else(|| fail("attack.execution", "missing execution"))?;
        let actors = execution
            .actors
            .as_ref()
            .ok_or_else(|| fail("attack.execution.actors", "missing actors"))?;
        if execution.state.is_some() || execution.phases.is_some() {
            return Err(fail("attack.execution", "not in multi-actor form"));
        }
        for (i, actor) in actors.iter().enumerate() {
            for (j, phase) in actor.phases.iter().enumerate() {
                if phase.name.is_none() || phase.mode.is_none() {
                    return Err(fail(
                        format!("attack.execution.actors[{i}].phases[{j}]"),
                        "phase without name or mode",
                    ));
                }
                if let Some(trigger) = &phase.trigger
                    && trigger.event.is_some()
                    && trigger.count.is_none()
                {
                    return Err(fail(
                        format!("attack.execution.actors[{i}].phases[{j}].trigger"),
                        "trigger without count",
                    ));
                }
            }
        }
        if let Some(indicators) = &attack.indicators {
            if attack
                .correlation
                .as_ref()
                .and_then(|c| c.logic.as_ref())
                .is_none()
            {
                return Err(fail("attack.correlation", "missing correlation logic"));
            }
            for (i, indicator) in indicators.iter().enumerate() {
                let path = format!("attack.indicators[{i}]");
                if indicator.id.is_none() || indicator.protocol.is_none() {
                    return Err(fail(path, "indicator without id or protocol"));
                }
                if let Some(pattern) = &indicator.pattern
                    && (pattern.condition.is_none()
                        || pattern.target.is_none()
                        || pattern.is_shorthand())
                {
                    return Err(fail(path, "pattern not in standard form"));
                }
                if let Some(semantic) = &indicator.semantic
                    && semantic.target.is_none()
                {
                    return Err(fail(path, "semantic without target"));
                }
            }
        }
        Ok(NormalizedDocument { attack, document })
    }

    /// The view without checks, for documents known to be normalized and valid.
    #[cfg(feature = "yaml")]
    pub(crate) fn trusted_or_empty(document: &'a Document) -> Self {
        static EMPTY: std::sync::OnceLock<Attack> = std::sync::OnceLock::new();
        NormalizedDocument {
            attack: document
                .attack
                .as_ref()
                .unwrap_or_else(|| EMPTY.get_or_init(Attack::default)),
            document,
        }
    }

    /// The underlying document.
    pub fn document(&self) -> &'a Document {
        self.document
    }

    /// The attack.
    pub fn attack(&self) -> &'a Attack {
        self.attack
    }

    /// `attack.name`.
    pub fn name(&self) -> &'a str {
        self.attack.name.as_deref().unwrap_or("Untitled")
    }

    /// `attack.version`.
    pub fn version(&self) -> i64 {
        self.attack.version.unwrap_or(1)
    }

    /// `attack.status` (unknown only if the document was not valid).
    pub fn status(&self) -> Closed<Status> {
        self.attack
            .status
            .clone()
            .unwrap_or(Closed::Known(Status::Draft))
    }

    /// `attack.severity` in object form, when present.
    pub fn severity(&self) -> Option<SeverityObject> {
        self.attack.severity.as_ref().map(|s| SeverityObject {
            level: s.level().clone(),
            confidence: Some(s.effective_confidence()),
        })
    }

    /// `attack.execution.actors`.
    pub fn actors(&self) -> &'a [Actor] {
        self.attack
            .execution
            .as_ref()
            .and_then(|e| e.actors.as_deref())
            .unwrap_or(&[])
    }

    /// The indicators (empty for a simulation-only document).
    pub fn indicators(&self) -> impl Iterator<Item = NormalizedIndicator<'a>> + 'a {
        self.attack
            .indicators
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|indicator| NormalizedIndicator { indicator })
    }

    /// `attack.correlation.logic`.
    pub fn correlation_logic(&self) -> Closed<CorrelationLogic> {
        self.attack
            .correlation
            .as_ref()
            .and_then(|c| c.logic.clone())
            .unwrap_or(Closed::Known(CorrelationLogic::Any))
    }

    /// The name of a phase (`phase-{N}` when not written).
    pub fn phase_name(phase: &'a Phase) -> &'a str {
        phase.name.as_deref().unwrap_or_default()
    }

    /// The resolved mode of a phase of `actor`.
    pub fn phase_mode(actor: &'a Actor, phase: &'a Phase) -> &'a str {
        phase.mode.as_deref().unwrap_or(&actor.mode)
    }
}

/// A normalized indicator: `id`, `protocol` and the method's target without `Option`.
#[derive(Clone, Copy, Debug)]
pub struct NormalizedIndicator<'a> {
    indicator: &'a Indicator,
}

impl<'a> NormalizedIndicator<'a> {
    /// The indicator itself.
    pub fn indicator(&self) -> &'a Indicator {
        self.indicator
    }

    /// `indicator.id`.
    pub fn id(&self) -> &'a str {
        self.indicator.id.as_deref().unwrap_or_default()
    }

    /// `indicator.protocol`.
    pub fn protocol(&self) -> &'a str {
        self.indicator.protocol.as_deref().unwrap_or_default()
    }

    /// The detection method.
    pub fn method(&self) -> Option<IndicatorMethod> {
        self.indicator.resolved_method()
    }

    /// The path evaluated: `pattern.target` / `semantic.target`, else the indicator target.
    pub fn target(&self) -> &'a str {
        let specific = match self.method() {
            Some(IndicatorMethod::Pattern) => self
                .indicator
                .pattern
                .as_ref()
                .and_then(|p| p.target.as_deref()),
            Some(IndicatorMethod::Semantic) => self
                .indicator
                .semantic
                .as_ref()
                .and_then(|s| s.target.as_deref()),
            _ => None,
        };
        specific.unwrap_or(&self.indicator.target)
    }

    /// The pattern condition in standard form, for pattern indicators.
    pub fn condition(&self) -> Option<Condition> {
        self.indicator
            .pattern
            .as_ref()
            .and_then(|p| p.effective_condition())
    }
}

#[cfg(all(test, feature = "yaml"))]
mod tests {
    use super::*;

    /// Normalizes `input` and compares the JSON form with `expect` (also checks idempotency and the
    /// view's guarantees).
    #[track_caller]
    fn check(input: &str, expect: serde_json::Value) {
        let document = match crate::parse(input) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let once = normalize(document);
        let twice = normalize(once.clone());
        assert_eq!(once, twice, "normalize is not idempotent");
        if let Err(e) = NormalizedDocument::check(&once) {
            panic!("{e}");
        }
        assert_eq!(serde_json::to_value(&once).unwrap_or_default(), expect);
    }

    #[test]
    fn single_phase_with_defaults() {
        check(
            "oatf: \"0.1\"\nattack:\n  id: ACME-001\n  severity: high\n  classification:\n    tags: [Rug_Pull, \"Multi Phase\"]\n    mappings: [{framework: atlas, id: AML.T0051}]\n  execution:\n    x-a: 1\n    mode: mcp_server\n    state: {tools: []}\n  indicators:\n    - target: \"tools[*].description\"\n      pattern: {contains: x}\n    - target: \"\"\n      semantic: {intent: i}\n",
            serde_json::json!({
                "oatf": "0.1",
                "attack": {
                    "id": "ACME-001", "name": "Untitled", "version": 1, "status": "draft",
                    "severity": {"level": "high", "confidence": 50},
                    "classification": {
                        "mappings": [{"framework": "atlas", "id": "AML.T0051", "relationship": "primary"}],
                        "tags": ["rug-pull", "multi-phase"]
                    },
                    "execution": {
                        "actors": [{"name": "default", "mode": "mcp_server", "phases": [
                            {"name": "phase-1", "mode": "mcp_server", "state": {"tools": []}}
                        ]}],
                        "x-a": 1
                    },
                    "indicators": [
                        {"id": "ACME-001-01", "protocol": "mcp", "target": "tools[*].description",
                         "pattern": {"target": "tools[*].description", "condition": {"contains": "x"}}},
                        {"id": "ACME-001-02", "protocol": "mcp", "target": "",
                         "semantic": {"target": "", "intent": "i"}}
                    ],
                    "correlation": {"logic": "any"}
                }
            }),
        );
    }

    #[test]
    fn modeless_multi_phase() {
        check(
            "oatf: \"0.1\"\nattack:\n  execution:\n    phases:\n      - {mode: a2a_server, state: {}, trigger: {event: message/send}}\n      - {mode: a2a_server}\n",
            serde_json::json!({
                "oatf": "0.1",
                "attack": {
                    "name": "Untitled", "version": 1, "status": "draft",
                    "execution": {"actors": [{"name": "default", "mode": "a2a_server", "phases": [
                        {"name": "phase-1", "mode": "a2a_server", "state": {}, "trigger": {"event": "message/send", "count": 1}},
                        {"name": "phase-2", "mode": "a2a_server"}
                    ]}]}
                }
            }),
        );
    }

    #[test]
    fn copy_variant_leaves_input() {
        let document = match crate::parse(
            "oatf: \"0.1\"\nattack:\n  execution: {mode: mcp_server, state: {}}\n",
        ) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let copy = normalized(&document);
        assert!(document.attack.as_ref().is_some_and(|a| a.name.is_none()));
        assert_eq!(copy, normalize(document));
    }
}
