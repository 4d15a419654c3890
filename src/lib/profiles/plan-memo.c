/* SPDX-License-Identifier: MIT */
/*
 * One look at the filesystem per call (plan.h, call-scope.h): a
 * `run` asks for the same plan three times (the clause report, bwrap's argv,
 * the placeholders the spawner makes) and `wrap` twice; each plan walks the
 * writable roots, lists the protected trees and resolves every home entry.
 * While a call's scope is open on this thread (call-scope.h), a repeated
 * request gets a copy of the first answer; the scope's close frees them.
 * Outside a scope every request is answered fresh, so no answer outlives
 * the call that asked for it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call-scope.h"
#include "policy-internal.h"
#include "profiles/plan.h"

#define MEMO_MAX 4

typedef struct memo_entry {
	char *key;
	size_t len;
	cf_plan plan;
} memo_entry;

static _Thread_local struct {
	size_t n;
	memo_entry e[MEMO_MAX];
} memo;

static int key_str(cf_buf *b, const char *s) {
	uint32_t len = s ? (uint32_t)strlen(s) : UINT32_MAX;
	int r = cf_buf_append(b, &len, sizeof len);
	return r < 0 || !s ? r : cf_buf_append(b, s, len);
}

static int key_strv(cf_buf *b, char *const *v) {
	uint32_t n = (uint32_t)cf_strv_length((const char *const *)v);
	int r = cf_buf_append(b, &n, sizeof n);
	for (uint32_t i = 0; r == 0 && i < n; i++)
		r = key_str(b, v[i]);
	return r;
}

/* Every policy field a plan reads (plan.c, protect*.c, later*.c,
 * patterns.c), length-prefixed so that no two policies share a key. A field
 * a plan comes to read belongs here too; test-plan-memo.c changes each one
 * and wants a fresh plan. */
#define KEY_FLAGS sizeof(unsigned) /* the key begins with the flags */

static int make_key(const confine_policy *p, unsigned flags, cf_buf *b) {
	int32_t words[2] = { (int32_t)p->mode, p->default_protections ? 1 : 0 };
	int r = cf_buf_append(b, &flags, sizeof flags);
	if (r == 0)
		r = cf_buf_append(b, words, sizeof words);
	if (r == 0)
		r = key_str(b, p->workspace_root);
	if (r == 0)
		r = key_strv(b, p->writable_roots);
	if (r == 0)
		r = key_strv(b, p->protected_paths);
	if (r == 0)
		r = key_strv(b, p->deny_read);
	if (r == 0)
		r = key_strv(b, p->unprotect);
	if (r == 0)
		r = key_str(b, p->stage_dir);
	return r;
}

static char **strv_dup(char *const *v, int *r) {
	char **out;
	if (!v || *r < 0)
		return NULL;
	if (!(out = cf_strv_copy((const char *const *)v)))
		*r = -ENOMEM;
	return out;
}

static char *str_dup(const char *s, int *r) {
	char *out;
	if (!s || *r < 0)
		return NULL;
	if (!(out = strdup(s)))
		*r = -ENOMEM;
	return out;
}

/* Every field of `src` (plan.h), owned anew. 0 or -ENOMEM (then `dst` is
 * cleared). */
static int plan_copy(const cf_plan *src, cf_plan *dst) {
	int r = 0;
	*dst = *src;
	dst->writable = strv_dup(src->writable, &r);
	dst->protect_all = strv_dup(src->protect_all, &r);
	dst->pins = strv_dup(src->pins, &r);
	dst->deny = strv_dup(src->deny, &r);
	dst->defaults_reason = str_dup(src->defaults_reason, &r);
	dst->protected_paths = NULL;
	dst->deny_is_dir = NULL;
	dst->n_protected = 0;
	if (r == 0 && src->deny_is_dir) {
		if ((dst->deny_is_dir = calloc(src->n_deny + 1, sizeof *dst->deny_is_dir)))
			memcpy(dst->deny_is_dir, src->deny_is_dir, src->n_deny * sizeof *src->deny_is_dir);
		else
			r = -ENOMEM;
	}
	if (r == 0 && src->protected_paths) {
		if (!(dst->protected_paths = calloc(src->n_protected + 1, sizeof *src->protected_paths)))
			r = -ENOMEM;
		for (size_t i = 0; r == 0 && i < src->n_protected; i++) {
			dst->protected_paths[i] = src->protected_paths[i];
			dst->protected_paths[i].path = NULL;
			dst->protected_paths[i].link_of = NULL;
			dst->n_protected = i + 1;
			dst->protected_paths[i].path = str_dup(src->protected_paths[i].path, &r);
			dst->protected_paths[i].link_of = str_dup(src->protected_paths[i].link_of, &r);
		}
	}
	if (r < 0)
		cf_plan_clear(dst);
	return r;
}

/* A plan without flags from one made with some: what CF_PLAN_BWRAP adds
 * (cf_plan_bwrap_protections: the bind list, the pins and what they leave
 * unprotected) is dropped; the rest is the same look (plan.c). */
static int plan_copy_plain(const cf_plan *src, cf_plan *dst) {
	cf_plan plain = *src;
	plain.protected_paths = NULL;
	plain.n_protected = 0;
	plain.pins = NULL;
	plain.explicit_unprotected = false;
	plain.defaults_unprotected = false;
	plain.defaults_reason = NULL;
	return plan_copy(&plain, dst);
}

static void memo_release(void) {
	for (size_t i = 0; i < memo.n; i++) {
		free(memo.e[i].key);
		cf_plan_clear(&memo.e[i].plan);
	}
	memset(&memo, 0, sizeof memo);
}

int cf_plan_make(const confine_policy *policy, unsigned flags, cf_plan *ret) {
	cf_buf key = { 0 };
	int r;
	if (!cf_call_is_open() || !policy || !ret)
		return cf_plan_make_fresh(policy, flags, ret);
	if (make_key(policy, flags, &key) < 0) {
		cf_buf_free(&key);
		return -ENOMEM;
	}
	for (size_t i = 0; i < memo.n; i++) {
		const memo_entry *e = &memo.e[i];
		unsigned had;
		if (e->len != key.len || memcmp(e->key + KEY_FLAGS, key.data + KEY_FLAGS,
		                                key.len - KEY_FLAGS) != 0)
			continue;
		memcpy(&had, e->key, sizeof had);
		if (had == flags || flags == 0) {
			cf_buf_free(&key);
			return flags == had ? plan_copy(&e->plan, ret) : plan_copy_plain(&e->plan, ret);
		}
	}
	if ((r = cf_plan_make_fresh(policy, flags, ret)) < 0 || memo.n == MEMO_MAX ||
	    cf_call_on_close(memo_release) < 0) {
		cf_buf_free(&key);
		return r;
	}
	/* Kept only when the copy could be made: a failure here costs the
	 * next request a fresh plan, never a wrong one. */
	if (plan_copy(ret, &memo.e[memo.n].plan) == 0) {
		memo.e[memo.n].len = key.len;
		memo.e[memo.n].key = cf_buf_steal(&key);
		if (memo.e[memo.n].key)
			memo.n++;
		else
			cf_plan_clear(&memo.e[memo.n].plan);
	}
	cf_buf_free(&key);
	return 0;
}
