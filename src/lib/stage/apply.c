/* SPDX-License-Identifier: MIT */
/*
 * Applying a stage to the real tree (doc/SPEC.md 21). Every path goes
 * through the harness file operations' resolution and policy decision
 * (fs.c: beneath its root, no link followed out, never onto a protected
 * or denyRead path or a directory holding one), with the protections the
 * run had, rebuilt from the manifest. Each file lands atomically: a new
 * file in the same directory, renamed over the name. What is made or
 * replaced comes first (shallow to deep), what is removed last (deep to
 * shallow), so a rename whose new name fails keeps its old one. Before
 * anything lands, every step is checked against the manifest (guard.c):
 * the entry it replaces, the directories on the way, and all below a real
 * directory it takes away; a step onto what the host changed since the
 * run began is a conflict and changes nothing (F4). The stage is only
 * read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/fs-internal.h"
#include "policy-internal.h"
#include "stage/stage-internal.h"

#define STAGE "stage"

typedef struct report {
	confine_apply_entry *entries;
	size_t n;
	bool all_applied;
} report;

static int note(report *rep, const char *path, confine_apply_outcome outcome, const char *msg) {
	confine_apply_entry *grown = realloc(rep->entries, (rep->n + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	rep->entries = grown;
	grown[rep->n].outcome = outcome;
	grown[rep->n].path = strdup(path);
	grown[rep->n].message = msg ? strdup(msg) : NULL;
	if (!grown[rep->n].path || (msg && !grown[rep->n].message)) {
		free(grown[rep->n].path);
		free(grown[rep->n].message);
		return -ENOMEM;
	}
	rep->n++;
	if (outcome != CONFINE_APPLY_APPLIED)
		rep->all_applied = false;
	return 0;
}

void confine_apply_entries_free(confine_apply_entry *entries, size_t n) {
	for (size_t i = 0; entries && i < n; i++) {
		free(entries[i].path);
		free(entries[i].message);
	}
	free(entries);
}

/* The policy the run had, for its protections. */
int cf_stage_run_policy(const confine_stage *s, confine_policy **ret, confine_error *err) {
	confine_policy *p;
	int r = confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, s->roots[0].real, &p, err);
	if (r < 0)
		return r;
	p->default_protections = s->default_protections;
	for (size_t i = 1; r == 0 && i < s->n_roots; i++)
		r = confine_policy_add_writable_root(p, s->roots[i].real, err);
	for (size_t i = 0; r == 0 && s->protected_paths && s->protected_paths[i]; i++)
		r = confine_policy_add_protected_path(p, s->protected_paths[i], err);
	for (size_t i = 0; r == 0 && s->deny_read && s->deny_read[i]; i++)
		r = confine_policy_add_deny_read(p, s->deny_read[i], err);
	if (r < 0) {
		confine_policy_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

static bool at_or_under(const char *path, const char *top) {
	size_t n = strlen(top);
	while (n > 1 && top[n - 1] == '/')
		n--;
	return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static bool selected(const confine_stage *s, const cf_change *c, const char *const *paths) {
	if (!paths)
		return true;
	for (size_t i = 0; paths[i]; i++) {
		const char *p = paths[i];
		size_t n = strlen(s->roots[0].real);
		/* An absolute path in the workspace names what the listing
		 * shows relative. */
		if (p[0] == '/' && strncmp(p, s->roots[0].real, n) == 0 && (p[n] == '/' || !p[n]))
			p = p[n] ? p + n + 1 : ".";
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		if (strcmp(p, ".") == 0 || at_or_under(c->pub.path, p) ||
		    (c->pub.from && at_or_under(c->pub.from, p)))
			return true;
	}
	return false;
}

/* Where one step lands, and how a real entry in its way is removed. */
typedef struct apply_target {
	confine_stage *s;
	size_t root;
	const char *rel;
	bool overwrite;
	char which[PATH_MAX]; /* the entry that differed (-ESTALE) */
	size_t removed;       /* entries removed before it was seen */
} apply_target;

/* Removes the real `name` at `dirfd`: with --overwrite whatever is there,
 * else only what the manifest recorded, checked entry by entry. */
static int drop(apply_target *t, int dirfd, const char *name) {
	if (t->overwrite)
		return cf_stage_remove_tree(dirfd, name);
	return cf_stage_remove_checked(t->s, t->root, dirfd, name, t->rel, t->which, sizeof t->which,
	                               &t->removed);
}

/* Makes the real path hold what the stage holds at `rel`. */
static int bring(apply_target *t, int dirfd, const char *name, const char *up, const cf_change *c) {
	struct stat st, real;
	bool real_exists = fstatat(dirfd, name, &real, AT_SYMLINK_NOFOLLOW) == 0;
	int r;
	if (lstat(up, &st) < 0)
		return -errno;
	if (c->pub.change == CONFINE_CHANGE_MODE && real_exists &&
	    ((real.st_mode ^ st.st_mode) & S_IFMT) == 0)
		return cf_stage_set_mode(dirfd, name, st.st_mode);
	if (S_ISDIR(st.st_mode)) {
		if (real_exists && !S_ISDIR(real.st_mode) && (r = drop(t, dirfd, name)) < 0)
			return r;
		if ((!real_exists || !S_ISDIR(real.st_mode)) && mkdirat(dirfd, name, 0700) < 0)
			return -errno;
		return cf_stage_set_mode(dirfd, name, st.st_mode);
	}
	/* A directory replaced by a file or link goes first (rename cannot). */
	if (real_exists && S_ISDIR(real.st_mode) && (r = drop(t, dirfd, name)) < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return cf_stage_place_link(dirfd, name, up);
	if (S_ISREG(st.st_mode))
		return cf_stage_place_file(dirfd, name, up);
	return -EOPNOTSUPP; /* a fifo, a socket, a device: never made */
}

typedef struct step {
	const cf_change *c;
	bool removal;        /* remove rel (DELETED) or from_rel (RENAMED) */
	bool conflict;       /* found in the check, before anything was applied */
	bool check_failed;   /* the check itself failed: the step fails */
	char *conflict_msg;
	/* A move (moves.c): the steps of one rename, or of a deleted
	 * directory and the added one holding its tree, share `group` (0:
	 * none); `pair_out` when the whole pair stays out (conflict_msg says
	 * why, `refused` its outcome), `from`/`to` its two names. */
	size_t group;
	bool pair_out, refused;
	const char *from, *to;
	bool sel; /* selected by the paths, or a move either of whose names is */
	int outcome; /* what do_step noted, -1 before */
} step;

/* Whether the step takes a real directory away with all below it. */
static bool deep_step(const step *st) {
	return st->removal || (st->c->real_is_dir && st->c->pub.change != CONFINE_CHANGE_MODE);
}

static const char *step_rel(const step *st) {
	return st->removal && st->c->from_rel ? st->c->from_rel : st->c->rel;
}

static const char *step_shown(const step *st) {
	return st->removal && st->c->pub.from ? st->c->pub.from : st->c->pub.path;
}

static char *conflict_message(const char *which) {
	char msg[PATH_MAX + 128];
	snprintf(msg, sizeof msg,
	         "conflict: %s changed on the host since the run began (the stage keeps its version)",
	         which);
	return strdup(msg);
}

/* The directory fd the policy resolution gave (`dirfd`) is the one the
 * manifest's components lead to: no link was planted at a component. */
static int same_parent(apply_target *t, int dirfd) {
	char name[NAME_MAX + 1];
	struct stat a, b;
	int fd = -1, r = cf_stage_open_parent(t->s, t->root, t->rel, false, &fd, name, sizeof name,
	                                      t->which, sizeof t->which);
	if (r == 1)
		return -ESTALE;
	if (r != 0)
		return r == 2 ? -ENOENT : r;
	r = fstat(fd, &a) < 0 || fstat(dirfd, &b) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 && (a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
		cf_stage_join(t->which, sizeof t->which, t->s->roots[t->root].real, t->rel);
		return -ESTALE;
	}
	return r;
}

/* git's state in a repository the stage holds, or made (git-state.c):
 * true with the refusal's text. */
static bool git_refusal(const confine_stage *s, size_t root, const char *rel, const char *real,
                        char *msg, size_t size) {
	char gitdir[PATH_MAX];
	const char *which = NULL;
	if (!cf_stage_git_state(s, root, rel, gitdir, sizeof gitdir, &which))
		return false;
	snprintf(msg, size,
	         "apply \"%s\": denied by defaultProtections: %s/%s is what git reads, runs "
	         "or obeys later in the repository %s",
	         real, gitdir, which, gitdir);
	return true;
}

static int do_step(confine_stage *s, confine_fs *fs, const step *st, bool overwrite, report *rep,
                   confine_error *err) {
	const cf_change *c = st->c;
	const cf_stage_root *root = &s->roots[c->root];
	const char *rel = step_rel(st), *shown = step_shown(st);
	char real[PATH_MAX], up[PATH_MAX], name[NAME_MAX + 1];
	apply_target t = { .s = s, .root = c->root, .rel = rel, .overwrite = overwrite };
	confine_error fe = { 0 };
	int dirfd = -1, r;
	if (cf_stage_join(real, sizeof real, root->real, rel) < 0 ||
	    cf_stage_join(up, sizeof up, root->upper, rel) < 0)
		return note(rep, shown, CONFINE_APPLY_FAILED, strerror(ENAMETOOLONG));
	if (st->pair_out)
		return note(rep, shown,
		            st->refused        ? CONFINE_APPLY_REFUSED
		            : st->check_failed ? CONFINE_APPLY_FAILED
		                               : CONFINE_APPLY_CONFLICT,
		            st->conflict_msg);
	/* git's state in a repository the stage holds, or made (git-state.c) */
	{
		char msg[4 * PATH_MAX + 128];
		if (git_refusal(s, c->root, rel, real, msg, sizeof msg))
			return note(rep, shown, CONFINE_APPLY_REFUSED, msg);
	}
	if (st->conflict)
		return note(rep, shown, st->check_failed ? CONFINE_APPLY_FAILED : CONFINE_APPLY_CONFLICT,
		            st->conflict_msg);
	snprintf(t.which, sizeof t.which, "%s", real); /* a check that fails names the path */
	/* Checked again just before the write: the host may have moved on
	 * since the check of every step (a removal checks as it goes). */
	if (!overwrite && !deep_step(st) &&
	    cf_stage_conflict(s, c->root, rel, false, false, t.which, sizeof t.which) != 0) {
		char *msg = conflict_message(t.which);
		if (!msg)
			return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
		r = note(rep, shown, CONFINE_APPLY_CONFLICT, msg);
		free(msg);
		return r;
	}
	r = cf_fs_resolve_for_write(fs, "apply", real, st->removal, &dirfd, name, sizeof name, &fe);
	if (r == 0 && !overwrite)
		r = same_parent(&t, dirfd);
	if (r == 0)
		r = st->removal ? drop(&t, dirfd, name) : bring(&t, dirfd, name, up, c);
	if (dirfd >= 0)
		close(dirfd);
	if (r == -ENOMEM && fe.code != CONFINE_E_DENIED)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
	if (r == 0)
		return note(rep, shown, CONFINE_APPLY_APPLIED, NULL);
	if (r == -ESTALE && fe.code == CONFINE_OK) {
		char msg[3 * PATH_MAX + 256];
		if (t.removed)
			snprintf(msg, sizeof msg,
			         "conflict: %s changed on the host while apply removed %s (%zu entries "
			         "below it that were as the run began were removed; %s and each directory "
			         "holding it were kept; the stage keeps its version)",
			         t.which, real, t.removed, t.which);
		else
			snprintf(msg, sizeof msg,
			         "conflict: %s changed on the host since the run began (the stage keeps "
			         "its version)",
			         t.which);
		return note(rep, shown, CONFINE_APPLY_CONFLICT, msg);
	}
	if (fe.code == CONFINE_E_DENIED)
		return note(rep, shown, CONFINE_APPLY_REFUSED, fe.message);
	if (fe.code != CONFINE_OK && fe.message[0])
		return note(rep, shown, CONFINE_APPLY_FAILED, fe.message);
	{
		char msg[PATH_MAX + 128];
		snprintf(msg, sizeof msg, "apply \"%s\": %s", real, strerror(-r));
		return note(rep, shown, CONFINE_APPLY_FAILED, msg);
	}
}

/* Whether `rel` lies strictly below `top` (both relative to one root). */
static bool below(const char *rel, const char *top) {
	size_t n = strlen(top);
	return n > 0 && strncmp(rel, top, n) == 0 && rel[n] == '/';
}

/* Every step checked against the manifest before anything is applied:
 * the entry it replaces (and, for a step that removes a real directory,
 * all below it); a rename conflicts whole when either name does; a step
 * below a directory whose own step conflicts conflicts too (it would land
 * in the host's directory). */
static int check_all(confine_stage *s, step *steps, size_t n_steps, confine_error *err) {
	for (size_t i = 0; i < n_steps; i++) {
		char which[PATH_MAX];
		int r = cf_stage_conflict(s, steps[i].c->root, step_rel(&steps[i]), deep_step(&steps[i]),
		                          true, which, sizeof which);
		if (r < 0) { /* that step fails, checked no further: never applied unchecked */
			char msg[PATH_MAX + 128];
			snprintf(msg, sizeof msg, "apply \"%s\": cannot check it against the run's start: %s",
			         step_shown(&steps[i]), strerror(-r));
			steps[i].conflict = steps[i].check_failed = true;
			if (!(steps[i].conflict_msg = strdup(msg)))
				return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
				                    "out of memory");
			continue;
		}
		if (r > 0) {
			steps[i].conflict = true;
			if (!(steps[i].conflict_msg = conflict_message(which)))
				return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
				                    "out of memory");
		}
	}
	for (size_t i = 0; i < n_steps; i++)
		for (size_t j = 0; j < n_steps && !steps[i].conflict; j++) {
			const step *o = &steps[j];
			bool same_rename = j != i && o->c == steps[i].c;
			/* A mode change of a directory owns nothing below it. */
			bool under = !o->removal && o->c->pub.change != CONFINE_CHANGE_MODE &&
			             o->c->root == steps[i].c->root &&
			             below(step_rel(&steps[i]), o->c->rel);
			if (!o->conflict || !(same_rename || under))
				continue;
			steps[i].conflict = true;
			steps[i].check_failed = o->check_failed;
			if (!(steps[i].conflict_msg = strdup(o->conflict_msg)))
				return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
				                    "out of memory");
		}
	return 0;
}

