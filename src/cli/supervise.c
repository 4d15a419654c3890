/* SPDX-License-Identifier: MIT */
/*
 * Supervising the command while it runs: confine forwards the signals a
 * terminal or a harness sends it, and, as a child subreaper, ends every
 * orphan the command left behind once it settled.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "supervise.h"

/* The child runs in its own session, so a terminal's Ctrl-C reaches only
 * confine: these handlers pass SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2 and SIGWINCH on to the command through confine_process_signal(), which reaches every process
 * group of the run's tree (under bwrap the command's, not bwrap's own) and
 * is async-signal-safe: it allocates nothing and only reads /proc and calls
 * kill(2). The pointer is set once the child exists and cleared before the
 * process is freed, with the forwarded signals blocked around both. */
static confine_process *volatile supervised_process;

/* A signal that asks the run to end (a harness's timeout, a closed
 * terminal) is followed, CONFINE_KILL_GRACE_MS later, by SIGKILL to the
 * whole tree: a command that ignores it or is stopped must still end
 * (issue 14 N10). Not SIGINT: an interactive program (a REPL, an editor)
 * handles Ctrl-C and goes on. alarm(2) is async-signal-safe; the grace is
 * whole seconds. */
static volatile sig_atomic_t end_armed;

static bool ends_the_run(int sig) {
	return sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

static void forward_signal(int sig) {
	int saved = errno;
	confine_process *process = supervised_process;
	if (process) {
		(void)confine_process_signal(process, sig);
		if (ends_the_run(sig) && !end_armed) {
			end_armed = 1;
			alarm((CONFINE_KILL_GRACE_MS + 999) / 1000);
		}
	}
	errno = saved;
}

bool cli_supervise_ending(void) {
	return end_armed != 0;
}

static void kill_after_grace(int sig) {
	int saved = errno;
	confine_process *process = supervised_process;
	(void)sig;
	if (process)
		(void)confine_process_signal(process, SIGKILL);
	errno = saved;
}

/* The deciders' children now running (cli_supervise_keep_child): the
 * reaper, a signal handler, reads them; the question threads write them. */
#define KEPT_CHILDREN 16
static volatile pid_t kept_children[KEPT_CHILDREN];

bool cli_supervise_keep_child(pid_t pid) {
	for (size_t i = 0; i < KEPT_CHILDREN; i++) {
		pid_t none = 0;
		if (__atomic_compare_exchange_n(&kept_children[i], &none, pid, false, __ATOMIC_SEQ_CST,
		                                __ATOMIC_SEQ_CST))
			return true;
	}
	return false;
}

void cli_supervise_let_child_go(pid_t pid) {
	for (size_t i = 0; i < KEPT_CHILDREN; i++) {
		pid_t was = pid;
		if (__atomic_compare_exchange_n(&kept_children[i], &was, 0, false, __ATOMIC_SEQ_CST,
		                                __ATOMIC_SEQ_CST))
			return;
	}
}

static bool kept_child(pid_t pid) {
	for (size_t i = 0; i < KEPT_CHILDREN; i++)
		if (__atomic_load_n(&kept_children[i], __ATOMIC_SEQ_CST) == pid)
			return true;
	return false;
}

static const int forwarded_signals[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                         SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM };
#define N_FORWARDED (sizeof forwarded_signals / sizeof forwarded_signals[0])

/* As a child subreaper confine becomes the parent of the command's orphans;
 * those that end during the run are reaped as they end, so a long run that
 * leaves many behind does not pile up zombies. The command's own process is
 * never touched here: the library waits for it. waitid(WNOWAIT) peeks at the
 * next ended child first; a running command is not waitable, so it does not
 * stand in the way. */
static void reap_orphans(int sig) {
	int saved = errno;
	confine_process *process = supervised_process;
	(void)sig;
	if (process) {
		pid_t leader = confine_process_pid(process);
		for (;;) {
			siginfo_t info;
			memset(&info, 0, sizeof info);
			if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
			    info.si_pid == 0 || info.si_pid == leader || kept_child(info.si_pid))
				break;
			if (waitpid(info.si_pid, NULL, WNOHANG) <= 0)
				break;
		}
	}
	errno = saved;
}
static struct sigaction saved_sigchld;

/*
 * Supervision brackets a start and a wait: cli_supervise_begin() blocks the
 * forwarded signals and installs the forwarding handlers before the child
 * exists; cli_supervise_started() records its group (or, when the start failed,
 * puts the old handlers back) and lifts the mask, so a signal that arrived
 * in between is delivered (and forwarded) right then; cli_supervise_end() puts
 * the old handlers back once the run settled. The library resets the
 * child's own mask and handlers.
 */
static struct sigaction saved_handlers[N_FORWARDED];
static bool handlers_replaced;

