/* SPDX-License-Identifier: MIT */
/* The launcher the library carries (SPEC 14): one sealed, close-on-exec
 * memfd per process holding exactly the build's stripped launcher, which
 * nobody can write and which runs. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rungs/launcher-image.h"
#include "testlib.h"

#ifndef F_GET_SEALS
#define F_GET_SEALS 1034
#endif

static void test_one_descriptor_per_process(void **state) {
	int fd = cf_launcher_image_fd();
	(void)state;
	assert_true(cf_launcher_image_available());
	assert_true(fd > 2);
	assert_int_equal(cf_launcher_image_fd(), fd);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
}

static void test_sealed_against_every_change(void **state) {
	int fd = cf_launcher_image_fd();
	int seals = fcntl(fd, F_GET_SEALS);
	(void)state;
	assert_true(seals >= 0);
	assert_true(seals & F_SEAL_SEAL);
	assert_true(seals & F_SEAL_WRITE);
	assert_true(seals & F_SEAL_SHRINK);
	assert_true(seals & F_SEAL_GROW);
	/* and the seals hold: the library's own descriptor is read-only, and
	 * a writable reopen (as anyone holding the descriptor could try)
	 * cannot change a byte or the size */
	assert_int_equal(pwrite(fd, "x", 1, 0), -1);
	{
		char path[64];
		int rw;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		rw = open(path, O_RDWR | O_CLOEXEC);
		if (rw >= 0) {
			assert_int_equal(pwrite(rw, "x", 1, 0), -1);
			assert_int_equal(errno, EPERM);
			assert_int_equal(ftruncate(rw, 1), -1);
			assert_int_equal(errno, EPERM);
			close(rw);
		}
	}
}

static void test_holds_the_built_launcher(void **state) {
	const char *image = CONFINE_TEST_BUILD_ROOT "/src/launcher/landlock-run.image";
	int fd = cf_launcher_image_fd();
	int disk = open(image, O_RDONLY | O_CLOEXEC);
	off_t off = 0;
	(void)state;
	assert_true(disk >= 0);
	for (;;) {
		char a[65536], b[65536];
		ssize_t n = pread(fd, a, sizeof a, off);
		ssize_t m = read(disk, b, sizeof b);
		assert_true(n >= 0 && m >= 0);
		assert_int_equal(n, m);
		if (n == 0)
			break;
		assert_memory_equal(a, b, (size_t)n);
		off += n;
	}
	assert_true(off > 4096);
	close(disk);
}

static void test_runs_as_the_launcher(void **state) {
	int fd = cf_launcher_image_fd();
	int out[2], status;
	char text[256] = "";
	ssize_t n;
	pid_t pid;
	(void)state;
	/* valgrind runs the test's own process on its emulated system calls,
	 * which do not exec a sealed memfd; the native run of this suite
	 * proves the exec */
	{
		const char *preload = getenv("LD_PRELOAD");
		if (preload && strstr(preload, "vgpreload"))
			skip();
	}
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *const argv[] = { (char *)"landlock-run", (char *)"--probe", NULL };
		char *const envp[] = { NULL };
		dup2(out[1], 1);
		fexecve(fd, argv, envp);
		_exit(99);
	}
	close(out[1]);
	n = read(out[0], text, sizeof text - 1);
	close(out[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 125 && !tl_must_work())
		skip(); /* this kernel cannot enforce Landlock: the launcher says so */
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(n > 0);
	assert_true(strncmp(text, "landlock: ", 10) == 0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_descriptor_per_process),
		cmocka_unit_test(test_sealed_against_every_change),
		cmocka_unit_test(test_holds_the_built_launcher),
		cmocka_unit_test(test_runs_as_the_launcher),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