/* Whether the step would be refused whatever the host did (the policy,
 * git's state in the stage): true with the refusal's text. Nothing is
 * written. */
static bool would_refuse(confine_stage *s, confine_fs *fs, const step *st, char *msg,
                         size_t size) {
	const char *rel = step_rel(st);
	char real[PATH_MAX], name[NAME_MAX + 1];
	confine_error fe = { 0 };
	int dirfd = -1;
	if (cf_stage_join(real, sizeof real, s->roots[st->c->root].real, rel) < 0)
		return false; /* do_step fails it */
	if (git_refusal(s, st->c->root, rel, real, msg, size))
		return true;
	if (cf_fs_resolve_for_write(fs, "apply", real, st->removal, &dirfd, name, sizeof name, &fe) ==
	    0)
		close(dirfd);
	if (fe.code != CONFINE_E_DENIED)
		return false;
	snprintf(msg, size, "%s", fe.message);
	return true;
}

/* A move is a pair (SPEC 21): a rename's two names, and a deleted real
 * directory with the added directory holding its tree (moves.c: `mv`
 * copies a directory through the overlay) and all below that, and a
 * deleted file whose bytes a modified file now holds (a move onto a name
 * that was there); the
 * number of pairs (their `group`s, from 1). When any step of a pair
 * would not land (a conflict, a refusal), none does (refuse_pairs): the
 * old name would go while the new one stays out (`mv safe .claude`). */
