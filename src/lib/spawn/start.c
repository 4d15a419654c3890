/* SPDX-License-Identifier: MIT */
/*
 * Starting a run (SPEC 8 and 9): validate the options, compute everything
 * the child needs (exec candidates, descriptors, workdir), start it in its
 * own session, and learn from its report pipe whether its exec succeeded.
 * A child that did not exec says which step failed and its errno: SPEC 8's
 * spawn rejection decides whether that is evidence of a broken runner.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "path.h"
#include "spawn/spawn.h"

#if HAVE_NSGETENVIRON
/* In a macOS shared library `environ` is not reliably bound to the running
 * program's; _NSGetEnviron() is (crt_externs.h). */
#include <crt_externs.h>
#define cf_environ (*_NSGetEnviron())
#else
extern char **environ;
#define cf_environ environ
#endif

void confine_spawn_options_init(confine_spawn_options *options) {
	if (!options)
		return;
	memset(options, 0, sizeof *options);
	for (int i = 0; i < 3; i++) {
		options->stdio[i].kind = CONFINE_STDIO_INHERIT;
		options->stdio[i].fd = -1;
	}
}

static const char *const stream_names[3] = { "stdin", "stdout", "stderr" };

static int oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM, "out of memory");
}

static int validate(const confine_spawn_options *o, confine_error *err) {
	const char *const *argv;
	if (!o)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs options");
	if (!!o->confined == !!o->argv)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs exactly one of a confined argv and a plain argv");
	if (o->confined) {
		if (!confine_mode_is_confined(o->confined->policy.mode))
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
			                    "the confined argv carries mode \"%s\", which is not a "
			                    "confined mode",
			                    confine_mode_name(o->confined->policy.mode)
				                    ? confine_mode_name(o->confined->policy.mode)
				                    : "?");
		argv = (const char *const *)o->confined->argv;
	} else {
		argv = o->argv;
	}
	if (!argv || !argv[0] || !argv[0][0])
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs a non-empty argv (argv[0] is missing or empty)");
	/* A runner named relatively would be looked up from the working
	 * directory, the workspace the command may write: a planted "bwrap"
	 * there would run instead. Providers place runners absolute. */
	if (o->confined && argv[0][0] != '/' && !(o->confined->spawn_flags & CONFINE_SPAWN_EXEC_FD))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "the confined argv's runner \"%s\" is not an absolute path; "
		                    "refusing to look it up",
		                    argv[0]);
	if (o->workdir && !o->workdir[0])
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "the working directory \"\" is empty");
	for (int i = 0; i < 3; i++) {
		const confine_stdio *s = &o->stdio[i];
		switch (s->kind) {
		case CONFINE_STDIO_INHERIT:
		case CONFINE_STDIO_NULL:
			break;
		case CONFINE_STDIO_CAPTURE:
		case CONFINE_STDIO_TEE:
			if (i == 0)
				return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
				                    "stdin cannot be captured (use inherit, a descriptor "
				                    "or /dev/null)");
			if (s->kind == CONFINE_STDIO_CAPTURE)
				break;
			/* fall through: a tee needs its target descriptor */
			__attribute__((fallthrough));
		case CONFINE_STDIO_FD:
			if (s->fd < 0 || fcntl(s->fd, F_GETFD) < 0)
				return cf_error_set(err, EBADF, CONFINE_E_INVALID_ARGUMENT, "spawn", EBADF,
				                    "the %s descriptor %d is not an open descriptor",
				                    stream_names[i], s->fd);
			break;
		default:
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
			                    "unknown %s kind %d", stream_names[i], (int)s->kind);
		}
		/* A directory as a standard stream is a handle on a tree:
		 * /proc/self/fd/0/x would create files anywhere in it, past every
		 * path rule (doc/SPEC.md 18). */
		if (o->confined && (s->kind == CONFINE_STDIO_INHERIT || s->kind == CONFINE_STDIO_FD)) {
			struct stat st;
			int fd = s->kind == CONFINE_STDIO_FD ? s->fd : i;
			if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
				return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "spawn", 0,
				                    "the %s of a confined run is a directory (descriptor "
				                    "%d); refusing to hand it to the command",
				                    stream_names[i], fd);
		}
	}
	return 0;
}

