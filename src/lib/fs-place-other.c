/* SPDX-License-Identifier: MIT */
/* Pseudo-filesystems elsewhere: nothing beyond the lexical /dev, /proc, /sys
 * rule that policy.c applies on every platform (macOS's devfs is /dev). */
#include "fs-place.h"

int cf_fs_not_a_place(const char *path, bool check_below, char *why, size_t why_size) {
	(void)path;
	(void)check_below;
	(void)why;
	(void)why_size;
	return 0;
}
