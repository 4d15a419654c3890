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
 *
 * Calls that would block (issue 21: the supervisor performs them without
 * ever blocking itself, and the command must see what it would see
 * unsupervised, so these run unconfined too, as the control):
 *   blocking DIR               each case makes a socket state where the
 *                              call must wait, starts it in a thread, sees
 *                              the thread asleep in it, then (while it
 *                              waits) checks that a chmod of DIR/f is still
 *                              answered, releases it and checks the result:
 *                              stream-wait, stream-whole (a send larger
 *                              than the buffer arrives whole), dgram-wait
 *                              (and only once), connect-wait (a full
 *                              listen queue, then accept), control-wait
 *                              (SCM_CREDENTIALS and SCM_RIGHTS), sendmmsg-wait;
 *                              and without waiting: nonblock-eagain,
 *                              dontwait-eagain, nonblock-connect-eagain,
 *                              sndtimeo (SO_SNDTIMEO ends the wait: EAGAIN)
 *   dropped DIR                under the supervisor only: a child blocks in
 *                              a sendmsg, a waiter takes it, the child is
 *                              SIGKILLed; the waiter must go, and nothing
 *                              may be sent for the dead child
 *   signals DIR N FLOOD [no-restart]
 *                              SIGUSR1, SIGCHLD and SIGWINCH handlers with
 *                              SA_RESTART; N rounds of chmod, utimensat,
 *                              sendmsg on a datagram socketpair (each read
 *                              back: a restarted send would show twice) and
 *                              connect to a listener in DIR (a restarted
 *                              connect fails EISCONN), a child forked every
 *                              round; FLOOD 1: a child of ours floods us
 *                              with SIGUSR1 meanwhile. Prints failures=N
 *                              (exit 1 unless 0). no-restart: handlers
 *                              without SA_RESTART; EINTR is then allowed,
 *                              but an interrupted call must not have been
 *                              performed (performed-but-eintr=0)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <dirent.h>
#include <time.h>
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

/* ---- calls that would block ---- */

/* The bound on each wait below: only a hang reaches it (a loaded 2-core
 * machine takes milliseconds), so it is wide. */
#define HANG_BOUND_MS 60000

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool asleep_in(const char *task, long nr)
{
	char path[96], text[512];
	const char *paren;
	long seen = -1;
	char state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "%s/syscall", task);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	if (fscanf(f, "%ld", &seen) != 1)
		seen = -1;
	fclose(f);
	snprintf(path, sizeof(path), "%s/stat", task);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	if (fgets(text, sizeof(text), f) != NULL && (paren = strrchr(text, ')')) != NULL)
		state = paren[2];
	fclose(f);
	return seen == nr && state == 'S';
}

struct blocked {
	pthread_t thread;
	long (*call)(struct blocked *);
	int sock;
	const void *data;
	size_t size;
	const struct sockaddr_un *addr;
	struct mmsghdr msgs[2];
	long result;
	int error;
	volatile pid_t tid;
	volatile int done;
};

static void *run_blocked(void *arg)
{
	struct blocked *b = arg;

	b->tid = (pid_t)syscall(SYS_gettid);
	b->result = b->call(b);
	b->error = b->result < 0 ? errno : 0;
	__atomic_store_n(&b->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static long call_sendmsg(struct blocked *b)
{
	struct iovec iov = { (void *)b->data, b->size };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	return (long)sendmsg(b->sock, &msg, 0);
}

/* One byte with our credentials and a descriptor (b->size holds it). */
static long call_sendmsg_control(struct blocked *b)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct ucred cred = { getpid(), getuid(), getgid() };
	char byte = 'c';
	int fd = (int)b->size;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c;

	memset(&control, 0, sizeof(control));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	c = CMSG_NXTHDR(&msg, c);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	return (long)sendmsg(b->sock, &msg, 0);
}

/* Receives the control message above: the descriptor must name `want`. */
static bool received_control(int sock, int want)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c;
	struct stat a, b;
	bool creds = false, same = false;

	if (recvmsg(sock, &msg, 0) != 1 || byte != 'c')
		return false;
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			creds = true;
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(c), sizeof(fd));
			same = fstat(fd, &a) == 0 && fstat(want, &b) == 0 &&
			       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
			close(fd);
		}
	}
	return creds && same;
}

static long call_connect(struct blocked *b)
{
	return connect(b->sock, (const struct sockaddr *)b->addr, sizeof(*b->addr));
}

static long call_sendmmsg(struct blocked *b)
{
	return sendmmsg(b->sock, b->msgs, 2, 0);
}

