/* SPDX-License-Identifier: MIT */
/*
 * Signalling the run's process tree.
 *
 * A run's processes are not all in its process group. Under bwrap the
 * command runs below bwrap's own init, which leads a session of its own
 * (--new-session), so a signal for the command sent to the child's group
 * reaches bwrap instead: bwrap dies of it and takes the command down before
 * it can clean up. Under Landlock (and unconfined) a descendant that calls
 * setsid leaves the group and would outlive a timeout or the end of the run.
 *
 * So signals are delivered along the descendant tree, found on Linux in
 * /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN), or where that file
 * is absent by scanning every /proc/<pid>/stat for parent links. Only
 * processes found below the child just now are signalled, and a group only
 * through a process found to lead it (pgid == pid): a pid read from /proc
 * could otherwise have been reused. (A pid found as a child can still end,
 * be reaped and be reused between the read and the kill; that window is the
 * few microseconds between the two system calls.)
 *
 * The walk allocates nothing and makes only open/read/close/getdents64/kill
 * calls, so confine_process_signal() stays callable from a signal handler
 * (the CLI forwards SIGINT that way). Its size is bounded (CF_TREE_MAX); a
 * larger tree is signalled in the part found. Elsewhere (no /proc) the tree
 * is the child alone and its group is signalled as before.
 */
#include <errno.h>
#include <signal.h>

#include "spawn/spawn.h"

bool cf_tree_has(const struct cf_proc_tree *t, pid_t pid) {
	for (size_t i = 0; i < t->n; i++)
		if (t->pid[i] == pid)
			return true;
	return false;
}

bool cf_tree_add(struct cf_proc_tree *t, pid_t pid, pid_t pgid) {
	if (t->n >= CF_TREE_MAX || cf_tree_has(t, pid))
		return false;
	t->pid[t->n] = pid;
	t->pgid[t->n] = pgid;
	t->n++;
	return true;
}


/*
 * Sends `sig` along the tree: to each group through its leader, and to each
 * process whose group leader was not found on its own. With `spare_group`
 * > 0, the processes of that group are left out, provided the tree holds
 * some other process to receive the signal. Returns 0 when at least one
 * kill succeeded, else the first failure's -errno (-ESRCH for none).
 */
static int tree_signal(const struct cf_proc_tree *t, int sig, pid_t spare_group) {
	bool sent = false;
	int first_error = 0;
	if (spare_group > 0) {
		bool other = false;
		for (size_t i = 0; i < t->n && !other; i++)
			other = t->pgid[i] != spare_group;
		if (!other)
			spare_group = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		pid_t target;
		int r;
		if (spare_group > 0 && t->pgid[i] == spare_group)
			continue;
		if (t->pid[i] == t->pgid[i]) {
			target = -t->pid[i];
		} else {
			bool leader_found = false;
			for (size_t j = 0; j < t->n && !leader_found; j++)
				leader_found = t->pid[j] == t->pgid[i];
			if (leader_found)
				continue; /* the group's kill reaches it */
			target = t->pid[i];
		}
		r = kill(target, sig);
		if (r == 0)
			sent = true;
		else if (!first_error)
			first_error = -errno;
	}
	if (sent)
		return 0;
	return first_error ? first_error : -ESRCH;
}

/* The child's tree: the child (a session and group leader: it called
 * setsid) and everything found below it. */
static void tree_of_child(const confine_process *p, struct cf_proc_tree *t) {
	t->n = 0;
	(void)cf_tree_add(t, p->pid, p->pid);
	cf_tree_expand(t);
}

/* Delivers `sig` to the run. A runner with CONFINE_RUNNER_FACT_SUPERVISES
 * (bwrap-shaped) supervises the command and reports its status: a signal
 * meant for the command must not end the runner first, so the runner's own
 * group is spared whenever something below it can receive the signal.
 * SIGKILL spares nothing. */
int cf_tree_deliver(const confine_process *p, int sig) {
	struct cf_proc_tree t;
	int saved = errno;
	int r;
	tree_of_child(p, &t);
	r = tree_signal(&t, sig, sig != SIGKILL && p->runner_supervises ? p->pid : 0);
	errno = saved;
	return r;
}

int confine_signal_descendants(pid_t root, int sig) {
	struct cf_proc_tree t;
	int count = 0;
	int saved = errno;
	t.n = 0;
	(void)cf_tree_add(&t, root, 0);
	cf_tree_expand(&t);
	for (size_t i = 1; i < t.n; i++)
		if (kill(t.pid[i], sig) == 0)
			count++;
	errno = saved;
	return count;
}

/* The leader has ended (not yet reaped, so its group id cannot be reused):
 * kill its group and what is still attached below the group's surviving
 * members. A descendant that had already been orphaned (its parent ended
 * before) is out of reach here; see confine_spawn's documentation. */
void cf_tree_kill_after_leader(const confine_process *p) {
	struct cf_proc_tree t;
	int saved = errno;
	t.n = 0;
	(void)cf_tree_add(&t, p->pid, p->pid);
	cf_tree_add_group(&t, p->pid);
	/* The ended leader has no children left (they were reparented when it
	 * ended): only surviving members have anything below them. */
	if (t.n > 1)
		cf_tree_expand(&t);
	(void)tree_signal(&t, SIGKILL, 0);
	errno = saved;
}

