"""Hostile and faulty input: every one raises a Python exception or gives an `error` result; none may
crash the interpreter, hang, or grow memory with the length of a trace (docs/input-safety.md)."""

import json
import math
import resource
import sys
import threading
import time

import pytest

import oatf
from conftest import EXAMPLES

MCP = """\
oatf: "0.1"
attack:
  id: OATF-900
  execution:
    mode: mcp_server
    state:
      tools: []
  indicators:
    - surface: tools/call
      target: arguments.path
      pattern:
        contains: .ssh/id_rsa
"""

SEMANTIC = """\
oatf: "0.1"
attack:
  id: OATF-901
  execution:
    mode: mcp_server
    state:
      tools: []
  indicators:
    - surface: tools/call
      target: arguments.notes
      semantic:
        intent: The agent leaks a private key
        threshold: 0.5
"""


def call(path, seq=1):
    return {"seq": seq, "direction": "incoming", "method": "tools/call", "content": {"name": "read", "arguments": {"path": path}}}


# --- documents ------------------------------------------------------------------------------------------


def test_load_error_carries_every_problem():
    text = MCP.replace("id: OATF-900", "id: OATF-900\n  severity: apocalyptic").replace(
        "mode: mcp_server", "mode: carrier_pigeon"
    )
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load(text)
    error = raised.value
    assert isinstance(error, oatf.OATFError)
    assert len(error.errors) >= 2, error.errors
    first = error.errors[0]
    assert (error.rule, error.path, error.line, error.column, error.message) == (
        first.rule, first.path, first.line, first.column, first.message,
    )
    for problem in error.errors:
        assert problem.rule and problem.rule.startswith("V-")
        assert problem.path.startswith("attack.")
        assert problem.line >= 1 and problem.column >= 1
    # Each problem points at its own line of the source.
    lines = text.splitlines()
    severity = next(p for p in error.errors if p.path == "attack.severity")
    assert "apocalyptic" in lines[severity.line - 1]


FOUR_MISTAKES = """\
oatf: "0.1"
attack:
  descripton: Tool poisoning
  severity:
    level: high
    confidence: "high"
  execution:
    actors:
      - name: server
        mode: mcp_server
        phases:
          - state: {tools: []}
      - name: client
        phases:
          - state: {}
  indicators:
    - actor: sever
      protocol: mcp
      target: content
      pattern: {contains: secret}
"""


def test_load_error_carries_all_four_mistakes_at_once():
    # An unknown key, a type mismatch, a missing required field and a V- rule: one run reports all four.
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load(FOUR_MISTAKES)
    found = [(p.kind, p.rule, p.path, p.line, p.column) for p in raised.value.errors]
    assert found == [
        ("parse", None, "attack.descripton", 3, 3),
        ("parse", None, "attack.severity.confidence", 6, 17),
        ("validation", "V-031", "attack.execution.actors[1].mode", 13, 9),
        ("validation", "V-048", "attack.indicators[0].actor", 17, 14),
    ]
    messages = [p.message for p in raised.value.errors]
    assert messages[0].startswith("unknown field `descripton`; did you mean `description`?")
    assert messages[1] == 'expected an integer, found the string "high"'
    assert "the document's actors are `server`, `client`" in messages[3]
    # `validate` gives the same four.
    result = oatf.validate(FOUR_MISTAKES)
    assert [(p.rule, p.path) for p in result.errors] == [(r, path) for _, r, path, _, _ in found]


def test_parse_error_has_line_and_column():
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load('oatf: "0.1"\nattack:\n  id: [unclosed\n')
    assert raised.value.line is not None and raised.value.column is not None
    assert raised.value.errors[0].kind == "parse"


def test_alias_bomb_is_rejected_without_expansion():
    bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
        f'{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n'
        for i in range(8)
    )
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load(bomb)
    assert any(p.rule == "V-020" for p in raised.value.errors)


