/*
 * landlock-run: restrict this process with Landlock, then run the command
 * and stay as its parent.
 *
 *   landlock-run [--ro PATH]... [--rw PATH]... [--rw-shared PATH]...
 *                [--allow-unix-socket PATH]...
 *                [--status-fd N] [--best-effort] [--deny-network]
 *                [--require-supervisor] [--rlimit NAME=N]... [--temp-size BYTES:PATH]
 *                [--identity DEV:INO:PATH]...
 *                -- PROGRAM [ARG...]
 *   landlock-run --probe
 *
 * The contract is SPEC section 7 and DESIGN D1-D3; the texts and records
 * are in launcher-protocol.h. Plain C over the raw syscalls, libc only, no
 * environment inputs (PATH is read by execvp, as for any exec).
 *
 * Every launcher failure prints exactly one line starting "landlock-run: "
 * and exits 125 before the command runs; once the command runs, the
 * launcher's status is the command's own (a signal death re-raised).
 *
 * Order, each step for a reason: the seccomp program is built first (an
 * architecture without a syscall table refuses before anything else);
 * the supervisor is probed and given its grants (opened O_PATH) while
 * capabilities may still be needed to open them, and so is the ruleset;
 * no_new_privs, then the Landlock domain, then every capability dropped;
 * then the fork (parent.c), where the child installs the supervisor's
 * listener filter, then the deny-list (which refuses any later listener),
 * and execs, while the parent takes the listener into its poll loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "args.h"
#include "capabilities.h"
#include "channel.h"
#include "exec-command.h"
#include "identity.h"
#include "launcher-args.h"
#include "lifeline.h"
#include "parent.h"
#include "proxy.h"
#include "ruleset.h"
#include "seccomp-filter.h"
#include "supervise.h"
#include "supervise-report.h"
#include "stage-mount.h"
#include "temp-mount.h"

/* Grants and allowed sockets handed to the supervisor: the shared bounds
 * (launcher-args.h), which the parser already holds argv to. */
#define SUPERVISED_PATHS_MAX \
	(LAUNCHER_WRITABLE_MAX > LAUNCHER_UNIX_SOCKETS_MAX ? LAUNCHER_WRITABLE_MAX \
							   : LAUNCHER_UNIX_SOCKETS_MAX)

/* The supervisor across the fork (parent.h's hooks). */
struct supervisor_setup {
	struct supervise *sv;
	int channel[2]; /* [0] the parent's end, [1] the child's */
};

static int supervisor_child_install(void *context)
{
	struct supervisor_setup *setup = context;

	close(setup->channel[0]);
	return supervise_child_install(setup->sv, setup->channel[1]);
}

static int supervisor_handle(int fd, void *context)
{
	int r;

	if (fd == supervise_wait_fd(context))
		r = supervise_handle_waits(context);
	else
		r = supervise_handle(context);
	if (r < 0)
		/* Nothing answers the command's mediated calls any more: the
		 * run ends (parent.c kills the tree). After `started` the
		 * channel takes no `error` record: the line, then `signal 9`. */
		report_line("the supervisor failed: %s; ending the run", strerror(-r));
	return r;
}

static int supervisor_parent_attach(pid_t child, struct parent_listener *listener,
				    void *context)
{
	struct supervisor_setup *setup = context;
	int r;

	close(setup->channel[1]);
	r = supervise_attach(setup->sv, setup->channel[0], child);
	if (r < 0)
		return r;
	listener->fd = supervise_listener_fd(setup->sv);
	listener->wait_fd = supervise_wait_fd(setup->sv);
	listener->handle = supervisor_handle;
	listener->context = setup->sv;
	return 0;
}

/*
 * Probes and prepares the supervisor (before any restriction). Returns 0
 * with setup->sv set, 0 with setup->sv NULL when it cannot run here (the
 * notice is printed; the run is partial), or 125 after reporting.
 */
static int prepare_supervisor(int abi, const struct invocation *invocation,
			      struct supervisor_setup *setup)
{
	static const char *writable[SUPERVISED_PATHS_MAX];
	static bool shared[SUPERVISED_PATHS_MAX];
	static const char *sockets[SUPERVISED_PATHS_MAX];
	size_t n_writable = 0, n_sockets = 0, cursor = 0;
	const char *missing = NULL;
	const char *failed = NULL;
	const char *path;
	bool is_writable;
	unsigned flags = 0;
	int r;

