"""Shared paths for the oatf Python tests (run from anywhere: `pytest crates/oatf-py/tests`)."""

import pathlib

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
CONFORMANCE = REPO / "conformance"
