/* Parsing the launcher's command line. Messages are SPEC 7's. */
#include "args.h"

#include <string.h>

#include "channel.h"

static bool takes_value(const char *arg)
{
	return strcmp(arg, "--ro") == 0 || strcmp(arg, "--rw") == 0 ||
	       strcmp(arg, "--ro-try") == 0 || strcmp(arg, "--rw-shared") == 0 ||
	       strcmp(arg, "--ro-list") == 0 ||
	       strcmp(arg, "--allow-unix-socket") == 0 || strcmp(arg, "--status-fd") == 0 ||
	       strcmp(arg, "--proxy-allow") == 0 || strcmp(arg, "--proxy-deny") == 0 ||
	       strcmp(arg, "--proxy-hosts") == 0 || strcmp(arg, "--stage") == 0 ||
	       strcmp(arg, "--stage-root") == 0 || strcmp(arg, LAUNCHER_RLIMIT_FLAG) == 0;
}

static bool is_proxy_flag(const char *arg)
{
	return strncmp(arg, "--proxy-", 8) == 0 && strcmp(arg, "--proxy-allow-local") != 0 &&
	       strcmp(arg, "--proxy-off") != 0;
}

static bool is_grant_flag(const char *arg)
{
	return strcmp(arg, "--ro") == 0 || strcmp(arg, "--rw") == 0 ||
	       strcmp(arg, "--ro-try") == 0 || strcmp(arg, "--rw-shared") == 0 ||
	       strcmp(arg, "--ro-list") == 0;
}

/* The usage error of a valued flag given without its value. */
static enum usage_error missing_value(const char *arg)
{
	if (strcmp(arg, "--allow-unix-socket") == 0)
		return USAGE_SOCKET_REQUIRES_PATH;
	if (strcmp(arg, "--ro-try") == 0)
		return USAGE_RO_TRY_REQUIRES_PATH;
	if (strcmp(arg, "--ro-list") == 0)
		return USAGE_RO_LIST_REQUIRES_PATH;
	if (strcmp(arg, "--rw-shared") == 0)
		return USAGE_RW_SHARED_REQUIRES_PATH;
	if (strcmp(arg, "--ro") == 0)
		return USAGE_RO_REQUIRES_PATH;
	return USAGE_RW_REQUIRES_PATH;
}

/* A descriptor number: decimal, 3 or more (0-2 are the command's). */
static bool parse_descriptor(const char *text, int *ret_fd)
{
	long value = 0;
	size_t i;

	if (text[0] == '\0' || strlen(text) > 9)
		return false;
	for (i = 0; text[i] != '\0'; i++) {
		if (text[i] < '0' || text[i] > '9')
			return false;
		value = value * 10 + (text[i] - '0');
	}
	if (value < 3)
		return false;
	*ret_fd = (int)value;
	return true;
}

enum usage_error parse_arguments(int argc, char **argv, struct invocation *ret_invocation,
				 const char **bad_argument)
{
	struct invocation parsed = { .status_fd = -1, .argv = argv };
	int i = 1;

	ret_invocation->status_fd = -1;
	while (i < argc) {
		const char *arg = argv[i];

		if (strcmp(arg, "--probe") == 0) {
			if (argc != 2)
				return USAGE_PROBE_TAKES_NO_ARGUMENTS;
			parsed.probe = true;
			i++;
		} else if (strcmp(arg, "--best-effort") == 0) {
			parsed.best_effort = true;
			i++;
		} else if (strcmp(arg, "--deny-network") == 0) {
			parsed.deny_network = true;
			i++;
		} else if (strcmp(arg, "--require-supervisor") == 0) {
			parsed.require_supervisor = true;
			i++;
		} else if (strcmp(arg, "--proxy-allow-local") == 0) {
			parsed.proxy_allow_local = true;
			i++;
		} else if (strcmp(arg, "--proxy-off") == 0) {
			parsed.proxy_off = true;
			i++;
		} else if (takes_value(arg) && is_proxy_flag(arg)) {
			if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0 || argv[i + 1][0] == '\0') {
				*bad_argument = arg;
				return USAGE_PROXY_REQUIRES_VALUE;
			}
			if (strcmp(arg, "--proxy-allow") == 0)
				parsed.proxy = true;
			else if (strcmp(arg, "--proxy-hosts") == 0)
				parsed.proxy_hosts = argv[i + 1];
			i += 2;
		} else if (takes_value(arg)) {
			/* "--ro --" is a missing path, not a grant of "--". */
			bool missing = i + 1 >= argc || strcmp(argv[i + 1], "--") == 0;

			if (strcmp(arg, LAUNCHER_RLIMIT_FLAG) == 0) {
				if (missing || !command_limits_add(&parsed.limits, argv[i + 1])) {
					*bad_argument = missing ? "" : argv[i + 1];
					return USAGE_BAD_RLIMIT;
				}
			} else if (strcmp(arg, "--status-fd") == 0) {
				if (missing || !parse_descriptor(argv[i + 1], &parsed.status_fd))
					return USAGE_STATUS_FD_REQUIRES_NUMBER;
				ret_invocation->status_fd = parsed.status_fd;
			} else if (missing) {
				return strncmp(arg, "--stage", 7) == 0 ? USAGE_STAGE_REQUIRES_PATH
								       : missing_value(arg);
			}
			if (strcmp(arg, "--stage") == 0)
				parsed.stage = argv[i + 1];
			i += 2;
		} else if (strcmp(arg, "--") == 0) {
			parsed.command = &argv[i + 1];
			break;
		} else {
			*bad_argument = arg;
			return USAGE_UNKNOWN_ARGUMENT;
		}
	}
	if (!parsed.probe && (parsed.command == NULL || parsed.command[0] == NULL))
		return USAGE_MISSING_COMMAND;
	if (parsed.proxy && !parsed.deny_network)
		return USAGE_PROXY_REQUIRES_DENY_NETWORK;
	*ret_invocation = parsed;
	return USAGE_OK;
}