def test_deep_yaml_is_rejected():
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load("a: " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert "deeper than the limit" in str(raised.value)


def test_huge_yaml_is_rejected_before_parsing(tmp_path):
    path = tmp_path / "huge.yaml"
    with open(path, "w") as f:
        f.write("oatf: '0.1'\nattack:\n  description: '")
        f.write("x" * (11 * 1024 * 1024))
        f.write("'\n")
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load(path)
    assert "more than the limit" in str(raised.value)


def test_invalid_utf8_names_the_byte():
    with pytest.raises(oatf.LoadError) as raised:
        oatf.load(b'oatf: "0.1"\nattack:\n  name: "\xff"\n')
    assert "utf-8" in str(raised.value).lower()
    assert raised.value.line == 3
    result = oatf.validate(b'oatf: "0.1"\nattack:\n  name: "\xff"\n')
    assert not result.valid
    assert result.errors[0].kind == "parse" and result.errors[0].line == 3


def test_nul_and_garbage_do_not_crash():
    for text in ["\x00", "- - - -", "{", "oatf: \"0.1\"\nattack: 3\n", "", "\ufeff", "!!python/object:os.system x"]:
        with pytest.raises(oatf.OATFError):
            oatf.load(text)
        assert isinstance(oatf.validate(text).valid, bool)


def test_wrong_argument_types_raise_type_error():
    with pytest.raises(TypeError):
        oatf.load(42)
    with pytest.raises(TypeError):
        oatf.compile(MCP, semantic_evaluator=3)


# --- messages ---------------------------------------------------------------------------------------------


def test_deep_python_message_is_refused():
    attack = oatf.compile(MCP)
    deep = {}
    node = deep
    for _ in range(1000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ValueError, match="deeper than the limit of 128"):
        attack.evaluate_message(deep)


def test_non_json_message_values_raise():
    attack = oatf.compile(MCP)
    with pytest.raises(ValueError):
        attack.evaluate_message({"arguments": {"path": math.nan}})
    with pytest.raises(TypeError):
        attack.evaluate_message({"arguments": {1: "x"}})
    with pytest.raises(TypeError):
        attack.evaluate_message({"arguments": {"path": object()}})
    # Integers beyond 64 bits become floats, as in a JSON parser.
    assert attack.evaluate_message({"arguments": {"path": 10**40}}).result == "not_exploited"


def test_catastrophic_regex_is_linear():
    text = MCP.replace("contains: .ssh/id_rsa", "regex: '(a+)+$'")
    attack = oatf.compile(text)
    verdict = attack.evaluate_message({"arguments": {"path": "a" * 100_000 + "!"}})
    assert verdict.result == "not_exploited"


# --- traces -----------------------------------------------------------------------------------------------


def test_bad_trace_lines_are_counted_and_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        b"not json\n"
        + json.dumps(call("/tmp/x", 2)).encode() + b"\n"
        + b'{"seq": 3}\n'
        + b"\xff\xfe\n"
        + b"\n"
        + json.dumps(call("/home/u/.ssh/id_rsa", 6)).encode() + b"\n"
    )
    attack = oatf.compile(MCP)
    verdict = attack.evaluate_trace(path)
    assert verdict.result == "exploited"
    assert [line for line, _ in verdict.trace_errors] == [1, 3, 4]
    trace = verdict.to_dict()["trace"]
    assert trace["malformed_lines"] == 3 and trace["verdict_from_partial_trace"] is True
    assert trace["matched_lines"] == {"OATF-900-01": 6}
    with pytest.raises(oatf.TraceError, match="line 1"):
        attack.evaluate_trace(path, strict=True)


def test_overlong_trace_line_is_skipped(tmp_path):
    path = tmp_path / "long.jsonl"
    with open(path, "w") as f:
        f.write('{"direction": "incoming", "content": "' + "x" * 100_000 + '"}\n')
        f.write(json.dumps(call("/root/.ssh/id_rsa")) + "\n")
    verdict = oatf.compile(MCP).evaluate_trace(path, max_line_len=1000)
    assert verdict.result == "exploited"
    assert verdict.trace_errors[0][0] == 1 and "1000 bytes" in verdict.trace_errors[0][1]


