/*
 * Process supervision. The parent is restricted like the command
 * (Landlock, no_new_privs, no capabilities); it only waits, signals and
 * writes records. The seccomp deny-list is installed in the child, after
 * the fork: the supervisor's listener filter must go in before a filter
 * that refuses new listeners, and the parent must never run under its own
 * listener.
 *
 * Ending the tree: the parent is a child subreaper, so orphans come to it.
 * When the command ends (or the lifeline goes), it SIGKILLs what is left
 * and reaps until no child remains. SIGKILL ends stopped and
 * ptrace-stopped processes too (N10). Where the Landlock domain scopes
 * signals, kill(-1) reaches exactly the domain: every descendant and
 * nothing else (no other process can be in it). Elsewhere it walks /proc
 * for its own children, level by level, as each death hands the next
 * level to the subreaper.
 */
#include "parent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "exec-command.h"
#include "lifeline.h"
#include "ruleset.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The helper's lifeline (struct launch), closed when the run ends. */
static int helper_lifeline = -1;

/* What the launcher was given, for the command. */
static sigset_t given_mask;
static struct sigaction given_sigpipe;

/* The signals the parent forwards to the command (DESIGN D2). */
static const int forwarded_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH,
};
#define FORWARDED_COUNT (sizeof(forwarded_signals) / sizeof(forwarded_signals[0]))

void parent_handled_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (size_t i = 0; i < FORWARDED_COUNT; i++)
		sigaddset(set, forwarded_signals[i]);
}

void parent_prepare_signals(void)
{
	struct sigaction ignore;

	sigprocmask(SIG_SETMASK, NULL, &given_mask);
	memset(&ignore, 0, sizeof(ignore));
	ignore.sa_handler = SIG_IGN;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGPIPE, &ignore, &given_sigpipe);
}

int parent_open_lifeline(void)
{
	pid_t parent = getppid();
	int fd;

	if (parent <= 1)
		return -1;
	fd = (int)syscall(SYS_pidfd_open, parent, 0); /* always close-on-exec */
	/* The parent died before the pidfd was made: the pidfd then names
	 * the reaper we were handed to. Treat it as the death it was. */
	if (fd >= 0 && getppid() != parent) {
		close(fd);
		return -2;
	}
	return fd;
}

/* ---- the child ----------------------------------------------------------- */

/* Sent on the report pipe when the command did not start; end of file
 * (the pipe is close-on-exec) means exec succeeded. */
struct child_report {
	char kind; /* 'E': setup failed, already reported; 'X': exec failed */
	int error;
};

static void send_report(int fd, char kind, int error)
{
	struct child_report report = { kind, error };

	if (write(fd, &report, sizeof(report)) < 0) {
		/* The parent sees end of file and a child that exited 125. */
	}
}

/* Every descriptor above 2 close-on-exec: close_range where the kernel has
 * it (5.11), else one fcntl per possible number. */
