//! `cargo xtask format-doc`: builds the two generated format references from their sources, or with
//! `--check` fails when the committed copies differ from what would be generated.
//!
//! - `schema/oatf-v0.1.json`, the document JSON Schema that `oatf schema` prints, is the upstream OATF v0.1
//!   schema (vendored in `third_party/oatf-spec/schemas/v0.1.json`) plus what the project's decisions add
//!   ([`build_schema`]).
//! - `docs/format.md` is rendered from that schema and the rules table `schema/rules.json` (which rule checks
//!   which field, and how much of it the schema enforces) ([`render_format_doc`]).
//!
//! The unit tests below run the check under `cargo test`, so neither file can drift from its sources.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Map, Value, json};

/// The upstream schema, as vendored.
pub(crate) const UPSTREAM_SCHEMA: &str = "third_party/oatf-spec/schemas/v0.1.json";
/// Our schema, generated.
pub(crate) const SCHEMA: &str = "schema/oatf-v0.1.json";
/// The rules table, written by hand.
pub(crate) const RULES: &str = "schema/rules.json";
/// The format reference, generated.
pub(crate) const FORMAT_DOC: &str = "docs/format.md";

/// Where our schema is published (the repository's copy on its main branch).
const SCHEMA_ID: &str = "https://raw.githubusercontent.com/oatf-rs/oatf/main/schema/oatf-v0.1.json";

/// Runs the task with its arguments (after `format-doc`); returns success.
pub(crate) fn format_doc(args: &[String]) -> bool {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => {
            eprintln!("usage: cargo xtask format-doc [--check]");
            return false;
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let generated = match generate(&root) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("format-doc: {message}");
            return false;
        }
    };
    let mut ok = true;
    for (path, text) in generated {
        let current = fs::read_to_string(root.join(path)).unwrap_or_default();
        if current == text {
            println!("up to date: {path}");
        } else if check {
            println!("stale:      {path} (run `cargo xtask format-doc`)");
            ok = false;
        } else if let Err(e) = fs::write(root.join(path), text) {
            eprintln!("format-doc: cannot write {path}: {e}");
            ok = false;
        } else {
            println!("written:    {path}");
        }
    }
    ok
}

/// The generated files, `(path relative to the workspace root, contents)`.
pub(crate) fn generate(root: &Path) -> Result<Vec<(&'static str, String)>, String> {
    let upstream = read_json(&root.join(UPSTREAM_SCHEMA))?;
    let rules = read_json(&root.join(RULES))?;
    check_rules_against_table(&rules)?;
    let schema = build_schema(upstream)?;
    let doc = render_format_doc(&schema, &rules)?;
    let schema_text = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())? + "\n";
    Ok(vec![(SCHEMA, schema_text), (FORMAT_DOC, doc)])
}