/* Starts the call in a thread; true once it sleeps in syscall nr (false:
 * it returned first, or never slept within the bound). */
static bool start_blocked(struct blocked *b, long nr)
{
	long long deadline = now_ms() + HANG_BOUND_MS;
	char task[64];

	b->tid = 0;
	b->done = 0;
	if (pthread_create(&b->thread, NULL, run_blocked, b) != 0)
		return false;
	while (now_ms() < deadline) {
		if (__atomic_load_n(&b->done, __ATOMIC_SEQ_CST))
			return false;
		if (b->tid != 0) {
			snprintf(task, sizeof(task), "/proc/self/task/%d", (int)b->tid);
			if (asleep_in(task, nr))
				return true;
		}
		usleep(1000);
	}
	return false;
}

/* Joins within the bound; false when it hangs (the thread is left). */
static bool finish_blocked(struct blocked *b)
{
	long long deadline = now_ms() + HANG_BOUND_MS;

	while (now_ms() < deadline && !__atomic_load_n(&b->done, __ATOMIC_SEQ_CST))
		usleep(1000);
	if (!__atomic_load_n(&b->done, __ATOMIC_SEQ_CST))
		return false;
	pthread_join(b->thread, NULL);
	return true;
}

/* Sends without waiting until not even one byte fits; returns the bytes
 * (or datagrams of `unit` bytes) that went in. */
static size_t fill(int sock, size_t unit)
{
	static char chunk[4096];
	size_t total = 0, size;
	ssize_t n;

	for (size = unit ? unit : sizeof(chunk); size > 0; size = unit ? 0 : size / 2)
		while ((n = send(sock, chunk, size, MSG_DONTWAIT)) > 0)
			total += unit ? 1 : (size_t)n;
	return total;
}

/* Reads `want` bytes (stream) or datagrams; each read bounded. Returns
 * what it got. */
static size_t drain(int sock, size_t want, bool dgram, char *copy)
{
	static char buf[65536];
	size_t got = 0;

	while (got < want) {
		struct pollfd p = { sock, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, HANG_BOUND_MS) != 1)
			break;
		n = recv(sock, buf, dgram ? sizeof(buf) : (want - got < sizeof(buf) ? want - got : sizeof(buf)), 0);
		if (n <= 0)
			break;
		if (copy != NULL && !dgram)
			memcpy(copy + got, buf, (size_t)n);
		got += dgram ? 1 : (size_t)n;
	}
	return got;
}

