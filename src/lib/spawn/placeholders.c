/* SPDX-License-Identifier: MIT */
/*
 * Placeholders (doc/SPEC.md 15, issue 21.3). A bind mount needs something
 * to sit on, so a protected path that does not exist yet cannot be kept
 * read-only by bwrap as it is: the command could create it (a
 * `.git/commondir` naming a directory it wrote, hooks and all; a
 * `.claude/settings.json`). For a run the library spawns on the bwrap rung,
 * the spawner therefore makes what stands in for it before bwrap starts
 * (the first missing component: an empty directory, an empty file, or for
 * a repository's `commondir` a file holding ".\n", which git reads as "this
 * repository itself"), bwrap binds it read-only (the profile asked for it,
 * CF_PLAN_PLACEHOLDERS), and the spawner removes it once the run is over.
 *
 * While the run lasts the placeholder is visible on the host, and a mount
 * in another run's sandbox may sit on it: removing it then would detach
 * that mount (the kernel unhashes the dentry) and open the name there. So
 * every run that relies on a placeholder holds a shared flock(2) on it for
 * its whole life, and a placeholder is removed only by the run that gets
 * the exclusive lock, only if it is still the same inode, still as made
 * (empty; ".\n"), and was made by a run (this one, or a marked one: the
 * user.confine.placeholder extended attribute, where the filesystem keeps
 * one). A run killed with SIGKILL leaves its placeholders; the next run
 * that relies on them removes them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/xattr.h>
#endif
#if HAVE_SYS_OPENAT2
#include <linux/openat2.h>
#endif

#include "policy-internal.h"
#include "profiles/plan.h"
#include "spawn/spawn.h"

#define MARK_NAME "user.confine.placeholder"
#define COMMONDIR_TEXT ".\n"
/* A shared lock is refused only while a finishing run holds the exclusive
 * one to remove the placeholder (a moment); past this, fail closed. */
#define LOCK_WAIT_MS 2000
/* renameat2(2)'s, by the syscall: not every libc has the wrapper */
#define RENAME_NOREPLACE_FLAG 1u

struct held {
	char *path;
	cf_placeholder_kind kind;
	int fd; /* holds the shared lock */
	dev_t dev;
	ino_t ino;
	bool made; /* by this run */
};

/* A protected path as it was when the run started: a host-side rename
 * over it (or over a directory on its way) during the run detaches the
 * mount that kept it read-only, and leaves another file at the name. */
struct watched {
	char *path;
	dev_t dev;
	ino_t ino;
	bool explicit_entry;
};

struct cf_placeholders {
	struct held *items;
	size_t n;
	struct watched *watch;
	size_t n_watch;
};

static bool marked(int fd) {
#ifdef __linux__
	char v[8];
	return fgetxattr(fd, MARK_NAME, v, sizeof v) >= 0;
#else
	(void)fd;
	return false;
#endif
}

static void mark(int fd) {
#ifdef __linux__
	(void)fsetxattr(fd, MARK_NAME, "1", 1, 0); /* best effort: not every fs keeps one */
#else
	(void)fd;
#endif
}