/// `schema/rules.json` adds to each rule the fields it checks and how much of it the schema enforces;
/// the rules themselves (ids, order, text) are owned by `oatf_model::Rule`, and must be the same here.
fn check_rules_against_table(rules: &Value) -> Result<(), String> {
    let listed = rules["rules"]
        .as_array()
        .ok_or("schema/rules.json has no `rules` list")?;
    let ids: Vec<&str> = listed.iter().filter_map(|r| r["id"].as_str()).collect();
    let owned: Vec<&str> = oatf_model::Rule::ALL.iter().map(|r| r.id()).collect();
    if ids != owned {
        return Err(format!(
            "{RULES} lists the rules {ids:?}, but oatf_model::Rule (crates/oatf-model/src/rules.rs) has {owned:?}: \
             the same ids, in the same order"
        ));
    }
    for (entry, rule) in listed.iter().zip(oatf_model::Rule::ALL) {
        if entry["check"].as_str() != Some(rule.text()) {
            return Err(format!(
                "{RULES}: the `check` of {rule} differs from its text in crates/oatf-model/src/rules.rs"
            ));
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// The upstream schema plus the project's additions:
/// - its `$id` is where this copy is published, and its description says whose copy it is;
/// - spec-decisions item 5: V-005 reaches into binding state, where a binding defines a closed set
///   (`elicitation_responses[].action`, `elicitations[].mode`); both `state` fields refer to `BindingState`,
///   which constrains those two values only, whatever the rest of the state holds.
fn build_schema(mut schema: Value) -> Result<Value, String> {
    let root = schema
        .as_object_mut()
        .ok_or("the upstream schema is not an object")?;
    root.insert("$id".into(), json!(SCHEMA_ID));
    let description = root
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    root.insert(
        "description".into(),
        json!(format!(
            "{description} This is the copy shipped by the oatf Rust SDK (`oatf schema` prints it): the OATF v0.1 \
             schema with the project's decisions; `oatf validate` also checks the rules a schema cannot express \
             (docs/format.md lists them)."
        )),
    );
    let defs = root
        .get_mut("$defs")
        .and_then(Value::as_object_mut)
        .ok_or("the upstream schema has no $defs")?;
    defs.insert(
        "BindingState".into(),
        json!({
            "description": "Protocol state, defined by the protocol binding of the mode (format §7) and passed \
                            through as written. The closed sets a binding defines are checked (spec-decisions item 5, \
                            V-005): the `action` of each `elicitation_responses` entry and the `mode` of each \
                            `elicitations` entry.",
            "properties": {
                "elicitation_responses": {
                    "description": "MCP binding: how the client answers the server's elicitation requests. \
                                    When a list of mappings, each entry's `action` is one of accept, decline, cancel.",
                    "items": { "properties": { "action": { "enum": ["accept", "decline", "cancel"] } } }
                },
                "elicitations": {
                    "description": "MCP binding: elicitation requests the server sends. When a list of mappings, \
                                    each entry's `mode` is one of form, url.",
                    "items": { "properties": { "mode": { "enum": ["form", "url"] } } }
                }
            }
        }),
    );
    for (def, property) in [("Phase", "state"), ("ExecutionProfile", "state")] {
        let state = defs
            .get_mut(def)
            .and_then(|d| d.get_mut("properties"))
            .and_then(|p| p.get_mut(property))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| format!("the upstream schema has no {def}.{property}"))?;
        state.insert("$ref".into(), json!("#/$defs/BindingState"));
    }
    Ok(schema)
}

/// One section of the reference: an object type and the name its fields are known by in the rules table.
struct Section<'a> {
    name: String,
    schema: &'a Value,
}

/// `docs/format.md`: one table per object type (every field with its type, whether it is required, its
/// default, its allowed values and the rules that check it), a table of the value types, and the rules.
fn render_format_doc(schema: &Value, rules: &Value) -> Result<String, String> {
    let defs = schema["$defs"]
        .as_object()
        .ok_or("the schema has no $defs")?;
    let rules = rules["rules"]
        .as_array()
        .ok_or("schema/rules.json has no `rules` list")?;

    // Object types in the order a reader meets them from the root (breadth first), then any others;
    // types without fields of their own go to the value types table.
    let mut order: Vec<&str> = Vec::new();
    let mut queue: Vec<&Value> = vec![schema];
    while !queue.is_empty() {
        let current = queue.remove(0);
        let mut found = Vec::new();
        refs(current, &mut found);
        for name in found {
            if !order.contains(&name)
                && let Some(def) = defs.get(name)
            {
                order.push(name);
                queue.push(def);
            }
        }
    }
    order.extend(
        defs.keys()
            .map(String::as_str)
            .filter(|k| !order.contains(k))
            .collect::<Vec<_>>(),
    );
    let mut sections = vec![Section {
        name: "Document".into(),
        schema,
    }];
    let mut scalars = Vec::new();
    for name in order {
        let def = &defs[name];
        if properties(def).is_empty() {
            scalars.push((name, def));
        } else {
            sections.push(Section {
                name: name.to_owned(),
                schema: def,
            });
        }
    }
    // Inline objects (`Attack.correlation`, `Action.send`) get sections of their own, after their parent.
    let mut i = 0;
    while i < sections.len() {
        let inline: Vec<Section<'_>> = properties(sections[i].schema)
            .into_iter()
            .filter(|(_, p)| p.get("$ref").is_none() && !properties(p).is_empty())
            .map(|(field, p)| Section {
                name: format!("{}.{field}", sections[i].name),
                schema: p,
            })
            .collect();
        let at = i + 1;
        sections.splice(at..at, inline);
        i += 1;
    }

    // Every rule names fields that exist, with a known schema coverage.
    let mut fields_by_rule: Vec<(String, Vec<String>, String, String)> = Vec::new();
    let known: Vec<String> = sections
        .iter()
        .flat_map(|s| {
            properties(s.schema)
                .into_iter()
                .map(move |(f, _)| format!("{}.{f}", s.name))
        })
        .collect();
    for rule in rules {
        let id = rule["id"]
            .as_str()
            .ok_or("a rule without an `id`")?
            .to_owned();
        let check = rule["check"]
            .as_str()
            .ok_or_else(|| format!("{id} has no `check`"))?
            .to_owned();
        let coverage = rule["schema"].as_str().unwrap_or_default().to_owned();
        if !["full", "partial", "none"].contains(&coverage.as_str()) {
            return Err(format!("{id}: `schema` must be full, partial or none"));
        }
        let fields: Vec<String> = rule["fields"]
            .as_array()
            .ok_or_else(|| format!("{id} has no `fields`"))?
            .iter()
            .map(|f| f.as_str().unwrap_or_default().to_owned())
            .collect();
        for field in &fields {
            if !known.contains(field) {
                return Err(format!(
                    "{id} names the field `{field}`, which the schema does not have"
                ));
            }
        }
        if fields_by_rule.iter().any(|(other, ..)| *other == id) {
            return Err(format!("{id} is listed twice in {RULES}"));
        }
        fields_by_rule.push((id, fields, coverage, check));
    }
    let rules_of = |field: &str| -> String {
        let ids: Vec<String> = fields_by_rule
            .iter()
            .filter(|(_, fields, ..)| fields.iter().any(|f| f == field))
            .map(|(id, ..)| format!("[{id}](#{})", id.to_lowercase()))
            .collect();
        ids.join(", ")
    };

    let mut out = String::new();
    out.push_str(
        "<!-- Generated by `cargo xtask format-doc` from schema/oatf-v0.1.json and schema/rules.json: edit those, \
         not this file. -->\n\n",
    );
    out.push_str("# OATF document format reference (v0.1)\n\n");
    out.push_str(
        "Every field of an OATF document: its type, whether it is required, its default, the values it allows \
         and the rules (V- errors, W- warnings) that `oatf validate` checks it with.\n\
         The same facts as a JSON Schema, for editors and other tools: `oatf schema` prints it \
         ([schema/oatf-v0.1.json](../schema/oatf-v0.1.json)); [the guide](guide.md#editor-support) says how to \
         get completion and hover in an editor.\n\
         The schema checks types, required fields, allowed values and patterns; the rules that need more (unique \
         ids, regular expressions that compile, references between actors) are `oatf validate`'s, and the \
         last column of [Rules](#rules) says which is which.\n\
         Keys beginning with `x-` are extensions, allowed wherever the table says so, and kept as written.\n\n",
    );
    out.push_str("## Object types\n\n");
    for section in &sections {
        let _ = writeln!(out, "### {}\n", section.name);
        if let Some(description) = section.schema.get("description").and_then(Value::as_str) {
            let _ = writeln!(out, "{}\n", one_line(description));
        }
        let required = required(section.schema);
        let dependent = section
            .schema
            .get("dependentRequired")
            .and_then(Value::as_object);
        out.push_str(
            "| Field | Type | Required | Default | Allowed values | Rules | Description |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|\n");
        let alternatives = alternatives(section.schema);
        for (field, property) in properties(section.schema) {
            let mut needed = if required.contains(&field) {
                "yes".to_owned()
            } else if let Some((how, names)) = alternatives
                .as_ref()
                .filter(|(_, names)| names.contains(&field))
            {
                if names.len() == properties(section.schema).len() {
                    format!("{how} the fields of this table")
                } else {
                    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                    format!("{how} {}", names.join(", "))
                }
            } else {
                "no".to_owned()
            };
            if let Some(needs) = dependent
                .and_then(|d| d.get(field))
                .and_then(Value::as_array)
            {
                let names: Vec<String> = needs
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|n| format!("`{n}`"))
                    .collect();
                let _ = write!(needed, "; needs {}", names.join(", "));
            }
            let default = property
                .get("default")
                .map(|d| format!("`{}`", plain(d)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{field}` | {} | {needed} | {default} | {} | {} | {} |",
                type_of(property, &section.name, field),
                cell(&allowed(property)),
                rules_of(&format!("{}.{field}", section.name)),
                cell(
                    property
                        .get("description")
                        .or_else(|| {
                            // A reference without a description of its own: the referenced type's.
                            let name = property.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
                            defs.get(name)?.get("description")
                        })
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                ),
            );
        }
        let extensions = section
            .schema
            .get("patternProperties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key("^x-"));
        let closed = section.schema.get("additionalProperties") == Some(&Value::Bool(false));
        let _ = writeln!(
            out,
            "\n{}\n",
            match (closed, extensions) {
                (true, true) => "Other keys: only `x-` extensions.",
                (true, false) => "Other keys: none.",
                (false, _) => "Other keys: allowed.",
            }
        );
    }
    out.push_str(
        "## Value types\n\n| Type | Base | Allowed values | Description |\n|---|---|---|---|\n",
    );
    for (name, def) in &scalars {
        let base = def.get("type").and_then(Value::as_str).unwrap_or("any");
        let _ = writeln!(
            out,
            "| <a id=\"{}\"></a>`{name}` | {base} | {} | {} |",
            name.to_lowercase(),
            cell(&allowed(def)),
            cell(
                def.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            ),
        );
    }
    out.push_str(
        "\n## Rules\n\n\
         The schema column says whether the JSON Schema rejects what the rule rejects: yes (every such document), \
         partly, or no (only `oatf validate` checks it).\n\n\
         | Rule | Fields | Schema | Check |\n|---|---|---|---|\n",
    );
    for (id, fields, coverage, check) in &fields_by_rule {
        let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
        let coverage = match coverage.as_str() {
            "full" => "yes",
            "partial" => "partly",
            _ => "no",
        };
        let _ = writeln!(
            out,
            "| <a id=\"{}\"></a>{id} | {} | {coverage} | {} |",
            id.to_lowercase(),
            fields.join(", "),
            cell(check)
        );
    }
    Ok(out)
}

/// The names of the `$defs` a schema refers to, in the order they appear, without descending into `$defs`.
fn refs<'a>(schema: &'a Value, out: &mut Vec<&'a str>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "$ref" {
                    if let Some(name) = value.as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
                        out.push(name);
                    }
                } else if key != "$defs" {
                    refs(value, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// The properties of an object schema, those of its `oneOf`/`anyOf` branches included, in order.
fn properties(schema: &Value) -> Vec<(&str, &Value)> {
    let mut maps: Vec<&Map<String, Value>> = Vec::new();
    maps.extend(schema.get("properties").and_then(Value::as_object));
    for key in ["oneOf", "anyOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            maps.extend(branch.get("properties").and_then(Value::as_object));
        }
    }
    let mut out: Vec<(&str, &Value)> = Vec::new();
    for (k, v) in maps.into_iter().flatten() {
        if !out.iter().any(|(name, _)| name == k) {
            out.push((k.as_str(), v));
        }
    }
    out
}

/// Fields of which the object needs exactly one (`oneOf`) or at least one (`anyOf`), when every branch of
/// the combinator requires a single field: `("exactly one of", [pattern, expression, semantic])`.
fn alternatives(schema: &Value) -> Option<(&'static str, Vec<&str>)> {
    for (key, how) in [("oneOf", "exactly one of"), ("anyOf", "at least one of")] {
        let Some(branches) = schema.get(key).and_then(Value::as_array) else {
            continue;
        };
        let names: Option<Vec<&str>> = branches
            .iter()
            .map(|b| match required(b).as_slice() {
                [one] => Some(*one),
                _ => None,
            })
            .collect();
        if let Some(names) = names.filter(|n| n.len() > 1) {
            return Some((how, names));
        }
    }
    None
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The type of a field, with links to the sections of referenced and inline types.
fn type_of(schema: &Value, parent: &str, field: &str) -> String {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or(target);
        return format!("[{name}](#{})", name.to_lowercase());
    }
    if let Some(value) = schema.get("const") {
        return format!("`{value}`");
    }
    if !properties(schema).is_empty() {
        let name = format!("{parent}.{field}");
        return format!("[object](#{})", name.to_lowercase().replace('.', ""));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let mut kinds: Vec<String> = Vec::new();
            for branch in branches {
                let kind = type_of(branch, parent, field);
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            if !kinds.is_empty() && schema.get("type").is_none() {
                return kinds.join(" or ");
            }
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => match schema.get("items") {
            Some(items) => format!("list of {}", type_of(items, parent, field)),
            None => "list".into(),
        },
        Some(kind) => kind.to_owned(),
        None => "any".into(),
    }
}

/// The constraints on a value, in words.
fn allowed(schema: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(|v| format!("`{}`", plain(v))).collect();
        parts.push(format!("one of {}", values.join(", ")));
    }
    if let Some(value) = schema.get("const") {
        parts.push(format!("exactly `{}`", plain(value)));
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        parts.push(format!("matches `{pattern}`"));
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        parts.push(format!("format `{format}`"));
    }
    match (schema.get("minimum"), schema.get("maximum")) {
        (Some(min), Some(max)) => parts.push(format!("{min} to {max}")),
        (Some(min), None) => parts.push(format!("at least {min}")),
        (None, Some(max)) => parts.push(format!("at most {max}")),
        (None, None) => {}
    }
    if let Some(n) = schema.get("minItems") {
        parts.push(format!(
            "at least {n} item{}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(n) = schema.get("minProperties") {
        parts.push(format!("at least {n} key{}", if n == 1 { "" } else { "s" }));
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        parts.push("no duplicates".into());
    }
    for key in ["anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let inner = allowed(branch);
            if !inner.is_empty() && !parts.contains(&inner) {
                parts.push(inner);
            }
        }
    }
    if let Some(items) = schema.get("items") {
        let inner = allowed(items);
        if !inner.is_empty() {
            parts.push(format!("each: {inner}"));
        }
    }
    parts.join("; ")
}

/// A JSON value as a user writes it in YAML: strings without quotes.
fn plain(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text safe inside a markdown table cell.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// The committed schema and format reference are what `cargo xtask format-doc` generates.
    #[test]
    fn generated_files_are_current() {
        let files = generate(&root()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files.len(), 2);
        for (path, text) in files {
            let committed = fs::read_to_string(root().join(path)).unwrap_or_default();
            assert!(
                committed == text,
                "{path} is not what `cargo xtask format-doc` generates: run it and commit the result"
            );
        }
    }

    /// The rules table is the enum's: same ids in the same order, same text; a missing, extra or reworded
    /// rule is refused.
    #[test]
    fn rules_table_is_the_rule_enum() {
        let rules = read_json(&root().join(RULES)).unwrap_or_else(|e| panic!("{e}"));
        check_rules_against_table(&rules).unwrap_or_else(|e| panic!("{e}"));
        let mut dropped = rules.clone();
        if let Some(list) = dropped["rules"].as_array_mut() {
            list.remove(12);
        }
        let error = check_rules_against_table(&dropped)
            .err()
            .unwrap_or_default();
        assert!(error.contains("the same ids, in the same order"), "{error}");
        let mut reworded = rules;
        reworded["rules"][12]["check"] = json!("All regular expressions are valid.");
        let error = check_rules_against_table(&reworded)
            .err()
            .unwrap_or_default();
        assert!(error.contains("the `check` of V-013 differs"), "{error}");
    }

    /// A rule naming a field the schema lacks is refused, so the table cannot point at renamed fields.
    #[test]
    fn a_rule_on_an_unknown_field_is_an_error() {
        let schema = json!({"properties": {"oatf": {"type": "string"}}, "$defs": {}});
        let rules = json!({"rules": [{"id": "V-001", "check": "c", "fields": ["Document.oaft"], "schema": "full"}]});
        let error = render_format_doc(&schema, &rules).err().unwrap_or_default();
        assert!(error.contains("`Document.oaft`"), "{error}");
        let rules = json!({"rules": [{"id": "V-001", "check": "c", "fields": ["Document.oatf"], "schema": "full"}]});
        let doc = render_format_doc(&schema, &rules).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            doc.contains("| `oatf` | string | no |  |  | [V-001](#v-001) |"),
            "{doc}"
        );
    }
}
