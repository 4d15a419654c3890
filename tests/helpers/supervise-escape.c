/*
 * supervise-escape: runs inside the supervisor (or unconfined, as the
 * control) and tries one thing, printing one line per attempt:
 *   "<what> ok" or "<what> <errno name>". The test reads the effect on
 * disk, not only these lines.
 *
 *   own-listener FILE MODE     install our own NEW_LISTENER filter for
 *                              chmod and answer CONTINUE, then chmod
 *   race LINK INSIDE OUTSIDE N chmod LINK N times while a thread swaps it
 *                              between INSIDE and OUTSIDE
 *   fd-ops FILE                open FILE read-only; fchmod, fchown,
 *                              FS_IOC_SETFLAGS, fsetxattr on it
 *   procfd FILE                chmod FILE through /proc/self/fd/N spellings
 *   connect PATH               connect a stream socket to PATH, send "hi"
 *   sendmsg PATH               sendmsg a datagram to PATH
 *   sendto PATH                sendto a datagram to PATH
 *   setid DIR                  create set-id files and chmod u+s in DIR
 *   uring                      io_uring_setup and openat2
 *   threads DIR N              N threads chmod and touch DIR/t<i>
 *   vfork FILE MODE            vfork, exec chmod MODE FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

static void report(const char *what, int r)
{
	if (r >= 0)
		printf("%s ok\n", what);
	else
		printf("%s %s\n", what, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
	fflush(stdout);
}

/* ---- own-listener ---- */

static int own_listener = -1;

static void *answer_continue(void *unused)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	(void)unused;
	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(own_listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
			return NULL;
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(own_listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

static int try_own_listener(const char *file, mode_t mode)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_chmod, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fchmodat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };
	pthread_t thread;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	own_listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	report("own-listener", own_listener);
	if (own_listener >= 0)
		pthread_create(&thread, NULL, answer_continue, NULL);
	report("chmod", chmod(file, mode));
	return 0;
}

/* ---- race ---- */

struct race {
	const char *link, *inside, *outside;
	volatile int stop;
	volatile unsigned long swaps;
};

static void *swap_link(void *arg)
{
	struct race *race = arg;
	char tmp[4096];
	unsigned long i = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", race->link);
	while (!race->stop) {
		unlink(tmp);
		if (symlink(i++ % 2 ? race->outside : race->inside, tmp) == 0 &&
		    rename(tmp, race->link) == 0)
			race->swaps++;
	}
	return NULL;
}

static int try_race(const char *link, const char *inside, const char *outside, int n)
{
	struct race race = { link, inside, outside, 0, 0 };
	struct stat before, after;
	pthread_t thread;
	int i, done = 0, changed = 0;

	if (stat(outside, &before) != 0)
		return 1;
	pthread_create(&thread, NULL, swap_link, &race);
	/* a busy machine may not run the swapper at once: start together */
	while (race.swaps < 2)
		sched_yield();
	for (i = 0; i < n; i++) {
		if (chmod(link, i % 2 ? 0640 : 0604) == 0)
			done++;
		if (stat(outside, &after) == 0 && after.st_mode != before.st_mode)
			changed++;
		sched_yield(); /* let the swapper run on a busy machine */
	}
	race.stop = 1;
	pthread_join(thread, NULL);
	printf("race chmods=%d outside-changed=%d\n", done, changed);
	return 0;
}

/* ---- fd-ops, procfd ---- */

static int try_fd_ops(const char *file)
{
	int fd = open(file, O_RDONLY);
	int flags = 0;

	report("open", fd);
	report("fchmod", fchmod(fd, 0777));
	report("fchown", fchown(fd, getuid(), getgid()));
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags |= FS_NODUMP_FL;
		report("setflags", ioctl(fd, FS_IOC_SETFLAGS, &flags));
	} else {
		printf("setflags unsupported\n");
	}
	report("fsetxattr", fsetxattr(fd, "user.escape", "1", 1, 0));
	report("futimens", futimens(fd, NULL));
	return 0;
}

static int try_procfd(const char *file)
{
	char path[128];
	int fd = open(file, O_RDONLY);

	report("open", fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	report("chmod-proc-self-fd", chmod(path, 0777));
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	report("chmod-dev-fd", chmod(path, 0776));
	snprintf(path, sizeof(path), "//proc/./self//fd/%d", fd);
	report("chmod-odd-spelling", chmod(path, 0775));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), fd);
	report("chmod-proc-pid-fd", chmod(path, 0774));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	report("fchownat-proc-self-fd", fchownat(AT_FDCWD, path, getuid(), getgid(), 0));
	return 0;
}

/* ---- sockets ---- */

static int unix_address(const char *path, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path, sizeof(addr->sun_path), "%s", path);
	return (int)(offsetof(struct sockaddr_un, sun_path) + strlen(addr->sun_path) + 1);
}

