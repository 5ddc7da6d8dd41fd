#!/usr/bin/env python3
"""Compares `oatf evaluate` and `oatf diff` with the independent reference (reference.py) on generated cases.

    python3 crates/oatf-cli/tests/compat_reference/check.py [--oatf target/debug/oatf] [--seed N] [--cases N]

1. Scoring: every generated case (generate.py) is a run of one campaign, scored spec-exact and with
   `--compat thoughtjack-context` (a manifest's top-level and per-run `compat:`, and `--compat`); each verdict's
   result, `max_tier`, every indicator's result and the trace line of each match must equal the reference's, and
   a spec-exact run has the `compat_would_change` warning only when the profile's verdict differs (decision D-101).
2. The matrix (D-105): a campaign of attacks x groups x repeated runs, failed runs among them; each cell's runs,
   worst run, typical tier and consistency must equal the reference's, computed from the reference verdicts, in
   the JSON and the human report, and the CSV's rows their runs with `group` last.
3. `oatf diff` (D-106): the spec-exact and the context-mode reports of one campaign, with runs left out on either
   side and trace paths spelt differently; `changed` (with worse/better), `added`, `removed`, the summary and the
   exit codes (with and without `--fail-on worse`) must equal the reference's.
Exits 1 naming each divergence and keeping the cases (`--keep DIR`, else a temporary directory that is kept on
failure). Needs only Python 3.9+ and the binary; reads nothing outside this directory and the files it writes.
"""

import argparse
import csv
import io
import json
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import generate  # noqa: E402
import reference  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[4]
MODES = (reference.SPEC_EXACT, reference.CONTEXT)


