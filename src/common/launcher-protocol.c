/* The status record parser of launcher-protocol.h. Pure: no I/O, no
 * allocation, no locale. */
#include "launcher-protocol.h"

#include <errno.h>
#include <string.h>

/* If line[0..length) starts with keyword followed by end or a space,
 * returns the length consumed including the space, else 0. Sets *bare
 * when the keyword ends the line. */
static size_t match_keyword(const char *line, size_t length, const char *keyword,
			    bool *bare)
{
	size_t n = strlen(keyword);

	if (length < n || memcmp(line, keyword, n) != 0)
		return 0;
	if (length == n) {
		*bare = true;
		return n;
	}
	if (line[n] != ' ')
		return 0;
	*bare = false;
	return n + 1;
}

/* A decimal without sign or leading zeros ("0" itself allowed), within
 * [min, max]. Returns 0 or -EINVAL. */
static int parse_decimal(const char *text, size_t length, long min, long max,
			 long *ret_value)
{
	long value = 0;
	size_t i;

	if (length == 0 || length > 10 || (length > 1 && text[0] == '0'))
		return -EINVAL;
	for (i = 0; i < length; i++) {
		if (text[i] < '0' || text[i] > '9')
			return -EINVAL;
		value = value * 10 + (text[i] - '0');
	}
	if (value < min || value > max)
		return -EINVAL;
	*ret_value = value;
	return 0;
}

static int parse_layers(const char *text, size_t length, unsigned *ret_layers)
{
	unsigned layers = 0;
	size_t start = 0;

	if (length == 0)
		return -EINVAL;
	while (start <= length) {
		size_t end = start;
		unsigned index;
		bool known = false;

		while (end < length && text[end] != ' ')
			end++;
		for (index = 0; index < LAUNCHER_LAYER_COUNT; index++) {
			const char *word = launcher_layer_word(index);

			if (strlen(word) == end - start &&
			    memcmp(word, text + start, end - start) == 0) {
				if (layers & (1U << index))
					return -EINVAL;
				layers |= 1U << index;
				known = true;
				break;
			}
		}
		if (!known)
			return -EINVAL;
		start = end + 1;
	}
	*ret_layers = layers;
	return 0;
}

static int parse_error_line(const char *text, size_t length)
{
	size_t prefix = strlen(LAUNCHER_PREFIX);
	size_t i;

	if (length <= prefix || memcmp(text, LAUNCHER_PREFIX, prefix) != 0)
		return -EINVAL;
	for (i = 0; i < length; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return -EINVAL;
	return 0;
}

size_t launcher_object_encode(const char *object, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t used = 0;

	if (object == NULL || out == NULL || object[0] != '/')
		return 0;
	for (; *object != '\0'; object++) {
		unsigned char c = (unsigned char)*object;

		if (c >= 0x20 && c <= 0x7e && c != '\\') {
			if (used + 1 >= size)
				return 0;
			out[used++] = (char)c;
			continue;
		}
		if (used + 4 >= size)
			return 0;
		out[used++] = '\\';
		out[used++] = 'x';
		out[used++] = hex[c >> 4];
		out[used++] = hex[c & 0xf];
	}
	if (used >= size)
		return 0;
	out[used] = '\0';
	return used;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int launcher_object_decode(const char *text, size_t length, char *out, size_t size)
{
	size_t i = 0, used = 0;

	if (text == NULL || out == NULL || size == 0)
		return -EINVAL;
	while (i < length) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c > 0x7e)
			return -EINVAL;
		if (c == '\\') {
			int high, low;

			if (length - i < 4 || text[i + 1] != 'x')
				return -EINVAL;
			high = hex_digit(text[i + 2]);
			low = hex_digit(text[i + 3]);
			if (high < 0 || low < 0 || (high == 0 && low == 0))
				return -EINVAL;
			c = (unsigned char)(high << 4 | low);
			i += 4;
		} else {
			i++;
		}
		if (used + 1 >= size)
			return -EINVAL;
		out[used++] = (char)c;
	}
	out[used] = '\0';
	if (used == 0 || out[0] != '/' || used > 0x7fffffff)
		return -EINVAL;
	return (int)used;
}

/* Whether text[0..length) is one of the words `word(index)` lists. */
static bool listed_word(const char *text, size_t length, const char *(*word)(unsigned))
{
	for (unsigned index = 0; word(index) != NULL; index++)
		if (strlen(word(index)) == length && memcmp(word(index), text, length) == 0)
			return true;
	return false;
}

