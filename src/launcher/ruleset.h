/*
 * Landlock: the rights each ABI handles, the grants, the scopes (SPEC 7,
 * DESIGN D3).
 */
#ifndef LAUNCHER_RULESET_H
#define LAUNCHER_RULESET_H

#include <stdbool.h>

#include "args.h"

/* Returns the ABI to use (>= 1), or -errno when the kernel cannot enforce
 * (ENOSYS: not built in; EOPNOTSUPP: disabled at boot). */
int landlock_abi(void);

/* Below this ABI some file access SPEC 7 names stays unconfined: the run
 * is "partial" and the notice is printed. */
bool landlock_abi_is_full(int abi);

/* Whether a domain built for abi confines signals (LANDLOCK_SCOPE_SIGNAL):
 * then a process in it can signal only processes in it or below. */
bool landlock_scopes_signals(int abi);

/* Whether abi has LANDLOCK_ACCESS_FS_RESOLVE_UNIX (ABI 9): Landlock then
 * decides pathname unix socket connects and sends itself, and the
 * supervisor leaves them alone. */
bool landlock_resolves_unix(int abi);

/* Creates the ruleset for abi and adds every grant (the probe: one
 * read-only grant of "/"). Returns the ruleset fd (close-on-exec), or -1
 * after reporting the failure. */
int landlock_build_ruleset(int abi, const struct invocation *invocation);

/* Restricts this process with the ruleset. Returns 0, or -errno.
 * no_new_privs must already be set (or CAP_SYS_ADMIN held). */
int landlock_enforce(int ruleset_fd);

/* Restricts this process to no file access at all (every file right of
 * `abi` handled, no rule): the proxy's. 0 or -errno. */
int landlock_deny_all_files(int abi);

/* In the child, before exec, where the domain scopes signals (ABI 6): a
 * nested domain that scopes signals and restricts no file access (it
 * handles REFER only to grant it everywhere: unhandled, REFER is still
 * denied by any domain), so
 * the command can signal its own tree but not the launcher, which sits in
 * the outer domain (a SIGSTOP to it would silence the lifeline; a SIGKILL
 * before it writes `started` would read as a runner failure and make the
 * ladder run the command again). The launcher still signals the command:
 * the command's domain is nested in its own. Returns 0 or -errno. */
int landlock_scope_command_signals(void);

#endif
