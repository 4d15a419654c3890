/* SPDX-License-Identifier: MIT */
/*
 * The OCI target: a runtime-spec 1.0.2 config.json from the plan
 * (doc/SPEC.md 20). The mount order is the plan's and it matters:
 *   1. the host's / onto the bundle's empty rootfs, recursively read-only
 *      (`rro`: every mount below it too, as bwrap's --ro-bind / /); for
 *      crun each entry of / on its own (crun 1.8 mounts every later
 *      destination under a bind onto the root itself, not in it), its
 *      top-level links made again in rootfs;
 *   2. a fresh /proc, /dev, /dev/pts and /dev/shm over it;
 *   3. the private /tmp, then the writable roots and the pins, then the
 *      protected paths read-only over them (the library's profile order);
 *   4. denyRead last, as linux.maskedPaths (the runtime masks after every
 *      mount: an empty read-only directory, or /dev/null over a file).
 * The limits (doc/SPEC.md 20, "Limits"): cgroup resources as root, rlimits
 * in the process, the temp area's size on its tmpfs.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"

/* The entries of the host's / in name order (a bundle that does not
 * change between two exports of one host); `.`, `..` and /proc and /dev,
 * which the bundle mounts afresh, left out. NULL-terminated, or NULL. */
static char **root_entries(void) {
	struct dirent **list;
	char **names;
	int n = scandir("/", &list, NULL, alphasort), k = 0;
	if (n < 0)
		return NULL;
	names = calloc((size_t)n + 1, sizeof *names);
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		if (names && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
		    strcmp(name, "proc") != 0 && strcmp(name, "dev") != 0 && !(names[k] = strdup(name))) {
			for (int j = 0; j < k; j++)
				free(names[j]);
			free(names);
			names = NULL;
		} else if (names && names[k])
			k++;
		free(list[i]);
	}
	free(list);
	return names;
}

