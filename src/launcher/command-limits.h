/*
 * The command's resource limits (--rlimit NAME=N, src/common/
 * launcher-limits.h): checked while parsing, applied in the child just
 * before its exec (parent.c), so neither the launcher nor its supervisor is
 * bound by them. No allocation.
 */
#ifndef LAUNCHER_COMMAND_LIMITS_H
#define LAUNCHER_COMMAND_LIMITS_H

#include <stdbool.h>

#include "launcher-limits.h"

struct command_limits {
	unsigned n;
	int resource[LAUNCHER_RLIMIT_MAX];
	unsigned long long value[LAUNCHER_RLIMIT_MAX];
	bool ignore_sigxfsz; /* fsize given: a write past it fails with EFBIG */
};

/* Adds one NAME=N word. False when it is not one (unknown name, a number
 * that is not 1 or more, a name given twice, too many). */
bool command_limits_add(struct command_limits *limits, const char *word);

/* In the child: setrlimit for each (never above the given hard limit).
 * 0, or -errno of the first that failed. */
int command_limits_apply(const struct command_limits *limits);

#endif
