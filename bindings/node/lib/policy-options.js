// SPDX-License-Identifier: MIT
'use strict';

const { InvalidPolicyError } = require('./errors');
const { show, wrongType, checkString, checkStrings, checkBoolean, checkObject } = require('./values');
const table = require('./table');

// ---- policy options: one table ---------------------------------------------

/*
 * The policy options beyond mode and workspace: the rows of the table of
 * options (./table.js) and the CLI flags each becomes. A row of type
 * path-list or bool with a flag needs nothing here (generic below); the
 * nested ones (network, env, limits) have their own toArgs, reading their
 * keys and flags from the table. An option is forwarded when the `confine`
 * in use lists its flag in its --help; otherwise it is refused with
 * InvalidPolicyError naming it: a policy the sandbox would not enforce is
 * never accepted silently. A row this file cannot turn into flags is
 * refused the same way.
 */
const list = (flag) => (value, option) => {
  // An empty entry is confine's to refuse, in the library's words (one
  // text at every door, doc/SPEC.md 16); a relative writable root or socket
  // is taken from this process's current directory, where confine runs.
  const items = checkStrings(value, option, 'policy', 'paths', { oneAllowed: true });
  return items.map((item) => pair(flag, item));
};

// The limits' keys and the CLI flags they become (the table's LIMIT rows).
const LIMIT_FLAGS = Object.fromEntries(table.under('limits').map((r) => [table.leaf(r.node), r.flag]));
// The keys of the objects network and env take.
const NETWORK_KEYS = table.under('network').map((r) => table.leaf(r.node));
const ENV_KEYS = table.under('env').map((r) => table.leaf(r.node));
const flagOf = (name) => table.row(name).flag;
const ENV_ENTRY_MAX = table.row('env.set').length;
// A flag and its value as one word, `--flag=VALUE`: a value that begins
// with '-' (an env pattern `--`, an unprotect entry `--network=on`) is
// then never read as a flag, by confine or by the check of its --help
// below, and reaches confine's own check as given (red team F6).
const pair = (flag, value) => `${flag}=${value}`;

/** A top-level row of a plain type: its flags, from the row alone. */
function generic(row) {
  const option = row.node;
  if (row.type === 'path-list') return { flags: [row.flag], toArgs: list(row.flag) };
  // names (unprotect): strings, each checked by confine itself
  if (row.type === 'string-list' && row.flag) return { flags: [row.flag], toArgs: list(row.flag) };
  if (row.type === 'bool' && row.flag) {
    // A flag that turns a default-true option off is given for false; one
    // that turns a default-false option on is given for true.
    const given = row.default === true ? false : true;
    return {
      flags: [row.flag],
      toArgs: (value) => (checkBoolean(value, option, 'policy') === given ? [row.flag] : []),
    };
  }
  return undefined;
}

