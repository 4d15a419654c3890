/* SPDX-License-Identifier: MIT */
/*
 * The run's state machine (SPEC 8 and 9): RUNNING until the leader ends
 * (noticed by its pidfd, else by short polls), then DRAINING the output
 * pipes for a bounded grace, then SETTLED. Every step pumps the streams,
 * enforces the timeout (SIGTERM, then SIGKILL after the grace) and, once
 * settled, the outcome is classified with the facts of the wrap the run was
 * started from.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "denials.h"
#include "git-hazards.h"
#include "clause-list.h"
#include "launcher-protocol.h"
#include "spawn/spawn.h"

static int oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM, "out of memory");
}

pid_t confine_process_pid(const confine_process *process) {
	return process ? process->pid : -1;
}

void cf_process_set_kill_grace_ms(confine_process *process, unsigned grace_ms) {
	process->kill_grace_ms = grace_ms;
}

static void signal_group(confine_process *p, int sig) {
	if (p->pid > 0)
		(void)kill(-p->pid, sig);
}

/* Has the leader ended? If so, end what is left of its group while the
 * unreaped leader still pins the group's id (so the id cannot be reused
 * under us), then reap it. */
static void check_leader(confine_process *p) {
	siginfo_t info;
	int status;
	memset(&info, 0, sizeof info);
	if (waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
		if (errno == EINTR)
			return;
		/* ECHILD: someone else reaped it (SIGCHLD ignored, or a
		 * waitpid(-1) elsewhere). The status is lost. */
		p->wait_errno = errno;
		p->leader_ended = 1;
		signal_group(p, SIGKILL);
		goto reaped;
	}
	if (info.si_pid == 0)
		return; /* still running */
	if (info.si_code != CLD_EXITED && info.si_code != CLD_KILLED && info.si_code != CLD_DUMPED) {
		/* macOS's waitid can answer WEXITED with a stopped or continued
		 * child (Linux never does): that is not an end. Consume the
		 * notification (the child is ours) so the next check sees past it. */
		memset(&info, 0, sizeof info);
		(void)waitid(P_PID, (id_t)p->pid, &info, WSTOPPED | WCONTINUED | WNOHANG);
		return;
	}
	/* A confined tree never outlives its run: its group, and what is still
	 * attached below the group's other members: from the run's cgroup's
	 * list where it has one (a few pids), else by reading /proc. */
	p->leader_ended = 1;
	if (!cf_policy_run_kill_rest(p))
		cf_tree_kill_after_leader(p);
	for (;;) {
		/* wait4: the leader's rusage counts every process it reaped
		 * below it (the outcome's cpu_seconds). */
		pid_t w = wait4(p->pid, &status, 0, &p->rusage);
		if (w == p->pid) {
			p->status = status;
			p->have_rusage = true;
			break;
		}
		if (w < 0 && errno == EINTR)
			continue;
		p->wait_errno = w < 0 ? errno : ECHILD;
		break;
	}
reaped:
	cf_close_fd(&p->pidfd);
	p->state = CF_STATE_DRAINING;
	p->drain_until_ms = cf_now_ms() + CF_DRAIN_GRACE_MS;
}

static void enforce_timeout(confine_process *p, long long now) {
	if (!p->timeout_ms || p->state != CF_STATE_RUNNING)
		return;
	if (!p->term_sent && now >= p->deadline_ms) {
		p->timed_out = true;
		p->term_sent = true;
		p->kill_at_ms = now + p->kill_grace_ms;
		if (p->kill_grace_ms)
			(void)cf_tree_deliver(p, SIGTERM);
	}
	if (p->term_sent && !p->kill_sent && now >= p->kill_at_ms) {
		p->kill_sent = true;
		(void)cf_tree_deliver(p, SIGKILL);
	}
}

/* One step of the run: waits at most until something happens (when
 * `block`), pumps output, notices the leader's end, enforces the timeout.
 * Returns true once settled. */
