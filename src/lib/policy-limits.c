/* SPDX-License-Identifier: MIT */
/*
 * The limits of a run (doc/SPEC.md 15, "Limits"): one row per limit of the
 * table of options (its config key, its CLI flag, its unit and bound), read
 * by the parser,
 * the setters, validation, the CLI and the config file. Which mechanism
 * holds a limit is the rung's and the spawner's business (profiles/,
 * spawn/cgroup-*.c), not this file's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "policy-limits.h"
#include "util.h"

#define STAGE "policy"

/* The LIMIT rows of the table of options (src/common/options.def): the
 * bounds' reasons are written there. */
static const cf_limit_def limit_table[CONFINE_LIMIT_COUNT] = {
#define CONFINE_LIMIT(id, limit, kind, key, flag, value, python, node, type, min, max, dflt) \
	[limit] = { key, flag, kind, min, max },
#define CONFINE_OPTION(...)
#include "options.def"
#undef CONFINE_OPTION
#undef CONFINE_LIMIT
};

const cf_limit_def *cf_limit_def_of(confine_limit limit) {
	return (unsigned)limit < CONFINE_LIMIT_COUNT ? &limit_table[limit] : NULL;
}

const char *confine_limit_name(confine_limit limit) {
	const cf_limit_def *d = cf_limit_def_of(limit);
	return d ? d->key : NULL;
}

const char *confine_limit_flag(confine_limit limit) {
	const cf_limit_def *d = cf_limit_def_of(limit);
	return d ? d->flag : NULL;
}

bool confine_limit_is_size(confine_limit limit) {
	const cf_limit_def *d = cf_limit_def_of(limit);
	return d && d->kind == CF_LIMIT_SIZE;
}

static int invalid(confine_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int invalid(confine_error *err, const char *fmt, ...) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0, "%s", message);
}

int confine_limit_from_name(const char *name, confine_limit *ret, confine_error *err) {
	for (unsigned i = 0; name && i < CONFINE_LIMIT_COUNT; i++)
		if (strcmp(name, limit_table[i].key) == 0 || strcmp(name, limit_table[i].flag) == 0) {
			*ret = (confine_limit)i;
			return 0;
		}
	return invalid(err,
	               "limits.%s is not a limit (expected pids, memory, cpuSeconds, fileSize, temp "
	               "or openFiles)",
	               name ? name : "(null)");
}

static const char *expected(const cf_limit_def *d) {
	switch (d->kind) {
	case CF_LIMIT_SIZE:
		return "a whole number of bytes with an optional K, M, G or T suffix (2G), or "
		       "\"unlimited\"";
	case CF_LIMIT_SECONDS:
		return "a whole number of seconds, or \"unlimited\"";
	case CF_LIMIT_COUNT:
	default:
		return "a whole number, or \"unlimited\"";
	}
}

int confine_limit_parse(confine_limit limit, const char *text, uint64_t *ret,
                        confine_error *err) {
	const cf_limit_def *d = cf_limit_def_of(limit);
	uint64_t value = 0, scale = 1;
	const char *p;
	char bound[64];
	if (!d)
		return invalid(err, "limit value %d is not a limit", (int)limit);
	if (!text)
		return invalid(err, "limits.%s: the value is NULL", d->key);
	if (strcmp(text, "unlimited") == 0) {
		*ret = 0;
		return 0;
	}
	if (text[0] == '-')
		return invalid(err, "limits.%s \"%s\" is negative: expected %s", d->key, text,
		               expected(d));
	if (text[0] < '0' || text[0] > '9')
		return invalid(err, "limits.%s \"%s\" is not a number: expected %s", d->key, text,
		               expected(d));
	for (p = text; *p >= '0' && *p <= '9'; p++) {
		/* Past the bound already: refused below, never wrapped. */
		if (value > d->max)
			continue;
		value = value * 10 + (uint64_t)(*p - '0');
	}
	if (*p && d->kind == CF_LIMIT_SIZE && p[1] == '\0') {
		switch (*p) {
		case 'k': case 'K': scale = 1ull << 10; break;
		case 'm': case 'M': scale = 1ull << 20; break;
		case 'g': case 'G': scale = 1ull << 30; break;
		case 't': case 'T': scale = 1ull << 40; break;
		default: scale = 0; break;
		}
		if (scale)
			p++;
	}
	if (*p)
		return invalid(err, "limits.%s \"%s\" has \"%s\" after the number: expected %s",
		               d->key, text, p, expected(d));
	if (value == 0)
		return invalid(err,
		               "limits.%s \"%s\" is zero, which would stop everything: give 1 or "
		               "more, or \"unlimited\" to lift it",
		               d->key, text);
	confine_limit_format(limit, d->max, bound, sizeof bound);
	if (value > d->max || value > d->max / scale)
		return invalid(err, "limits.%s \"%s\" is past the largest limit (%s)", d->key, text,
		               bound);
	value *= scale;
	if (value < d->min) {
		confine_limit_format(limit, d->min, bound, sizeof bound);
		return invalid(err, "limits.%s \"%s\" is below the smallest limit (%s), under which "
		               "nothing starts", d->key, text, bound);
	}
	*ret = value;
	return 0;
}