def test_missing_trace_file_raises_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        oatf.compile(MCP).evaluate_trace(tmp_path / "nope.jsonl")


def test_bad_iterable_entries():
    attack = oatf.compile(MCP)
    verdict = attack.evaluate_trace(["{", {"direction": "sideways"}, {"content": {}}, call("/x/.ssh/id_rsa", 4)])
    assert verdict.result == "exploited"
    assert [line for line, _ in verdict.trace_errors] == [1, 2, 3]
    with pytest.raises(TypeError):
        attack.evaluate_trace([42])
    with pytest.raises(TypeError):
        attack.evaluate_trace(call("/x/.ssh/id_rsa"))  # one message, not a trace
    # bytes are JSON Lines text (test_pythonic.py): one line that is not a trace message.
    assert attack.evaluate_trace(b"{}").trace["malformed_lines"] == 1
    with pytest.raises(oatf.TraceError):
        attack.evaluate_trace(["{"], strict=True)

    def failing():
        yield call("/a")
        raise KeyError("from the generator")

    with pytest.raises(KeyError):
        attack.evaluate_trace(failing())


def test_push_reports_a_malformed_message_and_goes_on():
    evaluator = oatf.TraceEvaluator(oatf.compile(MCP))
    with pytest.raises(oatf.TraceError):
        evaluator.push({"content": {}})
    evaluator.push(call("/home/u/.ssh/id_rsa"))
    assert evaluator.messages == 1 and evaluator.matched_count == 1
    verdict = evaluator.finish()
    assert verdict.result == "exploited"
    assert verdict.to_dict()["trace"]["malformed_lines"] == 1
    with pytest.raises(RuntimeError):
        evaluator.push(call("/x"))


def test_long_trace_streams_in_flat_memory():
    """200,000 messages from a generator: the peak RSS must not grow with the trace."""
    attack = oatf.compile(MCP)

    def messages(n):
        for i in range(n):
            yield call(f"/tmp/file-{i}", i + 1)

    attack.evaluate_trace(messages(20_000))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    verdict = attack.evaluate_trace(messages(200_000))
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert verdict.result == "not_exploited"
    assert verdict.to_dict()["trace"]["messages"] == 200_000
    # 200,000 such dicts held at once would take well over 100 MiB.
    assert grown_kib < 32 * 1024, f"peak RSS grew by {grown_kib} KiB"


# --- the semantic evaluator written in Python --------------------------------------------------------------


def leak(notes):
    return {"name": "save", "arguments": {"notes": notes}}


def test_semantic_evaluator_is_called_with_the_text_and_intent():
    seen = []

    def judge(text, intent, intent_class=None, threshold=None, examples=None):
        seen.append((text, intent, threshold))
        return 0.9 if "BEGIN OPENSSH" in text else 0.1

    attack = oatf.compile(SEMANTIC, semantic_evaluator=judge)
    assert attack.evaluate_message(leak("-----BEGIN OPENSSH PRIVATE KEY-----")).result == "exploited"
    assert attack.evaluate_message(leak("hello")).result == "not_exploited"
    assert seen[0] == ("-----BEGIN OPENSSH PRIVATE KEY-----", "The agent leaks a private key", 0.5)


def test_without_semantic_evaluator_the_indicator_is_skipped():
    verdict = oatf.compile(SEMANTIC).evaluate_message(leak("x"))
    assert verdict.indicator_verdicts[0].result == "skipped"


