/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the confine command's configuration reader
 * (src/cli/config-file.c): the input is the file's bytes, served through a
 * memfd (a temp file rewritten per input where there is none: macOS) so
 * the reader's own open/read path is exercised. It must never
 * crash or leak, must answer 0 or a negative errno, and on failure must
 * leave one non-empty line naming the file; on success every string it
 * returns is a valid C string and the mode, when present, is a real mode.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "config-file.h"

#if !HAVE_MEMFD_CREATE
static char temp_path[4096];

static void remove_temp(void)
{
	unlink(temp_path);
}

/* One temp file for the whole run, emptied and refilled per input. */
static int temp_file(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		const char *dir = getenv("TMPDIR");

		snprintf(temp_path, sizeof(temp_path), "%s/confine-fuzz-config-XXXXXX",
		         dir && *dir ? dir : "/tmp");
		fd = mkstemp(temp_path);
		if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			abort();
		atexit(remove_temp);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	if (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return fd;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4096];
	char errbuf[1024];
	cli_config config;
	int r;
#if HAVE_MEMFD_CREATE
	int fd;
#endif

#if HAVE_MEMFD_CREATE
	fd = memfd_create("confine-fuzz-config", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
#else
	(void)temp_file(data, size);
	snprintf(path, sizeof(path), "%s", temp_path);
#endif

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
#if HAVE_MEMFD_CREATE
	close(fd);
#endif
	return 0;
}
