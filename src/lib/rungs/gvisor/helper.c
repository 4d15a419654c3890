/* SPDX-License-Identifier: MIT */
/*
 * confine-gvisor: the gVisor rung's runner program (doc/SPEC.md 22).
 *
 *   confine-gvisor --runsc PATH --mode MODE [--status-fd N] [--limit NAME=N]...
 *                  PROFILE... -- PROGRAM [ARG...]
 *
 * --limit RLIMIT_NPROC=N (RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE) goes into
 * process.rlimits, --limit memory=BYTES into linux.resources.memory.
 * PROFILE is the library's bwrap profile for the run's policy (the same
 * tokens `confine export` reads back, src/cli/export/plan.c). The helper
 * writes that plan as an OCI bundle for runsc (export/oci.c, the `--runtime
 * runsc` variant) into a private 0700 directory, runs `runsc run` on it,
 * mirrors the command's exit, and removes the directory. A directory left
 * by a helper that was killed is swept by the next one (its pid is in the
 * name and no longer runs).
 *
 * With --status-fd N it writes status records (doc/SPEC.md 12) on N:
 * `started <pid>` once runsc has made the sandbox (its -pid-file exists),
 * `exit <code>` when runsc returns; nothing more when runsc fails before
 * that (a runner failure, never the command's exit: the spawner quotes
 * the helper's `confine-gvisor: ` line);
 * `exec-failed <errno>` when PROGRAM cannot be found on the host's root,
 * which is the sandbox's. Its own failures and runsc's before the sandbox
 * exists exit 125 with one `confine-gvisor: ` line on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "export/export.h"
#include "helper-reaper.h"
#include "helper-stdio.h"

#define HELPER_FAILED 125

extern char **environ;

static int status_fd = -1;

#define MAX_LIMITS 8
static struct {
	char name[32];
	unsigned long long value;
} limits[MAX_LIMITS];
static size_t n_limits;

static bool take_limit(const char *word) {
	const char *eq = strchr(word, '=');
	char *end;
	unsigned long long value;
	if (!eq || eq == word || (size_t)(eq - word) >= sizeof limits[0].name || n_limits == MAX_LIMITS)
		return false;
	errno = 0;
	value = strtoull(eq + 1, &end, 10);
	if (errno || *end || end == eq + 1 || value == 0)
		return false;
	memcpy(limits[n_limits].name, word, (size_t)(eq - word));
	limits[n_limits].name[eq - word] = '\0';
	limits[n_limits++].value = value;
	return true;
}

/* The limits into the bundle's config. 0 or -ENOMEM. */
static int apply_limits(json_t *config) {
	json_t *rlimits = json_array();
	if (!rlimits)
		return -ENOMEM;
	for (size_t i = 0; i < n_limits; i++) {
		if (strcmp(limits[i].name, "memory") == 0) {
			json_t *linux_section = json_object_get(config, "linux");
			json_t *res = json_pack("{s:{s:I}}", "memory", "limit", (json_int_t)limits[i].value);
			if (!res || json_object_set_new(linux_section, "resources", res) < 0) {
				json_decref(rlimits);
				return -ENOMEM;
			}
			continue;
		}
		json_array_append_new(rlimits, json_pack("{s:s,s:I,s:I}", "type", limits[i].name, "hard",
		                                         (json_int_t)limits[i].value, "soft",
		                                         (json_int_t)limits[i].value));
	}
	if (json_array_size(rlimits) == 0) {
		json_decref(rlimits);
		return 0;
	}
	return json_object_set_new(json_object_get(config, "process"), "rlimits", rlimits) < 0
	               ? -ENOMEM
	               : 0;
}

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...) {
	char line[1024];
	va_list ap;
	int n;
	if (status_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	/* one line, printable ASCII: the record grammar */
	for (int i = 0; i < n; i++)
		if ((unsigned char)line[i] < ' ' || (unsigned char)line[i] > '~')
			line[i] = '?';
	line[n++] = '\n';
	(void)!write(status_fd, line, (size_t)n);
}

/* A failure before the command ran: one line on stderr, the `error`
 * record, exit 125. */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* No `error` record (its line is the launcher's own, doc/SPEC.md
	 * 12): the channel ends without `started`, and the spawner quotes
	 * this line, the first of the rung's fatal signature (rung.c). */
	fprintf(stderr, "confine-gvisor: %s\n", msg);
	return HELPER_FAILED;
}

