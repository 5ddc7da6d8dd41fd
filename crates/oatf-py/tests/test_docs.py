"""docs/python.md and docs/scale-out.md run: every code block is executed with its shown output compared, or
carries a marker saying why not (conventions and harness: doc_blocks.py, decision D-139). The Dask-marked
blocks run in crates/oatf-py/tests-dask/test_docs_dask.py."""

import pytest

import doc_blocks
from doc_blocks import REPO

DOCS = [REPO / "docs" / "python.md", REPO / "docs" / "scale-out.md"]
BLOCKS = [block for path in DOCS for block in doc_blocks.blocks(path)]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_the_guide_runs_as_shown(path, tmp_path):
    doc_blocks.run(path, tmp_path)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.where)
def test_every_block_runs_or_says_why_not(block):
    why = doc_blocks.check_marker(block)  # raises for a block neither run nor explained
    if why is not None:
        pytest.skip(why)
    assert block.lang == "python" and block.code.strip()


def test_the_harness_catches_a_false_output(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("```python\nprint(1 + 1)\n```\n\n```text\n3\n```\n")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(AssertionError, match="printed something else"):
        doc_blocks.run(doc, work)


def test_the_harness_refuses_an_unexplained_block(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("```sh\nrm -rf /\n```\n\n<!-- doc-test: skip: -->\n```sh\necho\n```\n")
    with pytest.raises(AssertionError, match="not run"):
        doc_blocks.check_marker(doc_blocks.blocks(doc)[0])
    with pytest.raises(AssertionError, match="unknown marker"):
        doc_blocks.check_marker(doc_blocks.blocks(doc)[1])  # a skip needs its reason