static size_t group_moves(confine_stage *s, step *steps, size_t n_steps) {
	size_t groups = 0;
	for (size_t i = 0; i < n_steps; i++) {
		const cf_change *c = steps[i].c;
		if (steps[i].group)
			continue;
		if (c->pub.change == CONFINE_CHANGE_RENAMED) {
			groups++;
			for (size_t j = 0; j < n_steps; j++)
				if (steps[j].c == c)
					steps[j].group = groups, steps[j].from = c->pub.from,
					steps[j].to = c->pub.path;
			continue;
		}
		if (steps[i].removal && c->pub.change == CONFINE_CHANGE_DELETED && c->pub.type == 'f') {
			/* a move onto a name that was there: the deleted file's
			 * bytes and mode are a modified file's new ones */
			for (size_t a = 0; a < n_steps; a++) {
				const cf_change *to = steps[a].c;
				if (steps[a].removal || steps[a].group ||
				    to->pub.change != CONFINE_CHANGE_MODIFIED || to->pub.type != 'f' ||
				    to->root != c->root || to->pub.size != c->pub.size)
					continue;
				/* a file that cannot be compared is taken for the move: kept */
				if (cf_stage_moved_file(s, c->root, c->rel, to->rel) == 0)
					continue;
				groups++;
				steps[i].group = steps[a].group = groups;
				steps[i].from = steps[a].from = c->pub.path;
				steps[i].to = steps[a].to = to->pub.path;
				break;
			}
			continue;
		}
		if (!steps[i].removal || c->pub.change != CONFINE_CHANGE_DELETED || !c->real_is_dir)
			continue;
		for (size_t a = 0; a < n_steps; a++) {
			const cf_change *to = steps[a].c;
			if (steps[a].removal || steps[a].group || to->pub.change != CONFINE_CHANGE_ADDED ||
			    to->pub.type != 'd' || to->root != c->root)
				continue;
			/* a tree that cannot be compared is taken for the move: kept */
			if (cf_stage_moved(s, c->root, c->rel, to->rel) == 0)
				continue;
			groups++;
			for (size_t j = 0; j < n_steps; j++)
				if (j == i || (!steps[j].removal && !steps[j].group &&
				               steps[j].c->root == c->root && at_or_under(steps[j].c->rel, to->rel))) {
					steps[j].group = groups;
					steps[j].from = c->pub.path;
					steps[j].to = to->pub.path;
				}
			break;
		}
	}
	return groups;
}

