/*
 * A staged run (doc/SPEC.md 21): before anything is opened or restricted,
 * the launcher moves into a user and mount namespace of its own and mounts
 * overlayfs over each staged root, the real tree below, the stage's upper
 * directory above, so every write lands in the stage.
 */
#ifndef LAUNCHER_STAGE_MOUNT_H
#define LAUNCHER_STAGE_MOUNT_H

#include "args.h"

/* Moves this (single-threaded) process into a mount namespace of its own,
 * with a user namespace mapping its uid and gid onto themselves where it
 * lacks CAP_SYS_ADMIN, every mount private. `what` prefixes a failure
 * ("stage", "temp"). 0, or 125 after reporting. */
int private_mount_namespace(const char *what);

/* 0 when there is no stage or it is mounted; 125 after reporting. */
int stage_mount(const struct invocation *invocation);

#endif
