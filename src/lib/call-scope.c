/* SPDX-License-Identifier: MIT */
/* One library call's scope on this thread (see call-scope.h). */
#include <errno.h>
#include <stddef.h>

#include "call-scope.h"

static _Thread_local struct {
	unsigned depth;
	size_t n;
	void (*release[CF_CALL_RELEASE_MAX])(void);
} scope;

void cf_call_open(void) {
	scope.depth++;
}

bool cf_call_is_open(void) {
	return scope.depth > 0;
}

int cf_call_on_close(void (*release)(void)) {
	for (size_t i = 0; i < scope.n; i++)
		if (scope.release[i] == release)
			return 0;
	if (scope.depth == 0 || scope.n == CF_CALL_RELEASE_MAX)
		return -ENOMEM;
	scope.release[scope.n++] = release;
	return 0;
}

void cf_call_close(void) {
	if (scope.depth == 0 || --scope.depth > 0)
		return;
	while (scope.n > 0)
		scope.release[--scope.n]();
}
