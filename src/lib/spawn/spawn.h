/* SPDX-License-Identifier: MIT */
/*
 * The rooms of spawning share one process record. Who lives where:
 *   child.c          the child between start and exec (allocates nothing)
 *   child-clone.c    starting it on Linux: clone(CLONE_VM | CLONE_VFORK)
 *   child-fork.c     starting it everywhere else, and under sanitizers: fork
 *   start.c          validating the options, planning the child, confine_spawn
 *   streams.c        capture and tee of stdout and stderr
 *   tree.c           signalling the run's process tree
 *   tree-linux.c     finding that tree in /proc (Linux); tree-other.c: none
 *   process.c        the run's state machine: poll, wait, classify, free
 * Meson picks exactly one of child-clone.c / child-fork.c and one of
 * tree-linux.c / tree-other.c.
 */
#ifndef CONFINE_SPAWN_SPAWN_H
#define CONFINE_SPAWN_SPAWN_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#include "spawn-internal.h"
#include "util.h"

/* How long, after the leader ended and its group was killed, the output
 * pipes may stay open before we stop reading: only a process that left the
 * group (its own setsid) can still hold them, and its later output is not
 * part of this run. */
#define CF_DRAIN_GRACE_MS 200
/* Without a pidfd the child's end is noticed by polling, first quickly (the
 * fast path of a short command), then backing off to this bound. */
#define CF_FALLBACK_MAX_WAIT_MS 50

/* Questions with the decider at once (doc/SPEC.md 15, "Ask"): past it a
 * question is refused at once. */
#define CF_ASK_OPEN_MAX 16
struct cf_ask_job;

/* ---- the child (child.c, child-clone.c / child-fork.c) ---- */

/* The child moves its own descriptors to this number or above, clear of
 * 0..2 and of the numbers descriptors are placed at. */
#define CF_CHILD_LOW_FD 10

/* What the child reports when it cannot exec. `what` refines SETUP for the
 * message; `step` is what the classifier sees. */
enum cf_child_setup_what {
	CF_WHAT_NONE = 0,
	CF_WHAT_SETSID,
	CF_WHAT_DUP,
	CF_WHAT_CLOEXEC,
	CF_WHAT_SIGNALS,
	CF_WHAT_CGROUP,
};

struct cf_child_report {
	int step;
	int error_number;
	int what;
};

/* Everything the child needs, computed before it starts. */
struct cf_child_plan {
	char *const *argv;
	char *const *envp;
	/* exec candidates: argv[0] itself when it has a slash, else the PATH
	 * search's full names */
	char **candidates;
	const char *workdir;   /* NULL: stay */
	int report_fd;
	int source_fd[3];      /* what fd i becomes; -1: inherit */
	/* the parent's descriptors made for this spawn: at most the report
	 * pipe (2), /dev/null (1), a pipe per captured stream (6) and the
	 * status channel (2); 8 was one short of `confine bash` (report,
	 * /dev/null, two captures, the channel: 9) */
	int internal_fds[15];
	size_t n_internal;
	/* cgroup.procs of the run's own cgroup (cgroup.h): the child writes
	 * "0" to each first, so everything it starts is counted */
	int cgroup_fd[2];
	size_t n_cgroup;
	/* >= 0: exec this descriptor (execveat AT_EMPTY_PATH), not the
	 * candidates (the sealed in-memory launcher) */
	int exec_fd;
	/* descriptors placed at fixed numbers above 2, not close-on-exec
	 * (the status channel's write end; bwrap's inner launcher) */
	int place_src[3];
	int place_at[3];
	size_t n_place;
};

/* The child's whole life: session, streams, descriptor sweep, signals,
 * workdir, exec. Execs or _exits; never returns. */
void cf_child_main(const struct cf_child_plan *plan) __attribute__((noreturn)) CONFINE_HIDDEN;

/* Starts the child running cf_child_main(plan). 0 with *ret_pid, or the
 * errno of the failure. */
