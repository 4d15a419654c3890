/* SPDX-License-Identifier: MIT */
/*
 * What the Landlock rung holds of each clause (doc/SPEC.md 15), read by the
 * clause engine (../clauses.c): the launcher alone, in the host's
 * namespaces. Its Landlock ruleset holds the mode (all of it from ABI 5);
 * a right on a directory covers its whole tree, so nothing inside a
 * writable grant is kept read-only or unreadable; seccomp refuses socket
 * families with the network off; the supervisor decides metadata, set-ID
 * bits, device nodes and unix-socket connects where it can run; the
 * scopes (ABI 6) hold signals and abstract sockets; the temp area is the
 * run's own directory, and workspace-write grants the host's /dev/shm.
 */
#include <string.h>

#include "rungs/landlock/landlock.h"
#include "rungs/rung.h"

#define NEEDS_BWRAP "bubblewrap"

static bool deny_read_open(const confine_policy *policy, const cf_plan *plan, const char *real) {
	return strcmp(real, "/") == 0 || cf_landlock_under_write_grant(policy, plan, real);
}

extern const cf_rung_holds cf_landlock_holds CONFINE_HIDDEN;

const cf_rung_holds cf_landlock_holds = {
	.layer = CONFINE_LAYER_LANDLOCK,
	.launcher = CF_RUNG_IS_LAUNCHER,
	.landlock_files = true,
	.stage_how = "overlayfs over each staged root, mounted by the launcher in a user and mount "
	             "namespace of its own (a mount namespace alone as root): writes land in the "
	             "stage",
	.mode_gap = { "Landlock ABI 5 or " NEEDS_BWRAP, NULL },
	.protect = CF_RUNG_HOLDS_NOT,
	.protect_gap = { NEEDS_BWRAP, "Landlock cannot keep a path read-only inside a directory it "
	                              "grants writable" },
	.defaults = CF_RUNG_HOLDS_NOT,
	.defaults_gap = { NEEDS_BWRAP, "Landlock cannot keep a default-protected path (a "
	                               "repository's git files, what runs later) read-only inside "
	                               "a writable grant: gitHazards reports what the run changes "
	                               "there" },
	.defaults_none_gap = { NEEDS_BWRAP, "Landlock keeps no repository's hooks and config "
	                                    "read-only, one the run creates included: gitHazards "
	                                    "reports what the run leaves" },
	.deny_read_open = deny_read_open,
	.deny_read_gap = { NEEDS_BWRAP, "it lies inside a directory Landlock grants writable, and "
	                                "Landlock cannot take read access away below a grant" },
	.network_off_by_launcher = true,
	.unix_gap = { "seccomp user notification",
	              "the launcher's supervisor cannot run here (seccomp user notification)" },
	.temp = CF_RUNG_TEMP_RUN_DIR,
	.host_dev_shm = true,
	.temp_shared_gap = { NEEDS_BWRAP, NULL },
	.metadata = 0,
	.metadata_gap = { NEEDS_BWRAP, "Landlock does not restrict chmod, chown, utimes or xattrs, "
	                               "and the supervisor cannot run here" },
	.devices = CONFINE_LAYER_LANDLOCK,
	.devices_supervisor = true,
	.scopes = true,
	.signals_needs = "Landlock ABI 6 or " NEEDS_BWRAP,
	.abstract_needs = "Landlock ABI 6 or " NEEDS_BWRAP,
	.limit_temp_gap = { "a temp area of the run's own filesystem (a sized tmpfs)",
	                    "the temp area is a directory on the host's filesystem" },
	.limit_temp_sized = CONFINE_LAYER_LANDLOCK,
	.limit_temp_own_dir = true,
};
