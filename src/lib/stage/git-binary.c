/* SPDX-License-Identifier: MIT */
/*
 * git's binary patch format for the stage's patch (doc/SPEC.md 21): what
 * `git diff --binary` writes and `git apply` reads. A file's new bytes
 * (and, for `git apply -R`, its old ones) as a `literal` hunk: the bytes
 * zlib-wrapped in stored (uncompressed) deflate blocks, then base85 in
 * lines of at most 52 bytes, the line's first letter its length. git
 * applies a binary patch only with the full blob ids of both sides (the
 * `index` line), checked against the file it patches: SHA-1 of
 * "blob SIZE\0" and the bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "stage/stage-internal.h"

/* ---- SHA-1 (FIPS 180-4), for git's blob ids ---------------------------- */

typedef struct sha1_ctx {
	uint32_t h[5];
	uint64_t len;
	unsigned char block[64];
	size_t used;
} sha1_ctx;

static uint32_t rol(uint32_t x, int n) {
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(sha1_ctx *c, const unsigned char *p) {
	uint32_t w[80], a = c->h[0], b = c->h[1], d = c->h[3], e = c->h[4], cc = c->h[2];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;
		if (i < 20) {
			f = (b & cc) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ cc ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & cc) | (b & d) | (cc & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ cc ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = cc;
		cc = rol(b, 30);
		b = a;
		a = t;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
}

static void sha1_update(sha1_ctx *c, const void *data, size_t len) {
	const unsigned char *p = data;
	c->len += len;
	while (len) {
		size_t take = 64 - c->used < len ? 64 - c->used : len;
		memcpy(c->block + c->used, p, take);
		c->used += take;
		p += take;
		len -= take;
		if (c->used == 64) {
			sha1_block(c, c->block);
			c->used = 0;
		}
	}
}

static void sha1_final(sha1_ctx *c, unsigned char out[20]) {
	uint64_t bits = c->len * 8;
	unsigned char pad = 0x80, zero = 0, len[8];
	sha1_update(c, &pad, 1);
	while (c->used != 56)
		sha1_update(c, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_update(c, len, 8);
	for (int i = 0; i < 20; i++)
		out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

void cf_git_blob_id(const char *data, size_t len, bool exists, char out[41]) {
	sha1_ctx c = { { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 }, 0, { 0 }, 0 };
	unsigned char sum[20];
	char head[32];
	int n;
	if (!exists) {
		memset(out, '0', 40);
		out[40] = 0;
		return;
	}
	n = snprintf(head, sizeof head, "blob %zu", len);
	sha1_update(&c, head, (size_t)n + 1); /* with its NUL */
	sha1_update(&c, data, len);
	sha1_final(&c, sum);
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", sum[i]);
}

/* ---- the literal hunk -------------------------------------------------- */

static const char en85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/* One line: up to 52 bytes of the deflated stream. */
static int put_line(cf_buf *out, const unsigned char *p, size_t n) {
	char line[1 + 65 + 2];
	size_t at = 1;
	line[0] = (char)(n <= 26 ? 'A' + n - 1 : 'a' + n - 27);
	for (size_t i = 0; i < n; i += 4) {
		uint32_t acc = 0;
		for (size_t j = 0; j < 4; j++)
			acc |= (uint32_t)(i + j < n ? p[i + j] : 0) << (24 - 8 * j);
		for (int k = 4; k >= 0; k--) {
			line[at + (size_t)k] = en85[acc % 85];
			acc /= 85;
		}
		at += 5;
	}
	line[at++] = '\n';
	return cf_buf_append(out, line, at);
}

/* Feeds the zlib stream to the lines, 52 bytes at a time. */
typedef struct liner {
	cf_buf *out;
	unsigned char pend[52];
	size_t n;
	int r;
} liner;

static void feed(liner *l, const void *data, size_t len) {
	const unsigned char *p = data;
	while (l->r == 0 && len) {
		size_t take = sizeof l->pend - l->n < len ? sizeof l->pend - l->n : len;
		memcpy(l->pend + l->n, p, take);
		l->n += take;
		p += take;
		len -= take;
		if (l->n == sizeof l->pend) {
			l->r = put_line(l->out, l->pend, l->n);
			l->n = 0;
		}
	}
}

static int literal(cf_buf *out, const char *data, size_t len) {
	/* zlib: CMF 0x78 (deflate, 32K window), FLG 0x01 (no dictionary, the
	 * check bits), stored blocks of at most 65535 bytes, Adler-32. */
	static const unsigned char head[2] = { 0x78, 0x01 };
	liner l = { out, { 0 }, 0, 0 };
	uint32_t s1 = 1, s2 = 0;
	size_t at = 0;
	l.r = cf_buf_printf(out, "literal %zu\n", len);
	feed(&l, head, 2);
	do {
		size_t n = len - at > 65535 ? 65535 : len - at;
		unsigned char block[5] = { (unsigned char)(at + n == len), (unsigned char)(n & 0xff),
			                   (unsigned char)(n >> 8), (unsigned char)(~n & 0xff),
			                   (unsigned char)((~n >> 8) & 0xff) };
		feed(&l, block, 5);
		feed(&l, data + at, n);
		for (size_t i = 0; i < n; i++) {
			s1 = (s1 + (unsigned char)data[at + i]) % 65521;
			s2 = (s2 + s1) % 65521;
		}
		at += n;
	} while (at < len);
	{
		uint32_t adler = s2 << 16 | s1;
		unsigned char tail[4] = { (unsigned char)(adler >> 24), (unsigned char)(adler >> 16),
			                  (unsigned char)(adler >> 8), (unsigned char)adler };
		feed(&l, tail, 4);
	}
	if (l.r == 0 && l.n)
		l.r = put_line(out, l.pend, l.n);
	return l.r == 0 ? cf_buf_puts(out, "\n") : l.r;
}

int cf_git_binary_hunks(cf_buf *out, const char *a, size_t alen, const char *b, size_t blen) {
	int r = cf_buf_puts(out, "GIT binary patch\n");
	if (r == 0)
		r = literal(out, b, blen); /* forward */
	if (r == 0)
		r = literal(out, a, alen); /* reverse */
	return r;
}
