/* SPDX-License-Identifier: MIT */
/*
 * cf_realpath (src/lib/canonical.c, issue 33) gives realpath(3)'s answer
 * for every shape of path the plans resolve: canonical and existing,
 * missing at the end or in the middle, a file used as a directory, a
 * symlink in the middle or at the end, "." and ".." components, a double
 * slash. Each case is compared with realpath itself.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "canonical.h"

static char base[PATH_MAX];

static void same_as_realpath(const char *suffix) {
	char path[PATH_MAX + 64];
	char *want, *got;
	int want_errno, got_errno;
	snprintf(path, sizeof path, "%s%s", base, suffix);
	errno = 0;
	want = realpath(path, NULL);
	want_errno = errno;
	errno = 0;
	got = cf_realpath(path);
	got_errno = errno;
	if (want) {
		assert_non_null(got);
		assert_string_equal(got, want);
	} else {
		assert_null(got);
		assert_int_equal(got_errno, want_errno);
	}
	free(want);
	free(got);
}

static void test_same_answers(void **state) {
	static const char *const cases[] = {
		"", "/dir", "/dir/file", "/missing", "/missing/deeper", "/dir/missing",
		"/dir/file/below", "/link", "/link/file", "/link/missing", "/dangling",
		"/dangling/x", "/dir/.", "/dir/..", "/dir/../dir/file", "//dir", "/dir/",
		"/missing/../dir",
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		same_as_realpath(cases[i]);
}

static void test_proves_only_canonical(void **state) {
	char path[PATH_MAX + 64];
	(void)state;
	snprintf(path, sizeof path, "%s/dir/file", base);
	/* Without openat2 (not built in, or valgrind answering ENOSYS) nothing
	 * is proved, not even "/": the answer is realpath's, and only the
	 * refusals below are checked. */
	if (cf_canonical_fast("/"))
		assert_true(cf_canonical_fast(path));
	else
		assert_false(cf_canonical_fast(path));
	snprintf(path, sizeof path, "%s/link/file", base);
	assert_false(cf_canonical_fast(path)); /* resolves, but not to itself */
	snprintf(path, sizeof path, "%s/dir/../dir", base);
	assert_false(cf_canonical_fast(path));
	snprintf(path, sizeof path, "%s/missing", base);
	assert_false(cf_canonical_fast(path));
}

static int setup(void **state) {
	char tmpl[] = "/tmp/confine-canonical.XXXXXX", path[PATH_MAX + 64];
	char *real, *made = mkdtemp(tmpl);
	FILE *f;
	(void)state;
	if (!made || !(real = realpath(made, NULL)))
		return -1;
	snprintf(base, sizeof base, "%s", real);
	free(real);
	snprintf(path, sizeof path, "%s/dir", base);
	if (mkdir(path, 0700) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/dir/file", base);
	if (!(f = fopen(path, "w")))
		return -1;
	fclose(f);
	snprintf(path, sizeof path, "%s/link", base);
	if (symlink("dir", path) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/dangling", base);
	return symlink("nowhere", path) < 0 ? -1 : 0;
}

static int teardown(void **state) {
	static const char *const names[] = { "/dir/file", "/link", "/dangling" };
	char path[PATH_MAX + 64];
	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s%s", base, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/dir", base);
	rmdir(path);
	rmdir(base);
	return 0;
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_answers),
		cmocka_unit_test(test_proves_only_canonical),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
