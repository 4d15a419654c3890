/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the confine command's configuration reader
 * (src/cli/config-file.c): the input is the file's bytes, served through a
 * memfd so the reader's own open/read path is exercised. It must never
 * crash or leak, must answer 0 or a negative errno, and on failure must
 * leave one non-empty line naming the file; on success every string it
 * returns is a valid C string and the mode, when present, is a real mode.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	char errbuf[1024];
	cli_config config;
	int fd, r;

	fd = memfd_create("confine-fuzz-config", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	memset(errbuf, 0, sizeof(errbuf));
	r = cli_config_load(path, &config, errbuf, sizeof(errbuf));
	if (r > 0)
		abort();
	if (r < 0) {
		size_t n = strnlen(errbuf, sizeof(errbuf));

		if (n == 0 || n == sizeof(errbuf) || strstr(errbuf, path) == NULL)
			abort(); /* one line naming the file */
	} else {
		if (config.has_mode && confine_mode_name(config.mode) == NULL)
			abort();
		if (config.workspace_root != NULL)
			(void)strlen(config.workspace_root);
		for (char **s = config.runner_command; s != NULL && *s != NULL; s++)
			(void)strlen(*s);
		for (char **s = config.runner_failure_signatures; s != NULL && *s != NULL; s++)
			(void)strlen(*s);
		cli_config_clear(&config);
	}
	close(fd);
	return 0;
}
