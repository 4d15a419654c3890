# SPDX-License-Identifier: MIT
"""TAP for the Python case-table suites (issue 33): one line per case, so
meson (`protocol : 'tap'`) counts what passed, failed, was known-open and
was skipped, as it does for the escape table (tests/escape/run-escape.sh).

    tap = Tap()
    tap.check(cond, "what was proved", detail)   # ok N - ... / not ok N - ...
    tap.skip("what", "why")                      # ok N - what # SKIP why
    tap.todo(cond, "what", "why open")           # not ok N - what # TODO why
    tap.note("text")                             # "# text": meson ignores it
    tap.guard("what", fn, *args)                 # runs fn: an exception is one
                                                 # not ok line, and the run goes on
    tap.ok("what")                               # inside fn: a case whose checks
                                                 # (raising on failure) all held
    tap.user_half(prefix, script, argv, binaries)  # root: the same table again
                                                 # as a created user, folded in
    tap.user_half_start(prefix, script, argv, binaries)  # the same, started
    ...root's cases...                           # now, beside root's cases;
    tap.user_half_finish()                       # its lines folded in here
    return tap.main_beside_user(prefix, script, run)  # a script's main: run(args)
                                                 # here and, from root, as a
                                                 # created user beside it
    status = run_as_created_user(..., relay=tap.relay("user"))
    return tap.done()                            # prints 1..N; 0, or 1 on a failure
    return tap.skip_all("why")                   # 1..0 # SKIP why (exit 0, or 1
                                                 # with CONFINE_MUST_WORK=1)

A created user's half prints its own TAP; relay() renumbers its case lines
into this run (each named "PREFIX: ..."), turns its plan into nothing and
a half that skipped as a whole into one skipped case, and everything else
into "#" lines. user_half_start() runs the half beside root's own cases (a
thread waits for it): its lines are kept and folded in, in their order,
by user_half_finish(), so the output and numbering are those of a run
that did the halves one after the other (issue 33: the halves' cases are
independent, fresh directories under each caller's own $HOME). A suite
that counts host-wide state (cgroups, temp dirs, processes) keeps
user_half(). Meson fails a TAP test that exits non-zero, so done() is the
exit status. Nothing else here prints "ok"/"not ok" at the start of a line:
a stray one would be counted."""
import os
import re
import sys
import threading

_CASE = re.compile(r"^(not ok|ok)\b\s*(?:\d+\b)?\s*(?:-\s*)?(.*)$")
_PLAN = re.compile(r"^1\.\.(\d+)\s*(?:#\s*[Ss][Kk][Ii][Pp]\S*\s*(.*))?$")


def _one_line(text):
    return " ".join(str(text).split())


class Skip(Exception):
    """Raised by a case under guard(): it is skipped, the message its reason."""


