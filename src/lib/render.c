/* SPDX-License-Identifier: MIT */
/* The model-facing rendering of a bash result (SPEC 9), and signal names. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clause-list.h"
#include "util.h"

static const struct {
	int number;
	const char *name;
} signal_names[] = {
	{ SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },       { SIGQUIT, "SIGQUIT" },
	{ SIGILL, "SIGILL" },   { SIGTRAP, "SIGTRAP" },     { SIGABRT, "SIGABRT" },
	{ SIGBUS, "SIGBUS" },   { SIGFPE, "SIGFPE" },       { SIGKILL, "SIGKILL" },
	{ SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" },     { SIGUSR2, "SIGUSR2" },
	{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },     { SIGTERM, "SIGTERM" },
	{ SIGCHLD, "SIGCHLD" }, { SIGCONT, "SIGCONT" },     { SIGSTOP, "SIGSTOP" },
	{ SIGTSTP, "SIGTSTP" }, { SIGTTIN, "SIGTTIN" },     { SIGTTOU, "SIGTTOU" },
	{ SIGURG, "SIGURG" },   { SIGXCPU, "SIGXCPU" },     { SIGXFSZ, "SIGXFSZ" },
	{ SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" }, { SIGWINCH, "SIGWINCH" },
	{ SIGIO, "SIGIO" },     { SIGSYS, "SIGSYS" },
#ifdef SIGSTKFLT
	{ SIGSTKFLT, "SIGSTKFLT" },
#endif
#ifdef SIGPWR
	{ SIGPWR, "SIGPWR" },
#endif
};

const char *confine_signal_name(int sig, char *buf, size_t size) {
	for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
		if (signal_names[i].number == sig)
			return signal_names[i].name;
	if (!buf || size == 0)
		return "SIG?";
	snprintf(buf, size, "SIG%d", sig);
	return buf;
}

/* Appends a marker on its own line. */
static int marker(cf_buf *b, const char *text) {
	if (b->len > 0 && b->data[b->len - 1] != '\n' && cf_buf_puts(b, "\n") < 0)
		return -1;
	return cf_buf_puts(b, text);
}

/* Appends captured output. The rendering is a C string, so a NUL byte in
 * the output would silently cut off everything after it, the markers
 * included: each NUL becomes U+FFFD instead. */
static int append_output(cf_buf *b, const char *data, size_t len) {
	static const char replacement[] = "\xef\xbf\xbd";
	while (len) {
		const char *nul = memchr(data, '\0', len);
		size_t run = nul ? (size_t)(nul - data) : len;
		if (cf_buf_append(b, data, run) < 0)
			return -1;
		if (!nul)
			break;
		if (cf_buf_append(b, replacement, sizeof replacement - 1) < 0)
			return -1;
		data += run + 1;
		len -= run + 1;
	}
	return 0;
}

/* text with each control byte as '?': it stays within one line. */
static int put_line_safe(cf_buf *b, const char *text) {
	for (const char *c = text; *c; c++) {
		char ch = ((unsigned char)*c < 0x20 || *c == 0x7f) ? '?' : *c;
		if (cf_buf_append(b, &ch, 1) < 0)
			return -1;
	}
	return 0;
}

/* One "[denied: <op> <object> (<clause>)[: <reason>]]" line per denial of one kind
 * (doc/SPEC.md 9): a control byte of the object shows as '?', so the line
 * stays one line. */
static int denial_lines(cf_buf *b, const confine_outcome *o, bool files) {
	for (size_t i = 0; i < o->n_denials; i++) {
		const confine_denial *d = &o->denials[i];
		const char *object = files ? d->path : d->address;
		if (!object || !d->op || !d->clause)
			continue;
		if (marker(b, "[denied: ") < 0 || cf_buf_puts(b, d->op) < 0 || cf_buf_puts(b, " ") < 0)
			return -1;
		if (put_line_safe(b, object) < 0 || cf_buf_printf(b, " (%s)", d->clause) < 0)
			return -1;
		/* the run's decider said why (doc/SPEC.md 15, "Ask") */
		if (d->reason && d->reason[0] &&
		    (cf_buf_puts(b, ": ") < 0 || put_line_safe(b, d->reason) < 0))
			return -1;
		if (cf_buf_puts(b, "]") < 0)
			return -1;
	}
	return 0;
}

