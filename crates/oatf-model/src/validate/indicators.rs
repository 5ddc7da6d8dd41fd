//! Checks of `attack.indicators`: ids, protocols, surfaces, targets and the three methods (V-006, V-010,
//! V-012 … V-015, V-018, V-022 … V-026, V-050, W-007 …).

use super::*;
use crate::types::{ExpressionMatch, PatternMatch, SemanticMatch};

impl Validator<'_> {
    pub(super) fn indicators(
        &mut self,
        indicators: &[Indicator],
        attack_id: Option<&str>,
        execution_mode: Option<&str>,
    ) {
        const BASE: &str = "attack.indicators";
        // Effective id (explicit, or the one normalization will generate) → first index.
        let mut ids: HashMap<String, usize> = HashMap::new();
        let actor_protocols: Vec<String> = self
            .actors
            .iter()
            .filter_map(|a| a.mode.as_deref().map(|m| extract_protocol(m).to_owned()))
            .collect();
        for (i, indicator) in indicators.iter().enumerate() {
            let p = idx(BASE, i);
            // V-010, and spec-decisions 10: an explicit id equal to a generated one. Reported at the
            // later occurrence's `id` (spec-decisions 1a), even when that id is the generated one.
            let effective = indicator
                .id
                .clone()
                .unwrap_or_else(|| crate::normalize::generated_indicator_id(attack_id, i));
            match ids.entry(effective) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    let j = *first.get();
                    let first_path = key(&idx(BASE, j), "id");
                    let message = duplicate_message(
                        "indicator id",
                        first.key(),
                        indicator.id.is_none(),
                        indicators[j].id.is_none(),
                        &first_path,
                    );
                    self.duplicate(Rule::V010, key(&p, "id"), &first_path, message);
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
            if let Some(id) = indicator.id.as_deref() {
                // V-024
                if let Some(attack_id) = attack_id {
                    let ok = split_numbered(id, 2).is_some_and(|prefix| {
                        prefix == attack_id && split_numbered(prefix, 3).is_some()
                    });
                    if !ok {
                        self.error(
                            Rule::V024,
                            key(&p, "id"),
                            format!(
                                "indicator id `{}` must be `{attack_id}-NN` (two or more digits)",
                                shown(id)
                            ),
                        );
                    }
                }
            }
            self.indicator(indicator, &p, execution_mode, &actor_protocols);
        }
    }

    /// One indicator at `p`: its own fields, then the detection method it uses.
    pub(super) fn indicator(
        &mut self,
        indicator: &Indicator,
        p: &str,
        execution_mode: Option<&str>,
        actor_protocols: &[String],
    ) {
        self.wildcard_target(&indicator.target, key(p, "target"));
        self.detection_key(indicator, p);
        if let Some(direction) = &indicator.direction {
            self.closed(direction, key(p, "direction"));
        }
        if let Some(severity) = &indicator.severity {
            self.closed(severity, key(p, "severity"));
        }
        // V-050 (spec-decisions 22)
        if let Some(tier) = &indicator.tier {
            self.closed(tier, key(p, "tier"));
        }
        // V-025
        if let Some(c) = indicator.confidence
            && !(0..=100).contains(&c)
        {
            self.error(
                Rule::V025,
                key(p, "confidence"),
                format!("confidence must be within 0–100, found {c}"),
            );
        }
        if let Some(protocol) = self.indicator_protocol(indicator, p, execution_mode) {
            self.surface_and_actors(indicator, p, &protocol, actor_protocols);
        }
        self.indicator_actor(indicator, p);
        if let Some(pattern) = &indicator.pattern {
            self.pattern(pattern, &key(p, "pattern"));
        }
        if let Some(expression) = &indicator.expression {
            self.expression(expression, &key(p, "expression"));
        }
        if let Some(semantic) = &indicator.semantic {
            self.semantic(semantic, key(p, "semantic"));
        }
    }

    /// V-021: a target (of the indicator, a pattern or a semantic block) is a wildcard dot-path.
    fn wildcard_target(&mut self, target: &str, path: String) {
        if let Err(e) = check_wildcard_path(target) {
            self.error(
                Rule::V021,
                path,
                format!(
                    "target `{}` is not a valid wildcard dot-path ({e})",
                    shown(target)
                ),
            );
        }
    }

    /// V-012 (exactly one detection key) and V-049 (`method` names the key present).
    fn detection_key(&mut self, indicator: &Indicator, p: &str) {
        let keys = usize::from(indicator.pattern.is_some())
            + usize::from(indicator.expression.is_some())
            + usize::from(indicator.semantic.is_some());
        if keys != 1 {
            self.error(
                Rule::V012,
                p,
                format!("an indicator needs exactly one of `pattern`, `expression`, `semantic`, found {keys}"),
            );
        }
        if let Some(method) = &indicator.method {
            self.closed(method, key(p, "method"));
            let present = match method.known() {
                Some(IndicatorMethod::Pattern) => indicator.pattern.is_some(),
                Some(IndicatorMethod::Expression) => indicator.expression.is_some(),
                Some(IndicatorMethod::Semantic) => indicator.semantic.is_some(),
                None => true,
            };
            if !present {
                self.error(
                    Rule::V049,
                    key(p, "method"),
                    format!(
                        "`method: {}` needs a `{}` field on the indicator",
                        method.as_str(),
                        method.as_str()
                    ),
                );
            }
        }
    }

    /// The indicator's protocol, explicit or from `execution.mode`: V-034 and W-003 on an explicit
    /// one, V-028 when there is none.
    fn indicator_protocol(
        &mut self,
        indicator: &Indicator,
        p: &str,
        execution_mode: Option<&str>,
    ) -> Option<String> {
        match &indicator.protocol {
            Some(protocol) => {
                if !is_lower_ident(protocol) {
                    self.error(
                        Rule::V034,
                        key(p, "protocol"),
                        format!(
                            "protocol `{}` does not match `[a-z][a-z0-9_]*`",
                            shown(protocol)
                        ),
                    );
                } else if self.options.binding_warnings
                    && !known_protocols().contains(&protocol.as_str())
                {
                    self.warn(
                        Rule::W003,
                        key(p, "protocol"),
                        format!(
                            "unrecognized protocol `{}`; known protocols are {}{}",
                            shown(protocol),
                            known_protocols().join(", "),
                            crate::suggest::hint(protocol, known_protocols().iter().copied())
                        ),
                    );
                }
                Some(protocol.clone())
            }
            None => match execution_mode {
                Some(mode) => Some(extract_protocol(mode).to_owned()),
                None => {
                    self.error(
                        Rule::V028,
                        key(p, "protocol"),
                        "`protocol` is required on every indicator when `execution.mode` is absent",
                    );
                    None
                }
            },
        }
    }

    /// V-018 (the surface is an operation of the protocol) and W-005 (an actor speaks the protocol).
    fn surface_and_actors(
        &mut self,
        indicator: &Indicator,
        p: &str,
        protocol: &str,
        actor_protocols: &[String],
    ) {
        // V-018 (a warning, spec-decisions 3)
        if let Some(surface) = &indicator.surface
            && self.options.binding_warnings
            && is_known_surface(protocol, surface) == Some(false)
        {
            self.warn(
                Rule::V018,
                key(p, "surface"),
                format!(
                    "surface `{}` is not a known operation of protocol `{protocol}`{}",
                    shown(surface),
                    crate::suggest::hint(surface, registry::known_surfaces(protocol))
                ),
            );
        }
        // W-005 (skipped while an actor's mode is missing: its protocol is unknown)
        if !self.actors.is_empty()
            && !actor_protocols
                .iter()
                .any(|a| a.is_empty() || a == protocol)
        {
            let at = if indicator.protocol.is_some() {
                key(p, "protocol")
            } else {
                p.to_owned()
            };
            self.warn(
                Rule::W005,
                at,
                format!("no actor of the execution profile uses protocol `{protocol}`"),
            );
        }
    }

    /// V-048: `indicator.actor` names an actor of the document.
    fn indicator_actor(&mut self, indicator: &Indicator, p: &str) {
        if let Some(actor) = &indicator.actor
            && !self.actors.is_empty()
            && !self.actors.iter().any(|a| &a.name == actor)
        {
            self.error(Rule::V048, key(p, "actor"), {
                let hint = crate::suggest::hint(actor, self.actors.iter().map(|a| a.name.as_str()));
                format!(
                    "indicator references unknown actor `{}`{hint}{}the document's actors are {}",
                    shown(actor),
                    if hint.is_empty() { "; " } else { " " },
                    listed(self.actors.iter().map(|a| a.name.as_str()))
                )
            });
        }
    }

    /// A `pattern` block at `pp`: V-021, V-012 (a condition is present), V-013.
    fn pattern(&mut self, pattern: &PatternMatch, pp: &str) {
        if let Some(target) = &pattern.target {
            self.wildcard_target(target, key(pp, "target"));
        }
        if pattern.condition.is_none() && !pattern.is_shorthand() {
            self.error(
                Rule::V012,
                pp,
                "a pattern needs `condition` or a condition operator",
            );
        }
        if let Some(Condition::Match(m)) = &pattern.condition
            && let Some(regex) = &m.regex
        {
            self.regex(regex, key(&key(pp, "condition"), "regex"));
        }
        if let Some(regex) = &pattern.shorthand.regex {
            self.regex(regex, key(pp, "regex"));
        }
    }

    /// V-013: a regular expression compiles (asked of the options' [`SyntaxCheck`](super::SyntaxCheck),
    /// D-190). Whether it does.
    pub(super) fn regex(&mut self, regex: &str, path: String) -> bool {
        match self.options.syntax.regex(regex) {
            Ok(()) => true,
            Err(e) => {
                self.error(Rule::V013, path, format!("invalid regular expression: {e}"));
                false
            }
        }
    }

    /// An `expression` block at `ep`: V-014 (or W-014 without a checker), V-039, V-026.
    fn expression(&mut self, expression: &ExpressionMatch, ep: &str) {
        match &self.options.cel {
            Some(check) => {
                let cel = expression.cel.as_str();
                let refused = match self.cel_answers.get(cel) {
                    Some(answer) => answer.as_ref().err().map(ToString::to_string),
                    None => check.check(cel).err().map(|e| e.to_string()),
                };
                if let Some(e) = refused {
                    self.error(
                        Rule::V014,
                        key(ep, "cel"),
                        format!("invalid cel expression: {e}"),
                    );
                }
            }
            None => self.warn(
                Rule::W014,
                key(ep, "cel"),
                "cel syntax not checked: no cel checker is installed (V-014)",
            ),
        }
        for (name, path) in expression.variables.iter().flat_map(|v| v.iter()) {
            let vp = key(&key(ep, "variables"), name);
            // V-039
            if !is_cel_ident(name) {
                self.error(
                    Rule::V039,
                    vp.clone(),
                    format!("variable name `{}` is not a cel identifier", shown(name)),
                );
            }
            // V-026
            if let Err(e) = check_simple_path(path) {
                self.error(
                    Rule::V026,
                    vp,
                    format!(
                        "variable path `{}` is not a simple dot-path ({e})",
                        shown(path)
                    ),
                );
            }
        }
    }

    /// A `semantic` block at `sp`: V-021, V-005 (intent class), V-022, and the W-007 warning.
    fn semantic(&mut self, semantic: &SemanticMatch, sp: String) {
        if let Some(target) = &semantic.target {
            self.wildcard_target(target, key(&sp, "target"));
        }
        if let Some(class) = &semantic.intent_class {
            self.closed(class, key(&sp, "intent_class"));
        }
        // V-022
        if let Some(t) = semantic.threshold
            && !(0.0..=1.0).contains(&t)
        {
            self.error(
                Rule::V022,
                key(&sp, "threshold"),
                format!("threshold must be within 0.0–1.0, found {t}"),
            );
        }
        // W-007
        self.warn(
            Rule::W007,
            sp,
            "semantic indicators are experimental and model-dependent; results may differ across tools",
        );
    }
}

/// Names as a list for a message: `` `a`, `b` ``, the first 20 only (`` …and 3 more ``).
fn listed<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    const MAX: usize = 20;
    let total = names.len();
    let mut text = names
        .take(MAX)
        .map(|n| format!("`{}`", shown(n)))
        .collect::<Vec<_>>()
        .join(", ");
    if total > MAX {
        text.push_str(&format!(" and {} more", total - MAX));
    }
    text
}
