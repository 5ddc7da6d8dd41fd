//! What a compiled expression reads of `message` and of its variables, so that an evaluation binds
//! only those parts (docs/performance.md, issue 14 part 3).
//!
//! When an expression is compiled, its syntax tree is walked once. A chain of field selections and
//! constant string indexes rooted at a bound identifier (`message.arguments.command`,
//! `message["arguments"].command`) reads the subtree at that path; any other use of a chain (passed to
//! a function or operator, compared, iterated by a comprehension, `has()` on it, indexed with a
//! non-constant or non-string key, or the identifier alone) needs that whole subtree. At evaluation
//! [`ReadSet::bind`] converts only the needed subtrees: an object on the way to a needed path becomes a
//! map holding just the needed keys that are present (an absent key stays absent, so `no such key` and
//! `has()` behave as with the whole message); any other value, and every subtree needed whole, is
//! converted whole. Reading more than needed is always safe, so every form not recognised here falls
//! back to converting the whole subtree (or root).

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelMap, CelMapKey, CelString};
use cel::common::value::Val;
use oatf_eval::{EvaluationError, EvaluationErrorKind as Kind};
use serde_json::Value;

use crate::convert::{MAX_MESSAGE_DEPTH, nests_deeper, to_cel};

/// The parts of one bound value an expression reads: a trie of object keys.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Needs {
    /// The whole value is needed (its children are then irrelevant).
    whole: bool,
    /// The keys read below this value, in the order first seen.
    keys: Vec<(String, Needs)>,
}

impl Needs {
    fn add(&mut self, path: &[&str]) {
        let mut node = self;
        for key in path {
            if node.whole {
                return;
            }
            let at = match node.keys.iter().position(|(k, _)| k == key) {
                Some(at) => at,
                None => {
                    node.keys.push(((*key).to_owned(), Needs::default()));
                    node.keys.len() - 1
                }
            };
            node = &mut node.keys[at].1;
        }
        node.whole = true;
        node.keys.clear();
    }

    /// Whether the whole value is needed.
    #[cfg(test)]
    pub(crate) fn is_whole(&self) -> bool {
        self.whole
    }

    /// The paths needed, each as dot-joined keys (`*` marking a whole subtree), for tests.
    #[cfg(test)]
    pub(crate) fn paths(&self) -> Vec<String> {
        fn walk(node: &Needs, prefix: &str, out: &mut Vec<String>) {
            if node.whole {
                out.push(format!("{prefix}*"));
            }
            for (key, child) in &node.keys {
                walk(child, &format!("{prefix}{key}."), out);
            }
        }
        let mut out = Vec::new();
        walk(self, "", &mut out);
        out.sort();
        out
    }

    /// Whether `key` is read below this value.
    fn reads(&self, key: &str) -> bool {
        self.keys.iter().any(|(k, _)| k == key)
    }

    /// The CEL value of `value` holding only what is needed.
    fn bind<'v>(
        &self,
        value: &'v Value,
        depth: usize,
    ) -> Result<Box<dyn Val + 'v>, EvaluationError> {
        let map = match value {
            Value::Object(map) if !self.whole => map,
            _ => return to_cel(value, depth),
        };
        if depth > MAX_MESSAGE_DEPTH {
            return Err(too_deep());
        }
        let mut out = HashMap::with_capacity(self.keys.len());
        for (key, needs) in &self.keys {
            if let Some((key, item)) = map.get_key_value(key.as_str()) {
                out.insert(
                    CelMapKey::String(CelString::from(key.as_str())),
                    needs.bind(item, depth + 1)?,
                );
            }
        }
        // The depth bound applies to the whole message, read or not, as with the whole binding
        // (docs/input-safety.md): the unread values are walked, without converting them.
        if out.len() < map.len()
            && map
                .iter()
                .any(|(key, item)| !self.reads(key) && nests_deeper(item, depth + 1))
        {
            return Err(too_deep());
        }
        Ok(Box::new(CelMap::from(out)))
    }
}

/// The error of a message nested deeper than [`MAX_MESSAGE_DEPTH`] (the one of [`to_cel`]).
fn too_deep() -> EvaluationError {
    EvaluationError::new(
        Kind::CelError,
        format!("the message nests deeper than {MAX_MESSAGE_DEPTH} levels"),
    )
}

/// What an expression reads of each bound root (`message` and the declared variables).
#[derive(Debug, Clone)]
pub(crate) struct ReadSet {
    roots: Vec<(String, Needs)>,
}