int cf_child_start(struct cf_child_plan *plan, pid_t *ret_pid) CONFINE_HIDDEN;

/* ---- the status channel (status.c) ---- */

/* What a runner's status records said (doc/SPEC.md 12). */
struct cf_status {
	bool layers_seen;
	unsigned layers;        /* enum launcher_layer bits */
	bool started;
	bool ended;             /* exit or signal recorded */
	bool signaled;
	int code;               /* exit code or signal number */
	int exec_errno;         /* exec-failed: its errno, else 0 */
	bool bad;               /* a record that did not parse */
	char error[1024];       /* the `error` line, or "" */
	char pending[4096];     /* a partial line */
	size_t n_pending;
	/* The supervisor's `denied` records, decoded, in order, each once; at
	 * most CONFINE_DENIALS_MAX (freed by cf_status_free). */
	confine_denial *denials;
	size_t n_denials;
	size_t denials_dropped; /* past CONFINE_DENIALS_MAX: counted, not listed */
	/* The launcher's `dropped` record: the records it did not write */
	size_t unsent_denied, unsent_refused, unsent_decisions;
	/* The launcher's `cpu` record: what it reaped used, in seconds */
	bool have_cpu;
	double cpu_seconds;
	/* The proxy's `decision` records, in order (freed by cf_status_free). */
	confine_network_decision *decisions;
	size_t n_decisions;
};

/* Reads what is available on `fd` (non-blocking) into `st`. Returns 1 at
 * EOF, 0 when the pipe is still open, -errno on a read error. */
int cf_status_read(int fd, struct cf_status *st) CONFINE_HIDDEN;
/* Whether the records so far decide how the start went: started, or a
 * failure before it (error, exec-failed, an unreadable record). */
bool cf_status_decided(const struct cf_status *st) CONFINE_HIDDEN;
/* Frees n decisions and the array. */
void cf_decisions_free(confine_network_decision *d, size_t n) CONFINE_HIDDEN;
/* Releases what the records left allocated (the denials). */
void cf_status_free(struct cf_status *st) CONFINE_HIDDEN;
/* After the runner's exec: reads the channel (pumping output meanwhile)
 * until it says the command started (0), or that it did not: then the
 * runner is reaped and the error is SANDBOX_UNAVAILABLE with the runner's
 * line (its `error` record, else its stderr line, else how it ended), or,
 * for an exec of the command that failed, CONFINE_E_SPAWN. Defined in
 * status.c. */
struct confine_process;
int cf_await_start(struct confine_process *p, confine_error *err) CONFINE_HIDDEN;

/* ---- the process record ---- */

struct cf_stream {
	int fd;               /* parent's read end, or -1 */
	int tee_fd;           /* where to copy live, or -1 */
	bool captured;
	bool tee_broken;      /* the tee target failed: stop copying, keep capturing */
	cf_buf buf;
	bool truncated;
};

enum cf_process_state {
	CF_STATE_RUNNING = 0,
	CF_STATE_DRAINING,  /* leader reaped, output pipes may still hold data */
	CF_STATE_SETTLED,
};

