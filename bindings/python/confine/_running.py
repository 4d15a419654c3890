# SPDX-License-Identifier: MIT
"""One run in flight: its outcome read into fields, its start and finish
(with the signals a caller's process gets passed on), its stdin and argv
as the library takes them."""
from __future__ import annotations

import ctypes
import os
import signal as _signal
import tempfile
import threading
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _ffi, _values
from ._errors import UsageError
from ._provider import _name
from ._results import Clause, Denial, GitHazard, NetworkDecision, Truncated
from ._values import USAGE

PathArg = Union[str, bytes, "os.PathLike[str]"]
StdinArg = Union[None, bytes, str, int, IO[Any]]


def _outcome_fields(o: _ffi.Outcome, mode: str) -> Dict[str, Any]:
    lib = _ffi.lib()
    out = ctypes.string_at(o.stdout_data, o.stdout_len) if o.stdout_data else b""
    err = ctypes.string_at(o.stderr_data, o.stderr_len) if o.stderr_data else b""
    buf = ctypes.create_string_buffer(32)
    signame = lib.confine_signal_name(o.signal, buf, 32).decode() if o.signaled else None
    return dict(
        exit_code=None if o.signaled else o.exit_code,
        signal=signame,
        signal_number=o.signal if o.signaled else None,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        stdout_bytes=out,
        stderr_bytes=err,
        truncated=Truncated(bool(o.stdout_truncated), bool(o.stderr_truncated)),
        denied=bool(o.denied),
        timed_out=bool(o.timed_out),
        runner=_name(lib.confine_runner_name, o.runner) if o.confined else None,
        enforcement=_name(lib.confine_enforcement_name, o.enforcement) if o.confined else None,
        unenforced=tuple(_ffi.strv(o.unenforced)),
        clauses=_clauses(o.clauses, o.n_clauses),
        git_hazards=tuple(GitHazard(path=os.fsdecode(o.git_hazards[i].path or b""),
                                    kind=_ffi.text(o.git_hazards[i].kind))
                          for i in range(o.n_git_hazards)),
        denials=tuple(Denial(op=_ffi.text(o.denials[i].op),
                             path=os.fsdecode(o.denials[i].path) if o.denials[i].path else None,
                             address=(_ffi.text(o.denials[i].address)
                                      if o.denials[i].address else None),
                             clause=_ffi.text(o.denials[i].clause),
                             reason=(_ffi.text(o.denials[i].reason)
                                     if o.denials[i].reason is not None else None))
                      for i in range(o.n_denials)),
        denials_dropped=int(o.denials_dropped),
        network_decisions_dropped=int(o.network_decisions_dropped),
        network_decisions=tuple(NetworkDecision(
            host=_ffi.text(o.network_decisions[i].host), port=int(o.network_decisions[i].port),
            allow=bool(o.network_decisions[i].allow), by=_ffi.text(o.network_decisions[i].by))
            for i in range(o.n_network_decisions)),
        network_denied=bool(o.network_denied),
        limit=({"name": _ffi.text(lib.confine_limit_name(o.limit)), "value": int(o.limit_value),
                "killed": bool(o.limit_killed)} if o.limit_stopped else None),
        peak_memory=int(o.peak_memory) if o.peak_memory >= 0 else None,
        peak_processes=int(o.peak_pids) if o.peak_pids >= 0 else None,
        cpu_seconds=float(o.cpu_seconds) if o.cpu_seconds >= 0 else None,
        mode=mode,
    )


def _clauses(items: Any, n: int) -> Tuple[Clause, ...]:
    """The C report per clause as :class:`Clause` values."""
    lib = _ffi.lib()
    out = []
    for i in range(n):
        c = items[i]
        layers = tuple(_ffi.text(lib.confine_layer_name(b)) for b in range(32)
                       if c.layers & (1 << b) and lib.confine_layer_name(b))
        out.append(Clause(clause=_ffi.text(c.clause),
                          subject=os.fsdecode(c.subject) if c.subject else None,
                          status=_ffi.text(lib.confine_clause_status_name(c.status)),
                          layers=layers,
                          reason=_ffi.text(c.reason) if c.reason else None,
                          needs=_ffi.text(c.needs) if c.needs else None))
    return tuple(out)


class _Running:
    """A started run: the process handle and everything that must outlive
    it until it settles. ``_wait`` blocks; ``kill`` may be called from any
    thread while another waits."""

    def __init__(self, process: int, keep: List[Any],
                 settle: Callable[[int], Any]):
        self._process: Optional[int] = process
        self._keep = keep
        self._settle = settle
        self._lock = threading.Lock()
        self._lib = _ffi.lib()

    def kill(self, sig: int = _signal.SIGKILL) -> None:
        with self._lock:
            if self._process:
                self._lib.confine_process_signal(self._process, sig)

    def _wait(self) -> Any:
        assert self._process is not None
        try:
            return self._settle(self._process)
        finally:
            with self._lock:
                process, self._process = self._process, None
            self._lib.confine_process_free(process)
            self._keep.clear()


def _start_and_finish(start: Callable[[], _Running]) -> Any:
    """Starts a run with ``start`` and waits for it to settle. In the main
    thread both happen in a helper thread, so that Ctrl-C
    (KeyboardInterrupt, raised only in the main thread) always lands here,
    never between the spawn and the handle that can end the run: it kills
    the run, already started or still starting, lets it settle, then
    propagates."""
    if threading.current_thread() is not threading.main_thread():
        return start()._wait()
    box: Dict[str, Any] = {}
    lock = threading.Lock()

    def helper() -> None:
        try:
            running = start()
        except BaseException as e:  # re-raised in the caller
            box["error"] = e
            return
        with lock:
            box["running"] = running
            interrupted = "interrupted" in box
        if interrupted:
            running.kill()
        try:
            box["result"] = running._wait()
        except BaseException as e:  # re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=helper, name="confine-wait", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.5)
    except BaseException:
        with lock:
            box["interrupted"] = True
            running = box.get("running")
        if running is not None:
            running.kill()
        t.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def _stdin_stdio(stdin: StdinArg, keep: List[Any]) -> Tuple[int, int]:
    if stdin is None:
        return _ffi.STDIO_NULL, -1
    if isinstance(stdin, (bytes, bytearray, memoryview, str)):
        if isinstance(stdin, str):
            try:
                data = stdin.encode("utf-8")
            except UnicodeEncodeError:
                raise UsageError("stdin is not valid UTF-8 text (pass bytes)",
                                 option="stdin") from None
        else:
            data = bytes(stdin)
        f = tempfile.TemporaryFile()
        f.write(data)
        f.flush()
        f.seek(0)
        keep.append(f)
        return _ffi.STDIO_FD, f.fileno()
    if isinstance(stdin, int):
        return _ffi.STDIO_FD, stdin
    if hasattr(stdin, "fileno"):
        return _ffi.STDIO_FD, stdin.fileno()
    raise UsageError("stdin must be None, bytes, str, a descriptor or a file, not %s"
                     % type(stdin).__name__, option="stdin")


def _argv_list(argv: Sequence[PathArg]) -> List[bytes]:
    """The argv words, each checked (no NUL), argv[0] not empty."""
    items = _values.paths(argv, "argv", USAGE, "arguments")
    if not items:
        raise UsageError("argv must not be empty", option="argv")
    if not items[0]:
        raise UsageError("argv[0] is an empty string", option="argv")
    return items
