/* SPDX-License-Identifier: MIT */
/*
 * What the bwrap rung holds of each clause (doc/SPEC.md 15), read by the
 * clause engine (../clauses.c). Its own mount, PID and network namespaces
 * hold the mode; read-only binds hold protected paths and masks hide
 * denyRead names (by name: a save on the host detaches either); the
 * launcher inside it, when the argv runs one (facts.layered), adds its
 * Landlock rules (which follow inodes), its supervisor and rlimits. The
 * network off is bwrap's --unshare-net alone: the launcher inside is given
 * the network on (no --deny-network, so no seccomp family filter), as
 * bwrap already cut it.
 */
#include "rungs/rung.h"

#define NEEDS_LAUNCHER "the launcher inside bubblewrap"

extern const cf_rung_holds cf_bwrap_holds CONFINE_HIDDEN;

const cf_rung_holds cf_bwrap_holds = {
	.layer = CONFINE_LAYER_BWRAP,
	.launcher = CF_RUNG_LAUNCHER_INSIDE,
	.binds_layer = CONFINE_LAYER_BWRAP,
	.stage_how = "overlayfs over each staged root, mounted by the launcher inside bwrap's "
	             "namespaces (CAP_SYS_ADMIN for the mount alone, dropped before the command): "
	             "writes land in the stage",
	.placeholders = true,
	.protect = CF_RUNG_HOLDS_BINDS,
	.defaults = CF_RUNG_HOLDS_BINDS,
	.deny_by_name = "held by its name: a save on the host over it (a rename onto the name) "
	                "detaches bwrap's mask, and ",
	.allowlist_needs = NEEDS_LAUNCHER,
	.network_off_by_launcher = false,
	.unix_with_supervisor = CONFINE_LAYER_BWRAP,
	.unix_gap = { NEEDS_LAUNCHER, "a socket another program made under a read-only bind (/run, "
	                              "/var/run) is reachable: only the launcher's supervisor "
	                              "decides connects" },
	.temp = CF_RUNG_TEMP_TMPFS,
	.metadata = CONFINE_LAYER_BWRAP,
	.devices = CONFINE_LAYER_BWRAP,
	.launcher_needs = NEEDS_LAUNCHER,
	.scopes = true,
	.signals = CONFINE_LAYER_BWRAP,
	.abstract_off = CONFINE_LAYER_BWRAP,
	.abstract_needs = NEEDS_LAUNCHER " with Landlock ABI 6",
	.limit_temp_gap = { "the launcher inside bubblewrap (it sizes /tmp), or bubblewrap 0.9 (--size)",
	                    "bwrap's /tmp is a tmpfs without a size (half of RAM, host memory)" },
	.limit_temp_sized = CONFINE_LAYER_BWRAP,
};
