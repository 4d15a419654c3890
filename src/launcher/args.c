/* Parsing the launcher's command line. The words and bounds are the shared
 * contract's (src/common/launcher-args.h); the messages are SPEC 7's. */
#include "args.h"

#include <string.h>

#include "channel.h"
#include "launcher-args.h"

static bool takes_value(const char *arg)
{
	enum launcher_flag flag = launcher_flag_lookup(arg);

	return flag != LAUNCHER_FLAG_UNKNOWN && launcher_flag_def(flag)->takes_value;
}

static bool is_proxy_value_flag(enum launcher_flag flag)
{
	return flag == LAUNCHER_FLAG_PROXY_ALLOW || flag == LAUNCHER_FLAG_PROXY_DENY ||
	       flag == LAUNCHER_FLAG_PROXY_HOSTS;
}

/* The usage error of a valued flag given without its value. */
static enum usage_error missing_value(enum launcher_flag flag)
{
	if (flag == LAUNCHER_FLAG_ALLOW_UNIX_SOCKET)
		return USAGE_SOCKET_REQUIRES_PATH;
	if (flag == LAUNCHER_FLAG_STAGE || flag == LAUNCHER_FLAG_STAGE_ROOT)
		return USAGE_STAGE_REQUIRES_PATH;
	if (flag == LAUNCHER_FLAG_RO_TRY)
		return USAGE_RO_TRY_REQUIRES_PATH;
	if (flag == LAUNCHER_FLAG_RO_LIST)
		return USAGE_RO_LIST_REQUIRES_PATH;
	if (flag == LAUNCHER_FLAG_RW_SHARED)
		return USAGE_RW_SHARED_REQUIRES_PATH;
	if (flag == LAUNCHER_FLAG_RO)
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

/* --starter PID: decimal, 1 to 2^31 - 1 (at most 10 digits). */
static bool parse_pid(const char *text, int *ret_pid)
{
	long long value = 0;
	size_t i;

	if (text[0] == '\0' || strlen(text) > 10)
		return false;
	for (i = 0; text[i] != '\0'; i++) {
		if (text[i] < '0' || text[i] > '9')
			return false;
		value = value * 10 + (text[i] - '0');
	}
	if (value < 1 || value > 2147483647LL)
		return false;
	*ret_pid = (int)value;
	return true;
}

/* --temp-size BYTES:PATH: decimal bytes within the bounds, then an
 * absolute path. */
static bool parse_temp_size(const char *text, struct invocation *parsed)
{
	unsigned long long value = 0;
	const char *p;

	for (p = text; *p >= '0' && *p <= '9'; p++) {
		if (value > LAUNCHER_TEMP_SIZE_MAX)
			return false;
		value = value * 10 + (unsigned long long)(*p - '0');
	}
	if (p == text || *p != ':' || p[1] != '/' || value < LAUNCHER_TEMP_SIZE_MIN ||
	    value > LAUNCHER_TEMP_SIZE_MAX || strlen(p + 1) > LAUNCHER_PATH_LENGTH_MAX)
		return false;
	parsed->temp_size = value;
	parsed->temp_path = p + 1;
	return true;
}

/* Counts one more use of a bounded flag; false past its bound (the
 * writable grants share one: the supervisor holds them in one table). */
static bool within_bound(enum launcher_flag flag, size_t counts[LAUNCHER_FLAG_COUNT])
{
	size_t max = launcher_flag_def(flag)->max_count;

	if (launcher_flag_is_writable(flag))
		return ++counts[LAUNCHER_FLAG_RW] <= LAUNCHER_WRITABLE_MAX;
	return max == 0 || ++counts[flag] <= max;
}

enum usage_error parse_arguments(int argc, char **argv, struct invocation *ret_invocation,
				 const char **bad_argument)
{
	struct invocation parsed = { .status_fd = -1, .ask_fd = -1, .argv = argv };
	size_t counts[LAUNCHER_FLAG_COUNT] = { 0 };
	int i = 1;

	ret_invocation->status_fd = -1;
	while (i < argc) {
		const char *arg = argv[i];
		enum launcher_flag flag = launcher_flag_lookup(arg);

		if (strcmp(arg, LAUNCHER_ARG_END) == 0) {
			parsed.command = &argv[i + 1];
			break;
		}
		if (flag == LAUNCHER_FLAG_UNKNOWN) {
			*bad_argument = arg;
			return USAGE_UNKNOWN_ARGUMENT;
		}
		if (!within_bound(flag, counts)) {
			*bad_argument = arg;
			return USAGE_TOO_MANY;
		}
		if (flag == LAUNCHER_FLAG_PROBE) {
			if (argc != 2)
				return USAGE_PROBE_TAKES_NO_ARGUMENTS;
			parsed.probe = true;
		}
		parsed.best_effort |= flag == LAUNCHER_FLAG_BEST_EFFORT;
		parsed.deny_network |= flag == LAUNCHER_FLAG_DENY_NETWORK;
		parsed.require_supervisor |= flag == LAUNCHER_FLAG_REQUIRE_SUPERVISOR;
		parsed.proxy_allow_local |= flag == LAUNCHER_FLAG_PROXY_ALLOW_LOCAL;
		parsed.proxy_off |= flag == LAUNCHER_FLAG_PROXY_OFF;
		parsed.private_shm |= flag == LAUNCHER_FLAG_PRIVATE_SHM;
		if (!launcher_flag_def(flag)->takes_value) {
			i++;
			continue;
		}
		if (is_proxy_value_flag(flag)) {
			if (i + 1 >= argc || strcmp(argv[i + 1], LAUNCHER_ARG_END) == 0 ||
			    argv[i + 1][0] == '\0') {
				*bad_argument = arg;
				return USAGE_PROXY_REQUIRES_VALUE;
			}
			if (flag == LAUNCHER_FLAG_PROXY_ALLOW)
				parsed.proxy = true;
			else if (flag == LAUNCHER_FLAG_PROXY_HOSTS)
				parsed.proxy_hosts = argv[i + 1];
		} else {
			/* "--ro --" is a missing path, not a grant of "--". */
			bool missing = i + 1 >= argc || strcmp(argv[i + 1], LAUNCHER_ARG_END) == 0;

			if (flag == LAUNCHER_FLAG_RLIMIT) {
				if (missing || !command_limits_add(&parsed.limits, argv[i + 1])) {
					*bad_argument = missing ? "" : argv[i + 1];
					return USAGE_BAD_RLIMIT;
				}
			} else if (flag == LAUNCHER_FLAG_TEMP_SIZE) {
				if (missing || !parse_temp_size(argv[i + 1], &parsed)) {
					*bad_argument = missing ? "" : argv[i + 1];
					return USAGE_BAD_TEMP_SIZE;
				}
			} else if (flag == LAUNCHER_FLAG_IDENTITY) {
				unsigned long long dev, ino;
				const char *path;

				if (missing ||
				    !launcher_identity_parse(argv[i + 1], &dev, &ino, &path)) {
					*bad_argument = missing ? "" : argv[i + 1];
					return USAGE_BAD_IDENTITY;
				}
			} else if (flag == LAUNCHER_FLAG_STARTER) {
				if (missing || !parse_pid(argv[i + 1], &parsed.starter)) {
					*bad_argument = missing ? "" : argv[i + 1];
					return USAGE_BAD_STARTER;
				}
			} else if (flag == LAUNCHER_FLAG_STATUS_FD) {
				if (missing || !parse_descriptor(argv[i + 1], &parsed.status_fd))
					return USAGE_STATUS_FD_REQUIRES_NUMBER;
				ret_invocation->status_fd = parsed.status_fd;
			} else if (flag == LAUNCHER_FLAG_ASK_FD) {
				if (missing || !parse_descriptor(argv[i + 1], &parsed.ask_fd))
					return USAGE_ASK_FD_REQUIRES_NUMBER;
				parsed.proxy = true;
			} else if (missing) {
				return missing_value(flag);
			}
			if (flag == LAUNCHER_FLAG_STAGE)
				parsed.stage = argv[i + 1];
		}
		i += 2;
	}
	if (!parsed.probe && (parsed.command == NULL || parsed.command[0] == NULL))
		return USAGE_MISSING_COMMAND;
	if (parsed.proxy && !parsed.deny_network)
		return USAGE_PROXY_REQUIRES_DENY_NETWORK;
	if (parsed.private_shm && parsed.temp_path == NULL)
		return USAGE_PRIVATE_SHM_REQUIRES_TEMP_SIZE;
	*ret_invocation = parsed;
	return USAGE_OK;
}

int report_usage_error(enum usage_error error, const char *bad_argument)
{
	switch (error) {
	case USAGE_PROBE_TAKES_NO_ARGUMENTS:
		report_failure("usage error: --probe takes no other arguments");
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
	case USAGE_ASK_FD_REQUIRES_NUMBER:
		report_failure("usage error: --ask-fd requires a descriptor number of 3 or more");
		break;
	case USAGE_UNKNOWN_ARGUMENT:
		report_failure("usage error: unknown argument: %s", bad_argument);
		break;
	case USAGE_TOO_MANY:
		if (launcher_flag_is_writable(launcher_flag_lookup(bad_argument)))
			report_failure("usage error: more than %d writable grants (" LAUNCHER_ARG_RW
				       ", " LAUNCHER_ARG_RW_SHARED ")", LAUNCHER_WRITABLE_MAX);
		else
			report_failure("usage error: more than %zu %s values", launcher_flag_def(
				       launcher_flag_lookup(bad_argument))->max_count, bad_argument);
		break;
	case USAGE_STAGE_REQUIRES_PATH:
		report_failure("usage error: --stage and --stage-root require a path");
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
	case USAGE_BAD_TEMP_SIZE:
		report_failure("usage error: --temp-size requires BYTES:PATH (BYTES %llu to %llu, "
			       "PATH absolute): %s", LAUNCHER_TEMP_SIZE_MIN, LAUNCHER_TEMP_SIZE_MAX,
			       bad_argument);
		break;
	case USAGE_PRIVATE_SHM_REQUIRES_TEMP_SIZE:
		report_failure("usage error: %s requires %s", LAUNCHER_ARG_PRIVATE_SHM,
			       LAUNCHER_ARG_TEMP_SIZE);
		break;
	case USAGE_BAD_IDENTITY:
		report_failure("usage error: --identity requires DEV:INO:PATH (decimal numbers, "
			       "PATH absolute): %s", bad_argument);
		break;
	case USAGE_BAD_STARTER:
		report_failure("usage error: --starter requires a process id (decimal, 1 or more): %s",
			       bad_argument);
		break;
	case USAGE_OK:
		break;
	}
	return LAUNCHER_EXIT_FAILURE;
}

bool grant_is_optional(const struct invocation *invocation, size_t cursor)
{
	/* cursor is past the grant's value: its flag is two back */
	return cursor >= 2 && (strcmp(invocation->argv[cursor - 2], LAUNCHER_ARG_RO_TRY) == 0 ||
			       strcmp(invocation->argv[cursor - 2], LAUNCHER_ARG_RO_LIST) == 0);
}

bool grant_is_listing(const struct invocation *invocation, size_t cursor)
{
	return cursor >= 2 && strcmp(invocation->argv[cursor - 2], LAUNCHER_ARG_RO_LIST) == 0;
}

bool grant_is_shared(const struct invocation *invocation, size_t cursor)
{
	return cursor >= 2 && strcmp(invocation->argv[cursor - 2], LAUNCHER_ARG_RW_SHARED) == 0;
}

bool next_grant(const struct invocation *invocation, size_t *cursor,
		const char **ret_path, bool *ret_writable)
{
	char **argv = invocation->argv;
	size_t i = *cursor == 0 ? 1 : *cursor;

	/* Parsing accepted argv: flags, each valued one followed by its value,
	 * up to "--". */
	while (argv[i] != NULL && strcmp(argv[i], LAUNCHER_ARG_END) != 0) {
		enum launcher_flag flag = launcher_flag_lookup(argv[i]);

		if (launcher_flag_is_grant(flag)) {
			*ret_path = argv[i + 1];
			*ret_writable = launcher_flag_is_writable(flag);
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
	const char *flag = deny ? LAUNCHER_ARG_PROXY_DENY : LAUNCHER_ARG_PROXY_ALLOW;

	while (argv[i] != NULL && strcmp(argv[i], LAUNCHER_ARG_END) != 0) {
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

	while (argv[i] != NULL && strcmp(argv[i], LAUNCHER_ARG_END) != 0) {
		if (strcmp(argv[i], LAUNCHER_ARG_ALLOW_UNIX_SOCKET) == 0) {
			*ret_path = argv[i + 1];
			*cursor = i + 2;
			return true;
		}
		i += takes_value(argv[i]) ? 2 : 1;
	}
	*cursor = i;
	return false;
}

bool next_identity(const struct invocation *invocation, size_t *cursor, const char **ret_path,
		   unsigned long long *ret_dev, unsigned long long *ret_ino)
{
	char **argv = invocation->argv;
	size_t i = *cursor ? *cursor : 1;

	while (argv[i] != NULL && strcmp(argv[i], LAUNCHER_ARG_END) != 0) {
		if (strcmp(argv[i], LAUNCHER_ARG_IDENTITY) == 0 &&
		    launcher_identity_parse(argv[i + 1], ret_dev, ret_ino, ret_path)) {
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

	while (argv[i] != NULL && strcmp(argv[i], LAUNCHER_ARG_END) != 0) {
		if (strcmp(argv[i], LAUNCHER_ARG_STAGE_ROOT) == 0) {
			*ret_path = argv[i + 1];
			*cursor = i + 2;
			return true;
		}
		i += takes_value(argv[i]) ? 2 : 1;
	}
	*cursor = i;
	return false;
}
