"""The CI report formats checked with the standards' own validators, for every example.

SARIF against the OASIS SARIF 2.1.0 JSON schema and GitHub code scanning's documented requirements;
JUnit against the Jenkins/Ant `junit-10.xsd` (the copy pytest tests its own reports with). Run by
`.ci/run` with pytest in the Python virtualenv (`jsonschema`, `xmlschema`), on the `oatf` binary
named by `OATF_BIN` (default `target/debug/oatf`).
"""

import json
import os
import pathlib
import re
import subprocess

import jsonschema
import pytest
import xmlschema

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
EXAMPLES = ROOT / "examples"
OATF = os.environ.get("OATF_BIN", str(ROOT / "target" / "debug" / "oatf"))

SARIF_SCHEMA = json.loads((HERE.parent / "schemas" / "sarif-schema-2.1.0.json").read_text())
SARIF = jsonschema.Draft4Validator(SARIF_SCHEMA)
JUNIT = xmlschema.XMLSchema10(str(HERE.parent / "schemas" / "junit-10.xsd"))


def documents():
    return sorted(p for p in EXAMPLES.glob("*.yaml") if not p.name.endswith(".test.yaml"))


def runs():
    """Every example document with each of its recorded traces."""
    pairs = []
    for document in documents():
        stem = document.name[: -len(".yaml")]
        for trace in sorted(EXAMPLES.glob(f"{stem}.*.jsonl")):
            pairs.append((document, trace))
    assert pairs, "no example traces found"
    return pairs


def oatf(*args, stdin=None, cwd=ROOT):
    done = subprocess.run(
        [OATF, *map(str, args)], cwd=cwd, input=stdin, capture_output=True, timeout=120
    )
    assert done.returncode not in (64, 65, 66, 74), done.stderr.decode()
    return done.stdout.decode()


