/* SPDX-License-Identifier: MIT */
/*
 * Denials with their object (doc/SPEC.md 8, 9; denials.h says what).
 *
 * A line of output is read for one of the file messages (the strerror
 * texts of EACCES, EROFS, EPERM, EBUSY, ENOENT) where it ends the error,
 * and for the path it names in the shapes common tools print:
 *   <prog>: [line N: ]<path>: <message>         bash, cat, coreutils
 *   <prog>: <verb ...> '<path>': <message>      touch, mkdir, cp, ls (quoted)
 *   <prog>: <n>: cannot create <path>: <message> dash
 *   error: could not lock config file <path>: <message>   git
 *   <Error>: [Errno N] <message>: '<path>'      Python
 *   <CODE>: <message>, <syscall> '<path>'       Node
 * A relative path starts at the run's working directory. What decides is
 * the clause that covers the path (denyRead, a protected path, a write
 * outside the writable areas) and whether that clause held on the run;
 * a message the rung does not speak, or a path no clause covers, is no
 * denial. Network messages are read only when the network clause is off,
 * for an address in the shapes of curl, ssh, nc, wget and bash's /dev/tcp.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "denials-internal.h"
#include "launcher-protocol.h"

/* ---- the list ------------------------------------------------------------ */

static bool same_text(const char *a, const char *b) {
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void denial_clear(confine_denial *e) {
	free(e->op);
	free(e->path);
	free(e->address);
	free(e->clause);
	free(e->reason);
	memset(e, 0, sizeof *e);
}

int cf_denials_add(cf_denials *d, const char *op, const char *path, const char *address,
                   const char *clause) {
	confine_denial *items, *e;
	if (!d || !op || !clause || !path == !address)
		return -EINVAL;
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->items[i].op, op) == 0 && same_text(d->items[i].path, path) &&
		    same_text(d->items[i].address, address))
			return 0;
	if (d->n >= CONFINE_DENIALS_MAX) {
		d->dropped++; /* kept count of, never silently lost (doc/SPEC.md 9) */
		return 0;
	}
	items = realloc(d->items, (d->n + 1) * sizeof *items);
	if (!items)
		return -ENOMEM;
	d->items = items;
	e = &items[d->n];
	memset(e, 0, sizeof *e);
	e->op = strdup(op);
	e->clause = strdup(clause);
	e->path = path ? strdup(path) : NULL;
	e->address = address ? strdup(address) : NULL;
	if (!e->op || !e->clause || (path && !e->path) || (address && !e->address)) {
		denial_clear(e);
		return -ENOMEM;
	}
	d->n++;
	return 1;
}

void cf_denials_free(cf_denials *d) {
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		denial_clear(&d->items[i]);
	free(d->items);
	d->items = NULL;
	d->n = 0;
	d->dropped = 0;
}

/* ---- what the clauses cover ---------------------------------------------- */

/* The clause named `name` (or, with `name` NULL, any of the path clauses)
 * whose subject is `path` or holds it, and that some layer holds (enforced,
 * or partial: a mask held by its name still refused this read); NULL when
 * none. */
static const confine_clause *covering(const cf_denial_scope *s, const char *const *names,
                                      const char *path) {
	for (size_t i = 0; i < s->n_clauses; i++) {
		const confine_clause *c = &s->clauses[i];
		if (c->status == CONFINE_CLAUSE_UNENFORCED || !c->layers || !c->subject ||
		    c->subject[0] != '/')
			continue;
		for (const char *const *n = names; *n; n++)
			if (strcmp(c->clause, *n) == 0 && cf_den_under(path, c->subject))
				return c;
	}
	return NULL;
}

/* Whether the clause `name` holds on the run (with `subject`, when given). */
static bool holds(const cf_denial_scope *s, const char *name, const char *subject) {
	for (size_t i = 0; i < s->n_clauses; i++) {
		const confine_clause *c = &s->clauses[i];
		if (strcmp(c->clause, name) == 0 && c->status != CONFINE_CLAUSE_UNENFORCED &&
		    c->layers && (!subject || (c->subject && strcmp(c->subject, subject) == 0)))
			return true;
	}
	return false;
}

