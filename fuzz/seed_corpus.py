#!/usr/bin/env python3
"""Seeds fuzz/corpus/<target>/ from the conformance corpus and the examples (needs PyYAML).

Usage: python3 fuzz/seed_corpus.py [CORPUS_DIR]   (default: fuzz/corpus beside this file)
"""
import hashlib
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fuzz" / "corpus"


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    directory = OUT / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)


def cases(path):
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except Exception:  # noqa: BLE001 - a fixture we cannot read is just not a seed
        return []
    return loaded if isinstance(loaded, list) else []


def dump(value):
    return json.dumps(value, ensure_ascii=False, default=str)


documents = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "conformance" / "parse").rglob("*.yaml"))]
documents += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.yaml"))]
for directory in ("normalize", "roundtrip", "validate"):
    for path in sorted((ROOT / "conformance" / directory).glob("*.yaml")):
        for case in cases(path):
            if isinstance(case.get("input"), str):
                documents.append(case["input"])
for document in documents:
    put("load", document)
    put("normalize_serialize_roundtrip", document)

for path in sorted((ROOT / "conformance" / "evaluate").glob("*.yaml")):
    for case in cases(path):
        given = case.get("input") or {}
        if "indicator" in given:
            put("evaluate_indicator", dump({"indicator": given["indicator"], "message": given.get("message")}))
            put("evaluate_indicator", dump(given.get("message")))
            cel = (given["indicator"].get("expression") or {}).get("cel")
            if isinstance(cel, str):
                put("cel_eval", cel.replace("\n", " ") + "\n" + dump(given.get("message")))

primitives = ROOT / "conformance" / "primitives"
for case in cases(primitives / "parse-duration.yaml"):
    if isinstance(case.get("input"), str):
        put("parse_duration", case["input"])
for name, target in (("resolve-simple-path.yaml", "resolve_simple_path"),
                     ("resolve-wildcard-path.yaml", "resolve_wildcard_path")):
    for case in cases(primitives / name):
        given = case.get("input") or {}
        if isinstance(given.get("path"), str):
            put(target, given["path"].replace("\n", " ") + "\n" + dump(given.get("value")))
for case in cases(primitives / "interpolate-template.yaml"):
    given = case.get("input") or {}
    if isinstance(given.get("template"), str):
        put("interpolate_template", given["template"].replace("\0", "") + "\0" + dump(given.get("request")))
for case in cases(primitives / "evaluate-predicate.yaml") + cases(primitives / "evaluate-condition.yaml"):
    given = case.get("input") or {}
    put("evaluate_indicator", dump(given.get("value", given.get("message"))))
