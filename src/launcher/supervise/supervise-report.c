/* The supervisor's refusals, told (supervise-report.h). */
#include "supervise-report.h"

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "launcher-protocol.h"

static supervise_reporter reporter;

void supervise_set_reporter(supervise_reporter fn)
{
	reporter = fn;
}

int sv_refuse(const char *clause, const char *op, const struct sv_target *target, int error)
{
	char link[64];
	char path[PATH_MAX + 1];
	ssize_t n;

	if (reporter == NULL || target == NULL || target->fd < 0)
		return error;
	/* The pinned descriptor's name: what was decided on, not what the
	 * command's memory says now. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", target->fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1 || path[0] != '/')
		return error;
	path[n] = '\0';
	reporter(clause, op, path);
	return error;
}

void sv_tell(const char *line)
{
	char text[512];
	int n = snprintf(text, sizeof(text), LAUNCHER_PREFIX "%s\n", line);

	if (n > 0 && (size_t)n < sizeof(text) && write(STDERR_FILENO, text, (size_t)n) < 0) {
		/* informational: the refusal stands */
	}
}
