/* SPDX-License-Identifier: MIT */
/*
 * Making, reading and removing a stage (doc/SPEC.md 21; the layout is in
 * stage-internal.h). The manifest is written by this file only, one record
 * per line, and read back by the same small reader: it is ours, not a
 * general JSON document.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "policy-internal.h"
#include "profiles/plan.h"
#include "profiles/stage-roots.h"
#include "stage/stage-internal.h"

#define STAGE "stage"
#define MANIFEST "manifest.json"

static int oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
}

static int fs_fail(confine_error *err, const char *what, const char *path, int e) {
	if (e == ENOMEM)
		return oom(err);
	return cf_error_set(err, e, CONFINE_E_FS, STAGE, e, "stage: %s %s: %s", what, path,
	                    strerror(e));
}

int cf_stage_join(char *out, size_t size, const char *root, const char *rel) {
	int n = rel[0] ? snprintf(out, size, "%s%s%s", root, strcmp(root, "/") == 0 ? "" : "/", rel)
	               : snprintf(out, size, "%s", root);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

bool cf_stage_is_whiteout(int dirfd, const char *name, const struct stat *st) {
	char value[8];
	char path[PATH_MAX];
	if (S_ISCHR(st->st_mode) && st->st_rdev == 0)
		return true;
	/* Where the upper layer cannot hold a device, overlayfs (6.7+) marks an
	 * empty file instead. */
	if (!S_ISREG(st->st_mode) || st->st_size != 0)
		return false;
	snprintf(path, sizeof path, "/proc/self/fd/%d/%s", dirfd, name);
	return lgetxattr(path, "user.overlay.whiteout", value, sizeof value) >= 0 ||
	       lgetxattr(path, "trusted.overlay.whiteout", value, sizeof value) >= 0;
}

/* ---- the manifest: writing ---- */

static int put_string(cf_buf *b, const char *s) {
	int r = cf_buf_puts(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; r == 0 && *p; p++) {
		if (*p == '"' || *p == '\\')
			r = cf_buf_printf(b, "\\%c", *p);
		else if (*p < 0x20)
			r = cf_buf_printf(b, "\\u%04x", *p);
		else
			r = cf_buf_append(b, p, 1);
	}
	return r == 0 ? cf_buf_puts(b, "\"") : r;
}

static char type_of(mode_t mode) {
	return S_ISREG(mode) ? 'f' : S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : 'o';
}

static int64_t ns_of(struct timespec t) {
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int put_entry(cf_buf *b, size_t root, const char *rel, const struct stat *st) {
	int r = cf_buf_printf(b, "{\"e\":%zu,\"p\":", root);
	if (r == 0)
		r = put_string(b, rel);
	if (r == 0)
		r = cf_buf_printf(b,
		                  ",\"t\":\"%c\",\"i\":%" PRIu64 ",\"s\":%" PRIu64 ",\"m\":%" PRId64
		                  ",\"c\":%" PRId64 "},\n",
		                  type_of(st->st_mode), (uint64_t)st->st_ino, (uint64_t)st->st_size,
		                  ns_of(st->st_mtim), ns_of(st->st_ctim));
	return r;
}

/* Records every entry below `dirfd` (at `rel`), not following links. */
static int walk(cf_buf *b, size_t root, int at, const char *rel, size_t *count) {
	DIR *d;
	struct dirent *e;
	int fd, r = 0;
	if ((fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0 && (e = readdir(d))) {
		char child[PATH_MAX];
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (cf_stage_join(child, sizeof child, rel, e->d_name) < 0 || !rel[0])
			snprintf(child, sizeof child, "%s", e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone since it was listed */
		if (++*count > CF_STAGE_MAX_ENTRIES)
			r = -E2BIG;
		else
			r = put_entry(b, root, child, &st);
		if (r == 0 && S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), e->d_name,
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				r = walk(b, root, sub, child, count);
				close(sub);
			}
			/* An unreadable directory records itself only: its ctime
			 * still tells a change to its entries. */
			if (r == -EACCES)
				r = 0;
		}
	}
	closedir(d);
	return r;
}

static bool dir_is_empty(const char *dir) {
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;
	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	closedir(d);
	return empty;
}

/* `dir` with its directory resolved (every link on the way followed) and
 * its own name kept: 0, or -errno (-EINVAL for a last name of "." or
 * ".."). */
static int canonical_stage(const char *dir, char *out, size_t size) {
	char parent[PATH_MAX], *real;
	const char *name;
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof parent)
		return -ENAMETOOLONG;
	memcpy(parent, dir, len);
	parent[len] = '\0';
	name = strrchr(parent, '/') + 1;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	parent[name - parent - 1 > 0 ? name - parent - 1 : 1] = '\0';
	if (!(real = realpath(parent, NULL)))
		return -errno;
	if ((size_t)snprintf(out, size, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/",
	                     dir + (name - parent)) >= size) {
		free(real);
		return -ENAMETOOLONG;
	}
	free(real);
	out[strlen(out) - (strlen(dir) - len)] = '\0';
	return 0;
}

