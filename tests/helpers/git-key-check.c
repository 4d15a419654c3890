/* SPDX-License-Identifier: MIT */
/* Answers, for each configuration key on stdin as a manual spells it
 * (`tar.<format>.command`, `alias.*`, `gpg.program`), whether gitHazards
 * counts it as a setting git runs (cf_git_executable_setting), with a value
 * of each shape a command-valued setting may take. One line out per line
 * in: "yes KEY" or "no KEY". For tests/unit/git_config_keys.py. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "git-hazards.h"

/* `<format>` and `*` stand for any name: a sample one. */
static void instantiate(const char *in, char *out, size_t size) {
	size_t o = 0;
	for (size_t i = 0; in[i] && o + 8 < size; i++) {
		if (in[i] == '<') {
			const char *close = strchr(in + i, '>');
			if (close) {
				o += (size_t)snprintf(out + o, size - o, "sample");
				i = (size_t)(close - in);
				continue;
			}
		}
		if (in[i] == '*') {
			o += (size_t)snprintf(out + o, size - o, "sample");
			continue;
		}
		out[o++] = in[i];
	}
	out[o] = '\0';
}

int main(void) {
	static const char *const values[] = { "sh -c planted", "!sh -c planted", "ext::sh -c planted",
		                              "/tmp/planted" };
	char line[1024], key[1100], section[1100], sub[1100], name[1100], spelled[2300];
	while (fgets(line, sizeof line, stdin)) {
		char *first, *last;
		bool yes = false;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		instantiate(line, key, sizeof key);
		first = strchr(key, '.');
		last = strrchr(key, '.');
		if (!first) {
			printf("no %s\n", line);
			continue;
		}
		snprintf(section, sizeof section, "%.*s", (int)(first - key), key);
		snprintf(name, sizeof name, "%s", last + 1);
		if (last > first)
			snprintf(sub, sizeof sub, "%.*s", (int)(last - first - 1), first + 1);
		for (char *p = section; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		for (char *p = name; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		for (size_t i = 0; i < sizeof values / sizeof values[0] && !yes; i++)
			yes = cf_git_executable_setting(section, last > first ? sub : NULL, name, values[i],
			                                spelled, sizeof spelled);
		printf("%s %s\n", yes ? "yes" : "no", line);
	}
	return 0;
}
