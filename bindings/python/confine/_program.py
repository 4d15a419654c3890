# SPDX-License-Identifier: MIT
"""The program a run starts, looked up before confining (a missing one is
the command's failure, not the sandbox's: doc/SPEC.md 16), and the errors
that say why it could not start."""
from __future__ import annotations

import errno as _errno
import os
import shutil
import stat
from typing import Mapping, Optional

from ._errors import Error, ProgramNotExecutableError, ProgramNotFoundError


def _check_program(program: str, workdir: str, environ: Optional[Mapping[str, str]]) -> None:
    """Resolves the program as the sandbox's execvp will, before anything is
    confined: a missing program is FileNotFoundError (as with subprocess),
    not a runner failure. (bwrap's own "execvp: No such file" would read as
    one.)"""
    if "/" in program:
        full = program if os.path.isabs(program) else os.path.join(workdir, program)
        try:
            st = os.stat(full)
        except OSError:
            raise _not_found(program) from None
        if stat.S_ISDIR(st.st_mode) or not os.access(full, os.X_OK):
            raise _not_executable(program)
        return
    env = os.environ if environ is None else environ
    path = env.get("PATH", os.defpath)
    if shutil.which(program, path=path) is None:
        raise _not_found(program)


def _not_found(program: str, hint: str = "") -> ProgramNotFoundError:
    """SPAWN_FAILED, exit 127 (doc/SPEC.md 16): a FileNotFoundError too."""
    return ProgramNotFoundError("%s: command not found%s" % (program, hint),
                                errno=_errno.ENOENT, filename=program, exit_status=127)


def _not_executable(program: str) -> ProgramNotExecutableError:
    """SPAWN_FAILED, exit 126: a PermissionError too."""
    return ProgramNotExecutableError("%s: Permission denied" % program, errno=_errno.EACCES,
                                     filename=program, exit_status=126)


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _program_failure(program: str, workdir: str, root: str,
                     environ: Optional[Mapping[str, str]], error: int) -> Error:
    """The program exists here but not in the sandbox, or cannot be run
    there (the runner's status channel said ENOENT or EACCES after its
    start): the command's failure, as subprocess reports it, not a runner
    failure. bwrap gives workspace-write a private, empty /tmp, so a program
    on the host's /tmp (outside the workspace) is not there: said plainly,
    as `confine run` does."""
    if error != _errno.ENOENT:
        return _not_executable(program)
    if "/" in program:
        full: Optional[str] = program if os.path.isabs(program) else os.path.join(workdir,
                                                                                  program)
    else:
        env = os.environ if environ is None else environ
        full = shutil.which(program, path=env.get("PATH", os.defpath))
    hint = ""
    if full is not None:
        real = os.path.realpath(full)
        if _inside(real, "/tmp") and not _inside(real, root):
            hint = " (in the sandbox, /tmp is private and empty)"
    return _not_found(program, hint)
