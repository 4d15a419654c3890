/*
 * The identities the library recorded (--identity DEV:INO:PATH, identity.c):
 * inside bwrap, each path bwrap bound from the host must still be the inode
 * the library saw when it made the argv, or nothing runs (doc/SPEC.md 7,
 * 14; red team F3).
 */
#ifndef LAUNCHER_IDENTITY_H
#define LAUNCHER_IDENTITY_H

#include "args.h"

/* Every --identity, checked before anything is mounted or granted: 0, or
 * 125 after reporting the first path that is not what was recorded. */
int identities_check(const struct invocation *invocation);

/* The check of each grant's own descriptor is grant-open.h's
 * (grant_identity_matches), which the supervisor shares. */

#endif
