"""The document JSON Schema that `oatf schema` prints, checked with the reference Python validator.

- it is a valid draft 2020-12 schema;
- every example and every valid document of the corpus (`conformance/`) and of the vendored upstream samples
  validates against it;
- every document the corpus says fails to parse for a schema-level reason (a root that is not a mapping, a
  value of the wrong type, an unknown key) fails it: the cases of `parse/invalid/` that are well-formed YAML;
- every `validate` case that expects an error of a rule that `schema/rules.json` marks `"schema": "full"`
  fails it.

Run by `.ci/run` with pytest in the Python virtualenv (`jsonschema`, `pyyaml`), on the `oatf` binary named by
`OATF_BIN` (default `target/debug/oatf`). The expectations come from the corpus files, never from `oatf`.
"""

import json
import os
import pathlib
import re
import subprocess

import jsonschema
import pytest
import yaml

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
OATF = os.environ.get("OATF_BIN", str(ROOT / "target" / "debug" / "oatf"))
CORPORA = [ROOT / "conformance", ROOT / "third_party" / "oatf-spec" / "conformance-samples"]


def printed_schema():
    run = subprocess.run([OATF, "schema"], capture_output=True, check=True)
    return json.loads(run.stdout)


SCHEMA = printed_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
FULL_RULES = {
    rule["id"]
    for rule in json.loads((ROOT / "schema" / "rules.json").read_text())["rules"]
    if rule["schema"] == "full"
}


class StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 core schema that OATF uses (PyYAML alone is YAML 1.1: `on` and
    `no` would be booleans, `2026-01-15` a date, `010` octal), refusing what OATF's parser refuses at the YAML
    level (decision 6, V-020): aliases and duplicate keys. Custom tags already fail in the safe loader."""

    yaml_implicit_resolvers = {}

    def compose_node(self, parent, index):
        if self.check_event(yaml.events.AliasEvent):
            raise yaml.YAMLError("alias")
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(k, deep=True) for k, _ in node.value]
        if len(keys) != len(set(map(repr, keys))):
            raise yaml.YAMLError("duplicate key")
        return super().construct_mapping(node, deep)

    def construct_core_int(self, node):
        value = self.construct_scalar(node)
        sign = -1 if value.startswith("-") else 1
        digits = value.lstrip("+-")
        if digits.startswith("0o"):
            return sign * int(digits[2:], 8)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        return sign * int(digits, 10)


# The YAML 1.2 core schema's tag resolution (YAML 1.2.2 §10.3.2).
for tag, pattern, first in [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
]:
    StrictLoader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), list(first))
StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_core_int)


def load(text):
    return yaml.load(text, Loader=StrictLoader)


def errors(document):
    return [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)]


def validate_cases():
    """(id, document text, expected) of every validate case of both corpora."""
    cases = []
    for corpus in CORPORA:
        for path in sorted((corpus / "validate").glob("*.yaml")):
            for case in yaml.safe_load(path.read_text()):
                cases.append((case["id"], case["input"], case["expected"]))
    assert len(cases) > 200, "the validate cases were not found"
    return cases


def valid_documents():
    documents = [p for p in (ROOT / "examples").glob("*.yaml") if not p.name.endswith(".test.yaml")]
    assert len(documents) >= 3, "the examples were not found"
    pairs = [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in sorted(documents)]
    for corpus in CORPORA:
        # `parse-only-*` documents parse but are not valid (each says so in its header comment).
        for path in sorted((corpus / "parse" / "valid").glob("*.yaml")):
            if not path.name.startswith("parse-only-"):
                pairs.append((path.relative_to(ROOT).as_posix(), path.read_text()))
    for case_id, text, expected in validate_cases():
        if not expected.get("errors") and expected.get("valid", True):
            pairs.append((case_id, text))
    return pairs


def schema_level_invalid():
    """parse/invalid documents that are well-formed YAML (one document, no alias, no duplicate key)."""
    out = []
    for corpus in CORPORA:
        for path in sorted((corpus / "parse" / "invalid").glob("*.yaml")):
            if path.name.endswith(".meta.yaml"):
                continue
            try:
                documents = list(yaml.load_all(path.read_text(), Loader=StrictLoader))
            except yaml.YAMLError:
                continue
            if len(documents) == 1:
                out.append((path.relative_to(ROOT).as_posix(), documents[0]))
    assert len(out) >= 20, f"only {len(out)} schema-level parse failures found"
    return out


def full_rule_cases():
    out = []
    for case_id, text, expected in validate_cases():
        rules = {e["rule"] for e in expected.get("errors") or []} & FULL_RULES
        if rules:
            out.append((case_id, text, sorted(rules)))
    assert len(out) >= 50, f"only {len(out)} cases of schema-enforced rules found"
    return out


def test_the_printed_schema_is_a_draft_2020_12_schema_with_tier():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    tier = SCHEMA["$defs"]["Indicator"]["properties"]["tier"]
    assert tier["enum"] == ["ingested", "local_action", "boundary_breach"]


@pytest.mark.parametrize("name,text", valid_documents(), ids=[n for n, _ in valid_documents()])
def test_valid_documents_validate(name, text):
    assert errors(load(text)) == []


@pytest.mark.parametrize(
    "name,document", schema_level_invalid(), ids=[n for n, _ in schema_level_invalid()]
)
def test_schema_level_parse_failures_fail_the_schema(name, document):
    assert errors(document), f"{name} fails to parse but the schema accepts it"


@pytest.mark.parametrize("case_id,text,rules", full_rule_cases(), ids=[c for c, _, _ in full_rule_cases()])
def test_cases_of_schema_enforced_rules_fail_the_schema(case_id, text, rules):
    try:
        document = load(text)
    except yaml.YAMLError:
        pytest.fail(f"{case_id}: its input is not plain YAML, so its rules {rules} are not schema-enforced")
    assert errors(document), f"{case_id} breaks {rules}, marked schema-enforced, but the schema accepts it"


def test_a_misspelt_field_fails_the_schema():
    # The check the validator above relies on: an unknown key on a typed object is an error.
    document = load("oatf: '0.1'\nattack:\n  execution:\n    mode: mcp_server\n    state: {}\n  severty: high\n")
    assert any("severty" in e for e in errors(document))