/* Each pair with a change that would not land is left out whole. */
static int refuse_pairs(confine_stage *s, confine_fs *fs, step *steps, size_t n_steps,
                        size_t groups, confine_error *err) {
	for (size_t g = 1; g <= groups; g++) {
		char why[3 * PATH_MAX + 256], msg[5 * PATH_MAX + 512];
		const step *blocker = NULL;
		bool refused = false;
		for (size_t j = 0; j < n_steps && !blocker; j++) {
			if (steps[j].group != g)
				continue;
			if (steps[j].conflict) {
				blocker = &steps[j];
				snprintf(why, sizeof why, "%s", steps[j].conflict_msg);
			} else if (would_refuse(s, fs, &steps[j], why, sizeof why))
				blocker = &steps[j], refused = true;
		}
		if (!blocker)
			continue;
		snprintf(msg, sizeof msg,
		         "the run moved %s to %s, and %s: neither name is applied (%s is kept as it is; "
		         "the stage keeps the move)",
		         blocker->from, blocker->to, why, blocker->from);
		{
			bool check_failed = blocker->check_failed;
			for (size_t j = 0; j < n_steps; j++) {
				if (steps[j].group != g)
					continue;
				free(steps[j].conflict_msg);
				steps[j].conflict = steps[j].pair_out = true;
				steps[j].refused = refused;
				steps[j].check_failed = check_failed;
				if (!(steps[j].conflict_msg = strdup(msg)))
					return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
					                    "out of memory");
			}
		}
	}
	return 0;
}

