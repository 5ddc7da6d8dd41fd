"""Campaigns without an engine: plan runs (documents x traces, or a manifest) and evaluate a list of runs.

This module is what ``oatf.dask`` distributes, and what a Ray or Spark job calls per partition
(``docs/scale-out.md``). The rows are built by the Rust SDK (``oatf::report::campaign``): the same columns,
in the same order, as ``oatf evaluate --manifest FILE --format csv``, plus ``wall_time`` (seconds).

    import oatf.campaign as oc
    runs = oc.plan(["examples/mcp-tool-poisoning.yaml"], ["traces/"])
    rows = oc.evaluate_runs(runs)          # a list of tuples, columns oc.COLUMNS
    print(oc.summary(rows))

Traces are local paths, directories, globs, or fsspec URLs (``s3://``, ``gcs://``, ``file://``,
``memory://``; fsspec is needed only for URLs), plain or compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``:
decompressed by extension, local files and URLs alike). A trace is opened and streamed where its run is
evaluated, never read by the planner. A trace that cannot be read or parsed gives a row with its error.
"""

from __future__ import annotations

import bz2
import glob as _glob
import gzip
import lzma
import os
import pathlib
import time
import warnings
from pathlib import PurePath
from typing import Any, Iterable, NamedTuple, Optional, Sequence

from . import _oatf
from ._oatf import Attack, Document

__all__ = [
    "COLUMNS",
    "COMPRESSIONS",
    "COUNT_COLUMNS",
    "Run",
    "evaluate_runs",
    "load_documents",
    "expand_traces",
    "is_trace_name",
    "plan",
    "plan_manifest",
    "summary",
    "format_summary",
]

_COLUMN_KINDS = _oatf.campaign_columns()
#: The columns of a row: those of ``oatf evaluate --manifest --format csv``, then ``wall_time``.
COLUMNS: tuple = tuple(name for name, _ in _COLUMN_KINDS) + ("wall_time",)
#: The columns holding counts (an int, or None in a run without a verdict).
COUNT_COLUMNS: tuple = tuple(name for name, is_count in _COLUMN_KINDS if is_count)

#: What a directory of traces contributes: JSON Lines by extension (as the CLI), each also compressed.
TRACE_EXTENSIONS = (".jsonl", ".ndjson")
#: Compressed traces, by their last extension: decompressed on the fly (one owner, ``_open_trace``, for
#: local files and URLs alike; decision D-139). ``.zst`` needs Python 3.14 or the ``zstandard`` package.
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")
#: Directories nested deeper than this under a trace directory are not walked (as the CLI).
MAX_WALK_DEPTH = 32