int gv_remove_tree(const char *path) {
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		DIR *dir = opendir(path);
		struct dirent *e;
		if (!dir)
			return -errno;
		while ((e = readdir(dir))) {
			char child[PATH_MAX + 300];
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (strlen(path) >= PATH_MAX)
				continue;
			snprintf(child, sizeof child, "%.4095s/%s", path, e->d_name);
			(void)gv_remove_tree(child);
		}
		closedir(dir);
		return rmdir(path) < 0 ? -errno : 0;
	}
	return unlink(path) < 0 ? -errno : 0;
}

/* The base of every run's private directory: /run/confine-gvisor for
 * root, else $XDG_RUNTIME_DIR/confine-gvisor or /tmp/confine-gvisor-UID;
 * made 0700, and refused unless it is a directory of ours, 0700, not a
 * link. */
static int base_dir(char *out, size_t size, char *why, size_t why_size) {
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	if (geteuid() == 0)
		snprintf(out, size, "/run/confine-gvisor");
	else if (xdg && xdg[0] == '/' && strlen(xdg) + sizeof "/confine-gvisor" <= size)
		snprintf(out, size, "%.400s/confine-gvisor", xdg);
	else
		snprintf(out, size, "/tmp/confine-gvisor-%u", (unsigned)geteuid());
	if (mkdir(out, 0700) < 0 && errno != EEXIST) {
		snprintf(why, why_size, "cannot make %.400s: %s", out, strerror(errno));
		return -1;
	}
	if (lstat(out, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		/* Under the shared /tmp another user may have made the name
		 * first (red team R3-F10): never use it; a fresh private one
		 * of this run's instead (its own sweep's scope, removed after
		 * the run when empty). Elsewhere it is refused. */
		char fresh[512];
		if (strncmp(out, "/tmp/", 5) != 0) {
			snprintf(why, why_size, "%.400s is not a private directory of uid %u (mode 0700)",
			         out, (unsigned)geteuid());
			return -1;
		}
		snprintf(fresh, sizeof fresh, "%.400s.XXXXXX", out);
		if (!mkdtemp(fresh)) {
			snprintf(why, why_size, "%.400s is not a private directory of uid %u, and a fresh "
			         "one cannot be made: %s", out, (unsigned)geteuid(), strerror(errno));
			return -1;
		}
		snprintf(out, size, "%s", fresh);
		return 1;
	}
	return 0;
}

/* The cgroups runsc makes for a sandbox as root (cgroupsPath: its
 * container id, in every hierarchy): gone when runsc ends cleanly, left
 * when it was killed. Each is removed once empty (tried for a while: the
 * sandbox may still be ending). */
void gv_remove_cgroups(const char *id) {
	if (geteuid() != 0)
		return;
	for (int attempt = 0; attempt < 50; attempt++) {
		DIR *dir = opendir("/sys/fs/cgroup");
		struct dirent *e;
		bool busy = false;
		char path[PATH_MAX];
		if (!dir)
			return;
		snprintf(path, sizeof path, "/sys/fs/cgroup/%s", id);
		if (rmdir(path) < 0 && errno == EBUSY)
			busy = true;
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "/sys/fs/cgroup/%.200s/%.200s", e->d_name, id);
			if (rmdir(path) < 0 && errno == EBUSY)
				busy = true;
		}
		closedir(dir);
		if (!busy)
			return;
		{
			struct timespec ts = { 0, 10000000 };
			nanosleep(&ts, NULL);
		}
	}
}

/* The container id of run directory run-PID-SUFFIX: confine-PID-SUFFIX. */
static void id_of(const char *run_name, char *out, size_t size) {
	snprintf(out, size, "confine-%.100s", run_name + 4);
}