def check_sarif(text):
    sarif = json.loads(text)
    errors = sorted(SARIF.iter_errors(sarif), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    ids = set()
    for run in sarif["runs"]:
        # Several uploads for one commit do not replace each other.
        automation = run["automationDetails"]["id"]
        assert automation not in ids, automation
        ids.add(automation)
        for rule in run["tool"]["driver"].get("rules", []):
            assert rule["fullDescription"]["text"]
            assert rule["help"]["text"] and rule["help"]["markdown"]
            assert re.fullmatch(r"\d+(\.\d)?", rule["properties"]["security-severity"])
            assert "security" in rule["properties"]["tags"]
        for result in run["results"]:
            fingerprints = result["partialFingerprints"]
            assert fingerprints and all(fingerprints.values())
            for location in result["locations"]:
                artifact = location["physicalLocation"]["artifactLocation"]
                assert not artifact["uri"].startswith(("/", "file:")), artifact
                assert artifact.get("uriBaseId") in run.get("originalUriBaseIds", {}), artifact
        for artifact in run.get("artifacts", []):
            assert not artifact["location"]["uri"].startswith(("/", "file:")), artifact
    return sarif


def check_junit(text):
    JUNIT.validate(text)
    for time in re.findall(r'\btime="([^"]*)"', text):
        assert re.fullmatch(r"\d+(\.\d{1,3})?", time), time
    return text


@pytest.mark.parametrize("document,trace", runs(), ids=lambda p: p.name)
def test_sarif_of_every_example_run(document, trace):
    check_sarif(oatf("evaluate", document.relative_to(ROOT), trace.relative_to(ROOT), "--format", "sarif"))


@pytest.mark.parametrize("document,trace", runs(), ids=lambda p: p.name)
def test_junit_of_every_example_run(document, trace):
    check_junit(oatf("evaluate", document.relative_to(ROOT), trace.relative_to(ROOT), "--format", "junit"))


def test_fingerprints_are_stable_and_distinct():
    document, trace = next((d, t) for d, t in runs() if ".complied." in t.name)
    args = ("evaluate", document.relative_to(ROOT), trace.relative_to(ROOT), "--format", "sarif")
    first, second = json.loads(oatf(*args)), json.loads(oatf(*args))
    prints = [r["partialFingerprints"] for r in first["runs"][0]["results"]]
    assert prints == [r["partialFingerprints"] for r in second["runs"][0]["results"]]
    assert len({json.dumps(p, sort_keys=True) for p in prints}) == len(prints)


def test_uris_are_relative_even_for_absolute_paths_and_stdin():
    document, trace = next((d, t) for d, t in runs() if ".complied." in t.name)
    sarif = check_sarif(oatf("evaluate", document, trace, "--format", "sarif"))
    assert str(ROOT) not in json.dumps(sarif)
    sarif = check_sarif(oatf("evaluate", document, "-", "--format", "sarif", stdin=trace.read_bytes()))
    uris = [a["location"]["uri"] for a in sarif["runs"][0]["artifacts"]]
    assert uris == ["stdin"], uris


def test_an_error_verdict_is_a_junit_error(tmp_path):
    document = documents()[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    text = check_junit(oatf("evaluate", document, empty, "--format", "junit"))
    assert "<error " in text
    assert re.search(r'<testsuites [^>]*errors="[1-9]', text), text


def test_campaign_reports_of_all_examples(tmp_path):
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(
        "runs:\n"
        + "".join(f"  - {{document: {d}, trace: {t}}}\n" for d, t in runs())
    )
    check_sarif(oatf("evaluate", "--manifest", manifest, "--format", "sarif"))
    check_junit(oatf("evaluate", "--manifest", manifest, "--format", "junit"))


def test_junit_of_oatf_test():
    check_junit(oatf("test", "examples", "--format", "junit"))


def test_warnings_and_strict_failures_are_valid_reports(tmp_path):
    """Decisions D-69, D-70: a misspelt target and actor, with and without --strict (exit 6)."""
    document = next(d for d in documents() if d.name.startswith("mcp-tool-poisoning"))
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text(document.read_text().replace('target: "arguments.notes"', 'target: "argumnets.notes"'))
    trace = EXAMPLES / "mcp-tool-poisoning.resisted.jsonl"
    other_actor = tmp_path / "other-actor.jsonl"
    other_actor.write_text(trace.read_text().replace('"actor": "default"', '"actor": "docs-search"'))
    for doc, run in ((misspelt, trace), (document, other_actor)):
        for strict in ((), ("--strict",)):
            sarif = check_sarif(oatf("evaluate", doc, run, "--format", "sarif", *strict))
            notifications = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
            levels = {n["level"] for n in notifications}
            assert levels == ({"error"} if strict else {"warning"}), notifications
            text = check_junit(oatf("evaluate", doc, run, "--format", "junit", *strict))
            assert ('name="warnings"' in text) == bool(strict), text
            manifest = tmp_path / "manifest.yaml"
            complied = EXAMPLES / "mcp-tool-poisoning.untouched.jsonl"
            manifest.write_text(
                f"runs:\n  - {{document: {doc}, trace: {run}}}\n  - {{document: {document}, trace: {complied}}}\n"
            )
            check_sarif(oatf("evaluate", "--manifest", manifest, "--format", "sarif", *strict))
            check_junit(oatf("evaluate", "--manifest", manifest, "--format", "junit", *strict))


def check_validate_sarif(text):
    """`oatf validate --format sarif`: the schema, and what GitHub code scanning needs of each result."""
    sarif = json.loads(text)
    errors = sorted(SARIF.iter_errors(sarif), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert len({r["id"] for r in rules}) == len(rules), rules
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"], rule
        assert rule["help"]["text"] and rule["help"]["markdown"], rule
        assert rule["defaultConfiguration"]["level"] in ("error", "warning"), rule
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"], result
        assert result["level"] in ("error", "warning"), result
        assert result["message"]["text"], result
        assert all(result["partialFingerprints"].values()), result
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert not artifact["uri"].startswith(("/", "file:")), artifact
        assert artifact.get("uriBaseId") in run["originalUriBaseIds"], artifact
    return sarif


def test_validate_sarif_of_the_examples():
    sarif = check_validate_sarif(oatf("validate", "--format", "sarif", "examples"))
    assert sarif["runs"][0]["results"] == []


def test_validate_sarif_of_invalid_documents(tmp_path):
    document = documents()[0].read_text()
    (tmp_path / "unknown-key.yaml").write_text(document.replace("attack:\n", "attack:\n  nonsense: 1\n", 1))
    (tmp_path / "bad-regex.yaml").write_text(
        'oatf: "0.1"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n'
        '  indicators:\n    - {surface: tools/call, target: x, pattern: {regex: "(("}}\n'
    )
    (tmp_path / "not-yaml.yaml").write_text("oatf: [\n")
    (tmp_path / "warned.yaml").write_text(document.replace('oatf: "0.1"\n', "", 1) + 'oatf: "0.1"\n')
    done = subprocess.run(
        [OATF, "validate", "--format", "sarif", ".", "missing.yaml"],
        cwd=tmp_path, capture_output=True, timeout=120,
    )
    assert done.returncode == 2, done.stderr.decode()
    sarif = check_validate_sarif(done.stdout.decode())
    run = sarif["runs"][0]
    rule_ids = {r["ruleId"] for r in run["results"]}
    assert {"parse/type_mismatch", "parse/syntax", "V-013", "W-001"} <= rule_ids, rule_ids
    regions = [r["locations"][0]["physicalLocation"].get("region") for r in run["results"]]
    assert all(region and region["startLine"] >= 1 for region in regions), regions
    assert not run["invocations"][0]["executionSuccessful"]
