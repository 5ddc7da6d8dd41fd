"""Campaigns on Dask (oatf.dask) against the CLI's own campaign (`oatf evaluate --manifest --format csv`).

Needs the `dask` extra and the `oatf` binary (OATF_BIN, default target/debug/oatf); `.ci/run` runs it.
A LocalCluster of two worker processes (not threads) evaluates the examples and a generated campaign of
more than 200 traces; every row must equal the CLI's row for the same manifest.
"""

import csv
import gzip
import io
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest
from dask.distributed import Client, LocalCluster, wait

import oatf
import oatf.campaign
import oatf.dask

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
OATF_BIN = os.environ.get("OATF_BIN", str(REPO / "target" / "debug" / "oatf"))
CLI_COLUMNS = oatf.campaign.COLUMNS[: oatf.campaign.COLUMNS.index("wall_time")]
KINDS = ("mcp-tool-poisoning", "a2a-skill-poisoning", "ag-ui-prompt-injection")


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="768MiB",
        dashboard_address=None,
        silence_logs=40,
    )
    with Client(cluster) as client:
        yield client
    cluster.close()


def cli_rows(manifest):
    """The CLI's rows for a manifest, as lists of strings."""
    done = subprocess.run(
        [OATF_BIN, "evaluate", "--manifest", str(manifest), "--format", "csv", "--quiet"],
        capture_output=True,
        text=True,
    )
    assert done.returncode in range(0, 67), done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert tuple(rows[0]) == CLI_COLUMNS
    return rows[1:]


def as_cli(frame):
    """A DataFrame's rows as the CLI writes their fields (no value here starts like a formula)."""
    import pandas as pd

    def text(value):
        return "" if value is None or pd.isna(value) else str(value)

    return [[text(v) for v in row] for row in frame[list(CLI_COLUMNS)].itertuples(index=False, name=None)]


