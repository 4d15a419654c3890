/* SPDX-License-Identifier: MIT */
/*
 * confine_path_within's mount step (path.h): whether `path` is a file the
 * directory `root` reaches through the mounts of this mount namespace.
 *
 * The identity step (path.c) sees a bind mount of `root` or of a directory
 * above it, not one of a directory BELOW it: `/mnt/a` bound from
 * `WS/sub` shows `WS/sub`'s inode, and no directory on the way up from
 * `/mnt/a/launcher` is `WS` (red team round 5, F2). Nor a mount inside
 * `root` of another place (`WS/m` bound from `/opt/x`: the run writes
 * `/opt/x` through it), nor an overlay whose upper directory `root` holds
 * (F3). So each path is taken to its filesystem and its place there: the
 * mount it lies on (statx's mount id), that mount's device and root
 * within its filesystem (/proc/self/mountinfo), plus the rest of the path
 * below the mount point. `path` is within when, on the same device, its
 * place lies at or below one of the places `root` writes: `root`'s own
 * place, the source of every mount at or below `root`, and the whole of
 * an overlay whose upper directory lies below `root`.
 *
 * Streams mountinfo through a fixed buffer (no allocation). An
 * unreadable mountinfo (no /proc) leaves the earlier steps' answer; a
 * line too long to judge counts as within (fail closed).
 */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U /* Linux 5.8 */
#endif

/* One mount's line, its fields pointing into the line (unescaped). */
typedef struct {
	unsigned long long id;
	char *dev;   /* "major:minor" */
	char *root;  /* its root within its filesystem */
	char *point; /* where it is mounted */
	char *type;
	char *super; /* the superblock's options */
} mount_line;

typedef struct {
	char dev[32];
	char place[PATH_MAX]; /* within its filesystem */
} fs_place;