struct confine_process {
	pid_t pid;
	int pidfd;
	enum cf_process_state state;
	int status;          /* waitpid status once reaped */
	struct rusage rusage; /* the leader's, once reaped (have_rusage) */
	bool have_rusage;
	int wait_errno;      /* non-zero when the status could not be collected */
	struct cf_stream streams[3]; /* index 1 stdout, 2 stderr; 0 unused */
	size_t capture_limit;
	unsigned timeout_ms;
	unsigned kill_grace_ms; /* SIGTERM to SIGKILL on timeout; 0: SIGKILL at once */
	long long deadline_ms;
	long long kill_at_ms;
	long long drain_until_ms;
	int fallback_wait_ms;
	bool term_sent;
	bool kill_sent;
	bool timed_out;
	/* The leader has ended: its pid may be reaped at any moment, so no
	 * signal goes to it any more. Written before reaping. */
	volatile sig_atomic_t leader_ended;
	/* The runner supervises the command from a session of its own
	 * (CONFINE_RUNNER_FACT_SUPERVISES; see cf_tree_deliver()). */
	bool runner_supervises;
	confine_argv *confined; /* this run's own copy of the wrap's facts */
	char *workdir;
	/* The status channel (doc/SPEC.md 12): the read end, and what it said. */
	int status_fd;
	struct cf_status channel;
	/* The ask socket (doc/SPEC.md 15, "Ask"), or -1; the decider. */
	int ask_fd;
	bool (*ask_host)(void *, const char *, unsigned, char *, size_t);
	void *ask_host_data;
	char ask_pending[4096];
	size_t n_ask_pending;
	long ask_last_id; /* the proxy numbers its questions 1, 2, ...: a line
	                     whose id is not past this one is no question of its */
	/* The questions with the decider now, each on a thread of its own
	 * (ask.c), and whether a signal that ends the run was sent. */
	struct cf_ask_open {
		struct cf_ask_job *job;
		int fd;          /* readable when the decider has answered */
		long id;
		long long until_ms; /* then it is refused */
	} ask_open[CF_ASK_OPEN_MAX];
	size_t n_ask_open;
	volatile sig_atomic_t ask_ending;
	struct cf_policy_run *policy_run; /* policy-run.c; NULL: nothing to do */
};

