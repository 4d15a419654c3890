/* SPDX-License-Identifier: MIT */
/*
 * One library call's scope on this thread: a layer above may keep what it
 * computed for the call (profiles/plan-memo.c keeps the call's plans) and
 * have it freed when the outermost scope closes, so nothing it keeps
 * outlives the call that asked. Scopes nest; the outermost one counts.
 */
#ifndef CONFINE_CALL_SCOPE_H
#define CONFINE_CALL_SCOPE_H

#include <stdbool.h>

#include "util.h"

void cf_call_open(void) CONFINE_HIDDEN;
void cf_call_close(void) CONFINE_HIDDEN;
bool cf_call_is_open(void) CONFINE_HIDDEN;
/* `release` runs once when the outermost scope closes (registering it
 * again in the same scope is one registration). 0, or -ENOMEM when more
 * than CF_CALL_RELEASE_MAX are registered (then the caller keeps nothing). */
#define CF_CALL_RELEASE_MAX 4
int cf_call_on_close(void (*release)(void)) CONFINE_HIDDEN;

#endif