int confine_stage_create(const char *dir, const confine_policy *policy, confine_error *err) {
	cf_plan plan;
	char **roots = NULL;
	cf_buf b = { 0 };
	char path[PATH_MAX], tmp[PATH_MAX], canon[PATH_MAX];
	struct timespec now;
	size_t count = 0;
	int r, fd = -1;
	if (!dir || dir[0] != '/' || !policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_stage_create needs an absolute stage directory and a "
		                    "policy");
	if (policy->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "a stage is for workspace-write (the mode writes nowhere else)");
	/* Judged where it really lies: a symbolic link on its way (`L/st`
	 * with L a link to the workspace) must not carry it into a place the
	 * command writes (red team, round 5). */
	if ((r = canonical_stage(dir, canon, sizeof canon)) < 0)
		return r == -ENAMETOOLONG || r == -EINVAL
		               ? cf_error_set(err, -r, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                              "the stage %s: %s", dir,
		                              r == -EINVAL ? "its last name must be a directory name"
		                                           : strerror(-r))
		               : fs_fail(err, "resolve", dir, -r);
	dir = canon;
	if (cf_path_at_or_under(dir, "/dev/shm"))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "the stage %s lies in /dev/shm, which a confined command may "
		                    "write: the command would write its own stage",
		                    dir);
	if ((r = cf_plan_make(policy, 0, &plan)) < 0)
		return r == -ENOMEM ? oom(err)
		                    : cf_error_set(err, -r, CONFINE_E_INVALID_POLICY, STAGE, -r,
		                                   "cannot compute the policy's paths: %s",
		                                   strerror(-r));
	r = cf_stage_roots(&plan, &roots);
	cf_plan_clear(&plan);
	if (r < 0)
		return oom(err);
	/* The stage must not be where the command writes: it would edit its
	 * own record. */
	for (size_t i = 0; roots[i]; i++)
		if (cf_path_at_or_under(dir, roots[i]) || cf_path_at_or_under(roots[i], dir)) {
			r = cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                 "the stage %s lies in the writable root %s (or holds it): the "
			                 "command would write its own stage",
			                 dir, roots[i]);
			goto out;
		}
	if (mkdir(dir, 0700) < 0) {
		struct stat st;
		if (errno != EEXIST || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    !dir_is_empty(dir)) {
			r = errno == EEXIST || errno == 0
			            ? cf_error_set(err, EEXIST, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
			                           "the stage %s exists and is not an empty directory",
			                           dir)
			            : fs_fail(err, "mkdir", dir, errno);
			goto out;
		}
		if (st.st_uid != geteuid()) {
			r = cf_error_set(err, EPERM, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
			                 "the stage %s is not the caller's", dir);
			goto out;
		}
		(void)chmod(dir, 0700);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	r = cf_buf_printf(&b, "{\"confineStage\":1,\"started\":%" PRId64 ",\"defaultProtections\":%s,"
	                      "\"records\":[\n",
	                  ns_of(now), policy->default_protections ? "true" : "false");
	for (size_t i = 0; r == 0 && roots[i]; i++) {
		struct stat st;
		/* The root's identity: apply refuses a root replaced since
		 * (moved aside, a new directory or a link put at its path). */
		int rootfd = open(roots[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rootfd < 0 || fstat(rootfd, &st) < 0) {
			r = -errno;
			if (rootfd >= 0)
				close(rootfd);
			break;
		}
		r = cf_buf_puts(&b, "{\"root\":");
		if (r == 0)
			r = put_string(&b, roots[i]);
		if (r == 0)
			r = cf_buf_printf(&b, ",\"dev\":%" PRIu64 ",\"ino\":%" PRIu64 "},\n",
			                  (uint64_t)st.st_dev, (uint64_t)st.st_ino);
		for (const char *part = "upper"; r == 0 && part; part = strcmp(part, "upper") == 0 ? "work" : NULL) {
			snprintf(path, sizeof path, "%s/roots", dir);
			(void)mkdir(path, 0700);
			snprintf(path, sizeof path, "%s/roots/%zu", dir, i);
			(void)mkdir(path, 0700);
			snprintf(path, sizeof path, "%s/roots/%zu/%s", dir, i, part);
			if (mkdir(path, 0700) < 0)
				r = -errno;
		}
		/* overlayfs's root takes the upper directory's attributes: give it
		 * the real root's permission bits. */
		if (r == 0) {
			snprintf(path, sizeof path, "%s/roots/%zu/upper", dir, i);
			(void)chmod(path, st.st_mode & 07777);
		}
		if (r == 0 && (fstat(rootfd, &st) < 0 || (r = put_entry(&b, i, "", &st)) < 0 ||
		               (r = walk(&b, i, rootfd, "", &count)) < 0)) {
			if (r == 0)
				r = -errno;
		}
		close(rootfd);
	}
	for (size_t i = 0; r == 0 && policy->protected_paths && policy->protected_paths[i]; i++) {
		r = cf_buf_puts(&b, "{\"protected\":");
		if (r == 0)
			r = put_string(&b, policy->protected_paths[i]);
		if (r == 0)
			r = cf_buf_puts(&b, "},\n");
	}
	for (size_t i = 0; r == 0 && policy->deny_read && policy->deny_read[i]; i++) {
		r = cf_buf_puts(&b, "{\"denyRead\":");
		if (r == 0)
			r = put_string(&b, policy->deny_read[i]);
		if (r == 0)
			r = cf_buf_puts(&b, "},\n");
	}
	if (r == 0)
		r = cf_buf_puts(&b, "{}]}\n");
	if (r < 0) {
		r = r == -E2BIG ? cf_error_set(err, E2BIG, CONFINE_E_INVALID_ARGUMENT, STAGE, E2BIG,
		                               "the staged roots hold more than %d entries",
		                               CF_STAGE_MAX_ENTRIES)
		                : fs_fail(err, "make", dir, -r);
		goto out;
	}
	/* Last and atomically: a stage with a manifest is a whole one. */
	snprintf(tmp, sizeof tmp, "%s/.manifest.json.tmp", dir);
	snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, b.data, b.len) != (ssize_t)b.len || fsync(fd) < 0 ||
	    rename(tmp, path) < 0) {
		r = fs_fail(err, "write", path, errno ? errno : EIO);
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	cf_buf_free(&b);
	confine_strv_free(roots);
	return r;
}

