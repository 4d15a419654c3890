/*
 * The launcher stays as the command's parent (DESIGN D2): it forks, the
 * child execs the command, and the parent waits, forwards signals, reaps
 * orphans, reports on the status channel, kills what is left of the tree
 * when the command ends, and exits the way the command did.
 */
#ifndef LAUNCHER_PARENT_H
#define LAUNCHER_PARENT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "command-limits.h"
#include "seccomp-filter.h"

/*
 * HOOK for the seccomp-notify supervisor (src/launcher/supervise/supervise.{c,h},
 * the supervisor issue): descriptors the parent loop polls for POLLIN,
 * and what to do then: the listener (fd) and the supervisor's waiting
 * calls (wait_fd, issue 21). handle(ready fd, context) must not block; it
 * returns 0, or -errno to end the run (the tree is killed). -1: none.
 */
struct parent_listener {
	int fd;
	int wait_fd;
	int (*handle)(int fd, void *context);
	void *context;
};

/*
 * HOOK for the supervisor's setup across the fork (supervise_child_install
 * and supervise_attach fit here). Either may be NULL.
 *   child_install   in the child, after the signal mask is restored and
 *                   BEFORE the deny-list: the deny-list refuses
 *                   SECCOMP_FILTER_FLAG_NEW_LISTENER, so a listener filter
 *                   must already be in place. Returns 0, or -errno: the
 *                   child reports "cannot start the supervisor" and exits.
 *   parent_attach   in the parent, right after the fork: takes the listener
 *                   and fills *listener. Returns 0, or -errno: the tree is
 *                   killed and the launcher exits 125.
 */
struct parent_hooks {
	int (*child_install)(void *context);
	int (*parent_attach)(pid_t child, struct parent_listener *listener, void *context);
	void *context;
};

struct launch {
	char **command;                        /* exec'd in the child (exec-command.h) */
	char **script_argv;                    /* its /bin/sh fallback, or NULL */
	const struct seccomp_program *filter;  /* installed in the child */
	const struct command_limits *limits;   /* set in the child; NULL: none */
	unsigned layers;                       /* for the `layers` record */
	/* kill(-1) reaches exactly this launcher's Landlock domain (its
	 * descendants): the domain scopes signals. Else /proc is walked. */
	bool signal_scoped;
	/* The lifeline: the status channel (ends with POLLERR/POLLHUP when
	 * its reader is gone) or a pidfd of the launcher's parent (readable
	 * when it dies); -1 for none. Either way: kill the tree, exit. */
	int lifeline_fd;
	bool lifeline_is_channel;
	/* With a status channel the spawner is the library, which passes the
	 * command nothing above 2: whatever else came in (bwrap's copy of this
	 * launcher's own image) is closed on the command's exec. */
	bool close_inherited;
	struct parent_listener listener; /* set by hooks.parent_attach */
	struct parent_hooks hooks;
	/* A helper outside the command's Landlock domain (the allowlist's
	 * proxy), killed with the tree; 0: none. kill(-1) cannot reach it. */
	pid_t helper;
	/* Closed when the run ends, which ends the helper where the domain's
	 * signal scope keeps kill() from it; -1: none. */
	int helper_lifeline;
	/* The process group the command joins (the spawned launcher's, when
	 * the launcher split: lifeline.h); 0: the launcher's own. */
	pid_t command_pgrp;
};

/* First thing in main: ignores SIGPIPE (a status reader that is gone must
 * not kill the launcher before it reports) and remembers the mask and
 * disposition to give the command back. */
void parent_prepare_signals(void);

/* SIGCHLD and the signals the launcher forwards to the command. */
void parent_handled_signals(sigset_t *set);

/* SIGKILLs every child of this process (a /proc walk; nothing when /proc
 * cannot tell). */
void parent_kill_children(void);

/* Exits the way `status` says: its exit code, or its fatal signal re-raised
 * with the default disposition and no core dump. */
void parent_mirror(int status) __attribute__((noreturn));

/* Opens a pidfd of the launcher's parent, close-on-exec. Returns it, or
 * -1 where the kernel has none (before 5.3) or the parent is gone. */
int parent_open_lifeline(void);

/* Runs the command and never returns: exits with its status, re-raises
 * its fatal signal, or exits 125 when it never started. */
void launch_and_supervise(const struct launch *launch) __attribute__((noreturn));

#endif
