/* SPDX-License-Identifier: MIT */
/*
 * The launcher's resource-limit words (doc/SPEC.md 7, 15 "Limits"), shared
 * by the library that writes them and the launcher that applies them:
 *
 *   landlock-run --rlimit NAME=N ...
 *
 * sets NAME's soft and hard limit to N (never above the hard limit it was
 * given) in the command's process, just before its exec, so the launcher
 * and its supervisor are not bound by the command's limits. `cpu` keeps the
 * hard limit one second above the soft one: SIGXCPU first, then SIGKILL.
 * With `fsize` the command starts with SIGXFSZ ignored, so a write past the
 * bound fails with EFBIG (a tool can say so) instead of killing the writer.
 */
#ifndef CONFINE_COMMON_LAUNCHER_LIMITS_H
#define CONFINE_COMMON_LAUNCHER_LIMITS_H

#define LAUNCHER_RLIMIT_FLAG "--rlimit"

/* NAME words, in confine_limit order where one maps (pids, memory,
 * cpuSeconds, fileSize, -, openFiles). */
#define LAUNCHER_RLIMIT_NPROC "nproc"
#define LAUNCHER_RLIMIT_AS "as"
#define LAUNCHER_RLIMIT_CPU "cpu"
#define LAUNCHER_RLIMIT_FSIZE "fsize"
#define LAUNCHER_RLIMIT_NOFILE "nofile"

/* At most this many --rlimit words per run (one per name). */
#define LAUNCHER_RLIMIT_MAX 5

#endif