static bool step(confine_process *p, bool block) {
	struct pollfd pfds[4 + CF_ASK_OPEN_MAX];
	nfds_t n = 0;
	int wait_ms = 0;
	long long now = cf_now_ms();

	if (p->state == CF_STATE_SETTLED)
		return true;
	enforce_timeout(p, now);

	if (block) {
		long long until = -1;
		if (p->state == CF_STATE_RUNNING) {
			if (p->timeout_ms)
				until = p->term_sent ? (p->kill_sent ? -1 : p->kill_at_ms) : p->deadline_ms;
		} else {
			until = p->drain_until_ms;
		}
		if (p->state == CF_STATE_RUNNING && p->n_ask_open) {
			/* an open question's bound wakes the wait too */
			long long ask_until = -1;
			(void)cf_ask_poll_fds(p, pfds, &ask_until);
			if (until < 0 || ask_until < until)
				until = ask_until;
		}
		if (until < 0)
			wait_ms = -1;
		else
			wait_ms = until > now ? (int)(until - now > INT_MAX ? INT_MAX : until - now) : 0;
		if (p->state == CF_STATE_RUNNING && p->pidfd < 0) {
			if (wait_ms < 0 || wait_ms > p->fallback_wait_ms)
				wait_ms = p->fallback_wait_ms;
			if (p->fallback_wait_ms < CF_FALLBACK_MAX_WAIT_MS)
				p->fallback_wait_ms *= 2;
		}
	}
	if (p->state == CF_STATE_RUNNING && p->pidfd >= 0)
		pfds[n++] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
	for (int i = 1; i < 3; i++)
		if (p->streams[i].fd >= 0)
			pfds[n++] = (struct pollfd){ .fd = p->streams[i].fd, .events = POLLIN };
	if (p->ask_fd >= 0 && p->state == CF_STATE_RUNNING)
		pfds[n++] = (struct pollfd){ .fd = p->ask_fd, .events = POLLIN };
	if (p->state == CF_STATE_RUNNING) {
		long long ignored = -1;
		n += (nfds_t)cf_ask_poll_fds(p, pfds + n, &ignored);
	}
	if (n > 0 || wait_ms != 0)
		(void)poll(n ? pfds : NULL, n, wait_ms);
	cf_ask_pump(p);
	cf_ask_settle(p, false);

	cf_streams_pump(p);
	if (p->state == CF_STATE_RUNNING)
		check_leader(p);
	if (p->state != CF_STATE_RUNNING)
		cf_ask_settle(p, true);
	if (p->state == CF_STATE_DRAINING) {
		cf_streams_pump(p);
		if (!cf_streams_open(p) || cf_now_ms() >= p->drain_until_ms) {
			cf_close_fd(&p->streams[1].fd);
			cf_close_fd(&p->streams[2].fd);
			p->state = CF_STATE_SETTLED;
		}
	}
	return p->state == CF_STATE_SETTLED;
}

int confine_process_poll(confine_process *process, confine_error *err) {
	if (!process || process->pid <= 0)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "wait", 0,
		                    "poll needs a started process");
	return step(process, false) ? 1 : 0;
}

int confine_process_signal(confine_process *process, int sig) {
	if (!process || process->pid <= 0)
		return -EINVAL;
	if (process->state != CF_STATE_RUNNING || process->leader_ended)
		return -ESRCH;
	/* An open question is not waited for past a signal that ends the
	 * run (doc/SPEC.md 15, "Ask"; this may run in a signal handler). */
	if (sig == SIGTERM || sig == SIGKILL || sig == SIGHUP || sig == SIGQUIT)
		process->ask_ending = 1;
	return cf_tree_deliver(process, sig);
}

/* Settlement classification (SPEC 8 and 9): runner failure first, with
 * this run's own rules; denial second, with its own dialect. Both read only
 * what was captured of stderr. */
