/* SPDX-License-Identifier: MIT */
/*
 * What runs later, beyond git (doc/SPEC.md 15, "What runs later"): the
 * table of entries, the lookups on it and the `unprotect` opt-out. Where
 * the entries are under a policy's roots is later-walk.c's; the
 * before/after fingerprint that reports a change where a rung cannot keep
 * an entry read-only is later-snapshot.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "later.h"
#include "policy-internal.h"

#define STAGE "policy"

/* doc/SPEC.md 15 gives each entry's reason; keep the two in step. */
#define R CF_LATER_AT_ROOT
#define H CF_LATER_AT_HOME
#define RH (CF_LATER_AT_ROOT | CF_LATER_AT_HOME)
#define DIR_ CF_LATER_STAND_DIR
#define FILE_ CF_LATER_STAND_FILE
#define NONE_ CF_LATER_STAND_NONE
#define BELOW_ CF_LATER_STAND_BELOW
#define LEAF_ CF_LATER_STAND_LEAF
const cf_later_entry cf_later_entries[] = {
	{ ".gitmodules", false, true, R, DIR_ },
	{ ".gitattributes", false, true, R, DIR_ },
	{ ".bashrc", false, false, RH, DIR_ },
	{ ".bash_profile", false, false, RH, DIR_ },
	{ ".bash_login", false, false, RH, DIR_ },
	{ ".bash_logout", false, false, RH, DIR_ },
	{ ".profile", false, false, RH, DIR_ },
	{ ".zshrc", false, false, RH, DIR_ },
	{ ".zprofile", false, false, RH, DIR_ },
	{ ".zshenv", false, false, RH, DIR_ },
	{ ".zlogin", false, false, RH, DIR_ },
	{ ".envrc", false, false, R, DIR_ },
	{ ".npmrc", false, false, RH, DIR_ },
	{ ".ripgreprc", false, false, R, DIR_ },
	{ ".mcp.json", false, false, R, DIR_ },
	{ ".vscode/settings.json", false, false, R, DIR_ },
	{ ".vscode/tasks.json", false, false, R, DIR_ },
	{ ".vscode/launch.json", false, false, R, DIR_ },
	{ ".idea", true, false, R, DIR_ },
	{ ".claude/settings.json", false, false, R, DIR_ },
	{ ".claude/settings.local.json", false, false, R, DIR_ },
	{ ".claude/commands", true, false, R, DIR_ },
	{ ".claude/agents", true, false, R, DIR_ },
	{ ".claude/skills", true, false, R, DIR_ },
	{ "CLAUDE.md", false, false, R, DIR_ },
	{ "AGENTS.md", false, false, R, DIR_ },
	{ ".pre-commit-config.yaml", false, false, R, DIR_ },
	{ ".yarnrc.yml", false, false, R, DIR_ },
	{ ".yarnrc", false, false, R, DIR_ },
	{ ".husky", true, false, R, DIR_ },
	{ ".codex/config.toml", false, false, R, DIR_ },
	{ ".cursor", true, false, R, DIR_ },
	/* red team round 3, F11, and their kind (issue 28) */
	{ ".hg/hgrc", false, false, R, FILE_ },
	{ ".cargo/config.toml", false, false, R, FILE_ },
	{ ".cargo/config", false, false, R, NONE_ },
	{ ".mise.toml", false, false, R, NONE_ },
	{ "mise.toml", false, false, R, NONE_ },
	{ ".pnpmfile.cjs", false, false, R, NONE_ },
	{ ".python-version", false, false, R, NONE_ },
	/* the user's global configuration, at the home (issue 28) */
	{ ".gitconfig", false, false, H, FILE_ },
	{ ".config/git/config", false, false, H, FILE_ },
	{ ".hgrc", false, false, H, FILE_ },
	/* red team round 4, F3: agents' instructions and hooks, editors' MCP
	 * servers, zsh's log-out file; the home's keys, PATH, units, helpers */
	{ "CLAUDE.local.md", false, false, R, DIR_ },
	{ ".claude/CLAUDE.md", false, false, R, DIR_ },
	{ ".claude/rules", true, false, R, DIR_ },
	{ ".claude/hooks", true, false, R, DIR_ },
	{ ".vscode/mcp.json", false, false, R, DIR_ },
	{ ".gemini", true, false, R, DIR_ },
	{ "GEMINI.md", false, false, R, DIR_ },
	{ ".github/copilot-instructions.md", false, false, R, BELOW_ },
	{ ".cursorrules", false, false, R, DIR_ },
	{ ".windsurfrules", false, false, R, DIR_ },
	{ ".clinerules", true, false, R, DIR_ },
	{ ".zlogout", false, false, RH, DIR_ },
	{ ".ssh", true, false, H, DIR_ },
	{ ".local/bin", true, false, H, BELOW_ },
	{ ".bash_aliases", false, false, H, DIR_ },
	{ ".config/systemd/user", true, false, H, BELOW_ },
	{ ".docker/config.json", false, false, H, FILE_ },
	{ ".gnupg", true, false, H, NONE_ },
	{ ".claude.json", false, false, H, NONE_ },
	/* issue 28, the outside red team: what else runs from a home */
	{ ".local/lib", true, false, H, LEAF_ },
	{ ".vimrc", false, false, H, FILE_ },
	{ ".gvimrc", false, false, H, FILE_ },
	{ ".exrc", false, false, H, FILE_ },
	{ ".vim", true, false, H, LEAF_ },
	{ ".config/nvim", true, false, H, LEAF_ },
	{ ".local/share/nvim/site", true, false, H, LEAF_ },
	{ ".emacs", false, false, H, FILE_ },
	{ ".emacs.el", false, false, H, FILE_ },
	{ ".emacs.d", true, false, H, LEAF_ },
	{ ".config/emacs", true, false, H, LEAF_ },
	{ ".bash_completion", false, false, H, FILE_ },
	{ ".local/share/bash-completion", true, false, H, LEAF_ },
	{ ".inputrc", false, false, H, FILE_ },
	{ ".tmux.conf", false, false, H, FILE_ },
	{ ".config/tmux", true, false, H, LEAF_ },
	{ ".config/fish", true, false, H, LEAF_ },
	{ ".config/starship.toml", false, false, H, LEAF_ },
	{ ".config/direnv", true, false, H, LEAF_ },
	{ ".local/share/direnv/allow", true, false, H, LEAF_ },
	{ ".config/autostart", true, false, H, LEAF_ },
	{ ".xprofile", false, false, H, FILE_ },
	{ ".xsessionrc", false, false, H, FILE_ },
	{ ".xsession", false, false, H, FILE_ },
	{ ".xinitrc", false, false, H, FILE_ },
	{ ".config/environment.d", true, false, H, LEAF_ },
	{ ".config/systemd/user.conf", false, false, H, LEAF_ },
	{ ".config/git/attributes", false, false, H, LEAF_ },
	{ ".lessfilter", false, false, H, FILE_ },
	{ ".gdbinit", false, false, H, FILE_ },
	{ ".config/gdb", true, false, H, LEAF_ },
	{ ".ipython", true, false, H, LEAF_ },
	{ ".config/Code/User/settings.json", false, false, H, LEAF_ },
	{ ".config/Code/User/tasks.json", false, false, H, LEAF_ },
	{ ".config/Code/User/mcp.json", false, false, H, LEAF_ },
	{ ".vscode/extensions", true, false, H, DIR_ },
	{ ".codex/AGENTS.md", false, false, H, DIR_ },
	{ ".cargo/env", false, false, H, FILE_ },
	{ ".cargo/bin", true, false, H, LEAF_ },
	{ ".pip/pip.conf", false, false, H, FILE_ },
	{ ".config/pip/pip.conf", false, false, H, FILE_ },
#include "later-entries-more.inc"
};
#undef R
#undef H
#undef RH
#undef DIR_
#undef FILE_
#undef NONE_
#undef BELOW_
#undef LEAF_
const size_t cf_later_count = sizeof cf_later_entries / sizeof cf_later_entries[0];

