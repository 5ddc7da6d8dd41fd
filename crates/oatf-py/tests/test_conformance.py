"""Part of the conformance corpus (`conformance/`) read as data and run through the Python API:
validate, evaluate, verdict and the primitives the package exposes. The runner policy is that of
`shared/conformance-format/FORMAT.md` (validate: expected rules are minimum sets; numbers by value)."""

import datetime
import json
import re

import pytest
import yaml

import oatf
from conftest import CONFORMANCE


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML reads YAML 1.1; the corpus is YAML 1.2 (only true/false are booleans, no timestamps)."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def known_failures():
    ids = set()
    for line in (CONFORMANCE / "known-failures.txt").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            ids.add(line.split()[0])
    return ids


KNOWN_FAILURES = known_failures()


def cases(pattern):
    params = []
    for path in sorted(CONFORMANCE.glob(pattern)):
        for case in yaml.load(path.read_text(), Loader=Yaml12Loader) or []:
            marks = [pytest.mark.xfail(strict=True)] if case["id"] in KNOWN_FAILURES else []
            params.append(pytest.param(case, id=case["id"], marks=marks))
    assert params, f"no conformance cases found for {pattern}"
    return params


# --- validate ---------------------------------------------------------------------------------------


def reported(expected, diagnostics):
    for want in expected:
        if not any(d.rule == want["rule"] and ("path" not in want or d.path == want["path"]) for d in diagnostics):
            return False
    return True


@pytest.mark.parametrize("case", cases("validate/*.yaml"))
def test_validate(case):
    expected = case["expected"]
    result = oatf.validate(case["input"])
    if expected.get("valid") is True or expected.get("errors") == []:
        assert result.errors == [], [str(e) for e in result.errors]
        assert result.valid
    if expected.get("errors"):
        assert not result.valid
        assert reported(expected["errors"], result.errors), [str(e) for e in result.errors]
    if "warnings" in expected:
        if expected["warnings"] == []:
            assert result.warnings == []
        else:
            assert reported(expected["warnings"], result.warnings), [str(w) for w in result.warnings]


# --- evaluate -----------------------------------------------------------------------------------------

MODE_OF = {"mcp": "mcp_server", "a2a": "a2a_server", "ag_ui": "ag_ui_client"}


def without_nulls(mapping):
    return {k: v for k, v in mapping.items() if v is not None}


def attack_of(indicators, logic=None):
    """A document around bare indicators (JSON is YAML), normalized without validation."""
    protocol = next((i.get("protocol") for i in indicators if i.get("protocol")), "mcp")
    attack = {"id": "CONF-1", "execution": {"mode": MODE_OF.get(protocol, "mcp_server"), "state": {}}, "indicators": indicators}
    if logic:
        attack["correlation"] = {"logic": logic}
    return json.dumps({"oatf": "0.1", "attack": attack})


@pytest.mark.parametrize("case", cases("evaluate/*.yaml"))
def test_evaluate(case):
    given = case["input"]
    if given.get("cel_evaluator") == "absent":
        pytest.skip("the Python package always has the CEL evaluator")
    indicator = without_nulls(given["indicator"])
    for method in ("semantic", "expression"):
        if isinstance(indicator.get(method), dict):
            indicator[method] = without_nulls(indicator[method])
    semantic = given.get("semantic_evaluator") or {}
    judge = None
    if semantic.get("present"):
        score = semantic["mock_score"]

        def judge(text, intent, **_):
            assert isinstance(text, str) and isinstance(intent, str)
            return score

    attack = oatf.compile(oatf.normalize(attack_of([indicator])), semantic_evaluator=judge)
    verdict = attack.evaluate_message(given["message"])
    assert [v.result for v in verdict.indicator_verdicts] == [case["expected"]], verdict.to_dict()


# --- verdict --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("verdict/*.yaml"))
def test_verdict(case):
    given = case["input"]
    indicators = [
        dict({"surface": "tools/call", "target": "arguments", "pattern": {"contains": "x"}}, **i)
        for i in given["indicators"]
    ]
    attack = oatf.compile(oatf.normalize(attack_of(indicators, given["correlation_logic"])))
    verdict = attack.compute_verdict([without_nulls(v) for v in given["verdicts"]])
    assert verdict.result == case["expected"]["result"]
    assert verdict.evaluation_summary == case["expected"]["evaluation_summary"]
    if "max_tier" in case["expected"]:
        assert verdict.max_tier == case["expected"]["max_tier"]


# --- primitives -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("primitives/parse-duration.yaml"))
def test_parse_duration(case):
    if case["expected"].get("error"):
        with pytest.raises(ValueError):
            oatf.parse_duration(case["input"])
    else:
        assert oatf.parse_duration(case["input"]) == datetime.timedelta(seconds=case["expected"]["seconds"])


@pytest.mark.parametrize("case", cases("primitives/resolve-wildcard-path.yaml"))
def test_resolve_wildcard_path(case):
    try:
        values = oatf.resolve_wildcard_path(case["input"]["path"], case["input"]["value"])
    except ValueError:
        values = []  # an invalid path selects nothing (SDK §5.1.2)
    assert values == case["expected"]["values"]


@pytest.mark.parametrize("case", cases("primitives/resolve-simple-path.yaml"))
def test_resolve_simple_path(case):
    expected = case["expected"]
    value = oatf.resolve_simple_path(case["input"]["path"], case["input"]["value"])
    if isinstance(expected, dict) and expected.get("found") is True and set(expected) == {"found", "value"}:
        expected = expected["value"]
    assert value == expected


@pytest.mark.parametrize("case", cases("primitives/evaluate-condition.yaml"))
def test_evaluate_condition(case):
    try:
        result = oatf.evaluate_condition(case["input"]["condition"], case["input"]["value"])
    except ValueError:
        result = False  # SDK §5.3: an invalid condition does not match
    assert result is case["expected"]


@pytest.mark.parametrize("case", cases("primitives/interpolate-template.yaml"))
def test_interpolate_template(case):
    given = case["input"]
    extractors = {k: str(v) for k, v in (given.get("extractors") or {}).items()}
    text, _ = oatf.interpolate_template(given["template"], extractors, given.get("request"), given.get("response"))
    assert text == case["expected"]
