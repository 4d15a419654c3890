/* SPDX-License-Identifier: MIT */
/* Reading a line for a denial (denials-internal.h, denials.c says how). */
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

/* ---- text helpers -------------------------------------------------------- */

/* Case-insensitive (ASCII) search of `needle` in l[from..len); the index,
 * or -1. */
long cf_den_find_ci(const char *l, size_t len, size_t from, const char *needle) {
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
	while ((at = cf_den_find_ci(t, len, from, stem)) >= 0) {
		if (at == 0 || !isalpha((unsigned char)t[at - 1]))
			return true;
		from = (size_t)at + 1;
	}
	return false;
}

/* ---- the file messages --------------------------------------------------- */


const char *const cf_den_file_messages[K_COUNT] = {
	"permission denied", "read-only file system", "operation not permitted",
	"device or resource busy", "no such file or directory",
};


const char *cf_den_hint_op(enum hint h) {
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

bool cf_den_hint_is_metadata(enum hint h) {
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
bool cf_den_ends_error(const char *l, size_t len, size_t after) {
	if (after >= len)
		return true;
	if (strchr(":,;.", l[after]))
		return true;
	return cf_den_find_ci(l, len, after, " (os error") == (long)after;
}


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
bool cf_den_find_path(const char *l, size_t len, size_t at, size_t mlen, struct named *f) {
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

/* ---- the network --------------------------------------------------------- */

const char *const cf_den_network_messages[] = {
	"connection refused", "network is unreachable", "couldn't connect to server",
	"could not resolve host", "temporary failure in name resolution", NULL,
};

static bool host_char(char c) {
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' || c == ':' ||
	       c == '[' || c == ']' || c == '%';
}

/* "<host>", then `sep`, then a port, from l[i..]: into out as host:port
 * ("[v6]:port"). Before ":" a host holds no colon unless bracketed. */
bool cf_den_host_port(const char *l, size_t len, size_t i, const char *sep, char *out,
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
bool cf_den_find_address(const char *l, size_t len, char *out, size_t size, const char **op) {
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
		while ((at = cf_den_find_ci(l, len, from, shapes[i].lead)) >= 0) {
			if (cf_den_host_port(l, len, (size_t)at + strlen(shapes[i].lead), shapes[i].sep, out, size))
				return true;
			from = (size_t)at + 1;
		}
	}
	if ((at = cf_den_find_ci(l, len, 0, "could not resolve host: ")) >= 0) {
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
bool cf_den_names_a_path(const char *l, size_t len) {
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
