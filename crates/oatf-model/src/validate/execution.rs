//! Checks of `attack.execution`: the forms, actors, phases, extractors, actions, triggers and match
//! predicates (V-007 … V-011, V-019, V-021, V-028 … V-031, V-041 …).

use super::*;

impl Validator<'_> {
    pub(super) fn execution(&mut self, execution: &Execution) {
        const BASE: &str = "attack.execution";
        let forms = usize::from(execution.state.is_some())
            + usize::from(execution.phases.is_some())
            + usize::from(execution.actors.is_some());
        // V-030
        if forms != 1 {
            self.error(
                Rule::V030,
                BASE,
                if forms == 0 {
                    "execution must have exactly one of `state`, `phases` or `actors`, found none"
                } else {
                    "execution must have exactly one of `state`, `phases` or `actors`, found several"
                },
            );
        }
        if execution.state.is_some() && execution.mode.is_none() {
            self.error_at(
                Rule::V030,
                key(BASE, "mode"),
                &key(BASE, "state"),
                "`execution.mode` is required with `execution.state`",
            );
        }
        if let Some(mode) = &execution.mode {
            self.mode_value(mode, key(BASE, "mode"));
        }
        // First pass: actor names and extractor names (for V-032, V-048, W-004, W-005).
        self.actors = collect_actors(execution);

        if let Some(state) = &execution.state {
            let mode = execution.mode.clone();
            self.state(state, &key(BASE, "state"), mode.as_deref(), 0);
        }
        if let Some(phases) = &execution.phases {
            let path = key(BASE, "phases");
            // V-007
            if phases.is_empty() {
                self.error(
                    Rule::V007,
                    path.clone(),
                    "`phases` must contain at least one entry",
                );
            }
            // V-028: mode-less multi-phase form.
            if execution.mode.is_none() && execution.actors.is_none() {
                let mut first: Option<&str> = None;
                for (i, phase) in phases.iter().enumerate() {
                    let p = idx(&path, i);
                    match phase.mode.as_deref() {
                        None => self.error(
                            Rule::V028,
                            key(&p, "mode"),
                            "every phase needs `mode` when `execution.mode` is absent",
                        ),
                        Some(m) => match first {
                            None => first = Some(m),
                            Some(f) if f != m => self.error_at(
                                Rule::V028,
                                path.clone(),
                                &key(&p, "mode"),
                                format!(
                                    "phase mode `{}` at `{p}` differs from `{}`; different modes need the multi-actor form",
                                    shown(m),
                                    shown(f)
                                ),
                            ),
                            Some(_) => {}
                        },
                    }
                }
            }
            self.phases(phases, &path, execution.mode.as_deref(), false, 0);
        }
        if let Some(actors) = &execution.actors {
            let path = key(BASE, "actors");
            // V-007 (spec-decisions 8: an empty actors list)
            if actors.is_empty() {
                self.error(
                    Rule::V007,
                    path.clone(),
                    "`actors` must contain at least one entry",
                );
            }
            let mut names = HashMap::new();
            for (i, actor) in actors.iter().enumerate() {
                self.actor(actor, &idx(&path, i), i, &mut names);
            }
        }
    }

    pub(super) fn actor(
        &mut self,
        actor: &Actor,
        path: &str,
        index: usize,
        names: &mut HashMap<String, String>,
    ) {
        // V-031
        if !is_lower_ident(&actor.name) {
            self.error(
                Rule::V031,
                key(path, "name"),
                format!(
                    "actor name `{}` does not match `[a-z][a-z0-9_]*`",
                    shown(&actor.name)
                ),
            );
        }
        // V-031: a duplicate name, at the later actor's `name` (spec-decisions 1a).
        let name_path = key(path, "name");
        match names.get(&actor.name) {
            Some(first) => {
                let first = first.clone();
                let message = duplicate_message("actor name", &actor.name, false, false, &first);
                self.duplicate(Rule::V031, name_path, &first, message);
            }
            None => {
                names.insert(actor.name.clone(), name_path);
            }
        }
        self.mode_value(&actor.mode, key(path, "mode"));
        let phases_path = key(path, "phases");
        if actor.phases.is_empty() {
            // V-007 and V-031 describe the same fault (spec-decisions 8).
            self.error(
                Rule::V007,
                phases_path.clone(),
                "an actor must have at least one phase",
            );
            self.error(
                Rule::V031,
                phases_path.clone(),
                "an actor must have at least one phase",
            );
        }
        for (i, phase) in actor.phases.iter().enumerate() {
            // V-044
            if let Some(mode) = &phase.mode
                && *mode != actor.mode
            {
                self.error(
                    Rule::V044,
                    key(&idx(&phases_path, i), "mode"),
                    format!(
                        "phase mode `{}` must match the actor mode `{}`",
                        shown(mode),
                        shown(&actor.mode)
                    ),
                );
            }
        }
        self.phases(&actor.phases, &phases_path, Some(&actor.mode), true, index);
    }

    pub(super) fn phases(
        &mut self,
        phases: &[Phase],
        path: &str,
        inherited: Option<&str>,
        multi_actor: bool,
        actor: usize,
    ) {
        let count = phases.len();
        // V-008: at most one terminal phase (without `trigger`), and it is the last. Two or more are
        // a property of the list; a single one elsewhere is a misplaced element, reported at that
        // phase (spec-decisions 1a).
        let terminal: Vec<usize> = phases
            .iter()
            .enumerate()
            .filter(|(_, phase)| phase.trigger.is_none())
            .map(|(i, _)| i)
            .collect();
        match terminal.as_slice() {
            [] => {}
            [only] if only + 1 == count => {}
            [only] => {
                let p = idx(path, *only);
                self.error(
                    Rule::V008,
                    p.clone(),
                    format!("only the last phase may be terminal (omit `trigger`), but `{p}` has no trigger and is not last"),
                );
            }
            [first, .., last] => {
                let shown: Vec<String> = terminal
                    .iter()
                    .map(|&i| format!("`{}`", idx(path, i)))
                    .collect();
                // The label goes to the first terminal phase that is not the last phase.
                let at = if *first + 1 == count { *last } else { *first };
                self.error_at(
                    Rule::V008,
                    path,
                    &idx(path, at),
                    format!(
                        "at most one phase may be terminal (omit `trigger`), found {}: {}",
                        terminal.len(),
                        shown.join(", ")
                    ),
                );
            }
        }
        // V-011 (and V-031 within an actor): effective name (explicit, or the `phase-N` that
        // normalization will generate, spec-decisions 10) → first index. Reported at the later
        // occurrence's `name` (spec-decisions 1a).
        let mut names: HashMap<String, usize> = HashMap::new();
        for (i, phase) in phases.iter().enumerate() {
            let effective = phase
                .name
                .clone()
                .unwrap_or_else(|| crate::normalize::generated_phase_name(i));
            match names.entry(effective) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    let j = *first.get();
                    let first_path = key(&idx(path, j), "name");
                    let message = duplicate_message(
                        "phase name",
                        first.key(),
                        phase.name.is_none(),
                        phases[j].name.is_none(),
                        &first_path,
                    );
                    let at = key(&idx(path, i), "name");
                    self.duplicate(Rule::V011, at.clone(), &first_path, message.clone());
                    if multi_actor {
                        self.duplicate(Rule::V031, at, &first_path, message);
                    }
                }
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
        for (i, phase) in phases.iter().enumerate() {
            let p = idx(path, i);
            // V-009
            if i == 0 && phase.state.is_none() {
                self.error(
                    Rule::V009,
                    p.clone(),
                    "the first phase must include `state`",
                );
            }
            let mode = phase.mode.as_deref().or(inherited);
            if let Some(m) = &phase.mode {
                self.mode_value(m, key(&p, "mode"));
            }
            if let Some(state) = &phase.state {
                self.state(state, &key(&p, "state"), mode, actor);
            }
            if let Some(extractors) = &phase.extractors {
                self.extractors(extractors, &key(&p, "extractors"));
            }
            if let Some(actions) = &phase.on_enter {
                self.actions(actions, &key(&p, "on_enter"), actor);
            }
            if let Some(trigger) = &phase.trigger {
                self.trigger(trigger, &key(&p, "trigger"), mode);
            }
        }
    }

    pub(super) fn extractors(&mut self, extractors: &[crate::types::Extractor], path: &str) {
        // V-038
        if extractors.is_empty() {
            self.error(
                Rule::V038,
                path,
                "`extractors` must contain at least one entry",
            );
        }
        for (i, extractor) in extractors.iter().enumerate() {
            let p = idx(path, i);
            // V-037
            if !is_lower_ident(&extractor.name) {
                self.error(
                    Rule::V037,
                    key(&p, "name"),
                    format!(
                        "extractor name `{}` does not match `[a-z][a-z0-9_]*`",
                        shown(&extractor.name)
                    ),
                );
            }
            self.closed(&extractor.source, key(&p, "source"));
            self.closed(&extractor.kind, key(&p, "type"));
            let selector = key(&p, "selector");
            match extractor.kind.known() {
                Some(ExtractorType::JsonPath) => self.json_path(&extractor.selector, selector),
                Some(ExtractorType::Regex) => self.regex_extractor(&extractor.selector, selector),
                None => {}
            }
        }
    }

    /// V-015 of a `json_path` extractor's selector at `path` (W-015 when it could not be checked).
    fn json_path(&mut self, selector: &str, path: String) {
        match self.options.syntax.json_path(selector) {
            JsonPathSyntax::Invalid(e) => {
                self.error(
                    Rule::V015,
                    path,
                    format!("invalid jsonpath: {}", lower_first(&e)),
                );
            }
            // W-015: the parser was left out (D-130); say so rather than pass silently.
            JsonPathSyntax::Unchecked => self.warn(
                Rule::W015,
                path,
                "jsonpath syntax not checked: this build of oatf-model has no `jsonpath` feature (V-015)",
            ),
            _ => {}
        }
    }

    /// V-013, then V-042, of a `regex` extractor's selector at `path`.
    fn regex_extractor(&mut self, selector: &str, path: String) {
        if self.regex(selector, path.clone())
            && self.options.syntax.capture_groups(selector).unwrap_or(0) == 0
        {
            self.error(
                Rule::V042,
                path,
                "a regex extractor selector needs a capture group",
            );
        }
    }

    pub(super) fn actions(&mut self, actions: &[Action], path: &str, actor: usize) {
        // V-043
        if actions.is_empty() {
            self.error(
                Rule::V043,
                path,
                "`on_enter` must contain at least one entry",
            );
        }
        for (i, action) in actions.iter().enumerate() {
            let p = idx(path, i);
            // V-041 (spec-decisions 4: every action object)
            let n = action.action_key_count();
            if n != 1 {
                let keys: Vec<&str> = action.action_keys().collect();
                self.error(
                    Rule::V041,
                    p.clone(),
                    if n == 0 {
                        "an action must have exactly one non-`x-` key, found none".to_owned()
                    } else {
                        format!(
                            "an action must have exactly one non-`x-` key, found {}",
                            keys.join(", ")
                        )
                    },
                );
            }
            if let Some(send) = &action.send {
                self.templates_in_str(&send.method, &key(&key(&p, "send"), "method"), actor);
                if let Some(params) = &send.params {
                    self.templates(params, &key(&key(&p, "send"), "params"), actor);
                }
            }
            if let Some(log) = &action.log {
                self.templates_in_str(&log.message, &key(&key(&p, "log"), "message"), actor);
                if let Some(level) = &log.level {
                    self.closed(level, key(&key(&p, "log"), "level"));
                }
            }
            for (k, v) in &action.binding {
                self.templates(v, &key(&p, k), actor);
            }
        }
    }

    pub(super) fn trigger(
        &mut self,
        trigger: &crate::types::Trigger,
        path: &str,
        mode: Option<&str>,
    ) {
        // V-040
        if trigger.event.is_none() && trigger.after.is_none() {
            self.error(Rule::V040, path, "a trigger needs `event` or `after`");
        }
        // V-019
        if trigger.event.is_none() {
            if trigger.count.is_some() {
                self.error_at(
                    Rule::V019,
                    path,
                    &key(path, "count"),
                    "`count` is only allowed together with `event`",
                );
            }
            if trigger.match_.is_some() {
                self.error_at(
                    Rule::V019,
                    path,
                    &key(path, "match"),
                    "`match` is only allowed together with `event`",
                );
            }
        }
        // V-036
        if let Some(after) = &trigger.after
            && let Err(e) = parse_duration(after)
        {
            self.error(Rule::V036, key(path, "after"), e.to_string());
        }
        if let Some(predicate) = &trigger.match_ {
            self.predicate(predicate, &key(path, "match"));
        }
        // V-029 (a warning, spec-decisions 3)
        if let (Some(event), Some(mode)) = (&trigger.event, mode)
            && self.options.binding_warnings
            && let Some(events) = known_events(mode)
            && !events.contains(&event.as_str())
        {
            self.warn(
                Rule::V029,
                key(path, "event"),
                format!(
                    "event `{}` is not a known event of mode `{mode}`{}",
                    shown(event),
                    crate::suggest::hint(event, events.iter().copied())
                ),
            );
        }
    }

    /// V-027 keys and V-013 regexes of a match predicate.
    pub(super) fn predicate(&mut self, predicate: &MatchPredicate, path: &str) {
        for (k, condition) in predicate.entries() {
            let p = key(path, k);
            if let Err(e) = check_simple_path(k) {
                self.error(
                    Rule::V027,
                    p.clone(),
                    format!(
                        "predicate key `{}` is not a simple dot-path ({e})",
                        shown(k)
                    ),
                );
            }
            if let Condition::Match(m) = condition
                && let Some(regex) = &m.regex
            {
                self.regex(regex, key(&p, "regex"));
            }
        }
    }
}
