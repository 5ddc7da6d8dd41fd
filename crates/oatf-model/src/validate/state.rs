//! Checks of pass-through state: dispatch lists (V-027, V-033, W-006), closed binding values (V-005,
//! spec-decisions 5) and templates (V-016, V-032, W-004).

use super::*;

impl Validator<'_> {
    /// Checks of a pass-through state value: dispatch lists (V-027, V-033, V-013, W-006), closed
    /// binding values (V-005, spec-decisions 5) and templates (V-016, V-032, W-004).
    pub(super) fn state(&mut self, state: &Value, path: &str, _mode: Option<&str>, actor: usize) {
        let Some(object) = state.as_object() else {
            self.error(Rule::V009, path, "`state` must be a mapping");
            return;
        };
        for (list_path, entries) in dispatch_lists(state, path) {
            let mut fallback = false;
            for (i, entry) in entries.iter().enumerate() {
                let p = idx(&list_path, i);
                let when = entry.get("when").filter(|w| !w.is_null());
                match when {
                    None => {
                        // V-033
                        if fallback {
                            self.error_at(
                                Rule::V033,
                                list_path.clone(),
                                &p,
                                format!("only one response entry may omit `when`, but `{p}` is a second one"),
                            );
                        }
                        fallback = true;
                    }
                    Some(w) => match MatchPredicate::from_value(w.clone()) {
                        Ok(predicate) => self.predicate(&predicate, &key(&p, "when")),
                        Err(e) => self.error(
                            Rule::V027,
                            key(&p, "when"),
                            format!("invalid match predicate: {}", e.message()),
                        ),
                    },
                }
                // W-006
                if entry.get("synthesize").is_some_and(|s| !s.is_null()) {
                    self.warn(
                        Rule::W006,
                        key(&p, "synthesize"),
                        "`synthesize` is reserved for a future version and has no effect in v0.1",
                    );
                }
                // V-005 (spec-decisions 5)
                if list_path.ends_with("elicitation_responses")
                    && let Some(action) = entry.get("action").and_then(Value::as_str)
                {
                    self.closed(
                        &Closed::<ElicitationAction>::from_name(action),
                        key(&p, "action"),
                    );
                }
            }
        }
        if let Some(Value::Array(elicitations)) = object.get("elicitations") {
            for (i, e) in elicitations.iter().enumerate() {
                let p = idx(&key(path, "elicitations"), i);
                if let Some(mode) = e.get("mode").and_then(Value::as_str) {
                    self.closed(&Closed::<ElicitationMode>::from_name(mode), key(&p, "mode"));
                }
                if let Some(w) = e.get("when").filter(|w| !w.is_null()) {
                    match MatchPredicate::from_value(w.clone()) {
                        Ok(predicate) => self.predicate(&predicate, &key(&p, "when")),
                        Err(err) => self.error(
                            Rule::V027,
                            key(&p, "when"),
                            format!("invalid match predicate: {}", err.message()),
                        ),
                    }
                }
            }
        }
        if let Some(rai) = object.get("run_agent_input")
            && rai.get("synthesize").is_some_and(|s| !s.is_null())
        {
            self.warn(
                Rule::W006,
                key(&key(path, "run_agent_input"), "synthesize"),
                "`synthesize` is reserved for a future version and has no effect in v0.1",
            );
        }
        self.templates(state, path, actor);
    }

    /// Template checks over every string of a value (bounded, iterative).
    pub(super) fn templates(&mut self, value: &Value, path: &str, actor: usize) {
        let mut stack: Vec<(String, &Value, usize)> = vec![(path.to_owned(), value, 0)];
        while let Some((p, v, depth)) = stack.pop() {
            match v {
                Value::String(s) => self.templates_in_str(s, &p, actor),
                Value::Array(items) if depth < 256 => {
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push((idx(&p, i), item, depth + 1));
                    }
                }
                Value::Object(map) if depth < 256 => {
                    let children: Vec<_> = map.iter().collect();
                    for (k, item) in children.into_iter().rev() {
                        stack.push((key(&p, k), item, depth + 1));
                    }
                }
                _ => {}
            }
        }
    }

    pub(super) fn templates_in_str(&mut self, s: &str, path: &str, actor: usize) {
        if !s.contains("{{") {
            return;
        }
        for reference in template_refs(s) {
            match reference {
                TemplateRef::Malformed(why) => self.error(Rule::V016, path, why),
                TemplateRef::Name(name) => self.template_name(name, path, actor),
            }
        }
    }

    pub(super) fn template_name(&mut self, name: &str, path: &str, actor: usize) {
        if name == "request"
            || name == "response"
            || name.starts_with("request.")
            || name.starts_with("response.")
        {
            return;
        }
        match name.split_once('.') {
            Some((actor_name, extractor)) => {
                // V-032
                match self.actors.iter().find(|a| a.name == actor_name) {
                    None => self.error(
                        Rule::V032,
                        path,
                        format!("template `{{{{{}}}}}` references unknown actor `{}`", shown(name), shown(actor_name)),
                    ),
                    Some(a) if !a.extractors.contains(extractor) => self.warn(
                        Rule::W004,
                        path,
                        format!("template `{{{{{}}}}}` references an extractor actor `{}` does not define", shown(name), shown(actor_name)),
                    ),
                    Some(_) => {}
                }
            }
            None => {
                // W-004 (a)
                let known = self
                    .actors
                    .get(actor)
                    .is_some_and(|a| a.extractors.contains(name));
                if !known {
                    self.warn(
                        Rule::W004,
                        path,
                        format!(
                            "template `{{{{{}}}}}` references an undefined extractor",
                            shown(name)
                        ),
                    );
                }
            }
        }
    }
}
