/* SPDX-License-Identifier: MIT */
/*
 * What the project's launcher will apply in an argv another process spawns
 * (`wrap`, `confine_confine`): that spawner has no status channel, so the
 * launcher cannot tell it its `layers` (doc/SPEC.md 12). The argv carries
 * them instead, predicted on this host when it is made, from the two
 * things the launcher itself decides by: the kernel's Landlock ABI and
 * whether the supervisor can run (src/common/supervisor-probe.h). A
 * process spawned from this one has the same kernel and inherits its
 * seccomp filters; where the spawn finds otherwise, the launcher says so
 * on stderr before the command starts (the partial notice, the
 * no-supervisor line: informational lines of the argv's rule).
 */
#ifndef CONFINE_RUNGS_LANDLOCK_FORECAST_H
#define CONFINE_RUNGS_LANDLOCK_FORECAST_H

#include <stdbool.h>

#include "rungs/rung.h"

#define CF_FORECAST_WORDS_MAX 8

typedef struct cf_launcher_forecast {
	unsigned layers; /* enum launcher_layer bits (launcher-protocol.h) */
	/* `unenforced` words (doc/SPEC.md 15) for what a missing layer leaves
	 * out, NULL-terminated, static strings. */
	const char *unenforced[CF_FORECAST_WORDS_MAX + 1];
	/* One of them is a file effect of the mode or unix-sockets: partial. */
	bool partial;
} cf_launcher_forecast;

/*
 * Pure. `abi`: the kernel's Landlock ABI, -1 for none (only the layered
 * bwrap rung runs then: --best-effort). `supervisor_missing`: what
 * supervisor-probe.h found missing, NULL when the supervisor can run.
 * `inside_outer`: the launcher runs inside an outer rung (bwrap), whose
 * mounts govern the mode's file effects (the ABI's missing file rights are
 * then not unenforced) and whose PID namespace keeps signals in;
 * `network_off`: its network namespace then keeps abstract sockets in too.
 *  - layers: `landlock` (ABI >= 5), `landlock-partial` (1-4), neither (none);
 *    `seccomp` always; `supervisor` when it can run.
 *  - no supervisor: `metadata`, `unix-sockets` (partial).
 *  - Landlock alone: ABI < 2 `refer`, < 3 `truncate`, < 5 `ioctl-dev`
 *    (partial); < 6 `abstract-unix-sockets`, `signals` (listed only).
 *  - inside bwrap: ABI < 6 with the network on `abstract-unix-sockets`
 *    (listed only).
 */
void cf_launcher_forecast_make(int abi, const char *supervisor_missing, bool inside_outer,
                               bool network_off, cf_launcher_forecast *ret) CONFINE_HIDDEN;

/*
 * For an argv for others of a row that runs the launcher: the forecast on
 * this host, into `c`: c->layers (the words), the unenforced words (no
 * duplicates), `partial`, and "allowUnixSockets" dropped from c->unenforced
 * (the launcher mediates pathname sockets). With require_full a partial
 * forecast refuses: SANDBOX_UNAVAILABLE, detail "requireFull: <title> does
 * not enforce <words> (the supervisor cannot run here: <what>)" or without
 * the parenthesis when the supervisor is not what is missing. 0 or the
 * negative errno (the error set).
 */
int cf_launcher_forecast_apply(const cf_runner_def *def, const confine_policy *policy,
                               confine_argv *c, confine_error *err) CONFINE_HIDDEN;

#endif