static void cloexec_from_3(void)
{
	long max;
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++) {
		int flags = fcntl(fd, F_GETFD);
		if (flags >= 0 && !(flags & FD_CLOEXEC))
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

/* Between fork and exec: no allocation, nothing that takes a lock. */
static void run_child(const struct launch *launch, int report_fd, pid_t parent)
{
	int r;

	/* Die with the launcher even if it is SIGKILLed (a single-threaded
	 * process: no thread-exit trap). Checked after, against the race. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
		_exit(LAUNCHER_EXIT_FAILURE);
	/* Split (lifeline.h): the command joins the spawned launcher's group,
	 * where the harness's and the terminal's signals find it. */
	if (launch->command_pgrp > 0 && setpgid(0, launch->command_pgrp) != 0)
		_exit(LAUNCHER_EXIT_FAILURE);
	/* The parent made itself (and so this copy) undumpable before the fork;
	 * this child must be reachable by its parent's pidfd_getfd (the
	 * supervisor takes its listener from here) until the exec, which sets
	 * dumpability anew for the command. Nothing here is the parent's. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		_exit(LAUNCHER_EXIT_FAILURE);
	/* The command gets the mask and SIGPIPE disposition the launcher was
	 * given (handled signals are reset by exec itself). */
	sigaction(SIGPIPE, &given_sigpipe, NULL);
	sigprocmask(SIG_SETMASK, &given_mask, NULL);

	/* The supervisor's listener filter goes in before the deny-list,
	 * which refuses new listeners. */
	if (launch->hooks.child_install != NULL) {
		r = launch->hooks.child_install(launch->hooks.context);
		if (r < 0) {
			report_failure("cannot start the supervisor: %s", strerror(-r));
			send_report(report_fd, 'E', -r);
			_exit(LAUNCHER_EXIT_FAILURE);
		}
	}
	if (launch->signal_scoped) {
		r = landlock_scope_command_signals();
		if (r < 0) {
			report_failure("landlock ruleset error: %s", strerror(-r));
			send_report(report_fd, 'E', -r);
			_exit(LAUNCHER_EXIT_FAILURE);
		}
	}
	if (launch->close_inherited)
		cloexec_from_3();
	/* The command's limits, its own: the parent and its supervisor stay
	 * unbound (doc/SPEC.md 15, "Limits"). */
	if (launch->limits != NULL) {
		r = command_limits_apply(launch->limits);
		if (r < 0) {
			report_failure("cannot set the command's resource limits: %s", strerror(-r));
			send_report(report_fd, 'E', -r);
			_exit(LAUNCHER_EXIT_FAILURE);
		}
	}
	r = seccomp_filter_install(launch->filter);
	if (r < 0) {
		report_failure("landlock ruleset error: %s", strerror(-r));
		send_report(report_fd, 'E', -r);
		_exit(LAUNCHER_EXIT_FAILURE);
	}
	exec_command(launch->command, launch->script_argv);
	send_report(report_fd, 'X', errno);
	_exit(LAUNCHER_EXIT_FAILURE);
}

/* ---- the parent ---------------------------------------------------------- */

enum start_state { START_PENDING, START_OK, START_FAILED };

struct run_state {
	const struct launch *launch;
	pid_t command;
	bool command_reaped;
	int command_status;
	int report_fd; /* -1 once read */
	enum start_state start;
};

static void note_reaped(struct run_state *state, pid_t pid, int status)
{
	if (pid == state->command) {
		state->command_reaped = true;
		state->command_status = status;
	}
}

/* Reads the child's report: exec succeeded (end of file) or why not. */
static void read_report(struct run_state *state)
{
	struct child_report report;
	ssize_t n;

	do
		n = read(state->report_fd, &report, sizeof(report));
	while (n < 0 && errno == EINTR);
	close(state->report_fd);
	state->report_fd = -1;
	if (n == 0) {
		state->start = START_OK;
		record_layers(state->launch->layers);
		record_started(state->command);
		return;
	}
	state->start = START_FAILED;
	if (n == (ssize_t)sizeof(report) && report.kind == 'X') {
		/* With a channel the spawner words it (the command's own start
		 * failure, as a shell says "command not found"); the line is for
		 * callers that have only stderr. */
		if (channel_fd() < 0)
			report_line("exec failed: %s", strerror(report.error));
		/* The layers were in place when the exec failed: said first, as
		 * before `started`, so every run that got as far as the exec
		 * opens its channel the same way (doc/SPEC.md 12). */
		record_layers(state->launch->layers);
		record_exec_failed(report.error);
	}
	/* 'E': the child reported it. A short read: the child died before
	 * exec without a word (killed); nothing ran. */
}

static void reap_available(struct run_state *state)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
		note_reaped(state, pid, status);
}

