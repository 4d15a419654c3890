/* Host patterns of the network allowlist (host-pattern.h). */
#include "host-pattern.h"

#include <string.h>
#include <strings.h>

static bool all_digits_and_dots(const char *s)
{
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == '.'))
			return false;
	return true;
}

static bool is_number_label(const char *s, size_t n)
{
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
			      (s[i] >= 'A' && s[i] <= 'F')))
				return false;
		return true;
	}
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

bool host_is_ipv4_literal(const char *host)
{
	size_t n = strlen(host);
	const char *last;

	if (n && host[n - 1] == '.')
		n--; /* "127.0.0.1." resolves as the address too */
	for (last = host + n; last > host && last[-1] != '.'; last--)
		;
	return is_number_label(last, (size_t)(host + n - last));
}

static bool is_name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/* The labels of a name with no wildcard prefix. A label neither begins
 * nor ends with '-' (RFC 952, 1123): "-a.test" names no host, and the
 * doors refuse it in one text rather than each guessing (red team F6). */
static enum host_pattern_fault check_labels(const char *name, char *ret_bad)
{
	size_t label = 0;

	for (const char *c = name; *c; c++) {
		if (*c == '.') {
			if (label == 0)
				return HOST_PATTERN_EMPTY_LABEL;
			if (c[-1] == '-')
				return HOST_PATTERN_HYPHEN_EDGE;
			label = 0;
			continue;
		}
		if (*c == '*')
			return HOST_PATTERN_WILDCARD;
		if (!is_name_byte(*c)) {
			if (ret_bad)
				*ret_bad = *c;
			return HOST_PATTERN_BAD_CHAR;
		}
		if (label == 0 && *c == '-')
			return HOST_PATTERN_HYPHEN_EDGE;
		if (++label > HOST_LABEL_LENGTH_MAX)
			return HOST_PATTERN_LONG_LABEL;
	}
	if (label == 0)
		return HOST_PATTERN_TRAILING_DOT;
	return name[strlen(name) - 1] == '-' ? HOST_PATTERN_HYPHEN_EDGE : HOST_PATTERN_OK;
}

enum host_pattern_fault host_pattern_check(const char *pattern, char *ret_bad)
{
	const char *name = pattern;
	const char *colon;

	if (!pattern[0])
		return HOST_PATTERN_EMPTY;
	if (strstr(pattern, "://"))
		return HOST_PATTERN_SCHEME;
	if (strchr(pattern, '/'))
		return HOST_PATTERN_PATH;
	colon = strchr(pattern, ':');
	if (strchr(pattern, '['))
		return HOST_PATTERN_IPV6;
	if (colon)
		return strrchr(pattern, ':') != colon ? HOST_PATTERN_IPV6 : HOST_PATTERN_PORT;
	if (strncmp(pattern, "*.", 2) == 0)
		name = pattern + 2;
	if (!name[0] || strlen(name) > HOST_NAME_LENGTH_MAX)
		return HOST_PATTERN_NOT_A_NAME;
	if (all_digits_and_dots(name) || host_is_ipv4_literal(name))
		return HOST_PATTERN_ADDRESS;
	return check_labels(name, ret_bad);
}

bool host_pattern_match(const char *pattern, const char *host)
{
	size_t hn, sn;

	if (!pattern || !host)
		return false;
	if (strncmp(pattern, "*.", 2) != 0)
		return strcasecmp(pattern, host) == 0;
	hn = strlen(host);
	sn = strlen(pattern + 1); /* ".suffix" */
	return hn > sn && strcasecmp(host + hn - sn, pattern + 1) == 0;
}

enum host_verdict host_pattern_decide(const char *const *allow, size_t n_allow,
				      const char *const *deny, size_t n_deny, const char *host)
{
	for (size_t i = 0; i < n_deny; i++)
		if (host_pattern_match(deny[i], host))
			return HOST_VERDICT_DENIED;
	for (size_t i = 0; i < n_allow; i++)
		if (host_pattern_match(allow[i], host))
			return HOST_VERDICT_ALLOWED;
	return HOST_VERDICT_NOT_ALLOWED;
}