// The options whose value is an object (or more than one flag).
const NESTED = {
  network: {
    flags: table.policyRows().filter((r) => table.head(r.node) === 'network').map((r) => r.flag),
    toArgs: (value, option) => {
      // The allowlist (doc/SPEC.md 15, "Network allowlist"):
      // {allow: [hosts], deny: [hosts], allowLocal: bool}, the network off
      // plus confine's proxy; each host is checked by confine itself.
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        checkObject(value, option, 'policy', NETWORK_KEYS);
        const hosts = (key, flag) => (value[key] === undefined ? []
          : checkStrings(value[key], `${option}.${key}`, 'policy', 'host names')
            .map((h) => pair(flag, h)));
        if (value.allowLocal !== undefined) checkBoolean(value.allowLocal, `${option}.allowLocal`, 'policy');
        const allow = hosts('allow', flagOf('network.allow'));
        return [...(allow.length ? [] : [pair(flagOf('network'), 'off')]), ...allow,
          ...hosts('deny', flagOf('network.deny')),
          ...(value.allowLocal ? [flagOf('network.allowLocal')] : [])];
      }
      if (typeof value !== 'string') throw wrongType('policy', option, '"on", "off" or an object', value);
      if (value !== 'on' && value !== 'off') {
        checkString(value, option, 'policy');
        // The library's wording (confine_network_parse).
        throw new InvalidPolicyError(`network ${show(value)} is not a network setting (expected on or off)`, { option });
      }
      return [pair(flagOf('network'), value)];
    },
  },
  env: {
    flags: table.under('env').map((r) => r.flag),
    toArgs: (value, option) => {
      checkObject(value, option, 'policy', ENV_KEYS);
      const args = [];
      if (value.inherit !== undefined) {
        // a boolean is the wrong type, as at every door (doc/SPEC.md 16)
        const inherit = value.inherit;
        if (typeof inherit !== 'string') throw wrongType('policy', `${option}.inherit`, '"all" or "none"', inherit);
        if (inherit !== 'all' && inherit !== 'none') {
          checkString(inherit, `${option}.inherit`, 'policy');
          // The library's wording (confine_env_inherit_parse).
          throw new InvalidPolicyError(`env.inherit ${show(inherit)} is not an inherit setting (expected all or none)`, { option: `${option}.inherit` });
        }
        args.push(pair(flagOf('env.inherit'), inherit));
      }
      for (const key of ['include', 'exclude']) {
        if (value[key] === undefined) continue;
        for (const p of checkStrings(value[key], `${option}.${key}`, 'policy', 'patterns')) {
          args.push(pair(flagOf(`env.${key}`), p));
        }
      }
      if (value.set !== undefined) {
        checkObject(value.set, `${option}.set`, 'policy', Object.keys(value.set || {}));
        for (const [k, v] of Object.entries(value.set)) {
          // An empty name is confine's to refuse, in the library's words.
          checkString(k, `${option}.set`, 'policy');
          checkString(v, `${option}.set`, 'policy');
          // NAME=VALUE would split at it: one text at every door
          // (doc/SPEC.md 15, "Environment").
          if (k.includes('=')) {
            throw new InvalidPolicyError(`env.set name ${show(k)} holds '=': a variable name is printable ASCII without spaces or '='`, { option: `${option}.set` });
          }
          // the table's bound, in the library's text (src/lib/env.c): past
          // it the spawn of confine would fail with E2BIG (red team F6)
          const entry = `${k}=${v}`;
          const bytes = Buffer.byteLength(entry);
          if (bytes > ENV_ENTRY_MAX) {
            const head = Buffer.from(entry).subarray(0, 64).toString();
            throw new InvalidPolicyError(`env.set entry "${head}..." is ${bytes} bytes long, more than the ${ENV_ENTRY_MAX} an environment entry may hold`, { option: `${option}.set` });
          }
          // two words: NAME=VALUE is never `--`, and an entry at the bound
          // still fits one argv string
          args.push(flagOf('env.set'), entry);
        }
      }
      if (value.defaultExcludes !== undefined && !checkBoolean(value.defaultExcludes, `${option}.defaultExcludes`, 'policy')) {
        args.push(flagOf('env.defaultExcludes'));
      }
      return args;
    },
  },
  // {pids, memory, cpuSeconds, fileSize, temp, openFiles}: each value is
  // handed to confine as text, which judges it (zero, negative, a fraction,
  // a bad suffix or too large: InvalidPolicyError, never cut to fit); null
  // or "unlimited" lifts one (doc/SPEC.md 15, "Limits").
  limits: {
    flags: Object.values(LIMIT_FLAGS),
    toArgs: (value, option) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrongType('policy', option, 'an object', value);
      const args = [];
      for (const [key, item] of Object.entries(value)) {
        const flag = LIMIT_FLAGS[key];
        if (!flag) throw new InvalidPolicyError(`unknown policy option ${show(`${option}.${key}`)} (known: ${Object.keys(LIMIT_FLAGS).join(', ')})`, { option });
        if (item === null) {
          args.push(pair(flag, 'unlimited'));
        } else if (typeof item === 'string') {
          // checked first: a NUL or a lone surrogate never reaches confine
          args.push(pair(flag, checkString(item, `${option}.${key}`, 'policy')));
        } else if (typeof item === 'number') {
          // as JSON (Number#toString) writes it, Infinity and NaN too: the
          // text confine judges at every door (doc/SPEC.md 15, "Limits")
          args.push(pair(flag, String(item)));
        } else {
          throw wrongType('policy', `${option}.${key}`, 'a number or a string', item);
        }
      }
      return args;
    },
  },
};

/** Every policy option of the table: its own entry, a generic one, or a
 * refusal naming it (a row this package cannot forward). */
const POLICY_OPTIONS = Object.fromEntries(table.policyOptions().map((name) => {
  const spec = NESTED[name] || generic(table.row(name) || {});
  return [name, spec || {
    flags: [],
    toArgs: (value, option) => {
      throw new InvalidPolicyError(`policy option ${JSON.stringify(option)} is not supported by this package: refusing to run with a policy that would not be enforced`, { option });
    },
  }];
}));

module.exports = { POLICY_OPTIONS };
