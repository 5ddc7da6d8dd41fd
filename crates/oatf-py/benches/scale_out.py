"""Throughput of campaigns: the CLI's own parallel campaign beside oatf.dask on 1 and 2 worker processes.

    OATF_BIN=target/release/oatf python crates/oatf-py/benches/scale_out.py [--traces 300] [--repeat 3]

Use release builds of both (the wheel built by `pip install ./crates/oatf-py` is a release build). The
campaign: the three example documents, each against its own directory of generated traces (the example
traces repeated to about `--messages` messages each). Prints messages per second for each engine (the
median of `--repeat` interleaved rounds) and the per-task overhead of Dask (a campaign of one-message
traces, one run per task, beside the same runs evaluated in-process).
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import oatf.campaign
import oatf.dask
from dask.distributed import Client, LocalCluster

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
KINDS = ("mcp-tool-poisoning", "a2a-skill-poisoning", "ag-ui-prompt-injection")


def generate(root, traces, messages):
    runs = []
    for kind in KINDS:
        directory = root / "traces" / kind
        directory.mkdir(parents=True)
        sources = sorted(EXAMPLES.glob(f"{kind}.*.jsonl"))
        for i in range(traces):
            lines = sources[i % len(sources)].read_text().splitlines()
            # The benign lines repeated first, the example's own run last, so the verdict is the example's.
            filler = [line for line in lines if '"tools/call"' not in line and '"tasks/send' not in line]
            body = (filler * (messages // max(1, len(filler)) + 1))[: max(0, messages - len(lines))] + lines
            (directory / f"run-{i:04}.jsonl").write_text("\n".join(body) + "\n")
        runs.append(f"  - document: {EXAMPLES / (kind + '.yaml')}\n    traces: [traces/{kind}]")
    manifest = root / "campaign.yaml"
    manifest.write_text("runs:\n" + "\n".join(runs) + "\n")
    return manifest


def cli(binary, manifest):
    import resource

    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [binary, "evaluate", "--manifest", str(manifest), "--format", "csv", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    elapsed = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    messages = sum(int(line.split(",")[10] or 0) for line in done.stdout.splitlines()[1:])
    return elapsed, messages, cpu


def worker_cpu(client):
    return sum(client.run(time.process_time).values())


def on_dask(client, manifest, traces_per_task):
    cpu_before = worker_cpu(client)
    started = time.perf_counter()
    frame = oatf.dask.evaluate_campaign(pairs=manifest, traces_per_task=traces_per_task).compute()
    elapsed = time.perf_counter() - started
    return elapsed, int(frame["messages"].sum()), worker_cpu(client) - cpu_before


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--traces", type=int, default=300, help="traces per document")
    parser.add_argument("--messages", type=int, default=2000, help="messages per trace")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--traces-per-task", type=int, default=oatf.dask.DEFAULT_TRACES_PER_TASK)
    parser.add_argument("--overhead-tasks", type=int, default=400)
    args = parser.parse_args()
    binary = os.environ.get("OATF_BIN", str(REPO / "target" / "release" / "oatf"))
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        manifest = generate(root / "big", args.traces, args.messages)
        size = sum(p.stat().st_size for p in (root / "big").rglob("*.jsonl"))
        print(f"campaign: {3 * args.traces} runs, {size / 1e6:.0f} MB of traces, {binary}", file=sys.stderr)
        clusters = {
            n: LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
            for n in (1, 2)
        }
        clients = {n: Client(c, set_as_default=False) for n, c in clusters.items()}
        results = {"cli": [], 1: [], 2: []}
        cpus = {"cli": [], 1: [], 2: []}
        messages = {}
        for _ in range(args.repeat):
            elapsed, count, cpu = cli(binary, manifest)
            results["cli"].append(elapsed)
            cpus["cli"].append(cpu)
            messages["cli"] = count
            for n, client in clients.items():
                with client.as_current():
                    elapsed, count, cpu = on_dask(client, manifest, args.traces_per_task)
                results[n].append(elapsed)
                cpus[n].append(cpu)
                messages[n] = count
        assert len(set(messages.values())) == 1, messages
        total = messages["cli"]
        print(f"| engine | wall time (s, median of {args.repeat}) | messages/s | CPU time of the evaluating processes (s) | messages per CPU-second |")
        print("|---|---|---|---|---|")
        for key, label in (("cli", "`oatf evaluate --manifest` (rayon, 2 cores)"), (1, "oatf.dask, 1 worker process"), (2, "oatf.dask, 2 worker processes")):
            median = statistics.median(results[key])
            cpu = statistics.median(cpus[key])
            print(f"| {label} | {median:.2f} | {total / median:,.0f} | {cpu:.2f} | {total / cpu:,.0f} |")
        print(f"({total:,} messages per round)")

        # Per-task overhead: a campaign of one-message traces as one task per run, beside the same campaign as
        # a single task; the difference per extra task is what the scheduler adds (graph, transfer, result).
        small = root / "small"
        small_manifest = generate(small, args.overhead_tasks // 3, 1)
        tasks = 3 * (args.overhead_tasks // 3)
        one, many = [], []
        with clients[1].as_current():
            on_dask(clients[1], small_manifest, tasks)  # warm: imports and compiled attacks on the worker
            for _ in range(args.repeat):
                one.append(on_dask(clients[1], small_manifest, tasks)[0])
                many.append(on_dask(clients[1], small_manifest, 1)[0])
        with clients[1].as_current():
            cpu_one = on_dask(clients[1], small_manifest, tasks)[2]
            cpu_many = on_dask(clients[1], small_manifest, 1)[2]
        started = time.perf_counter()
        oatf.campaign.evaluate_runs(oatf.campaign.plan_manifest(small_manifest))
        local = time.perf_counter() - started
        per_task = (statistics.median(many) - statistics.median(one)) / (tasks - 1)
        print(
            f"per-task overhead (1 worker): {per_task * 1e3:.2f} ms "
            f"({tasks} one-message runs: {statistics.median(many):.2f} s as {tasks} tasks, "
            f"{statistics.median(one):.2f} s as one task, {local:.3f} s in-process without Dask); "
            f"worker CPU per extra task {(cpu_many - cpu_one) / (tasks - 1) * 1e3:.2f} ms"
        )
        for client in clients.values():
            client.close()
        for cluster in clusters.values():
            cluster.close()


if __name__ == "__main__":
    main()