/* The next-run sweep: a run directory whose helper no longer runs (and
 * whose reaper did not finish: it was killed too), its sandbox ended
 * first if one is left. */
static void sweep(const char *base, const char *runsc) {
	DIR *dir = opendir(base);
	struct dirent *e;
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char path[PATH_MAX + 300];
		long pid;
		char *end;
		if (strncmp(e->d_name, "run-", 4) != 0)
			continue;
		pid = strtol(e->d_name + 4, &end, 10);
		if (end == e->d_name + 4 || *end != '-' || pid <= 0)
			continue;
		if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof path, "%.4000s/%s", base, e->d_name);
		{
			char id[128], root_flag[PATH_MAX + 400];
			char *runsc_base[] = { (char *)runsc, root_flag, NULL, NULL, NULL };
			if (geteuid() != 0) {
				runsc_base[2] = (char *)"--rootless";
				runsc_base[3] = (char *)"--ignore-cgroups";
			}
			snprintf(root_flag, sizeof root_flag, "--root=%.4300s/state", path);
			id_of(e->d_name, id, sizeof id);
			gv_reap(runsc_base, id, path);
		}
	}
	closedir(dir);
}

static int write_file(const char *path, const char *data, mode_t mode) {
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	size_t n = strlen(data);
	if (fd < 0)
		return -errno;
	if (write(fd, data, n) != (ssize_t)n) {
		int e = errno ? errno : EIO;
		close(fd);
		return -e;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* Whether PROGRAM can be executed from the host's root, which is the
 * sandbox's: absolute or relative to the cwd as given, else each PATH
 * entry. 0 or the errno an exec would get. */
static int exec_check(const char *program) {
	const char *path = getenv("PATH");
	int found_errno = ENOENT;
	if (strchr(program, '/'))
		return access(program, X_OK) == 0 ? 0 : errno;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		char candidate[PATH_MAX];
		struct stat st;
		if (n > 0 && n + strlen(program) + 2 < sizeof candidate) {
			snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, path, program);
			if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode)) {
				if (access(candidate, X_OK) == 0)
					return 0;
				found_errno = EACCES;
			}
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return found_errno;
}

/* runsc's own error, from its log (JSON lines, "msg" of level error). */
static void runsc_error(const char *log, char *out, size_t size) {
	FILE *f = fopen(log, "re");
	char line[2048];
	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		json_t *obj = json_loads(line, 0, NULL);
		const char *msg = obj ? json_string_value(json_object_get(obj, "msg")) : NULL;
		if (msg && !out[0])
			snprintf(out, size, "%s", msg);
		json_decref(obj);
	}
	fclose(f);
}

/* Not root: `runsc --rootless` makes the sandbox's user namespace itself
 * (the caller's ids as root inside), and refuses to start with one in the
 * bundle (`gofer: fork/exec /proc/self/exe: operation not permitted`,
 * found running it here): the export's user namespace and mappings are
 * dropped. */
static void rootless(json_t *config) {
	json_t *linux_section = json_object_get(config, "linux");
	json_t *namespaces = json_object_get(linux_section, "namespaces");
	for (size_t i = json_array_size(namespaces); i-- > 0;) {
		const char *type = json_string_value(json_object_get(json_array_get(namespaces, i), "type"));
		if (type && strcmp(type, "user") == 0)
			json_array_remove(namespaces, i);
	}
	json_object_del(linux_section, "uidMappings");
	json_object_del(linux_section, "gidMappings");
}

static volatile sig_atomic_t pending_signal;

static void on_signal(int sig) {
	pending_signal = sig;
}

