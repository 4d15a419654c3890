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

#endif