static bool writable(const cf_denial_scope *s, const char *path) {
	for (char *const *w = s->writable; w && *w; w++)
		if (cf_den_under(path, *w))
			return true;
	return false;
}

static bool mount_masks(const cf_denial_scope *s) {
	return (s->facts & CONFINE_RUNNER_FACT_MOUNT_MASKS) != 0;
}

/* Whether the rung speaks message `k` for a refusal. */
static bool speaks(const cf_denial_scope *s, enum kind k) {
	if (k == K_BUSY || k == K_NOENT)
		return mount_masks(s);
	for (char *const *sig = s->signatures; sig && *sig; sig++)
		if (strcasecmp(*sig, cf_den_file_messages[k]) == 0)
			return true;
	return false;
}

/* ---- one line ------------------------------------------------------------ */

enum reading { R_NOTHING, R_ORDINARY, R_DENIAL };

/* The file side of a line: a denial (added), an ordinary error (the path
 * lies where the run may write and no clause covers it), or nothing
 * known. */
static int file_line(const cf_denial_scope *s, const char *l, size_t len, cf_denials *list,
                     enum reading *ret) {
	static const char *const deny[] = { "denyRead", NULL };
	static const char *const protect[] = { "protectedPaths", "defaultProtections", NULL };
	const cf_denial_fs *fs = s->fs ? s->fs : &cf_den_real_fs;
	char abs[PATH_MAX], canon[PATH_MAX];
	struct named f;
	const confine_clause *c;
	enum kind k = K_COUNT;
	long at = -1;
	int r;

	*ret = R_NOTHING;
	for (int i = 0; i < K_COUNT && at < 0; i++) {
		long found = -1;
		size_t from = 0;
		while (at < 0 && (found = cf_den_find_ci(l, len, from, cf_den_file_messages[i])) >= 0) {
			if (cf_den_ends_error(l, len, (size_t)found + strlen(cf_den_file_messages[i]))) {
				at = found;
				k = (enum kind)i;
			}
			from = (size_t)found + 1;
		}
	}
	if (at < 0 || !speaks(s, k) ||
	    !cf_den_find_path(l, len, (size_t)at, strlen(cf_den_file_messages[k]), &f) ||
	    (f.path[0] != '/' && !s->workdir) ||
	    !cf_den_absolute_clean(s->workdir, f.path, abs, sizeof abs))
		return 0;
	fs->canonical(fs->data, abs, canon, sizeof canon);

	if (k == K_PERM && !cf_den_hint_is_metadata(f.hint) && !(s->facts & CONFINE_RUNNER_FACT_EPERM_FILES)) {
		/* on Linux a refused file access reads EACCES or EROFS: EPERM
		 * is the supervisor's, for metadata ("ping: socket: ...") */
		*ret = R_ORDINARY;
		return 0;
	}

	if ((c = covering(s, deny, canon))) {
		/* bwrap masks a denied directory with an empty one: only a path
		 * that is there on the host was hidden */
		if (k == K_NOENT && (strcmp(canon, c->subject) == 0 || !fs->exists(fs->data, canon)))
			return 0;
		/* with nothing said of what was tried: a refused write (EROFS,
		 * EBUSY, or a name that is not there to read), else a read */
		if (f.hint == H_NONE)
			f.hint = k == K_ROFS || k == K_BUSY || !fs->exists(fs->data, canon) ? H_WRITE
			                                                                    : H_READ;
		r = cf_denials_add(list, cf_den_hint_op(f.hint), canon, NULL, "denyRead");
		*ret = R_DENIAL;
		return r < 0 ? r : 0;
	}
	if ((c = covering(s, protect, canon))) {
		if (k == K_NOENT)
			return 0;
		r = cf_denials_add(list, f.hint == H_READ ? "write" : cf_den_hint_op(f.hint), canon, NULL,
		                   c->clause);
		*ret = R_DENIAL;
		return r < 0 ? r : 0;
	}
	if (k == K_NOENT || k == K_BUSY)
		return 0;
	if (!writable(s, canon)) {
		/* a refusal of the mode or the metadata rule, where this user's
		 * own permissions would have let it through; a read outside
		 * denyRead is nothing the sandbox refuses */
		const char *op = cf_den_hint_op(f.hint);
		const char *clause = cf_den_hint_is_metadata(f.hint) ? "metadata" : "mode";
		if (f.hint == H_READ || !holds(s, clause, NULL) ||
		    !fs->permitted(fs->data, canon, op))
			return 0;
		r = cf_denials_add(list, op, canon, NULL, clause);
		*ret = R_DENIAL;
		return r < 0 ? r : 0;
	}
	/* inside a writable area: only the set-ID rule refuses a chmod there */
	if (k == K_PERM && f.hint == H_CHMOD) {
		if (holds(s, "setid", NULL) && fs->permitted(fs->data, canon, "chmod")) {
			r = cf_denials_add(list, "chmod", canon, NULL, "setid");
			*ret = R_DENIAL;
			return r < 0 ? r : 0;
		}
		return 0;
	}
	if ((k == K_ACCES || k == K_ROFS) && !cf_den_hint_is_metadata(f.hint))
		*ret = R_ORDINARY;
	return 0;
}


