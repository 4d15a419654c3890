/* SPDX-License-Identifier: MIT */
/*
 * Denials with their object (doc/SPEC.md 8, 9): what the sandbox refused a
 * run, each as an operation, the path or address it was refused on, and
 * the clause that covers it. Two sources: the launcher's supervisor, which
 * knows its own refusals exactly (`denied` status records), and the run's
 * output, read line by line for the messages that name a path or an
 * address in the shapes common tools print; such a line counts only where
 * what it names lies inside what an enforced clause covers, so an ordinary
 * error (a missing file) is never a denial.
 */
#ifndef CONFINE_DENIALS_H
#define CONFINE_DENIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* A list of denials, each (op, path or address) once, at most
 * CONFINE_DENIALS_MAX. */
typedef struct cf_denials {
	confine_denial *items;
	size_t n;
	size_t dropped; /* denials found past the bound, not listed (one found
	                   twice past it counts twice) */
} cf_denials;

/* Appends a copy of (op, path or address, clause) unless an entry with the
 * same op and object is there or the list is full (then it counts in
 * `dropped`): 1 added, 0 not,
 * -EINVAL (neither or both of path and address), -ENOMEM. */
int cf_denials_add(cf_denials *d, const char *op, const char *path, const char *address,
                   const char *clause) CONFINE_HIDDEN;
void cf_denials_free(cf_denials *d) CONFINE_HIDDEN;

/* What the scan asks of the filesystem (the tests give their own). */
typedef struct cf_denial_fs {
	/* The canonical form of the absolute, lexically clean `path`: the
	 * realpath of its longest existing part, then the rest. */
	void (*canonical)(void *data, const char *path, char *out, size_t size);
	/* Whether `path` exists (lstat). */
	bool (*exists)(void *data, const char *path);
	/* Whether this user's permission bits alone (the command holds no
	 * capability) would let it do `op` ("write", "chmod", "chown",
	 * "utimes") on `path`, or create it in its directory. */
	bool (*permitted)(void *data, const char *path, const char *op);
	void *data;
} cf_denial_fs;

/* The run a scan reads the output of. */
typedef struct cf_denial_scope {
	unsigned facts;                /* the rung's CONFINE_RUNNER_FACT_* */
	const char *workdir;           /* absolute: where relative paths start */
	char *const *signatures;       /* the rung's denial dialect */
	const confine_clause *clauses; /* the run's report per clause */
	size_t n_clauses;
	char *const *writable;         /* where the run may write, canonical */
	const cf_denial_fs *fs;        /* NULL: the real filesystem */
} cf_denial_scope;

typedef struct cf_denial_verdict {
	bool file;    /* the file marker: a refused file access */
	bool network; /* the network marker: a network refusal, network off */
} cf_denial_verdict;

/*
 * Reads stderr (at any exit) and stdout (when the run exited non-zero, not
 * by a signal) line by line (doc/SPEC.md 8): appends each denial found to
 * `list` and says which markers the output calls for. Either text may be
 * NULL. 0 or -ENOMEM.
 */
int cf_denials_scan(const cf_denial_scope *scope, int exit_code, bool signaled,
                    const char *stdout_text, size_t stdout_len, const char *stderr_text,
                    size_t stderr_len, cf_denials *list, cf_denial_verdict *ret) CONFINE_HIDDEN;

/* For a run the library spawned from `confined`, in `workdir` (NULL: the
 * policy's root): the supervisor's records first, then the scan, into the
 * outcome's `denials`, `denied` and `network_denied` (its clauses and
 * output are read from `o`). 0 or -ENOMEM. */
int cf_denials_classify(const confine_argv *confined, const char *workdir,
                        const confine_denial *records, size_t n_records,
                        confine_outcome *o) CONFINE_HIDDEN;

/* classify.c's rule for one line (doc/SPEC.md 8): a denial signature where
 * it reads as a refused file access. */
bool cf_line_shows_denial(const char *line, size_t len, char *const *signatures) CONFINE_HIDDEN;

#endif
