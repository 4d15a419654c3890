/* SPDX-License-Identifier: MIT */
/* The confine command's JSON configuration file. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-file.h"
#include "config-words.h"

/* A configuration is a handful of keys; anything this big is not one, and
 * the cap keeps a mistaken `--config /dev/zero` from eating memory. */
#define CONFIG_MAX_BYTES (1024 * 1024)

/* The config keys of the table of options (src/common/options.def), dotted
 * where nested; NULL for a row with none. */
static const char *const table_keys[] = {
#define CONFINE_OPTION(id, key, ...) key,
#include "options.def"
#undef CONFINE_OPTION
};

/* The name right under `parent` ("": the top level; "env") of the table's
 * key `key`, its length in *len; NULL when `key` is not under `parent`. */
static const char *name_under(const char *parent, const char *key, size_t *len) {
	size_t plen = strlen(parent);
	if (!key || (plen && (strncmp(key, parent, plen) != 0 || key[plen] != '.')))
		return NULL;
	key += plen ? plen + 1 : 0;
	*len = strcspn(key, ".");
	return key;
}

/* The keys under `parent`, as "a, b, c", each once, in the table's order. */
static const char *known_keys_under(const char *parent, char *buf, size_t size) {
	size_t used = 0, n_keys = sizeof table_keys / sizeof table_keys[0];
	buf[0] = '\0';
	for (size_t i = 0; i < n_keys; i++) {
		size_t len, other_len;
		const char *name = name_under(parent, table_keys[i], &len), *other;
		bool seen = false;
		for (size_t j = 0; name && j < i && !seen; j++)
			seen = (other = name_under(parent, table_keys[j], &other_len)) && other_len == len &&
			       strncmp(other, name, len) == 0;
		if (!name || seen || used >= size)
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%.*s", used ? ", " : "", (int)len,
		                         name);
	}
	return buf;
}

confine_error_code cli_config_error_code(int r) {
	return r == -CLI_CONFIG_POLICY_VALUE ? CONFINE_E_INVALID_POLICY : CONFINE_E_INVALID_CONFIG;
}

const char *cli_config_pick_path(const char *option, const char *env) {
	if (option)
		return option;
	if (env && env[0])
		return env;
	return NULL;
}

static int config_error(char *errbuf, size_t size, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int config_error(char *errbuf, size_t size, int errnum, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, size, fmt, ap);
	va_end(ap);
	return -errnum;
}

/* A value of the wrong JSON type: `FILE: KEY must be EXPECTED, not
 * DESCRIBED`, the text every door gives after the file's name
 * (doc/SPEC.md 16, "One text per refusal"). */
static int wrong_type(char *errbuf, size_t size, const char *path, const char *key,
                      const char *expected, const json_t *value) {
	char described[256];
	cli_json_described(value, described, sizeof described);
	return config_error(errbuf, size, EINVAL, "%s: %s must be %s, not %s", path, key, expected,
	                    described);
}


/* Reads the whole file (bounded), NUL-terminated. Only a regular file: a
 * FIFO with no writer would block open(2) and read(2) for ever, a device
 * or a directory is not a configuration (-EBADFD). O_NONBLOCK makes the
 * open itself return whatever the path is; fstat then decides. */