int confine_policy_set_stage(confine_policy *policy, const char *dir, confine_error *err) {
	char *copy = NULL;
	if (!policy || (dir && dir[0] != '/'))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_policy_set_stage needs a policy and an absolute directory");
	if (dir && !(copy = strdup(dir)))
		return oom(err);
	free(policy->stage_dir);
	policy->stage_dir = copy;
	return 0;
}

/* ---- the manifest: reading ---- */

/* The string value of "key" in `line`, unescaped, malloc'd; NULL if absent. */
static char *get_string(const char *line, const char *key) {
	char pattern[32];
	const char *p;
	cf_buf out = { 0 };
	snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
	if (!(p = strstr(line, pattern)))
		return NULL;
	for (p += strlen(pattern); *p && *p != '"'; p++) {
		char c = *p;
		if (c == '\\' && p[1] == 'u' && p[2] && p[3] && p[4] && p[5]) {
			char hex[5] = { p[2], p[3], p[4], p[5], 0 };
			c = (char)strtol(hex, NULL, 16);
			p += 5;
		} else if (c == '\\' && p[1]) {
			c = *++p;
		}
		if (cf_buf_append(&out, &c, 1) < 0) {
			cf_buf_free(&out);
			return NULL;
		}
	}
	return cf_buf_steal(&out);
}

