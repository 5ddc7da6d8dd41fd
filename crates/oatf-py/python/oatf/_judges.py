"""Async judges and the ``*_async`` methods (decision D-138 in docs/decisions.md).

The SDK calls a judge (``semantic_evaluator``) synchronously, from the thread that evaluates. A judge
written as ``async def`` returns a coroutine; ``call`` awaits it:

- inside ``await attack.evaluate_*_async(...)`` / ``await evaluator.push_async(...)``, the evaluation runs
  in a worker thread (``loop.run_in_executor``) and each coroutine is handed to the caller's event loop
  (``asyncio.run_coroutine_threadsafe``), where the judge's async client lives; the loop keeps running;
- from a plain synchronous call in a thread without a running event loop (a script), on a private
  event loop (``asyncio.run``) for each call;
- from a synchronous call in a thread whose event loop is running (inside ``async def``, a notebook),
  waiting would block that loop for good: the coroutine is closed and the indicator is ``error`` with the
  evidence saying to use the ``*_async`` method.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from typing import Any, Callable

#: The event loop of the ``*_async`` call whose worker thread is evaluating, if any.
_LOOP: contextvars.ContextVar = contextvars.ContextVar("oatf_judge_loop", default=None)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def call(judge: Callable[..., Any], kwargs: dict) -> Any:
    """Calls ``judge(**kwargs)``; when it returns an awaitable, its result (see the module's text)."""
    score = judge(**kwargs)
    if not inspect.isawaitable(score):
        return score
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is not None:
        if inspect.iscoroutine(score):
            score.close()  # never awaited, by design: no "was never awaited" warning
        raise RuntimeError(
            "the judge is async (it returned an awaitable) and the evaluation was called synchronously "
            "from a running event loop, which waiting would block: use await attack.evaluate_message_async(...), "
            "await attack.evaluate_trace_async(...) or await evaluator.push_async(...)"
        )
    loop = _LOOP.get()
    if loop is not None and loop.is_running():
        return asyncio.run_coroutine_threadsafe(_awaited(score), loop).result()
    return asyncio.run(_awaited(score))


def in_thread(method: Callable[..., Any], args: tuple, kwargs: dict):
    """A coroutine running ``method(*args, **kwargs)`` in a worker thread of the running event loop, with
    async judges run on that loop. The arguments are checked against the method's signature now, so a
    misspelt option raises ``TypeError`` at the call, as it does for the synchronous method."""
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):  # pragma: no cover - every method of the extension has one
        signature = None
    if signature is not None:
        signature.bind(*args, **kwargs)
    return _run(method, args, kwargs)


async def _run(method: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    context.run(_LOOP.set, loop)
    return await loop.run_in_executor(None, functools.partial(context.run, method, *args, **kwargs))
