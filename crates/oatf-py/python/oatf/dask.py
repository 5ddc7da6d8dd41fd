"""Campaigns on Dask: the same code on a laptop, a LocalCluster or a multi-node cluster.

A thin layer over ``oatf.campaign``: the runs are planned on the client (documents loaded and compiled
once there, traces listed, never read), cut into partitions of ``traces_per_task`` runs, and each partition
is evaluated on a worker by ``oatf.campaign.evaluate_runs``. Attacks travel pickled as their YAML text and
are compiled once per worker process. Needs the ``dask`` extra: ``pip install "oatf[dask]"``.

    from dask.distributed import Client
    import oatf.dask

    client = Client("tcp://scheduler:8786")
    frame = oatf.dask.evaluate_campaign(["attacks/"], ["s3://bucket/traces/"], client=client)
    rows = frame.compute()                 # a pandas DataFrame, one row per (document, trace)
    print(oatf.dask.format_summary(oatf.dask.summary(rows)))

See ``docs/scale-out.md``.
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Iterable, Optional

import dask.dataframe as dd

from . import campaign as _campaign
from .campaign import COLUMNS, Run, format_summary, summary

__all__ = ["COLUMNS", "DEFAULT_TRACES_PER_TASK", "evaluate_campaign", "format_summary", "summary"]

#: Runs per task by default: enough that the per-task overhead of the scheduler (a few milliseconds)
#: is small beside the evaluation of typical traces, few enough to balance the load (docs/scale-out.md).
DEFAULT_TRACES_PER_TASK = 64


def _meta():
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _campaign.dtypes().items()})


def _evaluate_partition(runs, storage_options=None, max_line_len=None, campaign=None, compat=None):
    return _campaign.to_pandas(
        _campaign.evaluate_runs(runs, storage_options=storage_options, max_line_len=max_line_len, compat=compat)
    )


def _listed(items: Any) -> list:
    # One path, URL or document given alone, not a list of them.
    if isinstance(items, (str, bytes, os.PathLike)) or not hasattr(items, "__iter__"):
        return [items]
    return list(items)


def _is_manifest(pairs: Any) -> bool:
    return isinstance(pairs, (str, os.PathLike))


def evaluate_campaign(
    documents: Optional[Iterable[Any]] = None,
    traces: Optional[Iterable[Any]] = None,
    *,
    client: Any = None,
    pairs: Any = None,
    traces_per_task: int = DEFAULT_TRACES_PER_TASK,
    storage_options: Optional[dict] = None,
    max_line_len: Optional[int] = None,
    compat: Optional[str] = None,
) -> "dd.DataFrame":
    """A Dask DataFrame with one row per (document, trace), columns ``COLUMNS`` (those of ``oatf evaluate
    --manifest --format csv``, then ``wall_time``). ``.compute()`` gives a pandas DataFrame.

    ``documents``: paths, fsspec URLs, YAML texts, ``Document``s or ``Attack``s; ``traces``: local paths,
    directories, globs or fsspec URLs (read by the workers). Every document runs against every trace,
    unless ``pairs`` gives the runs: a manifest (the file of ``oatf evaluate --manifest``) or an iterable
    of ``(document, trace)``. With ``client``, the computation starts at once (``client.persist``), so
    that ``distributed.progress(frame)`` and the dashboard show it; without, it runs on ``.compute()``
    with the current scheduler.

    ``compat`` is the compatibility profile of runs that name none (a manifest's ``compat``):
    ``"thoughtjack-context"`` scores traces as ThoughtJack's context mode does (docs/scale-out.md).
    """
    _campaign._checked_compat(compat, "")
    if traces_per_task < 1:
        raise ValueError("traces_per_task must be at least 1")
    if pairs is None:
        if documents is None or traces is None:
            raise TypeError("give documents and traces, or pairs (a manifest or (document, trace) pairs)")
        runs = _campaign.plan(_listed(documents), _listed(traces), storage_options=storage_options)
    elif documents is not None or traces is not None:
        raise TypeError("give documents and traces, or pairs, not both")
    elif _is_manifest(pairs):
        runs = _campaign.plan_manifest(pairs, storage_options=storage_options)
    else:
        runs = _plan_pairs(pairs, storage_options)
    if not runs:
        raise ValueError("the campaign has no runs")
    chunks = [runs[i : i + traces_per_task] for i in range(0, len(runs), traces_per_task)]
    frame = dd.from_map(
        _evaluate_partition,
        chunks,
        storage_options=storage_options,
        max_line_len=max_line_len,
        compat=compat,
        meta=_meta(),
        divisions=None,
        label="oatf-evaluate",
        enforce_metadata=False,
        # A fresh name per campaign (dask names tasks by their arguments): a trace is read again each time,
        # since a file may have changed under the same name.
        campaign=uuid.uuid4().hex,
    )
    if client is not None:
        frame = client.persist(frame)
    return frame


def _plan_pairs(pairs: Iterable[Any], storage_options: Optional[dict]) -> list:
    """Runs of explicit ``(document, trace)`` pairs, or ``(document, trace, group)``; each distinct document
    is loaded once."""
    pairs = [tuple(pair) for pair in pairs]
    keys = {}
    for document, *_ in pairs:
        key = id(document) if not isinstance(document, (str, os.PathLike)) else os.fspath(document)
        keys.setdefault(key, document)
    loaded = dict(zip(keys, _campaign.load_documents(list(keys.values()), storage_options=storage_options)))
    runs = []
    for document, trace, *rest in pairs:
        group = rest[0] if rest else None
        key = id(document) if not isinstance(document, (str, os.PathLike)) else os.fspath(document)
        name, attack = loaded[key]
        for found in _campaign.expand_traces([trace], storage_options=storage_options):
            runs.append(Run(name, attack, found, group))
    return runs
