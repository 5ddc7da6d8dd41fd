"""Issue 22 item 5 through Python: a misspelt actor or target is never a silent "not exploited"
(decisions D-69 and D-70)."""

import json

import oatf


def document(target):
    return f"""
oatf: "0.1"
attack:
  id: T-001
  execution:
    mode: mcp_server
    state: {{tools: [{{name: fetch, description: Fetches a page}}]}}
  indicators:
    - {{surface: tools/call, direction: request, target: {target}, pattern: {{contains: evil.example}}}}
"""


def trace(actor, count, url):
    return [
        {"seq": seq, "actor": actor, "direction": "incoming", "method": "tools/call",
         "content": {"name": "fetch", "arguments": {"url": url}}}
        for seq in range(1, count + 1)
    ]


def test_a_misspelt_actor_is_explained_and_fails_strict():
    attack = oatf.compile(oatf.load(document("arguments.url")))
    verdict = attack.evaluate_trace(trace("docs-search", 12, "https://evil.example/x"))
    assert verdict.result == "not_exploited"
    assert verdict.indicator_verdicts[0].evidence == (
        "no applicable message: no message from actor `default`; "
        "the trace has `docs-search` (12 messages)"
    )
    [warning] = verdict.warnings
    assert warning.kind == "actor_without_messages"
    assert warning.actor == "default"
    assert warning.indicator_id is None
    assert verdict.exit_code() == 0
    assert verdict.exit_code(strict=True) == 6
    assert verdict.to_dict()["warnings"][0]["kind"] == "actor_without_messages"


def test_a_misspelt_target_is_a_warning_with_did_you_mean_and_fails_strict():
    attack = oatf.compile(oatf.load(document("arguments.ulr")))
    verdict = attack.evaluate_trace(trace("default", 3, "https://docs.example"))
    assert verdict.result == "not_exploited"
    [warning] = verdict.warnings
    assert (warning.kind, warning.indicator_id, warning.path, warning.suggestion) == (
        "unresolved_target", "T-001-01", "arguments.ulr", "arguments.url",
    )
    assert "did you mean `arguments.url`?" in warning.message
    assert warning.to_dict()["suggestion"] == "arguments.url"
    assert verdict.exit_code(strict=True) == 6
    json.dumps(verdict.to_dict())

    # The same warnings from the streaming evaluator.
    evaluator = oatf.TraceEvaluator(attack)
    for message in trace("default", 2, "https://docs.example"):
        evaluator.push(message)
    streamed = evaluator.finish()
    assert [w.suggestion for w in streamed.warnings] == ["arguments.url"]
    assert streamed.exit_code(strict=True) == 6


def test_the_right_target_has_no_warning_and_strict_keeps_an_exploit():
    attack = oatf.compile(oatf.load(document("arguments.url")))
    clean = attack.evaluate_trace(trace("default", 3, "https://docs.example"))
    assert clean.warnings == []
    assert clean.exit_code(strict=True) == 0
    exploited = attack.evaluate_trace(trace("default", 1, "https://evil.example"))
    assert exploited.exit_code(strict=True) == 1