int cf_pipe_cloexec(int fds[2]) {
#if HAVE_PIPE2
	return pipe2(fds, O_CLOEXEC);
#else
	/* No pipe2 (macOS): the flag is set just after. Until then another
	 * thread of the caller that forks and execs (with its own spawner, not
	 * this one: ours start no child here) inherits these two descriptors;
	 * POSIX offers no atomic way to close that window. Our own child never
	 * sees them leak: it marks every descriptor above 2 close-on-exec. */
	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	return 0;
#endif
}

static const char *setup_what_text(int what) {
	switch (what) {
	case CF_WHAT_SETSID: return "cannot start a new session";
	case CF_WHAT_DUP: return "cannot set up the standard streams";
	case CF_WHAT_CLOEXEC: return "cannot close inherited descriptors";
	case CF_WHAT_SIGNALS: return "cannot reset the signal mask";
	case CF_WHAT_CGROUP: return "cannot join the run's cgroup";
	default: return "cannot set up the child process";
	}
}

/* The child did not exec: turn its report into the error (SPEC 8's spawn
 * rejection decides whether it is evidence of a broken runner). */
static int start_failure(const confine_spawn_options *o, const char *program,
                         const char *workdir, const struct cf_child_report *rep,
                         confine_error *err) {
	int e = rep->error_number > 0 ? rep->error_number : EIO;
	switch ((confine_spawn_step)rep->step) {
	case CONFINE_SPAWN_STEP_CHDIR:
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e,
		                    "cannot change to working directory \"%s\": %s",
		                    workdir ? workdir : ".", strerror(e));
	case CONFINE_SPAWN_STEP_EXEC:
		if (o->confined &&
		    confine_classify_spawn_rejection(CONFINE_SPAWN_STEP_EXEC, e,
		                                     confine_workdir_usable(workdir ? workdir : "."))) {
			char detail[4096 + 128];
			int r;
			snprintf(detail, sizeof detail, "cannot execute %s: %s", program, strerror(e));
			r = confine_error_sandbox_unavailable(err, o->confined->policy.mode, detail);
			if (err)
				err->sys_errno = e;
			return r;
		}
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e, "cannot execute \"%s\": %s",
		                    program, strerror(e));
	case CONFINE_SPAWN_STEP_SETUP:
	case CONFINE_SPAWN_STEP_NONE:
	default:
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e, "%s for \"%s\": %s",
		                    setup_what_text(rep->what), program, strerror(e));
	}
}

static confine_process *process_new(const confine_spawn_options *o) {
	confine_process *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->pid = -1;
	p->pidfd = -1;
	p->status_fd = -1;
	p->ask_fd = -1;
	p->ask_host = o->ask_host;
	p->ask_host_data = o->ask_host_data;
	for (int i = 0; i < 3; i++) {
		p->streams[i].fd = -1;
		p->streams[i].tee_fd = -1;
	}
	p->capture_limit = o->capture_limit ? o->capture_limit : CONFINE_DEFAULT_CAPTURE_LIMIT;
	p->runner_supervises =
		o->confined && (o->confined->runner_facts & CONFINE_RUNNER_FACT_SUPERVISES);
	p->timeout_ms = o->timeout_ms;
	p->kill_grace_ms = CONFINE_KILL_GRACE_MS;
	p->fallback_wait_ms = 1;
	return p;
}

/* The descriptors made for one spawn, closed in the parent once the child
 * has them (or the spawn failed). */
struct spawn_fds {
	int report[2];
	int child_end[3];
	int devnull;
	int status_child_end;
	int ask_child_end;
};

/* Everything but the report pipe's read end: the child holds its own copies. */
static void spawn_fds_close_child_ends(struct spawn_fds *f) {
	cf_close_fd(&f->report[1]);
	for (int i = 0; i < 3; i++)
		cf_close_fd(&f->child_end[i]);
	cf_close_fd(&f->devnull);
	cf_close_fd(&f->status_child_end);
	cf_close_fd(&f->ask_child_end);
}

static void spawn_fds_close(struct spawn_fds *f) {
	cf_close_fd(&f->report[0]);
	spawn_fds_close_child_ends(f);
}

static int system_error(confine_error *err, const char *what) {
	int e = errno;
	return cf_error_set(err, e, CONFINE_E_SYSTEM, "spawn", e, "cannot %s: %s", what, strerror(e));
}

/* What the child's stream `i` becomes, per its kind; the parent keeps the
 * read end of a captured stream. */
