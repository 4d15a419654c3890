/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cf_error_set(confine_error *err, int errnum, confine_error_code code, const char *stage,
                 int sys_errno, const char *fmt, ...) {
	if (err) {
		va_list ap;
		err->code = code;
		err->stage = stage;
		err->sys_errno = sys_errno;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

size_t cf_strv_length(const char *const *strv) {
	size_t n = 0;
	if (strv)
		while (strv[n])
			n++;
	return n;
}

char **cf_strv_copy(const char *const *strv) {
	size_t n = cf_strv_length(strv);
	char **out = calloc(n + 1, sizeof *out);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		out[i] = strdup(strv[i]);
		if (!out[i]) {
			confine_strv_free(out);
			return NULL;
		}
	}
	return out;
}

int cf_strv_push(char ***strv, const char *s) {
	size_t n = cf_strv_length((const char *const *)*strv);
	char *copy = strdup(s);
	char **grown;
	if (!copy)
		return -ENOMEM;
	grown = realloc(*strv, (n + 2) * sizeof *grown);
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	grown[n] = copy;
	grown[n + 1] = NULL;
	*strv = grown;
	return 0;
}

void confine_strv_free(char **strv) {
	if (!strv)
		return;
	for (char **p = strv; *p; p++)
		free(*p);
	free(strv);
}

int cf_buf_append(cf_buf *buf, const void *data, size_t len) {
	if (buf->len + len + 1 > buf->cap) {
		size_t cap = buf->cap ? buf->cap : 64;
		char *grown;
		while (cap < buf->len + len + 1)
			cap *= 2;
		grown = realloc(buf->data, cap);
		if (!grown)
			return -ENOMEM;
		buf->data = grown;
		buf->cap = cap;
	}
	if (len)
		memcpy(buf->data + buf->len, data, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
	return 0;
}

int cf_buf_puts(cf_buf *buf, const char *s) {
	return cf_buf_append(buf, s, strlen(s));
}

int cf_buf_printf(cf_buf *buf, const char *fmt, ...) {
	va_list ap;
	int n;
	char small[256];
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof small)
		return cf_buf_append(buf, small, (size_t)n);
	{
		char *big = malloc((size_t)n + 1);
		int r;
		if (!big)
			return -ENOMEM;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		r = cf_buf_append(buf, big, (size_t)n);
		free(big);
		return r;
	}
}

char *cf_buf_steal(cf_buf *buf) {
	char *data;
	if (!buf->data && cf_buf_append(buf, "", 0) < 0)
		return NULL;
	data = buf->data;
	buf->data = NULL;
	buf->len = buf->cap = 0;
	return data;
}

void cf_buf_free(cf_buf *buf) {
	free(buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
}

bool cf_contains_ci(const char *hay, size_t hay_len, const char *needle, size_t needle_len) {
	if (needle_len == 0)
		return true;
	if (needle_len > hay_len)
		return false;
	for (size_t i = 0; i + needle_len <= hay_len; i++) {
		size_t j = 0;
		while (j < needle_len &&
		       tolower((unsigned char)hay[i + j]) == tolower((unsigned char)needle[j]))
			j++;
		if (j == needle_len)
			return true;
	}
	return false;
}

long long cf_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cf_strv_remove(char **strv, const char *item) {
	size_t out = 0;
	if (!strv)
		return;
	for (size_t i = 0; strv[i]; i++) {
		if (strcmp(strv[i], item) == 0)
			free(strv[i]);
		else
			strv[out++] = strv[i];
	}
	strv[out] = NULL;
}