class Run(NamedTuple):
    """One run: a document (its name in the rows, and the compiled attack, or None when the document
    could not be loaded) against one trace (a path or URL), with its group (the ``group`` column: a
    manifest's ``group:``, for example the model that produced the trace) or None, in the compatibility
    profile ``compat`` (``None``: the one given to ``evaluate_runs``).

    document: str
    attack: Optional[Attack]
    trace: str
    group: Optional[str] = None
    compat: Optional[str] = None


#: The compatibility profiles (``compat=``; docs/guide.md, "Re-scoring a benchmark").
COMPAT_PROFILES: tuple = tuple(_oatf._compat_profiles())


def _checked_compat(compat: Any, where: str) -> Optional[str]:
    if compat is not None and compat not in COMPAT_PROFILES:
        raise ValueError(
            f"{where}unknown compatibility profile {compat!r}; expected one of: {', '.join(COMPAT_PROFILES)}"
        )
    return compat


def _is_url(text: str) -> bool:
    return "://" in text


def _has_magic(text: str) -> bool:
    return any(c in text for c in "*?[")


def _compression(name: str) -> Optional[str]:
    lower = name.lower()
    return next((ext for ext in COMPRESSIONS if lower.endswith(ext)), None)


def is_trace_name(name: str) -> bool:
    """Whether a directory listing takes ``name`` as a trace: ``*.jsonl`` or ``*.ndjson``, plain or
    compressed (``COMPRESSIONS``)."""
    compression = _compression(name)
    if compression is not None:
        name = name[: -len(compression)]
    return name.endswith(TRACE_EXTENSIONS)


def _no_trace_file(where: str) -> ValueError:
    return ValueError(f"no trace file (*.jsonl, *.ndjson, plain or {', '.join(COMPRESSIONS)}) under {where}")


def _path_key(path: str):
    # The CLI sorts PathBufs, which compare component by component.
    return PurePath(path).parts


def _walk(root: str) -> list:
    """The trace files under a local directory, as the CLI finds them: sorted, hidden entries skipped,
    links to directories not followed, at most MAX_WALK_DEPTH levels."""
    found = []
    stack = [(root, 0)]
    while stack:
        directory, depth = stack.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                path = os.path.join(directory, entry.name)
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_WALK_DEPTH:
                        stack.append((path, depth + 1))
                elif is_trace_name(entry.name):
                    found.append(path)
    return sorted(found, key=_path_key)


def _fs(url: str, storage_options: Optional[dict]):
    try:
        import fsspec
    except ImportError as e:  # pragma: no cover - fsspec comes with the [dask] extra
        raise ImportError(f"{url}: reading URLs needs fsspec (pip install 'oatf[dask]')") from e
    fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    return fs, path


def expand_traces(traces: Iterable[Any], *, storage_options: Optional[dict] = None) -> list:
    """Trace names for ``traces``: each a file (kept as given, even when missing: its run reports it),
    a directory (every ``*.jsonl``/``*.ndjson`` under it, plain or compressed), a glob, or an fsspec URL of
    any of these. Only listings are read here, never a trace."""
    out = []
    for trace in traces:
        trace = os.fspath(trace)
        if _is_url(trace):
            fs, path = _fs(trace, storage_options)
            if _has_magic(path):
                names = fs.glob(path)
            elif fs.isdir(path):
                names = [p for p in fs.find(path) if is_trace_name(p)]
                if not names:
                    raise _no_trace_file(trace)
            else:
                out.append(trace)
                continue
            out.extend(sorted(fs.unstrip_protocol(n) for n in names))
        elif _has_magic(trace) and not os.path.exists(trace):
            out.extend(sorted(_glob.glob(trace, recursive=True), key=_path_key))
        elif os.path.isdir(trace):
            found = _walk(trace)
            if not found:
                raise _no_trace_file(trace)
            out.extend(found)
        else:
            out.append(trace)
    return out


def _read_text(name: str, storage_options: Optional[dict]) -> str:
    fs, path = _fs(name, storage_options)
    with fs.open(path, "rb") as f:
        return f.read().decode("utf-8")


def load_documents(documents: Iterable[Any], *, storage_options: Optional[dict] = None) -> list:
    """``(name, Attack or None)`` for each document: a path (or fsspec URL) named by itself, YAML text
    or a ``Document`` named by its attack id. A path that cannot be loaded gives None (its runs are
    rows with the error, as in the CLI) and a warning with the diagnostics; invalid text raises."""
    loaded = []
    for index, document in enumerate(documents):
        if isinstance(document, Attack):
            loaded.append((document.attack_id or f"<document {index}>", document))
            continue
        if isinstance(document, Document):
            loaded.append((document.id or f"<document {index}>", _oatf.compile(document)))
            continue
        if isinstance(document, str) and "\n" not in document and _is_url(document):
            name = document
            try:
                loaded.append((name, _oatf.compile(_oatf.load(_read_text(name, storage_options)))))
            except Exception as e:
                warnings.warn(f"{name}: {e}", stacklevel=2)
                loaded.append((name, None))
            continue
        if isinstance(document, os.PathLike) or (isinstance(document, str) and "\n" not in document):
            name = os.fspath(document)
            try:
                loaded.append((name, _oatf.compile(_oatf.load(pathlib.Path(name)))))
            except (OSError, _oatf.LoadError) as e:
                warnings.warn(f"{name}: {e}", stacklevel=2)
                loaded.append((name, None))
            continue
        attack = _oatf.compile(_oatf.load(document))
        loaded.append((attack.attack_id or f"<document {index}>", attack))
    return loaded


def plan(documents: Iterable[Any], traces: Iterable[Any], *, storage_options: Optional[dict] = None) -> list:
    """Every document against every trace (in that order: document by document), as ``oatf evaluate DOC
    TRACE...`` does for one document. A trace of another protocol gives a ``not_exploited`` row whose
    evidence names the protocol filter."""
    names = expand_traces(traces, storage_options=storage_options)
    return [
        Run(name, attack, trace)
        for name, attack in load_documents(documents, storage_options=storage_options)
        for trace in names
    ]


def plan_manifest(manifest: Any, *, storage_options: Optional[dict] = None) -> list:
    """The runs of a campaign manifest, the file ``oatf evaluate --manifest`` reads (``runs``: each a
    ``document`` with a ``trace`` or ``traces``, paths relative to the manifest), in the same order and
    with the same names in the rows. A ``compat`` at the top level is the profile of every run without
    its own ``compat``; runs naming neither use ``evaluate_runs``' ``compat=``."""
    import yaml  # PyYAML comes with dask; the manifest format is plain YAML

    name = os.fspath(manifest)
    text = _read_text(name, storage_options) if _is_url(name) else open(name, encoding="utf-8").read()
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or set(data) - {"compat"} != {"runs"} or not isinstance(data["runs"], list):
        raise ValueError(f"{name}: not a campaign manifest: expected a mapping with `runs` (a list) and `compat`")
    default = _checked_compat(data.get("compat"), f"{name}: compat: ")
    base = name.rsplit("/", 1)[0] if _is_url(name) and "/" in name.split("://", 1)[1] else os.path.dirname(name)

    def join(path: str) -> str:
        if _is_url(path) or os.path.isabs(path):
            return path
        return f"{base}/{path}" if _is_url(base) else os.path.join(base, path)

    documents: dict = {}
    pairs = []
    for index, entry in enumerate(data["runs"]):
        if not isinstance(entry, dict) or "document" not in entry or set(entry) - {"document", "trace", "traces", "group", "compat"}:
            raise ValueError(f"{name}: runs[{index}]: expected `document`, `trace` or `traces`, and optionally `group` and `compat`")
        group = entry.get("group")
        if group is not None and not isinstance(group, str):
            raise ValueError(f"{name}: runs[{index}]: `group` must be a string")
        document = join(str(entry["document"]))
        traces = ([entry["trace"]] if entry.get("trace") is not None else []) + list(entry.get("traces") or [])
        if not traces:
            raise ValueError(f"{name}: runs[{index}] has no `trace` or `traces` for {entry['document']}")
        compat = _checked_compat(entry.get("compat"), f"{name}: runs[{index}]: compat: ") or default
        documents.setdefault(document, None)
        for trace in traces:
            if str(trace) == "-":
                raise ValueError(f"{name}: runs[{index}]: a manifest cannot name standard input")
            for found in expand_traces([join(str(trace))], storage_options=storage_options):
                pairs.append((document, found, group, compat))
    if not pairs:
        raise ValueError(f"{name}: the manifest has no runs")
    attacks = dict(load_documents(list(documents), storage_options=storage_options))
    return [Run(document, attacks[document], trace, group, compat) for document, trace, group, compat in pairs]