static bool get_number(const char *line, const char *key, int64_t *ret) {
	char pattern[32];
	const char *p;
	snprintf(pattern, sizeof pattern, "\"%s\":", key);
	if (!(p = strstr(line, pattern)))
		return false;
	*ret = strtoll(p + strlen(pattern), NULL, 10);
	return true;
}

static int entry_cmp(const void *a, const void *b) {
	return strcmp(((const cf_stage_entry *)a)->path, ((const cf_stage_entry *)b)->path);
}

static int read_manifest(confine_stage *s, const char *text, confine_error *err) {
	const char *line = text;
	int64_t v;
	if (strncmp(text, "{\"confineStage\":1,", 18) != 0 || !get_number(text, "started", &v))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "%s/%s is not a confine stage manifest", s->dir, MANIFEST);
	s->started_ns = v;
	s->default_protections = strstr(text, "\"defaultProtections\":true") != NULL;
	while ((line = strchr(line, '\n')) && *++line) {
		char *value;
		if (strncmp(line, "{\"root\":", 8) == 0) {
			cf_stage_root *grown = realloc(s->roots, (s->n_roots + 1) * sizeof *grown);
			char upper[PATH_MAX];
			if (!grown)
				return oom(err);
			s->roots = grown;
			memset(&s->roots[s->n_roots], 0, sizeof *grown);
			snprintf(upper, sizeof upper, "%s/roots/%zu/upper", s->dir, s->n_roots);
			s->roots[s->n_roots].real = get_string(line, "root");
			s->roots[s->n_roots].upper = strdup(upper);
			s->roots[s->n_roots].fd = -1;
			if (get_number(line, "dev", &v) && v >= 0) {
				s->roots[s->n_roots].dev = (uint64_t)v;
				s->roots[s->n_roots].has_id = get_number(line, "ino", &v) && v >= 0;
				s->roots[s->n_roots].ino = (uint64_t)v;
			}
			s->n_roots++;
			if (!s->roots[s->n_roots - 1].real || !s->roots[s->n_roots - 1].upper)
				return oom(err);
		} else if (strncmp(line, "{\"e\":", 5) == 0) {
			cf_stage_entry e = { 0 };
			cf_stage_root *root;
			cf_stage_entry *grown;
			char *t;
			if (!get_number(line, "e", &v) || v < 0 || (size_t)v >= s->n_roots)
				return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
				                    "%s/%s: an entry names no root", s->dir, MANIFEST);
			root = &s->roots[v];
			if (!(e.path = get_string(line, "p")) || !(t = get_string(line, "t"))) {
				free(e.path);
				return oom(err);
			}
			e.type = t[0];
			free(t);
			if (get_number(line, "i", &v))
				e.ino = (uint64_t)v;
			if (get_number(line, "s", &v))
				e.size = (uint64_t)v;
			(void)get_number(line, "m", &e.mtime_ns);
			(void)get_number(line, "c", &e.ctime_ns);
			if (!(grown = realloc(root->entries, (root->n_entries + 1) * sizeof *grown))) {
				free(e.path);
				return oom(err);
			}
			root->entries = grown;
			root->entries[root->n_entries++] = e;
		} else if ((value = get_string(line, "protected"))) {
			int r = cf_strv_push(&s->protected_paths, value);
			free(value);
			if (r < 0)
				return oom(err);
		} else if ((value = get_string(line, "denyRead"))) {
			int r = cf_strv_push(&s->deny_read, value);
			free(value);
			if (r < 0)
				return oom(err);
		}
	}
	if (s->n_roots == 0)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "%s/%s names no root", s->dir, MANIFEST);
	for (size_t i = 0; i < s->n_roots; i++)
		qsort(s->roots[i].entries, s->roots[i].n_entries, sizeof(cf_stage_entry), entry_cmp);
	return 0;
}