void cli_supervise_begin(sigset_t *old_mask) {
	struct sigaction forward;
	sigset_t block;
	size_t i;
	memset(&forward, 0, sizeof forward);
	forward.sa_handler = forward_signal;
	sigemptyset(&block);
	for (i = 0; i < N_FORWARDED; i++)
		sigaddset(&block, forwarded_signals[i]);
	/* One forwarding at a time: a second signal waits for the first walk. */
	forward.sa_mask = block;
	forward.sa_flags = SA_RESTART;
	sigprocmask(SIG_BLOCK, &block, old_mask);
	for (i = 0; i < N_FORWARDED; i++) {
		struct sigaction action = forward;
		if (forwarded_signals[i] == SIGALRM)
			action.sa_handler = kill_after_grace; /* the grace is over */
		sigaction(forwarded_signals[i], &action, &saved_handlers[i]);
	}
	end_armed = 0;
	handlers_replaced = true;
	{
		struct sigaction reap;
		memset(&reap, 0, sizeof reap);
		reap.sa_handler = reap_orphans;
		reap.sa_mask = block;
		reap.sa_flags = SA_RESTART | SA_NOCLDSTOP;
		sigaction(SIGCHLD, &reap, &saved_sigchld);
	}
}

void cli_supervise_end(void) {
	sigset_t block, old;
	size_t i;
	sigemptyset(&block);
	for (i = 0; i < N_FORWARDED; i++)
		sigaddset(&block, forwarded_signals[i]);
	sigaddset(&block, SIGCHLD);
	/* No handler may be using the process when the caller frees it. The
	 * forwarding handlers stay, doing nothing now, until cli_supervise_release():
	 * a signal arriving while confine cleans up after the command (ending
	 * orphans, printing) must not kill confine half way and lose the
	 * command's status. */
	sigprocmask(SIG_BLOCK, &block, &old);
	alarm(0);
	supervised_process = NULL;
	sigaction(SIGCHLD, &saved_sigchld, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Puts back the handlers cli_supervise_begin() replaced; after the cleanup. */
void cli_supervise_release(void) {
	if (!handlers_replaced)
		return;
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded_signals[i], &saved_handlers[i], NULL);
	handlers_replaced = false;
}

void cli_supervise_started(confine_process *process, const sigset_t *old_mask) {
	if (process)
		supervised_process = process;
	else
		cli_supervise_end();
	sigprocmask(SIG_SETMASK, old_mask, NULL);
}

/* ---- orphans: nothing the command started outlives confine ---- */

/*
 * The library ends the run's process group and what is still attached
 * below it; a descendant that called setsid and whose parent had already
 * ended is out of its reach (it was reparented away). confine itself can do
 * better: as a child subreaper (Linux) it becomes the parent of every such
 * orphan, and when the command has settled it kills and reaps whatever is
 * left below it. Under bwrap the PID namespace and --die-with-parent
 * already end such processes; this covers Landlock and danger-full-access.
 */
#if HAVE_PR_SET_CHILD_SUBREAPER
#include <sys/prctl.h>
void cli_adopt_orphans(void) {
	/* Best effort: without it, orphans stay as the library leaves them. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}
#else
void cli_adopt_orphans(void) {
	/* No such call here: orphans stay as the library leaves them. */
}
#endif

/* How long to wait for killed orphans to die (one stuck in an
 * uninterruptible sleep dies when the kernel lets it, reparented to init). */
#define ORPHAN_REAP_MS 3000

static long long monotonic_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Kills every process still below confine and reaps its children, until
 * none is left. Called once the command settled and was reaped. */
void cli_end_orphans(void) {
	long long deadline = monotonic_ms() + ORPHAN_REAP_MS;
	for (;;) {
		int status;
		pid_t w;
		bool reaped = false;
		int found = confine_signal_descendants(getpid(), SIGKILL);
		while ((w = waitpid(-1, &status, WNOHANG)) > 0)
			reaped = true;
		if (w < 0 && errno == ECHILD)
			return; /* no child left */
		/* Children exist that the walk cannot see (no /proc): nothing
		 * more can be done for them. */
		if (found == 0 && !reaped)
			return;
		if (monotonic_ms() >= deadline)
			return;
		{
			struct timespec pause = { 0, 5 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
}

/* Spawns `options` under supervision (through `provider` under `policy`
 * when it is non-NULL: the status channel and the optimistic ladder) and
 * returns its outcome. */
int cli_spawn_supervised(confine_provider *provider, const confine_policy *policy,
                         const confine_spawn_options *options, confine_outcome **ret,
                         confine_error *err) {
	confine_process *process = NULL;
	sigset_t old_mask;
	int r;

	cli_supervise_begin(&old_mask);
	r = provider ? confine_spawn_through(provider, policy, options, &process, err)
	             : confine_spawn(options, &process, err);
	cli_supervise_started(r == 0 ? process : NULL, &old_mask);
	if (r < 0)
		return r;
	r = confine_process_wait(process, ret, err);
	cli_supervise_end();
	confine_process_free(process);
	return r;
}

/* The shell's convention: the exit code, or 128+N for death by signal N. */
int cli_exit_status(const confine_outcome *outcome) {
	if (outcome->signaled)
		return 128 + outcome->signal;
	return outcome->exit_code;
}