void confine_limit_format(confine_limit limit, uint64_t value, char *buf, size_t size) {
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	const cf_limit_def *d = cf_limit_def_of(limit);
	if (!buf || !size)
		return;
	if (!d) {
		snprintf(buf, size, "%" PRIu64, value);
		return;
	}
	if (value == 0) {
		snprintf(buf, size, "unlimited");
		return;
	}
	switch (d->kind) {
	case CF_LIMIT_SIZE: {
		/* The largest unit that divides it exactly; else bytes. */
		int unit = -1;
		uint64_t shown = value;
		while (unit < 4 && shown % 1024 == 0) {
			shown /= 1024;
			unit++;
		}
		if (unit < 0)
			snprintf(buf, size, "%" PRIu64 " bytes", value);
		else
			snprintf(buf, size, "%" PRIu64 " %s", shown, units[unit]);
		break;
	}
	case CF_LIMIT_SECONDS:
		snprintf(buf, size, "%" PRIu64 " s", value);
		break;
	case CF_LIMIT_COUNT:
	default:
		snprintf(buf, size, "%" PRIu64, value);
		break;
	}
}

int cf_limit_check(confine_limit limit, uint64_t value, confine_error *err) {
	const cf_limit_def *d = cf_limit_def_of(limit);
	char bound[64];
	if (!d)
		return invalid(err, "limit value %d is not a limit", (int)limit);
	if (value == 0)
		return invalid(err, "limits.%s 0 is zero, which would stop everything: lift it "
		               "instead (\"unlimited\")", d->key);
	if (value > d->max) {
		confine_limit_format(limit, d->max, bound, sizeof bound);
		return invalid(err, "limits.%s %" PRIu64 " is past the largest limit (%s)", d->key,
		               value, bound);
	}
	if (value < d->min) {
		confine_limit_format(limit, d->min, bound, sizeof bound);
		return invalid(err, "limits.%s %" PRIu64 " is below the smallest limit (%s), under "
		               "which nothing starts", d->key, value, bound);
	}
	return 0;
}

int confine_policy_set_limit(confine_policy *policy, confine_limit limit, uint64_t value,
                             confine_error *err) {
	int r;
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "limits: the policy is NULL");
	if ((r = cf_limit_check(limit, value, err)) < 0)
		return r;
	policy->limits[limit] = value;
	policy->limits_given |= 1u << limit;
	return 0;
}

int confine_policy_lift_limit(confine_policy *policy, confine_limit limit, confine_error *err) {
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "limits: the policy is NULL");
	if (!cf_limit_def_of(limit))
		return invalid(err, "limit value %d is not a limit", (int)limit);
	policy->limits[limit] = 0;
	policy->limits_given |= 1u << limit;
	return 0;
}

int confine_policy_set_limit_text(confine_policy *policy, const char *name, const char *text,
                                  confine_error *err) {
	confine_limit limit;
	uint64_t value;
	int r;
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "limits: the policy is NULL");
	if ((r = confine_limit_from_name(name, &limit, err)) < 0 ||
	    (r = confine_limit_parse(limit, text, &value, err)) < 0)
		return r;
	return value ? confine_policy_set_limit(policy, limit, value, err)
	             : confine_policy_lift_limit(policy, limit, err);
}

int cf_limits_validate(const confine_policy *policy, confine_error *err) {
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++) {
		int r;
		if (!policy->limits[i])
			continue;
		if ((r = cf_limit_check((confine_limit)i, policy->limits[i], err)) < 0)
			return r;
		/* Nothing confines such a run, so nothing would hold a limit it
		 * asked for: refused, never dropped (doc/SPEC.md 15). */
		if (policy->mode == CONFINE_MODE_DANGER_FULL_ACCESS && (policy->limits_given & (1u << i)))
			return invalid(err,
			               "limits.%s cannot hold under danger-full-access, which confines "
			               "nothing: drop it, or use read-only or workspace-write",
			               limit_table[i].key);
	}
	if (policy->limits_given >> CONFINE_LIMIT_COUNT)
		return invalid(err, "limits_given has bits past the last limit");
	return 0;
}

bool cf_limit_requested(const confine_policy *policy, confine_limit limit) {
	return policy->limits[limit] && (policy->limits_given & (1u << limit));
}