impl ReadSet {
    /// Walks `expr` once and records what it reads of each of `roots`.
    pub(crate) fn of(expr: &IdedExpr, roots: &[&str]) -> ReadSet {
        let mut set = ReadSet {
            roots: roots
                .iter()
                .map(|r| ((*r).to_owned(), Needs::default()))
                .collect(),
        };
        let mut stack = vec![expr];
        while let Some(node) = stack.pop() {
            set.visit(node, &mut stack);
        }
        set
    }

    /// What is read of `root` (nothing if the expression never names it).
    pub(crate) fn needs(&self, root: &str) -> Option<&Needs> {
        self.roots.iter().find(|(r, _)| r == root).map(|(_, n)| n)
    }

    /// The CEL value of `value` bound as `root`, holding only what the expression reads.
    pub(crate) fn bind<'v>(
        &self,
        root: &str,
        value: &'v Value,
    ) -> Result<Box<dyn Val + 'v>, EvaluationError> {
        match self.needs(root) {
            Some(needs) => needs.bind(value, 0),
            None => to_cel(value, 0),
        }
    }

    fn need(&mut self, root: &str, path: &[&str]) {
        if let Some((_, needs)) = self.roots.iter_mut().find(|(r, _)| r == root) {
            needs.add(path);
        }
    }

    fn visit<'e>(&mut self, node: &'e IdedExpr, stack: &mut Vec<&'e IdedExpr>) {
        if let Some((root, path)) = chain(node) {
            // A chain used as a value: its subtree is needed whole.
            self.need(root, &path);
            return;
        }
        match &node.expr {
            Expr::Select(select) => {
                if let (true, Some((root, mut path))) = (select.test, chain(&select.operand)) {
                    // `has(x.f)`: whether `f` is present in `x`, so `x.f` is kept when present.
                    path.push(select.field.as_str());
                    self.need(root, &path);
                } else {
                    stack.push(&select.operand);
                }
            }
            Expr::Call(call) => {
                stack.extend(call.target.as_deref());
                stack.extend(call.args.iter());
            }
            Expr::Comprehension(c) => stack.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ]),
            Expr::List(list) => stack.extend(list.elements.iter()),
            Expr::Map(map) => push_entries(stack, &map.entries),
            Expr::Struct(s) => push_entries(stack, &s.entries),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
}

fn push_entries<'e>(stack: &mut Vec<&'e IdedExpr>, entries: &'e [cel::common::ast::IdedEntryExpr]) {
    for entry in entries {
        match &entry.expr {
            EntryExpr::StructField(field) => stack.push(&field.value),
            EntryExpr::MapEntry(e) => stack.extend([&e.key, &e.value]),
        }
    }
}