static bool nothing_more(int sock)
{
	char byte;

	return recv(sock, &byte, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

static void verdict(const char *what, bool ok, const char *detail)
{
	printf("%s %s%s%s\n", what, ok ? "ok" : "FAILED", detail[0] ? ": " : "", detail);
	fflush(stdout);
}

static long call_chmods(struct blocked *b)
{
	return chmod(b->data, 0640) == 0 && chmod(b->data, 0644) == 0 ? 0 : -1;
}

/* A mediated call of another thread is answered while one waits (bounded:
 * a supervisor blocked in the waiting call would never answer it). */
static bool still_answered(const char *dir)
{
	static char path[4096];
	/* Left to a thread that hangs (its chmod is never answered), so not
	 * on this stack. */
	struct blocked *c = calloc(1, sizeof(*c));
	bool ok;

	snprintf(path, sizeof(path), "%s/f", dir);
	if (c == NULL)
		return false;
	c->call = call_chmods;
	c->data = path;
	if (pthread_create(&c->thread, NULL, run_blocked, c) != 0)
		return false;
	if (!finish_blocked(c))
		return false;
	ok = c->result == 0;
	free(c);
	return ok;
}

static int try_blocking(const char *dir)
{
	static char big[240000], back[240000];
	struct sockaddr_un addr;
	struct blocked b;
	char detail[200], one = 'x';
	int pair[2], listener, i;
	size_t filled, got;
	bool slept, answered, joined;

	memset(&b, 0, sizeof(b));
	/* stream-wait: a full socketpair; the send waits until read */
	socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
	filled = fill(pair[0], 0);
	b.call = call_sendmsg; b.sock = pair[0]; b.data = &one; b.size = 1;
	slept = start_blocked(&b, SYS_sendmsg);
	answered = slept && still_answered(dir);
	got = drain(pair[1], filled + 1, false, NULL);
	joined = finish_blocked(&b);
	snprintf(detail, sizeof(detail), "slept=%d result=%ld errno=%d got=%zu/%zu", slept,
		 b.result, b.error, got, filled + 1);
	verdict("stream-wait", slept && joined && b.result == 1 && got == filled + 1, detail);
	verdict("answers-while-waiting", answered, "chmod while a send waits");
	close(pair[0]); close(pair[1]);

	/* stream-whole: larger than the buffer; arrives whole, in order */
	socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
	b.call = call_sendmsg; b.sock = pair[0]; b.data = big; b.size = sizeof(big);
	slept = start_blocked(&b, SYS_sendmsg);
	got = drain(pair[1], sizeof(big), false, back);
	joined = finish_blocked(&b);
	snprintf(detail, sizeof(detail), "slept=%d result=%ld got=%zu same=%d", slept, b.result,
		 got, memcmp(big, back, sizeof(big)) == 0);
	verdict("stream-whole", joined && b.result == (long)sizeof(big) && got == sizeof(big) &&
		memcmp(big, back, sizeof(big)) == 0, detail);
	close(pair[0]); close(pair[1]);

	/* dgram-wait: a full datagram socketpair; sent once */
	socketpair(AF_UNIX, SOCK_DGRAM, 0, pair);
	filled = fill(pair[0], 100);
	b.call = call_sendmsg; b.sock = pair[0]; b.data = big; b.size = 100;
	slept = start_blocked(&b, SYS_sendmsg);
	got = drain(pair[1], filled + 1, true, NULL);
	joined = finish_blocked(&b);
	snprintf(detail, sizeof(detail), "slept=%d result=%ld got=%zu/%zu", slept, b.result, got,
		 filled + 1);
	verdict("dgram-wait", slept && joined && b.result == 100 && got == filled + 1 &&
		nothing_more(pair[1]), detail);
	close(pair[0]); close(pair[1]);

	/* control-wait: credentials and a descriptor, sent once it can */
	socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
	{
		int on = 1;

		setsockopt(pair[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	}
	filled = fill(pair[0], 0);
	b.call = call_sendmsg_control; b.sock = pair[0]; b.size = (size_t)pair[1];
	slept = start_blocked(&b, SYS_sendmsg);
	got = drain(pair[1], filled, false, NULL);
	answered = received_control(pair[1], pair[1]);
	joined = finish_blocked(&b);
	snprintf(detail, sizeof(detail), "slept=%d result=%ld errno=%d received=%d", slept,
		 b.result, b.error, answered);
	verdict("control-wait", slept && joined && b.result == 1 && got == filled && answered,
		detail);
	close(pair[0]); close(pair[1]);

	/* sendmmsg-wait: the first message waits; at least it is sent */
	socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
	filled = fill(pair[0], 0);
	{
		static char ones[2] = { 'y', 'z' };
		static struct iovec iovs[2] = { { &ones[0], 1 }, { &ones[1], 1 } };

		memset(b.msgs, 0, sizeof(b.msgs));
		b.msgs[0].msg_hdr.msg_iov = &iovs[0]; b.msgs[0].msg_hdr.msg_iovlen = 1;
		b.msgs[1].msg_hdr.msg_iov = &iovs[1]; b.msgs[1].msg_hdr.msg_iovlen = 1;
	}
	b.call = call_sendmmsg; b.sock = pair[0];
	slept = start_blocked(&b, SYS_sendmmsg);
	got = drain(pair[1], filled + 1, false, NULL);
	joined = finish_blocked(&b);
	snprintf(detail, sizeof(detail), "slept=%d result=%ld len0=%u", slept, b.result,
		 b.msgs[0].msg_len);
	verdict("sendmmsg-wait", slept && joined && b.result >= 1 && b.msgs[0].msg_len == 1, detail);

	/* nonblock-eagain, dontwait-eagain: the same full socket */
	{
		struct iovec iov = { &one, 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		int flags = fcntl(pair[0], F_GETFL);
		ssize_t n;

		while (nothing_more(pair[1]) == false) /* what sendmmsg added */
			continue;
		fill(pair[0], 0);
		n = sendmsg(pair[0], &msg, MSG_DONTWAIT);
		snprintf(detail, sizeof(detail), "result=%zd errno=%d", n, n < 0 ? errno : 0);
		verdict("dontwait-eagain", n < 0 && errno == EAGAIN, detail);
		fcntl(pair[0], F_SETFL, flags | O_NONBLOCK);
		n = sendmsg(pair[0], &msg, 0);
		snprintf(detail, sizeof(detail), "result=%zd errno=%d", n, n < 0 ? errno : 0);
		verdict("nonblock-eagain", n < 0 && errno == EAGAIN, detail);
		fcntl(pair[0], F_SETFL, flags);
		/* sndtimeo: a blocking socket whose send timeout ends the wait */
		{
			struct timeval tv = { 0, 100000 };

			setsockopt(pair[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		}
		b.call = call_sendmsg; b.sock = pair[0]; b.data = &one; b.size = 1;
		start_blocked(&b, SYS_sendmsg);
		joined = finish_blocked(&b);
		snprintf(detail, sizeof(detail), "result=%ld errno=%d", b.result, b.error);
		verdict("sndtimeo", joined && b.result < 0 && b.error == EAGAIN, detail);
	}
	close(pair[0]); close(pair[1]);

	/* connect-wait: a listen queue that is full; accept frees it */
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/blocking.%d.sock", dir, (int)getpid());
	unlink(addr.sun_path);
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(listener, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(listener, 0) != 0) {
		verdict("connect-wait", false, "cannot listen");
		return 1;
	}
	for (i = 0; i < 1000; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) != 0)
			break;
	}
	snprintf(detail, sizeof(detail), "after %d: errno=%d", i, errno);
	verdict("nonblock-connect-eagain", i < 1000 && errno == EAGAIN, detail);
	b.call = call_connect; b.sock = socket(AF_UNIX, SOCK_STREAM, 0); b.addr = &addr;
	slept = start_blocked(&b, SYS_connect);
	answered = slept && still_answered(dir);
	{
		struct pollfd p = { listener, POLLIN, 0 };

		if (poll(&p, 1, HANG_BOUND_MS) == 1)
			close(accept(listener, NULL, NULL));
	}
	joined = finish_blocked(&b);
	snprintf(detail, sizeof(detail), "slept=%d result=%ld errno=%d", slept, b.result, b.error);
	verdict("connect-wait", slept && joined && b.result == 0, detail);
	verdict("answers-while-connecting", answered, "chmod while a connect waits");
	unlink(addr.sun_path);
	return 0;
}

/* The processes whose parent is `parent`, but `self`. */
static int children_of(pid_t parent, pid_t self)
{
	char path[64], text[512];
	struct dirent *e;
	int count = 0;
	DIR *proc = opendir("/proc");

	while (proc != NULL && (e = readdir(proc)) != NULL) {
		const char *paren;
		long ppid;
		char state;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == (int)self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", atoi(e->d_name));
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(text, sizeof(text), f) != NULL &&
		    (paren = strrchr(text, ')')) != NULL &&
		    sscanf(paren + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)parent &&
		    state != 'Z')
			count++;
		fclose(f);
	}
	if (proc != NULL)
		closedir(proc);
	return count;
}

static bool wait_children(pid_t parent, pid_t self, bool want_some)
{
	long long deadline = now_ms() + HANG_BOUND_MS;

	while (now_ms() < deadline) {
		if ((children_of(parent, self) > 0) == want_some)
			return true;
		usleep(2000);
	}
	return false;
}

static int try_dropped(void)
{
	char one = 'x', task[64], detail[160];
	pid_t supervisor = getppid(), child;
	long long deadline;
	bool slept = false, waiter, gone;
	int pair[2], status;
	size_t filled, got;

	socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
	filled = fill(pair[0], 0);
	child = fork();
	if (child == 0) {
		struct iovec iov = { &one, 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

		sendmsg(pair[0], &msg, 0);
		_exit(0);
	}
	snprintf(task, sizeof(task), "/proc/%d", (int)child);
	deadline = now_ms() + HANG_BOUND_MS;
	while (now_ms() < deadline && !(slept = asleep_in(task, SYS_sendmsg)))
		usleep(1000);
	/* The supervisor's waiter for that call: its only child but us. */
	waiter = slept && wait_children(supervisor, getpid(), true);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	gone = wait_children(supervisor, getpid(), false);
	got = drain(pair[1], filled, false, NULL);
	snprintf(detail, sizeof(detail), "slept=%d waiter=%d gone=%d got=%zu/%zu more=%d", slept,
		 waiter, gone, got, filled, !nothing_more(pair[1]));
	verdict("dropped", slept && waiter && gone && got == filled && nothing_more(pair[1]),
		detail);
	return 0;
}

static volatile sig_atomic_t signals_seen;

static void count_signal(int sig)
{
	int saved = errno;

	signals_seen++;
	if (sig == SIGCHLD)
		while (waitpid(-1, NULL, WNOHANG) > 0)
			continue;
	errno = saved;
}

static bool mode_is(const char *path, mode_t mode)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_mode & 07777) == mode;
}

/*
 * restart: the handlers have SA_RESTART, and every call must succeed.
 * Without it, a call interrupted before the supervisor has received it
 * fails with EINTR (the kernel's rule for any interrupted syscall, which
 * the supervisor never sees); it must then not have been performed: the
 * mode unchanged, no datagram, no connection.
 */
static int try_signals(const char *dir, int rounds, bool flood, bool restart)
{
	struct sigaction act;
	struct sockaddr_un addr;
	char path[4096];
	int pair[2], listener, round, failures = 0, eintr = 0, performed = 0, fd;
	pid_t flooder = -1, me = getpid();

	memset(&act, 0, sizeof(act));
	act.sa_handler = count_signal;
	act.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&act.sa_mask);
	sigaction(SIGUSR1, &act, NULL);
	sigaction(SIGCHLD, &act, NULL);
	sigaction(SIGWINCH, &act, NULL);
	snprintf(path, sizeof(path), "%s/signals.%d", dir, (int)me);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	chmod(path, 0600); /* round 0 sets 0644: a change to see */
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/signals.%d.sock", dir, (int)me);
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) != 0 || listener < 0 ||
	    bind(listener, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(listener, 8) != 0) {
		printf("signals setup failed: %s\n", strerror(errno));
		return 1;
	}
	if (flood) {
		flooder = fork();
		if (flooder == 0) {
			signal(SIGUSR1, SIG_IGN);
			while (kill(me, SIGUSR1) == 0 && getppid() == me)
				continue;
			_exit(0);
		}
	}
#define FAIL(what) do { failures++; if (failures <= 5) \
		printf("round %d: %s: %s\n", round, what, strerror(errno)); } while (0)
	/* r: the call's result; ok: it succeeded; undone: nothing happened */
#define CHECK(what, ok, undone) do { if (!(ok)) { \
		if (errno == EINTR && !restart) { eintr++; if (!(undone)) { performed++; \
			if (performed <= 5) printf("round %d: %s: EINTR, yet done\n", round, what); } } \
		else FAIL(what); } } while (0)
	for (round = 0; round < rounds; round++) {
		mode_t mode = round % 2 ? 0600 : 0644;
		char byte = (char)round, back = 0;
		struct iovec iov = { &byte, 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct sockaddr_un peer;
		socklen_t peer_len = sizeof(peer);
		int r, s, c;

		r = chmod(path, mode);
		CHECK("chmod", r == 0, !mode_is(path, mode));
		while (r != 0 && errno == EINTR) /* the next round's "unchanged" */
			r = chmod(path, mode);
		r = utimensat(AT_FDCWD, path, NULL, 0);
		CHECK("utimensat", r == 0, true);
		r = (int)sendmsg(pair[0], &msg, 0);
		CHECK("sendmsg", r == 1, nothing_more(pair[1]));
		if (r == 1 && !(recv(pair[1], &back, 1, 0) == 1 && back == byte))
			FAIL("recv");
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		r = connect(s, (struct sockaddr *)&addr, sizeof(addr));
		CHECK("connect", r == 0,
		      getpeername(s, (struct sockaddr *)&peer, &peer_len) != 0 && errno == ENOTCONN);
		while ((c = accept(listener, NULL, NULL)) >= 0 || errno == EINTR)
			if (c >= 0)
				close(c);
		close(s);
		if (fork() == 0)
			_exit(0);
	}
#undef CHECK
	if (!nothing_more(pair[1]))
		FAIL("a datagram more than was sent (a send done twice)");
#undef FAIL
	if (flooder > 0) {
		kill(flooder, SIGKILL);
		waitpid(flooder, NULL, 0);
	}
	unlink(addr.sun_path);
	printf("signals failures=%d performed-but-eintr=%d rounds=%d signals=%d eintr=%d\n",
	       failures, performed, rounds, (int)signals_seen, eintr);
	return failures == 0 && performed == 0 ? 0 : 1;
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
	if (argc >= 3 && strcmp(argv[1], "blocking") == 0)
		return try_blocking(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "dropped") == 0)
		return try_dropped();
	if (argc >= 5 && strcmp(argv[1], "signals") == 0)
		return try_signals(argv[2], atoi(argv[3]), atoi(argv[4]) & 1, argc < 6 ||
				   strcmp(argv[5], "no-restart") != 0);
	fprintf(stderr, "supervise-escape: unknown or incomplete mode\n");
	return 2;
}
