/*
 * landlock-run: restrict this process with Landlock, then run the command
 * and stay as its parent.
 *
 *   landlock-run [--ro PATH]... [--rw PATH]... [--status-fd N] [--best-effort]
 *                [--deny-network] -- PROGRAM [ARG...]
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
 * the ruleset is built while capabilities may still be needed to open
 * grants; no_new_privs, then the Landlock domain, then every capability
 * dropped; then the fork (parent.c), where the child installs the
 * seccomp filter and execs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "args.h"
#include "capabilities.h"
#include "channel.h"
#include "parent.h"
#include "ruleset.h"
#include "seccomp-filter.h"

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

int main(int argc, char **argv)
{
	struct invocation invocation = { false, false, false, -1, argv, NULL };
	static struct seccomp_program filter;
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
	launch.filter = &filter;
	launch.layers = LAUNCHER_LAYER_SECCOMP;
	if (abi > 0)
		launch.layers |= landlock_abi_is_full(abi) ? LAUNCHER_LAYER_LANDLOCK
							   : LAUNCHER_LAYER_LANDLOCK_PARTIAL;
	launch.signal_scoped = abi > 0 && landlock_scopes_signals(abi);
	/* HOOK(supervisor): launch.hooks (child_install, parent_attach) and
	 * LAUNCHER_LAYER_SUPERVISOR in launch.layers; see parent.h. */
	launch.listener.fd = -1;
	launch_and_supervise(&launch);
}
