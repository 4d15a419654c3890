/* SPDX-License-Identifier: MIT */
/* The contract's vocabulary: modes, enforcement, runners, error codes, and
 * the exact SANDBOX_UNAVAILABLE text. The runners' names are their rows'
 * (rungs/rungs.c). */
#include <errno.h>
#include <string.h>

#include "config.h"
#include "util.h"

const char *confine_version(void) {
	return CONFINE_VERSION;
}

const char *confine_error_code_name(confine_error_code code) {
	switch (code) {
	case CONFINE_OK: return "OK";
	case CONFINE_E_SANDBOX_UNAVAILABLE: return "SANDBOX_UNAVAILABLE";
	case CONFINE_E_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
	case CONFINE_E_INVALID_CONFIG: return "INVALID_CONFIG";
	case CONFINE_E_INVALID_POLICY: return "INVALID_POLICY";
	case CONFINE_E_SPAWN: return "SPAWN_FAILED";
	case CONFINE_E_SYSTEM: return "SYSTEM_ERROR";
	case CONFINE_E_DENIED: return "DENIED";
	case CONFINE_E_FS: return "FS_ERROR";
	}
	return "UNKNOWN";
}

static const char *const mode_names[] = {
	[CONFINE_MODE_READ_ONLY] = "read-only",
	[CONFINE_MODE_WORKSPACE_WRITE] = "workspace-write",
	[CONFINE_MODE_DANGER_FULL_ACCESS] = "danger-full-access",
};

int confine_mode_parse(const char *text, confine_mode *ret, confine_error *err) {
	if (text)
		for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
			if (strcmp(text, mode_names[i]) == 0) {
				*ret = (confine_mode)i;
				return 0;
			}
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "mode", 0,
	                    "unknown sandbox mode \"%s\" (expected read-only, workspace-write or "
	                    "danger-full-access)",
	                    text ? text : "(null)");
}

const char *confine_mode_name(confine_mode mode) {
	if ((unsigned)mode >= sizeof mode_names / sizeof mode_names[0])
		return NULL;
	return mode_names[mode];
}

bool confine_mode_is_confined(confine_mode mode) {
	return mode == CONFINE_MODE_READ_ONLY || mode == CONFINE_MODE_WORKSPACE_WRITE;
}

bool confine_mode_is_wider(confine_mode candidate, confine_mode current) {
	/* The enum's order is the width order. */
	return (int)candidate > (int)current;
}

const char *confine_enforcement_name(confine_enforcement enforcement) {
	switch (enforcement) {
	case CONFINE_ENFORCEMENT_FULL: return "full";
	case CONFINE_ENFORCEMENT_PARTIAL: return "partial";
	}
	return NULL;
}

const char *confine_clause_status_name(confine_clause_status status) {
	switch (status) {
	case CONFINE_CLAUSE_ENFORCED: return "enforced";
	case CONFINE_CLAUSE_PARTIAL: return "partial";
	case CONFINE_CLAUSE_UNENFORCED: return "unenforced";
	}
	return NULL;
}

/* The contract's names of the runners (confine.h, doc/SPEC.md 2): words
 * of the vocabulary as the layers' are, so every layer may print them; a
 * rung's row (rungs/) carries its id, never a second spelling. */
const char *confine_runner_name(confine_runner runner) {
	static const char *const names[] = {
		[CONFINE_RUNNER_NONE] = "none",
		[CONFINE_RUNNER_BWRAP] = "bwrap",
		[CONFINE_RUNNER_LANDLOCK] = "landlock",
		[CONFINE_RUNNER_SEATBELT] = "seatbelt",
		[CONFINE_RUNNER_RUNNER_COMMAND] = "runnerCommand",
		[CONFINE_RUNNER_GVISOR] = "gvisor",
	};
	return (unsigned)runner < sizeof names / sizeof names[0] ? names[runner] : NULL;
}

const char *confine_layer_name(unsigned index) {
	static const char *const names[CONFINE_LAYER_COUNT] = {
		"bwrap", "landlock", "seccomp", "supervisor", "seatbelt", "confine", "runnerCommand",
		"cgroup", "rlimit", "gvisor",
	};
	return index < CONFINE_LAYER_COUNT ? names[index] : NULL;
}

int confine_error_sandbox_unavailable(confine_error *err, confine_mode mode,
                                      const char *runner_failure_detail) {
	const char *name = confine_mode_name(mode);
	/* requireFull refusing a rung that is there and runs (issue 28.3):
	 * telling the caller to install what it has would mislead. */
	if (runner_failure_detail && strncmp(runner_failure_detail, "requireFull: ", 13) == 0)
		return cf_error_set(
			err, EHOSTUNREACH, CONFINE_E_SANDBOX_UNAVAILABLE, "runner", 0,
			"sandbox mode \"%s\" is requested with requireFull, and the sandbox this host "
			"offers does not enforce the whole policy; refusing to run the command with less. "
			"Drop requireFull to run it with enforcement \"partial\", or change the policy "
			"or the host so that the clause named below holds. Runner failure: %s",
			name ? name : "?", runner_failure_detail);
	if (runner_failure_detail)
		return cf_error_set(
			err, EHOSTUNREACH, CONFINE_E_SANDBOX_UNAVAILABLE, "runner", 0,
			"sandbox mode \"%s\" is requested but no sandbox backend is usable on this host; "
			"refusing to run the command unconfined. Install bubblewrap or run a "
			"Landlock-enforcing kernel (Linux), ensure sandbox-exec is usable (macOS) "
			"\xe2\x80\x94 Windows has no confinement backend yet \xe2\x80\x94 or switch the "
			"consumer to danger-full-access. Runner failure: %s",
			name ? name : "?", runner_failure_detail);
	return cf_error_set(
		err, EHOSTUNREACH, CONFINE_E_SANDBOX_UNAVAILABLE, "confine", 0,
		"sandbox mode \"%s\" is requested but no sandbox backend is usable on this host; "
		"refusing to run the command unconfined. Install bubblewrap or run a "
		"Landlock-enforcing kernel (Linux), ensure sandbox-exec is usable (macOS) "
		"\xe2\x80\x94 Windows has no confinement backend yet \xe2\x80\x94 or switch the "
		"consumer to danger-full-access.",
		name ? name : "?");
}
