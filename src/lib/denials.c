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

#include "denials.h"

/* ---- the list ------------------------------------------------------------ */

static bool same_text(const char *a, const char *b) {
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void denial_clear(confine_denial *e) {
	free(e->op);
	free(e->path);
	free(e->address);
	free(e->clause);
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
	if (d->n >= CONFINE_DENIALS_MAX)
		return 0;
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
}

/* ---- text helpers -------------------------------------------------------- */

/* Case-insensitive (ASCII) search of `needle` in l[from..len); the index,
 * or -1. */
static long find_ci(const char *l, size_t len, size_t from, const char *needle) {
	size_t n = strlen(needle);
	for (size_t i = from; i + n <= len; i++) {
		size_t k = 0;
		while (k < n && tolower((unsigned char)l[i + k]) == tolower((unsigned char)needle[k]))
			k++;
		if (k == n)
			return (long)i;
	}
	return -1;
}

/* Whether a word starting with `stem` occurs in t[0..len) (at a word
 * start: not after a letter), case-insensitively. */
static bool has_word_ci(const char *t, size_t len, const char *stem) {
	long at = -1;
	size_t from = 0;
	while ((at = find_ci(t, len, from, stem)) >= 0) {
		if (at == 0 || !isalpha((unsigned char)t[at - 1]))
			return true;
		from = (size_t)at + 1;
	}
	return false;
}

/* ---- the file messages --------------------------------------------------- */

enum kind { K_ACCES, K_ROFS, K_PERM, K_BUSY, K_NOENT, K_COUNT };

static const char *const file_messages[K_COUNT] = {
	"permission denied", "read-only file system", "operation not permitted",
	"device or resource busy", "no such file or directory",
};

/* What the text before a path says was tried. */
enum hint { H_NONE, H_READ, H_WRITE, H_CHMOD, H_CHOWN, H_UTIMES };

static const char *hint_op(enum hint h) {
	switch (h) {
	case H_CHMOD:
		return "chmod";
	case H_CHOWN:
		return "chown";
	case H_UTIMES:
		return "utimes";
	case H_READ:
		return "read";
	case H_WRITE:
	case H_NONE:
	default:
		return "write";
	}
}

static bool hint_is_metadata(enum hint h) {
	return h == H_CHMOD || h == H_CHOWN || h == H_UTIMES;
}

/* The words of coreutils, bash, dash, git and Python messages. */
static enum hint hint_of(const char *t, size_t len) {
	static const char *const chmod_words[] = { "changing permissions", "chmod", NULL };
	static const char *const chown_words[] = { "changing ownership", "changing group", "chown",
		                                   "chgrp", NULL };
	static const char *const utimes_words[] = { "setting times", "utime", NULL };
	static const char *const write_words[] = { "creat", "touch", "remov", "mov", "overwrit",
		                                   "writ", "lock", "mkdir", "make", "renam",
		                                   "link", "unlink", "symlink", "delet", "truncat",
		                                   "append", "save", "cop", "temporary", NULL };
	static const char *const read_words[] = { "read", "open", "access", "stat", "load", "list",
		                                  NULL };
	static const struct {
		const char *const *words;
		enum hint hint;
	} table[] = { { chmod_words, H_CHMOD },  { chown_words, H_CHOWN }, { utimes_words, H_UTIMES },
		      { write_words, H_WRITE },  { read_words, H_READ } };
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		for (const char *const *w = table[i].words; *w; w++)
			if (has_word_ci(t, len, *w))
				return table[i].hint;
	return H_NONE;
}

/* Programs whose only business with a file named in their error is to
 * read it ("cat: /x: Permission denied"). */
static bool reading_program(const char *l, size_t len) {
	static const char *const readers[] = { "cat", "head", "tail", "less", "more", "grep",
		                               "egrep", "fgrep", "wc", "diff", "cmp", "od", "xxd",
		                               "hexdump", "md5sum", "sha1sum", "sha256sum",
		                               "sha512sum", "source", NULL };
	const char *colon = memchr(l, ':', len);
	size_t n = colon ? (size_t)(colon - l) : 0;
	for (const char *const *r = readers; n && *r; r++)
		if (strlen(*r) == n && memcmp(l, *r, n) == 0)
			return true;
	return false;
}

/* The message ends the error: at the end of the line, before ':', ',',
 * ';', '.', or Rust's " (os error N)" (so "Permission denied
 * (publickey)." is not one). */
static bool ends_error(const char *l, size_t len, size_t after) {
	if (after >= len)
		return true;
	if (strchr(":,;.", l[after]))
		return true;
	return find_ci(l, len, after, " (os error") == (long)after;
}

/* A path named on a line, and where it stands. */
struct named {
	char path[PATH_MAX];
	size_t start, end;  /* the path's span in the line */
	bool accepted;      /* it reads as a path (see find_path) */
	enum hint hint;
};

static bool copy_path(struct named *f, const char *l, size_t start, size_t end) {
	size_t n = end - start;
	if (n == 0 || n >= sizeof f->path)
		return false;
	for (size_t i = start; i < end; i++)
		if ((unsigned char)l[i] < 0x20 || l[i] == 0x7f)
			return false;
	memcpy(f->path, l + start, n);
	f->path[n] = '\0';
	f->start = start;
	f->end = end;
	return true;
}

/* "<prog>: ", "<prog>: line N: " or "<prog>: N: " exactly: the shapes of
 * bash and dash where a bare name is a file's. */
static bool program_prefix(const char *l, size_t len) {
	size_t i = 0, digits = 0;
	while (i < len && l[i] != ':' && l[i] != ' ')
		i++;
	if (i == 0 || i + 2 > len || l[i] != ':' || l[i + 1] != ' ')
		return false;
	i += 2;
	if (i == len)
		return true;
	if (len - i > 5 && memcmp(l + i, "line ", 5) == 0)
		i += 5;
	while (i < len && isdigit((unsigned char)l[i])) {
		i++;
		digits++;
	}
	return digits > 0 && i + 2 == len && l[i] == ':' && l[i + 1] == ' ';
}

/* Finds the path a line names for the message at l[at..at+mlen). */
static bool find_path(const char *l, size_t len, size_t at, size_t mlen, struct named *f) {
	size_t after = at + mlen, end, seg;
	bool verb_needed = false;
	memset(f, 0, sizeof *f);
	/* Python: "[Errno 13] Permission denied: '/x'" (a repr: no escapes) */
	if (after + 3 < len && l[after] == ':' && l[after + 1] == ' ' &&
	    (l[after + 2] == '\'' || l[after + 2] == '"')) {
		const char *close = memchr(l + after + 3, l[after + 2], len - after - 3);
		if (!close || memchr(l + after + 3, '\\', (size_t)(close - l) - after - 3) ||
		    !copy_path(f, l, after + 3, (size_t)(close - l)))
			return false;
		f->accepted = true;
		goto hint;
	}
	/* Node: "EACCES: permission denied, open '/x'" (the syscall says
	 * the op, but an open's flags are unknown) */
	if (after + 2 < len && l[after] == ',' && l[after + 1] == ' ') {
		size_t word = after + 2, q = word;
		const char *close;
		while (q < len && isalpha((unsigned char)l[q]))
			q++;
		if (q == word || q + 2 >= len || l[q] != ' ' || l[q + 1] != '\'' ||
		    !(close = memchr(l + q + 2, '\'', len - q - 2)) ||
		    !copy_path(f, l, q + 2, (size_t)(close - l)))
			return false;
		f->accepted = true;
		f->hint = q - word == 4 && memcmp(l + word, "open", 4) == 0 ? H_NONE
		                                                            : hint_of(l + word, q - word);
		return true;
	}
	if (at < 2 || l[at - 2] != ':' || l[at - 1] != ' ')
		return false;
	end = at - 2;
	/* quoted: '<path>', "<path>", `<path>', ‘<path>’ */
	if (end >= 3 && memcmp(l + end - 3, "\xe2\x80\x99", 3) == 0) {
		for (size_t i = end - 3; i >= 3; i--)
			if (memcmp(l + i - 3, "\xe2\x80\x98", 3) == 0) {
				if (!copy_path(f, l, i, end - 3))
					return false;
				f->accepted = true;
				goto hint;
			}
		return false;
	}
	if (end >= 2 && (l[end - 1] == '\'' || l[end - 1] == '"')) {
		for (size_t i = end - 1; i-- > 0;)
			if (l[i] == l[end - 1] || (l[end - 1] == '\'' && l[i] == '`')) {
				if (!copy_path(f, l, i + 1, end - 1))
					return false;
				f->accepted = true;
				goto hint;
			}
		return false;
	}
	/* the segment after the last ": " before the message */
	seg = 0;
	for (size_t i = 0; i + 1 < end; i++)
		if (l[i] == ':' && l[i + 1] == ' ')
			seg = i + 2;
	if (seg < end && l[seg] == '/') {
		if (!copy_path(f, l, seg, end))
			return false;
	} else {
		size_t word = end;
		while (word > seg && l[word - 1] != ' ')
			word--;
		if (!copy_path(f, l, word, end))
			return false;
		verb_needed = word > seg;
	}
	if (memchr(f->path, '/', strlen(f->path)))
		f->accepted = true;
	else if (!verb_needed)
		f->accepted = program_prefix(l, seg);
hint: {
	/* what was tried: the words around the path, the message aside */
	enum hint before = hint_of(l, f->start < at ? f->start : at);
	enum hint between = f->end < at ? hint_of(l + f->end, at - f->end) : H_NONE;
	f->hint = between == H_WRITE ? H_WRITE : before;
	if (f->hint == H_NONE && reading_program(l, len))
		f->hint = H_READ;
	if (verb_needed && !f->accepted)
		f->accepted = f->hint != H_NONE && f->hint != H_READ;
	return f->accepted;
}
}

/* ---- paths --------------------------------------------------------------- */

/* `dir` joined with `path` (unless absolute), with ".", ".." and repeated
 * slashes taken out. False when it does not fit. */
static bool absolute_clean(const char *dir, const char *path, char *out, size_t size) {
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
static bool under(const char *path, const char *root) {
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

static const cf_denial_fs real_fs = { real_canonical, real_exists, real_permitted, NULL };

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
			if (strcmp(c->clause, *n) == 0 && under(path, c->subject))
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
		if (under(path, *w))
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
		if (strcasecmp(*sig, file_messages[k]) == 0)
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
	const cf_denial_fs *fs = s->fs ? s->fs : &real_fs;
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
		while (at < 0 && (found = find_ci(l, len, from, file_messages[i])) >= 0) {
			if (ends_error(l, len, (size_t)found + strlen(file_messages[i]))) {
				at = found;
				k = (enum kind)i;
			}
			from = (size_t)found + 1;
		}
	}
	if (at < 0 || !speaks(s, k) ||
	    !find_path(l, len, (size_t)at, strlen(file_messages[k]), &f) ||
	    (f.path[0] != '/' && !s->workdir) ||
	    !absolute_clean(s->workdir, f.path, abs, sizeof abs))
		return 0;
	fs->canonical(fs->data, abs, canon, sizeof canon);

	if (k == K_PERM && !hint_is_metadata(f.hint) && !(s->facts & CONFINE_RUNNER_FACT_EPERM_FILES)) {
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
		r = cf_denials_add(list, hint_op(f.hint), canon, NULL, "denyRead");
		*ret = R_DENIAL;
		return r < 0 ? r : 0;
	}
	if ((c = covering(s, protect, canon))) {
		if (k == K_NOENT)
			return 0;
		r = cf_denials_add(list, f.hint == H_READ ? "write" : hint_op(f.hint), canon, NULL,
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
		const char *op = hint_op(f.hint);
		const char *clause = hint_is_metadata(f.hint) ? "metadata" : "mode";
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
	if ((k == K_ACCES || k == K_ROFS) && !hint_is_metadata(f.hint))
		*ret = R_ORDINARY;
	return 0;
}

/* ---- the network --------------------------------------------------------- */

static const char *const network_messages[] = {
	"connection refused", "network is unreachable", "couldn't connect to server",
	"could not resolve host", "temporary failure in name resolution", NULL,
};

static bool host_char(char c) {
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' || c == ':' ||
	       c == '[' || c == ']' || c == '%';
}

/* "<host>", then `sep`, then a port, from l[i..]: into out as host:port
 * ("[v6]:port"). Before ":" a host holds no colon unless bracketed. */
static bool host_port(const char *l, size_t len, size_t i, const char *sep, char *out,
                      size_t size) {
	size_t h = i, seplen = strlen(sep), digits = 0;
	bool colons = strcmp(sep, ":") != 0;
	unsigned long port = 0;
	if (i < len && l[i] == '[') {
		const char *close = memchr(l + i, ']', len - i);
		if (!close)
			return false;
		h = (size_t)(close - l) + 1;
	} else {
		while (h < len && host_char(l[h]) && (colons || l[h] != ':'))
			h++;
	}
	if (h == i || h - i > 253 || h + seplen > len || strncasecmp(l + h, sep, seplen) != 0)
		return false;
	for (size_t p = h + seplen; p < len && isdigit((unsigned char)l[p]) && digits < 6; p++) {
		port = port * 10 + (unsigned long)(l[p] - '0');
		digits++;
	}
	if (digits == 0 || port == 0 || port > 65535)
		return false;
	if (l[i] != '[' && memchr(l + i, ':', h - i))
		return snprintf(out, size, "[%.*s]:%lu", (int)(h - i), l + i, port) < (int)size;
	return snprintf(out, size, "%.*s:%lu", (int)(h - i), l + i, port) < (int)size;
}

/* The address a network message names, in the shapes of bash's /dev/tcp,
 * ssh, nc, curl and wget; curl's and git's unresolved host. */
static bool find_address(const char *l, size_t len, char *out, size_t size, const char **op) {
	static const struct {
		const char *lead;
		const char *sep;
	} shapes[] = {
		{ "/dev/tcp/", "/" },        { "/dev/udp/", "/" },
		{ "connect to host ", " port " }, { "failed to connect to ", " port " },
		{ "connect to ", " port " }, { "connecting to ", ":" },
	};
	long at;
	*op = "connect";
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		size_t from = 0;
		while ((at = find_ci(l, len, from, shapes[i].lead)) >= 0) {
			if (host_port(l, len, (size_t)at + strlen(shapes[i].lead), shapes[i].sep, out, size))
				return true;
			from = (size_t)at + 1;
		}
	}
	if ((at = find_ci(l, len, 0, "could not resolve host: ")) >= 0) {
		size_t h = (size_t)at + strlen("could not resolve host: "), e = h;
		while (e < len && host_char(l[e]) && l[e] != ':')
			e++;
		while (e > h && l[e - 1] == '.')
			e--;
		if (e > h && e - h <= 253 && snprintf(out, size, "%.*s", (int)(e - h), l + h) < (int)size) {
			*op = "resolve";
			return true;
		}
	}
	return false;
}

/* A path a line names, other than bash's /dev/tcp and /dev/udp and a URL:
 * then the refusal is a pathname socket's, not the network's. */
static bool names_a_path(const char *l, size_t len) {
	for (size_t i = 0; i < len; i++) {
		if (l[i] != '/' || (i > 0 && !strchr(" '\"(=", l[i - 1])) ||
		    (i + 1 < len && l[i + 1] == '/'))
			continue;
		if (len - i >= 9 && (memcmp(l + i, "/dev/tcp/", 9) == 0 ||
		                     memcmp(l + i, "/dev/udp/", 9) == 0))
			continue;
		return true;
	}
	return false;
}

/* The launcher's proxy says each host it refused on the
 * launcher's stderr (doc/SPEC.md 15): "landlock-run: network: refused
 * (<why>) <host>:<port>". */
static int allowlist_line(const cf_denial_scope *s, const char *l, size_t len, cf_denials *list,
                          bool *marker) {
	static const char lead[] = "landlock-run: network: refused (";
	char address[300];
	long at = find_ci(l, len, 0, lead);
	const char *close;
	/* and, with the network off, its refusing proxy (doc/SPEC.md 15) */
	if (at != 0 || (!holds(s, "network", "allowlist") && !holds(s, "network", "off")))
		return 0;
	close = memchr(l + sizeof lead - 1, ')', len - (sizeof lead - 1));
	if (!close || (size_t)(close - l) + 2 >= len)
		return 0;
	*marker = true;
	if (host_port(l, len, (size_t)(close - l) + 2, ":", address, sizeof address))
		return cf_denials_add(list, "connect", NULL, address, "network") < 0 ? -ENOMEM : 0;
	return 0;
}

static int network_line(const cf_denial_scope *s, const char *l, size_t len, cf_denials *list,
                        bool *marker) {
	char address[300];
	const char *op;
	bool found = false;
	if (find_ci(l, len, 0, "landlock-run: network: refused (") == 0)
		return allowlist_line(s, l, len, list, marker);
	for (const char *const *m = network_messages; *m && !found; m++)
		found = find_ci(l, len, 0, *m) >= 0;
	if (!found || (!holds(s, "network", "off") && !holds(s, "network", "allowlist")) ||
	    names_a_path(l, len))
		return 0;
	*marker = true;
	if (find_address(l, len, address, sizeof address, &op))
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
	cf_denials list = { NULL, 0 };
	cf_denial_verdict v = { false, false };
	cf_denial_scope scope;
	char **areas = NULL;
	char *dir = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n_records; i++)
		r = cf_denials_add(&list, records[i].op, records[i].path, records[i].address,
		                   records[i].clause);
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
	list.items = NULL;
	list.n = 0;
out:
	cf_denials_free(&list);
	confine_strv_free(areas);
	free(dir);
	return r < 0 ? r : 0;
}
