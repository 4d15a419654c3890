/* The command's resource limits (command-limits.h). */
#include "command-limits.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

static const struct {
	const char *name;
	int resource;
} names[] = {
	{ LAUNCHER_RLIMIT_NPROC, RLIMIT_NPROC },   { LAUNCHER_RLIMIT_AS, RLIMIT_AS },
	{ LAUNCHER_RLIMIT_CPU, RLIMIT_CPU },       { LAUNCHER_RLIMIT_FSIZE, RLIMIT_FSIZE },
	{ LAUNCHER_RLIMIT_NOFILE, RLIMIT_NOFILE },
};

bool command_limits_add(struct command_limits *limits, const char *word)
{
	const char *equals = strchr(word, '=');
	unsigned long long value = 0;
	const char *p;
	size_t i, k;

	if (equals == NULL || equals[1] == '\0' || limits->n >= LAUNCHER_RLIMIT_MAX)
		return false;
	for (p = equals + 1; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || value > (1ULL << 60))
			return false;
		value = value * 10 + (unsigned long long)(*p - '0');
	}
	if (value == 0)
		return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) != (size_t)(equals - word) ||
		    strncmp(names[i].name, word, (size_t)(equals - word)) != 0)
			continue;
		for (k = 0; k < limits->n; k++)
			if (limits->resource[k] == names[i].resource)
				return false;
		limits->resource[limits->n] = names[i].resource;
		limits->value[limits->n] = value;
		limits->n++;
		if (names[i].resource == RLIMIT_FSIZE)
			limits->ignore_sigxfsz = true;
		return true;
	}
	return false;
}

int command_limits_apply(const struct command_limits *limits)
{
	struct sigaction ignore;
	unsigned i;

	for (i = 0; i < limits->n; i++) {
		struct rlimit given, wanted;
		rlim_t value = (rlim_t)limits->value[i];

		if (getrlimit(limits->resource[i], &given) != 0)
			return -errno;
		wanted.rlim_cur = value;
		/* CPU: SIGXCPU at the bound, SIGKILL a second later. */
		wanted.rlim_max = limits->resource[i] == RLIMIT_CPU ? value + 1 : value;
		/* Capabilities are gone: a limit is only ever lowered. */
		if (given.rlim_max != RLIM_INFINITY && wanted.rlim_max > given.rlim_max)
			wanted.rlim_max = given.rlim_max;
		if (wanted.rlim_cur > wanted.rlim_max)
			wanted.rlim_cur = wanted.rlim_max;
		if (setrlimit(limits->resource[i], &wanted) != 0)
			return -errno;
	}
	if (limits->ignore_sigxfsz) {
		memset(&ignore, 0, sizeof(ignore));
		ignore.sa_handler = SIG_IGN;
		sigemptyset(&ignore.sa_mask);
		if (sigaction(SIGXFSZ, &ignore, NULL) != 0)
			return -errno;
	}
	return 0;
}
