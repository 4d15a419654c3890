/* SPDX-License-Identifier: MIT */
/*
 * The command's exec: execvp(3) as glibc does it, whatever the C library
 * the launcher is built with (musl's execvp does not run a file without a
 * `#!` line through /bin/sh, glibc's does, and commands rely on it).
 */
#ifndef LANDLOCK_RUN_EXEC_COMMAND_H
#define LANDLOCK_RUN_EXEC_COMMAND_H

/* Before the fork: the argv for the /bin/sh fallback (slot 1 is set to the
 * file found); NULL when out of memory (then no fallback is tried). */
char **exec_command_script_argv(char *const *command);

/* Between fork and exec (no allocation): searches PATH when command[0]
 * has no slash (PATH unset: /bin:/usr/bin; an empty entry is the current
 * directory), execs the first file found, and a file the kernel calls
 * ENOEXEC through /bin/sh. Returns only on failure, errno set: EACCES when
 * some candidate was not executable, else the last error. */
void exec_command(char *const *command, char **script_argv);

#endif