static int classify(const confine_process *p, confine_outcome *o) {
	const confine_argv *c = p->confined;
	o->confined = c != NULL;
	if (!c) {
		o->mode = CONFINE_MODE_DANGER_FULL_ACCESS;
		o->runner = CONFINE_RUNNER_NONE;
		o->enforcement = CONFINE_ENFORCEMENT_FULL;
		return 0;
	}
	o->mode = c->policy.mode;
	o->runner = c->runner;
	o->enforcement = c->enforcement;
	/* A run with a status channel started its command (or confine_spawn
	 * would have failed): its stderr is the command's, never read for
	 * runner failure (doc/SPEC.md 12). */
	if (c->unenforced && !(o->unenforced = cf_strv_copy((const char *const *)c->unenforced)))
		return -ENOMEM;
	if (cf_clauses_copy(c->clauses, c->n_clauses, &o->clauses) < 0)
		return -ENOMEM;
	o->n_clauses = c->n_clauses;
	if (c->spawn_flags & CONFINE_SPAWN_STATUS_CHANNEL) {
		/* The launcher said what it applied (doc/SPEC.md 12): a layer it
		 * did not apply held nothing on this run, and a clause left with
		 * no layer is unenforced (doc/SPEC.md 15). */
		if (p->channel.layers_seen && o->n_clauses) {
			unsigned seen = p->channel.layers;
			char **summary = NULL;
			/* A clause the Landlock layer made whole (a denyRead mask that
			 * Landlock's rules, following the file, keep when the host
			 * saves over the name, doc/SPEC.md 15) holds by name only
			 * without it. */
			if ((!(seen & (LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_LANDLOCK_PARTIAL)) &&
			     cf_clauses_weaken(o->clauses, o->n_clauses, "denyRead", CONFINE_LAYER_LANDLOCK,
			                       "held by its name: Landlock did not apply on this run, and "
			                       "a save on the host over the name detaches the mask") < 0) ||
			    (!(seen & LAUNCHER_LAYER_SUPERVISOR) &&
			     cf_clauses_drop_layers(o->clauses, o->n_clauses, CONFINE_LAYER_SUPERVISOR,
			                            "the launcher's supervisor did not start on this "
			                            "run") < 0) ||
			    (!(seen & (LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_LANDLOCK_PARTIAL)) &&
			     cf_clauses_drop_layers(o->clauses, o->n_clauses, CONFINE_LAYER_LANDLOCK,
			                            "Landlock did not apply on this run") < 0) ||
			    (!(seen & LAUNCHER_LAYER_SECCOMP) &&
			     cf_clauses_drop_layers(o->clauses, o->n_clauses, CONFINE_LAYER_SECCOMP,
			                            "the launcher's seccomp filter did not apply on this "
			                            "run") < 0) ||
			    cf_clauses_unenforced(o->clauses, o->n_clauses, &summary) < 0)
				return -ENOMEM;
			confine_strv_free(o->unenforced);
			o->unenforced = summary;
			if (!cf_clauses_all_enforced(o->clauses, o->n_clauses))
				o->enforcement = CONFINE_ENFORCEMENT_PARTIAL;
		}
		goto denial;
	}
	{
		char *detail = NULL;
		int r = confine_classify_runner_failure(o->signaled ? 0 : o->exit_code, o->signaled,
		                                        o->stderr_data, o->stderr_len, c->rules,
		                                        c->n_rules, &detail);
		if (r < 0)
			return r;
		if (r > 0) {
			o->runner_failed = true;
			o->runner_failure_detail = detail;
			return 0;
		}
	}
denial:
	/* The file and network markers, and each denial with its object: the
	 * supervisor's records, then the output (doc/SPEC.md 8). */
	return cf_denials_classify(c, p->workdir, p->channel.denials, p->channel.n_denials, o);
}