bool cf_later_project(const cf_later_entry *entry) {
	return (entry->where & CF_LATER_AT_ROOT) != 0;
}

/* The length of `name`'s first component. */
static size_t first_len(const char *name) {
	return strcspn(name, "/");
}

bool cf_later_marks(const char *name) {
	size_t len;
	/* Every project entry starts with '.', 'A', 'C', 'G' or 'm': most of
	 * a tree's names (a node_modules) are turned away by one compare. */
	if (name[0] != '.' && name[0] != 'A' && name[0] != 'C' && name[0] != 'G' && name[0] != 'm')
		return false;
	len = strlen(name);
	for (size_t i = 0; i < cf_later_count; i++)
		if (cf_later_project(&cf_later_entries[i]) &&
		    first_len(cf_later_entries[i].name) == len &&
		    memcmp(cf_later_entries[i].name, name, len) == 0)
			return true;
	return false;
}

const cf_later_entry *cf_later_lookup(const char *name) {
	size_t len;
	if (!name)
		return NULL;
	len = strlen(name);
	if (len && name[len - 1] == '/')
		len--;
	for (size_t i = 0; i < cf_later_count; i++)
		if (strlen(cf_later_entries[i].name) == len &&
		    strncmp(cf_later_entries[i].name, name, len) == 0)
			return &cf_later_entries[i];
	return NULL;
}

bool cf_later_protected(const confine_policy *policy, const cf_later_entry *entry) {
	if (!policy->default_protections)
		return false;
	for (size_t i = 0; policy->unprotect && policy->unprotect[i]; i++)
		if (cf_later_lookup(policy->unprotect[i]) == entry)
			return false;
	return true;
}

int cf_later_check_unprotect(const char *name, confine_error *err) {
	char list[4096]; /* every name, ~1,700 bytes today: room for more, never cut */
	size_t off = 0;
	if (name && cf_later_lookup(name))
		return 0;
	list[0] = '\0';
	for (size_t i = 0; i < cf_later_count && off < sizeof list; i++) {
		int n = snprintf(list + off, sizeof list - off, "%s%s%s", i ? ", " : "",
		                 cf_later_entries[i].name, cf_later_entries[i].dir ? "/" : "");
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
	                    "unprotect entry \"%s\" is not a default protection for what runs "
	                    "later (one of %s)",
	                    name ? name : "(null)", list);
}
