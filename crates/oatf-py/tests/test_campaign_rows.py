"""Campaign rows from Python file objects (the way fsspec URLs are read): streamed, with flat memory, and a
read error is the run's row, not an exception."""

import io
import json
import pathlib
import subprocess
import sys

import oatf
import oatf.campaign
from conftest import EXAMPLES

DOCUMENT = str(EXAMPLES / "mcp-tool-poisoning.yaml")


class Generated(io.RawIOBase):
    """`count` trace lines produced on demand: the whole trace never exists in memory."""

    def __init__(self, count, fail_after=None):
        self.remaining = count
        self.fail_after = fail_after
        self.given = 0
        self.pending = b""
        line = {"actor": "default", "direction": "incoming", "method": "tools/call",
                "content": {"name": "read_file", "arguments": {"path": "README.md", "pad": "x" * 200}}}
        self.line = (json.dumps(line) + "\n").encode()

    def readable(self):
        return True

    def readinto(self, buffer):
        if self.fail_after is not None and self.given >= self.fail_after:
            raise OSError("connection reset by the object store")
        while len(self.pending) < len(buffer) and self.remaining:
            take = min(self.remaining, 1024)
            self.pending += self.line * take
            self.remaining -= take
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        self.given += n
        return n


def column(row, name):
    return row[oatf.campaign.COLUMNS.index(name)]


def test_a_file_object_is_streamed_with_flat_memory():
    # In a fresh interpreter, so that the peak before the run is this run's baseline, not an earlier test's.
    script = f"""
import io, resource, sys
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
import oatf
from test_campaign_rows import Generated, column
attack = oatf.compile({DOCUMENT!r})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
row = oatf._oatf.evaluate_run("d.yaml", attack, "memory://big.jsonl", io.BufferedReader(Generated(300_000)))
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(column(row, "messages"), column(row, "result"), grown)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    messages, result, grown_kib = done.stdout.split()
    assert (int(messages), result) == (300_000, "not_exploited")  # about 80 MB of trace
    assert int(grown_kib) < 40 * 1024, f"peak memory grew by {grown_kib} KiB"


def test_a_read_error_is_the_runs_row():
    attack = oatf.compile(DOCUMENT)
    source = io.BufferedReader(Generated(100_000, fail_after=3_000_000))
    row = oatf._oatf.evaluate_run("d.yaml", attack, "s3://b/run.jsonl", source)
    assert column(row, "result") == "error"
    assert column(row, "exit_code") == 66
    assert "connection reset" in column(row, "message")
    assert column(row, "messages") is None


def test_rows_of_local_files_and_of_missing_ones(tmp_path):
    runs = oatf.campaign.plan([DOCUMENT], [str(EXAMPLES / "mcp-tool-poisoning.complied.jsonl"), str(tmp_path / "no.jsonl")])
    rows = oatf.campaign.evaluate_runs(runs)
    assert [column(r, "result") for r in rows] == ["exploited", "error"]
    assert column(rows[0], "max_tier") == "boundary_breach" and column(rows[0], "exit_code") == 3
    assert column(rows[1], "exit_code") == 66
    assert column(rows[1], "message").startswith(f"cannot read {tmp_path / 'no.jsonl'}: cannot open the file:")
    assert oatf.campaign.summary(rows)["by_result"] == {"exploited": 1, "partial": 0, "not_exploited": 0, "error": 1}


def test_a_runs_group_is_the_last_column(tmp_path):
    attack = oatf.compile(DOCUMENT)
    trace = str(EXAMPLES / "mcp-tool-poisoning.complied.jsonl")
    assert oatf.campaign.COLUMNS[-2:] == ("group", "wall_time")
    rows = oatf.campaign.evaluate_runs(
        [oatf.campaign.Run("d.yaml", attack, trace, "model-a"), ("d.yaml", attack, trace), ("d.yaml", None, trace, "m")]
    )
    assert [column(r, "group") for r in rows] == ["model-a", None, "m"]
    assert column(rows[2], "exit_code") == 65
    manifest = tmp_path / "m.yaml"
    manifest.write_text(f"runs:\n  - document: {DOCUMENT}\n    trace: {trace}\n    group: model-b\n")
    (run,) = oatf.campaign.plan_manifest(manifest)
    assert run.group == "model-b"
    assert column(oatf.campaign.evaluate_runs([run])[0], "group") == "model-b"
