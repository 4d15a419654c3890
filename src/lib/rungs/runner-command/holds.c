/* SPDX-License-Identifier: MIT */
/*
 * What the runnerCommand rung holds of each clause (doc/SPEC.md 15), read
 * by the clause engine (../clauses.c): the operator asserts a bwrap-shaped
 * runner that fully enforces the bwrap profile, so it holds what the
 * profile's binds and namespaces hold (named by bwrap's layer, as the
 * profile is bwrap's), the mode by its own word; it runs no launcher of
 * ours (no supervisor, rlimits, Landlock scopes) and no spawner of ours
 * notices a protected path replaced on the host.
 */
#include "rungs/rung.h"

#define NEEDS_LAUNCHER "the launcher inside bubblewrap"

extern const cf_rung_holds cf_runner_command_holds CONFINE_HIDDEN;

const cf_rung_holds cf_runner_command_holds = {
	.layer = CONFINE_LAYER_RUNNER_COMMAND,
	.launcher = CF_RUNG_NO_LAUNCHER,
	.binds_layer = CONFINE_LAYER_BWRAP,
	.placeholders = false,
	.protect = CF_RUNG_HOLDS_BINDS,
	.defaults = CF_RUNG_HOLDS_BINDS,
	.deny_by_name = "held by its name: a save on the host over it (a rename onto the name) "
	                "detaches bwrap's mask, and ",
	.allowlist_needs = "the landlock runner (confine --runner landlock)",
	.network_off_by_launcher = false,
	.unix_gap = { NEEDS_LAUNCHER, "a socket another program made under a read-only bind (/run, "
	                              "/var/run) is reachable: only the launcher's supervisor "
	                              "decides connects" },
	.temp = CF_RUNG_TEMP_TMPFS,
	.metadata = CONFINE_LAYER_RUNNER_COMMAND,
	.devices = CONFINE_LAYER_BWRAP,
	.launcher_needs = NEEDS_LAUNCHER,
	.scopes = true,
	.signals = CONFINE_LAYER_BWRAP,
	.abstract_off = CONFINE_LAYER_BWRAP,
	.abstract_needs = NEEDS_LAUNCHER " with Landlock ABI 6",
	.limit_temp_gap = { "the launcher inside bubblewrap (it sizes /tmp), or bubblewrap 0.9 (--size)",
	                    "bwrap's /tmp is a tmpfs without a size (half of RAM, host memory)" },
};