@pytest.mark.parametrize(
    "judge, says",
    [
        (lambda **_: 1 / 0, "ZeroDivisionError"),
        (lambda **_: "high", "not a number"),
        (lambda **_: 7.5, "not a score between 0.0 and 1.0"),
        (lambda **_: math.nan, "not a score"),
        (lambda text: 0.5, "TypeError"),
        (lambda **_: sys.exit(3), "SystemExit"),
    ],
)
def test_semantic_evaluator_failures_are_indicator_errors(judge, says):
    verdict = oatf.compile(SEMANTIC, semantic_evaluator=judge).evaluate_message(leak("x"))
    assert verdict.result == "error"
    [indicator] = verdict.indicator_verdicts
    assert indicator.result == "error"
    assert says in indicator.evidence


def test_semantic_evaluator_from_several_threads():
    calls = []
    lock = threading.Lock()

    def judge(text, **_):
        with lock:
            calls.append(text)
        return 0.9

    attack = oatf.compile(SEMANTIC, semantic_evaluator=judge)
    results = []

    def run():
        results.append(attack.evaluate_trace([{"direction": "incoming", "method": "tools/call", "content": leak("k")}] * 50).result)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["exploited"] * 4
    assert len(calls) == 4  # the first match decides the indicator; later messages are not evaluated


def test_evaluation_releases_the_gil(tmp_path):
    """While one thread evaluates a long trace file, another thread keeps running Python code."""
    path = tmp_path / "long.jsonl"
    with open(path, "w") as f:
        line = json.dumps(call("/tmp/innocent")) + "\n"
        f.write(line * 300_000)
    attack = oatf.compile(MCP)
    done = threading.Event()
    ticks = []

    def ticker():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.0005)

    thread = threading.Thread(target=ticker)
    thread.start()
    time.sleep(0.01)
    started = len(ticks)
    verdict = attack.evaluate_trace(path)
    count = len(ticks) - started
    done.set()
    thread.join()
    assert verdict.to_dict()["trace"]["messages"] == 300_000
    # Holding the GIL, the evaluation would let the ticker run at most once or twice.
    assert count > 20, f"the other thread ran only {count} times during evaluation"


# --- CEL budgets under hostile input (D-125, D-126, D-127) ---------------------------------------------


def _cel_attack(cel):
    return oatf.compile(
        MCP.replace("target: arguments.path\n      pattern:\n        contains: .ssh/id_rsa", f'target: ""\n      expression:\n        cel: {json.dumps(cel)}')
    )


def test_cel_five_nested_loops_stop_at_the_iteration_budget_quickly():
    loops = "a + b + c + d + e >= 0"
    for var in reversed("abcde"):
        loops = f"message.xs.all({var}, {loops})"
    attack = _cel_attack(loops)
    started = time.process_time()
    verdict = attack.evaluate_trace([{"direction": "incoming", "method": "tools/call", "content": {"xs": list(range(100))}}])
    elapsed = time.process_time() - started
    assert verdict.result == "error"
    (indicator,) = verdict.indicator_verdicts
    assert "the expression needs more than the limit of 1000000 comprehension iterations (CelLimits::max_iterations)" in indicator.evidence
    # The direct path reaches the budget in about 0.1 s of CPU (release; docs/input-safety.md).
    assert elapsed < 10, elapsed


def test_cel_distinct_rejected_patterns_cost_one_compile_each():
    attack = _cel_attack("message.s.matches(message.p)")
    trace = [
        {"direction": "incoming", "method": "tools/call", "content": {"s": "x", "p": "\\w{%d}" % (1500 + i)}}
        for i in range(2000)
    ]
    started = time.process_time()
    verdict = attack.evaluate_trace(trace)
    elapsed = time.process_time() - started
    assert verdict.result == "error"
    (indicator,) = verdict.indicator_verdicts
    assert 'regex "\\\\w{1500}" compiles to more than 1048576 bytes' in indicator.evidence, indicator.evidence
    # About 5 ms of CPU per pattern (release; docs/input-safety.md); twice that before D-126.
    assert elapsed < 60, elapsed
    # The same patterns again: remembered rejections, no compile.
    started = time.process_time()
    assert attack.evaluate_trace(trace).result == "error"
    assert time.process_time() - started < elapsed / 4 + 1
