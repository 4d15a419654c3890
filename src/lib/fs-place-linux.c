/* SPDX-License-Identifier: MIT */
/*
 * Pseudo-filesystems on Linux: statfs(2)'s f_type for the root itself, and
 * /proc/self/mountinfo for what f_type cannot tell (devtmpfs reports
 * tmpfs's magic) and for such mounts *below* the root (bwrap's --bind is
 * recursive, so a procfs mounted inside a workspace would come along
 * writable).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "fs-place.h"

/* One table: the magic (0: none of its own) and the names. */
static const struct pseudo_fs {
	unsigned long magic;
	const char *name;    /* as messages say it */
	const char *fstype;  /* as mountinfo says it */
} pseudo_filesystems[] = {
	{ 0x9fa0UL, "procfs", "proc" },
	{ 0x62656572UL, "sysfs", "sysfs" },
	{ 0, "devtmpfs", "devtmpfs" }, /* f_type is TMPFS_MAGIC: found by name */
	{ 0x1cd1UL, "devpts", "devpts" },
	{ 0x27e0ebUL, "cgroup", "cgroup" },
	{ 0x63677270UL, "cgroup2", "cgroup2" },
	{ 0x64626720UL, "debugfs", "debugfs" },
	{ 0x74726163UL, "tracefs", "tracefs" },
	{ 0x73636673UL, "securityfs", "securityfs" },
	{ 0xcafe4a11UL, "bpffs", "bpf" },
	{ 0x62656570UL, "configfs", "configfs" },
	{ 0x19800202UL, "mqueue", "mqueue" },
	/* Kernel control surfaces beyond the list, same reason. */
	{ 0x42494e4dUL, "binfmt_misc", "binfmt_misc" }, /* registers interpreters */
	{ 0xde5e81e4UL, "efivarfs", "efivarfs" },
	{ 0x6165676cUL, "pstore", "pstore" },
	{ 0x65735543UL, "fusectl", "fusectl" },
	{ 0xf97cff8cUL, "selinuxfs", "selinuxfs" },
	{ 0x6e736673UL, "nsfs", "nsfs" }, /* namespace handles (doc/SPEC.md 18) */
};

#define N_PSEUDO (sizeof pseudo_filesystems / sizeof pseudo_filesystems[0])

static const char *name_of_magic(unsigned long magic) {
	for (size_t i = 0; i < N_PSEUDO; i++)
		if (pseudo_filesystems[i].magic && pseudo_filesystems[i].magic == magic)
			return pseudo_filesystems[i].name;
	return NULL;
}

static const char *name_of_fstype(const char *fstype) {
	for (size_t i = 0; i < N_PSEUDO; i++)
		if (strcmp(pseudo_filesystems[i].fstype, fstype) == 0)
			return pseudo_filesystems[i].name;
	return NULL;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo: decoded in
 * place. */
static void unescape_octal(char *s) {
	char *out = s;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* `inner` is `outer` or lies below it (both canonical). */
static bool at_or_under(const char *inner, const char *outer) {
	size_t n = strlen(outer);
	if (strcmp(outer, "/") == 0)
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

int cf_fs_not_a_place(const char *path, bool check_below, char *why, size_t why_size) {
	struct statfs st;
	const char *name;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	size_t best_len = 0;
	char holder[64] = "";   /* fstype of the mount holding `path` */
	char below_name[64] = "";
	char *below_at = NULL;  /* a pseudo mount strictly below `path` */

	if (statfs(path, &st) == 0 && (name = name_of_magic((unsigned long)st.f_type))) {
		snprintf(why, why_size, "is on %s", name);
		return 1;
	}

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0; /* no /proc: the statfs and lexical checks stand alone */
	while (getline(&line, &cap, f) > 0) {
		/* id parent maj:min root mountpoint options [optional...] - fstype ... */
		char *fields[5], *save = NULL, *tok, *fstype = NULL;
		size_t n = 0;
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (n < 5) {
				fields[n++] = tok;
			} else if (strcmp(tok, "-") == 0) {
				fstype = strtok_r(NULL, " \n", &save);
				break;
			}
		}
		if (n < 5 || !fstype)
			continue;
		unescape_octal(fields[4]);
		if (at_or_under(path, fields[4])) {
			size_t len = strlen(fields[4]);
			/* Longest mount point wins; among equals the later one, which
			 * is stacked on top. */
			if (len >= best_len) {
				best_len = len;
				snprintf(holder, sizeof holder, "%s", fstype);
			}
		} else if (check_below && !below_at && at_or_under(fields[4], path) && name_of_fstype(fstype)) {
			below_at = strdup(fields[4]);
			if (!below_at) {
				free(line);
				fclose(f);
				return -ENOMEM;
			}
			snprintf(below_name, sizeof below_name, "%s", name_of_fstype(fstype));
		}
	}
	free(line);
	fclose(f);

	if (holder[0] && (name = name_of_fstype(holder))) {
		free(below_at);
		snprintf(why, why_size, "is on %s", name);
		return 1;
	}
	if (below_at) {
		snprintf(why, why_size, "holds a %s mount at \"%s\"", below_name, below_at);
		free(below_at);
		return 1;
	}
	return 0;
}