int confine_stage_open(const char *dir, confine_stage **ret, confine_error *err) {
	confine_stage *s;
	char path[PATH_MAX];
	struct stat st;
	cf_buf text = { 0 };
	int fd, r;
	if (!dir || !dir[0] || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_stage_open needs a directory and a result pointer");
	if (!(s = calloc(1, sizeof *s)))
		return oom(err);
	if (!(s->dir = realpath(dir, NULL))) {
		r = errno;
		confine_stage_free(s);
		return r == ENOENT ? cf_error_set(err, ENOENT, CONFINE_E_INVALID_ARGUMENT, STAGE, ENOENT,
		                                  "no stage at %s", dir)
		                   : fs_fail(err, "open", dir, r);
	}
	/* The caller's own, and no one else's to edit: apply trusts it. */
	if (stat(s->dir, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		confine_stage_free(s);
		return cf_error_set(err, EPERM, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "the stage %s is not the caller's alone (owner or mode)", dir);
	}
	snprintf(path, sizeof path, "%s/%s", s->dir, MANIFEST);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = errno;
		confine_stage_free(s);
		return r == ENOENT ? cf_error_set(err, ENOENT, CONFINE_E_INVALID_ARGUMENT, STAGE, ENOENT,
		                                  "no stage at %s (no %s)", dir, MANIFEST)
		                   : fs_fail(err, "open", path, r);
	}
	for (;;) {
		char chunk[65536];
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || cf_buf_append(&text, chunk, (size_t)n) < 0) {
			r = n < 0 ? errno : 0;
			if (n > 0)
				r = ENOMEM;
			break;
		}
	}
	close(fd);
	if (r == 0 && !text.data)
		r = EINVAL;
	if (r == 0)
		r = read_manifest(s, text.data, err);
	else
		r = r == EINVAL ? cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                               "%s is empty", path)
		                : fs_fail(err, "read", path, r);
	cf_buf_free(&text);
	if (r < 0) {
		confine_stage_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void confine_stage_free(confine_stage *s) {
	if (!s)
		return;
	for (size_t i = 0; i < s->n_roots; i++) {
		for (size_t j = 0; j < s->roots[i].n_entries; j++)
			free(s->roots[i].entries[j].path);
		free(s->roots[i].entries);
		free(s->roots[i].real);
		free(s->roots[i].upper);
	}
	free(s->roots);
	confine_strv_free(s->protected_paths);
	confine_strv_free(s->deny_read);
	free(s->dir);
	free(s);
}

const cf_stage_entry *cf_stage_entry_of(const confine_stage *s, size_t root, const char *rel) {
	const cf_stage_root *r = &s->roots[root];
	cf_stage_entry key = { .path = (char *)rel };
	return bsearch(&key, r->entries, r->n_entries, sizeof *r->entries, entry_cmp);
}

bool cf_stage_entry_matches(const cf_stage_entry *e, const struct stat *st) {
	if (!e || !st)
		return !e && !st;
	return e->type == type_of(st->st_mode) && e->ino == (uint64_t)st->st_ino &&
	       (e->type == 'd' || e->size == (uint64_t)st->st_size) &&
	       e->mtime_ns == ns_of(st->st_mtim) && e->ctime_ns == ns_of(st->st_ctim);
}

bool cf_stage_real_changed(const confine_stage *s, size_t root, const char *rel) {
	char path[PATH_MAX];
	struct stat st;
	bool exists;
	if (cf_stage_join(path, sizeof path, s->roots[root].real, rel) < 0)
		return true;
	exists = lstat(path, &st) == 0;
	return !cf_stage_entry_matches(cf_stage_entry_of(s, root, rel), exists ? &st : NULL);
}

/* ---- discard ---- */

/* Removes everything below `dirfd`; a directory the overlay's work area
 * left without permissions (work/work is 0000) is opened up first. */
static int remove_below(int at) {
	DIR *d;
	struct dirent *e;
	int fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	if (fd < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub;
			(void)fchmodat(dirfd(d), e->d_name, 0700, 0);
			sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				int rr = remove_below(sub);
				close(sub);
				if (rr < 0 && r == 0)
					r = rr;
			}
		}
		if (unlinkat(dirfd(d), e->d_name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0 &&
		    errno != ENOENT && r == 0)
			r = -errno;
	}
	closedir(d);
	return r;
}

int confine_stage_discard(const char *dir, confine_error *err) {
	confine_stage *s;
	int fd, r;
	if ((r = confine_stage_open(dir, &s, err)) < 0)
		return r;
	fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (r = remove_below(fd)) < 0 || rmdir(s->dir) < 0) {
		int e = fd < 0 || r == 0 ? errno : -r;
		r = fs_fail(err, "discard", s->dir, e);
	} else {
		r = 0;
	}
	if (fd >= 0)
		close(fd);
	confine_stage_free(s);
	return r;
}