static void free_entries(char **names) {
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

bool export_oci_cgroup_limits(const export_plan *plan) {
	return plan->uid == 0;
}

bool export_oci_cgroup_pids(const export_plan *plan) {
	/* runsc's own cgroup would count gVisor's host threads against a
	 * process bound: there it is RLIMIT_NPROC, in gVisor's kernel. */
	return plan->uid == 0 && !plan->runsc;
}

int export_oci_root_links(const char *rootfs) {
	char **names = root_entries();
	int r = 0;
	if (!names)
		return -errno ? -errno : -ENOMEM;
	for (size_t i = 0; r == 0 && names[i]; i++) {
		char host[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
		struct stat st;
		ssize_t n;
		snprintf(host, sizeof host, "/%s", names[i]);
		if (lstat(host, &st) < 0 || !S_ISLNK(st.st_mode))
			continue;
		if ((n = readlink(host, target, sizeof target - 1)) < 0) {
			r = -errno;
			break;
		}
		target[n] = '\0';
		snprintf(link, sizeof link, "%s/%s", rootfs, names[i]);
		/* A re-export replaces its own link; anything else there (a
		 * mount point the runtime made) is left alone, and refused. */
		if (lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && unlink(link) < 0)
			r = -errno;
		else if (symlink(target, link) < 0)
			r = -errno;
	}
	free_entries(names);
	return r;
}

static json_t *strings(const char *const *words) {
	json_t *array = json_array();
	for (size_t i = 0; array && words[i]; i++)
		json_array_append_new(array, json_string(words[i]));
	return array;
}

static json_t *mount(const char *destination, const char *type, const char *source,
                     const char *const *options) {
	return json_pack("{s:s,s:s,s:s,s:o}", "destination", destination, "type", type, "source",
	                 source, "options", strings(options));
}

/* crun (1.8) opens an `rbind`'s target as a directory: a file is bound
 * with `bind` there (a file has no mounts below it to carry). */
static const char *const *bind_options(const export_plan *plan, const char *source,
                                       const char *const *dir, const char *const *file) {
	struct stat st;
	if (plan->crun && stat(source, &st) == 0 && !S_ISDIR(st.st_mode))
		return file;
	return dir;
}

static json_t *mounts(const export_plan *plan) {
	/* runsc (20221219) refuses `rro`; its own kernel holds a read-only
	 * bind read-only as a whole, the host's mounts below it included
	 * (doc/SPEC.md 20), so plain `ro` is the same there. */
	static const char *const root_runsc[] = { "rbind", "ro", "nosuid", "nodev", NULL };
	static const char *const root_runc[] = { "rbind", "rro", "nosuid", "nodev", NULL };
	const char *const *root = plan->runsc ? root_runsc : root_runc;
	const char *const *ro = plan->runsc ? root_runsc : root_runc;
	static const char *const proc[] = { "nosuid", "noexec", "nodev", NULL };
	static const char *const dev[] = { "nosuid", "strictatime", "mode=755", "size=65536k", NULL };
	static const char *const pts[] = { "nosuid", "noexec", "newinstance", "ptmxmode=0666",
		                           "mode=0620", NULL };
	static const char *const shm[] = { "nosuid", "noexec", "nodev", "mode=1777", "size=65536k",
		                           NULL };
	static const char *const tmp_unsized[] = { "nosuid", "nodev", "mode=1777", NULL };
	const char *tmp[5] = { "nosuid", "nodev", "mode=1777", NULL, NULL };
	char size[40];
	static const char *const rw[] = { "rbind", "rw", "nosuid", "nodev", NULL };
	static const char *const file[] = { "bind", "ro", "nosuid", "nodev", NULL };
	static const char *const file_rw[] = { "bind", "rw", "nosuid", "nodev", NULL };
	json_t *array = json_array();

	if (export_limit_given(plan->policy, CONFINE_LIMIT_TEMP)) {
		snprintf(size, sizeof size, "size=%llu",
		         (unsigned long long)plan->policy->limits[CONFINE_LIMIT_TEMP]);
		tmp[3] = size;
	} else
		memcpy(tmp, tmp_unsized, sizeof tmp_unsized);
	if (plan->crun) {
		char **names = root_entries();
		if (!names) {
			json_decref(array);
			return NULL;
		}
		for (size_t i = 0; array && names[i]; i++) {
			char path[PATH_MAX];
			struct stat st;
			snprintf(path, sizeof path, "/%s", names[i]);
			/* A file at the top (/.dockerenv) is a plain bind: crun
			 * opens an rbind's target as a directory. */
			if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode))
				json_array_append_new(array, mount(path, "bind", path,
				                                   S_ISDIR(st.st_mode) ? root : file));
		}
		free_entries(names);
	} else
		json_array_append_new(array, mount("/", "bind", "/", root));
	json_array_append_new(array, mount("/proc", "proc", "proc", proc));
	json_array_append_new(array, mount("/dev", "tmpfs", "tmpfs", dev));
	json_array_append_new(array, mount("/dev/pts", "devpts", "devpts", pts));
	json_array_append_new(array, mount("/dev/shm", "tmpfs", "shm", shm));
	for (size_t i = 0; array && i < plan->n_mounts; i++) {
		const export_mount *m = &plan->mounts[i];
		switch (m->kind) {
		case EXPORT_MOUNT_TMPFS:
			json_array_append_new(array, mount(m->destination, "tmpfs", "tmpfs", tmp));
			break;
		case EXPORT_MOUNT_BIND_RW:
			json_array_append_new(array, mount(m->destination, "bind", m->source,
			                                   bind_options(plan, m->source, rw, file_rw)));
			break;
		case EXPORT_MOUNT_BIND_RO:
			json_array_append_new(array, mount(m->destination, "bind", m->source,
			                                   bind_options(plan, m->source, ro, file)));
			break;
		}
	}
	/* runsc (20221219) ignores linux.maskedPaths: denyRead is mounts
	 * there, last, as bwrap's are: an empty read-only tmpfs over a
	 * directory, the bundle's empty file over anything else. */
	for (size_t i = 0; array && plan->runsc && i < plan->n_masked; i++) {
		static const char *const empty_dir[] = { "ro", "nosuid", "nodev", "noexec", "mode=0555",
			                                 NULL };
		static const char *const empty_file[] = { "bind", "ro", "nosuid", "nodev", "noexec",
			                                  NULL };
		char source[4096];
		if (plan->masked_is_dir[i]) {
			json_array_append_new(array, mount(plan->masked[i], "tmpfs", "tmpfs", empty_dir));
			continue;
		}
		snprintf(source, sizeof source, "%s/" EXPORT_EMPTY_FILE, plan->bundle);
		json_array_append_new(array, mount(plan->masked[i], "bind", source, empty_file));
	}
	return array;
}

/* The rlimits of the policy's limits (both halves the limit): pids as
 * RLIMIT_NPROC where no cgroup holds it (runsc: gVisor's kernel counts the
 * sandbox's tasks; not root: the exporter's processes on the host). */
static json_t *rlimits(const export_plan *plan) {
	static const struct {
		confine_limit limit;
		const char *type;
	} rows[] = {
		{ CONFINE_LIMIT_PIDS, "RLIMIT_NPROC" },
		{ CONFINE_LIMIT_CPU_SECONDS, "RLIMIT_CPU" },
		{ CONFINE_LIMIT_FILE_SIZE, "RLIMIT_FSIZE" },
		{ CONFINE_LIMIT_OPEN_FILES, "RLIMIT_NOFILE" },
	};
	json_t *array = json_array();
	for (size_t i = 0; array && i < sizeof rows / sizeof rows[0]; i++) {
		json_int_t value = (json_int_t)plan->policy->limits[rows[i].limit];
		if (!export_limit_given(plan->policy, rows[i].limit) ||
		    (rows[i].limit == CONFINE_LIMIT_PIDS && export_oci_cgroup_pids(plan)))
			continue;
		json_array_append_new(array, json_pack("{s:s,s:I,s:I}", "type", rows[i].type, "hard",
		                                       value, "soft", value));
	}
	return array;
}