class Check:
    def __init__(self, oatf, work):
        self.oatf = oatf
        self.work = work
        self.failures = []
        self.stats = {}  # what the cases exercised, so that a run shows it tested something

    def count(self, name, n=1):
        self.stats[name] = self.stats.get(name, 0) + n

    def fail(self, message):
        self.failures.append(message)

    def evaluate(self, manifest, *options):
        done = subprocess.run(
            [self.oatf, "evaluate", "--manifest", str(manifest), "--format", "json", "--quiet", *options],
            capture_output=True,
            text=True,
        )
        if done.returncode not in (0, 1, 2, 3, 4, 5, 65, 66) or not done.stdout.startswith("{"):
            raise SystemExit(f"oatf evaluate --manifest {manifest} exited {done.returncode}: {done.stderr[-2000:]}")
        return json.loads(done.stdout)

    def write_case(self, number, document, lines):
        doc = self.work / "docs" / f"case-{number:05d}.json"
        trace = self.work / "traces" / f"case-{number:05d}.jsonl"
        doc.write_text(json.dumps(document, ensure_ascii=False, indent=1))
        trace.write_text("".join(line + "\n" for line in lines))
        return doc, trace

    # --- 1. scoring -------------------------------------------------------------------------------------------------

    def scoring(self, rng, cases):
        gen = generate.Generator(rng)
        expected = {}
        runs = []
        for number in range(cases):
            document, lines = gen.case(number)
            doc, trace = self.write_case(number, document, lines)
            for mode in MODES:
                expected[(trace.name, mode)] = (document, lines, reference.score(document, lines, mode))
                run = {"document": f"docs/{doc.name}", "trace": f"traces/{trace.name}", "group": mode}
                if mode == reference.SPEC_EXACT:
                    run["compat"] = mode
                runs.append(run)
        # The profile as a manifest names it: at the top level for the runs that name none, a run's own
        # `compat:` winning, and `--compat` only for runs whose manifest names none (D-100).
        # Campaigns of at most 4,000 runs: a whole manifest is read within a budget of 250,000 YAML nodes.
        report = {"runs": []}
        for start in range(0, len(runs), 4000):
            manifest = self.work / f"scoring-{start // 4000}.json"
            manifest.write_text(json.dumps({"compat": reference.CONTEXT, "runs": runs[start : start + 4000]}))
            report["runs"] += self.evaluate(manifest, "--compat", reference.SPEC_EXACT)["runs"]
        seen = 0
        by_trace = {}
        for run in report["runs"]:
            name = pathlib.PurePosixPath(run["trace"]).name
            key = (name, run["group"])
            if key not in expected:
                self.fail(f"unexpected run {key}")
                continue
            document, lines, want = expected[key]
            where = f"{run['trace']} ({run['group']})"
            if "verdict" not in run:
                self.fail(f"{where}: no verdict: {run.get('error')}")
                continue
            seen += 1
            got = run["verdict"]
            self.count(f"{run['group']} {want['result']}")
            # the report names the profile when it is not the default
            named = got["trace"].get("compat") or reference.SPEC_EXACT
            if named != run["group"]:
                self.fail(f"{where}: scored with {named}")
            by_trace.setdefault(name, {})[run["group"]] = got
            if (got["result"], got.get("max_tier")) != (want["result"], want["max_tier"]):
                self.fail(
                    f"{where}: verdict {got['result']} ({got.get('max_tier')}), "
                    f"reference {want['result']} ({want['max_tier']})"
                )
            if got["trace"].get("matched_lines", {}) != want["lines"]:
                self.fail(f"{where}: matched lines {got['trace'].get('matched_lines')}, reference {want['lines']}")
            for iv in got["indicator_verdicts"]:
                expected_result = want["indicators"].get(iv["indicator_id"])
                if expected_result is not None and iv["result"] != expected_result:
                    self.fail(
                        f"{where}: indicator {iv['indicator_id']} {iv['result']}, reference {expected_result} "
                        f"({iv.get('evidence', '')[:160]})"
                    )
        if seen != len(expected):
            self.fail(f"{len(expected)} runs expected, {seen} scored")
        self.would_change(expected, by_trace)
        return report

    def would_change(self, expected, by_trace):
        """D-101: the warning only where the profile's verdict differs, and where it must be."""
        for name, verdicts in by_trace.items():
            document, lines, _ = expected[(name, reference.SPEC_EXACT)]
            default = verdicts.get(reference.SPEC_EXACT)
            context = expected[(name, reference.CONTEXT)][2]
            if default is None:
                continue
            kinds = {w["kind"] for w in default.get("warnings", [])}
            differs = (default["result"], default.get("max_tier")) != (context["result"], context["max_tier"])
            self.count("verdicts the profile changes", differs)
            self.count("compat_would_change warnings", "compat_would_change" in kinds)
            warned = "compat_would_change" in kinds
            looks = reference.looks_like_context_mode(document, lines) and "unresolved_target" in kinds
            if warned and not (differs and looks):
                self.fail(f"traces/{name}: compat_would_change warned, but the profile's verdict is the same")
            if looks and differs and not warned:
                self.fail(f"traces/{name}: no compat_would_change warning, though the profile's verdict differs")

    # --- 2. the matrix ----------------------------------------------------------------------------------------------

    def matrix(self, rng, attacks, groups, repeats):
        gen = generate.Generator(rng)
        runs, want_runs = [], []
        number = 100000
        for a in range(attacks):
            document = gen.document(a)
            doc = self.work / "docs" / f"matrix-{a:03d}.json"
            doc.write_text(json.dumps(document, ensure_ascii=False))
            for g in range(groups):
                group = None if g == groups - 1 and a % 2 else f"model-{g}"
                candidates = [gen.trace(document) for _ in range(8)]
                hits = [
                    t for t in candidates
                    if reference.score(document, t, reference.CONTEXT)["result"] != "not_exploited"
                ]
                pool = hits[:2] + candidates[:1]
                for _ in range(rng.randint(1, repeats)):
                    number += 1
                    lines = rng.choice(pool)
                    trace = self.work / "traces" / f"case-{number:06d}.jsonl"
                    missing = rng.random() < 0.03  # an unreadable trace: exit 66, the worst run
                    if not missing:
                        trace.write_text("".join(line + "\n" for line in lines))
                    run = {"document": f"docs/{doc.name}", "trace": f"traces/{trace.name}"}
                    if group is not None:
                        run["group"] = group
                    runs.append(run)
                    if missing:
                        verdict = {"result": "error", "max_tier": None, "exit_code": 66}
                    else:
                        verdict = reference.score(document, lines, reference.CONTEXT)
                    want_runs.append({"attack_id": document["attack"]["id"], "group": group, **verdict})
        # An invalid document (a tier typo, V-050): its runs fail with 65 under the id the report gives them
        invalid = gen.document(attacks)
        invalid["attack"]["indicators"][0]["tier"] = "boundary-breach"
        (self.work / "docs" / "matrix-invalid.json").write_text(json.dumps(invalid))
        for g in range(2):
            runs.append({"document": "docs/matrix-invalid.json", "trace": runs[0]["trace"], "group": f"model-{g}"})
            want_runs.append({"attack_id": f"{self.work / 'docs' / 'matrix-invalid.json'} (not loaded)",
                              "group": f"model-{g}",
                              "result": "error", "max_tier": None, "exit_code": 65})
        rng.shuffle(order := list(range(len(runs))))
        runs = [runs[i] for i in order]
        want_runs = [want_runs[i] for i in order]
        manifest = self.work / "matrix.json"
        manifest.write_text(json.dumps({"compat": reference.CONTEXT, "runs": runs}))
        report = self.evaluate(manifest)
        got_runs = [
            {"attack_id": r["attack_id"], "group": r["group"], "trace": r["trace"],
             "result": r["verdict"]["result"] if "verdict" in r else "error",
             "max_tier": r["verdict"].get("max_tier") if "verdict" in r else None}
            for r in report["runs"]
        ]
        # the report's run order is the manifest's; the reference cells index the same list
        if [pathlib.PurePosixPath(r["trace"]).name for r in got_runs] != [
            pathlib.PurePosixPath(r["trace"]).name for r in runs
        ]:
            self.fail("matrix: the report's runs are not in the manifest's order")
            return
        for got, want in zip(got_runs, want_runs):
            if (got["result"], got["max_tier"]) != (want["result"], want["max_tier"]):
                self.fail(f"matrix: {got['trace']}: {got['result']} ({got['max_tier']}), "
                          f"reference {want['result']} ({want['max_tier']})")
        want_cells = {(c["attack_id"], c["group"]): c for c in reference.matrix(want_runs)}
        got_cells = {(c["attack_id"], c["group"]): c for c in report["matrix"]["cells"]}
        if list(want_cells) != list(got_cells):
            self.fail(f"matrix: cells {list(got_cells)[:6]}..., reference {list(want_cells)[:6]}...")
        self.count("matrix cells", len(want_cells))
        self.count("matrix cells typical at a tier", sum(c["typical_tier"] is not None for c in want_cells.values()))
        self.count("matrix cells not consistent", sum(c["consistency"] < 1 for c in want_cells.values()))
        for key, want in want_cells.items():
            got = got_cells.get(key)
            if got is None:
                continue
            for field in ("runs", "run_indexes", "worst", "typical_tier"):
                if got[field] != want[field]:
                    self.fail(f"matrix cell {key}: {field} {got[field]}, reference {want[field]}")
            if abs(got["consistency"] - want["consistency"]) > 1e-9:
                self.fail(f"matrix cell {key}: consistency {got['consistency']}, reference {want['consistency']}")
        self.matrix_text(manifest, want_runs, list(want_cells.values()))
        attacks_seen = list(dict.fromkeys(r["attack_id"] for r in want_runs))
        groups_seen = list(dict.fromkeys(r["group"] for r in want_runs))
        if report["matrix"]["attacks"] != attacks_seen or report["matrix"]["groups"] != groups_seen:
            self.fail(f"matrix: attacks/groups {report['matrix']['attacks']} {report['matrix']['groups']}, "
                      f"reference {attacks_seen} {groups_seen}")

    def matrix_text(self, manifest, want_runs, cells):
        """The same campaign as CSV (a row per run, `group` the last column) and as the human report's matrix."""
        done = subprocess.run([self.oatf, "evaluate", "--manifest", str(manifest), "--format", "csv", "--quiet"],
                              capture_output=True, text=True)
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
        got = [(r["attack_id"], r["group"] or None, r["result"], r["max_tier"] or None) for r in rows]
        want = [(r["attack_id"], r["group"], r["result"], r["max_tier"]) for r in want_runs]
        if got != want or list(rows[0])[-1] != "group":
            self.fail(f"matrix CSV: rows {got[:3]}..., reference {want[:3]}...")
        done = subprocess.run([self.oatf, "evaluate", "--manifest", str(manifest), "--quiet", "--color", "never"],
                              capture_output=True, text=True)
        lines = done.stdout.splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("matrix (attack x group)")), None)
        if start is None:
            self.fail("matrix: the human report has no matrix")
            return
        for line, cell in zip(lines[start + 2 :], cells):
            worst = cell["worst"]
            if worst["exit_code"] in (65, 66):
                shown = f"no verdict (exit {worst['exit_code']})"
            else:
                shown = worst["result"] + (f" ({worst['max_tier']})" if worst["max_tier"] else "")
            want_line = [cell["attack_id"], cell["group"] or "(no group)", str(cell["runs"]), shown,
                         cell["typical_tier"] or "none", f"{round(cell['consistency'] * 100)}%"]
            if line.split() != " ".join(want_line).split():
                self.fail(f"matrix, human report: {line.strip()!r}, reference {' '.join(want_line)!r}")

    # --- 3. oatf diff -----------------------------------------------------------------------------------------------

    def diff(self, rng, scoring_report):
        runs = scoring_report["runs"]
        old = [dict(r) for r in runs if r["group"] == reference.SPEC_EXACT]
        new = [dict(r) for r in runs if r["group"] == reference.CONTEXT]
        # runs only in one report, and the same trace spelt another way
        old = [r for r in old if rng.random() > 0.03]
        new = [r for r in new if rng.random() > 0.03]
        for r in new:
            r["group"] = rng.choice(["model-a", "model-b", None])
            if rng.random() < 0.2:  # the same file, spelt another way (D-106 normalizes lexically)
                r["trace"] = r["trace"].replace("/traces/", rng.choice(["/traces/./", "/docs/../traces/", "//traces/"]))
        # Every transition of result x tier, and runs without a verdict (D-106: an error result without tier)
        mutated = [self.mutate(rng, r) for r in old]
        cases = [(old, new), (new, old), (old, old), ([], new), (old, mutated), (mutated, old)]
        for index, (before, after) in enumerate(cases):
            self.diff_one(index, before, after)
        # The old report as CSV (D-106: columns by name, the same runs as its JSON)
        csv_old = self.csv_report(old[: len(old) // 3], "diff-csv-old")
        self.diff_one(len(cases), old[: len(old) // 3], new, old_path=csv_old)
        # One evaluation's JSON on each side
        exact = {r["trace"]: r for r in runs if r["group"] == reference.SPEC_EXACT and "verdict" in r}
        pairs = [(exact[r["trace"]], r) for r in runs if r["group"] == reference.CONTEXT and r["trace"] in exact]
        outcome = lambda r: (r["verdict"]["result"], r["verdict"].get("max_tier"))  # noqa: E731
        changed = [p for p in pairs if outcome(p[0]) != outcome(p[1])]
        for index, (a, b) in enumerate(changed[:5] + pairs[:2]):
            self.diff_one(f"single-{index}", [a], [b], single=True)
        # Not a report: exit 2
        bad = self.work / "not-a-report.json"
        bad.write_text('{"oatf": "0.1"}')
        done = subprocess.run([self.oatf, "diff", str(bad), str(bad)], capture_output=True, text=True)
        if done.returncode != 2:
            self.fail(f"diff of a file that is not a report: exit {done.returncode}, expected 2")

    @staticmethod
    def mutate(rng, run):
        """`run` as another report may have it: another result and tier, or no verdict."""
        run = json.loads(json.dumps(run))
        roll = rng.random()
        if roll < 0.05:
            run.pop("verdict", None)
            run["error"] = "cannot read the trace"
        elif roll < 0.5 and "verdict" in run:
            run["verdict"]["result"] = rng.choice(["exploited", "not_exploited", "partial", "error"])
            tier = rng.choice([None, *reference.TIERS])
            run["verdict"].pop("max_tier", None)
            if tier is not None:
                run["verdict"]["max_tier"] = tier
        return run

    def csv_report(self, runs, name):
        """The CSV report of `oatf evaluate` for the scoring runs `runs` (their documents, traces and profiles)."""
        manifest = self.work / f"{name}.json"
        entries = [{"document": r["document"], "trace": r["trace"], "compat": r["group"]} for r in runs]
        manifest.write_text(json.dumps({"runs": entries}))
        done = subprocess.run([self.oatf, "evaluate", "--manifest", str(manifest), "--format", "csv", "--quiet"],
                              capture_output=True, text=True, cwd=self.work)
        path = self.work / f"{name}.csv"
        path.write_text(done.stdout)
        return path

    def single_report(self, run, name):
        """The JSON of one `oatf evaluate DOC TRACE` for the scoring run `run`."""
        done = subprocess.run([self.oatf, "evaluate", run["document"], run["trace"], "--format", "json",
                               "--compat", run["group"]], capture_output=True, text=True, cwd=self.work)
        path = self.work / f"{name}.json"
        path.write_text(done.stdout)
        return path

    def diff_one(self, index, before, after, old_path=None, single=False):
        paths = []
        for side, runs in (("old", before), ("new", after)):
            if side == "old" and old_path is not None:
                paths.append(old_path)
                continue
            if single:
                paths.append(self.single_report(runs[0], f"diff-{index}-{side}"))
                continue
            path = self.work / f"diff-{index}-{side}.json"
            path.write_text(json.dumps({"runs": runs}))
            paths.append(path)
        flat = lambda runs: [  # noqa: E731
            {"attack_id": r["attack_id"], "trace": r["trace"], "group": r["group"],
             "result": r["verdict"]["result"] if "verdict" in r else "error",
             "max_tier": r["verdict"].get("max_tier") if "verdict" in r else None}
            for r in runs
        ]
        old_runs, new_runs = flat(before), flat(after)
        if old_path is not None or single:  # these reports have no group
            for r in old_runs + (new_runs if single else []):
                r["group"] = None
        want = reference.diff(old_runs, new_runs)
        for field in ("changed", "added", "removed"):
            self.count(f"diff {field}", len(want[field]))
        self.count("diff worse", sum(c["worse"] for c in want["changed"]))
        done = subprocess.run([self.oatf, "diff", str(paths[0]), str(paths[1]), "--format", "json"],
                              capture_output=True, text=True)
        if done.returncode not in (0, 1):
            self.fail(f"diff {index}: exit {done.returncode}: {done.stderr[-500:]}")
            return
        got = json.loads(done.stdout)
        differs = bool(want["changed"] or want["added"] or want["removed"])
        if done.returncode != int(differs):
            self.fail(f"diff {index}: exit {done.returncode}, reference {int(differs)}")
        key = lambda r: (r["attack_id"], reference.normalize_path(r["trace"]))  # noqa: E731
        got_changed = sorted(
            (key(c), c["old"]["result"], c["old"].get("max_tier"), c["new"]["result"], c["new"].get("max_tier"),
             c["worse"], c["better"], c["group"]) for c in got["changed"]
        )
        want_changed = sorted(
            (key(c["new"]), c["old"]["result"], c["old"]["max_tier"], c["new"]["result"], c["new"]["max_tier"],
             c["worse"], c["better"], c["new"]["group"] if c["new"]["group"] is not None else c["old"]["group"])
            for c in want["changed"]
        )
        for label, a, b in (("changed", got_changed, want_changed),
                            ("added", sorted(key(r) for r in got["added"]), sorted(key(r) for r in want["added"])),
                            ("removed", sorted(key(r) for r in got["removed"]),
                             sorted(key(r) for r in want["removed"]))):
            if a != b:
                extra = [x for x in a if x not in b][:3]
                missing = [x for x in b if x not in a][:3]
                self.fail(f"diff {index}: {label} differs: only in oatf {extra}, only in the reference {missing}")
        summary = got["summary"]
        want_summary = {
            "old_runs": len(before),
            "new_runs": len(after),
            "changed": len(want["changed"]),
            "worse": sum(c["worse"] for c in want["changed"]),
            "better": sum(c["better"] for c in want["changed"]),
            "added": len(want["added"]),
            "removed": len(want["removed"]),
            "unchanged": len(after) - len(want["added"]) - len(want["changed"]),
        }
        for field, value in want_summary.items():
            if summary.get(field) != value:
                self.fail(f"diff {index}: summary.{field} {summary.get(field)}, reference {value}")
        done = subprocess.run([self.oatf, "diff", str(paths[0]), str(paths[1]), "--fail-on", "worse"],
                              capture_output=True, text=True)
        worse = any(c["worse"] for c in want["changed"])
        if done.returncode != int(worse):
            self.fail(f"diff {index} --fail-on worse: exit {done.returncode}, reference {int(worse)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oatf", default=str(ROOT / "target" / "debug" / "oatf"))
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--keep", help="write the cases here (kept)")
    args = parser.parse_args()
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="oatf-compat-ref-"))
    (work / "docs").mkdir(parents=True, exist_ok=True)
    (work / "traces").mkdir(parents=True, exist_ok=True)
    # some commands run in the work directory: a path to the binary is made absolute, a bare name is found on PATH
    oatf = str(pathlib.Path(args.oatf).resolve()) if "/" in args.oatf else args.oatf
    check = Check(oatf, work)
    rng = random.Random(args.seed)
    report = check.scoring(rng, args.cases)
    check.matrix(rng, attacks=16, groups=4, repeats=7)
    check.diff(rng, report)
    if check.failures:
        for failure in check.failures[:60]:
            print(failure)
        print(f"{len(check.failures)} divergences from the reference (seed {args.seed}, {args.cases} cases); "
              f"the cases are in {work}")
        return 1
    print(f"oatf agrees with the reference: {args.cases} cases x {len(MODES)} profiles, the matrix and oatf diff "
          f"(seed {args.seed})")
    print("; ".join(f"{name}: {n}" for name, n in sorted(check.stats.items())))
    if not args.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
