"""Arguments that name files: a missing document or trace file is a FileNotFoundError naming it (issue 22)."""

import pathlib

import pytest

import oatf
from conftest import EXAMPLES


@pytest.mark.parametrize("name", ["does-not-exist.yaml", "dir/missing.yml", "missing.JSON"])
def test_a_missing_document_file_is_named(name):
    with pytest.raises(FileNotFoundError) as caught:
        oatf.load(name)
    assert caught.value.filename == name
    assert name in str(caught.value)


def test_validate_and_compile_say_so_too():
    for function in (oatf.validate, oatf.compile, oatf.normalize):
        with pytest.raises(FileNotFoundError, match="nowhere.yaml"):
            function("nowhere.yaml")


def test_a_missing_path_object_is_named(tmp_path):
    path = tmp_path / "gone.yaml"
    with pytest.raises(FileNotFoundError) as caught:
        oatf.load(path)
    assert caught.value.filename == str(path)


def test_one_line_yaml_text_is_still_text():
    # Not a file name: parsed as YAML, and reported as a document problem.
    with pytest.raises(oatf.LoadError):
        oatf.load("oatf: '0.1'")
    # A multi-line text ending in .yaml is YAML text, never a path.
    with pytest.raises(oatf.LoadError):
        oatf.load("oatf: '0.1'\nattack: x.yaml")


def test_a_missing_trace_file_is_named(tmp_path):
    attack = oatf.compile(EXAMPLES / "mcp-tool-poisoning.yaml")
    missing = tmp_path / "run.jsonl"
    with pytest.raises(FileNotFoundError) as caught:
        attack.evaluate_trace(str(missing))
    assert caught.value.filename == str(missing)
    assert str(missing) in str(caught.value)


def test_an_existing_file_still_loads():
    document = oatf.load(str(EXAMPLES / "mcp-tool-poisoning.yaml"))
    assert document.id


def test_documents_and_attacks_pickle_by_their_text(tmp_path):
    import pickle

    source = (EXAMPLES / "mcp-tool-poisoning.yaml").read_text()
    # `oatf` last: W-001 must survive the round trip (pickled as the text, not a re-serialization,
    # which would put `oatf` first).
    lines = source.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("oatf:"))
    reordered = "\n".join(lines[:first] + lines[first + 1 :] + [lines[first]]) + "\n"
    document = oatf.load(reordered)
    assert "W-001" in [w.rule for w in document.warnings]
    again = pickle.loads(pickle.dumps(document))
    assert again.to_dict() == document.to_dict()
    assert [w.rule for w in again.warnings] == [w.rule for w in document.warnings]
    attack = oatf.compile(document)
    copy = pickle.loads(pickle.dumps(attack))
    trace = str(EXAMPLES / "mcp-tool-poisoning.complied.jsonl")
    assert copy.evaluate_trace(trace).to_dict()["result"] == attack.evaluate_trace(trace).to_dict()["result"]
    assert copy.indicator_ids == attack.indicator_ids
    normalized = oatf.normalize(source)
    assert pickle.loads(pickle.dumps(normalized)).to_dict() == normalized.to_dict()