static json_t *process(const export_plan *plan) {
	json_t *args = json_array(), *env = json_array(), *caps = json_object(), *object, *limits;
	json_int_t uid = 0, gid = plan->uid == 0 ? (json_int_t)plan->gid : 0;
	static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted",
		                            "ambient" };
	for (size_t i = 0; args && plan->argv[i]; i++)
		json_array_append_new(args, json_string(plan->argv[i]));
	for (size_t i = 0; env && plan->env[i]; i++)
		json_array_append_new(env, json_string(plan->env[i]));
	/* Every set empty: no capability, as bwrap's --cap-drop ALL. */
	for (size_t i = 0; caps && i < sizeof sets / sizeof sets[0]; i++)
		json_object_set_new(caps, sets[i], json_array());
	/* Not root: root of its own user namespace, the caller on the host (an
	 * unprivileged runtime maps one id, and runc wants that one to be 0:
	 * `runc spec --rootless` does the same). */
	object = json_pack("{s:b,s:{s:I,s:I},s:o,s:o,s:s,s:o,s:b}", "terminal", 0, "user", "uid",
	                   uid, "gid", gid, "args", args, "env", env, "cwd",
	                   plan->policy->workspace_root, "capabilities", caps, "noNewPrivileges", 1);
	limits = rlimits(plan);
	if (object && limits && json_array_size(limits) > 0)
		json_object_set_new(object, "rlimits", limits);
	else
		json_decref(limits);
	return object;
}

static json_t *namespaces(const export_plan *plan) {
	json_t *array = json_pack("[{s:s},{s:s},{s:s}]", "type", "pid", "type", "ipc", "type", "mount");
	if (array && plan->private_network)
		json_array_append_new(array, json_pack("{s:s}", "type", "network"));
	/* Not root: the runtime needs a user namespace to mount at all, and
	 * the command keeps the caller's own ids inside it. */
	if (array && plan->uid != 0)
		json_array_append_new(array, json_pack("{s:s}", "type", "user"));
	return array;
}

static json_t *id_mapping(unsigned id) {
	return json_pack("[{s:I,s:I,s:I}]", "containerID", (json_int_t)0, "hostID", (json_int_t)id,
	                 "size", (json_int_t)1);
}

static json_t *linux_section(const export_plan *plan) {
	static const char *const readonly[] = { "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
		                                "/proc/sysrq-trigger", NULL };
	static const char *const masked_always[] = { "/proc/kcore", "/proc/keys", "/proc/timer_list",
		                                     "/sys/firmware", NULL };
	json_t *masked = strings(masked_always);
	json_t *object;
	for (size_t i = 0; masked && !plan->runsc && i < plan->n_masked; i++)
		json_array_append_new(masked, json_string(plan->masked[i]));
	object = json_pack("{s:o,s:o,s:o,s:o}", "namespaces", namespaces(plan), "maskedPaths", masked,
	                   "readonlyPaths", strings(readonly), "seccomp", export_seccomp_profile());
	if (object && export_oci_cgroup_limits(plan)) {
		json_t *resources = json_object();
		if (export_oci_cgroup_pids(plan) && export_limit_given(plan->policy, CONFINE_LIMIT_PIDS))
			json_object_set_new(resources, "pids",
			                    json_pack("{s:I}", "limit",
			                              (json_int_t)plan->policy->limits[CONFINE_LIMIT_PIDS]));
		if (export_limit_given(plan->policy, CONFINE_LIMIT_MEMORY))
			json_object_set_new(resources, "memory",
			                    json_pack("{s:I}", "limit",
			                              (json_int_t)plan->policy->limits[CONFINE_LIMIT_MEMORY]));
		if (json_object_size(resources) > 0)
			json_object_set_new(object, "resources", resources);
		else
			json_decref(resources);
	}
	if (object && plan->uid != 0) {
		json_object_set_new(object, "uidMappings", id_mapping(plan->uid));
		json_object_set_new(object, "gidMappings", id_mapping(plan->gid));
	}
	return object;
}

json_t *export_oci_config(const export_plan *plan) {
	return json_pack("{s:s,s:o,s:{s:s,s:b},s:o,s:o,s:{s:s,s:s}}", "ociVersion", "1.0.2", "process",
	                 process(plan), "root", "path", "rootfs", "readonly", 1, "mounts", mounts(plan),
	                 "linux", linux_section(plan), "annotations", "org.confine.export", plan->runsc  ? "oci runsc"
	                 : plan->crun ? "oci crun"
	                              : "oci runc",
	                 "org.confine.mode", confine_mode_name(plan->policy->mode));
}
