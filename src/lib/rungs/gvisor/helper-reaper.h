/* SPDX-License-Identifier: MIT */
/*
 * confine-gvisor's reaper (helper-reaper.c) and what it shares with the
 * helper (helper.c): the run directory's removal and runsc's cgroups.
 */
#ifndef CONFINE_RUNGS_GVISOR_HELPER_REAPER_H
#define CONFINE_RUNGS_GVISOR_HELPER_REAPER_H

/* helper.c: the tree at path removed (0 or -errno); the cgroups runsc
 * made for container `id` removed once empty. */
int gv_remove_tree(const char *path);
void gv_remove_cgroups(const char *id);

/* Starts the reaper for container `id` of run directory `run_dir`, run by
 * runsc_base (runsc and its global flags, NULL-terminated). Returns the
 * descriptor the helper holds as its lifeline (close-on-exec), or -errno.
 * When the helper ends without gv_reaper_done(), however it ends (SIGKILL
 * included), the reaper kills the sandbox, deletes the container and
 * removes the run directory. */
int gv_reaper_start(char *const *runsc_base, const char *id, const char *run_dir);
/* What the reaper does: every process of the sandbox killed, the
 * container deleted, the run directory and cgroups removed. */
void gv_reap(char *const *runsc_base, const char *id, const char *run_dir);
/* The helper has ended runsc and cleaned up itself: the reaper leaves. */
void gv_reaper_done(int fd);

#endif
