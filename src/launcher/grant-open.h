/*
 * Opening a grant's path (grant-open.c): the launcher's rules and the
 * supervisor's identities name what the library validated, never what a
 * symlink put there since (doc/SPEC.md 7; red team, round 4).
 */
#ifndef LAUNCHER_GRANT_OPEN_H
#define LAUNCHER_GRANT_OPEN_H

/* An O_PATH, close-on-exec descriptor of `path`, resolved without
 * following any symbolic link (the library hands canonical paths: a link
 * in one now is a swap since, and refused with -ELOOP). -errno on failure. */
int grant_open(const char *path);

#include <stdbool.h>

/* Whether `fd` is the inode st_dev `dev`, st_ino `ino`. */
bool grant_same_inode(int fd, unsigned long long dev, unsigned long long ino);
/* Records the identity the library gave `path` (--identity, checked by
 * identity.c); past LAUNCHER_IDENTITIES_MAX nothing (the parser holds argv
 * to it). `path` must outlive the run (it points into argv). */
void grant_identity_record(const char *path, unsigned long long dev, unsigned long long ino);
/* `path`'s recorded identity becomes what is there now: the launcher's own
 * mount over it (a staged run's overlay, stage-mount.c), made after
 * identity.c checked what bwrap bound. */
void grant_identity_renew(const char *path);
/* Whether the descriptor `fd`, opened for the grant `path`, is the inode
 * recorded for `path` (true where none was): each writable grant's rule and
 * the supervisor's identity are checked on their own descriptors, so a swap
 * after identity.c's check moves nothing. */
bool grant_identity_matches(const char *path, int fd);

#endif