/* `runsc kill ID SIG`: the signal to the command inside the sandbox. */
static void forward(char *const *runsc_base, const char *id, int sig) {
	char signum[16];
	char *argv[16];
	size_t n = 0;
	pid_t pid;
	snprintf(signum, sizeof signum, "%d", sig);
	for (size_t i = 0; runsc_base[i] && n < 10; i++)
		argv[n++] = runsc_base[i];
	argv[n++] = (char *)"kill";
	argv[n++] = (char *)id;
	argv[n++] = signum;
	argv[n] = NULL;
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

static bool nonempty(const char *path) {
	struct stat st;
	return stat(path, &st) == 0 && st.st_size > 0;
}

int main(int argc, char **argv) {
	const char *runsc = NULL, *mode = "read-only";
	/* The base is short (base_dir() bounds it): what is made below fits. */
	char base[512], run_dir[600], bundle[700], rootfs[800], state[700];
	char log[700], pid_file[700], empty[800], why[1024], id[128], cwd[PATH_MAX];
	char **tokens = NULL, **command;
	size_t n_tokens = 0;
	confine_policy policy;
	export_plan plan;
	json_t *config;
	char *config_text;
	int i = 1, r, status = 0, code = HELPER_FAILED;
	bool started = false;
	pid_t child;
	gv_stdio io;
	int child_fd = -1, lifeline = -1, base_fresh = 0;
	pid_t parent = getppid();

	for (; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--runsc") == 0)
			runsc = argv[i + 1];
		else if (strcmp(argv[i], "--mode") == 0)
			mode = argv[i + 1];
		else if (strcmp(argv[i], "--limit") == 0) {
			if (!take_limit(argv[i + 1]))
				return fail("bad --limit \"%s\"", argv[i + 1]);
		}
		else if (strcmp(argv[i], "--status-fd") == 0) {
			char *end;
			long fd = strtol(argv[i + 1], &end, 10);
			if (*end || fd < 3 || fd > 1024)
				return fail("bad --status-fd \"%s\"", argv[i + 1]);
			status_fd = (int)fd;
			(void)fcntl(status_fd, F_SETFD, FD_CLOEXEC);
		} else
			break;
	}
	/* The helper dies with whoever started it (the library's spawn, or
	 * a harness running a wrap argv); its reaper then ends the sandbox
	 * (helper-reaper.c). */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent || parent == 1)
		return fail("the process that started the helper is gone");
	if (!runsc || runsc[0] != '/')
		return fail("usage: confine-gvisor --runsc PATH --mode MODE [--status-fd N] PROFILE... -- "
		            "PROGRAM [ARG...]");
	for (int k = i; k < argc && strcmp(argv[k], "--") != 0; k++)
		n_tokens++;
	if (i + (int)n_tokens >= argc || !argv[i + n_tokens + 1])
		return fail("missing \"--\" and the program");
	command = argv + i + n_tokens + 1;
	if (!(tokens = calloc(n_tokens + 1, sizeof *tokens)))
		return fail("out of memory");
	for (size_t k = 0; k < n_tokens; k++)
		if (!(tokens[k] = strdup(argv[i + k])))
			return fail("out of memory");
	if (!getcwd(cwd, sizeof cwd))
		return fail("cannot read the working directory: %s", strerror(errno));

	/* The plan: the profile's mounts, masks and namespaces, this
	 * process's environment (the spawner filtered it), the cwd. */
	memset(&policy, 0, sizeof policy);
	policy.workspace_root = cwd;
	if (confine_mode_parse(mode, &policy.mode, NULL) < 0)
		return fail("bad --mode \"%s\"", mode);
	memset(&plan, 0, sizeof plan);
	plan.policy = &policy;
	plan.argv = command;
	plan.uid = (unsigned)getuid();
	plan.gid = (unsigned)getgid();
	plan.runsc = true;
	if ((r = export_plan_read(&plan, tokens, why, sizeof why)) < 0)
		return fail("%s", r == -ENOMEM ? "out of memory" : why);
	{
		size_t n_env = 0;
		while (environ[n_env])
			n_env++;
		if (!(plan.env = calloc(n_env + 1, sizeof *plan.env)))
			return fail("out of memory");
		for (size_t k = 0; k < n_env; k++)
			if (!(plan.env[k] = strdup(environ[k])))
				return fail("out of memory");
	}

	if ((r = exec_check(command[0])) != 0) {
		fprintf(stderr, "confine-gvisor: cannot execute \"%s\": %s\n", command[0], strerror(r));
		record("exec-failed %d", r);
		return r == ENOENT ? 127 : 126;
	}

	if ((base_fresh = base_dir(base, sizeof base, why, sizeof why)) < 0)
		return fail("%s", why);
	sweep(base, runsc);
	snprintf(run_dir, sizeof run_dir, "%.511s/run-%ld-XXXXXX", base, (long)getpid());
	if (!mkdtemp(run_dir))
		return fail("cannot make a run directory under %s: %s", base, strerror(errno));
	snprintf(bundle, sizeof bundle, "%.599s/bundle", run_dir);
	snprintf(rootfs, sizeof rootfs, "%.699s/rootfs", bundle);
	snprintf(state, sizeof state, "%.599s/state", run_dir);
	snprintf(log, sizeof log, "%.599s/runsc.log", run_dir);
	snprintf(pid_file, sizeof pid_file, "%.599s/pid", run_dir);
	snprintf(empty, sizeof empty, "%.699s/" EXPORT_EMPTY_FILE, bundle);
	id_of(strrchr(run_dir, '/') + 1, id, sizeof id);
	plan.bundle = bundle;
	config = export_oci_config(&plan);
	if (config && geteuid() != 0)
		rootless(config);
	if (config && apply_limits(config) < 0) {
		json_decref(config);
		config = NULL;
	}
	config_text = config ? json_dumps(config, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(config);
	if (!config_text || mkdir(bundle, 0700) < 0 || mkdir(rootfs, 0700) < 0 ||
	    mkdir(state, 0700) < 0 || write_file(empty, "", 0444) < 0 ||
	    write_file(log, "", 0600) < 0) {
		int e = errno;
		free(config_text);
		(void)gv_remove_tree(run_dir);
		return fail("cannot write the bundle in %s: %s", run_dir, strerror(e));
	}
	{
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%.700s/config.json", bundle);
		r = write_file(path, config_text, 0600);
		free(config_text);
		if (r < 0) {
			(void)gv_remove_tree(run_dir);
			return fail("cannot write %s: %s", path, strerror(-r));
		}
	}

	{
		/* runsc's global flags, the same for `run` and `kill`. */
		char root_flag[PATH_MAX + 8], log_flag[PATH_MAX + 8];
		char *base_argv[12];
		char *run_argv[20];
		size_t n = 0;
		struct sigaction sa;
		static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
			                         SIGWINCH };
		snprintf(root_flag, sizeof root_flag, "--root=%s", state);
		snprintf(log_flag, sizeof log_flag, "--log=%s", log);
		base_argv[n++] = (char *)runsc;
		base_argv[n++] = root_flag;
		base_argv[n++] = log_flag;
		base_argv[n++] = (char *)"--oci-seccomp";
		base_argv[n++] = (char *)(plan.private_network ? "--network=none" : "--network=host");
		/* Not root: runsc's rootless mode (its own user namespace), and
		 * no host cgroups (an unprivileged user cannot make them). */
		if (geteuid() != 0) {
			base_argv[n++] = (char *)"--rootless";
			base_argv[n++] = (char *)"--ignore-cgroups";
		}
		base_argv[n] = NULL;
		memcpy(run_argv, base_argv, n * sizeof *run_argv);
		run_argv[n++] = (char *)"run";
		run_argv[n++] = (char *)"-bundle";
		run_argv[n++] = bundle;
		run_argv[n++] = (char *)"-pid-file";
		run_argv[n++] = pid_file;
		run_argv[n++] = id;
		run_argv[n] = NULL;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++)
			sigaction(forwarded[k], &sa, NULL);

		if ((lifeline = gv_reaper_start(base_argv, id, run_dir)) < 0) {
			(void)gv_remove_tree(run_dir);
			return fail("cannot start the reaper: %s", strerror(-lifeline));
		}
		/* runsc as root fchowns the streams it hands the sandbox
		 * (helper-stdio.c): those on a file or device go as pipes. */
		if ((r = gv_stdio_setup(&io, geteuid() == 0)) < 0) {
			(void)gv_remove_tree(run_dir);
			gv_reaper_done(lifeline);
			return fail("cannot make pipes for the standard streams: %s", strerror(-r));
		}
		if ((child = fork()) < 0) {
			int e = errno;
			gv_stdio_close(&io);
			(void)gv_remove_tree(run_dir);
			gv_reaper_done(lifeline);
			return fail("cannot fork: %s", strerror(e));
		}
		if (child == 0) {
			struct sigaction dfl;
			memset(&dfl, 0, sizeof dfl);
			dfl.sa_handler = SIG_DFL;
			for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++)
				sigaction(forwarded[k], &dfl, NULL);
			/* runsc dies with this helper, and its sandbox with it
			 * (runsc run is attached). */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(HELPER_FAILED);
			signal(SIGPIPE, SIG_DFL);
			gv_stdio_in_child(&io);
			execv(runsc, run_argv);
			fprintf(stderr, "confine-gvisor: cannot execute %s: %s\n", runsc, strerror(errno));
			_exit(HELPER_FAILED);
		}
		gv_stdio_in_parent(&io);
		if (io.relayed) {
			/* A pipe the command closed must not end the helper. */
			signal(SIGPIPE, SIG_IGN);
#ifdef SYS_pidfd_open
			child_fd = (int)syscall(SYS_pidfd_open, child, 0);
#endif
		}
		for (;;) {
			pid_t w = waitpid(child, &status, started && !io.relayed ? 0 : WNOHANG);
			if (w == child)
				break;
			if (w < 0 && errno != EINTR)
				break;
			if (pending_signal) {
				int sig = pending_signal;
				pending_signal = 0;
				if (started)
					forward(base_argv, id, sig);
				else
					kill(child, sig);
			}
			if (!started && nonempty(pid_file)) {
				FILE *f = fopen(pid_file, "re");
				long pid = 0;
				if (f) {
					if (fscanf(f, "%ld", &pid) != 1)
						pid = 0;
					fclose(f);
				}
				started = true;
				record("started %ld", pid > 0 ? pid : 1L);
				continue;
			}
			if (io.relayed)
				/* Until runsc returns (its pidfd), or 1 ms before the
				 * sandbox exists (the pid file), 20 ms without a pidfd. */
				(void)gv_stdio_pump(&io, child_fd, !started ? 1 : child_fd >= 0 ? -1 : 20);
			else if (!started) {
				struct timespec ts = { 0, 1000000 };
				nanosleep(&ts, NULL);
			}
		}
		if (child_fd >= 0)
			close(child_fd);
		if (io.relayed)
			gv_stdio_drain(&io);
	}

	if (!started) {
		char msg[1024];
		runsc_error(log, msg, sizeof msg);
		(void)gv_remove_tree(run_dir);
		gv_remove_cgroups(id);
		if (base_fresh)
			(void)rmdir(base);
		gv_reaper_done(lifeline);
		if (WIFSIGNALED(status))
			return fail("runsc was killed by signal %d before starting the command",
			            WTERMSIG(status));
		return fail("runsc failed before starting the command (exit %d): %s",
		            WEXITSTATUS(status), msg[0] ? msg : "no reason in its log");
	}
	if (WIFSIGNALED(status)) {
		code = 128 + WTERMSIG(status);
	} else {
		code = WEXITSTATUS(status);
		if (code == 128) {
			/* runsc's own failure after the sandbox was made (the
			 * command it could not load): said, not hidden. */
			char msg[1024];
			runsc_error(log, msg, sizeof msg);
			if (msg[0])
				fprintf(stderr, "confine-gvisor: runsc failed after making the sandbox: %s\n",
				        msg);
		}
	}
	record("exit %d", code);
	(void)gv_remove_tree(run_dir);
	gv_remove_cgroups(id);
	if (base_fresh)
		(void)rmdir(base);
	gv_reaper_done(lifeline);
	export_plan_clear(&plan);
	return code;
}
