/* SPDX-License-Identifier: MIT */
/*
 * Inside the denial scan (denials.h): what its three files share.
 *   denials.c        the list, the clauses that cover a path, one line's
 *                    verdict, the network lines, the scan, a spawned run
 *   denials-read.c   reading a line: the messages, the path or address it
 *                    names and what was tried there
 *   denials-paths.c  paths: made absolute and clean, and the real
 *                    filesystem's answers (canonical, exists, permitted)
 */
#ifndef CONFINE_DENIALS_INTERNAL_H
#define CONFINE_DENIALS_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "denials.h"

enum kind { K_ACCES, K_ROFS, K_PERM, K_BUSY, K_NOENT, K_COUNT };

/* What the text before a path says was tried. */
enum hint { H_NONE, H_READ, H_WRITE, H_CHMOD, H_CHOWN, H_UTIMES };

/* A path named on a line, and where it stands. */
struct named {
	char path[PATH_MAX];
	size_t start, end;  /* the path's span in the line */
	bool accepted;      /* it reads as a path (see find_path) */
	enum hint hint;
};

/* The strerror texts, lowercase, by kind; the network's, NULL-terminated. */
extern const char *const cf_den_file_messages[K_COUNT] CONFINE_HIDDEN;
extern const char *const cf_den_network_messages[] CONFINE_HIDDEN;
/* The real filesystem (denials-paths.c). */
extern const cf_denial_fs cf_den_real_fs CONFINE_HIDDEN;

bool cf_den_ends_error(const char *l, size_t len, size_t after) CONFINE_HIDDEN;
bool cf_den_find_address(const char *l, size_t len, char *out, size_t size, const char **op) CONFINE_HIDDEN;
long cf_den_find_ci(const char *l, size_t len, size_t from, const char *needle) CONFINE_HIDDEN;
bool cf_den_find_path(const char *l, size_t len, size_t at, size_t mlen, struct named *f) CONFINE_HIDDEN;
bool cf_den_hint_is_metadata(enum hint h) CONFINE_HIDDEN;
const char *cf_den_hint_op(enum hint h) CONFINE_HIDDEN;
bool cf_den_host_port(const char *l, size_t len, size_t i, const char *sep, char *out,
                      size_t size) CONFINE_HIDDEN;
bool cf_den_names_a_path(const char *l, size_t len) CONFINE_HIDDEN;
bool cf_den_absolute_clean(const char *dir, const char *path, char *out, size_t size) CONFINE_HIDDEN;
bool cf_den_under(const char *path, const char *root) CONFINE_HIDDEN;

#endif
