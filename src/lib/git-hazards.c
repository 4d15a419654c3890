/* SPDX-License-Identifier: MIT */
/* What a run left for git to run later: a snapshot before, a diff after
 * (git-hazards.h, doc/SPEC.md 15). */
#include "git-hazards-internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirstack.h"

size_t cf_git_scan_budget = CF_GIT_SCAN_MAX_ENTRIES;

/* ---- fingerprints ---- */

static uint64_t fnv1a(uint64_t h, const char *data, size_t len) {
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)data[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

static void fingerprint_from_stat(struct fingerprint *fp, const struct stat *st) {
	fp->dev = st->st_dev;
	fp->ino = st->st_ino;
	fp->mode = st->st_mode;
	fp->size = st->st_size;
#ifdef __APPLE__
	fp->mtime_sec = st->st_mtimespec.tv_sec;
	fp->mtime_nsec = st->st_mtimespec.tv_nsec;
	fp->ctime_sec = st->st_ctimespec.tv_sec;
	fp->ctime_nsec = st->st_ctimespec.tv_nsec;
#else
	fp->mtime_sec = st->st_mtim.tv_sec;
	fp->mtime_nsec = st->st_mtim.tv_nsec;
	fp->ctime_sec = st->st_ctim.tv_sec;
	fp->ctime_nsec = st->st_ctim.tv_nsec;
#endif
}

static bool fingerprint_equal(const struct fingerprint *a, const struct fingerprint *b) {
	return a->dev == b->dev && a->ino == b->ino && a->mode == b->mode && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec && a->hash == b->hash;
}

/* Opens what git would open at `path` (following a symlink, as git does;
 * never blocking on a FIFO), fingerprints a regular file and, when `text`
 * is given, hands over its first CF_GIT_READ_MAX bytes NUL-terminated.
 * 1 recorded, 0 nothing there (or not a regular file), -ENOMEM. */
int cf_git_fingerprint_file(const char *path, struct fingerprint *fp, char **text, size_t *ret_len,
                            size_t max, bool *whole) {
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	fingerprint_from_stat(fp, &st);
	if (!(buf = malloc(max + 1))) {
		close(fd);
		return -ENOMEM;
	}
	while (len < max) {
		ssize_t got = read(fd, buf + len, max - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	if (whole) {
		char probe;
		*whole = len < max || read(fd, &probe, 1) <= 0;
	}
	close(fd);
	buf[len] = '\0';
	/* The hash covers what the first CF_GIT_READ_MAX bytes hold (with the
	 * status, enough to see a change); the config reader reads more. */
	fp->hash = fnv1a(FNV_OFFSET, buf, len < CF_GIT_READ_MAX ? len : CF_GIT_READ_MAX);
	if (ret_len)
		*ret_len = len;
	if (text)
		*text = buf;
	else
		free(buf);
	return 1;
}

/* ---- records ---- */

struct record *cf_git_record_add(cf_git_snapshot *s, const char *path, enum record_kind kind,
                                 const struct fingerprint *fp) {
	struct record *r;
	if (s->oom)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->records[i].path, path) == 0)
			return NULL; /* reached twice (a commondir, an include): once is enough */
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct record *grown = realloc(s->records, cap * sizeof *grown);
		if (!grown) {
			s->oom = true;
			return NULL;
		}
		s->records = grown;
		s->cap = cap;
	}
	r = &s->records[s->n];
	memset(r, 0, sizeof *r);
	if (!(r->path = strdup(path))) {
		s->oom = true;
		return NULL;
	}
	r->kind = kind;
	r->fp = *fp;
	s->n++;
	return r;
}

void cf_git_record_setting(cf_git_snapshot *s, struct record *r, const char *key,
                           const char *value) {
	char *entry;
	if (!r || s->oom)
		return;
	if (asprintf(&entry, "%s\n%s", key, value) < 0) {
		s->oom = true;
		return;
	}
	if (cf_strv_push(&r->settings, entry) < 0)
		s->oom = true;
	free(entry);
}

static int record_compare(const void *a, const void *b) {
	return strcmp(((const struct record *)a)->path, ((const struct record *)b)->path);
}

int cf_git_snapshot_take(char *const *roots, cf_git_snapshot **ret) {
	cf_git_snapshot *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; roots && roots[i] && !s->incomplete && !s->oom; i++) {
		cf_git_walk(s, roots[i]);
		/* A root that is (or holds) a home: git reads ~/.gitconfig and
		 * ~/.config/git/config for every repository of that user. */
		{
			static const char *const globals[] = { ".gitconfig", ".config/git/config" };
			for (size_t g = 0; g < 2; g++) {
				char path[PATH_MAX];
				if ((size_t)snprintf(path, sizeof path, "%s/%s", roots[i], globals[g]) < sizeof path)
					cf_git_scan_config(s, path, NULL, 0);
			}
		}
	}
	if (s->oom) {
		cf_git_snapshot_free(s);
		return -ENOMEM;
	}
	/* Sorted by path, for the diff's lookups. */
	if (s->n > 1)
		qsort(s->records, s->n, sizeof *s->records, record_compare);
	*ret = s;
	return 0;
}

