/*
 * Transparent capture's parsers (capture-parse.h; doc/SPEC.md 15,
 * "Transparent capture"). Pure: bytes in, a result out.
 */
#include <string.h>
#include <strings.h>

#include "capture-parse.h"

void capture_write_preamble(unsigned char *out, const char *token, const unsigned char *addr,
			    uint16_t port)
{
	memcpy(out, CAPTURE_MAGIC, CAPTURE_MAGIC_LENGTH);
	memcpy(out + CAPTURE_MAGIC_LENGTH, token, CAPTURE_TOKEN_LENGTH);
	memcpy(out + CAPTURE_MAGIC_LENGTH + CAPTURE_TOKEN_LENGTH, addr, 16);
	memcpy(out + CAPTURE_MAGIC_LENGTH + CAPTURE_TOKEN_LENGTH + 16, &port, 2);
}

enum capture_result capture_parse_preamble(const unsigned char *buf, size_t len,
					   const char *token, unsigned char *addr, uint16_t *port)
{
	unsigned char diff = 0;
	size_t i, n = len < CAPTURE_MAGIC_LENGTH ? len : CAPTURE_MAGIC_LENGTH;

	if (memcmp(buf, CAPTURE_MAGIC, n) != 0)
		return CAPTURE_BAD;
	if (len < CAPTURE_PREAMBLE_LENGTH)
		return CAPTURE_MORE;
	for (i = 0; i < CAPTURE_TOKEN_LENGTH; i++)
		diff |= (unsigned char)(buf[CAPTURE_MAGIC_LENGTH + i] ^ (unsigned char)token[i]);
	if (diff != 0 || strlen(token) != CAPTURE_TOKEN_LENGTH)
		return CAPTURE_BAD;
	memcpy(addr, buf + CAPTURE_MAGIC_LENGTH + CAPTURE_TOKEN_LENGTH, 16);
	memcpy(port, buf + CAPTURE_MAGIC_LENGTH + CAPTURE_TOKEN_LENGTH + 16, 2);
	return CAPTURE_OK;
}

static size_t be16(const unsigned char *p)
{
	return (size_t)p[0] << 8 | p[1];
}

static enum capture_result copy_name(const unsigned char *from, size_t n, char *name,
				     size_t name_size)
{
	/* A NUL inside would cut the name short of what the origin reads
	 * (red team, round 5: `allowed.test\0other`): not a name. */
	if (n == 0 || n >= name_size || memchr(from, '\0', n))
		return CAPTURE_BAD;
	memcpy(name, from, n);
	name[n] = '\0';
	return CAPTURE_OK;
}

/* The server_name extension's data (RFC 6066 3): the first host_name. */
static enum capture_result sni_name(const unsigned char *p, size_t n, char *name,
				    size_t name_size)
{
	size_t list, at = 2;

	if (n < 2 || (list = be16(p)) + 2 > n)
		return CAPTURE_BAD;
	while (at + 3 <= 2 + list) {
		size_t len = be16(p + at + 1);

		if (at + 3 + len > 2 + list)
			return CAPTURE_BAD;
		if (p[at] == 0)
			return copy_name(p + at + 3, len, name, name_size);
		at += 3 + len;
	}
	return CAPTURE_NO_NAME;
}

/*
 * A TLS record (RFC 8446 5.1) holding a ClientHello (4.1.2): type 22,
 * then the handshake: type 1, a 24-bit length, version, random, session
 * id, cipher suites, compression methods, extensions.
 */
static enum capture_result tls_name(const unsigned char *buf, size_t len, char *name,
				    size_t name_size)
{
	size_t record, hello, at, end, ext_end;

	if (len < 5)
		return CAPTURE_MORE;
	if (buf[1] != 3)
		return CAPTURE_NO_NAME;
	record = be16(buf + 3);
	if (len < 5 + record)
		return CAPTURE_MORE;
	if (record < 4 || buf[5] != 1)
		return CAPTURE_NO_NAME;
	hello = (size_t)buf[6] << 16 | (size_t)buf[7] << 8 | buf[8];
	if (hello + 4 > record)
		return CAPTURE_NO_NAME; /* cut across records */
	at = 9 + 2 + 32;
	end = 9 + hello;
	if (at + 1 > end)
		return CAPTURE_BAD;
	at += 1 + buf[at]; /* session id */
	if (at + 2 > end)
		return CAPTURE_BAD;
	at += 2 + be16(buf + at); /* cipher suites */
	if (at + 1 > end)
		return CAPTURE_BAD;
	at += 1 + buf[at]; /* compression methods */
	if (at == end)
		return CAPTURE_NO_NAME; /* no extensions */
	if (at + 2 > end)
		return CAPTURE_BAD;
	ext_end = at + 2 + be16(buf + at);
	if (ext_end > end)
		return CAPTURE_BAD;
	at += 2;
	while (at + 4 <= ext_end) {
		size_t type = be16(buf + at), n = be16(buf + at + 2);

		if (at + 4 + n > ext_end)
			return CAPTURE_BAD;
		if (type == 0)
			return sni_name(buf + at + 4, n, name, name_size);
		at += 4 + n;
	}
	return CAPTURE_NO_NAME;
}

/* Whether buf starts like an HTTP request line: a token of upper-case
 * letters, then a space (RFC 9110 9: every registered method). */