/* Still as it was made: an empty directory, an empty file, ".\n". */
static bool pristine(int fd, cf_placeholder_kind kind) {
	struct stat st;
	if (fstat(fd, &st) < 0)
		return false;
	switch (kind) {
	case CF_PLACEHOLDER_DIR: {
		DIR *d;
		struct dirent *e;
		bool empty = true;
		int dup_fd;
		if (!S_ISDIR(st.st_mode) || (dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			return false;
		if (!(d = fdopendir(dup_fd))) {
			close(dup_fd);
			return false;
		}
		while (empty && (e = readdir(d)))
			empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
		closedir(d);
		return empty;
	}
	case CF_PLACEHOLDER_FILE:
		return S_ISREG(st.st_mode) && st.st_size == 0;
	case CF_PLACEHOLDER_COMMONDIR: {
		char buf[sizeof COMMONDIR_TEXT];
		return S_ISREG(st.st_mode) && st.st_size == (off_t)strlen(COMMONDIR_TEXT) &&
		       pread(fd, buf, sizeof buf, 0) == (ssize_t)strlen(COMMONDIR_TEXT) &&
		       memcmp(buf, COMMONDIR_TEXT, strlen(COMMONDIR_TEXT)) == 0;
	}
	case CF_PLACEHOLDER_NONE:
		break;
	}
	return false;
}

/*
 * open_parent()'s walk in one openat2(2): the first `len` bytes of `path`
 * opened as a directory with no symlink followed in any component. -ENOSYS
 * when it cannot say (no openat2 here, a "." or ".." component, a name
 * too long for the buffer): the caller walks.
 */
static int open_dir_at_once(const char *path, size_t len) {
#if HAVE_SYS_OPENAT2
	static int unsupported;
	char dir[PATH_MAX];
	struct open_how how;
	long fd;
	if (__atomic_load_n(&unsupported, __ATOMIC_RELAXED) || len >= sizeof dir)
		return -ENOSYS;
	memcpy(dir, path, len);
	dir[len] = '\0';
	if (len == 0) {
		dir[0] = '/';
		dir[1] = '\0';
	}
	for (const char *p = dir + 1; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -ENOSYS;
		p += n;
		if (*p == '/')
			p++;
	}
	memset(&how, 0, sizeof how);
	how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS;
	fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof how);
	if (fd >= 0)
		return (int)fd;
	if (errno == ENOSYS || errno == EPERM) {
		/* no openat2, or a seccomp filter refusing it: walk, always */
		__atomic_store_n(&unsupported, 1, __ATOMIC_RELAXED);
		return -ENOSYS;
	}
	return -errno;
#else
	(void)path;
	(void)len;
	return -ENOSYS;
#endif
}

/*
 * The directory holding `path` (absolute and canonical: no symlink in it),
 * opened one component at a time from / without following any symlink.
 * The library may be root, and a concurrent run's command may write the
 * workspace: a directory on the way swapped for a symlink meanwhile makes
 * this fail (ELOOP, ENOTDIR) instead of leading a placeholder, or its
 * removal, elsewhere. *name: the last component. An fd, or -errno.
 * Where the kernel has openat2(2), one call does the same walk
 * (RESOLVE_NO_SYMLINKS: no symlink in any component; issue 33, a
 * workspace-write run makes this walk a few hundred times); a path with a
 * "." or ".." component, or no openat2, walks as before.
 */
static int open_parent(const char *path, const char **name) {
	const char *p = path, *slash = strrchr(path, '/');
	int fd;
	if (path[0] != '/' || !slash || !slash[1])
		return -EINVAL;
	*name = slash + 1;
	if ((fd = open_dir_at_once(path, (size_t)(slash - path))) != -ENOSYS)
		return fd;
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	while (p < slash) {
		char part[256];
		const char *end;
		size_t len;
		int next;
		while (*p == '/')
			p++;
		if (p >= slash)
			break;
		end = strchr(p, '/');
		len = (size_t)(end - p);
		if (len >= sizeof part) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(part, p, len);
		part[len] = '\0';
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
		p = end;
	}
	return fd;
}

static int open_placeholder(const char *path, cf_placeholder_kind kind) {
	const char *name;
	int fd, dir = open_parent(path, &name);
	if (dir < 0) {
		errno = -dir;
		return -1;
	}
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	                               (kind == CF_PLACEHOLDER_DIR ? O_DIRECTORY : 0));
	if (fd < 0) {
		int e = errno;
		close(dir);
		errno = e;
		return -1;
	}
	close(dir);
	return fd;
}

/* lstat(2) of `path` through open_parent(). */
static int lstat_safely(const char *path, struct stat *st) {
	const char *name;
	int r, dir = open_parent(path, &name);
	if (dir < 0) {
		errno = -dir;
		return -1;
	}
	r = fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW);
	if (r < 0) {
		int e = errno;
		close(dir);
		errno = e;
		return -1;
	}
	close(dir);
	return 0;
}