	setup->sv = NULL;
	setup->channel[0] = setup->channel[1] = -1;
	r = supervise_probe(&missing);
#ifdef CONFINE_TEST_ABI_CAP
	/* Test builds only (never installed), like the ABI cap: pretend the
	 * supervisor cannot run, for the partial path and the bench's "same
	 * rung without it". It can only take the supervisor away. */
	if (getenv("CONFINE_TEST_SUPERVISOR_MISSING") != NULL) {
		r = -EPERM;
		missing = "test-missing";
	}
#endif
	if (r < 0) {
		if (missing == NULL)
			missing = "unknown";
		if (invocation->require_supervisor) {
			report_failure("the supervisor cannot run here (%s: %s) and "
				       "--require-supervisor was given", missing, strerror(-r));
			return LAUNCHER_EXIT_FAILURE;
		}
		report_line(LAUNCHER_NO_SUPERVISOR_FORMAT, missing);
		return 0;
	}
	while (next_grant(invocation, &cursor, &path, &is_writable)) {
		if (!is_writable)
			continue;
		if (n_writable == SUPERVISED_PATHS_MAX) {
			report_failure("cannot start the supervisor: more than %d writable grants",
				       SUPERVISED_PATHS_MAX);
			return LAUNCHER_EXIT_FAILURE;
		}
		shared[n_writable] = grant_is_shared(invocation, cursor);
		writable[n_writable++] = path;
	}
	cursor = 0;
	while (next_allowed_socket(invocation, &cursor, &path)) {
		if (n_sockets == SUPERVISED_PATHS_MAX) {
			report_failure("cannot start the supervisor: more than %d allowed sockets",
				       SUPERVISED_PATHS_MAX);
			return LAUNCHER_EXIT_FAILURE;
		}
		sockets[n_sockets++] = path;
	}
	if (abi > 0 && landlock_resolves_unix(abi))
		flags |= SUPERVISE_SOCKETS_BY_LANDLOCK;
	supervise_set_reporter(record_denied); /* its refusals, as `denied` records */
	r = supervise_new(writable, shared, n_writable, sockets, n_sockets, flags, &setup->sv, &failed);
	if (r < 0) {
		if (failed != NULL && r == -ESTALE)
			report_failure("a granted path is not what it was when the argv was made: %s",
				       failed);
		else if (failed != NULL)
			report_failure("cannot open rule path: %s: %s", failed, strerror(-r));
		else
			report_failure("cannot start the supervisor: %s", strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, setup->channel) != 0) {
		report_failure("cannot start the supervisor: %s", strerror(errno));
		return LAUNCHER_EXIT_FAILURE;
	}
	return 0;
}

/* More hosts than the proxy holds: a hard failure, never a shorter list. */
static int proxy_hosts_overflow(const char *flag)
{
	report_failure("cannot start the network proxy: more than %d %s hosts", LAUNCHER_PROXY_HOSTS_MAX,
		       flag);
	return LAUNCHER_EXIT_FAILURE;
}

/*
 * The network allowlist (doc/SPEC.md 15): the proxy, before any
 * restriction, and the one way out to it (a TCP socket, Landlock's rule
 * for its port, the supervisor's address check), and the command's
 * proxy variables. Without the supervisor or Landlock's TCP rights it
 * cannot hold: the network stays off (the report says so). Returns 0, or
 * 125 after reporting.
 */
static int start_proxy(int abi, struct invocation *invocation, struct supervisor_setup *setup,
		       struct seccomp_program *filter, struct launch *launch)
{
	static struct proxy_config config;
	static const char *const variables[] = {
		"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "npm_config_proxy",
		"npm_config_https_proxy",
	};
	static char token[PROXY_TOKEN_LENGTH + 1];
	char url[128], socks[128];
	const char *pattern;
	size_t cursor = 0, i;
	unsigned port = 0;
	pid_t pid = 0;
	int lifeline = -1;
	int r;