def write_manifest(path, runs):
    """A manifest of ``(document, traces)`` or ``(document, traces, group)`` entries."""
    lines = ["runs:"]
    for document, traces, *group in runs:
        lines.append(f"  - document: {document}")
        lines.append("    traces: [" + ", ".join(traces) + "]")
        if group:
            lines.append(f"    group: {group[0]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def generate(root, per_kind=70):
    """A campaign: each example document against a directory of generated traces (complied, resisted,
    truncated, with malformed lines, empty), plus runs whose trace is missing, whose trace is of another
    protocol, and whose document is invalid."""
    root.mkdir(parents=True, exist_ok=True)
    for kind in KINDS:
        shutil.copy(EXAMPLES / f"{kind}.yaml", root / f"{kind}.yaml")
        sources = sorted(EXAMPLES.glob(f"{kind}.*.jsonl"))
        directory = root / "traces" / kind
        directory.mkdir(parents=True)
        for i in range(per_kind):
            lines = sources[i % len(sources)].read_text().splitlines()
            variant = i % 5
            if variant == 1:
                lines = lines[: max(1, len(lines) // 2)]
            elif variant == 2:
                lines.insert(len(lines) // 2, "{not json")
                lines.append('{"seq": "x"}')
            elif variant == 3 and i % 10 == 3:
                lines = []
            text = "\n".join(lines) + ("\n" if lines else "")
            (directory / f"run-{i:03}.jsonl").write_text(text)
    (root / "broken.yaml").write_text("oatf: '0.1'\nattack:\n  id: X-1\n  nonsense: 1\n")
    return write_manifest(
        root / "campaign.yaml",
        [(f"{kind}.yaml", [f"traces/{kind}"]) for kind in KINDS]
        + [
            ("mcp-tool-poisoning.yaml", ["traces/missing.jsonl", "traces/a2a-skill-poisoning/run-000.jsonl"]),
            ("broken.yaml", ["traces/mcp-tool-poisoning/run-000.jsonl"]),
        ],
    )


def test_examples_equal_the_cli(client, tmp_path):
    manifest = write_manifest(
        tmp_path / "examples.yaml",
        [
            (str(EXAMPLES / f"{kind}.yaml"), [str(p) for p in sorted(EXAMPLES.glob(f"{kind}.*.jsonl"))], group)
            for kind in KINDS
            for group in ("model-a", "model-b")
        ],
    )
    expected = cli_rows(manifest)
    # The group column, last, is each run's manifest group.
    assert [r[-1] for r in expected[:2]] == ["model-a", "model-a"]
    assert {r[-1] for r in expected} == {"model-a", "model-b"}
    frame = oatf.dask.evaluate_campaign(pairs=manifest, client=client, traces_per_task=3).compute()
    assert list(frame.columns) == list(oatf.campaign.COLUMNS)
    assert as_cli(frame) == expected
    assert {r[3] for r in expected} == {"exploited", "partial", "not_exploited"}


def test_a_generated_campaign_equals_the_cli_row_by_row(client, tmp_path):
    manifest = generate(tmp_path / "c")
    expected = cli_rows(manifest)
    assert len(expected) >= 200
    # Every kind of row is there: verdicts of each result, malformed lines, unreadable trace, bad document.
    results = {r[3] for r in expected}
    assert {"exploited", "not_exploited", "error"} <= results
    assert any(r[11] not in ("", "0") for r in expected)
    assert any(r[5] == "66" for r in expected) and any(r[5] == "65" for r in expected)
    with pytest.warns(UserWarning, match="broken.yaml"):
        frame = oatf.dask.evaluate_campaign(pairs=manifest, client=client, traces_per_task=16)
    rows = frame.compute()
    assert as_cli(rows) == expected
    assert (rows["wall_time"] >= 0).all()
    counts = oatf.dask.summary(rows)
    assert counts["runs"] == len(expected)
    assert counts["by_result"]["exploited"] == sum(r[3] == "exploited" for r in expected)
    summary = oatf.dask.format_summary(counts)
    cli_human = subprocess.run(
        [OATF_BIN, "evaluate", "--manifest", str(manifest), "--quiet"], capture_output=True, text=True
    ).stdout
    for line in summary.splitlines():
        assert line in cli_human.splitlines()
    # Each worker compiled each document once, however many partitions it ran.
    stats = client.run(lambda: oatf._oatf._compile_cache_stats())
    for hits, misses in stats.values():
        assert misses <= len(KINDS)
    assert sum(h for h, _ in stats.values()) > 0


def test_documents_times_traces(client, tmp_path):
    manifest = generate(tmp_path / "c", per_kind=10)
    root = manifest.parent
    documents = [str(root / f"{kind}.yaml") for kind in KINDS]
    traces = [str(root / "traces" / "*" / "run-00[0-4].jsonl")]
    frame = oatf.dask.evaluate_campaign(documents, traces, client=client).compute()
    assert len(frame) == len(KINDS) * len(KINDS) * 5
    # A trace of another protocol is not_exploited, never an exploit.
    mcp = frame[frame["attack_id"] == oatf.load(documents[0]).id]
    foreign = mcp[~mcp["trace"].str.contains("mcp-tool-poisoning")]
    assert set(foreign["result"]) <= {"not_exploited", "error"}


def test_a_killed_worker_costs_only_a_retry(client, tmp_path):
    root = tmp_path / "k"
    manifest = generate(root, per_kind=70)
    # Longer traces, so that the campaign is still running when a worker dies.
    for trace in (root / "traces").rglob("*.jsonl"):
        text = trace.read_text()
        trace.write_text(text * 40)
    expected = cli_rows(manifest)
    frame = oatf.dask.evaluate_campaign(pairs=manifest, client=client, traces_per_task=2)
    futures = client.futures_of(frame)
    while sum(f.done() for f in futures) < 3:
        time.sleep(0.01)
    done_before = sum(f.done() for f in futures)
    assert done_before < len(futures), "the campaign ended before the worker could be killed"
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    rows = frame.compute()
    assert as_cli(rows) == expected
    # The nanny started a new worker process in its place.
    deadline = time.time() + 60
    while time.time() < deadline:
        now = client.run(os.getpid)
        if len(now) == 2 and victim not in now.values():
            break
        time.sleep(0.2)
    assert victim not in client.run(os.getpid).values()


def test_a_trace_on_a_file_url(client, tmp_path):
    trace = EXAMPLES / "mcp-tool-poisoning.complied.jsonl"
    packed = tmp_path / "complied.jsonl.gz"
    packed.write_bytes(gzip.compress(trace.read_bytes()))
    document = str(EXAMPLES / "mcp-tool-poisoning.yaml")
    urls = [trace.as_uri(), packed.as_uri(), (tmp_path / "missing.jsonl").as_uri()]
    frame = oatf.dask.evaluate_campaign([document], urls, client=client).compute()
    local = oatf.campaign.evaluate_runs(oatf.campaign.plan([document], [str(trace)]))
    want = as_cli(oatf.campaign.to_pandas(local))[0]
    got = as_cli(frame)
    assert got[0][:2] == want[:2] and got[0][3:] == want[3:] and got[0][2] == urls[0]
    assert got[1][3:] == want[3:]
    assert got[2][3] == "error" and got[2][5] == "66" and "missing.jsonl" in got[2][12]


def test_a_trace_on_a_memory_url_through_the_engine_neutral_function():
    import fsspec

    trace = (EXAMPLES / "ag-ui-prompt-injection.partial.jsonl").read_bytes()
    fs = fsspec.filesystem("memory")
    fs.pipe("/oatf-test/runs/partial.jsonl", trace)
    fs.pipe("/oatf-test/runs/other.ndjson", b"{not json\n")
    document = str(EXAMPLES / "ag-ui-prompt-injection.yaml")
    runs = oatf.campaign.plan([document], ["memory://oatf-test/runs"])
    assert [r.trace for r in runs] == ["memory:///oatf-test/runs/other.ndjson", "memory:///oatf-test/runs/partial.jsonl"]
    rows = oatf.campaign.to_pandas(oatf.campaign.evaluate_runs(runs))
    assert list(rows["result"]) == ["error", "partial"]
    assert list(rows["malformed_lines"]) == [1, 0]
    verdict = oatf.compile(document).evaluate_trace(str(EXAMPLES / "ag-ui-prompt-injection.partial.jsonl"))
    assert rows["matched"][1] == verdict.evaluation_summary["matched"]


def test_a_campaign_reads_its_traces_again(client, tmp_path):
    # Dask names tasks by their arguments; a second campaign over the same names must not reuse the first's
    # results (still held here) after a trace changed.
    trace = tmp_path / "run.jsonl"
    shutil.copy(EXAMPLES / "mcp-tool-poisoning.complied.jsonl", trace)
    document = str(EXAMPLES / "mcp-tool-poisoning.yaml")
    first = oatf.dask.evaluate_campaign([document], [str(trace)], client=client)
    wait(first)
    shutil.copy(EXAMPLES / "mcp-tool-poisoning.resisted.jsonl", trace)
    second = oatf.dask.evaluate_campaign([document], [str(trace)], client=client)
    assert list(first.compute()["result"]) == ["exploited"]
    assert list(second.compute()["result"]) == ["not_exploited"]


def test_compat_goes_through_manifests_and_dask(client, tmp_path):
    """A manifest's `compat:` (top level, a run's own wins) and `compat=` of evaluate_campaign give the
    rows the CLI gives for the same manifest (D-100)."""
    fixtures = REPO / "tests" / "fixtures" / "thoughtjack-context"
    run = f"  - document: {fixtures / 'attack.yaml'}\n    traces: [{fixtures / 'exploited.jsonl'}, {fixtures / 'resisted.jsonl'}]\n"
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text("compat: thoughtjack-context\nruns:\n" + run + run + "    compat: spec-exact\n")
    runs = oatf.campaign.plan_manifest(manifest)
    assert [r.compat for r in runs] == ["thoughtjack-context"] * 2 + ["spec-exact"] * 2
    rows = oatf.dask.evaluate_campaign(pairs=str(manifest), client=client).compute()
    assert list(rows["result"]) == ["exploited", "not_exploited", "not_exploited", "not_exploited"]
    cli = subprocess.run(
        [OATF_BIN, "evaluate", "--manifest", str(manifest), "--format", "csv"], capture_output=True, text=True
    )
    assert [r["result"] for r in csv.DictReader(io.StringIO(cli.stdout))] == list(rows["result"])
    # compat= is the profile of runs that name none.
    plain = tmp_path / "plain.yaml"
    plain.write_text("runs:\n" + run)
    rows = oatf.dask.evaluate_campaign(pairs=str(plain), client=client, compat="thoughtjack-context").compute()
    assert list(rows["result"]) == ["exploited", "not_exploited"]
    with pytest.raises(ValueError, match="runs\\[0\\]: compat: unknown compatibility profile"):
        bad = tmp_path / "bad.yaml"
        bad.write_text("runs:\n" + run + "    compat: thoughtjack\n")
        oatf.campaign.plan_manifest(bad)