/* "<clause> <op> <object>": two listed words, then an object that decodes. */
static int parse_denied(const char *text, size_t length, struct launcher_record *record)
{
	char decoded[LAUNCHER_RECORD_MAX];
	const char *space = memchr(text, ' ', length);
	const char *op, *object, *end = text + length;

	if (space == NULL || !listed_word(text, (size_t)(space - text), launcher_denied_clause))
		return -EINVAL;
	op = space + 1;
	space = memchr(op, ' ', (size_t)(end - op));
	if (space == NULL || !listed_word(op, (size_t)(space - op), launcher_denied_op))
		return -EINVAL;
	object = space + 1;
	if (launcher_object_decode(object, (size_t)(end - object), decoded, sizeof(decoded)) < 0)
		return -EINVAL;
	record->clause = text;
	record->clause_length = (size_t)(op - 1 - text);
	record->op = op;
	record->op_length = (size_t)(space - op);
	record->text = object;
	record->text_length = (size_t)(end - object);
	return 0;
}

/* The next space-separated word of text[*at..length): its start and
 * length; false when there is none. */
static bool next_word(const char *text, size_t length, size_t *at, const char **word,
		      size_t *word_length)
{
	size_t start = *at, end = start;

	while (end < length && text[end] != ' ')
		end++;
	if (end == start)
		return false;
	*word = text + start;
	*word_length = end - start;
	*at = end < length ? end + 1 : end;
	return true;
}