int report_usage_error(enum usage_error error, const char *bad_argument)
{
	switch (error) {
	case USAGE_PROBE_TAKES_NO_ARGUMENTS:
		report_failure("usage error: --probe takes no other arguments");
		break;
	case USAGE_STAGE_REQUIRES_PATH:
		report_failure("usage error: --stage and --stage-root require a path");
		break;
	case USAGE_RO_REQUIRES_PATH:
		report_failure("usage error: --ro requires a path");
		break;
	case USAGE_RW_REQUIRES_PATH:
		report_failure("usage error: --rw requires a path");
		break;
	case USAGE_RO_TRY_REQUIRES_PATH:
		report_failure("usage error: --ro-try requires a path");
		break;
	case USAGE_RO_LIST_REQUIRES_PATH:
		report_failure("usage error: --ro-list requires a path");
		break;
	case USAGE_RW_SHARED_REQUIRES_PATH:
		report_failure("usage error: --rw-shared requires a path");
		break;
	case USAGE_SOCKET_REQUIRES_PATH:
		report_failure("usage error: --allow-unix-socket requires a path");
		break;
	case USAGE_STATUS_FD_REQUIRES_NUMBER:
		report_failure("usage error: --status-fd requires a descriptor number of 3 or more");
		break;
	case USAGE_UNKNOWN_ARGUMENT:
		report_failure("usage error: unknown argument: %s", bad_argument);
		break;
	case USAGE_PROXY_REQUIRES_VALUE:
		report_failure("usage error: %s requires a value", bad_argument);
		break;
	case USAGE_PROXY_REQUIRES_DENY_NETWORK:
		report_failure("usage error: --proxy-allow requires --deny-network (the allowlist is "
			       "the network off plus the proxy)");
		break;
	case USAGE_MISSING_COMMAND:
		report_failure("usage error: missing `-- <argv>...` command");
		break;
	case USAGE_BAD_RLIMIT:
		report_failure("usage error: --rlimit requires NAME=N (nproc, as, cpu, fsize or "
			       "nofile, each once, N 1 or more): %s", bad_argument);
		break;
	case USAGE_OK:
		break;
	}
	return LAUNCHER_EXIT_FAILURE;
}

bool grant_is_optional(const struct invocation *invocation, size_t cursor)
{
	/* cursor is past the grant's value: its flag is two back */
	return cursor >= 2 && (strcmp(invocation->argv[cursor - 2], "--ro-try") == 0 ||
			       strcmp(invocation->argv[cursor - 2], "--ro-list") == 0);
}

bool grant_is_listing(const struct invocation *invocation, size_t cursor)
{
	return cursor >= 2 && strcmp(invocation->argv[cursor - 2], "--ro-list") == 0;
}

bool grant_is_shared(const struct invocation *invocation, size_t cursor)
{
	return cursor >= 2 && strcmp(invocation->argv[cursor - 2], "--rw-shared") == 0;
}

bool next_grant(const struct invocation *invocation, size_t *cursor,
		const char **ret_path, bool *ret_writable)
{
	char **argv = invocation->argv;
	size_t i = *cursor == 0 ? 1 : *cursor;

	/* Parsing accepted argv: flags, each valued one followed by its value,
	 * up to "--". */
	while (argv[i] != NULL && strcmp(argv[i], "--") != 0) {
		if (is_grant_flag(argv[i])) {
			*ret_path = argv[i + 1];
			*ret_writable = argv[i][3] == 'w'; /* --rw, --rw-shared */
			*cursor = i + 2;
			return true;
		}
		i += takes_value(argv[i]) ? 2 : 1;
	}
	*cursor = i;
	return false;
}

bool next_proxy_host(const struct invocation *invocation, size_t *cursor, bool deny,
		     const char **ret_pattern)
{
	char **argv = invocation->argv;
	size_t i = *cursor == 0 ? 1 : *cursor;
	const char *flag = deny ? "--proxy-deny" : "--proxy-allow";

	while (argv[i] != NULL && strcmp(argv[i], "--") != 0) {
		if (strcmp(argv[i], flag) == 0) {
			*ret_pattern = argv[i + 1];
			*cursor = i + 2;
			return true;
		}
		i += takes_value(argv[i]) ? 2 : 1;
	}
	*cursor = i;
	return false;
}

bool next_allowed_socket(const struct invocation *invocation, size_t *cursor,
			 const char **ret_path)
{
	char **argv = invocation->argv;
	size_t i = *cursor == 0 ? 1 : *cursor;

	while (argv[i] != NULL && strcmp(argv[i], "--") != 0) {
		if (strcmp(argv[i], "--allow-unix-socket") == 0) {
			*ret_path = argv[i + 1];
			*cursor = i + 2;
			return true;
		}
		i += takes_value(argv[i]) ? 2 : 1;
	}
	*cursor = i;
	return false;
}

bool next_stage_root(const struct invocation *invocation, size_t *cursor, const char **ret_path)
{
	char **argv = invocation->argv;
	size_t i = *cursor ? *cursor : 1;

	while (argv[i] != NULL && strcmp(argv[i], "--") != 0) {
		if (strcmp(argv[i], "--stage-root") == 0) {
			*ret_path = argv[i + 1];
			*cursor = i + 2;
			return true;
		}
		i += takes_value(argv[i]) ? 2 : 1;
	}
	*cursor = i;
	return false;
}