static int plan_stream(confine_process *p, struct cf_child_plan *plan, struct spawn_fds *f, int i,
                       const confine_stdio *s, confine_error *err) {
	int fds[2];
	plan->source_fd[i] = -1;
	switch (s->kind) {
	case CONFINE_STDIO_INHERIT:
		return 0;
	case CONFINE_STDIO_FD:
		plan->source_fd[i] = s->fd;
		return 0;
	case CONFINE_STDIO_NULL:
		/* Opened before the child starts: it must not call open(3) on a
		 * path that could fail for reasons we could not report well. */
		if (f->devnull < 0) {
			f->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (f->devnull < 0)
				return system_error(err, "open /dev/null");
			plan->internal_fds[plan->n_internal++] = f->devnull;
		}
		plan->source_fd[i] = f->devnull;
		return 0;
	case CONFINE_STDIO_CAPTURE:
	case CONFINE_STDIO_TEE:
		if (cf_pipe_cloexec(fds) < 0)
			return system_error(err, "create a pipe");
		p->streams[i].fd = fds[0];
		f->child_end[i] = fds[1];
		plan->internal_fds[plan->n_internal++] = fds[0];
		plan->internal_fds[plan->n_internal++] = fds[1];
		plan->source_fd[i] = fds[1];
		p->streams[i].captured = true;
		if (s->kind == CONFINE_STDIO_TEE)
			p->streams[i].tee_fd = s->fd;
		(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
		return 0;
	}
	return 0;
}

/* What a runner run from the in-memory launcher gets (doc/SPEC.md 12, 14):
 * the descriptor it is exec'd from or inherits, and the status channel. */
static int plan_runner_fds(confine_process *p, struct cf_child_plan *plan, struct spawn_fds *f,
                           confine_error *err) {
	const confine_argv *c = p->confined;
	if (c->spawn_flags & CONFINE_SPAWN_EXEC_FD)
		plan->exec_fd = c->exec_fd;
	if (c->spawn_flags & CONFINE_SPAWN_INHERIT_FD) {
		plan->place_src[plan->n_place] = c->inherit_fd;
		plan->place_at[plan->n_place++] = c->inherit_fd_at;
	}
	if (c->spawn_flags & CONFINE_SPAWN_STATUS_CHANNEL) {
		int fds[2];
		if (cf_pipe_cloexec(fds) < 0)
			return system_error(err, "create the status channel");
		p->status_fd = fds[0];
		f->status_child_end = fds[1];
		plan->internal_fds[plan->n_internal++] = fds[0];
		plan->internal_fds[plan->n_internal++] = fds[1];
		plan->place_src[plan->n_place] = fds[1];
		plan->place_at[plan->n_place++] = c->status_fd_at;
		(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
	}
	/* The ask socket of a policy with a decider (doc/SPEC.md 15): the
	 * launcher's proxy asks, the waiting thread answers (process.c). */
	if ((c->spawn_flags & CONFINE_SPAWN_STATUS_CHANNEL) && c->policy.network_ask &&
	    c->policy.network == CONFINE_NETWORK_OFF) {
		int fds[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
			return system_error(err, "create the ask socket");
		p->ask_fd = fds[0];
		f->ask_child_end = fds[1];
		plan->internal_fds[plan->n_internal++] = fds[0];
		plan->internal_fds[plan->n_internal++] = fds[1];
		plan->place_src[plan->n_place] = fds[1];
		plan->place_at[plan->n_place++] = CF_ASK_FD_AT;
		(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
	}
	return 0;
}

/* Everything the child needs, computed before it starts. */
static int plan_child(confine_process *p, const confine_spawn_options *o,
                      const char *const *argv, char **candidates, struct cf_child_plan *plan,
                      struct spawn_fds *f, confine_error *err) {
	int r;
	memset(plan, 0, sizeof *plan);
	plan->argv = (char *const *)argv;
	plan->envp = o->envp ? (char *const *)o->envp : cf_environ;
	plan->candidates = candidates;
	plan->workdir = p->workdir;
	if (cf_pipe_cloexec(f->report) < 0)
		return system_error(err, "create a pipe");
	plan->report_fd = f->report[1];
	plan->internal_fds[plan->n_internal++] = f->report[0];
	plan->internal_fds[plan->n_internal++] = f->report[1];
	for (int i = 0; i < 3; i++)
		if ((r = plan_stream(p, plan, f, i, &o->stdio[i], err)) < 0)
			return r;
	plan->exec_fd = -1;
	if (p->confined)
		return plan_runner_fds(p, plan, f, err);
	return 0;
}

/* Waits for the child's exec: EOF on the report pipe (it closed on exec)
 * is success; a report means it never ran anything, and it is reaped. */
static int await_exec(confine_process *p, const confine_spawn_options *o, const char *program,
                      struct spawn_fds *f, confine_error *err) {
	struct cf_child_report rep;
	ssize_t n;
	do
		n = read(f->report[0], &rep, sizeof rep);
	while (n < 0 && errno == EINTR);
	cf_close_fd(&f->report[0]);
	if (n == (ssize_t)sizeof rep) {
		int status;
		while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
			;
		p->pid = -1;
		return start_failure(o, program, p->workdir, &rep, err);
	}
	/* EOF. (A short read would mean the child died mid-report; its status
	 * then tells.) */
	return 0;
}

#if HAVE_SYS_PIDFD_OPEN
/* pidfd_open's descriptor is close-on-exec. Without it (old kernels,
 * seccomp, valgrind) the wait falls back to short polls, and the caller's
 * errno is left as it was: a started child is a success. */
static int open_pidfd(pid_t pid) {
	int saved = errno;
	long fd = syscall(SYS_pidfd_open, pid, 0);
	errno = saved;
	return fd >= 0 ? (int)fd : -1;
}
#else
static int open_pidfd(pid_t pid) {
	(void)pid;
	return -1;
}
#endif

/* This run's own copy of the wrap's facts, and its working directory. */
static int adopt_options(confine_process *p, const confine_spawn_options *o,
                         const char *const **ret_argv) {
	const char *workdir = o->workdir;
	*ret_argv = o->argv;
	if (o->confined) {
		if (confine_argv_copy(o->confined, &p->confined) < 0)
			return -ENOMEM;
		*ret_argv = (const char *const *)p->confined->argv;
		if (!workdir)
			workdir = p->confined->policy.workspace_root;
	}
	if (workdir && !(p->workdir = strdup(workdir)))
		return -ENOMEM;
	return 0;
}

int confine_spawn(const confine_spawn_options *o, confine_process **ret, confine_error *err) {
	confine_process *p = NULL;
	struct cf_child_plan plan;
	struct spawn_fds f = { { -1, -1 }, { -1, -1, -1 }, -1, -1, -1 };
	char **candidates = NULL, **run_envp = NULL;
	const char *const *argv;
	pid_t pid = -1;
	int r;

	if ((r = validate(o, err)) < 0)
		return r;
	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs a result pointer");
	if (!(p = process_new(o)))
		return oom(err);
	if (adopt_options(p, o, &argv) < 0 || !(candidates = cf_exec_candidates(argv[0], o->envp))) {
		r = oom(err);
		goto fail;
	}
	if ((r = cf_policy_run_prepare(p, o->envp ? o->envp : (const char *const *)cf_environ,
	                               &run_envp, err)) < 0)
		goto fail;
	if ((r = plan_child(p, o, argv, candidates, &plan, &f, err)) < 0)
		goto fail;
	if (run_envp)
		plan.envp = run_envp; /* the policy's environment (doc/SPEC.md 15) */
	cf_policy_run_plan(p, &plan);
	if ((r = cf_child_start(&plan, &pid)) > 0) {
		r = cf_error_set(err, r, CONFINE_E_SYSTEM, "spawn", r, "cannot start a process: %s",
		                 strerror(r));
		goto fail;
	}
	p->pid = pid;
	spawn_fds_close_child_ends(&f);
	if ((r = await_exec(p, o, argv[0], &f, err)) < 0)
		goto fail;
	if (p->status_fd >= 0 && (r = cf_await_start(p, err)) < 0)
		goto fail;
	p->pidfd = open_pidfd(pid);
	p->state = CF_STATE_RUNNING;
	if (p->timeout_ms)
		p->deadline_ms = cf_now_ms() + p->timeout_ms;
	confine_strv_free(candidates);
	confine_strv_free(run_envp);
	*ret = p;
	return 0;

fail:
	spawn_fds_close(&f);
	confine_strv_free(candidates);
	confine_strv_free(run_envp);
	confine_process_free(p); /* removes the run's temp dir too */
	return r;
}