bool confine_outcome_limit_marker(const confine_outcome *o, char *buf, size_t size) {
	char value[64];
	const char *name;
	if (!buf || !size)
		return false;
	buf[0] = '\0';
	if (!o || !o->limit_stopped || !(name = confine_limit_name(o->limit)))
		return false;
	confine_limit_format(o->limit, o->limit_value, value, sizeof value);
	if (o->limit_killed)
		snprintf(buf, size, "[sandbox: killed: %s limit (%s)]",
		         o->limit == CONFINE_LIMIT_CPU_SECONDS ? "cpu" : name, value);
	else
		snprintf(buf, size, "[sandbox: limit reached: %s (%s)]", name, value);
	return true;
}

char *confine_bash_render(const confine_bash_result *result) {
	const confine_outcome *o;
	cf_buf b = { 0 };
	char text[128];
	if (!result)
		return NULL;
	/* A runner failure is an infrastructure failure: the model sees the
	 * error, not the runner's stderr dressed up as the command's. */
	if (result->error.code != CONFINE_OK)
		return strdup(result->error.message);
	o = result->outcome;
	if (!o)
		return strdup("(no output)");

	if (o->stdout_len && append_output(&b, o->stdout_data, o->stdout_len) < 0)
		goto oom;
	if (o->stderr_len) {
		if (b.len && b.data[b.len - 1] != '\n' && cf_buf_puts(&b, "\n") < 0)
			goto oom;
		if (cf_buf_puts(&b, "[stderr]\n") < 0 ||
		    append_output(&b, o->stderr_data, o->stderr_len) < 0)
			goto oom;
	}
	if (!o->stdout_len && !o->stderr_len && cf_buf_puts(&b, "(no output)") < 0)
		goto oom;
	/* The model must know it saw only the start of a stream. */
	if (o->stdout_truncated) {
		snprintf(text, sizeof text, "[stdout truncated at %zu bytes]", o->stdout_len);
		if (marker(&b, text) < 0)
			goto oom;
	}
	if (o->stderr_truncated) {
		snprintf(text, sizeof text, "[stderr truncated at %zu bytes]", o->stderr_len);
		if (marker(&b, text) < 0)
			goto oom;
	}
	if (o->denied) {
		const char *mode = confine_mode_name(o->mode);
		snprintf(text, sizeof text, "[sandbox: file access denied under %s mode]",
		         mode ? mode : "?");
		if (marker(&b, text) < 0)
			goto oom;
	}
	/* What was refused, so an approval can name what to grant. */
	if (denial_lines(&b, o, true) < 0)
		goto oom;
	if (o->network_denied) {
		const char *mode = confine_mode_name(o->mode);
		snprintf(text, sizeof text, "[sandbox: network access denied under %s mode]",
		         mode ? mode : "?");
		if (marker(&b, text) < 0)
			goto oom;
	}
	if (denial_lines(&b, o, false) < 0)
		goto oom;
	/* Which limit stopped it: the model must not retry the same way. */
	if (confine_outcome_limit_marker(o, text, sizeof text) && marker(&b, text) < 0)
		goto oom;
	/* The model must know what did not hold before it trusts a result
	 * (a secret it was told is hidden, a path it was told is protected). */
	if (o->confined && !cf_clauses_all_enforced(o->clauses, o->n_clauses)) {
		char what[4096], line[4160];
		cf_clauses_describe_unenforced(o->clauses, o->n_clauses, what, sizeof what);
		snprintf(line, sizeof line, "[sandbox: not enforced on this run: %s]", what);
		if (marker(&b, line) < 0)
			goto oom;
	}
	if (o->timed_out) {
		snprintf(text, sizeof text, "[timed out after %ums]", result->timeout_ms);
		if (marker(&b, text) < 0)
			goto oom;
	}
	if (o->signaled) {
		char name[32];
		snprintf(text, sizeof text, "[killed by signal: %s]",
		         confine_signal_name(o->signal, name, sizeof name));
		if (marker(&b, text) < 0)
			goto oom;
	} else if (o->exit_code != 0) {
		snprintf(text, sizeof text, "[exit code: %d]", o->exit_code);
		if (marker(&b, text) < 0)
			goto oom;
	}
	return cf_buf_steal(&b);
oom:
	cf_buf_free(&b);
	return NULL;
}
