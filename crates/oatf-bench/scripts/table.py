#!/usr/bin/env python3
"""Prints the markdown table of docs/performance.md from one criterion run saved as a baseline.

Every row pairs two benchmarks of the same criterion group, so both come from the same run:
    cargo bench -p oatf-bench -- --save-baseline NAME
    python3 crates/oatf-bench/scripts/table.py NAME [target/criterion]
"""
import json
import pathlib
import sys

baseline = sys.argv[1] if len(sys.argv) > 1 else "new"
root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "target/criterion")


def median(group, function, parameter):
    path = root / group / function / parameter / baseline / "estimates.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["median"]["point_estimate"]


def fmt(ns):
    if ns is None:
        return "—"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def row(operation, size, ours, reference):
    ratio = f"{reference / ours:.1f}×" if ours and reference else "—"
    print(f"| {operation} | {size} | {fmt(ours)} | {fmt(reference)} | {ratio} |")


print("| operation | size | ours | reference | reference ÷ ours |")
print("|---|---|---|---|---|")
for size in ("0.3kb", "6kb", "20kb", "100kb"):
    for op in ("parse", "validate", "normalize", "serialize", "load"):
        group = f"document_{size}"
        row(f"document {op}", size, median(group, op, "ours"), median(group, op, "reference"))
for size in ("1kb", "10kb", "100kb"):
    group = f"indicator_{size}"
    for op in ("contains", "regex", "any_of", "gt", "exists", "cel_exists_size", "semantic"):
        row(f"indicator {op}", size, median(group, op, "ours"), median(group, op, "reference"))
row("indicator wildcard_contains", "1,000 elements",
    median("indicator_1000_elements", "wildcard_contains", "ours"),
    median("indicator_1000_elements", "wildcard_contains", "reference"))
row("compile 100 indicators vs reference one evaluation", "100 indicators",
    median("compile", "100_indicators", "ours"),
    median("compile", "100_indicators", "reference_one_evaluation"))
row("trace (100 indicators) vs reference", "100k messages",
    median("trace", "100k", "evaluate"), median("trace", "100k", "reference"))
evaluate = median("trace", "100k", "evaluate")
baseline = median("trace", "100k", "serde_json_baseline")
if evaluate and baseline:
    print(f"\ntrace/100k/evaluate ÷ trace/100k/serde_json_baseline: {evaluate / baseline:.2f} "
          f"({fmt(evaluate)} vs {fmt(baseline)})")
