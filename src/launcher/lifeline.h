/*
 * The spawned launcher's keeper (doc/SPEC.md 7, "The wrap argv's
 * lifeline"; SECURITY F1). Without a status channel the process that
 * spawned the launcher is not ours (a `wrap` argv's harness), and it may
 * SIGKILL the launcher or its process group: the command's setsid'd or
 * double-forked descendants would then outlive it, reparented to init.
 * So the spawned launcher splits: the spawned process stays as a thin
 * waiter outside every Landlock domain, and its child, the keeper, in a
 * process group of its own (a killpg of the harness's group does not reach
 * it), does all the rest: it is the child subreaper ancestor of the command,
 * and its lifeline is a pipe whose write end only the spawned process
 * holds. However the spawned process dies, SIGKILL included, the pipe
 * ends and the keeper kills every descendant (parent.c's end_the_tree).
 * The command, in a nested Landlock domain that scopes signals (ABI 6),
 * can neither signal nor ptrace the keeper, which is not dumpable.
 */
#ifndef LAUNCHER_LIFELINE_H
#define LAUNCHER_LIFELINE_H

#include <sys/types.h>

/* The sigqueue value of a terminal's signal the spawned process passes on:
 * the keeper treats it as the terminal's (SI_KERNEL), sent to the command's
 * process group, which the command may already have had. */
#define LIFELINE_FROM_TERMINAL 0x4c4c5254

/*
 * Forks the keeper. In the spawned process it never returns: it waits for
 * the keeper, forwards signals to it, kills whatever is reparented to it,
 * and exits the way the keeper did (which is the command's way). `starter`
 * is the spawned process's own lifeline (a pidfd of its starter, or -1):
 * when it goes, the keeper ends the tree and the spawned process exits 125
 * after it.
 * In the keeper it returns the lifeline to poll (the pipe's read end,
 * close-on-exec) and sets *command_pgrp to the process group the command
 * must join (the spawned process's: the harness's signals to that group
 * reach the command as before). Returns -1 after reporting when the fork
 * or the pipe fails (the launcher exits 125).
 */
int lifeline_split(int starter, pid_t *command_pgrp);

#endif
