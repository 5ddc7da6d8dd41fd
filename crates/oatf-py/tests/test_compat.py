"""The thoughtjack-context compatibility profile (D-100) through the Python package, on the fixtures of
tests/fixtures/thoughtjack-context (their README states the verdicts), and the default profile's warning
(D-101)."""

import json

import pytest

import oatf
import oatf.campaign
from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "thoughtjack-context"


@pytest.fixture(scope="module")
def attack():
    return oatf.compile(oatf.load(FIXTURES / "attack.yaml"))


def kinds(verdict):
    return [w.kind for w in verdict.warnings]


def test_evaluate_trace_takes_the_profile(attack):
    trace = FIXTURES / "exploited.jsonl"
    context = attack.evaluate_trace(trace, compat="thoughtjack-context")
    assert (context.result, context.max_tier, context.exit_code()) == ("exploited", "ingested", 1)
    exact = attack.evaluate_trace(trace)
    assert (exact.result, exact.exit_code()) == ("not_exploited", 0)
    warning = next(w for w in exact.warnings if w.kind == "compat_would_change")
    assert 'compat="thoughtjack-context"' in warning.message
    assert attack.evaluate_trace(trace, compat="spec-exact").to_dict()["result"] == "not_exploited"
    # An iterable of messages goes through the same profile.
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert attack.evaluate_trace(lines, compat="thoughtjack-context").result == "exploited"
    assert "compat_would_change" not in kinds(context)


def test_the_streaming_evaluator_takes_the_profile(attack):
    lines = (FIXTURES / "exploited.jsonl").read_text().splitlines()
    results = {}
    for compat in (None, "thoughtjack-context"):
        evaluator = oatf.TraceEvaluator(attack, compat=compat)
        for line in lines:
            evaluator.push(line)
        results[compat] = evaluator.finish().result
    assert results == {None: "not_exploited", "thoughtjack-context": "exploited"}


def test_an_unknown_profile_is_a_value_error_naming_the_known_ones(attack):
    with pytest.raises(ValueError, match="expected one of: spec-exact, thoughtjack-context"):
        attack.evaluate_trace(FIXTURES / "exploited.jsonl", compat="thoughtjack")
    with pytest.raises(ValueError, match="unknown compatibility profile 'context'"):
        oatf.campaign.evaluate_runs([], compat="context")
    assert oatf.campaign.COMPAT_PROFILES == ("spec-exact", "thoughtjack-context")


def test_campaign_runs_take_the_profile_and_a_run_s_own_wins(attack):
    trace = str(FIXTURES / "exploited.jsonl")
    runs = [
        oatf.campaign.Run("attack.yaml", attack, trace),
        oatf.campaign.Run("attack.yaml", attack, trace, compat="spec-exact"),
        ("attack.yaml", attack, trace),
    ]
    result = oatf.campaign.COLUMNS.index("result")
    rows = oatf.campaign.evaluate_runs(runs, compat="thoughtjack-context")
    assert [row[result] for row in rows] == ["exploited", "not_exploited", "exploited"]
    rows = oatf.campaign.evaluate_runs(runs)
    assert [row[result] for row in rows] == ["not_exploited"] * 3
