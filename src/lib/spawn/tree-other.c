/* SPDX-License-Identifier: MIT */
/*
 * Without /proc (macOS and other systems) no descendant tree can be found
 * without allocating: the tree is the child alone, and its process group is
 * signalled. Meson compiles this file where tree-linux.c is not.
 */
#include "spawn/spawn.h"

void cf_process_tree_force_scan(bool on) {
	(void)on;
}

void cf_tree_expand(struct cf_proc_tree *t) {
	(void)t;
}

void cf_tree_add_group(struct cf_proc_tree *t, pid_t leader) {
	(void)t;
	(void)leader;
}
