/* SPDX-License-Identifier: MIT */
/* What a decider may trust (doc/SPEC.md 15, "Ask"; red team R3-F6, R4-F1). */
#ifndef CONFINE_CLI_ASK_TRUST_H
#define CONFINE_CLI_ASK_TRUST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <confine.h>

/* Whether `path` is `root` or lies below it, component-wise. */
bool cli_trust_at_or_under(const char *path, const char *root);

/* The place of `policy` the confined command may write that holds `path`
 * (the workspace under workspace-write, a writable root, one to be made,
 * the run's temp directory, /dev/shm under workspace-write), or NULL. */
const char *cli_trust_writable_area(const confine_policy *policy, const char *path);

/* A place of `policy` the confined command may write (as
 * cli_trust_writable_area lists them) that lies on filesystem `dev`, or
 * NULL: where a hard link to a file of `dev` could be (R4-F6). */
const char *cli_trust_writable_on_device(const confine_policy *policy, dev_t dev);

/* Whether canonical `real` and each directory above it are owned by root
 * or the caller and writable by neither group nor others (a sticky
 * directory of root's, /tmp, passes as an ancestor); `why` says which
 * not. */
bool cli_trust_owned_safely(const char *real, char *why, size_t size);

/* The decider's environment, made before the run (nothing is allocated
 * between fork and exec): the caller's, but PATH keeps only absolute,
 * existing directories in no place the command may write and replaceable
 * by no other user (/usr/bin:/bin when none is left), every other
 * variable naming an absolute path in such a place is dropped (LD_PRELOAD,
 * PYTHONPATH, BASH_ENV, VIRTUAL_ENV, NODE_OPTIONS' --require ...), and
 * PWD is "/" (the decider runs there, never in the workspace). 0, or
 * -ENOMEM. */
int cli_ask_env_make(const confine_policy *policy, char ***ret);

#endif