	/* Without --deny-network (--proxy-off inside bwrap's namespace) the
	 * network is not ours to cut: the proxy only answers, and needs no
	 * way out. */
	if (invocation->deny_network && (setup->sv == NULL || abi < 4)) {
		/* With --proxy-off alone nothing is lost: the network is off
		 * as asked, only without the fast refusal. */
		if (invocation->proxy)
			report_line("network: no allowlist without the supervisor and Landlock ABI "
				    "4: the network stays off");
		return 0;
	}
	memset(&config, 0, sizeof(config));
	config.off = !invocation->proxy;
	/* args.c refuses more than LAUNCHER_PROXY_HOSTS_MAX of either list;
	 * past it here the run fails closed rather than drop an entry (a
	 * dropped deny would let its hosts through). */
	while (next_proxy_host(invocation, &cursor, false, &pattern)) {
		if (config.n_allow == LAUNCHER_PROXY_HOSTS_MAX)
			return proxy_hosts_overflow(LAUNCHER_ARG_PROXY_ALLOW);
		config.allow[config.n_allow++] = pattern;
	}
	cursor = 0;
	while (next_proxy_host(invocation, &cursor, true, &pattern)) {
		if (config.n_deny == LAUNCHER_PROXY_HOSTS_MAX)
			return proxy_hosts_overflow(LAUNCHER_ARG_PROXY_DENY);
		config.deny[config.n_deny++] = pattern;
	}
	config.allow_local = invocation->proxy_allow_local;
	config.hosts_file = invocation->proxy_hosts;
	config.ask = invocation->ask_fd >= 0;
	config.ask_fd = invocation->ask_fd;
	config.status_fd = channel_fd();
	/* The run's secret: made here, never in an argv (which every user
	 * can read in /proc), handed to the command in its proxy variables
	 * only. */
	r = proxy_make_token(token);
	if (r < 0) {
		report_failure("cannot start the network proxy: no random secret: %s",
			       strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	config.token = token;
	/* The host's own addresses are local too (an allowed name pointed at
	 * eth0's reaches what listens on 0.0.0.0): read before the proxy
	 * restricts itself. Off connects nothing and needs none. */
	r = config.off ? 0 : proxy_own_addresses(&config);
	if (r == -E2BIG) {
		report_failure("cannot start the network proxy: the host has more than %d "
			       "interface addresses, the most the proxy checks a destination "
			       "against", PROXY_OWN_MAX);
		return LAUNCHER_EXIT_FAILURE;
	}
	if (r < 0) {
		report_failure("cannot start the network proxy: cannot list the host's "
			       "interface addresses: %s", strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	r = proxy_start(&config, &pid, &lifeline, &port);
	if (r < 0) {
		report_failure("cannot start the network proxy: %s", strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	launch->helper = pid;
	launch->helper_lifeline = lifeline;
	invocation->proxy_port = port;
	if (invocation->deny_network) {
		/* Off reads as it did without the proxy: a refused connect is
		 * ECONNREFUSED, what bwrap's namespace answers (doc/SPEC.md 15). */
		/* Under the allowlist a direct connect is captured (carried to
		 * the proxy, decided by name); off keeps refusing it at once. */
		supervise_set_proxy(setup->sv, htonl(INADDR_LOOPBACK), htons((uint16_t)port),
				    config.off ? ECONNREFUSED : EACCES, config.off ? NULL : token);
		seccomp_filter_allow_tcp();
		r = seccomp_filter_build(invocation->deny_network, filter);
		if (r < 0) {
			report_failure("seccomp filter error: %s", strerror(-r));
			return LAUNCHER_EXIT_FAILURE;
		}
	}
	snprintf(url, sizeof(url), "http://" PROXY_USER ":%s@127.0.0.1:%u", token, port);
	snprintf(socks, sizeof(socks), "socks5h://" PROXY_USER ":%s@127.0.0.1:%u", token, port);
	for (i = 0; i < sizeof(variables) / sizeof(variables[0]); i++)
		if (setenv(variables[i], url, 1) != 0)
			return LAUNCHER_EXIT_FAILURE;
	/* Off: nothing can succeed, so pip's five retries with back-off
	 * (urllib3 retries a refused tunnel) only delay its failure. A value
	 * the caller set wins. */
	if (config.off && setenv("PIP_RETRIES", "0", 0) != 0)
		return LAUNCHER_EXIT_FAILURE;
	/* Names inside the run (doc/SPEC.md 15): glibc asks its nameserver
	 * over TCP, a connect the supervisor captures and the proxy answers. */
	if (!config.off) {
		const char *was = getenv("RES_OPTIONS");
		char options[512];
		int n = snprintf(options, sizeof(options), "%s%suse-vc", was != NULL ? was : "",
				 was != NULL && *was != '\0' ? " " : "");

		if (n < 0 || (size_t)n >= sizeof(options) || setenv("RES_OPTIONS", options, 1) != 0)
			return LAUNCHER_EXIT_FAILURE;
	}
	if (setenv("ALL_PROXY", socks, 1) != 0 || setenv("all_proxy", socks, 1) != 0 ||
	    setenv("NO_PROXY", "", 1) != 0 || setenv("no_proxy", "", 1) != 0 ||
	    setenv("NODE_USE_ENV_PROXY", "1", 1) != 0)
		return LAUNCHER_EXIT_FAILURE;
	return 0;
}

/* Builds and enforces everything but seccomp. abi < 0: no Landlock
 * (--best-effort). Returns 0, or 125 after reporting. */
static int restrict_self(int abi, const struct invocation *invocation)
{
	int ruleset_fd = -1;
	int r = 0;

	if (abi > 0) {
		ruleset_fd = landlock_build_ruleset(abi, invocation);
		if (ruleset_fd < 0)
			return LAUNCHER_EXIT_FAILURE;
	}
	/* Required by Landlock and seccomp for an unprivileged caller, and it
	 * stops setuid programs from shedding the sandbox. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		r = -errno;
	if (r == 0 && ruleset_fd >= 0)
		r = landlock_enforce(ruleset_fd);
	if (r == 0)
		r = drop_capabilities();
	if (ruleset_fd >= 0)
		close(ruleset_fd);
	if (r < 0) {
		/* Each step left undone would leave the command unconfined or
		 * privileged: all are fatal, with the ruleset error line. */
		report_failure("landlock ruleset error: %s", strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	return 0;
}

static int probe(int abi, const struct seccomp_program *filter)
{
	int r = seccomp_filter_install(filter);

	if (r < 0) {
		report_failure("landlock ruleset error: %s", strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	if (puts(landlock_abi_is_full(abi) ? LAUNCHER_PROBE_FULL : LAUNCHER_PROBE_PARTIAL) == EOF ||
	    fflush(stdout) != 0)
		return LAUNCHER_EXIT_FAILURE;
	return 0;
}

/* Long on purpose: the launcher's steps in their one safe order (parse,
 * channel, supervisor setup, Landlock, capabilities, fork and supervise). */
int main(int argc, char **argv)
{
	struct invocation invocation = { .status_fd = -1, .ask_fd = -1, .argv = argv };
	static struct seccomp_program filter;
	static struct supervisor_setup supervisor;
	struct launch launch;
	const char *bad_argument = NULL;
	enum usage_error usage;
	int status;
	int abi;
	int r;

	parent_prepare_signals();
	usage = parse_arguments(argc, argv, &invocation, &bad_argument);
	if (invocation.status_fd >= 0 && channel_open(invocation.status_fd) < 0 &&
	    usage == USAGE_OK) {
		report_failure("usage error: --status-fd %d: %s", invocation.status_fd,
			       strerror(EBADF));
		return LAUNCHER_EXIT_FAILURE;
	}
	if (usage != USAGE_OK)
		return report_usage_error(usage, bad_argument);
	/* The ask socket is the proxy's alone: never the command's. */
	if (invocation.ask_fd >= 0 &&
	    fcntl(invocation.ask_fd, F_SETFD, FD_CLOEXEC) < 0) {
		report_failure("usage error: --ask-fd %d: %s", invocation.ask_fd, strerror(EBADF));
		return LAUNCHER_EXIT_FAILURE;
	}

	r = seccomp_filter_build(invocation.deny_network, &filter);
	if (r < 0) {
		report_failure("seccomp filter error: %s",
			       r == -EAFNOSUPPORT ? "no syscall table for this architecture"
						  : strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}

	/* ENOSYS (not built in) and EOPNOTSUPP (disabled at boot) alike:
	 * nothing would be enforced, so nothing runs, unless the caller
	 * confines by other means (bwrap) and asked for the rest anyway. */
	abi = landlock_abi();
	if (abi < 0 && (!invocation.best_effort || invocation.probe)) {
		report_failure("landlock is not enforced by this kernel "
			       "(ABI unsupported or disabled)");
		return LAUNCHER_EXIT_FAILURE;
	}

	memset(&launch, 0, sizeof(launch));
	launch.lifeline_fd = -1;
	launch.helper_lifeline = -1;
	launch.close_inherited = invocation.status_fd >= 0;
	if (!invocation.probe) {
		if (invocation.status_fd >= 0) {
			launch.lifeline_fd = invocation.status_fd;
			launch.lifeline_is_channel = true;
		} else {
			launch.lifeline_fd = parent_open_lifeline();
			if (launch.lifeline_fd == -2) {
				report_failure("the process that started landlock-run is gone");
				return LAUNCHER_EXIT_FAILURE;
			}
			/* The harness the argv was made for died before the
			 * spawn: the parent is init or a subreaper, whose death
			 * is no harness's, and the run would go on orphaned
			 * (R4-F2). A reaper was alive when the harness died, so
			 * its pid is never the harness's. */
			if (invocation.starter > 0 && getppid() != invocation.starter) {
				report_failure("the process the argv was made for (pid %d) is not its "
					       "parent (pid %d): it is gone, and nothing runs without "
					       "it", invocation.starter, (int)getppid());
				return LAUNCHER_EXIT_FAILURE;
			}
			/* No channel: the spawner is not ours (a `wrap` argv's
			 * harness). The spawned process stays a waiter; its
			 * keeper goes on from here (lifeline.h). */
			launch.lifeline_fd = lifeline_split(launch.lifeline_fd, &launch.command_pgrp);
			if (launch.lifeline_fd < 0)
				return LAUNCHER_EXIT_FAILURE;
		}
	}

	/* The recorded identities first, before anything is mounted over
	 * them: what bwrap bound is what the library saw (identity.c). A
	 * staged run's overlay then, before the grants are opened: their
	 * rules name the overlay (stage-mount.c). */
	if (!invocation.probe) {
		status = identities_check(&invocation);
		if (status == 0)
			status = stage_mount(&invocation);
		if (status == 0)
			status = temp_mount(&invocation);
		if (status != 0)
			return status;
	}

	supervisor.sv = NULL;
	if (!invocation.probe) {
		/* Before any restriction: the grants are opened O_PATH. A
		 * writable grant that cannot be opened fails here with the
		 * ruleset's own line. */
		status = prepare_supervisor(abi, &invocation, &supervisor);
		if (status != 0)
			return status;
		if (invocation.proxy || invocation.proxy_off) {
			status = start_proxy(abi, &invocation, &supervisor, &filter, &launch);
			if (status != 0)
				return status;
		}
	}
	status = restrict_self(abi, &invocation);
	if (status != 0)
		return status;
	if (invocation.probe)
		return probe(abi, &filter);
	if (abi > 0 && !landlock_abi_is_full(abi)) {
		static const char notice[] = LAUNCHER_PARTIAL_NOTICE "\n";

		if (write(STDERR_FILENO, notice, sizeof(notice) - 1) < 0) {
			/* Informational only; the confinement stands. */
		}
	}

	launch.command = invocation.command;
	launch.script_argv = exec_command_script_argv(invocation.command);
	launch.filter = &filter;
	launch.limits = invocation.limits.n > 0 ? &invocation.limits : NULL;
	launch.layers = LAUNCHER_LAYER_SECCOMP;
	if (abi > 0)
		launch.layers |= landlock_abi_is_full(abi) ? LAUNCHER_LAYER_LANDLOCK
							   : LAUNCHER_LAYER_LANDLOCK_PARTIAL;
	launch.signal_scoped = abi > 0 && landlock_scopes_signals(abi);
	launch.listener.fd = -1;
	launch.listener.wait_fd = -1;
	if (supervisor.sv != NULL) {
		launch.hooks.child_install = supervisor_child_install;
		launch.hooks.parent_attach = supervisor_parent_attach;
		launch.hooks.context = &supervisor;
		launch.layers |= LAUNCHER_LAYER_SUPERVISOR;
	}
	launch_and_supervise(&launch);
}