static enum capture_result http_start(const unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 20; i++) {
		if (buf[i] == ' ')
			return i > 0 ? CAPTURE_OK : CAPTURE_NO_NAME;
		if (buf[i] < 'A' || buf[i] > 'Z')
			return CAPTURE_NO_NAME;
	}
	return i < 20 ? CAPTURE_MORE : CAPTURE_NO_NAME;
}

/* The Host header's value, its port cut off (RFC 9110 7.2): exactly one
 * Host line, else CAPTURE_BAD (two could be read two ways). */
static enum capture_result http_name(const unsigned char *buf, size_t len, char *name,
				     size_t name_size)
{
	const unsigned char *end = memmem(buf, len, "\r\n\r\n", 4);
	const unsigned char *host = NULL, *line;
	size_t host_len = 0, at;
	enum capture_result r = http_start(buf, len);

	if (r != CAPTURE_OK)
		return r;
	if (end == NULL)
		return CAPTURE_MORE;
	line = memchr(buf, '\n', (size_t)(end - buf));
	while (line != NULL && line < end) {
		const unsigned char *v = line + 1, *nl = memchr(v, '\n', (size_t)(end + 2 - v));
		size_t n = nl != NULL ? (size_t)(nl - v) : 0;

		if (n > 0 && v[n - 1] == '\r')
			n--;
		if (n >= 5 && strncasecmp((const char *)v, "host:", 5) == 0) {
			if (host != NULL)
				return CAPTURE_BAD;
			host = v + 5;
			host_len = n - 5;
		}
		line = nl;
	}
	if (host == NULL)
		return CAPTURE_NO_NAME;
	while (host_len > 0 && (*host == ' ' || *host == '\t')) {
		host++;
		host_len--;
	}
	while (host_len > 0 && (host[host_len - 1] == ' ' || host[host_len - 1] == '\t'))
		host_len--;
	if (host_len > 0 && host[0] == '[') {
		const unsigned char *close = memchr(host, ']', host_len);

		if (close == NULL)
			return CAPTURE_BAD;
		host_len = (size_t)(close - host) + 1;
	} else {
		for (at = 0; at < host_len && host[at] != ':'; at++)
			;
		host_len = at;
	}
	return copy_name(host, host_len, name, name_size);
}

enum capture_result capture_parse_name(const unsigned char *buf, size_t len,
				       enum capture_protocol *protocol, char *name,
				       size_t name_size)
{
	*protocol = CAPTURE_UNKNOWN;
	if (len == 0)
		return CAPTURE_MORE;
	if (buf[0] == 22) {
		*protocol = CAPTURE_TLS;
		return tls_name(buf, len, name, name_size);
	}
	if (http_start(buf, len) == CAPTURE_NO_NAME)
		return CAPTURE_NO_NAME;
	*protocol = CAPTURE_HTTP;
	return http_name(buf, len, name, name_size);
}

enum capture_result capture_dns_question(const unsigned char *q, size_t len, char *name,
					 size_t name_size, unsigned *qtype, size_t *question_end)
{
	size_t at = 12, n = 0;

	/* a query (QR 0), opcode QUERY, exactly one question */
	if (len < 12 || (q[2] & 0xf8) != 0 || be16(q + 4) != 1)
		return CAPTURE_BAD;
	while (at < len && q[at] != 0) {
		size_t label = q[at];

		if (label > 63 || at + 1 + label > len || n + label + 2 > name_size)
			return CAPTURE_BAD; /* a compression pointer has no place here */
		if (memchr(q + at + 1, '\0', label) || memchr(q + at + 1, '.', label))
			return CAPTURE_BAD; /* a name the text form would misread */
		if (n > 0)
			name[n++] = '.';
		memcpy(name + n, q + at + 1, label);
		n += label;
		at += 1 + label;
	}
	if (at + 5 > len || n == 0)
		return CAPTURE_BAD;
	name[n] = '\0';
	for (; n > 0; n--)
		if (name[n - 1] >= 'A' && name[n - 1] <= 'Z')
			name[n - 1] = (char)(name[n - 1] - 'A' + 'a');
	*qtype = (unsigned)be16(q + at + 1);
	*question_end = at + 5;
	return CAPTURE_OK;
}

size_t capture_dns_reply(const unsigned char *q, size_t question_end, unsigned rcode,
			 const unsigned char *addr, size_t addr_len, unsigned char *out,
			 size_t out_size)
{
	unsigned char record[] = { 0xc0, 12, 0, CAPTURE_DNS_TYPE_A, 0, 1,
				   0, 0, 0, CAPTURE_DNS_TTL, 0, 4 };
	size_t n = question_end + (addr != NULL ? sizeof(record) + addr_len : 0);

	if (n > out_size || question_end < 12 || (addr != NULL && addr_len != 4 && addr_len != 16))
		return 0;
	if (addr_len == 16) {
		record[3] = CAPTURE_DNS_TYPE_AAAA;
		record[11] = 16;
	}
	memcpy(out, q, question_end);
	out[2] = (unsigned char)(0x84 | (q[2] & 0x01)); /* QR, AA, the query's RD */
	out[3] = (unsigned char)(0x80 | (rcode & 0x0f)); /* RA */
	memset(out + 6, 0, 6);
	out[7] = addr != NULL ? 1 : 0;
	if (addr != NULL) {
		memcpy(out + question_end, record, sizeof(record));
		memcpy(out + question_end + sizeof(record), addr, addr_len);
	}
	return n;
}