/* Removes the placeholder `path` (through open_parent()). */
static bool remove_placeholder(const char *path, cf_placeholder_kind kind) {
	const char *name;
	int r, dir = open_parent(path, &name);
	if (dir < 0)
		return false;
	r = unlinkat(dir, name, kind == CF_PLACEHOLDER_DIR ? AT_REMOVEDIR : 0);
	close(dir);
	return r == 0;
}

/* Fills the fresh placeholder `fd`: marked, and commondir's text. */
static int fill(int fd, cf_placeholder_kind kind) {
	mark(fd);
	if (kind == CF_PLACEHOLDER_COMMONDIR &&
	    write(fd, COMMONDIR_TEXT, strlen(COMMONDIR_TEXT)) != (ssize_t)strlen(COMMONDIR_TEXT))
		return -(errno ? errno : EIO);
	return 0;
}

/* Makes `name` in `dir` in place (where no rename can: see make). */
static int make_in_place(int dir, const char *name, cf_placeholder_kind kind) {
	int fd, r;
	if (kind == CF_PLACEHOLDER_DIR) {
		if (mkdirat(dir, name, 0755) < 0)
			return -errno;
		fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			mark(fd);
			close(fd);
		}
		return 0;
	}
	fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = fill(fd, kind);
	close(fd);
	if (r < 0)
		(void)unlinkat(dir, name, 0);
	return r;
}

/*
 * Makes `path`: 0, -EEXIST (something is there now), or -errno. Made
 * whole under a name of its own in the same directory (marked, filled),
 * then renamed into place without replacing anything: a concurrent run
 * that plans meanwhile sees no placeholder or a marked one, never an
 * unmarked stand-in it would take for the user's file and tie its argv
 * to (16 runs at once in one workspace: its identity check then failed
 * when this run removed it).
 */