/* ---- the diff ---- */

struct hazard_list {
	confine_git_hazard *items;
	size_t n;
	bool oom;
};

static void hazard_add(struct hazard_list *h, const char *path, const char *kind) {
	confine_git_hazard *grown;
	char *p, *k;
	if (h->oom)
		return;
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->items[i].path, path) == 0 && strcmp(h->items[i].kind, kind) == 0)
			return;
	grown = realloc(h->items, (h->n + 1) * sizeof *grown);
	p = strdup(path);
	k = strdup(kind);
	if (!grown || !p || !k) {
		if (grown)
			h->items = grown;
		free(p);
		free(k);
		h->oom = true;
		return;
	}
	h->items = grown;
	h->items[h->n].path = p;
	h->items[h->n].kind = k;
	h->n++;
}

static const struct record *find(const cf_git_snapshot *s, const struct record *like) {
	if (!s || s->n == 0)
		return NULL;
	return bsearch(like, s->records, s->n, sizeof *s->records, record_compare);
}

static bool strv_has(char *const *strv, const char *item) {
	for (size_t i = 0; strv && strv[i]; i++)
		if (strcmp(strv[i], item) == 0)
			return true;
	return false;
}

int cf_git_snapshot_diff(const cf_git_snapshot *before, const cf_git_snapshot *after,
                         confine_git_hazard **hazards, size_t *n) {
	struct hazard_list h = { .items = *hazards, .n = *n };
	for (size_t i = 0; after && i < after->n; i++) {
		const struct record *a = &after->records[i];
		const struct record *b = find(before, a);
		if (b && b->kind != a->kind)
			b = NULL; /* a hook became a config file: all of it is new */
		switch (a->kind) {
		case RECORD_HOOK:
			if (!b || !fingerprint_equal(&a->fp, &b->fp))
				hazard_add(&h, a->path, "hook");
			break;
		case RECORD_CONFIG:
			/* Only a setting that was not there before: an unrelated
			 * edit to a config that already held one reports nothing. */
			for (size_t j = 0; a->settings && a->settings[j]; j++) {
				if (b && strv_has(b->settings, a->settings[j]))
					continue;
				{
					char key[640];
					size_t len = strcspn(a->settings[j], "\n");
					snprintf(key, sizeof key, "%.*s", (int)len, a->settings[j]);
					hazard_add(&h, a->path, key);
				}
			}
			break;
		case RECORD_TODO:
			if (!b || !fingerprint_equal(&a->fp, &b->fp))
				hazard_add(&h, a->path, "rebase-todo");
			break;
		case RECORD_COMMONDIR:
			if (a->foreign && (!b || !fingerprint_equal(&a->fp, &b->fp) ||
			                   !b->settings || !a->settings ||
			                   strcmp(a->settings[0], b->settings[0]) != 0))
				hazard_add(&h, a->path, "commondir");
			break;
		}
	}
	/* A walk that ran out of its budget names the directory where it did. */
	if (before && before->incomplete)
		hazard_add(&h, before->unreached ? before->unreached : "", "incomplete");
	if (after && after->incomplete &&
	    !(before && before->incomplete && before->unreached && after->unreached &&
	      strcmp(before->unreached, after->unreached) == 0))
		hazard_add(&h, after->unreached ? after->unreached : "", "incomplete");
	for (size_t i = 0; before && before->changed && before->changed[i]; i++)
		hazard_add(&h, before->changed[i], "incomplete");
	for (size_t i = 0; after && after->changed && after->changed[i]; i++)
		hazard_add(&h, after->changed[i], "incomplete");
	*hazards = h.items;
	*n = h.n;
	return h.oom ? -ENOMEM : 0;
}

char *const *cf_git_snapshot_worktrees(const cf_git_snapshot *s) {
	return s ? s->worktrees : NULL;
}

char *const *cf_git_snapshot_marks(const cf_git_snapshot *s) {
	return s ? s->marks : NULL;
}

void cf_git_snapshot_free(cf_git_snapshot *s) {
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->records[i].path);
		confine_strv_free(s->records[i].settings);
	}
	free(s->records);
	confine_strv_free(s->visited);
	confine_strv_free(s->changed);
	confine_strv_free(s->worktrees);
	confine_strv_free(s->marks);
	free(s->unreached);
	free(s);
}

void cf_git_hazards_free(confine_git_hazard *hazards, size_t n) {
	for (size_t i = 0; hazards && i < n; i++) {
		free(hazards[i].path);
		free(hazards[i].kind);
	}
	free(hazards);
}
