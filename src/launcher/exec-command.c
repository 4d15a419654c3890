/* SPDX-License-Identifier: MIT */
#include "exec-command.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

char **exec_command_script_argv(char *const *command)
{
	size_t n = 0;
	char **argv;

	while (command[n] != NULL)
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	if (argv == NULL)
		return NULL;
	argv[0] = (char *)"/bin/sh";
	argv[1] = command[0];
	for (size_t i = 1; i < n; i++)
		argv[i + 1] = command[i];
	return argv;
}

/* One candidate; returns with errno set. */
static void exec_file(const char *path, char *const *command, char **script_argv)
{
	execve(path, command, environ);
	if (errno == ENOEXEC && script_argv != NULL) {
		script_argv[1] = (char *)path;
		execve(script_argv[0], script_argv, environ);
		errno = ENOEXEC;
	}
}

void exec_command(char *const *command, char **script_argv)
{
	const char *file = command[0], *path, *p;
	size_t file_len = strlen(file);
	bool seen_eacces = false;
	char buf[PATH_MAX];

	if (file_len == 0) {
		errno = ENOENT;
		return;
	}
	if (strchr(file, '/') != NULL) {
		exec_file(file, command, script_argv);
		return;
	}
	if (file_len > NAME_MAX) {
		errno = ENAMETOOLONG;
		return;
	}
	path = getenv("PATH");
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t dir_len = end != NULL ? (size_t)(end - p) : strlen(p);

		if (dir_len + 1 + file_len < sizeof(buf)) {
			if (dir_len > 0) {
				memcpy(buf, p, dir_len);
				buf[dir_len] = '/';
				memcpy(buf + dir_len + 1, file, file_len + 1);
			} else {
				memcpy(buf, file, file_len + 1);
			}
			exec_file(buf, command, script_argv);
			switch (errno) {
			case EACCES:
				seen_eacces = true;
				break;
			case ENOENT:
			case ENOTDIR:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
				break;
			default:
				return;
			}
		}
		if (end == NULL)
			break;
		p = end;
	}
	if (seen_eacces)
		errno = EACCES;
}
