#!/usr/bin/env python3
"""A campaign's cost on one thread against the floor, in every report format (docs/performance.md).

Two measures, for one or more `oatf` binaries side by side:

* CPU time (user + system, from `os.wait4` of each child): ROUNDS interleaved rounds of the floor
  (`paired campaign floor`: every trace read and each line parsed into a `serde_json::Value`) and of
  `RAYON_NUM_THREADS=1 oatf evaluate --quiet --format F --manifest`, each binary's run ratioed to the
  floor's run of the same round; the order of the binaries alternates from round to round. Prints the
  median and the range of the ratios and the floor's CPU times. This VM's CPU time is noisy even when
  it is idle: read the ranges.
* Instructions (`--ir`): `valgrind --tool=callgrind` counts (Ir) of the floor and of each format on a
  smaller campaign, once each. A proxy: it does not depend on the load, but it counts neither the
  kernel's work (page faults, system calls) nor cache misses, so it understates the CPU-time ratios.

    crates/oatf-bench/scripts/campaign-onethread.py [--runs 20000] [--rounds 9] [--ir-runs 2000]
        [--formats human,csv,json,sarif,junit] [--ir] [--no-cpu] [--dir D] [--paired P] BIN...

BIN is an `oatf` binary (e.g. target/release/oatf and a copy of main's); `--paired` defaults to the
`paired` beside the first. The campaigns are written under `--dir` (default target/campaign-onethread)
by `paired campaign write` once and reused.
"""
import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile


def cpu(cmd, env):
    """The CPU time (user + system, seconds) and peak memory (MB) of one run of `cmd`."""
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    # A campaign exits with its worst run's code (0 to 5); a signal is a failure.
    if os.waitstatus_to_exitcode(status) not in range(6):
        sys.exit(f"failed: {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def instructions(cmd, env):
    """The instructions callgrind counts for `cmd` (every thread)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        found = re.search(r"Collected : (\d+)", run.stderr)
        if not found:
            sys.exit(f"callgrind failed: {' '.join(cmd)}\n{run.stderr[-2000:]}")
        return int(found.group(1))


def campaign(paired, root, runs):
    path = root / f"runs-{runs}"
    if not (path / "manifest.yaml").exists():
        subprocess.run([paired, "campaign", "write", "--runs", str(runs), "--dir", str(path)],
                       check=True, stdout=subprocess.DEVNULL)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bins", nargs="+")
    p.add_argument("--runs", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--ir-runs", type=int, default=2000)
    p.add_argument("--formats", default="human,csv,json,sarif,junit")
    p.add_argument("--ir", action="store_true", help="count instructions with callgrind")
    p.add_argument("--no-cpu", action="store_true", help="skip the CPU-time rounds")
    p.add_argument("--dir", default="target/campaign-onethread")
    p.add_argument("--paired")
    a = p.parse_args()
    formats = a.formats.split(",")
    paired = a.paired or str(pathlib.Path(a.bins[0]).parent / "paired")
    root = pathlib.Path(a.dir)
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    with open("/proc/loadavg") as f:
        print("load before:", f.read().split()[:3])

    def evaluate(binary, fmt, d):
        return [binary, "evaluate", "--quiet", "--format", fmt, "--manifest", str(d / "manifest.yaml")]

    def floor(runs, d):
        return [paired, "campaign", "floor", "--runs", str(runs), "--dir", str(d)]

    if not a.no_cpu:
        d = campaign(paired, root, a.runs)
        floors = []
        ratios = {(b, f): [] for b in a.bins for f in formats}
        memory = {}
        for r in range(a.rounds):
            floors.append(cpu(floor(a.runs, d), env)[0])
            order = a.bins if r % 2 == 0 else list(reversed(a.bins))
            for f in formats:
                for b in order:
                    t, m = cpu(evaluate(b, f, d), env)
                    ratios[(b, f)].append(t / floors[-1])
                    memory[(b, f)] = m
        print(f"CPU time / floor's, {a.runs} runs, {a.rounds} interleaved rounds, one thread")
        print("floor: median %.3f s (%.3f-%.3f)" % (statistics.median(floors), min(floors), max(floors)))
        for f in formats:
            for b in a.bins:
                x = ratios[(b, f)]
                print("%-6s %-40s %.2fx (%.2f-%.2f)  peak %d MB" % (
                    f, b, statistics.median(x), min(x), max(x), memory[(b, f)]))
    if a.ir:
        d = campaign(paired, root, a.ir_runs)
        base = instructions(floor(a.ir_runs, d), env)
        print(f"instructions (callgrind Ir, a proxy), {a.ir_runs} runs, one thread")
        print("floor: %d M" % (base // 1_000_000))
        for f in formats:
            for b in a.bins:
                n = instructions(evaluate(b, f, d), env)
                print("%-6s %-40s %d M  %.3fx" % (f, b, n // 1_000_000, n / base))
    with open("/proc/loadavg") as f:
        print("load after:", f.read().split()[:3])


if __name__ == "__main__":
    main()
