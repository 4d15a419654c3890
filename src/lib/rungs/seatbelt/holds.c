/* SPDX-License-Identifier: MIT */
/*
 * What the Seatbelt rung holds of each clause (doc/SPEC.md 15), read by the
 * clause engine (../clauses.c): its SBPL profile says every file rule
 * itself (protected paths and denyRead included), the network and
 * unix-socket allowances, metadata and devices; it runs no launcher, so
 * no supervisor and no limits; workspace-write grants the host's /tmp and
 * the per-user temp directory, shared. Signals and abstract sockets are
 * not listed (no such clause in a profile of macOS's).
 */
#include "rungs/rung.h"

extern const cf_rung_holds cf_seatbelt_holds CONFINE_HIDDEN;

const cf_rung_holds cf_seatbelt_holds = {
	.layer = CONFINE_LAYER_SEATBELT,
	.launcher = CF_RUNG_NO_LAUNCHER,
	.protect = CF_RUNG_HOLDS_OWN,
	.defaults = CF_RUNG_HOLDS_OWN,
	.allowlist_needs = "the landlock runner (confine --runner landlock)",
	.network_off_by_launcher = false,
	.unix_alone = CONFINE_LAYER_SEATBELT,
	.temp = CF_RUNG_TEMP_RUN_DIR,
	.temp_shared_gap = { "bubblewrap", "the host's /tmp and the per-user temp directory are "
	                                   "granted writable and shared with other programs: their "
	                                   "files are the command's to touch" },
	.metadata = CONFINE_LAYER_SEATBELT,
	.devices = CONFINE_LAYER_SEATBELT,
	.scopes = false,
	.limit_temp_gap = { "a temp area of the run's own filesystem (a sized tmpfs)",
	                    "the temp area is a directory on the host's filesystem" },
};
