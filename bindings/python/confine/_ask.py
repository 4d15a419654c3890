# SPDX-License-Identifier: MIT
"""The run's decider (doc/SPEC.md 15, "Ask"): ``ask_host=decide`` on
:func:`confine.run`, :func:`confine.bash` and their asyncio variants (the
table's name; the CLI's ``--ask-host COMMAND``, Node's ``askHost``).

``decide(host, port)`` is asked about each host on neither network list,
once per host and port a run (the proxy keeps each answer). It returns
``True`` (allow), ``False`` (refuse), ``(allow, reason)`` or a mapping
``{"allow": ..., "reason": ...}``; the reason (its first line) reaches the
model in the refusal. An ``async def`` decider works too: under
:func:`confine.arun`/:func:`confine.abash` it runs on the caller's event
loop, else on a loop of its own. It has ``ANSWER_SECONDS`` (20 s, both
packages' bound, inside the CLI's 25 s and the proxy's 30 s): a decider that raises, answers
anything but a bool, or has not answered by then refuses the host, with a
reason saying which. A sync decider runs on a thread of its own so that
the bound holds; one that never returns keeps that (daemon) thread. The
library itself asks on a thread of its own too, and does not wait past
the run's timeout or its end (red team R3-F2): the callback it calls is
kept alive a while after the run settles (``_Retainer``), so a question
still being answered when the run ended returns into live code."""
from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import inspect
import threading
import time
from typing import Any, Callable, List, Mapping, Optional, Tuple

from . import _ffi
from ._errors import InvalidPolicy, UsageError

# Past it the answer is a refusal: the packages' bound (doc/SPEC.md 15,
# "Ask"), inside the CLI's 25 s and the proxy's 30 s.
ANSWER_SECONDS = 20.0

Decider = Callable[[str, int], Any]


def check(ask_host: Any, call: str) -> Optional[Decider]:
    """The decider of a call, checked: a callable or None. ``wrap`` takes
    none (its argv is spawned by another process, which has no one to ask:
    the CLI's ``wrap --ask-host`` is the same usage error)."""
    if ask_host is None:
        return None
    if call == "wrap":
        raise UsageError("option 'ask_host' is for run and bash only: a wrap argv is "
                         "spawned by another process, which has no decider to ask",
                         option="ask_host")
    if not callable(ask_host):
        raise InvalidPolicy("policy option 'ask_host': expected a callable (host, port) -> "
                            "bool or (allow, reason), not %s" % type(ask_host).__name__,
                            option="ask_host")
    return ask_host  # type: ignore[no-any-return]


def _verdict(answer: Any) -> Tuple[bool, str]:
    """(allow, reason) of what the decider returned; anything but a bool
    (alone, first in a pair, or a mapping's "allow") refuses."""
    allow: Any = answer
    reason: Any = ""
    if isinstance(answer, tuple) and len(answer) == 2:
        allow, reason = answer
    elif isinstance(answer, Mapping):
        allow, reason = answer.get("allow"), answer.get("reason", "")
    if not isinstance(allow, bool):
        return False, ("the decider answered %.80r, not True, False or (allow, reason)"
                       % (answer,))
    return allow, "" if reason is None else str(reason)


def _one_line(reason: str, size: int) -> bytes:
    """The reason's first line, control bytes made spaces, cut (on a
    character) to fit `size` bytes with its NUL."""
    line = reason.splitlines()[0] if reason.splitlines() else ""
    line = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in line)
    raw = line.encode("utf-8", "replace")[:max(size - 1, 0)]
    return raw.decode("utf-8", "ignore").encode("utf-8")


class _Asker:
    """One run's decider, as the library's ask_host callback."""

    def __init__(self, decide: Decider, loop: Optional[asyncio.AbstractEventLoop]):
        self.decide = decide
        self.loop = loop  # the caller's loop (arun/abash), or None

    def _call(self, host: str, port: int, box: List[Any], done: threading.Event,
              bound: float) -> None:
        try:
            answer = self.decide(host, port)
            if inspect.isawaitable(answer):
                answer = self._await(answer, bound)
            box.append(_verdict(answer))
        except _Late:
            box.append((False, _late(bound)))
        except BaseException as e:  # the decider's failure refuses the host
            box.append((False, "the decider raised %s: %s" % (type(e).__name__, e)))
        finally:
            done.set()

    def _await(self, awaitable: Any, bound: float) -> Any:
        """An async decider's answer: on the caller's loop when there is
        one, else on a loop of this thread's own; _Late past the bound."""
        async def wait() -> Any:
            return await awaitable
        if self.loop is not None and self.loop.is_running():
            future = asyncio.run_coroutine_threadsafe(wait(), self.loop)
            try:
                return future.result(bound)
            except concurrent.futures.TimeoutError:
                future.cancel()
                raise _Late() from None

        async def bounded() -> Any:
            try:
                return await asyncio.wait_for(wait(), bound)
            except asyncio.TimeoutError:
                raise _Late() from None
        return asyncio.run(bounded())

    def answer(self, host: str, port: int) -> Tuple[bool, str]:
        """(allow, reason) within the bound, on a thread of its own."""
        bound = ANSWER_SECONDS
        box: List[Any] = []
        done = threading.Event()
        t = threading.Thread(target=self._call, args=(host, port, box, done, bound),
                             name="confine-ask", daemon=True)
        t.start()
        if not done.wait(bound) or not box:
            return False, _late(bound)
        return box[0]  # type: ignore[no-any-return]


class _Late(Exception):
    """The decider's answer came after the bound."""


def _late(bound: float) -> str:
    return "the decider did not answer within %g s" % bound


# Callbacks of settled runs, kept until no library thread can still be in
# one: a question handed to it before the run settled returns within the
# bound (ANSWER_SECONDS), so GRACE past it none is.
_graveyard: List[Tuple[float, Any]] = []
_graveyard_lock = threading.Lock()


def _grace() -> float:
    return ANSWER_SECONDS + 30.0


class _Retainer:
    """Held in a run's `keep` list: when the run lets go of it, its
    callback goes to the graveyard (and older ones leave it)."""

    def __init__(self, fn: Any):
        self.fn = fn

    def __del__(self) -> None:
        now = time.monotonic()
        with _graveyard_lock:
            _graveyard[:] = [(t, f) for t, f in _graveyard if now - t < _grace()]
            _graveyard.append((now, self.fn))


def callback(decide: Optional[Decider], keep: List[Any],
             loop: Optional[asyncio.AbstractEventLoop] = None) -> Any:
    """confine_spawn_options.ask_host for `decide` (kept alive in `keep`
    until the run settles), or None."""
    if decide is None:
        return None
    asker = _Asker(decide, loop)

    def call(_data: Any, host: bytes, port: int, reason: Any, size: int) -> bool:
        try:
            allow, why = asker.answer(host.decode("utf-8", "replace"), int(port))
            raw = _one_line(why, size)
        except BaseException:  # never into C: refuse
            allow, raw = False, b"the decider failed"[:max(size - 1, 0)]
        if size > 0:
            ctypes.memmove(reason, raw + b"\0", len(raw) + 1)
        return allow

    fn = _ffi.ASK_HOST_FN(call)
    keep.append(_Retainer(fn))
    return fn
