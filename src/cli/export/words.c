/* SPDX-License-Identifier: MIT */
/*
 * The k8s export's own values, judged where the CLI reads them
 * (args.c): `--runtime-class` (a RuntimeClass name) and `--image` (an
 * image reference). doc/SPEC.md 20.
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"

#define IMAGE_MAX 512

/* A Kubernetes object name of the DNS-1123 label kind (a RuntimeClass's):
 * 1 to 63 of [a-z0-9-], starting and ending alphanumeric. */
static bool dns1123_label(const char *s) {
	size_t n = strlen(s);
	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* An image reference as the pod carries it: 1 to IMAGE_MAX bytes of
 * printable ASCII, no space (the reference grammar has none; the
 * registry resolves the rest). */
static bool image_reference(const char *s) {
	size_t n = strlen(s);
	if (n == 0 || n > IMAGE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* `value` for a refusal: at most 80 bytes, a control byte as '?'. */
static const char *shown_value(const char *value, char *out, size_t size) {
	size_t i = 0;
	for (; value[i] && i < 80 && i + 1 < size; i++)
		out[i] = (unsigned char)value[i] < 0x20 || value[i] == 0x7f ? '?' : value[i];
	out[i] = '\0';
	return out;
}

const char *cli_export_value_refused(bool image, const char *value, char *why, size_t size) {
	char quoted[96];
	if (image ? image_reference(value) : dns1123_label(value))
		return NULL;
	if (image)
		snprintf(why, size,
		         "\"%s\": expected an image reference of 1 to %d printable ASCII bytes, no "
		         "whitespace or control bytes",
		         shown_value(value, quoted, sizeof quoted), IMAGE_MAX);
	else
		snprintf(why, size,
		         "\"%s\": expected a Kubernetes RuntimeClass name (a DNS-1123 label: 1 to 63 "
		         "of a-z, 0-9 and '-', starting and ending with a letter or digit)",
		         shown_value(value, quoted, sizeof quoted));
	return why;
}
