/*
 * The contract between landlock-run and whoever starts it (DESIGN D1, D4).
 *
 * One copy of every text and number the launcher promises: its failure
 * prefix and exit status, the partial-enforcement notice, the probe lines,
 * and the records it writes on `--status-fd N`. The launcher, the library
 * and the tests all include this header; nothing here touches the OS.
 *
 * Status records are ASCII lines, each written with one write(2):
 *
 *   layers <word>...      what confines the command (words below), before `started`
 *   started <pid>         the command's exec succeeded
 *   error <line>          the launcher failed before the command ran; <line> is
 *                         exactly the stderr line ("landlock-run: ...")
 *   exec-failed <errno>   exec of the command failed; nothing ran
 *   exit <code>           the command exited with <code>
 *   signal <n>            the command was killed by signal <n>
 *   denied <clause> <op> <object>
 *                         the supervisor refused the command <op> on <object>
 *                         (an absolute path, escaped: see below) under
 *                         <clause>; between `started` and `exit`/`signal`
 *   refused <clause> <host> <port> <reason>
 *                         the network proxy refused a request for <host> (one word
 *                         of LAUNCHER_HOST_CHARS, or "-") and <port> under <clause>
 *                         (launcher_refused_clause); <reason>, the rest of the line
 *                         (possibly empty), is the decider's own for network.ask
 *   decision <host> <port> allow|deny <by>
 *                         what a name got, once per host and port a run; <by> is
 *                         launcher_decision_by's
 *   cpu <seconds> <microseconds>
 *                         the CPU time (user + system) of every process the
 *                         launcher reaped: the command and what was left of its
 *                         tree; once, just before `exit`/`signal` (the outer
 *                         bwrap's rusage cannot count it: bwrap never reaps its
 *                         pid 1)
 *   dropped <denied> <refused> <decision>
 *                         how many records of each kind were not written (past
 *                         their bound, or no room in the pipe); once, just before
 *                         `exit`/`signal`, when any is not 0
 *
 * Order: `error` alone (or after `layers`); or `layers`, then either
 * `exec-failed`, or `started`, any number of `denied` (at most
 * LAUNCHER_DENIED_MAX), at most one `cpu` and one `dropped` (in that order),
 * then exactly one of `exit` or `signal`. `layers`
 * always comes before `exec-failed` and `started`. A channel that closes with none of these means the
 * launcher died before it could say anything.
 */
#ifndef CONFINE_LAUNCHER_PROTOCOL_H
#define CONFINE_LAUNCHER_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

/* Every launcher failure is one stderr line starting with this, and this
 * exit status (SPEC 7); the command never ran. */
#define LAUNCHER_PREFIX "landlock-run: "
#define LAUNCHER_EXIT_FAILURE 125

/* The start of the proxy's line for each connection it refused, after
 * LAUNCHER_PREFIX: "network: refused (<why>) <host>:<port>" (SPEC 15);
 * the library reads it back as a denial (denials.c). */
#define LAUNCHER_NETWORK_REFUSED "network: refused ("

/* Printed on stderr before the command runs when the ABI is below the one
 * that covers every file right SPEC 7 names. */
#define LAUNCHER_PARTIAL_NOTICE LAUNCHER_PREFIX "partial enforcement (older Landlock ABI)"

/* Printed on stderr before the command starts when the supervisor cannot
 * run (SPEC 13) and the run goes on without it; %s is one of the words of
 * launcher_supervisor_missing_word(). For whoever reads stderr without a
 * status channel it is informational, never a launcher failure. */
#define LAUNCHER_NO_SUPERVISOR_HEAD "no supervisor ("
#define LAUNCHER_NO_SUPERVISOR_TAIL                                                   \
	"): metadata changes and unix socket connects outside the grants are not " \
	"mediated"
#define LAUNCHER_NO_SUPERVISOR_FORMAT \
	LAUNCHER_NO_SUPERVISOR_HEAD "%s" LAUNCHER_NO_SUPERVISOR_TAIL
/* The whole stderr line for one word, as a string literal. */
#define LAUNCHER_NO_SUPERVISOR_NOTICE(what) \
	LAUNCHER_PREFIX LAUNCHER_NO_SUPERVISOR_HEAD what LAUNCHER_NO_SUPERVISOR_TAIL

/* What supervisor-probe.h names as missing, for index 0, 1, ...; NULL past
 * the end. */
static inline const char *launcher_supervisor_missing_word(unsigned index)
{
	static const char *const words[] = {
		"user-notification", "pidfd_open", "pidfd_getfd", "process_vm_readv", "proc",
		"nested-listener",
	};

	return index < sizeof(words) / sizeof(words[0]) ? words[index] : NULL;
}