/* ---- the network lines ----------------------------------------------------- */

/* The launcher's proxy says each host it refused on the
 * launcher's stderr (doc/SPEC.md 15): "landlock-run: network: refused
 * (<why>) <host>:<port>". */
static int allowlist_line(const cf_denial_scope *s, const char *l, size_t len, cf_denials *list,
                          bool *marker) {
	static const char lead[] = LAUNCHER_PREFIX LAUNCHER_NETWORK_REFUSED;
	char address[300];
	long at = cf_den_find_ci(l, len, 0, lead);
	const char *close;
	/* and, with the network off, its refusing proxy (doc/SPEC.md 15) */
	if (at != 0 || (!holds(s, "network", "allowlist") && !holds(s, "network", "off")))
		return 0;
	close = memchr(l + sizeof lead - 1, ')', len - (sizeof lead - 1));
	if (!close || (size_t)(close - l) + 2 >= len)
		return 0;
	*marker = true;
	if (cf_den_host_port(l, len, (size_t)(close - l) + 2, ":", address, sizeof address))
		return cf_denials_add(list, "connect", NULL, address, "network") < 0 ? -ENOMEM : 0;
	return 0;
}

static int network_line(const cf_denial_scope *s, const char *l, size_t len, cf_denials *list,
                        bool *marker) {
	char address[300];
	const char *op;
	bool found = false;
	if (cf_den_find_ci(l, len, 0, LAUNCHER_PREFIX LAUNCHER_NETWORK_REFUSED) == 0)
		return allowlist_line(s, l, len, list, marker);
	for (const char *const *m = cf_den_network_messages; *m && !found; m++)
		found = cf_den_find_ci(l, len, 0, *m) >= 0;
	if (!found || (!holds(s, "network", "off") && !holds(s, "network", "allowlist")) ||
	    cf_den_names_a_path(l, len))
		return 0;
	*marker = true;
	if (cf_den_find_address(l, len, address, sizeof address, &op))
		return cf_denials_add(list, op, NULL, address, "network") < 0 ? -ENOMEM : 0;
	return 0;
}

/* ---- the scan ------------------------------------------------------------ */

static int scan_text(const cf_denial_scope *s, const char *text, size_t len, cf_denials *list,
                     cf_denial_verdict *v) {
	size_t pos = 0;
	while (text && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, n = end - pos;
		const char *l = text + pos;
		enum reading reading;
		int r;
		if (nl && n > 0 && l[n - 1] == '\r')
			n--;
		pos = nl ? end + 1 : len;
		if ((r = file_line(s, l, n, list, &reading)) < 0)
			return r;
		if (reading == R_DENIAL ||
		    (reading == R_NOTHING && cf_line_shows_denial(l, n, s->signatures)))
			v->file = true;
		if ((r = network_line(s, l, n, list, &v->network)) < 0)
			return r;
	}
	return 0;
}

