/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the library's modules. */
#ifndef CONFINE_UTIL_H
#define CONFINE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

#define CONFINE_HIDDEN __attribute__((visibility("hidden")))

/* Fills `err` (may be NULL) and returns `-errnum` (errnum > 0). */
int cf_error_set(confine_error *err, int errnum, confine_error_code code, const char *stage,
                 int sys_errno, const char *fmt, ...) __attribute__((format(printf, 6, 7))) CONFINE_HIDDEN;

/* NULL-terminated string vectors. */
size_t cf_strv_length(const char *const *strv) CONFINE_HIDDEN;
/* Removes every entry equal to `item` from a NULL-terminated vector (NULL
 * is fine), freeing it. */
void cf_strv_remove(char **strv, const char *item) CONFINE_HIDDEN;
char **cf_strv_copy(const char *const *strv) CONFINE_HIDDEN; /* NULL in -> empty vector */
/* Appends a copy of `s`; *strv may be NULL. 0 or -ENOMEM (strv unchanged). */
int cf_strv_push(char ***strv, const char *s) CONFINE_HIDDEN;

/* Growable byte buffer. */
typedef struct cf_buf {
	char *data;
	size_t len;
	size_t cap;
} cf_buf;
int cf_buf_append(cf_buf *buf, const void *data, size_t len) CONFINE_HIDDEN;
int cf_buf_puts(cf_buf *buf, const char *s) CONFINE_HIDDEN;
int cf_buf_printf(cf_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3))) CONFINE_HIDDEN;
/* Hands over the NUL-terminated data (never NULL on success); the buffer is reset. */
char *cf_buf_steal(cf_buf *buf) CONFINE_HIDDEN;
void cf_buf_free(cf_buf *buf) CONFINE_HIDDEN;

/* Case-insensitive (ASCII) substring search within `hay[0..hay_len)`. */
bool cf_contains_ci(const char *hay, size_t hay_len, const char *needle, size_t needle_len) CONFINE_HIDDEN;

/* The timeout a process runs under (spawn/process.c). */
struct confine_process;
unsigned cf_process_timeout_ms(const struct confine_process *process) CONFINE_HIDDEN;

/* Monotonic clock in milliseconds. */
long long cf_now_ms(void) CONFINE_HIDDEN;

#endif