/* A staged run on the bwrap rung (doc/SPEC.md 21): staged root N is also
 * bound read-only at LAUNCHER_STAGE_LOWER "/N", with nothing mounted below
 * it, for overlayfs's lower layer; the launcher covers the directory once
 * the overlays are mounted. */
#define LAUNCHER_STAGE_LOWER "/dev/.confine-stage"

/* `landlock-run --probe` prints exactly one of these lines. */
#define LAUNCHER_PROBE_FULL "landlock: fully enforced"
#define LAUNCHER_PROBE_PARTIAL "landlock: partially enforced (older ABI)"

/* Status record keywords. */
#define LAUNCHER_RECORD_LAYERS "layers"
#define LAUNCHER_RECORD_STARTED "started"
#define LAUNCHER_RECORD_ERROR "error"
#define LAUNCHER_RECORD_EXEC_FAILED "exec-failed"
#define LAUNCHER_RECORD_EXIT "exit"
#define LAUNCHER_RECORD_SIGNAL "signal"
#define LAUNCHER_RECORD_DENIED "denied"
#define LAUNCHER_RECORD_REFUSED "refused"
#define LAUNCHER_RECORD_DECISION "decision"
#define LAUNCHER_RECORD_DROPPED "dropped"
#define LAUNCHER_RECORD_CPU "cpu"

/* A host in a record: a name or an address, lower case. */
#define LAUNCHER_HOST_CHARS "abcdefghijklmnopqrstuvwxyz0123456789.-_:[]"

/* At most this many `refused` and `decision` records per run (the same
 * room rule as `denied`). */
#define LAUNCHER_REFUSED_MAX 256
#define LAUNCHER_DECISIONS_MAX 256

/*
 * The ask socket (`--ask-fd N`, doc/SPEC.md 15 "Ask"): a stream socket
 * whose other end is whoever started the launcher. The proxy writes
 *   ask <id> <host> <port>\n
 * for a name on neither list, and reads
 *   answer <id> allow|deny <reason>\n
 * (<id> a decimal 1..2^31-1 from the question, <reason> the rest of the
 * line, possibly empty, no control bytes). A question not answered within
 * PROXY_ASK_SECONDS (the launcher's) is refused.
 */
#define LAUNCHER_ASK_QUESTION "ask"
#define LAUNCHER_ASK_ANSWER "answer"

/* At most this many `denied` records per run; the launcher also writes one
 * only where the pipe has room for it and for the final `exit`/`signal`
 * record (LAUNCHER_RECORD_RESERVE bytes): the library reads the channel
 * when the run has ended, and a full pipe would stall the supervisor. */
#define LAUNCHER_DENIED_MAX 32
#define LAUNCHER_RECORD_RESERVE 128

/* A record, newline included, is at most this long: one atomic pipe
 * write (PIPE_BUF). A longer failure line is cut to fit, on stderr too. */
#define LAUNCHER_RECORD_MAX 4096

/* The `layers` words, one bit each. */
enum launcher_layer {
	LAUNCHER_LAYER_LANDLOCK = 1U << 0,         /* every file right SPEC 7 names */
	LAUNCHER_LAYER_LANDLOCK_PARTIAL = 1U << 1, /* an older ABI: some stay open */
	LAUNCHER_LAYER_SECCOMP = 1U << 2,          /* the deny-list filter */
	LAUNCHER_LAYER_SUPERVISOR = 1U << 3,       /* the seccomp-notify supervisor */
};
#define LAUNCHER_LAYER_COUNT 4

/* The word for bit number index (0 .. LAUNCHER_LAYER_COUNT - 1), in the
 * order records list them; NULL past the end. */
static inline const char *launcher_layer_word(unsigned index)
{
	switch (index) {
	case 0:
		return "landlock";
	case 1:
		return "landlock-partial";
	case 2:
		return "seccomp";
	case 3:
		return "supervisor";
	default:
		return NULL;
	}
}

enum launcher_record_kind {
	LAUNCHER_RECORD_KIND_LAYERS,
	LAUNCHER_RECORD_KIND_STARTED,
	LAUNCHER_RECORD_KIND_ERROR,
	LAUNCHER_RECORD_KIND_EXEC_FAILED,
	LAUNCHER_RECORD_KIND_EXIT,
	LAUNCHER_RECORD_KIND_SIGNAL,
	LAUNCHER_RECORD_KIND_DENIED,
	LAUNCHER_RECORD_KIND_REFUSED,
	LAUNCHER_RECORD_KIND_DECISION,
	LAUNCHER_RECORD_KIND_DROPPED,
	LAUNCHER_RECORD_KIND_CPU,
};