/* Whether every step that makes the new name of removal step `i`'s move
 * landed (a failure after the checks). */
static bool move_landed(const step *steps, size_t n_steps, size_t i) {
	for (size_t j = 0; steps[i].group && j < n_steps; j++)
		if (j != i && steps[j].group == steps[i].group && !steps[j].removal &&
		    steps[j].outcome != CONFINE_APPLY_APPLIED)
			return false;
	return true;
}

/* Each staged root is the directory the stage was made from: the fd the
 * file handle resolves every write beneath (opened once, by the path)
 * has the device and inode the manifest recorded, and every check of
 * this apply starts from that fd, never from the path again. A root
 * moved aside and replaced by another directory, or by a link, since
 * the run is refused whole: nothing of the stage would land where the
 * run wrote. */
static int hold_roots(confine_stage *s, confine_fs *fs, confine_error *err) {
	for (size_t i = 0; i < s->n_roots; i++) {
		cf_stage_root *root = &s->roots[i];
		const cf_stage_entry *e = cf_stage_entry_of(s, i, "");
		int fd = cf_fs_root_fd(fs, root->real), named;
		struct stat st, at_name;
		bool same;
		if (fd >= 0 && fstat(fd, &st) < 0)
			return cf_error_set(err, errno, CONFINE_E_FS, STAGE, errno,
			                    "apply: cannot examine the staged root %s: %s", root->real,
			                    strerror(errno));
		/* and its path names that directory itself, not a link to it */
		named = open(root->real, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (named < 0 || fstat(named, &at_name) < 0 || !S_ISDIR(at_name.st_mode) ||
		    (fd >= 0 && (at_name.st_dev != st.st_dev || at_name.st_ino != st.st_ino)))
			fd = -1;
		if (named >= 0)
			close(named);
		/* a manifest from before the root's identity was kept: its
		 * own entry's inode */
		same = fd >= 0 && S_ISDIR(st.st_mode) &&
		       (root->has_id ? root->dev == (uint64_t)st.st_dev && root->ino == (uint64_t)st.st_ino
		                     : e && e->ino == (uint64_t)st.st_ino);
		if (!same)
			return cf_error_set(err, ESTALE, CONFINE_E_DENIED, STAGE, 0,
			                    "apply: the staged root %s is not the directory the run was "
			                    "staged from (it was moved, replaced or made a symbolic link "
			                    "since): nothing applied",
			                    root->real);
		root->fd = fd;
	}
	return 0;
}

static void release_roots(confine_stage *s) {
	for (size_t i = 0; i < s->n_roots; i++)
		s->roots[i].fd = -1;
}

int confine_stage_apply(confine_stage *s, const char *const *paths, bool overwrite,
                        confine_apply_entry **ret, size_t *ret_n, confine_error *err) {
	confine_policy *policy = NULL;
	confine_fs *fs = NULL;
	cf_change *ch = NULL;
	step *steps = NULL;
	size_t n = 0, n_steps = 0, groups;
	report rep = { .all_applied = true };
	int r;
	if (!s || !ret || !ret_n)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_stage_apply needs a stage and result pointers");
	if ((r = cf_stage_run_policy(s, &policy, err)) < 0 || (r = confine_fs_open(policy, &fs, err)) < 0 ||
	    (r = hold_roots(s, fs, err)) < 0 || (r = cf_stage_collect(s, false, &ch, &n, err)) < 0)
		goto out;
	if (!(steps = calloc(2 * n + 1, sizeof *steps))) {
		r = cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
		goto out;
	}
	/* What is made, shallow first (the changes are sorted by path) ... */
	for (size_t i = 0; i < n; i++)
		if (ch[i].pub.change != CONFINE_CHANGE_DELETED)
			steps[n_steps++] = (step){ .c = &ch[i], .sel = selected(s, &ch[i], paths),
			                           .outcome = -1 };
	/* ... then what is removed, deepest first. */
	for (size_t i = n; i-- > 0;)
		if (ch[i].pub.change == CONFINE_CHANGE_DELETED ||
		    ch[i].pub.change == CONFINE_CHANGE_RENAMED)
			steps[n_steps++] = (step){ .c = &ch[i], .removal = true,
			                           .sel = selected(s, &ch[i], paths), .outcome = -1 };
	/* A move is selected whole when either of its names is. */
	groups = group_moves(s, steps, n_steps);
	for (size_t i = 0; i < n_steps; i++)
		for (size_t j = 0; steps[i].group && !steps[i].sel && j < n_steps; j++)
			steps[i].sel = steps[j].group == steps[i].group && steps[j].sel;
	{
		size_t kept = 0;
		for (size_t i = 0; i < n_steps; i++)
			if (steps[i].sel)
				steps[kept++] = steps[i];
		n_steps = kept;
	}
	if ((!overwrite && (r = check_all(s, steps, n_steps, err)) < 0) ||
	    (r = refuse_pairs(s, fs, steps, n_steps, groups, err)) < 0)
		goto out;
	for (size_t i = 0; i < n_steps; i++) {
		/* A move whose new name did not land keeps its old one. */
		if (steps[i].removal && !steps[i].pair_out && !move_landed(steps, n_steps, i)) {
			char msg[3 * PATH_MAX + 128];
			snprintf(msg, sizeof msg,
			         "the run moved %s to %s, which did not land whole: %s is kept (the stage "
			         "keeps the move)",
			         steps[i].from, steps[i].to, steps[i].from);
			if ((r = note(&rep, step_shown(&steps[i]), CONFINE_APPLY_FAILED, msg)) < 0)
				goto out;
			continue;
		}
		if ((r = do_step(s, fs, &steps[i], overwrite, &rep, err)) < 0)
			goto out;
		steps[i].outcome = (int)rep.entries[rep.n - 1].outcome;
	}
	*ret = rep.entries;
	*ret_n = rep.n;
	rep.entries = NULL;
	r = rep.all_applied ? 0 : 1;
out:
	if (r < 0 && r != -ENOMEM && err && err->code == CONFINE_OK)
		r = cf_error_set(err, -r, CONFINE_E_SYSTEM, STAGE, -r, "stage: apply: %s", strerror(-r));
	confine_apply_entries_free(rep.entries, rep.n);
	for (size_t i = 0; steps && i < n_steps; i++)
		free(steps[i].conflict_msg);
	free(steps);
	cf_stage_changes_clear(ch, n);
	release_roots(s);
	confine_fs_free(fs);
	confine_policy_free(policy);
	return r;
}