class Tap:
    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.n = 0
        self.failed = []

    def _emit(self, line):
        print(line, file=self.out)
        self.out.flush()

    def note(self, text):
        for line in str(text).splitlines() or [""]:
            self._emit("# " + line)

    def _case(self, ok, what, directive="", detail=""):
        self.n += 1
        what = _one_line(what).replace("#", "No.")
        self._emit("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, what, directive))
        if detail:
            self.note(detail)

    def check(self, cond, what, detail=""):
        """One case; returns cond. The detail is printed only on a failure."""
        if not cond:
            self.failed.append(what)
        self._case(bool(cond), what, "", "" if cond else detail)
        return bool(cond)

    def ok(self, what):
        """A case that passed: for suites whose check() raises AssertionError,
        so reaching this line is the proof; the failure is guard()'s line."""
        self._case(True, what)

    def guard(self, what, fn, *args, **kwargs):
        """Runs fn (one case, or a group printing an ok() per case). An
        exception it raises (a failed check, a timeout, a bad reply) is one
        `not ok - what: the exception` and the next case still runs; Skip(why)
        is `ok - what # SKIP why`.
        Returns fn's value, or None after a failure."""
        try:
            return fn(*args, **kwargs)
        except Skip as e:
            self.skip(what, str(e))
            return None
        except Exception as e:  # any: a case that crashed failed
            self.check(False, what, "%s: %s" % (type(e).__name__, str(e)[-1500:]))
            return None

    def user_half(self, prefix, script, argv, binaries,
                  keep_env=("CONFINE_MUST_WORK", "CONFINE_CONFIG")):
        """Root only: the script again as a user made for it, from staged
        copies (as_user.py), its TAP folded into this run as "user: ..."
        cases; its end status one case more."""
        from as_user import run_as_created_user, SKIP
        r = run_as_created_user(prefix, script, argv, binaries, keep_env=keep_env,
                                relay=self.relay("user"))
        if r == SKIP:
            self.skip("the created user's half", "no useradd/runuser here")
        else:
            self.check(r == 0, "the created user's half ended well", "status %d" % r)

    def user_half_start(self, prefix, script, argv, binaries,
                        keep_env=("CONFINE_MUST_WORK", "CONFINE_CONFIG")):
        """Root only: user_half(), started now in a thread beside the
        root cases that follow; user_half_finish() folds its lines in."""
        from as_user import run_as_created_user
        lines, result = [], {}

        def body():
            try:
                result["status"] = run_as_created_user(
                    prefix, script, argv, binaries, keep_env=keep_env,
                    relay=lines.append, note=lines.append)
            except SystemExit as e:  # as_user's "the user is left on the host"
                result["error"] = "as_user exited %s" % e.code
            except Exception as e:  # any: a half that crashed failed
                result["error"] = "%s: %s" % (type(e).__name__, str(e)[-1500:])

        thread = threading.Thread(target=body, name="user half")
        thread.start()
        self._pending_half = (thread, lines, result)

    def user_half_finish(self, discard=False):
        """Waits for the half user_half_start() began and prints it as
        user_half() would have. discard: root skipped as a whole, so the
        half's lines are dropped (a removal that failed still fails)."""
        from as_user import SKIP
        thread, lines, result = self._pending_half
        self._pending_half = None
        thread.join()
        if discard:
            if "error" in result:
                self.check(False, "the created user was removed", result["error"])
            return
        take = self.relay("user")
        for line in lines:
            take(line)
        if "error" in result:
            self.check(False, "the created user's half ended well", result["error"])
        elif result["status"] == SKIP:
            self.skip("the created user's half", "no useradd/runuser here")
        else:
            self.check(result["status"] == 0, "the created user's half ended well",
                       "status %d" % result["status"])

    def main_beside_user(self, prefix, script, run):
        """A case-table script's main: run(args) (sys.argv without
        "--no-nonroot"; it returns None, or why nothing could be tested)
        for this caller and, from root, for a created user beside it
        (user_half_start/finish, the half given the same args and the
        first two, confine and the launcher, as its binaries); the exit
        status. "--no-nonroot": root's half alone."""
        args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
        beside = os.getuid() == 0 and "--no-nonroot" not in sys.argv
        if beside:
            self.user_half_start(prefix, script, args, args[:2])
        why = run(args)
        if beside:
            self.user_half_finish(discard=bool(why))
        return self.skip_all(why) if why else self.done()

    def skip(self, what, why):
        self._case(True, what, " # SKIP " + _one_line(why))

    def todo(self, cond, what, why):
        """A known-open case: fine either way, counted apart by meson."""
        self._case(bool(cond), what, " # TODO " + _one_line(why))

    def relay(self, prefix):
        """A line consumer for run_as_created_user(relay=...): the half's TAP
        folded into this run."""
        state = {"cases": 0}

        def take(line):
            line = line.rstrip("\n")
            m = _PLAN.match(line)
            if m:
                if int(m.group(1)) == 0 and state["cases"] == 0:
                    self.skip(prefix + ": the whole half", m.group(2) or "it tested nothing")
                return
            m = _CASE.match(line)
            if not m:
                if line:
                    self._emit(line if line.startswith("#") else "# " + line)
                return
            state["cases"] += 1
            rest = m.group(2)
            directive = ""
            d = re.search(r"\s#\s*((?:SKIP|TODO)\b.*)$", rest, re.I)
            if d:
                rest, directive = rest[:d.start()], " # " + d.group(1)
            ok = m.group(1) == "ok"
            if not ok and not directive.upper().startswith(" # TODO"):
                self.failed.append(prefix + ": " + rest)
            self._case(ok, prefix + ": " + rest, directive)
        return take

    def done(self):
        self._emit("1..%d" % self.n)
        if self.failed:
            self.note("%d failed: %s" % (len(self.failed), "; ".join(self.failed)))
        return 1 if self.failed else 0

    def skip_all(self, why):
        """Nothing could be tested here: TAP's skip of the whole test; with
        CONFINE_MUST_WORK=1 that is a failure instead."""
        if os.environ.get("CONFINE_MUST_WORK") == "1" and self.n == 0:
            self.check(False, "this host can run the suite (CONFINE_MUST_WORK=1)", why)
            return self.done()
        if self.n:
            self.skip("the rest", why)
            return self.done()
        self._emit("1..0 # SKIP " + _one_line(why))
        return 0