/* One parsed record. Nothing is allocated: text points into the line. */
struct launcher_record {
	enum launcher_record_kind kind;
	long value;          /* started: pid; exec-failed: errno; exit: code; signal: number */
	unsigned layers;     /* layers: enum launcher_layer bits */
	const char *text;    /* error: the stderr line, without its newline;
				denied: the object, escaped (launcher_object_decode) */
	size_t text_length;
	const char *clause;  /* denied: the clause word, e.g. "metadata" */
	size_t clause_length;
	const char *op;      /* denied: the operation word, e.g. "chmod" */
	size_t op_length;
	/* refused, decision: the host (value: the port); refused: text is
	 * the reason, clause the clause; decision: allow, and op is <by> */
	const char *host;
	size_t host_length;
	bool allow;
	/* dropped: the records not written, of `denied`, `refused`,
	 * `decision` */
	long dropped[3];
	/* cpu: seconds (0..2^31-1) and microseconds (0..999999) */
	long cpu_seconds, cpu_microseconds;
};

/* The clause words of a `refused` record. NULL past the end. */
static inline const char *launcher_refused_clause(unsigned index)
{
	static const char *const words[] = { "network", "network.allow", "network.deny",
					     "network.allowLocal", "network.ask" };

	return index < sizeof(words) / sizeof(words[0]) ? words[index] : NULL;
}

/* The <by> words of a `decision` record. NULL past the end. */
static inline const char *launcher_decision_by(unsigned index)
{
	static const char *const words[] = { "allowlist", "denylist", "decider", "off",
					     "allowLocal" };

	return index < sizeof(words) / sizeof(words[0]) ? words[index] : NULL;
}

/* A question and an answer on the ask socket; nothing allocated. */
struct launcher_question {
	long id;
	const char *host;
	size_t host_length;
	unsigned port;
};

struct launcher_answer {
	long id;
	bool allow;
	const char *reason;
	size_t reason_length;
};

/* A host name the proxy serves and the decider is asked about
 * (doc/SPEC.md 15, "Host names"): a DNS name of LDH labels (letters,
 * digits, hyphens; 1 to 63 each, none starting or ending with a hyphen)
 * joined by dots, at most 253 bytes without the one trailing dot allowed;
 * an internationalised name only in its punycode (xn--) form. So no name
 * holds a space, a control byte or starts with "-". */
#define LAUNCHER_HOST_NAME_MAX 253
#define LAUNCHER_HOST_LABEL_MAX 63
bool launcher_host_name_valid(const char *name, size_t length);

/* Parse one line of the ask socket (one trailing "\n" allowed), strictly;
 * 0 and fill, or -EINVAL. A question's host must be a valid host name
 * (launcher_host_name_valid). */
int launcher_question_parse(const char *line, size_t length, struct launcher_question *ret);
int launcher_answer_parse(const char *line, size_t length, struct launcher_answer *ret);

/* The clause words of a `denied` record: what the supervisor refuses on
 * its own (doc/SPEC.md 13, 15). NULL past the end. */
static inline const char *launcher_denied_clause(unsigned index)
{
	static const char *const words[] = { "metadata", "setid", "unix-sockets" };

	return index < sizeof(words) / sizeof(words[0]) ? words[index] : NULL;
}

/* The operation words of a `denied` record. NULL past the end. */
static inline const char *launcher_denied_op(unsigned index)
{
	static const char *const words[] = { "chmod",       "chown",    "utimes",
					     "setxattr",    "removexattr", "setflags",
					     "connect",     "send" };

	return index < sizeof(words) / sizeof(words[0]) ? words[index] : NULL;
}

/*
 * The object of a `denied` record is an absolute path written in ASCII:
 * every byte outside 0x21..0x7e but the space, and every backslash, is
 * written `\xHH` (two lowercase hex digits), so a record stays one line
 * whatever the path holds. Encodes `object` into out (NUL-terminated);
 * returns the encoded length, or 0 when it does not fit in `size` or the
 * object is not absolute.
 */
size_t launcher_object_encode(const char *object, char *out, size_t size);

/*
 * Decodes length bytes of an encoded object into out (NUL-terminated);
 * returns the decoded length, or -EINVAL for a malformed escape, a raw byte
 * outside 0x20..0x7e, an escaped NUL, a result that is not absolute, or
 * one that does not fit in `size`.
 */
int launcher_object_decode(const char *text, size_t length, char *out, size_t size);

/*
 * Parses one record. line holds length bytes (no NUL needed); one trailing
 * "\n" is allowed. Strict: a keyword from the list, one space, a decimal
 * in range (pid >= 1, errno 1..4095, exit 0..255, signal 1..127), an
 * `error` line that starts with LAUNCHER_PREFIX and has no control bytes,
 * `layers` words from the list (at least one, none twice), a `denied`
 * record's clause and op from their lists and an object that decodes.
 * Returns 0 and
 * fills *ret_record, or -EINVAL and leaves it untouched.
 */
int launcher_record_parse(const char *line, size_t length,
			  struct launcher_record *ret_record);

#endif