static inline void cf_close_fd(int *fd) {
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* ---- the decider (ask.c) ---- */

/* Where a run with a decider gets the ask socket (the launcher's
 * `--ask-fd`, written by the rungs; doc/SPEC.md 15, "Ask"). */
#define CF_ASK_FD_AT 5

/* Hands every question waiting on the ask socket to the decider
 * (doc/SPEC.md 15). */
void cf_ask_pump(confine_process *p) CONFINE_HIDDEN;
/* Answers the open questions the decider has answered, and refuses those
 * past their bound, the run's timeout, an ending signal or the run's end
 * (every one when `all`). */
void cf_ask_settle(confine_process *p, bool all) CONFINE_HIDDEN;
/* The open questions' descriptors into pfds (at most CF_ASK_OPEN_MAX);
 * lowers *until (monotonic ms, -1: none) to the first one's bound. */
int cf_ask_poll_fds(const confine_process *p, struct pollfd *pfds, long long *until) CONFINE_HIDDEN;

/* ---- streams (streams.c) ---- */

/* Reads what is available on stdout and stderr, teeing and capturing. */
void cf_streams_pump(confine_process *p) CONFINE_HIDDEN;
/* Whether a captured stream's pipe is still open. */
bool cf_streams_open(const confine_process *p) CONFINE_HIDDEN;
/* A NUL-terminated copy of what a stream captured (NULL when it was not
 * captured). 0 or -ENOMEM. */
int cf_stream_copy(const struct cf_stream *s, char **data, size_t *len, bool *truncated) CONFINE_HIDDEN;

/* ---- the process tree (tree.c, tree-linux.c / tree-other.c) ---- */

/* Bound on the processes one walk collects; a larger tree is signalled in
 * the part found. */
#define CF_TREE_MAX 1024

struct cf_proc_tree {
	size_t n;
	pid_t pid[CF_TREE_MAX];
	pid_t pgid[CF_TREE_MAX];
};

bool cf_tree_has(const struct cf_proc_tree *t, pid_t pid) CONFINE_HIDDEN;
/* Adds `pid` (false when full or already there). */
bool cf_tree_add(struct cf_proc_tree *t, pid_t pid, pid_t pgid) CONFINE_HIDDEN;
/* Per OS: extends the tree with every descendant of the processes in it
 * (nothing where the tree cannot be read). */
void cf_tree_expand(struct cf_proc_tree *t) CONFINE_HIDDEN;
/* Per OS: adds the live members of the group led by `leader` (which has
 * ended, unreaped). */
void cf_tree_add_group(struct cf_proc_tree *t, pid_t leader) CONFINE_HIDDEN;
/* Delivers `sig` to the run (see confine_process_signal()). */
int cf_tree_deliver(const confine_process *p, int sig) CONFINE_HIDDEN;
/* The leader has ended: SIGKILL its group and what is still attached below
 * the group's surviving members. */
void cf_tree_kill_after_leader(const confine_process *p) CONFINE_HIDDEN;

/* ---- the policy's part of a run (policy-run.c, tempdir.c) ---- */

/* The basename prefix of a private temp dir the library made. */
#define CF_TEMP_DIR_PREFIX "confine-tmp."

/* For a confined run: the command's environment from `envp` (the policy's
 * env filter, TMPDIR for the temp area) into *ret_envp (NULL for an
 * unconfined run: envp unchanged), the placeholders of a layered bwrap run
 * (which may drop a bind from p->confined->argv), and what to do after the
 * run. 0, or a negative errno with `err` set. */
int cf_policy_run_prepare(confine_process *p, const char *const *envp, char ***ret_envp,
                          confine_error *err) CONFINE_HIDDEN;
/* Adds what the child needs of the policy's part (the run's cgroup's
 * descriptors) to `plan`. */
void cf_policy_run_plan(const confine_process *p, struct cf_child_plan *plan) CONFINE_HIDDEN;
/* The leader of a confined run with a cgroup of its own has ended: kills
 * what the cgroup lists (a superset of the leader's group and what hangs
 * below it, since the command cannot leave it) and returns true; false
 * (nothing done) where there is no such cgroup or its list cannot be read,
 * and the caller walks /proc (cf_tree_kill_after_leader). */
bool cf_policy_run_kill_rest(const confine_process *p) CONFINE_HIDDEN;
/* After the run settled: the git-hazard scan into `o`, the temp dir's
 * removal, the cgroup's figures and removal. 0 or -ENOMEM. */
int cf_policy_run_finish(confine_process *p, confine_outcome *o) CONFINE_HIDDEN;
/* From confine_process_free(): removes the temp dir if still there. */
void cf_policy_run_release(confine_process *p) CONFINE_HIDDEN;
/* Placeholders for the protected paths that do not exist yet
 * (placeholders.c, doc/SPEC.md 15): made (or adopted from a run that is
 * gone) and share-locked before a layered bwrap run of `c` starts; a bind
 * of one this process cannot create is dropped from c->argv (the command
 * could not create it either). 0 and *ret, or a negative errno with `err`
 * set. */
struct cf_placeholders;
int cf_placeholders_make(confine_argv *c, struct cf_placeholders **ret,
                         confine_error *err) CONFINE_HIDDEN;
/* After the run: whether a protected path bound by the run (a placeholder
 * or not; protectedPaths or a default protection) is no longer the file or
 * directory it was when the run started. Only the host can have done that
 * (in the sandbox each is a mount point), and the mount on it was then
 * detached for the rest of the run: what is at the name now was not kept
 * read-only. */
void cf_placeholders_replaced(const struct cf_placeholders *placeholders, bool *explicit_replaced,
                              bool *default_replaced) CONFINE_HIDDEN;
/* After the run: unlocks, and removes each one no other run holds that is
 * still as made. Accepts NULL. */
void cf_placeholders_release(struct cf_placeholders *placeholders) CONFINE_HIDDEN;
/* Removes `path` and everything below it, no symlink followed. */
void cf_temp_dir_remove(const char *path) CONFINE_HIDDEN;
/* Whether `path` is a temp dir confine_policy_make_temp_dir() made: its
 * prefix, a real directory of ours, mode 0700. */
bool cf_temp_dir_is_ours(const char *path) CONFINE_HIDDEN;

/* Linux: calls `fn` for each numeric entry of the directory `path`, with
 * raw getdents64 (no allocation; async-signal-safe). True when the whole
 * directory was read. Defined in tree-linux.c. */
bool cf_for_each_number(const char *path, void (*fn)(pid_t, void *), void *data) CONFINE_HIDDEN;

#endif
