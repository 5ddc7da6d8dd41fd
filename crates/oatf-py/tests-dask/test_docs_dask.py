"""docs/scale-out.md runs, its Dask blocks included (a LocalCluster as the page's `Client()` makes one), with
the output it shows compared (the harness and its conventions: crates/oatf-py/tests/doc_blocks.py)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import doc_blocks  # noqa: E402


def test_scale_out_runs_as_shown(tmp_path):
    skipped = doc_blocks.run(doc_blocks.REPO / "docs" / "scale-out.md", tmp_path, dask=True)
    # The blocks not run here are those marked skip (and ray or pyspark where not installed).
    assert all("doc-test" not in note for note in skipped)
    assert (tmp_path / "campaign.parquet").exists()