int confine_process_wait(confine_process *process, confine_outcome **ret, confine_error *err) {
	confine_outcome *o;
	if (!process || process->pid <= 0 || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "wait", 0,
		                    "wait needs a started process and a result pointer");
	while (!step(process, true))
		;
	if (process->wait_errno)
		return cf_error_set(err, process->wait_errno, CONFINE_E_SYSTEM, "wait",
		                    process->wait_errno,
		                    "cannot collect the exit status of process %d: %s (is SIGCHLD "
		                    "ignored?)",
		                    (int)process->pid, strerror(process->wait_errno));
	o = calloc(1, sizeof *o);
	if (!o)
		return oom(err);
	if (process->status_fd >= 0)
		(void)cf_status_read(process->status_fd, &process->channel);
	if (process->channel.ended) {
		/* The launcher waited for the command: its record is the command's
		 * own end on every rung (bwrap would say 128+N for a signal). */
		o->signaled = process->channel.signaled;
		o->signal = o->signaled ? process->channel.code : 0;
		o->exit_code = o->signaled ? -1 : process->channel.code;
	} else if (WIFSIGNALED(process->status)) {
		o->signaled = true;
		o->signal = WTERMSIG(process->status);
		o->exit_code = -1;
	} else {
		o->exit_code = WEXITSTATUS(process->status);
	}
	o->timed_out = process->timed_out;
	o->peak_memory = o->peak_pids = -1;
	o->cpu_seconds = -1;
	if (process->have_rusage)
		o->cpu_seconds = (double)(process->rusage.ru_utime.tv_sec + process->rusage.ru_stime.tv_sec) +
		                 (double)(process->rusage.ru_utime.tv_usec + process->rusage.ru_stime.tv_usec) / 1e6;
	/* The launcher's figure: on the bwrap rung the leader's rusage is the
	 * outer bwrap's, which never reaps its pid 1 and so counts nothing of
	 * the command (doc/SPEC.md 15). The larger is the better: each counts
	 * only processes it reaped. */
	if (process->channel.have_cpu && process->channel.cpu_seconds > o->cpu_seconds)
		o->cpu_seconds = process->channel.cpu_seconds;
	if (cf_stream_copy(&process->streams[1], &o->stdout_data, &o->stdout_len,
	                &o->stdout_truncated) < 0 ||
	    cf_stream_copy(&process->streams[2], &o->stderr_data, &o->stderr_len,
	                &o->stderr_truncated) < 0 ||
	    classify(process, o) < 0 || cf_policy_run_finish(process, o) < 0) {
		confine_outcome_free(o);
		return oom(err);
	}
	/* Past the bound: the channel's count or the scan's, whichever is
	 * more. The scan starts from the channel's records and reads the
	 * launcher's stderr, which names the proxy's refusals again: their
	 * sum counted each dropped refusal twice (red team R3-F4). Each is
	 * a lower bound of the truth, and so is the larger. */
	{
		/* The channel's count: the records it listed past the bound,
		 * and those the launcher did not write (its `dropped` record:
		 * the supervisor's past its own 32, the proxy's past 256). */
		size_t channel = process->channel.denials_dropped + process->channel.unsent_denied +
		                 process->channel.unsent_refused;
		if (channel > o->denials_dropped)
			o->denials_dropped = channel;
	}
	o->network_decisions_dropped = process->channel.unsent_decisions;
	o->network_decisions = process->channel.decisions;
	o->n_network_decisions = process->channel.n_decisions;
	process->channel.decisions = NULL;
	process->channel.n_decisions = 0;
	*ret = o;
	return 0;
}

void confine_process_free(confine_process *process) {
	if (!process)
		return;
	if (process->pid > 0 && process->state == CF_STATE_RUNNING) {
		int status;
		(void)cf_tree_deliver(process, SIGKILL);
		while (waitpid(process->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	cf_close_fd(&process->pidfd);
	cf_close_fd(&process->status_fd);
	cf_ask_settle(process, true);
	cf_close_fd(&process->ask_fd);
	cf_status_free(&process->channel);
	for (int i = 0; i < 3; i++) {
		cf_close_fd(&process->streams[i].fd);
		cf_buf_free(&process->streams[i].buf);
	}
	cf_policy_run_release(process);
	confine_argv_free(process->confined);
	free(process->workdir);
	free(process);
}

int confine_run(const confine_spawn_options *options, confine_outcome **ret,
                confine_error *err) {
	confine_process *p;
	int r;
	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "run needs a result pointer");
	r = confine_spawn(options, &p, err);
	if (r < 0)
		return r;
	r = confine_process_wait(p, ret, err);
	confine_process_free(p);
	return r;
}

void confine_outcome_free(confine_outcome *outcome) {
	if (!outcome)
		return;
	free(outcome->stdout_data);
	free(outcome->stderr_data);
	free(outcome->runner_failure_detail);
	confine_strv_free(outcome->unenforced);
	cf_git_hazards_free(outcome->git_hazards, outcome->n_git_hazards);
	cf_clauses_free(outcome->clauses, outcome->n_clauses);
	{
		cf_denials list = { outcome->denials, outcome->n_denials, 0 };
		cf_denials_free(&list);
	}
	cf_decisions_free(outcome->network_decisions, outcome->n_network_decisions);
	free(outcome);
}

int confine_outcome_error(const confine_outcome *outcome, confine_error *err) {
	if (!outcome || !outcome->runner_failed)
		return 0;
	return confine_error_sandbox_unavailable(
		err, outcome->mode,
		outcome->runner_failure_detail ? outcome->runner_failure_detail
		                               : "the runner failed before running the command");
}

unsigned cf_process_timeout_ms(const confine_process *process) {
	return process->timeout_ms;
}
