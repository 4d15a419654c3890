/*
 * Failure lines and status records. Each goes out with one write(2), so a
 * concurrent writer cannot split it and a reader sees whole lines. A
 * failed write is ignored: the reader is gone, and the exit status still
 * says what happened. Nothing here allocates, so the child may use it
 * between fork and exec.
 */
#include "channel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_fd = -1;

/* The records not written, of `denied`, `refused`, `decision`: counted by
 * whichever process would have written them (the launcher's supervisor,
 * the proxy it forks), in a page they share, mapped when the channel is
 * first opened (before the proxy is forked), and told once in the
 * `dropped` record before `exit`/`signal`. Without the page each process
 * counts its own (the supervisor's still reach the record). */
static unsigned local_dropped[3];
static unsigned *dropped = local_dropped;

static void count_dropped(int kind)
{
	__atomic_add_fetch(&dropped[kind], 1U, __ATOMIC_RELAXED);
}

int channel_open(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
		return -errno;
	status_fd = fd;
	if (dropped == local_dropped) {
		void *page = mmap(NULL, sizeof(local_dropped), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (page != MAP_FAILED)
			dropped = page;
	}
	return 0;
}

void channel_close(void)
{
	status_fd = -1;
}

int channel_fd(void)
{
	return status_fd;
}

static void write_all_once(int fd, const char *bytes, size_t length)
{
	if (fd >= 0 && write(fd, bytes, length) < 0) {
		/* Nothing left to report to. */
	}
}

/* Formats "landlock-run: <message>\n" into line; returns its length. */
static size_t format_line(char *line, size_t size, const char *format, va_list args)
	__attribute__((format(printf, 3, 0)));

static size_t format_line(char *line, size_t size, const char *format, va_list args)
{
	size_t used = sizeof(LAUNCHER_PREFIX) - 1;
	int n;

	memcpy(line, LAUNCHER_PREFIX, used);
	n = vsnprintf(line + used, size - used - 1, format, args);
	if (n < 0)
		n = 0;
	used += (size_t)n < size - used - 1 ? (size_t)n : size - used - 2;
	line[used++] = '\n';
	return used;
}

void report_failure(const char *format, ...)
{
	/* The record repeats the line after "error ", within one record. */
	char record[LAUNCHER_RECORD_MAX];
	static const char keyword[] = LAUNCHER_RECORD_ERROR " ";
	size_t skip = sizeof(keyword) - 1;
	size_t length;
	va_list args;

	memcpy(record, keyword, skip);
	va_start(args, format);
	length = format_line(record + skip, sizeof(record) - skip, format, args);
	va_end(args);
	write_all_once(STDERR_FILENO, record + skip, length);
	write_all_once(status_fd, record, skip + length);
}

void report_line(const char *format, ...)
{
	char line[LAUNCHER_RECORD_MAX];
	size_t length;
	va_list args;

	va_start(args, format);
	length = format_line(line, sizeof(line), format, args);
	va_end(args);
	write_all_once(STDERR_FILENO, line, length);
}

static void write_record(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void write_record(const char *format, ...)
{
	char line[LAUNCHER_RECORD_MAX];
	va_list args;
	int n;

	if (status_fd < 0)
		return;
	va_start(args, format);
	n = vsnprintf(line, sizeof(line), format, args);
	va_end(args);
	if (n > 0 && (size_t)n < sizeof(line))
		write_all_once(status_fd, line, (size_t)n);
}

void record_layers(unsigned layers)
{
	char line[LAUNCHER_RECORD_MAX] = LAUNCHER_RECORD_LAYERS;
	size_t used = sizeof(LAUNCHER_RECORD_LAYERS) - 1;
	unsigned index;

	if (status_fd < 0)
		return;
	for (index = 0; index < LAUNCHER_LAYER_COUNT; index++) {
		const char *word = launcher_layer_word(index);
		size_t n = strlen(word);

		if (!(layers & (1U << index)))
			continue;
		line[used++] = ' ';
		memcpy(line + used, word, n);
		used += n;
	}
	line[used++] = '\n';
	write_all_once(status_fd, line, used);
}

void record_started(pid_t pid)
{
	write_record(LAUNCHER_RECORD_STARTED " %ld\n", (long)pid);
}

void record_exec_failed(int error)
{
	write_record(LAUNCHER_RECORD_EXEC_FAILED " %d\n", error);
}

void record_denied(const char *clause, const char *op, const char *object)
{
	static unsigned long seen[LAUNCHER_DENIED_MAX];
	static unsigned sent;
	char encoded[LAUNCHER_RECORD_MAX];
	char line[LAUNCHER_RECORD_MAX];
	unsigned long hash = 5381;
	int n, size, queued = 0;
	unsigned i;

	if (status_fd < 0)
		return;
	if (launcher_object_encode(object, encoded, sizeof(encoded)) == 0) {
		count_dropped(0);
		return;
	}
	n = snprintf(line, sizeof(line), LAUNCHER_RECORD_DENIED " %s %s %s\n", clause, op, encoded);
	if (n <= 0 || (size_t)n >= sizeof(line)) {
		count_dropped(0); /* a path too long for one record is not cut into another */
		return;
	}
	for (i = 0; i < (unsigned)n; i++)
		hash = hash * 33 + (unsigned char)line[i];
	for (i = 0; i < sent; i++)
		if (seen[i] == hash)
			return;
	if (sent >= LAUNCHER_DENIED_MAX) {
		count_dropped(0); /* past the bound: counted, each time it is met */
		return;
	}
	/* The library reads the channel when the run has ended: write only
	 * what the pipe holds now, with room left for `exit`/`signal`. */
	size = fcntl(status_fd, F_GETPIPE_SZ);
	if (size >= 0 && (ioctl(status_fd, FIONREAD, &queued) != 0 ||
			  size - queued < n + LAUNCHER_RECORD_RESERVE)) {
		count_dropped(0);
		return;
	}
	seen[sent++] = hash;
	write_all_once(status_fd, line, (size_t)n);
}

/* Whether the pipe holds n more bytes now, with room left for the final
 * record (the library reads the channel when the run has ended). */
static bool pipe_has_room(int n)
{
	int size = fcntl(status_fd, F_GETPIPE_SZ), queued = 0;

	return size < 0 ||
	       (ioctl(status_fd, FIONREAD, &queued) == 0 && size - queued >= n + LAUNCHER_RECORD_RESERVE);
}

/* The host as one word of the record, or "-". */
static const char *host_word(const char *host)
{
	size_t n = strlen(host);

	return n > 0 && n < 254 && strspn(host, LAUNCHER_HOST_CHARS) == n ? host : "-";
}

void record_refused(const char *clause, const char *host, unsigned port, const char *why)
{
	static unsigned sent;
	char line[LAUNCHER_RECORD_MAX], text[1024];
	size_t i;
	int n;

	if (status_fd < 0)
		return;
	if (sent >= LAUNCHER_REFUSED_MAX) {
		count_dropped(1);
		return;
	}
	/* the reason is the record's last field: spaces stay, control bytes
	 * do not */
	for (i = 0; why[i] != '\0' && i < sizeof(text) - 1; i++)
		text[i] = (unsigned char)why[i] < 0x20 || why[i] == 0x7f ? '?' : why[i];
	text[i] = '\0';
	n = snprintf(line, sizeof(line), LAUNCHER_RECORD_REFUSED " %s %s %u %s\n", clause,
		     host_word(host), port, text);
	if (n <= 0 || (size_t)n >= sizeof(line) || !pipe_has_room(n)) {
		count_dropped(1);
		return;
	}
	sent++;
	write_all_once(status_fd, line, (size_t)n);
}

void record_decision(const char *host, unsigned port, bool allow, const char *by)
{
	static unsigned sent;
	char line[LAUNCHER_RECORD_MAX];
	int n;

	if (status_fd < 0)
		return;
	if (sent >= LAUNCHER_DECISIONS_MAX) {
		count_dropped(2);
		return;
	}
	n = snprintf(line, sizeof(line), LAUNCHER_RECORD_DECISION " %s %u %s %s\n",
		     host_word(host), port, allow ? "allow" : "deny", by);
	if (n <= 0 || (size_t)n >= sizeof(line) || !pipe_has_room(n)) {
		count_dropped(2);
		return;
	}
	sent++;
	write_all_once(status_fd, line, (size_t)n);
}

void record_decision_dropped(void)
{
	if (status_fd >= 0)
		count_dropped(2);
}

void record_wait_status(int wait_status)
{
	struct rusage usage;
	unsigned d[3];
	int k;

	/* Every process reaped below this one (the command, and what was
	 * left of its tree, reaped by this subreaper): the run's CPU time,
	 * which nothing outside bwrap can count (doc/SPEC.md 15). */
	if (getrusage(RUSAGE_CHILDREN, &usage) == 0) {
		long long us = (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec +
			       (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec;
		if (us >= 0 && us / 1000000 <= 2147483647LL)
			write_record(LAUNCHER_RECORD_CPU " %lld %lld\n", us / 1000000, us % 1000000);
	}
	for (k = 0; k < 3; k++)
		d[k] = __atomic_load_n(&dropped[k], __ATOMIC_RELAXED);
	if (d[0] || d[1] || d[2])
		write_record(LAUNCHER_RECORD_DROPPED " %u %u %u\n", d[0], d[1], d[2]);
	if (WIFSIGNALED(wait_status))
		write_record(LAUNCHER_RECORD_SIGNAL " %d\n", WTERMSIG(wait_status));
	else
		write_record(LAUNCHER_RECORD_EXIT " %d\n", WEXITSTATUS(wait_status));
}
