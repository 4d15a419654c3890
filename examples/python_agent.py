#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A minimal "shell tool" an LLM agent calls, confined by confine.

The tool runs every command read-only. A command runs with workspace-write
only when the model asks for it (``write: true``) *and* the approval
callback (a person, a policy) says yes. The model gets confine's rendering
back: stdout, ``[stderr]``, and the markers (``[sandbox: file access denied
under read-only mode]``, ``[denied: write /path (mode)]``, ``[exit code:
1]``), so it sees why a write failed, and what it would need, and can ask
for approval. When nothing can confine here,
SANDBOX_UNAVAILABLE comes back to the model as an error: the tool never
switches to danger-full-access by itself.

Runs offline: the "model" is a scripted fake. ``--check`` asserts the
transcript (the Meson suite runs it); ``--unavailable`` simulates a host
where the sandbox cannot run (a pinned Landlock launcher that does not
exist).

    python3 examples/python_agent.py [--workspace DIR] [--keep] [--check] [--unavailable]

Without --workspace it works in a fresh directory under ~/.cache, removed
when it ends (whatever the outcome) unless --keep is given.
"""
import argparse
import os
import shutil
import signal
import sys
import tempfile
from typing import Callable, Dict, List, Optional

try:
    import confine
except ImportError:  # from a source checkout
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "bindings", "python"))
    import confine

Approve = Callable[[str, str], bool]


class ShellTool:
    """The tool: ``{"command": str, "write": bool}`` in, text for the model out."""

    schema = {
        "name": "shell",
        "description": "Run a bash command in the workspace. Read-only unless write is true "
                       "and a person approves.",
        "parameters": {"command": "string", "write": "boolean"},
    }

    def __init__(self, workspace: str, approve: Approve,
                 provider: Optional[confine.Provider] = None, timeout: float = 60):
        self.workspace = workspace
        self.approve = approve
        self.provider = provider
        self.timeout = timeout

    def __call__(self, command: str, write: bool = False) -> str:
        mode = "read-only"
        if write:
            if self.approve(command, "workspace-write"):
                mode = "workspace-write"
            else:
                return "[not approved: workspace-write was refused; nothing ran]"
        try:
            result = confine.bash(command, mode=mode, workspace=self.workspace,
                                  timeout=self.timeout, provider=self.provider)
        except confine.SandboxUnavailable as e:
            # An error for the model and the person; no retry unconfined.
            return "[error: SANDBOX_UNAVAILABLE] " + e.message
        except confine.Error as e:
            return "[error: %s] %s" % (e.code, e.message)
        return result.rendering


class FakeModel:
    """A scripted stand-in for an LLM: it reads each observation and picks
    the next tool call, as a model would."""

    def __init__(self) -> None:
        self.step = 0

    def next_call(self, observation: Optional[str]) -> Optional[Dict[str, object]]:
        self.step += 1
        if self.step == 1:
            return {"command": "ls -a && echo listed", "write": False}
        if self.step == 2:
            return {"command": "echo 'hello from the agent' > notes.txt", "write": False}
        if self.step == 3:
            # the model read the denial marker and asks for write access
            assert observation is not None
            if "[sandbox: file access denied" in observation:
                return {"command": "echo 'hello from the agent' > notes.txt", "write": True}
            return None
        if self.step == 4:
            return {"command": "cat notes.txt", "write": False}
        return None


def agent_loop(tool: ShellTool, model: FakeModel) -> List[Dict[str, object]]:
    transcript: List[Dict[str, object]] = []
    observation: Optional[str] = None
    while True:
        call = model.next_call(observation)
        if call is None:
            return transcript
        observation = tool(str(call["command"]), bool(call.get("write")))
        transcript.append({"call": call, "observation": observation})
        print("model> shell(%r, write=%s)" % (call["command"], call.get("write")))
        print("tool>  " + observation.replace("\n", "\n       "))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", help="default: a fresh directory under ~/.cache, "
                                            "removed at the end")
    parser.add_argument("--keep", action="store_true",
                        help="keep the fresh workspace and print where it is")
    parser.add_argument("--check", action="store_true", help="assert the transcript")
    parser.add_argument("--unavailable", action="store_true",
                        help="simulate a host where the sandbox cannot run")
    args = parser.parse_args()

    workspace = args.workspace
    made = not workspace
    if made:
        # Under $HOME, not /tmp: a workspace-write root under the host's /tmp
        # is refused on the Landlock rung.
        base = os.path.join(os.path.expanduser("~"), ".cache")
        os.makedirs(base, exist_ok=True)
        workspace = tempfile.mkdtemp(prefix="confine-python-agent.", dir=base)
    # A TERM or HUP ends it through the finally below too.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, frame: sys.exit(128 + number))
    try:
        run(workspace, args.check, args.unavailable)
    finally:
        if made and args.keep:
            print("workspace kept: " + workspace)
        elif made:
            shutil.rmtree(workspace, ignore_errors=True)
    return 0


def run(workspace: str, check: bool, unavailable: bool) -> None:
    approvals: List[str] = []

    def approve(command: str, mode: str) -> bool:
        approvals.append(command)
        print("approval> %s for %r: yes (scripted)" % (mode, command))
        return True

    provider = None
    if unavailable:
        provider = confine.Provider(runner="landlock",
                                    landlock_launcher="/nonexistent/landlock-run")
    transcript = agent_loop(ShellTool(workspace, approve, provider), FakeModel())
    if not check:
        return
    notes = os.path.join(workspace, "notes.txt")
    if unavailable:
        assert all(t["observation"].startswith("[error: SANDBOX_UNAVAILABLE] sandbox mode")
                   for t in transcript), transcript
        assert len(transcript) == 2, "the agent escalated on SANDBOX_UNAVAILABLE"
        assert not approvals and not os.path.exists(notes)
    else:
        assert "listed" in transcript[0]["observation"]
        # the marker, then what was refused: what an approval would grant
        refused = os.path.join(os.path.realpath(workspace), "notes.txt")
        assert transcript[1]["observation"].endswith(
            "[sandbox: file access denied under read-only mode]\n"
            "[denied: write %s (mode)]\n[exit code: 1]" % refused), transcript[1]
        assert approvals == ["echo 'hello from the agent' > notes.txt"]
        assert transcript[3]["observation"] == "hello from the agent\n"
        with open(notes) as f:
            assert f.read() == "hello from the agent\n"
    print("ok - python agent example (%s)" % ("unavailable" if unavailable else "confined"))


if __name__ == "__main__":
    sys.exit(main())
