/* SPDX-License-Identifier: MIT */
/* `confine fs`: the harness's own file operations under the policy a run
 * would get (doc/SPEC.md 19), over confine_fs_*. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "output.h"
#include "policy-json.h"

/* Exit status of an operation the policy or the filesystem refused: an
 * answer, not a failure of confine (125). */
#define CLI_EXIT_REFUSED 1

static int refused(const confine_error *err) {
	if (err->code != CONFINE_E_DENIED && err->code != CONFINE_E_FS)
		return cli_fail(CLI_EXIT_FAILURE, err->code, err->message, NULL);
	return cli_fail(CLI_EXIT_REFUSED, err->code, err->message, NULL);
}

/* All of stdin, for write and append. */
static int read_stdin(char **ret, size_t *ret_len) {
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;
		if (len == cap) {
			char *grown = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
			cap *= 2;
		}
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* After a write: what git would run later that it left (doc/SPEC.md 19),
 * as `confine: warning:` lines and, with --json, {"gitHazards": [...]}. */
static int done_write(const cli_args *a, confine_fs *fs) {
	confine_git_hazard *h = NULL;
	size_t n = 0;
	confine_error err = { 0 };
	if (confine_fs_git_hazards(fs, &h, &n, &err) < 0)
		return cli_fail(CLI_EXIT_FAILURE, err.code, err.message, NULL);
	cli_warn_git_hazards("the file operation", h, n);
	if (a->json) {
		json_t *object = json_object();
		json_object_set_new(object, "gitHazards", cli_git_hazards_json(h, n));
		if (cli_emit_json(object) < 0) {
			confine_git_hazards_free(h, n);
			return CLI_EXIT_FAILURE;
		}
	}
	confine_git_hazards_free(h, n);
	return 0;
}

static int do_list(cli_context *ctx, confine_fs *fs, const char *path) {
	confine_fs_entry *e = NULL;
	size_t n = 0;
	confine_error err = { 0 };
	if (confine_fs_list(fs, path, &e, &n, &err) < 0)
		return refused(&err);
	if (ctx->args->json) {
		json_t *object = json_object(), *entries = json_array();
		char type[2] = { 0, 0 };
		for (size_t i = 0; object && entries && i < n; i++) {
			json_t *item = json_object();
			type[0] = (char)e[i].type;
			json_object_set_new(item, "name", cli_json_string_lossy(e[i].name, strlen(e[i].name)));
			json_object_set_new(item, "type", json_string(type));
			json_array_append_new(entries, item);
		}
		json_object_set_new(object, "entries", entries);
		confine_fs_entries_free(e, n);
		return cli_emit_json(object) < 0 ? CLI_EXIT_FAILURE : 0;
	}
	for (size_t i = 0; i < n; i++)
		printf("%c %s\n", (char)e[i].type, e[i].name);
	confine_fs_entries_free(e, n);
	return fflush(stdout) == EOF ? CLI_EXIT_FAILURE : 0;
}

static int do_stat(cli_context *ctx, confine_fs *fs, const char *path) {
	confine_fs_info info;
	confine_error err = { 0 };
	if (confine_fs_stat(fs, path, &info, &err) < 0)
		return refused(&err);
	if (ctx->args->json) {
		json_t *object = json_object();
		char type[2] = { (char)info.type, 0 };
		json_object_set_new(object, "type", json_string(type));
		json_object_set_new(object, "size", json_integer((json_int_t)info.size));
		json_object_set_new(object, "mode", json_integer((json_int_t)info.mode));
		json_object_set_new(object, "nlink", json_integer((json_int_t)info.nlink));
		json_object_set_new(object, "mtime",
		                    json_real((double)info.mtime_sec + (double)info.mtime_nsec / 1e9));
		return cli_emit_json(object) < 0 ? CLI_EXIT_FAILURE : 0;
	}
	printf("%c %llu %04o %u %lld.%09ld\n", (char)info.type, (unsigned long long)info.size,
	       info.mode, info.nlink, (long long)info.mtime_sec, info.mtime_nsec);
	return fflush(stdout) == EOF ? CLI_EXIT_FAILURE : 0;
}

/* The file to stdout in chunks (issue 28.6: a 3 GB file was held whole),
 * at most `max` bytes with `bounded`; the cut said on stderr. */
static int stream_file(int fd, const char *path, bool bounded, uint64_t max) {
	static char chunk[1 << 16];
	uint64_t written = 0;
	struct stat st;
	for (;;) {
		size_t want = sizeof chunk;
		ssize_t n;
		if (bounded && max - written < want)
			want = (size_t)(max - written);
		if (want == 0)
			break;
		n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "confine: read \"%s\": %s\n", path, strerror(errno));
			return CLI_EXIT_FAILURE;
		}
		if (n == 0)
			break;
		if (fwrite(chunk, 1, (size_t)n, stdout) != (size_t)n)
			return CLI_EXIT_FAILURE;
		written += (uint64_t)n;
	}
	if (fflush(stdout) == EOF)
		return CLI_EXIT_FAILURE;
	if (bounded && written == max && fstat(fd, &st) == 0 && (uint64_t)st.st_size > written)
		fprintf(stderr, "confine: read \"%s\": cut at %llu bytes (--max-bytes)\n", path,
		        (unsigned long long)written);
	return 0;
}

int cli_command_fs(cli_context *ctx) {
	const cli_args *a = ctx->args;
	const char *op = a->fs_op, *path = a->fs_paths[0];
	confine_fs *fs = NULL;
	confine_error err = { 0 };
	int status = 0, r = 0;

	if (confine_fs_open(ctx->policy, &fs, &err) < 0)
		return cli_report_error(ctx, &err);
	if (strcmp(op, "read") == 0) {
		int fd = -1;
		if ((r = confine_fs_open_read(fs, path, &fd, &err)) == 0) {
			status = stream_file(fd, path, a->has_max_bytes, (uint64_t)a->max_bytes);
			close(fd);
		}
	} else if (strcmp(op, "write") == 0 || strcmp(op, "append") == 0) {
		char *data = NULL;
		size_t len = 0;
		if ((r = read_stdin(&data, &len)) < 0) {
			confine_fs_free(fs);
			return cli_report(ctx, CONFINE_E_SYSTEM, "cannot read standard input: %s",
			                  strerror(-r));
		}
		r = op[0] == 'w' ? confine_fs_write(fs, path, data, len, &err)
		                 : confine_fs_append(fs, path, data, len, &err);
		free(data);
		if (r == 0)
			status = done_write(a, fs);
	} else if (strcmp(op, "list") == 0) {
		status = do_list(ctx, fs, path);
	} else if (strcmp(op, "stat") == 0) {
		status = do_stat(ctx, fs, path);
	} else if (strcmp(op, "mkdir") == 0) {
		if ((r = confine_fs_mkdir(fs, path, &err)) == 0)
			status = done_write(a, fs);
	} else if (strcmp(op, "remove") == 0) {
		if ((r = confine_fs_remove(fs, path, &err)) == 0)
			status = done_write(a, fs);
	} else if (strcmp(op, "rename") == 0) {
		if ((r = confine_fs_rename(fs, path, a->fs_paths[1], &err)) == 0)
			status = done_write(a, fs);
	}
	confine_fs_free(fs);
	if (r < 0)
		return refused(&err);
	return status;
}