static int try_connect(const char *path)
{
	struct sockaddr_un addr;
	socklen_t len = (socklen_t)unix_address(path, &addr);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	int r = connect(s, (struct sockaddr *)&addr, len);
	char reply[16] = "";

	report("connect", r);
	if (r == 0) {
		report("send", (int)send(s, "hi", 2, 0));
		if (read(s, reply, sizeof(reply) - 1) > 0)
			printf("reply %s\n", reply);
	}
	return 0;
}

static int try_sendmsg(const char *path, int use_sendto)
{
	struct sockaddr_un addr;
	socklen_t len = (socklen_t)unix_address(path, &addr);
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	char text[] = "escaped";
	struct iovec iov = { text, 7 };
	struct msghdr msg;

	if (use_sendto) {
		report("sendto", (int)sendto(s, "escaped", 7, 0, (struct sockaddr *)&addr, len));
		return 0;
	}
	memset(&msg, 0, sizeof(msg));
	msg.msg_name = &addr;
	msg.msg_namelen = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	report("sendmsg", (int)sendmsg(s, &msg, 0));
	return 0;
}

/* ---- setid, uring ---- */

static int try_setid(const char *dir)
{
	char path[4096];
	struct open_how how;

	snprintf(path, sizeof(path), "%s/setuid-open", dir);
	report("open-setuid", open(path, O_CREAT | O_WRONLY, 04755));
	snprintf(path, sizeof(path), "%s/setgid-openat", dir);
	report("openat-setgid", openat(AT_FDCWD, path, O_CREAT | O_WRONLY, 02755));
	snprintf(path, sizeof(path), "%s/setuid-creat", dir);
	report("creat-setuid", creat(path, 04700));
	snprintf(path, sizeof(path), "%s/setuid-mknod", dir);
	report("mknod-setuid", mknod(path, S_IFREG | 04755, 0));
	snprintf(path, sizeof(path), "%s/setgid-dir", dir);
	report("mkdir-setgid", mkdir(path, 02755));
	snprintf(path, sizeof(path), "%s/plain", dir);
	report("open-plain", open(path, O_CREAT | O_WRONLY, 0755));
	report("chmod-setuid", chmod(path, 04755));
	report("chmod-setgid", chmod(path, 02755));
	report("fchmodat-setuid", fchmodat(AT_FDCWD, path, 06755, 0));
	memset(&how, 0, sizeof(how));
	how.flags = O_CREAT | O_WRONLY;
	how.mode = 04755;
	snprintf(path, sizeof(path), "%s/setuid-openat2", dir);
	report("openat2-setuid", (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how)));
	return 0;
}

static int try_uring(void)
{
	char params[120];

	memset(params, 0, sizeof(params));
	report("io_uring_setup", (int)syscall(SYS_io_uring_setup, 4, params));
	return 0;
}

/* ---- threads, vfork ---- */

struct worker {
	const char *dir;
	int index;
	int failures;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char path[4096];
	int i, fd;

	snprintf(path, sizeof(path), "%s/t%d", w->dir, w->index);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < 200; i++) {
		if (chmod(path, i % 2 ? 0600 : 0644) != 0)
			w->failures++;
		if (utimensat(AT_FDCWD, path, NULL, 0) != 0)
			w->failures++;
	}
	return NULL;
}

static int try_threads(const char *dir, int n)
{
	pthread_t threads[64];
	struct worker workers[64];
	int i, failures = 0;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		workers[i].dir = dir;
		workers[i].index = i;
		workers[i].failures = 0;
		pthread_create(&threads[i], NULL, work, &workers[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
		failures += workers[i].failures;
	}
	printf("threads failures=%d\n", failures);
	return 0;
}

static int try_vfork(const char *file, const char *mode)
{
	int status;
	pid_t pid = vfork();

	if (pid == 0) {
		execlp("chmod", "chmod", mode, file, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	printf("vfork-chmod exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "own-listener") == 0)
		return try_own_listener(argv[2], (mode_t)strtol(argv[3], NULL, 8));
	if (argc >= 6 && strcmp(argv[1], "race") == 0)
		return try_race(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (argc >= 3 && strcmp(argv[1], "fd-ops") == 0)
		return try_fd_ops(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "procfd") == 0)
		return try_procfd(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "connect") == 0)
		return try_connect(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "sendmsg") == 0)
		return try_sendmsg(argv[2], 0);
	if (argc >= 3 && strcmp(argv[1], "sendto") == 0)
		return try_sendmsg(argv[2], 1);
	if (argc >= 3 && strcmp(argv[1], "setid") == 0)
		return try_setid(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "uring") == 0)
		return try_uring();
	if (argc >= 4 && strcmp(argv[1], "threads") == 0)
		return try_threads(argv[2], atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "vfork") == 0)
		return try_vfork(argv[2], argv[3]);
	fprintf(stderr, "supervise-escape: unknown or incomplete mode\n");
	return 2;
}