static int read_file(const char *path, char **ret, size_t *ret_len) {
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char *data = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		bool stated = fstat(fd, &st) == 0;
		close(fd);
		return stated ? -EBADFD : -e;
	}
	if (st.st_size > CONFIG_MAX_BYTES) {
		close(fd);
		return -EFBIG;
	}
	for (;;) {
		ssize_t n;
		if (cap - len < 4096) {
			size_t new_cap = cap ? cap * 2 : 8192;
			char *grown = realloc(data, new_cap + 1);
			if (!grown) {
				free(data);
				close(fd);
				return -ENOMEM;
			}
			data = grown;
			cap = new_cap;
		}
		n = read(fd, data + len, cap - len);
		if (n < 0) {
			int saved = errno;
			if (saved == EINTR)
				continue;
			free(data);
			close(fd);
			return -saved;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFIG_MAX_BYTES) {
			free(data);
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	data[len] = '\0';
	*ret = data;
	*ret_len = len;
	return 0;
}

/* Appends a copy of `s` to a NULL-terminated list (NULL: a new one). */
static int cf_push(char ***list, const char *s) {
	size_t n = 0;
	char **grown;
	char *copy = strdup(s);
	while (*list && (*list)[n])
		n++;
	grown = copy ? realloc(*list, (n + 2) * sizeof *grown) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	grown[n] = copy;
	grown[n + 1] = NULL;
	*list = grown;
	return 0;
}

static int take_string(const char *path, const char *key, const json_t *value, char **ret,
                       char *errbuf, size_t size) {
	if (!json_is_string(value))
		return wrong_type(errbuf, size, path, key, "a string", value);
	*ret = strdup(json_string_value(value));
	return *ret ? 0 : config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
}

/* Paths in a configuration must be absolute: a relative one would mean
 * something different from every directory confine is started in. */
static int take_absolute_path(const char *path, const char *key, const json_t *value, char **ret,
                              int errnum, char *errbuf, size_t size) {
	int r = take_string(path, key, value, ret, errbuf, size);
	if (r < 0)
		return r;
	if ((*ret)[0] != '/') {
		r = config_error(errbuf, size, errnum,
		                 "%s: key \"%s\" must be an absolute path, got \"%s\"", path, key,
		                 *ret);
		free(*ret);
		*ret = NULL;
	}
	return r;
}

static int take_string_list(const char *path, const char *key, const json_t *value,
                            bool refuse_empty_strings, char ***ret, char *errbuf, size_t size) {
	size_t n, i;
	char **list;
	if (!json_is_array(value))
		return wrong_type(errbuf, size, path, key, cli_config_list_words(key), value);
	n = json_array_size(value);
	for (i = 0; i < n; i++) {
		const json_t *item = json_array_get(value, i);
		if (!json_is_string(item))
			return wrong_type(errbuf, size, path, key, "a string", item);
		if (refuse_empty_strings && json_string_value(item)[0] == '\0')
			return config_error(errbuf, size, EINVAL,
			                    "%s: key \"%s\": element %zu is an empty string", path, key, i);
	}
	list = calloc(n + 1, sizeof *list);
	if (!list)
		return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
	for (i = 0; i < n; i++) {
		list[i] = strdup(json_string_value(json_array_get(value, i)));
		if (!list[i]) {
			confine_strv_free(list);
			return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
		}
	}
	*ret = list;
	return 0;
}

static int take_bool(const char *path, const char *key, const json_t *value, bool *has,
                     bool *ret, char *errbuf, size_t size) {
	if (!json_is_boolean(value))
		return wrong_type(errbuf, size, path, key, "true or false", value);
	*ret = json_is_true(value);
	*has = true;
	return 0;
}

/* `~/REST` is REST under $HOME (doc/SPEC.md 15): in place, 0 or -ENOMEM;
 * -ENOENT when $HOME is unset or not absolute. */
static int expand_home(char **entry) {
	const char *home = getenv("HOME");
	char *joined;
	if ((*entry)[0] != '~' || (*entry)[1] != '/')
		return 0;
	if (!home || home[0] != '/')
		return -ENOENT;
	if (asprintf(&joined, "%s%s", home, *entry + 1) < 0)
		return -ENOMEM;
	free(*entry);
	*entry = joined;
	return 0;
}

/* A list of paths (writableRoots, protectedPaths, denyRead,
 * allowUnixSockets): an entry starting `~/` is under $HOME; every other
 * entry is the library's to judge (doc/SPEC.md 15: a relative denyRead is
 * a pattern, a relative writable root is refused), so the refusal is the
 * one every door gives, INVALID_POLICY naming the key and the value. */
/* A list of section 15 that takes one string for a list of it, as both
 * packages do (doc/SPEC.md 16; red team F6: "writableRoots": "/x" was
 * refused here and taken there): a path list, unprotect. */
static int take_one_or_list(const char *path, const char *key, const json_t *value, char ***ret,
                            char *errbuf, size_t size) {
	json_t *one;
	int r;
	if (!json_is_string(value))
		return take_string_list(path, key, value, false, ret, errbuf, size);
	one = json_array();
	if (!one || json_array_append_new(one, json_stringn(json_string_value(value), json_string_length(value))) < 0) {
		json_decref(one);
		return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
	}
	r = take_string_list(path, key, one, false, ret, errbuf, size);
	json_decref(one);
	return r;
}

static int take_path_list(const char *path, const char *key, const json_t *value, char ***ret,
                          char *errbuf, size_t size) {
	int r = take_one_or_list(path, key, value, ret, errbuf, size);
	for (size_t i = 0; r == 0 && (*ret)[i]; i++) {
		int e = expand_home(&(*ret)[i]);
		if (e < 0) {
			r = e == -ENOMEM ? config_error(errbuf, size, ENOMEM, "%s: out of memory", path)
			                 : config_error(errbuf, size, EINVAL,
			                                "%s: key \"%s\": element %zu is \"%s\", but $HOME "
			                                "is not set to an absolute path",
			                                path, key, i, (*ret)[i]);
			confine_strv_free(*ret);
			*ret = NULL;
		}
	}
	return r;
}

/* env.set: an object of strings, kept as NAME=VALUE. */
static int take_env_set(const char *path, const json_t *value, char ***ret, char *errbuf,
                        size_t size) {
	const char *name;
	json_t *item;
	char **list = NULL;
	if (!json_is_object(value))
		return wrong_type(errbuf, size, path, "env.set", "an object", value);
	json_object_foreach((json_t *)value, name, item) {
		confine_policy scratch;
		confine_error err;
		char *assignment = NULL;
		int r;
		if (!json_is_string(item)) {
			confine_strv_free(list);
			return wrong_type(errbuf, size, path, "env.set", "a string", item);
		}
		if (strchr(name, '=')) {
			/* NAME=VALUE would split at it: another name, another value
			 * (doc/SPEC.md 15, "Environment"; one text at every door). */
			confine_strv_free(list);
			return config_error(errbuf, size, CLI_CONFIG_POLICY_VALUE,
			                    "%s: key \"env.set\": env.set name \"%s\" holds '=': a variable "
			                    "name is printable ASCII without spaces or '='",
			                    path, name);
		}
		if (asprintf(&assignment, "%s=%s", name, json_string_value(item)) < 0) {
			confine_strv_free(list);
			return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
		}
		memset(&scratch, 0, sizeof scratch);
		r = confine_policy_add_env_set(&scratch, assignment, &err);
		confine_strv_free(scratch.env.set);
		if (r == 0 && cf_push(&list, assignment) < 0)
			r = -ENOMEM;
		free(assignment);
		if (r < 0) {
			confine_strv_free(list);
			if (r == -ENOMEM)
				return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
			return config_error(errbuf, size, CLI_CONFIG_POLICY_VALUE,
			                    "%s: key \"env.set\": %s", path, err.message);
		}
	}
	if (!list && !(list = calloc(1, sizeof *list)))
		return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
	*ret = list;
	return 0;
}

/* network as an object: the allowlist (doc/SPEC.md 15, "Network
 * allowlist"), network off plus the proxy. */
static int apply_network_object(const char *path, const json_t *value, cli_config *config,
                                char *errbuf, size_t size) {
	char known[512];
	const char *name;
	json_t *item;
	int r;
	json_object_foreach((json_t *)value, name, item) {
		if (strcmp(name, "allow") == 0 || strcmp(name, "deny") == 0) {
			char ***list = name[0] == 'a' ? &config->network_allow : &config->network_deny;
			char key[32];
			snprintf(key, sizeof key, "network.%s", name);
			confine_strv_free(*list);
			*list = NULL;
			/* the patterns are the library's to judge (INVALID_POLICY) */
			r = take_string_list(path, key, item, false, list, errbuf, size);
			if (r < 0)
				return r;
		} else if (strcmp(name, "allowLocal") == 0) {
			bool has;
			r = take_bool(path, "network.allowLocal", item, &has, &config->network_allow_local,
			              errbuf, size);
			if (r < 0)
				return r;
		} else {
			return config_error(errbuf, size, EINVAL,
			                    "%s: unknown key \"network.%s\" (expected %s)", path, name,
			                    known_keys_under("network", known, sizeof known));
		}
	}
	config->network = CONFINE_NETWORK_OFF;
	config->has_network = true;
	return 0;
}

static int apply_env(const char *path, const json_t *value, cli_config *config, char *errbuf,
                     size_t size) {
	char known[512];
	const char *key;
	json_t *item;
	if (!json_is_object(value))
		return wrong_type(errbuf, size, path, "env", "an object", value);
	json_object_foreach((json_t *)value, key, item) {
		int r;
		if (strcmp(key, "inherit") == 0) {
			confine_error err;
			if (!json_is_string(item))
				return wrong_type(errbuf, size, path, "env.inherit", "\"all\" or \"none\"", item);
			if (confine_env_inherit_parse(json_string_value(item), &config->env_inherit, &err) < 0)
				return config_error(errbuf, size, CLI_CONFIG_POLICY_VALUE,
				                    "%s: key \"env.inherit\": %s", path, err.message);
			config->has_env_inherit = true;
			r = 0;
		} else if (strcmp(key, "include") == 0) {
			r = take_string_list(path, "env.include", item, false, &config->env_include, errbuf,
			                     size);
		} else if (strcmp(key, "exclude") == 0) {
			r = take_string_list(path, "env.exclude", item, false, &config->env_exclude, errbuf,
			                     size);
		} else if (strcmp(key, "set") == 0) {
			r = take_env_set(path, item, &config->env_set, errbuf, size);
		} else if (strcmp(key, "defaultExcludes") == 0) {
			r = take_bool(path, "env.defaultExcludes", item, &config->has_env_default_excludes,
			              &config->env_default_excludes, errbuf, size);
		} else {
			r = config_error(errbuf, size, EINVAL,
			                 "%s: unknown key \"env.%s\" (expected %s)", path, key,
			                 known_keys_under("env", known, sizeof known));
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* limits: {"pids": 256, "memory": "2G", ...}. Only the shape is judged
 * here; each value goes to the library as text, so a bad one is the same
 * INVALID_POLICY at every door (a number is spelled as JSON gave it:
 * -1, 1.5 and 1e30 are refused there, never cut to fit). */
static int apply_limits(const char *path, const json_t *value, cli_config *config, char *errbuf,
                        size_t size) {
	char known[512];
	const char *key;
	json_t *item;
	if (!json_is_object(value))
		return wrong_type(errbuf, size, path, "limits", "an object", value);
	json_object_foreach((json_t *)value, key, item) {
		confine_limit limit;
		char text[512];
		confine_error err;
		if (confine_limit_from_name(key, &limit, &err) < 0 || key[0] == '-')
			return config_error(errbuf, size, EINVAL,
			                    "%s: unknown key \"limits.%s\" (expected %s)", path, key,
			                    known_keys_under("limits", known, sizeof known));
		if (json_is_null(item)) {
			snprintf(text, sizeof text, "unlimited");
		} else if (json_is_string(item)) {
			snprintf(text, sizeof text, "%s", json_string_value(item));
		} else if (json_is_number(item)) {
			if (json_is_integer(item) && llabs((long long)json_integer_value(item)) <= (1LL << 53))
				snprintf(text, sizeof text, "%lld", (long long)json_integer_value(item));
			else
				cli_json_number_text(json_number_value(item), text, sizeof text);
		} else {
			char full[128];
			snprintf(full, sizeof full, "limits.%s", key);
			return wrong_type(errbuf, size, path, full, "a number or a string", item);
		}
		free(config->limits[limit]);
		if (!(config->limits[limit] = strdup(text)))
			return config_error(errbuf, size, ENOMEM, "%s: out of memory", path);
	}
	return 0;
}

static int apply_key(const char *path, const char *key, const json_t *value, cli_config *config,
                     char *errbuf, size_t size) {
	char known[512];
	if (strcmp(key, "mode") == 0) {
		confine_error err;
		if (!json_is_string(value))
			return wrong_type(errbuf, size, path, "mode", "a string", value);
		if (confine_mode_parse(json_string_value(value), &config->mode, &err) < 0)
			return config_error(errbuf, size, CLI_CONFIG_POLICY_VALUE, "%s: key \"mode\": %s",
			                    path, err.message);
		config->has_mode = true;
		return 0;
	}
	if (strcmp(key, "workspaceRoot") == 0)
		return take_absolute_path(path, key, value, &config->workspace_root,
		                          CLI_CONFIG_POLICY_VALUE, errbuf, size);
	/* Its type only: the value (an absolute path) is the library's to
	 * judge when the provider is made, in its one text at every door
	 * (doc/SPEC.md 16; red team F6: an empty one had the reader's own). */
	if (strcmp(key, "landlockLauncher") == 0)
		return take_string(path, key, value, &config->landlock_launcher, errbuf, size);
	if (strcmp(key, "runner") == 0) {
		/* The rung to pin, as --runner names it (doc/SPEC.md 22: the
		 * gVisor rung runs only when named). */
		confine_error err;
		if (!json_is_string(value))
			return wrong_type(errbuf, size, path, "runner", "a string", value);
		if (confine_runner_parse(json_string_value(value), &config->runner, &err) < 0)
			return config_error(errbuf, size, EINVAL, "%s: key \"runner\": %s", path,
			                    err.message);
		config->has_runner = true;
		return 0;
	}
	if (strcmp(key, "runnerCommand") == 0) {
		int r = take_string_list(path, key, value, true, &config->runner_command, errbuf, size);
		if (r == 0 && !config->runner_command[0]) {
			/* An empty list means "not configured" (SPEC 4). */
			confine_strv_free(config->runner_command);
			config->runner_command = NULL;
		}
		return r;
	}
	if (strcmp(key, "runnerFailureSignatures") == 0)
		/* Their content (non-empty, single-line) is the library's check, so
		 * the message is SPEC 4's. */
		return take_string_list(path, key, value, false, &config->runner_failure_signatures,
		                        errbuf, size);
	if (strcmp(key, "probeTimeoutMs") == 0) {
		/* Its type only: the value (a positive whole number) is judged when
		 * the provider is made, after the signatures, in SPEC 4's order. */
		if (!json_is_number(value))
			return wrong_type(errbuf, size, path, "probeTimeoutMs", "a number", value);
		config->probe_timeout_ms = json_number_value(value);
		config->has_probe_timeout = true;
		return 0;
	}
	if (strcmp(key, "writableRoots") == 0)
		return take_path_list(path, key, value, &config->writable_roots, errbuf, size);
	if (strcmp(key, "unprotect") == 0)
		return take_one_or_list(path, key, value, &config->unprotect, errbuf, size);
	if (strcmp(key, "protectedPaths") == 0)
		return take_path_list(path, key, value, &config->protected_paths, errbuf, size);
	if (strcmp(key, "denyRead") == 0)
		return take_path_list(path, key, value, &config->deny_read, errbuf, size);
	if (strcmp(key, "allowUnixSockets") == 0)
		return take_path_list(path, key, value, &config->allow_unix_sockets, errbuf, size);
	if (strcmp(key, "defaultProtections") == 0)
		return take_bool(path, key, value, &config->has_default_protections,
		                 &config->default_protections, errbuf, size);
	if (strcmp(key, "requireFull") == 0)
		return take_bool(path, key, value, &config->has_require_full, &config->require_full,
		                 errbuf, size);
	if (strcmp(key, "network") == 0) {
		confine_error err;
		if (json_is_object(value))
			return apply_network_object(path, value, config, errbuf, size);
		if (!json_is_string(value))
			return wrong_type(errbuf, size, path, "network", "\"on\", \"off\" or an object",
			                  value);
		if (confine_network_parse(json_string_value(value), &config->network, &err) < 0)
			return config_error(errbuf, size, CLI_CONFIG_POLICY_VALUE, "%s: key \"network\": %s",
			                    path, err.message);
		config->has_network = true;
		return 0;
	}
	if (strcmp(key, "env") == 0)
		return apply_env(path, value, config, errbuf, size);
	if (strcmp(key, "limits") == 0)
		return apply_limits(path, value, config, errbuf, size);
	return config_error(errbuf, size, EINVAL, "%s: unknown key \"%s\" (expected %s)", path, key,
	                    known_keys_under("", known, sizeof known));
}

int cli_config_load(const char *path, cli_config *ret, char *errbuf, size_t errbuf_size) {
	cli_config config;
	json_error_t jerr;
	json_t *root;
	const char *key;
	json_t *value;
	char *text = NULL;
	size_t len = 0;
	int r;

	memset(&config, 0, sizeof config);
	r = read_file(path, &text, &len);
	if (r == -EFBIG)
		return config_error(errbuf, errbuf_size, EFBIG,
		                    "%s: cannot read config file: larger than %d bytes", path,
		                    CONFIG_MAX_BYTES);
	if (r == -EBADFD)
		return config_error(errbuf, errbuf_size, EBADFD,
		                    "%s: cannot read config file: not a regular file", path);
	if (r < 0)
		return config_error(errbuf, errbuf_size, -r, "%s: cannot read config file: %s", path,
		                    strerror(-r));

	/* Integers are decoded as reals so a huge probeTimeoutMs is a number the
	 * library judges, not a parse error; duplicate keys are refused because
	 * which one wins would be a guess. */
	root = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL,
	                  &jerr);
	free(text);
	if (!root) {
		if (jerr.line > 0)
			return config_error(errbuf, errbuf_size, EINVAL, "%s:%d:%d: malformed JSON: %s",
			                    path, jerr.line, jerr.column, jerr.text);
		return config_error(errbuf, errbuf_size, EINVAL, "%s: malformed JSON: %s", path,
		                    jerr.text);
	}
	if (!json_is_object(root)) {
		r = config_error(errbuf, errbuf_size, EINVAL,
		                 "%s: the configuration must be a JSON object, not %s", path,
		                 cli_json_type_words(root));
		json_decref(root);
		return r;
	}

	json_object_foreach(root, key, value) {
		r = apply_key(path, key, value, &config, errbuf, errbuf_size);
		if (r < 0) {
			json_decref(root);
			cli_config_clear(&config);
			return r;
		}
	}
	json_decref(root);

	config.path = strdup(path);
	if (!config.path) {
		cli_config_clear(&config);
		return config_error(errbuf, errbuf_size, ENOMEM, "%s: out of memory", path);
	}
	*ret = config;
	return 0;
}

void cli_config_clear(cli_config *config) {
	if (!config)
		return;
	free(config->path);
	free(config->workspace_root);
	confine_strv_free(config->runner_command);
	confine_strv_free(config->runner_failure_signatures);
	free(config->landlock_launcher);
	confine_strv_free(config->writable_roots);
	confine_strv_free(config->protected_paths);
	confine_strv_free(config->unprotect);
	confine_strv_free(config->deny_read);
	confine_strv_free(config->allow_unix_sockets);
	confine_strv_free(config->network_allow);
	confine_strv_free(config->network_deny);
	confine_strv_free(config->env_include);
	confine_strv_free(config->env_exclude);
	confine_strv_free(config->env_set);
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++)
		free(config->limits[i]);
	memset(config, 0, sizeof *config);
}