def evaluate_runs(
    runs: Iterable[Sequence[Any]],
    *,
    storage_options: Optional[dict] = None,
    max_line_len: Optional[int] = None,
    compat: Optional[str] = None,
) -> list:
    """Evaluates runs (``Run``, or ``(document name, Attack or None, trace)`` with an optional fourth item,
    the group, and fifth, the compatibility profile) one after the other and returns one row (a tuple,
    columns ``COLUMNS``) per run. Plain local traces are opened and streamed by the Rust reader; URLs
    (through fsspec) and compressed traces (``COMPRESSIONS``, local or not) through a Python file object.
    Never raises for a trace: one that cannot be opened or read gives a row with ``result`` ``error`` and
    the reason.

    ``compat`` is the compatibility profile of the runs that name none (``Run.compat``):
    ``"thoughtjack-context"`` scores traces as ThoughtJack's context mode does; the default,
    ``"spec-exact"``, is the spec as written (docs/guide.md, "Re-scoring a benchmark")."""
    _checked_compat(compat, "")
    rows = []
    for run in runs:
        document, attack, trace = run[0], run[1], run[2]
        group = run[3] if len(run) > 3 else None
        run_compat = (run[4] if len(run) > 4 else None) or compat
        started = time.perf_counter()
        if attack is None:
            row = _oatf.failed_run(document, None, trace, "", group=group)
        else:
            row = _evaluate(document, attack, trace, storage_options, (max_line_len, run_compat), group)
        rows.append(row + (time.perf_counter() - started,))
    return rows