int cf_denials_scan(const cf_denial_scope *scope, int exit_code, bool signaled,
                    const char *stdout_text, size_t stdout_len, const char *stderr_text,
                    size_t stderr_len, cf_denials *list, cf_denial_verdict *ret) {
	cf_denial_verdict v = { false, false };
	int r;
	if (!scope || !list || !ret)
		return -EINVAL;
	/* stderr at any exit; stdout only when the run failed (doc/SPEC.md 8) */
	r = scan_text(scope, stderr_text, stderr_len, list, &v);
	if (r == 0 && !signaled && exit_code != 0)
		r = scan_text(scope, stdout_text, stdout_len, list, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

/* ---- a run the library spawned ------------------------------------------- */

static int push_canonical(char ***list, const char *path) {
	char *real;
	int r;
	if (!path)
		return 0;
	real = realpath(path, NULL);
	r = cf_strv_push(list, real ? real : path);
	free(real);
	return r;
}

/* Where the run may write, as the rung grants it (doc/SPEC.md 5, 15). */
static int writable_areas(const confine_argv *c, char ***ret) {
	const confine_policy *p = &c->policy;
	/* a mount namespace's own /tmp, read-only with privateTemp too */
	bool private_tmp = (c->runner_facts & CONFINE_RUNNER_FACT_PRIVATE_TMP) != 0;
	char **list = NULL;
	int r = push_canonical(&list, "/dev/null");
	if (p->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		if (r == 0)
			r = push_canonical(&list, p->workspace_root);
		for (size_t i = 0; r == 0 && p->writable_roots && p->writable_roots[i]; i++)
			r = push_canonical(&list, p->writable_roots[i]);
		if (r == 0)
			r = cf_strv_push(&list, "/tmp");
		if (r == 0)
			r = cf_strv_push(&list, "/dev/shm");
	} else if (private_tmp && p->private_temp) {
		r = r ? r : cf_strv_push(&list, "/tmp");
	}
	if (r == 0 && p->temp_dir)
		r = push_canonical(&list, p->temp_dir);
	if (r < 0) {
		confine_strv_free(list);
		return r;
	}
	*ret = list;
	return 0;
}

int cf_denials_classify(const confine_argv *c, const char *workdir,
                        const confine_denial *records, size_t n_records, confine_outcome *o) {
	cf_denials list = { NULL, 0, 0 };
	cf_denial_verdict v = { false, false };
	cf_denial_scope scope;
	char **areas = NULL;
	char *dir = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n_records; i++) {
		r = cf_denials_add(&list, records[i].op, records[i].path, records[i].address,
		                   records[i].clause);
		/* the decider's reason goes with its refusal (doc/SPEC.md 15) */
		if (r == 1 && records[i].reason &&
		    !(list.items[list.n - 1].reason = strdup(records[i].reason)))
			r = -ENOMEM;
	}
	if (r >= 0)
		r = writable_areas(c, &areas);
	if (r < 0)
		goto out;
	dir = realpath(workdir ? workdir : c->policy.workspace_root ? c->policy.workspace_root : ".",
	               NULL);
	memset(&scope, 0, sizeof scope);
	scope.facts = c->runner_facts;
	scope.workdir = dir ? dir : workdir ? workdir : c->policy.workspace_root;
	scope.signatures = c->denial_signatures;
	scope.clauses = o->clauses;
	scope.n_clauses = o->n_clauses;
	scope.writable = areas;
	if (scope.workdir && scope.workdir[0] != '/')
		scope.workdir = NULL; /* relative paths are then not read */
	r = cf_denials_scan(&scope, o->signaled ? 0 : o->exit_code, o->signaled, o->stdout_data,
	                    o->stdout_len, o->stderr_data, o->stderr_len, &list, &v);
	if (r < 0)
		goto out;
	o->denied = v.file;
	o->network_denied = v.network;
	for (size_t i = 0; i < list.n; i++) {
		if (list.items[i].path)
			o->denied = true;
		else
			o->network_denied = true;
	}
	o->denials = list.items;
	o->n_denials = list.n;
	o->denials_dropped = list.dropped;
	list.items = NULL;
	list.n = 0;
out:
	cf_denials_free(&list);
	confine_strv_free(areas);
	free(dir);
	return r < 0 ? r : 0;
}