static bool ends_the_run(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

static void forward(const struct run_state *state, const struct signalfd_siginfo *info)
{
	int sig = (int)info->ssi_signo;
	pid_t group = state->launch->command_pgrp > 0 ? state->launch->command_pgrp : getpgrp();
	/* The spawned launcher passes on its terminal's signals this way
	 * (lifeline.c): the command's group had them too. */
	bool from_terminal = info->ssi_code == SI_KERNEL ||
			     (state->launch->command_pgrp > 0 && info->ssi_code == SI_QUEUE &&
			      info->ssi_int == LIFELINE_FROM_TERMINAL &&
			      (pid_t)info->ssi_pid == getppid());

	if (state->command_reaped)
		return;
	/* A terminal sends INT, QUIT, WINCH and HUP to its whole foreground
	 * process group: if the command is still in it, it has it already. */
	if (from_terminal && getpgid(state->command) == group)
		return;
	/* With a status channel the spawner is the library, which signals the
	 * run's whole tree, the command included: forwarding would deliver it
	 * twice. A stopped command still needs waking to act on it. */
	if (channel_fd() >= 0) {
		if (ends_the_run(sig))
			kill(state->command, SIGCONT);
		return;
	}
	kill(state->command, sig);
	/* A stopped command would hold a pending SIGTERM for ever. */
	if (ends_the_run(sig))
		kill(state->command, SIGCONT);
}

/* Reads every pending signal: reaps on SIGCHLD, forwards the rest. */
static void drain_signals(struct run_state *state, int signal_fd)
{
	struct signalfd_siginfo info;

	while (read(signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
		if (info.ssi_signo == SIGCHLD)
			reap_available(state);
		else
			forward(state, &info);
	}
}

static bool is_decimal(const char *name)
{
	if (*name == '\0')
		return false;
	for (; *name != '\0'; name++)
		if (*name < '0' || *name > '9')
			return false;
	return true;
}

/* The parent pid field of /proc/<pid>/stat, or -1. */
static pid_t parent_of(const char *pid_name)
{
	char path[sizeof("/proc//stat") + 256], buffer[512];
	const char *close_paren;
	ssize_t n;
	long ppid;
	char state;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid_name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buffer, sizeof(buffer) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buffer[n] = '\0';
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
	close_paren = strrchr(buffer, ')');
	if (close_paren == NULL || sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

/* SIGKILLs every process whose parent is this one. Returns false when
 * /proc cannot tell (absent, unreadable, or another PID namespace's). */
static bool kill_children_via_proc(void)
{
	char self[32];
	pid_t me = getpid();
	struct dirent *entry;
	ssize_t n;
	DIR *proc;

	n = readlink("/proc/self", self, sizeof(self) - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	if (atol(self) != (long)me)
		return false;
	proc = opendir("/proc");
	if (proc == NULL)
		return false;
	while ((entry = readdir(proc)) != NULL)
		if (is_decimal(entry->d_name) && parent_of(entry->d_name) == me)
			kill((pid_t)atol(entry->d_name), SIGKILL);
	closedir(proc);
	return true;
}

void parent_kill_children(void)
{
	kill_children_via_proc();
}

static void kill_what_is_left(const struct run_state *state)
{
	if (helper_lifeline >= 0) {
		close(helper_lifeline);
		helper_lifeline = -1;
	}
	if (state->launch->helper > 0)
		kill(state->launch->helper, SIGKILL);
	if (state->launch->signal_scoped) {
		/* Every process in this Landlock domain but this one. */
		kill(-1, SIGKILL);
		return;
	}
	if (!kill_children_via_proc() && !state->command_reaped)
		kill(state->command, SIGKILL);
}

/* SIGKILL, reap, until no child remains. */
static void end_the_tree(struct run_state *state)
{
	for (;;) {
		int status;
		pid_t pid;

		kill_what_is_left(state);
		pid = waitpid(-1, &status, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return; /* ECHILD: nothing left */
		}
		note_reaped(state, pid, status);
		reap_available(state);
	}
}

/* Exits the way the command did. A signal death is re-raised on the
 * launcher with the default disposition and no core dump, so whoever
 * waits for the launcher sees the same signal. */
void parent_mirror(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const struct rlimit no_core = { 0, 0 };
		struct sigaction default_action;
		sigset_t only;

		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		setrlimit(RLIMIT_CORE, &no_core);
		memset(&default_action, 0, sizeof(default_action));
		default_action.sa_handler = SIG_DFL;
		sigaction(sig, &default_action, NULL);
		sigemptyset(&only);
		sigaddset(&only, sig);
		sigprocmask(SIG_UNBLOCK, &only, NULL);
		kill(getpid(), sig);
		_exit(128 + sig); /* a signal whose default is not to terminate */
	}
	_exit(WEXITSTATUS(status));
}

enum poll_slot {
	SLOT_SIGNALS, SLOT_REPORT, SLOT_LIFELINE, SLOT_LISTENER, SLOT_WAITS, SLOT_COUNT
};

/* The loop: until the command has ended and its start is known, or the
 * lifeline goes, or the listener fails. Nothing in it blocks but poll():
 * the supervisor hands a call that would block to a waiter (issue 21), so
 * the lifeline is read however the command's calls stand. */
static void supervise(struct run_state *state, int signal_fd,
		      const struct parent_listener *listener)
{
	const struct launch *launch = state->launch;
	struct pollfd slots[SLOT_COUNT];

	slots[SLOT_SIGNALS] = (struct pollfd){ signal_fd, POLLIN, 0 };
	slots[SLOT_LIFELINE] = (struct pollfd){ launch->lifeline_fd,
		launch->lifeline_is_channel ? 0 : POLLIN, 0 };
	slots[SLOT_LISTENER] = (struct pollfd){ listener->fd, POLLIN, 0 };
	slots[SLOT_WAITS] = (struct pollfd){ listener->wait_fd, POLLIN, 0 };
	while (!state->command_reaped || state->report_fd >= 0) {
		slots[SLOT_REPORT] = (struct pollfd){ state->report_fd, POLLIN, 0 };
		if (poll(slots, SLOT_COUNT, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (slots[SLOT_REPORT].revents != 0)
			read_report(state);
		if (slots[SLOT_LIFELINE].revents != 0)
			return; /* the starter or the status reader is gone */
		/* POLLIN: a notification to answer. POLLHUP without it: no
		 * process is left under the filter (RECV would block for
		 * ever): stop polling the listener. */
		if ((slots[SLOT_LISTENER].revents & POLLIN) != 0) {
			if (listener->handle(listener->fd, listener->context) < 0)
				return;
		} else if (slots[SLOT_LISTENER].revents != 0) {
			slots[SLOT_LISTENER].fd = -1;
		}
		if ((slots[SLOT_WAITS].revents & POLLIN) != 0 &&
		    listener->handle(listener->wait_fd, listener->context) < 0)
			return;
		if (slots[SLOT_SIGNALS].revents != 0)
			drain_signals(state, signal_fd);
		/* The command is gone, so its report pipe is at end of file or
		 * holds the report: read it before the exit record. */
		if (state->command_reaped && state->report_fd >= 0)
			read_report(state);
	}
}

void launch_and_supervise(const struct launch *launch)
{
	struct run_state state = { launch, -1, false, 0, -1, START_PENDING };
	struct parent_listener listener;
	int report_pipe[2];
	sigset_t handled;
	pid_t parent = getpid();
	int signal_fd;

	helper_lifeline = launch->helper_lifeline;
	parent_handled_signals(&handled);
	/* Not dumpable before the fork (SPEC 13), so there is no moment when
	 * the command runs and this process is not yet: the command has the
	 * same uid and Landlock domain, and could otherwise ptrace it, write
	 * its memory (it has no deny-list of its own) and open its status
	 * descriptor through /proc/PID/fd to forge records. The child makes
	 * itself dumpable again at once (run_child): its parent must reach it. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
	    sigprocmask(SIG_BLOCK, &handled, NULL) != 0 ||
	    (signal_fd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 ||
	    pipe2(report_pipe, O_CLOEXEC) != 0) {
		report_failure("cannot supervise the command: %s", strerror(errno));
		_exit(LAUNCHER_EXIT_FAILURE);
	}
	state.command = fork();
	if (state.command < 0) {
		report_failure("cannot supervise the command: %s", strerror(errno));
		_exit(LAUNCHER_EXIT_FAILURE);
	}
	if (state.command == 0) {
		close(report_pipe[0]);
		run_child(launch, report_pipe[1], parent);
	}
	close(report_pipe[1]);
	state.report_fd = report_pipe[0];
	/* Both sides, as a shell does: the group holds from the fork on. */
	if (launch->command_pgrp > 0)
		setpgid(state.command, launch->command_pgrp);

	listener = launch->listener;
	if (launch->hooks.parent_attach != NULL) {
		int r = launch->hooks.parent_attach(state.command, &listener, launch->hooks.context);

		if (r < 0) {
			struct child_report report;

			end_the_tree(&state);
			/* One error record: the child's, if it failed first. */
			if (read(state.report_fd, &report, sizeof(report)) != (ssize_t)sizeof(report) ||
			    report.kind != 'E')
				report_failure("cannot start the supervisor: %s", strerror(-r));
			_exit(LAUNCHER_EXIT_FAILURE);
		}
	}
	supervise(&state, signal_fd, &listener);
	end_the_tree(&state);
	if (state.report_fd >= 0)
		read_report(&state);
	if (state.start != START_OK || !state.command_reaped)
		_exit(LAUNCHER_EXIT_FAILURE);
	record_wait_status(state.command_status);
	parent_mirror(state.command_status);
}
