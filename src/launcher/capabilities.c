/*
 * Capabilities: Landlock governs file access by path, not what capabilities
 * allow. A root caller would otherwise keep its full set (and, under
 * no_new_privs alone, an exec keeps the permitted set it already has):
 * init_module from a memory buffer, reboot, bpf, sethostname, chown of any
 * file, raw I/O. So every confined command starts with none, as bwrap's
 * `--cap-drop ALL` gives that rung (SPEC 5).
 */
#include "capabilities.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#define CAP_WORDS _LINUX_CAPABILITY_U32S_3

/* Everything in place stays set: only the bits below are added. NOROOT
 * means uid 0 gets no capabilities from exec; with ambient raising off and
 * every bit locked, nothing in the sandbox can turn that back, even if a
 * future change left a capability in the bounding set. */
#define LOCKED_SECUREBITS                                                   \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP_LOCKED | \
	 SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |              \
	 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

struct cap_sets {
	struct __user_cap_header_struct header;
	struct __user_cap_data_struct data[CAP_WORDS];
};

/* Returns 0, or -errno. */
static int read_caps(struct cap_sets *sets)
{
	memset(sets, 0, sizeof(*sets));
	sets->header.version = _LINUX_CAPABILITY_VERSION_3;
	sets->header.pid = 0;
	return syscall(SYS_capget, &sets->header, sets->data) == 0 ? 0 : -errno;
}

/* Returns 0, or -errno. */
static int write_caps(struct cap_sets *sets)
{
	sets->header.version = _LINUX_CAPABILITY_VERSION_3;
	sets->header.pid = 0;
	return syscall(SYS_capset, &sets->header, sets->data) == 0 ? 0 : -errno;
}

static bool holds_any_cap(const struct cap_sets *sets)
{
	size_t i;

	for (i = 0; i < CAP_WORDS; i++)
		if (sets->data[i].permitted != 0 || sets->data[i].effective != 0 ||
		    sets->data[i].inheritable != 0)
			return true;
	return false;
}

static bool cap_permitted(const struct cap_sets *sets, unsigned cap)
{
	return (sets->data[CAP_TO_INDEX(cap)].permitted & CAP_TO_MASK(cap)) != 0;
}

/*
 * Called after landlock_restrict_self, so nothing between here and exec
 * needs a capability. Not earlier: root may need CAP_DAC_OVERRIDE or
 * CAP_DAC_READ_SEARCH to open its grant paths (a workspace under another
 * user's 0700 directory), and a grant that cannot be opened is fatal.
 *
 * An unprivileged caller holds nothing: one capget, and the ambient set is
 * empty too (the kernel keeps it inside permitted). Its bounding set stays
 * as it is: clearing it needs CAP_SETPCAP, and with no_new_privs an exec
 * never adds to an empty permitted set (setuid and file capabilities are
 * ignored), so the bounding set cannot matter.
 *
 * A caller holding capabilities: make the permitted ones effective (a
 * caller may hold CAP_SETPCAP without it being effective), lock the
 * securebits and empty the bounding set when CAP_SETPCAP allows, clear the
 * ambient set, then zero effective, permitted and inheritable, and read the
 * sets back. Returns 0, or -errno (fatal: the command would keep
 * privileges the sandbox is meant to take away).
 */
int drop_capabilities(void)
{
	struct cap_sets sets;
	unsigned long cap;
	size_t i;
	int r;

	r = read_caps(&sets);
	if (r < 0)
		return r;
	if (!holds_any_cap(&sets))
		return 0;

	if (cap_permitted(&sets, CAP_SETPCAP)) {
		int bits;

		for (i = 0; i < CAP_WORDS; i++)
			sets.data[i].effective = sets.data[i].permitted;
		r = write_caps(&sets);
		if (r < 0)
			return r;
		bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (bits < 0 ||
		    prctl(PR_SET_SECUREBITS, (unsigned long)bits | LOCKED_SECUREBITS,
			  0, 0, 0) != 0)
			return -errno;
		/* Up to the last capability this kernel knows, whatever our
		 * headers say: the first EINVAL is one past it. */
		for (cap = 0;; cap++) {
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
				continue;
			if (errno == EINVAL && cap > 0)
				break;
			return -errno;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
		return -errno;
	memset(sets.data, 0, sizeof(sets.data));
	r = write_caps(&sets);
	if (r < 0)
		return r;
	r = read_caps(&sets);
	if (r < 0)
		return r;
	return holds_any_cap(&sets) ? -EPERM : 0;
}

