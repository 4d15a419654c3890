/*
 * The sized temp area (--temp-size BYTES:PATH, doc/SPEC.md 15 "Limits"):
 * before the grants are opened, the launcher makes PATH a tmpfs of at most
 * BYTES, so filling it fails with ENOSPC. On bwrap's rung PATH is bwrap's
 * own /tmp tmpfs (bwrap's --cap-add gives the launcher CAP_SYS_ADMIN for
 * this, dropped with the others before the command): remounted with the
 * size as root; as a user (its superblock is bwrap's outer namespace's) a
 * fresh sized tmpfs in a mount namespace of the launcher's own, the mounts
 * that were on /tmp bound back. On the Landlock rung PATH is the run's
 * private temp directory,
 * and a fresh tmpfs is mounted over it in a mount namespace of the
 * launcher's own (a user namespace too, for a caller without
 * CAP_SYS_ADMIN), so the host's disk never holds the run's temp files.
 * With --private-shm, /dev/shm gets a fresh tmpfs of the same size in
 * that namespace too (never the host's: bwrap's remount is skipped then).
 */
#ifndef LAUNCHER_TEMP_MOUNT_H
#define LAUNCHER_TEMP_MOUNT_H

#include "args.h"

/* 0 when no size is asked for or the temp area is sized; 125 after
 * reporting. Called after stage_mount (whose namespace it then uses). */
int temp_mount(const struct invocation *invocation);

#endif
