/*
 * The supervisor's refusals, told to whoever started the launcher
 * (doc/SPEC.md 12, 13): each refusal site names the clause, the operation
 * and the inode it decided on; the object is that inode's path as the
 * command sees it (the supervisor shares its mounts). The launcher hands a
 * reporter in (channel.c's record_denied); without one, as in the test
 * driver, nothing is told.
 */
#ifndef CONFINE_LAUNCHER_SUPERVISE_REPORT_H
#define CONFINE_LAUNCHER_SUPERVISE_REPORT_H

#include "supervise-internal.h"

typedef void (*supervise_reporter)(const char *clause, const char *op, const char *object);

/* Sets the reporter (NULL: none). */
void supervise_set_reporter(supervise_reporter reporter);

/* Tells the reporter that `op` on the pinned `target` was refused under
 * `clause`; returns `error` (a negative errno) for the refusal site to
 * answer with. */
int sv_refuse(const char *clause, const char *op, const struct sv_target *target, int error);

/* One "landlock-run: <line>" on stderr, for a refusal that has no path
 * (the network's; the launcher's stderr is the network marker). */
void sv_tell(const char *line);

#endif
