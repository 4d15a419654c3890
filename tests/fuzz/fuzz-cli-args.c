/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the confine command's argument parser
 * (src/cli/args.c): the input is split on NUL bytes into argv[1..]. The
 * parser must never crash, overread or write outside `ret`, must return
 * -EINVAL exactly for a usage error (with a non-empty message, one line
 * unless an argument holds a newline: values are quoted verbatim), and
 * whatever it reports as the program's argv must be a suffix of the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	char *argv[MAX_ARGS + 2];
	int argc = 1;
	size_t begin = 0;
	cli_args args;
	int r;

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = (char *)"confine";
	for (size_t i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (i == size || copy[i] == '\0') {
			if (i > begin || i < size)
				argv[argc++] = copy + begin;
			begin = i + 1;
		}
	}
	argv[argc] = NULL;

	memset(&args, 0xA5, sizeof(args));
	r = cli_args_parse(argc, argv, &args);
	if (r != 0 && r != -EINVAL)
		abort();
	if ((r == -EINVAL) != (args.action == CLI_ACTION_USAGE_ERROR))
		abort();
	if (args.action == CLI_ACTION_USAGE_ERROR) {
		size_t n = strnlen(args.error, sizeof(args.error));

		if (n == 0 || n == sizeof(args.error))
			abort();
		/* One line, unless the message quotes an argument that itself
		 * holds a newline (the parser quotes values verbatim today). */
		if (memchr(args.error, '\n', n) != NULL && memchr(data, '\n', size) == NULL)
			abort();
	}
	if (args.action == CLI_ACTION_EXECUTE && args.program_argv != NULL) {
		/* The program's argv points into ours and ends with NULL. */
		if (args.program_argc == 0 || args.program_argv[args.program_argc] != NULL)
			abort();
		if (args.program_argv < argv || args.program_argv + args.program_argc > argv + argc)
			abort();
	}
	if (args.action == CLI_ACTION_EXECUTE && args.has_mode &&
	    confine_mode_name(args.mode) == NULL)
		abort();
	(void)cli_help_text(args.command);
	(void)cli_help_hint(args.command);
	cli_args_clear(&args);
	free(copy);
	return 0;
}
