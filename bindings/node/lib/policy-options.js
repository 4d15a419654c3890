// SPDX-License-Identifier: MIT
'use strict';

const { InvalidPolicyError } = require('./errors');
const { show, checkString, checkStrings, checkBoolean, checkObject } = require('./values');

// ---- policy options: one table ---------------------------------------------

/*
 * The policy options beyond mode and workspace (the contract's config keys,
 * camelCase) and the CLI flags each becomes. An option is forwarded when the
 * `confine` in use lists its flag in its --help; otherwise it is refused with
 * InvalidPolicyError naming it: a policy the sandbox would not enforce is
 * never accepted silently. Supporting a new option is one entry here.
 */
const list = (flag) => (value, option) => {
  const items = checkStrings(value, option, 'policy', 'paths (strings)', { oneAllowed: true });
  for (const item of items) {
    if (item === '') throw new InvalidPolicyError(`${option}: an empty path`, { option });
  }
  return items.flatMap((item) => [flag, item]);
};

// The limits' config keys and the CLI flags they become (the library's
// limit table, confine_limit_flag).
const LIMIT_FLAGS = {
  pids: '--max-pids', memory: '--max-memory', cpuSeconds: '--max-cpu',
  fileSize: '--max-file-size', temp: '--max-temp', openFiles: '--max-open-files',
};

const POLICY_OPTIONS = {
  writableRoots: { flags: ['--writable'], toArgs: list('--writable') },
  protectedPaths: { flags: ['--protect'], toArgs: list('--protect') },
  defaultProtections: {
    flags: ['--no-default-protections'],
    toArgs: (value, option) => (checkBoolean(value, option, 'policy') ? [] : ['--no-default-protections']),
  },
  denyRead: { flags: ['--deny-read'], toArgs: list('--deny-read') },
  network: {
    flags: ['--network'],
    toArgs: (value, option) => {
      // The allowlist (doc/SPEC.md 15, "Network allowlist"):
      // {allow: [hosts], deny: [hosts], allowLocal: bool}, the network off
      // plus confine's proxy; each host is checked by confine itself.
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        checkObject(value, option, 'policy', ['allow', 'deny', 'allowLocal']);
        const hosts = (key, flag) => (value[key] === undefined ? []
          : checkStrings(value[key], `${option}.${key}`, 'policy', 'host names (strings)')
            .flatMap((h) => [flag, h]));
        if (value.allowLocal !== undefined) checkBoolean(value.allowLocal, `${option}.allowLocal`, 'policy');
        const allow = hosts('allow', '--allow-host');
        return [...(allow.length ? [] : ['--network', 'off']), ...allow, ...hosts('deny', '--deny-host'),
          ...(value.allowLocal ? ['--allow-local-network'] : [])];
      }
      if (value !== 'on' && value !== 'off') {
        if (typeof value === 'string') checkString(value, option, 'policy');
        throw new InvalidPolicyError(`${option}: expected "on", "off" or {allow, deny, allowLocal}, got ${show(value)}`, { option });
      }
      return ['--network', value];
    },
  },
  allowUnixSockets: { flags: ['--allow-unix-socket'], toArgs: list('--allow-unix-socket') },
  env: {
    flags: ['--env-inherit', '--env-include', '--env-exclude', '--env-set', '--no-default-env-excludes'],
    toArgs: (value, option) => {
      checkObject(value, option, 'policy', ['inherit', 'include', 'exclude', 'set', 'defaultExcludes']);
      const args = [];
      if (value.inherit !== undefined) {
        const inherit = value.inherit === true ? 'all' : value.inherit === false ? 'none' : value.inherit;
        if (inherit !== 'all' && inherit !== 'none') {
          if (typeof inherit === 'string') checkString(inherit, `${option}.inherit`, 'policy');
          throw new InvalidPolicyError(`${option}.inherit: expected "all" or "none" (or a boolean), got ${show(value.inherit)}`, { option: `${option}.inherit` });
        }
        args.push('--env-inherit', inherit);
      }
      for (const key of ['include', 'exclude']) {
        if (value[key] === undefined) continue;
        for (const p of checkStrings(value[key], `${option}.${key}`, 'policy', 'patterns (strings)')) {
          args.push(`--env-${key}`, p);
        }
      }
      if (value.set !== undefined) {
        checkObject(value.set, `${option}.set`, 'policy', Object.keys(value.set || {}));
        for (const [k, v] of Object.entries(value.set)) {
          checkString(k, `${option}.set`, 'policy', { allowEmpty: false });
          checkString(v, `${option}.set`, 'policy');
          if (k.includes('=')) throw new InvalidPolicyError(`${option}.set: the name ${show(k)} holds '='`, { option: `${option}.set` });
          args.push('--env-set', `${k}=${v}`);
        }
      }
      if (value.defaultExcludes !== undefined && !checkBoolean(value.defaultExcludes, `${option}.defaultExcludes`, 'policy')) {
        args.push('--no-default-env-excludes');
      }
      return args;
    },
  },
  requireFull: {
    flags: ['--require-full'],
    toArgs: (value, option) => (checkBoolean(value, option, 'policy') ? ['--require-full'] : []),
  },
  // {pids, memory, cpuSeconds, fileSize, temp, openFiles}: each value is
  // handed to confine as text, which judges it (zero, negative, a fraction,
  // a bad suffix or too large: InvalidPolicyError, never cut to fit); null
  // or "unlimited" lifts one (doc/SPEC.md 15, "Limits").
  limits: {
    flags: Object.values(LIMIT_FLAGS),
    toArgs: (value, option) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidPolicyError(`policy option ${option}: expected {${Object.keys(LIMIT_FLAGS).join(', ')}}`, { option });
      const args = [];
      for (const [key, item] of Object.entries(value)) {
        const flag = LIMIT_FLAGS[key];
        if (!flag) throw new InvalidPolicyError(`policy option ${option}: unknown key ${JSON.stringify(key)} (expected ${Object.keys(LIMIT_FLAGS).join(', ')})`, { option });
        if (item === null) {
          args.push(flag, 'unlimited');
        } else if ((typeof item === 'number' && Number.isFinite(item)) || typeof item === 'string') {
          args.push(flag, String(item));
        } else {
          throw new InvalidPolicyError(`policy option ${option}.${key}: expected a number or a string, got ${show(item)}`, { option });
        }
      }
      return args;
    },
  },
};

module.exports = { POLICY_OPTIONS };
