/*
 * A path name as git writes it with core.quotePath (red team round 5,
 * R5-names-raw: a name holding a newline and "+++ b/evil", or a terminal
 * escape, forged a line of `confine stage diff` or drove the terminal).
 * One copy, shared by the library (the patch's headers) and the confine
 * command (the listing): a name holding no byte below 0x20, no DEL, no
 * byte of 0x80 or above, no '"' and no '\' is written as it is; any other
 * is written in double quotes, C style: \a \b \t \n \v \f \r \" \\ and
 * three octal digits for every other such byte. `git apply` reads both.
 * A header of static functions (pure C, no OS calls): no object of its own.
 */
#ifndef CONFINE_PATH_QUOTE_H
#define CONFINE_PATH_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool cf_quote_byte_needs(unsigned char c) {
	return c < 0x20 || c >= 0x7f || c == '"' || c == '\\';
}

/* Whether `prefix` followed by `name` must be quoted. */
static inline bool cf_quote_path_needed(const char *prefix, const char *name) {
	for (const char *p = prefix; p && *p; p++)
		if (cf_quote_byte_needs((unsigned char)*p))
			return true;
	for (const char *p = name; *p; p++)
		if (cf_quote_byte_needs((unsigned char)*p))
			return true;
	return false;
}

/* Writes `prefix` (may be NULL) then `name`, quoted where needed, into
 * `out` (`size` bytes, NUL-terminated when `size` > 0, cut short when it
 * does not fit). Returns the length the whole text needs, without the NUL,
 * as snprintf does: at most 4 * (strlen(prefix) + strlen(name)) + 2. */
static inline size_t cf_quote_path(char *out, size_t size, const char *prefix, const char *name) {
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letters[] = "abtnvfr";
	bool quoted = cf_quote_path_needed(prefix, name);
	size_t n = 0;
#define CF_QUOTE_PUT(ch)                    \
	do {                                \
		if (n + 1 < size)           \
			out[n] = (char)(ch); \
		n++;                        \
	} while (0)
	if (quoted)
		CF_QUOTE_PUT('"');
	for (int part = 0; part < 2; part++)
		for (const char *p = part ? name : prefix; p && *p; p++) {
			unsigned char c = (unsigned char)*p;
			const char *k = c ? strchr(named, c) : NULL;
			if (!cf_quote_byte_needs(c)) {
				CF_QUOTE_PUT(c);
			} else if (c == '"' || c == '\\') {
				CF_QUOTE_PUT('\\');
				CF_QUOTE_PUT(c);
			} else if (k) {
				CF_QUOTE_PUT('\\');
				CF_QUOTE_PUT(letters[k - named]);
			} else {
				CF_QUOTE_PUT('\\');
				CF_QUOTE_PUT('0' + ((c >> 6) & 3));
				CF_QUOTE_PUT('0' + ((c >> 3) & 7));
				CF_QUOTE_PUT('0' + (c & 7));
			}
		}
	if (quoted)
		CF_QUOTE_PUT('"');
#undef CF_QUOTE_PUT
	if (size > 0)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

#endif