static int make(const char *path, cf_placeholder_kind kind) {
	static unsigned counter;
	const char *name;
	char tmp[64];
	int fd, r, dir = open_parent(path, &name);
	if (dir < 0)
		return dir;
	snprintf(tmp, sizeof tmp, ".confine-placeholder.%ld.%u", (long)getpid(),
	         __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	if (kind == CF_PLACEHOLDER_DIR) {
		if (mkdirat(dir, tmp, 0755) < 0) {
			r = -errno;
			close(dir);
			return r;
		}
		fd = openat(dir, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	}
	if (fd < 0) {
		r = -errno;
		close(dir);
		return r;
	}
	r = kind == CF_PLACEHOLDER_DIR ? (mark(fd), 0) : fill(fd, kind);
	close(fd);
#ifdef SYS_renameat2
	if (r == 0 && syscall(SYS_renameat2, dir, tmp, dir, name, RENAME_NOREPLACE_FLAG) < 0)
		r = -errno;
#else
	if (r == 0)
		r = -ENOSYS;
#endif
	if (r < 0)
		(void)unlinkat(dir, tmp, kind == CF_PLACEHOLDER_DIR ? AT_REMOVEDIR : 0);
	/* a filesystem without RENAME_NOREPLACE: in place, marked after */
	if (r == -EINVAL || r == -ENOSYS)
		r = make_in_place(dir, name, kind);
	close(dir);
	return r;
}

static void sleep_ms(long ms) {
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Where `--ro-bind P P` stands in the runner's part of argv (before "--"):
 * the index of "--ro-bind", or -1. */
static long bound_at(char *const *argv, const char *path) {
	for (long i = 1; argv[i] && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--ro-bind") == 0 && argv[i + 1] && argv[i + 2] &&
		    strcmp(argv[i + 1], path) == 0 && strcmp(argv[i + 2], path) == 0)
			return i;
	return -1;
}

/* Drops argv[at .. at+2] (a bind the command could not make use of). */
static void drop_bind(confine_argv *c, long at) {
	for (int k = 0; k < 3; k++)
		free(c->argv[at + k]);
	memmove(&c->argv[at], &c->argv[at + 3], (c->argc + 1 - (size_t)at - 3) * sizeof *c->argv);
	c->argc -= 3;
}

/* The failures that say this process (or the system) is out of
 * descriptors or memory, not anything about the name looked at. */
static bool out_of_descriptors(int e) {
	return e == EMFILE || e == ENFILE || e == ENOMEM;
}

/* The directories above `path` that are gone, made again as marked,
 * empty placeholders: a concurrent run that stood in one of them
 * (`.claude` for `.claude/settings.json`) removed it after this run planned
 * entries inside it. Each entry this run binds under it gets its own
 * placeholder; the directory itself is then writable, as a `.claude` of the
 * user's own would be, and goes with the last run that leaves it empty
 * (cf_placeholders_release). 0, or -errno. */
static int make_parents(const char *path) {
	char dir[PATH_MAX];
	struct stat st;
	size_t len = strlen(path), at;
	if (len >= sizeof dir)
		return -ENAMETOOLONG;
	memcpy(dir, path, len + 1);
	/* the deepest ancestor still there */
	for (at = len; at > 0; at--) {
		if (dir[at] != '/')
			continue;
		dir[at] = '\0';
		if (lstat_safely(dir, &st) == 0)
			break;
		if (errno != ENOENT)
			return -errno;
	}
	if (at == 0)
		return -ENOENT;
	/* then each one below it, down to the entry's own parent */
	memcpy(dir, path, len + 1);
	for (size_t i = at + 1; i < len; i++) {
		int r, fd;
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		r = make(dir, CF_PLACEHOLDER_DIR);
		if (r == 0 && (fd = open_placeholder(dir, CF_PLACEHOLDER_DIR)) >= 0) {
			mark(fd);
			close(fd);
		} else if (r == 0 && out_of_descriptors(errno)) {
			return -errno;
		} else if (r < 0 && r != -EEXIST) {
			return r;
		}
		dir[i] = '/';
	}
	return 0;
}

static bool remove_if_unused(const char *path, cf_placeholder_kind kind, bool made, dev_t dev,
                             ino_t ino);

/* Makes (or adopts) and share-locks the placeholder at `path`: 1 held, 0
 * nothing to hold (an existing path that is not one), or -errno. */
static int hold(struct held *h, confine_argv *c, const char *path, cf_placeholder_kind kind) {
	long waited = 0;
	/* Each turn that finds the name changed under it looks again: a
	 * concurrent run makes and removes the same stand-ins (and the
	 * directories above them) while this one starts. */
	for (int attempt = 0; attempt < 16; attempt++) {
		struct stat st, now;
		bool made = false;
		int fd, r;
		if (lstat_safely(path, &st) < 0) {
			if (errno != ENOENT)
				return -errno;
			r = make(path, kind);
			if (r == -EACCES || r == -EPERM || r == -EROFS) {
				/* Where this process cannot create, the command (the same
				 * user, no capability) cannot either: nothing to stand in
				 * for, and bwrap must not be asked to bind it. */
				long at = bound_at(c->argv, path);
				if (at > 0)
					drop_bind(c, at);
				return 0;
			}
			if (r == -EEXIST)
				continue; /* made meanwhile: look again */
			if (r == -ENOENT) {
				/* a directory on its way went meanwhile */
				if ((r = make_parents(path)) < 0)
					return r;
				continue;
			}
			if (r < 0)
				return r;
			made = true;
		}
		if ((fd = open_placeholder(path, kind)) < 0) {
			if (made || out_of_descriptors(errno))
				return -errno;
			if (errno == ENOENT)
				continue; /* another run's stand-in, removed meanwhile */
			return 0; /* not something a placeholder could be */
		}
		if (made)
			mark(fd);
		else if (!pristine(fd, kind)) {
			close(fd);
			return 0; /* the user's own file: protected as it is */
		}
		while (flock(fd, LOCK_SH | LOCK_NB) < 0) {
			if (errno != EWOULDBLOCK && errno != EINTR) {
				int e = errno;
				close(fd);
				return -e;
			}
			if (waited >= LOCK_WAIT_MS) {
				close(fd);
				return -EWOULDBLOCK;
			}
			sleep_ms(10);
			waited += 10;
		}
		/* A finishing run may have removed it between our open and lock. */
		if (fstat(fd, &st) < 0 || lstat_safely(path, &now) < 0) {
			/* Gone meanwhile: look again. Anything else (no descriptor
			 * left for the look, say) is this run's failure, named as
			 * such, not another run's hold. */
			int e = errno;
			close(fd);
			if (e != ENOENT) {
				/* ours to take away only as release does: unused,
				 * still the one made (another run may hold it now) */
				if (made)
					(void)remove_if_unused(path, kind, false, 0, 0);
				return -e;
			}
			continue;
		}
		if (st.st_dev != now.st_dev || st.st_ino != now.st_ino) {
			close(fd);
			continue;
		}
		if (!(h->path = strdup(path))) {
			close(fd);
			if (made)
				(void)remove_if_unused(path, kind, true, st.st_dev, st.st_ino);
			return -ENOMEM;
		}
		h->kind = kind;
		h->fd = fd;
		h->dev = st.st_dev;
		h->ino = st.st_ino;
		h->made = made;
		return 1;
	}
	return -EBUSY; /* the name changed under every look */
}

int cf_placeholders_make(confine_argv *c, struct cf_placeholders **ret, confine_error *err) {
	struct cf_placeholders *ph;
	cf_plan plan;
	int r;

	*ret = NULL;
	r = cf_plan_make(&c->policy, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan);
	if (r < 0)
		return cf_error_set(err, -r, r == -ENOMEM ? CONFINE_E_SYSTEM : CONFINE_E_INVALID_POLICY,
		                    "spawn", -r, "cannot plan the protected paths: %s", strerror(-r));
	if (!(ph = calloc(1, sizeof *ph)) ||
	    (plan.n_protected && (!(ph->items = calloc(plan.n_protected, sizeof *ph->items)) ||
	                          !(ph->watch = calloc(plan.n_protected, sizeof *ph->watch))))) {
		if (ph) {
			free(ph->items);
			free(ph->watch);
		}
		free(ph);
		cf_plan_clear(&plan);
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < plan.n_protected; i++) {
		const cf_protected *p = &plan.protected_paths[i];
		struct stat st;
		if (bound_at(c->argv, p->path) < 0)
			continue; /* not asked for by this argv */
		r = p->kind == CF_PLACEHOLDER_NONE ? 0 : hold(&ph->items[ph->n], c, p->path, p->kind);
		if (r == -EMFILE) {
			/* each placeholder holds a descriptor for the run (its lock) */
			struct rlimit rl = { 0, 0 };
			(void)getrlimit(RLIMIT_NOFILE, &rl);
			cf_error_set(err, EMFILE, CONFINE_E_SPAWN, "spawn", EMFILE,
			             "cannot make the placeholder %s for a protected path: each placeholder "
			             "holds a descriptor for the run and %zu are held, at the soft "
			             "RLIMIT_NOFILE of %llu (raise it, or unprotect entries; nothing was run)",
			             p->path, ph->n, (unsigned long long)rl.rlim_cur);
			cf_plan_clear(&plan);
			cf_placeholders_release(ph);
			return r;
		}
		if (r < 0) {
			cf_error_set(err, -r, r == -ENOMEM ? CONFINE_E_SYSTEM : CONFINE_E_SPAWN, "spawn", -r,
			             "cannot make the placeholder %s for a protected path: %s", p->path,
			             r == -EWOULDBLOCK ? "another process holds it"
			             : r == -EBUSY ? "another process keeps changing it"
			                           : strerror(-r));
			cf_plan_clear(&plan);
			cf_placeholders_release(ph);
			return r;
		}
		if (r > 0)
			ph->n++;
		/* What the name is now, placeholder or not: compared after the run. */
		if (bound_at(c->argv, p->path) >= 0 && lstat_safely(p->path, &st) == 0) {
			struct watched *w = &ph->watch[ph->n_watch];
			if (!(w->path = strdup(p->path))) {
				cf_plan_clear(&plan);
				cf_placeholders_release(ph);
				return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM,
				                    "out of memory");
			}
			w->dev = st.st_dev;
			w->ino = st.st_ino;
			w->explicit_entry = p->explicit_entry;
			ph->n_watch++;
		}
	}
	/* Every path the argv binds read-only inside a writable root must be
	 * there now: one that is not changed since confine() built the argv
	 * (a concurrent run swapped a directory on its way, say). Fail here,
	 * plainly, rather than as bwrap's own refusal (which would read as an
	 * unusable rung). */
	for (size_t i = 1; c->argv[i] && strcmp(c->argv[i], "--") != 0; i++) {
		struct stat st;
		bool inside = false;
		if (strcmp(c->argv[i], "--ro-bind") != 0 || !c->argv[i + 1] || !c->argv[i + 2] ||
		    strcmp(c->argv[i + 1], c->argv[i + 2]) != 0)
			continue;
		for (size_t k = 0; plan.writable[k] && !inside; k++)
			inside = cf_path_at_or_under(c->argv[i + 1], plan.writable[k]);
		if (inside && lstat_safely(c->argv[i + 1], &st) < 0) {
			r = cf_error_set(err, ESTALE, CONFINE_E_SPAWN, "spawn", errno,
			                 "the protected path %s is gone, or a directory on its way was "
			                 "replaced, since the sandbox was planned: %s; not run",
			                 c->argv[i + 1], strerror(errno));
			cf_plan_clear(&plan);
			cf_placeholders_release(ph);
			return r;
		}
	}
	cf_plan_clear(&plan);
	*ret = ph;
	return 0;
}

void cf_placeholders_replaced(const struct cf_placeholders *ph, bool *explicit_replaced,
                              bool *default_replaced) {
	*explicit_replaced = *default_replaced = false;
	for (size_t i = 0; ph && i < ph->n_watch; i++) {
		struct stat st;
		if (lstat_safely(ph->watch[i].path, &st) == 0 && st.st_dev == ph->watch[i].dev &&
		    st.st_ino == ph->watch[i].ino)
			continue;
		if (ph->watch[i].explicit_entry)
			*explicit_replaced = true;
		else
			*default_replaced = true;
	}
}

/* Removes `path` if it is a placeholder (made by this run with that
 * identity, or marked) that no other run holds and that is still as made:
 * true when it was removed. */
static bool remove_if_unused(const char *path, cf_placeholder_kind kind, bool made, dev_t dev,
                             ino_t ino) {
	struct stat st, now;
	bool removed = false;
	int fd = open_placeholder(path, kind);
	if (fd < 0)
		return false;
	/* The exclusive lock: no other run relies on it now. */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 &&
	    lstat_safely(path, &now) == 0 &&
	    st.st_dev == now.st_dev && st.st_ino == now.st_ino &&
	    ((made && st.st_dev == dev && st.st_ino == ino) || marked(fd)) && pristine(fd, kind))
		removed = remove_placeholder(path, kind);
	close(fd);
	return removed;
}

void cf_placeholders_release(struct cf_placeholders *ph) {
	if (!ph)
		return;
	for (size_t i = 0; i < ph->n; i++) {
		struct held *h = &ph->items[i];
		char *slash;
		close(h->fd); /* our shared lock goes with it */
		if (remove_if_unused(h->path, h->kind, h->made, h->dev, h->ino)) {
			/* A directory another run stood in (`.claude` for
			 * `.claude/settings.json`) may be left empty by this one's
			 * removal: marked ones go too, upwards, while unused. */
			while ((slash = strrchr(h->path, '/')) && slash > h->path) {
				*slash = '\0';
				if (!remove_if_unused(h->path, CF_PLACEHOLDER_DIR, false, 0, 0))
					break;
			}
		}
		free(h->path);
	}
	for (size_t i = 0; i < ph->n_watch; i++)
		free(ph->watch[i].path);
	free(ph->items);
	free(ph->watch);
	free(ph);
}