def _evaluate(document, attack, trace, storage_options, limits, group=None):
    max_line_len, compat = limits
    if not _is_url(trace) and _compression(trace) is None:
        return _oatf.evaluate_run(document, attack, trace, max_line_len=max_line_len, group=group, compat=compat)
    try:
        f = _open_trace(trace, storage_options)
    except _Unreadable as e:
        return _oatf.failed_run(document, attack, trace, str(e), group=group)
    except Exception as e:  # any failure to open is the run's error, not the campaign's
        return _oatf.failed_run(document, attack, trace, f"{type(e).__name__}: {e}", group=group)
    with f:
        return _oatf.evaluate_run(document, attack, trace, f, max_line_len=max_line_len, group=group, compat=compat)


class _Unreadable(Exception):
    """A local trace that is not a regular file, or does not open (the reason, as the CLI words it)."""


def _open_trace(trace: str, storage_options: Optional[dict]):
    """A binary file object of the trace's messages: a URL opened through fsspec or a local file, then
    decompressed by the trace's extension (``COMPRESSIONS``). The one place where a campaign opens a trace
    in Python (decision D-139)."""
    if _is_url(trace):
        import fsspec

        raw = fsspec.open(trace, "rb", compression=None, **(storage_options or {})).open()
    else:
        problem = _oatf.trace_file_problem(trace)
        if problem is not None:
            raise _Unreadable(problem)
        raw = open(trace, "rb")
    try:
        return _decompressed(raw, _compression(trace))
    except BaseException:
        raw.close()
        raise


def _decompressed(raw, compression: Optional[str]):
    """``raw`` read through the decompressor of ``compression`` (closing the result closes ``raw``)."""
    if compression is None:
        return raw
    if compression == ".gz":
        return _Closing(gzip.GzipFile(fileobj=raw, mode="rb"), raw)
    if compression == ".bz2":
        return _Closing(bz2.BZ2File(raw, mode="rb"), raw)
    if compression == ".xz":
        return _Closing(lzma.LZMAFile(raw, mode="rb"), raw)
    try:
        from compression import zstd  # Python 3.14

        return _Closing(zstd.ZstdFile(raw, mode="rb"), raw)
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError as e:
        raise ImportError("reading .zst traces needs Python 3.14 or the zstandard package") from e
    return _Closing(zstandard.ZstdDecompressor().stream_reader(raw), raw)


class _Closing:
    """A decompressing reader that also closes the file it reads from."""

    def __init__(self, reader, raw):
        self._reader, self._raw = reader, raw

    def read(self, size: int = -1) -> bytes:
        return self._reader.read(size)

    def close(self) -> None:
        try:
            self._reader.close()
        finally:
            self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *_exception) -> None:
        self.close()


def to_pandas(rows: Iterable[Sequence[Any]]):
    """Rows as a pandas DataFrame with the columns' dtypes (counts as nullable ``Int64``)."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=list(COLUMNS))
    return frame.astype(dtypes())


def dtypes() -> dict:
    """The pandas dtype of each column."""
    return {c: ("Int64" if c in COUNT_COLUMNS else "float64" if c == "wall_time" else "object") for c in COLUMNS}


_TIERS = ("boundary_breach", "local_action", "ingested")


def summary(rows: Any) -> dict:
    """Counts like the CLI's campaign summary: runs by result, and exploited or partial runs by max tier
    (``none`` for those without a tier). ``rows`` is a list of rows or a pandas DataFrame."""
    try:
        records = rows[["result", "max_tier"]].itertuples(index=False, name=None)
    except (TypeError, KeyError, IndexError):
        i, j = COLUMNS.index("result"), COLUMNS.index("max_tier")
        records = ((row[i], row[j]) for row in rows)
    by_result = {"exploited": 0, "partial": 0, "not_exploited": 0, "error": 0}
    by_tier = {t: 0 for t in _TIERS + ("none",)}
    total = 0
    for result, tier in records:
        total += 1
        by_result[result if result in by_result else "error"] += 1
        if result in ("exploited", "partial"):
            by_tier[tier if isinstance(tier, str) and tier in by_tier else "none"] += 1
    return {"runs": total, "by_result": by_result, "by_max_tier": by_tier}


def format_summary(counts: dict) -> str:
    """The summary as the CLI's campaign report ends (two lines)."""
    r, t = counts["by_result"], counts["by_max_tier"]
    return (
        f"runs: {counts['runs']} ({r['exploited']} exploited, {r['partial']} partial, "
        f"{r['not_exploited']} not_exploited, {r['error']} error)\n"
        f"max tier of exploited and partial runs: {t['boundary_breach']} boundary_breach, "
        f"{t['local_action']} local_action, {t['ingested']} ingested, {t['none']} without tier\n"
    )
