"""The engine-neutral function (oatf.campaign.evaluate_runs) on other engines: the Ray and Spark recipes of
docs/scale-out.md ship partitions of runs to other processes exactly as a process pool does."""

import concurrent.futures
import multiprocessing
import pathlib

import pytest

import oatf.campaign

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


def runs():
    documents = sorted(str(p) for p in EXAMPLES.glob("*.yaml") if not p.name.endswith(".test.yaml"))
    return oatf.campaign.plan(documents, [str(EXAMPLES)])


def without_wall_time(rows):
    return [row[:-1] for row in rows]


def test_partitions_in_other_processes_give_the_same_rows():
    plan = runs()
    assert len(plan) == 3 * 8
    chunks = [plan[i : i + 5] for i in range(0, len(plan), 5)]
    context = multiprocessing.get_context("spawn")  # nothing inherited: attacks travel pickled
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        parts = list(pool.map(oatf.campaign.evaluate_runs, chunks))
    rows = [row for part in parts for row in part]
    assert without_wall_time(rows) == without_wall_time(oatf.campaign.evaluate_runs(plan))
    assert {row[oatf.campaign.COLUMNS.index("result")] for row in rows} == {"exploited", "partial", "not_exploited"}


def test_the_ray_recipe():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        plan = runs()
        chunks = [plan[i : i + 5] for i in range(0, len(plan), 5)]
        evaluate = ray.remote(oatf.campaign.evaluate_runs)
        rows = [row for part in ray.get([evaluate.remote(c) for c in chunks]) for row in part]
        assert without_wall_time(rows) == without_wall_time(oatf.campaign.evaluate_runs(plan))
    finally:
        ray.shutdown()


def test_the_spark_recipe():
    pyspark = pytest.importorskip("pyspark")
    spark = pyspark.sql.SparkSession.builder.master("local[2]").getOrCreate()
    try:
        plan = runs()
        rdd = spark.sparkContext.parallelize(plan, numSlices=5)
        rows = rdd.mapPartitions(lambda part: oatf.campaign.evaluate_runs(list(part))).collect()
        assert without_wall_time(rows) == without_wall_time(oatf.campaign.evaluate_runs(plan))
    finally:
        spark.stop()
