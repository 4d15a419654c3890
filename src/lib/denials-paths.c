/* SPDX-License-Identifier: MIT */
/* Paths of the denial scan (denials-internal.h). */
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

/* ---- paths --------------------------------------------------------------- */

/* `dir` joined with `path` (unless absolute), with ".", ".." and repeated
 * slashes taken out. False when it does not fit. */
bool cf_den_absolute_clean(const char *dir, const char *path, char *out, size_t size) {
	char joined[PATH_MAX * 2];
	size_t used = 0;
	const char *p;
	int n = path[0] == '/' ? snprintf(joined, sizeof joined, "%s", path)
	                       : snprintf(joined, sizeof joined, "%s/%s", dir ? dir : "/", path);
	if (n < 0 || (size_t)n >= sizeof joined || size < 2)
		return false;
	out[used++] = '/';
	for (p = joined; *p;) {
		const char *end;
		size_t len;
		while (*p == '/')
			p++;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (used > 1 && out[used - 1] != '/')
				used--;
			if (used > 1)
				used--;
		} else {
			if (used > 1)
				out[used++] = '/';
			if (used + len + 1 >= size)
				return false;
			memcpy(out + used, p, len);
			used += len;
		}
		p += len;
	}
	out[used] = '\0';
	return true;
}

/* Whether `path` is `root` or lies below it. */
bool cf_den_under(const char *path, const char *root) {
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void real_canonical(void *data, const char *path, char *out, size_t size) {
	char head[PATH_MAX];
	size_t cut = strlen(path);
	(void)data;
	snprintf(out, size, "%s", path);
	if (cut >= sizeof head || path[0] != '/')
		return;
	memcpy(head, path, cut + 1);
	/* the longest existing part, resolved; then the rest as written */
	while (cut > 0) {
		char *real = realpath(head, NULL);
		if (real) {
			const char *rest = path + cut; /* "" or "/..." */
			if (strcmp(real, "/") == 0)
				snprintf(out, size, "%s", rest[0] ? rest : "/");
			else
				snprintf(out, size, "%s%s", real, rest);
			free(real);
			return;
		}
		while (cut > 0 && head[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--;
		head[cut] = '\0';
	}
}

static bool real_exists(void *data, const char *path) {
	struct stat st;
	(void)data;
	return lstat(path, &st) == 0;
}

/* The permission bits that apply to this user (root holds no capability
 * in the sandbox: it is checked as any owner). */
static bool bits_allow(const struct stat *st, mode_t owner_bit) {
	uid_t uid = geteuid();
	if (st->st_uid == uid)
		return st->st_mode & owner_bit;
	if (st->st_gid == getegid())
		return st->st_mode & (owner_bit >> 3);
	{
		gid_t groups[256];
		int n = getgroups(256, groups);
		for (int i = 0; i < n; i++)
			if (groups[i] == st->st_gid)
				return st->st_mode & (owner_bit >> 3);
	}
	return st->st_mode & (owner_bit >> 6);
}

static bool real_permitted(void *data, const char *path, const char *op) {
	struct stat st;
	(void)data;
	if (stat(path, &st) != 0) {
		char parent[PATH_MAX];
		char *slash;
		if (errno != ENOENT || strcmp(op, "write") != 0 ||
		    snprintf(parent, sizeof parent, "%s", path) >= (int)sizeof parent)
			return false;
		slash = strrchr(parent, '/');
		if (!slash)
			return false;
		*(slash == parent ? slash + 1 : slash) = '\0';
		return stat(parent, &st) == 0 && S_ISDIR(st.st_mode) && bits_allow(&st, S_IWUSR) &&
		       bits_allow(&st, S_IXUSR);
	}
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return false; /* a device node is the host's: never the command's to change */
	if (strcmp(op, "write") == 0)
		return !S_ISDIR(st.st_mode) && bits_allow(&st, S_IWUSR);
	if (strcmp(op, "utimes") == 0)
		return st.st_uid == geteuid() || bits_allow(&st, S_IWUSR);
	return st.st_uid == geteuid(); /* chmod, chown: the owner */
}

const cf_denial_fs cf_den_real_fs = { real_canonical, real_exists, real_permitted, NULL };
