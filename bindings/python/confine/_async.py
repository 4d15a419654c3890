# SPDX-License-Identifier: MIT
"""The asyncio variants of run and bash: the start and the wait on worker
threads, a cancellation ending the run's tree."""
from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, Optional, Sequence, TypeVar, cast

from . import _ffi
from ._api import PathArg, StdinArg, _start_bash, _start_run
from ._running import _Running
from ._provider import Provider
from ._results import BashResult, Result

# ---- asyncio ------------------------------------------------------------------

_executor_lock = threading.Lock()
_executor: Optional[ThreadPoolExecutor] = None
T = TypeVar("T")


def _pool() -> ThreadPoolExecutor:
    """The threads that wait for async runs: a wait holds a thread for the
    command's duration, so the pool is wider than asyncio's default."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=64, thread_name_prefix="confine")
        return _executor


async def _end_once_started(loop: asyncio.AbstractEventLoop, pool: ThreadPoolExecutor,
                            starting: "asyncio.Future[_Running]") -> None:
    """After a cancellation during the start: waits for the start to finish
    in its thread, then ends what it started and lets it settle (nothing
    when the start failed)."""
    try:
        running = await starting
    except BaseException:
        return
    running.kill()
    try:
        await loop.run_in_executor(pool, running._wait)
    except BaseException:
        pass


async def _settle_async(start: Callable[[], _Running]) -> Any:
    loop = asyncio.get_running_loop()
    pool = _pool()
    starting = loop.run_in_executor(pool, start)
    try:
        running = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled while the run starts: the start goes on in its thread,
        # and what it starts must not outlive the task. The cleanup is a
        # task of its own, so a second cancellation cannot cut it short.
        cleanup = asyncio.ensure_future(_end_once_started(loop, pool, starting))
        try:
            await asyncio.shield(cleanup)
        except asyncio.CancelledError:
            pass
        raise
    future = loop.run_in_executor(pool, running._wait)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        # Cancelled: end the run's process tree, let the wait settle, go on
        # being cancelled.
        running.kill()
        try:
            await future
        except BaseException:
            pass
        raise


async def arun(argv: Sequence[PathArg], *, mode: str = "read-only",
               workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
               stdin: StdinArg = None, cwd: Optional[PathArg] = None,
               environ: Optional[Mapping[str, str]] = None,
               max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
               provider: Optional[Provider] = None, ask_host: Any = None,
               **policy: Any) -> Result:
    """:func:`run` for asyncio, with its signature: the start and the wait
    happen on worker threads, so the event loop is never blocked. Cancelling
    the task kills the run's process tree. An ``async def`` ``ask_host``
    runs on this task's event loop."""
    loop = asyncio.get_running_loop()
    return cast(Result, await _settle_async(lambda: _start_run(
        argv, mode=mode, workspace=workspace, timeout=timeout, stdin=stdin, cwd=cwd,
        environ=environ, max_output=max_output, provider=provider, ask_host=ask_host,
        loop=loop, **policy)))


async def abash(command: str, *, mode: str = "read-only", workspace: Optional[PathArg] = None,
                timeout: Optional[float] = None, cwd: Optional[PathArg] = None,
                environ: Optional[Mapping[str, str]] = None,
                max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
                provider: Optional[Provider] = None, ask_host: Any = None,
                **policy: Any) -> BashResult:
    """:func:`bash` for asyncio, with its signature (see :func:`arun`)."""
    loop = asyncio.get_running_loop()
    return cast(BashResult, await _settle_async(lambda: _start_bash(
        command, mode=mode, workspace=workspace, timeout=timeout, cwd=cwd, environ=environ,
        max_output=max_output, provider=provider, ask_host=ask_host, loop=loop, **policy)))