/// The root identifier and key path of a chain of selections and constant string indexes
/// (`message.a["b"].c` → `message`, `[a, b, c]`), or `None` if `expr` is not such a chain.
fn chain(expr: &IdedExpr) -> Option<(&str, Vec<&str>)> {
    let mut keys = Vec::new();
    let mut node = expr;
    loop {
        match &node.expr {
            Expr::Ident(name) => {
                keys.reverse();
                return Some((name.as_str(), keys));
            }
            Expr::Select(select) if !select.test => {
                keys.push(select.field.as_str());
                node = &select.operand;
            }
            Expr::Call(call)
                if call.func_name == cel::common::ast::operators::INDEX
                    && call.target.is_none()
                    && call.args.len() == 2 =>
            {
                match &call.args[1].expr {
                    Expr::Literal(LiteralValue::String(key)) => {
                        keys.push(key.inner());
                        node = &call.args[0];
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::CelEngine;
    use crate::program::Binding;

    /// The read set of `expression` for `message` and the variables `v` and `w`.
    fn reads(expression: &str) -> ReadSet {
        let program = CelEngine::new()
            .compile_program(expression, &["v", "w"])
            .expect("compiles");
        program.reads
    }

    fn paths(expression: &str, root: &str) -> Vec<String> {
        reads(expression)
            .needs(root)
            .map(Needs::paths)
            .unwrap_or_default()
    }

    #[test]
    fn selection_chains_read_only_their_path() {
        assert_eq!(
            paths("message.arguments.command == 'x'", "message"),
            ["arguments.command.*"]
        );
        assert_eq!(
            paths(
                "message.a.b == 1 && message.a.c == 2 && message.d > 0",
                "message"
            ),
            ["a.b.*", "a.c.*", "d.*"]
        );
        assert_eq!(
            paths("message['arguments'][\"cmd\"].x == 1", "message"),
            ["arguments.cmd.x.*"]
        );
        // A key needed whole swallows the deeper paths below it, in either order.
        assert_eq!(
            paths("message.a == {} || message.a.b == 1", "message"),
            ["a.*"]
        );
        assert_eq!(
            paths("message.a.b == 1 || message.a == {}", "message"),
            ["a.*"]
        );
        // Variables are analysed like `message`.
        assert_eq!(paths("v.x == 1 && w == 2", "v"), ["x.*"]);
        assert_eq!(paths("v.x == 1 && w == 2", "w"), ["*"]);
        // A root the expression never names is read not at all.
        assert_eq!(paths("message.a == 1", "v"), Vec::<String>::new());
        assert!(
            !reads("message.a == 1")
                .needs("message")
                .is_some_and(Needs::is_whole)
        );
    }

    #[test]
    fn other_uses_fall_back_to_the_whole_prefix() {
        // The root alone, passed to a function, iterated, or tested with `in`.
        assert_eq!(paths("size(message) > 0", "message"), ["*"]);
        assert_eq!(paths("message == {}", "message"), ["*"]);
        assert_eq!(paths("'a' in message", "message"), ["*"]);
        assert_eq!(
            paths("message.tools.exists(t, t.name == 'x')", "message"),
            ["tools.*"]
        );
        assert_eq!(
            paths("message.tools.all(t, t.a.b == 1)", "message"),
            ["tools.*"]
        );
        assert_eq!(paths("message.s.startsWith('x')", "message"), ["s.*"]);
        // Dynamic and non-string indexes read the whole indexed value.
        assert_eq!(
            paths("message.a[message.k] == 1", "message"),
            ["a.*", "k.*"]
        );
        assert_eq!(
            paths("message.items[0].name == 'x'", "message"),
            ["items.*"]
        );
        assert_eq!(paths("message.m[1u] == 1", "message"), ["m.*"]);
        // `has()` keeps the tested key (present or absent), not its parent whole.
        assert_eq!(paths("has(message.a.b)", "message"), ["a.b.*"]);
        assert_eq!(paths("has(message.a)", "message"), ["a.*"]);
        // A selection on a computed value reads whatever the computation reads.
        assert_eq!(paths("[message.a][0].b == 1", "message"), ["a.*"]);
        assert_eq!(
            paths("(message.a + message.b).c == 1", "message"),
            ["a.*", "b.*"]
        );
        // A comprehension variable that shadows `message` only adds reads (safe).
        assert_eq!(
            paths(
                "[{'x': 1}].exists(message, message.x == 1) && message.y == 2",
                "message"
            ),
            ["x.*", "y.*"]
        );
    }

    /// Whole and pruned bindings give the same result, or the same error kind and message.
    #[track_caller]
    fn same(expression: &str, variables: &[&str], message: &Value, bound: &[(&str, &Value)]) {
        let program = CelEngine::new()
            .compile_program(expression, variables)
            .expect("compiles");
        let whole = program.run_bound(message, bound, Binding::Whole);
        let pruned = program.run_bound(message, bound, Binding::Pruned);
        let outcome =
            |r: Result<bool, EvaluationError>| r.map_err(|e| (e.kind(), e.message().to_owned()));
        assert_eq!(outcome(whole), outcome(pruned), "{expression} on {message}");
    }

    fn resolve<'v>(message: &'v Value, path: &str) -> Option<&'v Value> {
        if path.is_empty() {
            return Some(message);
        }
        path.split('.').try_fold(message, |v, k| v.get(k))
    }

    #[test]
    fn pruned_binding_matches_the_whole_one_on_the_conformance_cases() {
        let text = include_str!("../../../conformance/evaluate/expression.yaml");
        let cases: Vec<Value> = serde_saphyr::from_str(text).expect("the corpus parses");
        let mut compared = 0;
        for case in &cases {
            let input = &case["input"];
            let Some(cel) = input["indicator"]["expression"]["cel"].as_str() else {
                continue;
            };
            let empty = serde_json::Map::new();
            let declared = input["indicator"]["expression"]["variables"]
                .as_object()
                .unwrap_or(&empty);
            let names: Vec<&str> = declared.keys().map(String::as_str).collect();
            let message = &input["message"];
            let bound: Vec<(&str, &Value)> = declared
                .iter()
                .filter_map(|(n, p)| Some((n.as_str(), resolve(message, p.as_str()?)?)))
                .collect();
            if CelEngine::new().compile_program(cel, &names).is_err() {
                continue;
            }
            same(cel, &names, message, &bound);
            compared += 1;
        }
        assert!(
            compared >= 25,
            "only {compared} conformance expressions compared"
        );
    }

    #[test]
    fn pruned_binding_matches_the_whole_one_on_generated_messages() {
        let expressions = [
            "message.arguments.command == 'rm -rf /'",
            "message.arguments.command.contains('rm')",
            "message.arguments['command'].startsWith('r')",
            "has(message.arguments.command)",
            "has(message.arguments)",
            "has(message.arguments.command) && message.arguments.command.size() > 2",
            "message.tools.exists(t, t.name == 'exec')",
            "message.tools.all(t, has(t.name))",
            "size(message.tools) > 1",
            "message.tools[0].name == 'exec'",
            "message.a.b.c == 1",
            "message.a.b == {'c': 1}",
            "message.a == {'b': {'c': 1}}",
            "size(message.a) == 1",
            "'b' in message.a",
            "message.a.b.c + 1 == 2",
            "message.count > 3 || message.arguments.command == 'x'",
            "message.arguments[message.key] == 'x'",
            "message.items.map(i, i.v).filter(v, v > 1).size() == 1",
            "message == {'count': 5}",
            "size(message) == 3",
            "message.name.matches('^ex')",
            "message.arguments.command == 'x' && v.x == 1",
            "v.x == 1 || has(w.y)",
            "message.arguments.nested.deep.x == null",
            "type(message.arguments) == map",
            "string(message.count) == '5'",
        ];
        let messages = [
            json!({}),
            json!(null),
            json!("text"),
            json!([1, 2]),
            json!({"arguments": {"command": "rm -rf /", "other": "x"}, "name": "exec", "count": 5}),
            json!({"arguments": {"command": 7}, "count": "5"}),
            json!({"arguments": "not a map", "key": "command"}),
            json!({"arguments": {"command": "x", "nested": {"deep": {"x": null}}}, "key": "command"}),
            json!({"arguments": null}),
            json!({"tools": [{"name": "exec"}, {"name": "read"}], "count": 5}),
            json!({"tools": [{"title": "exec"}], "a": {"b": {"c": 1}}}),
            json!({"tools": {"name": "exec"}, "a": {"b": {"c": 1, "d": 2}, "e": 3}}),
            json!({"a": {"b": [1]}, "items": [{"v": 1}, {"v": 2}, {"w": 3}]}),
            json!({"a": {"b": {"c": 0.5}}, "count": 5}),
            json!({"count": 5}),
            json!({"name": 3, "count": 18446744073709551615u64}),
        ];
        let variables = [
            json!({"x": 1, "y": 2}),
            json!({"y": null}),
            json!("v"),
            json!(null),
        ];
        for expression in expressions {
            for message in &messages {
                same(expression, &[], message, &[]);
                for v in &variables {
                    for w in &variables {
                        same(expression, &["v", "w"], message, &[("v", v), ("w", w)]);
                    }
                }
                // A declared variable the caller did not bind is `null` on both paths.
                same(expression, &["v", "w"], message, &[("v", message)]);
            }
        }
    }

    #[test]
    fn the_depth_bound_covers_unread_parts() {
        let deep = |n: usize| {
            let mut value = json!("leaf");
            for _ in 0..n {
                value = json!({ "d": value });
            }
            value
        };
        for n in [127, 128, 129, 200] {
            let message = json!({"a": {"b": 1, "unread": deep(n)}, "other": deep(n)});
            for expression in ["message.a.b == 1", "has(message.a.c)", "true"] {
                same(expression, &[], &message, &[]);
            }
        }
        let message = json!({"a": {"b": 1}, "other": deep(200)});
        let program = CelEngine::new()
            .compile_program("message.a.b == 1", &[])
            .expect("compiles");
        assert_eq!(
            program
                .run_bound(&message, &[], Binding::Pruned)
                .map_err(|e| e.message().to_owned()),
            Err("the message nests deeper than 128 levels".to_owned())
        );
    }

    #[test]
    fn unread_parts_are_not_bound() {
        // The binding of a read set holds only the read keys (what makes it cheaper).
        let set = reads("message.a.b == 1");
        let message = json!({"a": {"b": 1, "big": "x"}, "other": [1, 2, 3]});
        let bound = set.bind("message", &message).expect("binds");
        let map = bound.downcast_ref::<CelMap<'_>>().expect("a map");
        assert_eq!(map.len(), 1);
    }
}