bool launcher_host_name_valid(const char *name, size_t length)
{
	size_t i, label = 0;

	if (name == NULL)
		return false;
	if (length > 0 && name[length - 1] == '.')
		length--; /* one trailing dot: the root */
	if (length == 0 || length > LAUNCHER_HOST_NAME_MAX)
		return false;
	for (i = 0; i < length; i++) {
		char ch = name[i];

		if (ch == '.') {
			/* no empty label; none ends with a hyphen */
			if (label == 0 || name[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '-'))
			return false;
		/* no label starts with a hyphen (nor, so, the name) */
		if (ch == '-' && label == 0)
			return false;
		if (++label > LAUNCHER_HOST_LABEL_MAX)
			return false;
	}
	return label > 0 && name[length - 1] != '-';
}

static bool host_word(const char *word, size_t length)
{
	size_t i;

	if (length == 0 || length > 253)
		return false;
	if (length == 1 && word[0] == '-')
		return true;
	for (i = 0; i < length; i++)
		if (word[i] == '\0' || strchr(LAUNCHER_HOST_CHARS, word[i]) == NULL)
			return false;
	return true;
}

static bool free_text(const char *text, size_t length)
{
	size_t i;

	for (i = 0; i < length; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return false;
	return true;
}

/* "<host> <port>" at *at: both checked. */
static bool host_and_port(const char *text, size_t length, size_t *at, const char **host,
			  size_t *host_length, long *port)
{
	const char *word;
	size_t n;

	return next_word(text, length, at, host, host_length) &&
	       host_word(*host, *host_length) && next_word(text, length, at, &word, &n) &&
	       parse_decimal(word, n, 1, 65535, port) == 0;
}

/* "<clause> <host> <port> <why>" */
static int parse_refused(const char *text, size_t length, struct launcher_record *record)
{
	size_t at = 0;

	if (!next_word(text, length, &at, &record->clause, &record->clause_length) ||
	    !listed_word(record->clause, record->clause_length, launcher_refused_clause) ||
	    !host_and_port(text, length, &at, &record->host, &record->host_length,
			   &record->value) ||
	    !free_text(text + at, length - at))
		return -EINVAL;
	record->text = text + at;
	record->text_length = at < length ? length - at : 0;
	return 0;
}

/* "<host> <port> allow|deny <by>" */
static int parse_decision(const char *text, size_t length, struct launcher_record *record)
{
	const char *word;
	size_t at = 0, n;

	if (!host_and_port(text, length, &at, &record->host, &record->host_length,
			   &record->value) ||
	    !next_word(text, length, &at, &word, &n))
		return -EINVAL;
	if (n == 5 && memcmp(word, "allow", 5) == 0)
		record->allow = true;
	else if (!(n == 4 && memcmp(word, "deny", 4) == 0))
		return -EINVAL;
	if (!next_word(text, length, &at, &record->op, &record->op_length) || at != length ||
	    !listed_word(record->op, record->op_length, launcher_decision_by))
		return -EINVAL;
	return 0;
}

/* Strips one "\n"; the line's keyword and its rest. */
static bool ask_line(const char *line, size_t *length, const char *keyword, size_t *at)
{
	bool bare = false;

	if (line == NULL)
		return false;
	if (*length > 0 && line[*length - 1] == '\n')
		(*length)--;
	if (*length == 0 || *length >= LAUNCHER_RECORD_MAX || memchr(line, '\n', *length) != NULL)
		return false;
	*at = match_keyword(line, *length, keyword, &bare);
	return *at != 0 && !bare;
}

int launcher_question_parse(const char *line, size_t length, struct launcher_question *ret)
{
	struct launcher_question q;
	const char *word;
	size_t at, n;
	long port;

	if (ret == NULL || !ask_line(line, &length, LAUNCHER_ASK_QUESTION, &at) ||
	    !next_word(line, length, &at, &word, &n) ||
	    parse_decimal(word, n, 1, 2147483647L, &q.id) != 0 ||
	    !host_and_port(line, length, &at, &q.host, &q.host_length, &port) || at != length ||
	    !launcher_host_name_valid(q.host, q.host_length))
		return -EINVAL;
	q.port = (unsigned)port;
	*ret = q;
	return 0;
}

int launcher_answer_parse(const char *line, size_t length, struct launcher_answer *ret)
{
	struct launcher_answer a;
	const char *word;
	size_t at, n;

	if (ret == NULL || !ask_line(line, &length, LAUNCHER_ASK_ANSWER, &at) ||
	    !next_word(line, length, &at, &word, &n) ||
	    parse_decimal(word, n, 1, 2147483647L, &a.id) != 0 ||
	    !next_word(line, length, &at, &word, &n))
		return -EINVAL;
	if (n == 5 && memcmp(word, "allow", 5) == 0)
		a.allow = true;
	else if (n == 4 && memcmp(word, "deny", 4) == 0)
		a.allow = false;
	else
		return -EINVAL;
	/* "answer 1 allow" and "answer 1 allow " both give no reason */
	if (at < length && line[at - 1] != ' ')
		return -EINVAL;
	a.reason = line + at;
	a.reason_length = at < length ? length - at : 0;
	if (!free_text(a.reason, a.reason_length))
		return -EINVAL;
	*ret = a;
	return 0;
}

int launcher_record_parse(const char *line, size_t length,
			  struct launcher_record *ret_record)
{
	static const struct {
		const char *keyword;
		enum launcher_record_kind kind;
		long min, max;
	} numeric[] = {
		{ LAUNCHER_RECORD_STARTED, LAUNCHER_RECORD_KIND_STARTED, 1, 2147483647L },
		{ LAUNCHER_RECORD_EXEC_FAILED, LAUNCHER_RECORD_KIND_EXEC_FAILED, 1, 4095 },
		{ LAUNCHER_RECORD_EXIT, LAUNCHER_RECORD_KIND_EXIT, 0, 255 },
		{ LAUNCHER_RECORD_SIGNAL, LAUNCHER_RECORD_KIND_SIGNAL, 1, 127 },
	};
	struct launcher_record record;
	size_t used, i;
	bool bare = false;

	if (line == NULL || ret_record == NULL)
		return -EINVAL;
	if (length > 0 && line[length - 1] == '\n')
		length--;
	if (length == 0 || length >= LAUNCHER_RECORD_MAX || memchr(line, '\n', length) != NULL)
		return -EINVAL;
	memset(&record, 0, sizeof(record));

	for (i = 0; i < sizeof(numeric) / sizeof(numeric[0]); i++) {
		used = match_keyword(line, length, numeric[i].keyword, &bare);
		if (used == 0)
			continue;
		if (bare || parse_decimal(line + used, length - used, numeric[i].min,
					  numeric[i].max, &record.value) != 0)
			return -EINVAL;
		record.kind = numeric[i].kind;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_LAYERS, &bare);
	if (used != 0) {
		if (bare || parse_layers(line + used, length - used, &record.layers) != 0)
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_LAYERS;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_DENIED, &bare);
	if (used != 0) {
		if (bare || parse_denied(line + used, length - used, &record) != 0)
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_DENIED;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_REFUSED, &bare);
	if (used != 0) {
		if (bare || parse_refused(line + used, length - used, &record) != 0)
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_REFUSED;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_DECISION, &bare);
	if (used != 0) {
		if (bare || parse_decision(line + used, length - used, &record) != 0)
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_DECISION;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_DROPPED, &bare);
	if (used != 0) {
		size_t at = used;
		for (i = 0; i < 3; i++) {
			const char *word;
			size_t n;
			if (bare || !next_word(line, length, &at, &word, &n) ||
			    parse_decimal(word, n, 0, 2147483647L, &record.dropped[i]) != 0)
				return -EINVAL;
		}
		if (at != length || line[length - 1] == ' ')
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_DROPPED;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_CPU, &bare);
	if (used != 0) {
		size_t at = used;
		const char *word;
		size_t n;
		if (bare || !next_word(line, length, &at, &word, &n) ||
		    parse_decimal(word, n, 0, 2147483647L, &record.cpu_seconds) != 0 ||
		    !next_word(line, length, &at, &word, &n) ||
		    parse_decimal(word, n, 0, 999999L, &record.cpu_microseconds) != 0 ||
		    at != length || line[length - 1] == ' ')
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_CPU;
		*ret_record = record;
		return 0;
	}
	used = match_keyword(line, length, LAUNCHER_RECORD_ERROR, &bare);
	if (used != 0) {
		if (bare || parse_error_line(line + used, length - used) != 0)
			return -EINVAL;
		record.kind = LAUNCHER_RECORD_KIND_ERROR;
		record.text = line + used;
		record.text_length = length - used;
		*ret_record = record;
		return 0;
	}
	return -EINVAL;
}