/* mountinfo's octal escapes (\040 for a space, ...), in place. */
static void unescape(char *s) {
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static bool parse_line(char *line, mount_line *m) {
	char *field[6], *save = NULL, *tok;
	int n = 0;
	for (tok = strtok_r(line, " ", &save); tok && n < 6; tok = strtok_r(NULL, " ", &save))
		field[n++] = tok;
	if (n < 6)
		return false;
	/* Optional fields up to the lone "-", then type, source, options. */
	while (tok && strcmp(tok, "-") != 0)
		tok = strtok_r(NULL, " ", &save);
	if (!tok || !(m->type = strtok_r(NULL, " ", &save)) || !strtok_r(NULL, " ", &save))
		return false;
	m->super = strtok_r(NULL, " ", &save);
	m->id = strtoull(field[0], NULL, 10);
	m->dev = field[2];
	m->root = field[3];
	m->point = field[4];
	unescape(m->root);
	unescape(m->point);
	if (m->super)
		unescape(m->super);
	return true;
}

static bool within(const char *path, const char *dir) {
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Calls `visit(m, ctx)` for every mount line; its nonzero return ends
 * the walk and is returned. -1: mountinfo unreadable; 1 for a line too
 * long (the caller's fail-closed answer). */
static int each_mount(int (*visit)(const mount_line *m, void *ctx), void *ctx) {
	char buf[16384];
	size_t have = 0;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	int r = 0;
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t got = read(fd, buf + have, sizeof buf - 1 - have);
		char *start = buf, *nl;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -1;
			break;
		}
		have += (size_t)got;
		buf[have] = '\0';
		while ((nl = memchr(start, '\n', have - (size_t)(start - buf))) != NULL) {
			mount_line m;
			*nl = '\0';
			if (parse_line(start, &m) && (r = visit(&m, ctx)) != 0)
				goto done;
			start = nl + 1;
		}
		have -= (size_t)(start - buf);
		memmove(buf, start, have);
		if (got == 0)
			break;
		if (have == sizeof buf - 1) {
			r = 1; /* a line longer than the buffer: cannot judge */
			break;
		}
	}
done:
	close(fd);
	return r;
}

/* ---- pass 1: the places of `path` and `root` ---- */

typedef struct {
	unsigned long long id[2];
	const char *real[2];
	fs_place place[2];
	bool found[2];
	bool sources; /* a mount at or below `root`, or an overlay: pass 2 needed */
} places_ctx;

static int set_place(fs_place *p, const mount_line *m, const char *real) {
	const char *below = real + strlen(m->point);
	size_t rootlen = strlen(m->root);
	if (!within(real, m->point))
		return 1; /* the mount the kernel named is not on the way: fail closed */
	if (m->point[0] == '/' && m->point[1] == '\0')
		below = real; /* "/" then "/a/b" */
	if (snprintf(p->dev, sizeof p->dev, "%s", m->dev) >= (int)sizeof p->dev)
		return 1;
	if (rootlen == 1 && m->root[0] == '/')
		rootlen = 0; /* "/" + "/a" is "/a" */
	if (snprintf(p->place, sizeof p->place, "%.*s%s", (int)rootlen, m->root,
	             *below ? below : (rootlen ? "" : "/")) >= (int)sizeof p->place)
		return 1;
	return 0;
}

static int find_places(const mount_line *m, void *ctx_) {
	places_ctx *c = ctx_;
	if (within(m->point, c->real[1]) || strcmp(m->type, "overlay") == 0)
		c->sources = true;
	for (int i = 0; i < 2; i++)
		if (!c->found[i] && m->id == c->id[i]) {
			int r = set_place(&c->place[i], m, c->real[i]);
			if (r)
				return r;
			c->found[i] = true;
		}
	return 0;
}

/* ---- pass 2: what `root` writes, against `path`'s place ---- */

typedef struct {
	const char *root_real;
	const fs_place *path;
} sources_ctx;

/* Whether an overlay's upperdir= (among its superblock options) lies at
 * or below `root`. A backslash in it (an escaped comma) cannot be judged
 * here: within, fail closed. */
static int overlay_upper_below(const char *super, const char *root_real) {
	const char *u = super ? strstr(super, "upperdir=") : NULL;
	char upper[PATH_MAX];
	size_t n;
	if (!u)
		return 0;
	u += strlen("upperdir=");
	n = strcspn(u, ",");
	if (memchr(u, '\\', n) || n >= sizeof upper)
		return 1;
	memcpy(upper, u, n);
	upper[n] = '\0';
	return within(upper, root_real);
}

static int match_sources(const mount_line *m, void *ctx_) {
	sources_ctx *c = ctx_;
	if (strcmp(m->dev, c->path->dev) != 0)
		return 0;
	/* A mount at or below `root`: the run writes its source through it. */
	if (within(m->point, c->root_real) && within(c->path->place, m->root))
		return 1;
	/* An overlay writing into `root`: all of it is the run's to change. */
	if (strcmp(m->type, "overlay") == 0 && overlay_upper_below(m->super, c->root_real))
		return 1;
	return 0;
}

static bool mount_id(const char *real, unsigned long long *id) {
	struct statx stx;
	memset(&stx, 0, sizeof stx);
	if (statx(AT_FDCWD, real, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return false;
	*id = stx.stx_mnt_id;
	return true;
}

bool cf_path_within_by_mounts(const char *path, const char *root) {
	char real_path[PATH_MAX], real_root[PATH_MAX];
	places_ctx places;
	sources_ctx sources;
	int r;

	if (!realpath(path, real_path) || !realpath(root, real_root))
		return false; /* judged by the earlier steps */
	memset(&places, 0, sizeof places);
	places.real[0] = real_path;
	places.real[1] = real_root;
	if (!mount_id(real_path, &places.id[0]) || !mount_id(real_root, &places.id[1]))
		return false; /* a kernel before 5.8: the identity step's answer */
	r = each_mount(find_places, &places);
	if (r < 0)
		return false;
	if (r > 0 || !places.found[0] || !places.found[1])
		return true; /* cannot tell where it lies: fail closed */
	if (strcmp(places.place[0].dev, places.place[1].dev) == 0 &&
	    within(places.place[0].place, places.place[1].place))
		return true;
	if (!places.sources)
		return false; /* nothing mounted inside `root`, no overlay: one read */
	sources.root_real = real_root;
	sources.path = &places.place[0];
	r = each_mount(match_sources, &sources);
	return r > 0;
}

/* ---- a second path to a place (a denyRead entry's bind alias) ---- */

typedef struct {
	const char *real;
	const fs_place *place;
	const char *const *covered;
	size_t n_covered;
	char *alias;
	size_t alias_size;
} alias_ctx;

static bool covered(const alias_ctx *c, const char *path) {
	for (size_t i = 0; i < c->n_covered; i++)
		if (within(path, c->covered[i]))
			return true;
	return false;
}

/* A mount of the place's filesystem showing the place (or a part of it)
 * at a path other than `real` and not below it: 1 with the path. */
static int find_alias(const mount_line *m, void *ctx_) {
	alias_ctx *c = ctx_;
	char at[PATH_MAX];
	if (strcmp(m->dev, c->place->dev) != 0)
		return 0;
	if (within(c->place->place, m->root)) {
		/* the whole place, at the mount point plus the rest below its root */
		const char *rest = c->place->place + (strcmp(m->root, "/") == 0 ? 0 : strlen(m->root));
		bool slash_point = strcmp(m->point, "/") == 0;
		if (snprintf(at, sizeof at, "%s%s", slash_point && *rest ? "" : m->point, rest) >=
		    (int)sizeof at)
			return 0;
	} else if (within(m->root, c->place->place)) {
		/* a part of it, mounted at the point */
		if (snprintf(at, sizeof at, "%s", m->point) >= (int)sizeof at)
			return 0;
	} else {
		return 0;
	}
	if (within(at, c->real) || covered(c, at))
		return 0; /* the entry's own path, or a path denied as well */
	snprintf(c->alias, c->alias_size, "%s", at);
	return 1;
}

int cf_path_mount_alias(const char *real, const char *const *deny, size_t n_deny, char *alias,
                        size_t alias_size) {
	places_ctx places;
	alias_ctx c;
	int r;
	if (alias_size)
		alias[0] = '\0';
	memset(&places, 0, sizeof places);
	places.real[0] = places.real[1] = real;
	if (!mount_id(real, &places.id[0]))
		return 0; /* a kernel before 5.8: not told */
	places.id[1] = places.id[0];
	r = each_mount(find_places, &places);
	if (r < 0)
		return 0; /* no mountinfo: nothing to tell by */
	if (r > 0 || !places.found[0])
		return -1;
	c = (alias_ctx){ real, &places.place[0], deny, n_deny, alias, alias_size };
	r = each_mount(find_alias, &c);
	return r < 0 ? 0 : r > 0 && alias[0] ? 1 : r > 0 ? -1 : 0;
}

#else

bool cf_path_within_by_mounts(const char *path, const char *root) {
	(void)path;
	(void)root;
	return false;
}

int cf_path_mount_alias(const char *real, const char *const *deny, size_t n_deny, char *alias,
                        size_t alias_size) {
	(void)real;
	(void)deny;
	(void)n_deny;
	(void)alias;
	(void)alias_size;
	return 0;
}

#endif
