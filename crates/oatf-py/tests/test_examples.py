"""The examples of `examples/` through Python, with the verdicts `examples/README.md` gives."""

import json
import pathlib
import threading

import pytest

import oatf
from conftest import EXAMPLES

# From the "Expected verdicts" table of examples/README.md:
# result, max_tier, matched, not_matched, error, skipped.
EXPECTED = {
    "mcp-tool-poisoning.complied.jsonl": ("exploited", "boundary_breach", 2, 0, 0, 0),
    "mcp-tool-poisoning.resisted.jsonl": ("not_exploited", None, 0, 2, 0, 0),
    "mcp-tool-poisoning.untouched.jsonl": ("not_exploited", None, 0, 2, 0, 0),
    "a2a-skill-poisoning.complied.jsonl": ("exploited", None, 2, 0, 0, 0),
    "a2a-skill-poisoning.resisted.jsonl": ("not_exploited", None, 0, 2, 0, 0),
    "ag-ui-prompt-injection.complied.jsonl": ("exploited", None, 3, 0, 0, 0),
    "ag-ui-prompt-injection.partial.jsonl": ("partial", None, 2, 1, 0, 0),
    "ag-ui-prompt-injection.resisted.jsonl": ("not_exploited", None, 0, 3, 0, 0),
}


def document_of(trace: str) -> pathlib.Path:
    return EXAMPLES / (trace.split(".")[0] + ".yaml")


def summary(verdict):
    s = verdict.evaluation_summary
    return (verdict.result, verdict.max_tier, s["matched"], s["not_matched"], s["error"], s["skipped"])


def test_every_trace_is_covered():
    assert sorted(p.name for p in EXAMPLES.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("trace", sorted(EXPECTED))
def test_trace_file(trace):
    attack = oatf.compile(oatf.load(document_of(trace)))
    verdict = attack.evaluate_trace(EXAMPLES / trace)
    assert summary(verdict) == EXPECTED[trace]
    # The JSON verdict document: the shape of `oatf evaluate --format json`.
    document = verdict.to_dict()
    assert document["result"] == EXPECTED[trace][0]
    assert document["attack_id"] == attack.attack_id
    assert set(document["trace"]) == {
        "file", "lines", "messages", "malformed_lines", "after_grace_period", "matched_lines",
        "verdict_from_partial_trace", "actors_without_messages",
    }
    # Built by oatf::report::json_document, as the CLI builds it: silent actors are warnings.
    silent = [w for w in document["warnings"] if w["kind"] == "actor_without_messages"]
    assert all(w["code"] == w["kind"] for w in document["warnings"])
    assert [w["actor"] for w in silent] == document["trace"]["actors_without_messages"]
    # The shipped examples have no warnings: resistance passes `--strict` (decision D-70).
    assert verdict.warnings == []
    assert verdict.exit_code(strict=True) == verdict.exit_code() == document["exit_code"]
    assert document["trace"]["malformed_lines"] == 0
    assert len(document["trace"]["matched_lines"]) == EXPECTED[trace][2]
    assert document.get("max_tier") == EXPECTED[trace][1]
    assert [v.indicator_id for v in verdict.indicator_verdicts] == attack.indicator_ids
    json.dumps(document)  # plain data


@pytest.mark.parametrize("trace", sorted(EXPECTED))
def test_iterable_and_push_give_the_same_verdict(trace):
    attack = oatf.compile(document_of(trace).read_text())
    lines = (EXAMPLES / trace).read_text().splitlines()
    from_dicts = attack.evaluate_trace(json.loads(line) for line in lines if line.strip())
    from_strings = attack.evaluate_trace(lines)
    evaluator = oatf.TraceEvaluator(attack)
    for line in lines:
        if line.strip():
            evaluator.push(json.loads(line))
    pushed = evaluator.finish()
    for verdict in (from_dicts, from_strings, pushed):
        assert summary(verdict) == EXPECTED[trace]
    with pytest.raises(RuntimeError):
        evaluator.finish()


def test_evidence_names_the_deciding_message():
    attack = oatf.compile(oatf.load(EXAMPLES / "mcp-tool-poisoning.yaml"))
    verdict = attack.evaluate_trace(str(EXAMPLES / "mcp-tool-poisoning.complied.jsonl"))
    for v in verdict.indicator_verdicts:
        assert v.result == "matched"
        assert v.evidence.startswith("seq 10 (tools/call): ")
    assert verdict.to_dict()["trace"]["matched_lines"] == {"OATF-EX-001-01": 10, "OATF-EX-001-02": 10}


def test_document_accessors():
    document = oatf.load(EXAMPLES / "ag-ui-prompt-injection.yaml")
    assert document.id == "OATF-EX-003"
    assert document.name
    assert document.severity in {"informational", "low", "medium", "high", "critical"}
    assert [i["id"] for i in document.indicators] == ["OATF-EX-003-01", "OATF-EX-003-02", "OATF-EX-003-03"]
    assert [a["name"] for a in document.actors] == ["default"]
    assert document.warnings == []
    # to_yaml is canonical: loading it again gives the same document.
    again = oatf.load(document.to_yaml())
    assert again.to_dict() == document.to_dict()
    assert document.to_dict()["attack"]["id"] == "OATF-EX-003"


def test_attack_is_shared_across_threads():
    attack = oatf.compile(oatf.load(EXAMPLES / "ag-ui-prompt-injection.yaml"))
    results = {}

    def run(trace):
        for _ in range(20):
            verdict = attack.evaluate_trace(EXAMPLES / trace)
        results[trace] = summary(verdict)

    traces = [t for t in EXPECTED if t.startswith("ag-ui")]
    threads = [threading.Thread(target=run, args=(t,)) for t in traces]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {t: EXPECTED[t] for t in traces}


def test_evaluate_message():
    attack = oatf.compile(oatf.load(EXAMPLES / "mcp-tool-poisoning.yaml"))
    lines = [json.loads(l) for l in (EXAMPLES / "mcp-tool-poisoning.complied.jsonl").read_text().splitlines()]
    call = next(l for l in lines if l["seq"] == 10)
    verdict = attack.evaluate_message(call["content"])
    assert verdict.result == "exploited"
    assert attack.evaluate_message({"name": "format", "arguments": {"code": "x"}}).result == "not_exploited"
