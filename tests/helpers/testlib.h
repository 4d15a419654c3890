/* SPDX-License-Identifier: MIT */
/*
 * Scaffolding shared by the unit and e2e test programs: TAP-style checks,
 * the CONFINE_MUST_WORK rule, facts read off the disk and /proc, and work
 * directories. POSIX only; nothing here calls the library under test (the
 * provider helpers that do are in testlib-confine.h).
 */
#ifndef CONFINE_TESTLIB_H
#define CONFINE_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The exit status meson reads as "skipped". */
#define TL_SKIP 77

/* What follows `sandbox mode "<mode>` in SPEC 4's unavailable message. The
 * vocabulary unit test spells it out on its own, so a typo here fails there. */
#define TL_UNAVAILABLE_TAIL                                                                  \
	"\" is requested but no sandbox backend is usable on this host; refusing to run the " \
	"command unconfined. Install bubblewrap or run a Landlock-enforcing kernel (Linux), "  \
	"ensure sandbox-exec is usable (macOS) \xe2\x80\x94 Windows has no confinement "       \
	"backend yet \xe2\x80\x94 or switch the consumer to danger-full-access."

/* ---- TAP-style checks (the e2e world tests) ---- */

/* Counts one check and prints "ok - ..." or "not ok - ...", after the
 * label when one is set. */
void tl_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every later check line reads "ok - <label>: ..."; NULL for none. The
 * label is not copied. */
void tl_check_label(const char *label);

/* Prints the tally (and, with CONFINE_TEST_TAP=1, TAP's plan: each
 * tl_check is a TAP line); returns the exit status: 0 when every check
 * passed, 1 when one failed or none ran (a run that proved nothing is not a
 * pass). */
int tl_checks_done(void);

/* ---- mechanisms that may be absent ---- */

/* Whether CONFINE_MUST_WORK=1: an absent mechanism is then a failure. */
bool tl_must_work(void);

/* For a mechanism that is absent (`why`): prints the reason (with
 * CONFINE_TEST_TAP=1 as `1..0 # SKIP why`) and returns TL_SKIP, or fails
 * under CONFINE_MUST_WORK=1. */
int tl_skip_or_fail(const char *why);

/* main's exit status: TL_SKIP becomes 0 with CONFINE_TEST_TAP=1. */
int tl_exit(int status);

/* ---- the launcher on disk ---- */

/* The build's landlock-run ($CONFINE_TEST_LAUNCHER) for tests that hand an
 * on-disk launcher to the library (the `wrap` path): where the build lies
 * under /tmp, whose sticky, world-writable mode the trust rule refuses
 * (doc/SPEC.md 4), a copy under
 * $HOME/.cache/confine-tests/launcher. NULL when it is not built. Static. */
const char *tl_launcher(void);

/* ---- copies another user can run ---- */

/* For a root test whose unprivileged half runs `path` as another user
 * (uid 65534): the checkout may be one that user cannot enter (a clone
 * under /root, mode 0700), so this copies the file into a fresh root-owned
 * directory, mode 0755, under $CONFINE_TEST_STAGE_PARENT (default
 * /var/lib; never /tmp, which bwrap hides), removed when the process that
 * made it exits. The copy keeps the file's name and is mode 0755. Returns
 * its path (static), or NULL with the reason printed. The same rule as
 * tests/helpers/stage.sh; the caller still proves the user can run it. */
const char *tl_stage_for_others(const char *path);

/* ---- facts ---- */

/* CLOCK_MONOTONIC in milliseconds. */
long long tl_now_ms(void);

/* Whether anything, a dangling symlink included, is at `path`. */
bool tl_exists(const char *path);

/* Whether the file at `path` holds exactly `want` (up to 255 bytes). */
bool tl_file_holds(const char *path, const char *want);

/* Whether a live process (not a zombie) is in process group `pgid`. A
 * killed orphan stays a zombie until init reaps it, and kill(-pgid, 0)
 * succeeds on zombies, so /proc is read; kill(2) only where there is none. */
bool tl_group_alive(pid_t pgid);

/* Waits up to `ms` for group `pgid` to have no live process; returns
 * whether it has none. The kernel may need a moment to finish members that
 * were sent SIGKILL. */
bool tl_group_gone_within(pid_t pgid, long long ms);

/* Whether a live process runs `sleep <duration>` (argv[0] "sleep" or a path
 * ending in it). /proc shows processes in child PID namespaces too, so this
 * sees inside a sandbox; pick a duration no other process would use. */
bool tl_sleep_running(const char *duration);

/* How long a process that was killed (or is about to be) may take to leave
 * the process table, or a run to reach a step it announces. It only proves
 * that the kill fired, or that the step came at all: what the tests kill
 * would run for minutes, and a loaded machine needs a small part of it. No
 * test uses it as a speed assertion. */
#define TL_GONE_BOUND_MS 60000

/* How many live processes (zombies excluded: they have no environment to
 * read) carry `entry`, a "NAME=VALUE" string, in their environment. A run
 * given such a variable passes it to the runner, the launcher and the
 * command's whole tree (the environment is inherited across fork and exec),
 * and /proc shows processes in a sandbox's PID namespace too. */
int tl_marked_count(const char *entry);

/* Waits up to `ms` for no live process to carry `entry`; returns whether
 * none does. What is left when the bound is reached is sent SIGKILL (so a
 * failing test leaves nothing behind) and listed as a TAP comment. */
bool tl_marked_gone_within(const char *entry, long long ms);

/* ---- files and directories ---- */

/* Makes a fresh directory $HOME/.cache/confine-tests/<prefix>-XXXXXX and
 * writes its canonical path to out (size bytes). $HOME, not a temp dir, so
 * that no temp grant of a sandbox covers it. Returns 0, or -1 with the
 * reason printed as a TAP comment. */
int tl_make_workdir(const char *prefix, char *out, size_t size);

/* Removes `path` and everything below it, symlinks not followed; an empty
 * path is ignored. Returns 0, or -1 with the reason printed. */
int tl_remove_tree(const char *path);

/* Writes `content` to dir/name and gives it `mode`; returns the malloc'd
 * path, or NULL. */
char *tl_write_file(const char *dir, const char *name, const char *content, mode_t mode);

#endif
