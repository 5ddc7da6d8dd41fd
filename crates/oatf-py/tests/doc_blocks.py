"""Docs that run (decision D-139): the code blocks of a Markdown guide, executed with their shown output.

Conventions in the Markdown (docs/python.md, docs/scale-out.md):

- every ```python block runs, in order, in one namespace per file, with a temporary directory as the
  working directory where ``examples`` is the repository's examples directory;
- a ```text block right after a ```python block (blank lines between allowed) is what that block prints,
  compared with doctest's rules with ELLIPSIS (``...`` stands for any text);
- a block is not run only when the line before its fence is a marker comment, which the reader does not see:
  ``<!-- doc-test: skip: REASON -->`` (never run, a reason is required),
  ``<!-- doc-test: dask -->`` (run by the Dask step, crates/oatf-py/tests-dask, where the extra is installed),
  ``<!-- doc-test: requires MODULE -->`` (run where MODULE imports, else reported as skipped with the reason);
- any other block (```sh, ```json, …) without a marker fails the test: no block is silently left out.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import io
import os
import pathlib
import re
from dataclasses import dataclass, field
from typing import List, Optional

REPO = pathlib.Path(__file__).resolve().parents[3]

_FENCE = re.compile(r"^(`{3,})([\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    path: pathlib.Path
    line: int  # of the opening fence, from 1
    lang: str
    code: str
    marker: Optional[str] = None
    output: Optional[str] = None  # the text block that follows a python block
    notes: List[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        try:
            name = self.path.relative_to(REPO)
        except ValueError:
            name = self.path
        return f"{name}:{self.line}"


def blocks(path: pathlib.Path) -> List[Block]:
    """The fenced blocks of a Markdown file, each with its marker; text blocks that show a python block's
    output are attached to it, not listed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: List[Block] = []
    index = 0
    previous_code_end = None  # index of the line after the last python block's closing fence
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, lang = opening.groups()
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        if end == len(lines):
            raise ValueError(f"{path}:{index + 1}: a code block that is never closed")
        code = "\n".join(lines[index + 1 : end]) + "\n"
        before = index - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = _MARKER.match(lines[before]) if before >= 0 else None
        follows_python = (
            previous_code_end is not None
            and found
            and found[-1].lang == "python"
            and all(not lines[i].strip() for i in range(previous_code_end, index))
        )
        if lang == "text" and follows_python and marker is None:
            found[-1].output = code
        else:
            found.append(Block(path, index + 1, lang, code, marker.group(1) if marker else None))
        previous_code_end = end + 1 if lang == "python" else None
        index = end + 1
    return found


def check_marker(block: Block) -> Optional[str]:
    """Why the block is not run here (None: it runs), or raises for a block that is neither run nor
    explained."""
    marker = block.marker
    if marker is None:
        if block.lang == "python":
            return None
        raise AssertionError(
            f"{block.where}: a ```{block.lang or 'plain'} block that is not run: run it (```python) or say why "
            "with <!-- doc-test: skip: REASON --> on the line before"
        )
    if marker.startswith("skip:") and marker[len("skip:") :].strip():
        return marker[len("skip:") :].strip()
    if marker == "dask":
        return "run by the Dask step (crates/oatf-py/tests-dask/test_docs_dask.py)"
    if marker.startswith("requires "):
        module = marker[len("requires ") :].strip()
        if importlib.util.find_spec(module) is None:
            return f"needs {module}, not installed here"
        return None
    raise AssertionError(f"{block.where}: unknown marker <!-- doc-test: {marker} -->")


def run(path: pathlib.Path, workdir: pathlib.Path, *, dask: bool = False) -> List[str]:
    """Runs the blocks of ``path`` that run here (with ``dask``, the Dask-marked ones too), comparing their
    output; returns the notes of the blocks not run (where and why)."""
    (workdir / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    namespace: dict = {"__name__": "__doc_test__"}
    skipped: List[str] = []
    checker = doctest.OutputChecker()
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for block in blocks(path):
            why = check_marker(block)
            if block.marker == "dask" and dask:
                why = None
            if why is not None:
                skipped.append(f"{block.where}: {why}")
                continue
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                try:
                    exec(compile(block.code, block.where, "exec"), namespace)
                except Exception as e:
                    raise AssertionError(f"{block.where}: the block raised {type(e).__name__}: {e}") from e
            got = printed.getvalue()
            if block.output is not None:
                want = block.output
                if not checker.check_output(want, got, doctest.ELLIPSIS):
                    raise AssertionError(
                        f"{block.where}: the block printed something else than the text block after it shows\n"
                        + checker.output_difference(doctest.Example("", want), got, doctest.ELLIPSIS)
                    )
            elif got.strip():
                raise AssertionError(
                    f"{block.where}: the block prints, but no ```text block after it shows what:\n{got}"
                )
    finally:
        os.chdir(cwd)
        for value in list(namespace.values()):
            # Close what the blocks opened (a Dask Client) so that the next file starts clean.
            if type(value).__name__ == "Client" and hasattr(value, "close"):
                with contextlib.suppress(Exception):
                    value.close()
    return skipped
