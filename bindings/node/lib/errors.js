// SPDX-License-Identifier: MIT
// The errors of the confine Node package (doc/SPEC.md 16), and the error
// object the CLI prints read back in the package's words.
'use strict';

const RUNNER_FAILURE_SEPARATOR = ' Runner failure: ';
const SANDBOX_UNAVAILABLE_PREFIX = 'sandbox mode "';
const SANDBOX_UNAVAILABLE_MARK =
  'is requested but no sandbox backend is usable on this host; refusing to run the command unconfined.';

// ---- errors ----------------------------------------------------------------

/** confine itself failed; nothing ran. `code` is the stable name of
 * doc/SPEC.md 16 (USAGE, INVALID_CONFIG, INVALID_POLICY,
 * SANDBOX_UNAVAILABLE, SPAWN_FAILED, SYSTEM_ERROR), or CONFINE_NOT_FOUND
 * when the confine command itself cannot be run. */
class ConfineError extends Error {
  constructor(message, { code = 'SYSTEM_ERROR', exitStatus = null, option = null } = {}) {
    super(message);
    this.name = 'ConfineError';
    this.code = code;
    this.exitStatus = exitStatus;
    /** The option of the call at fault (`workspace`, `denyRead`, ...), or null. */
    this.option = option;
  }
}

/** No sandbox can confine the requested mode here, or the runner failed
 * before the command ran. `message` is exactly the contract's text;
 * `runnerFailure` the runner's line, or null. Show it; do not escalate to
 * danger-full-access without a person's decision. */
class SandboxUnavailableError extends ConfineError {
  constructor(message, { runnerFailure, exitStatus = null } = {}) {
    super(message, { code: 'SANDBOX_UNAVAILABLE', exitStatus });
    this.name = 'SandboxUnavailableError';
    if (runnerFailure === undefined) {
      const at = message.indexOf(RUNNER_FAILURE_SEPARATOR);
      runnerFailure = at >= 0 ? message.slice(at + RUNNER_FAILURE_SEPARATOR.length) : null;
    }
    this.runnerFailure = runnerFailure;
  }
}

/** The policy is invalid or asks for an option this `confine` does not
 * support; `option` names it when one is at fault. */
class InvalidPolicyError extends ConfineError {
  constructor(message, { option = null, exitStatus = null } = {}) {
    super(message, { code: 'INVALID_POLICY', exitStatus, option });
    this.name = 'InvalidPolicyError';
  }
}

/** The call itself is wrong (an empty argv, a bad timeout or mode) or
 * confine's command line was refused: code USAGE. */
class UsageError extends ConfineError {
  constructor(message, { exitStatus = null, option = null } = {}) {
    super(message, { code: 'USAGE', exitStatus, option });
    this.name = 'UsageError';
  }
}

/** The program could not be started, and it is not the runner's fault:
 * not found (exitStatus 127) or not executable (126). */
class SpawnFailedError extends ConfineError {
  constructor(message, { exitStatus = null } = {}) {
    super(message, { code: 'SPAWN_FAILED', exitStatus });
    this.name = 'SpawnFailedError';
  }
}

/** The configuration (file, runner) is invalid. */
class InvalidConfigError extends ConfineError {
  constructor(message, { exitStatus = null, option = null } = {}) {
    super(message, { code: 'INVALID_CONFIG', exitStatus, option });
    this.name = 'InvalidConfigError';
  }
}

/** A harness file operation the policy refuses (confine.fs; doc/SPEC.md
 * 19): the message names the path and the clause. */
class DeniedError extends ConfineError {
  constructor(message, { exitStatus = null } = {}) {
    super(message, { code: 'DENIED', exitStatus });
    this.name = 'DeniedError';
  }
}

/** A harness file operation the filesystem refuses (no such file, ...). */
class FsError extends ConfineError {
  constructor(message, { exitStatus = null } = {}) {
    super(message, { code: 'FS_ERROR', exitStatus });
    this.name = 'FsError';
  }
}

/*
 * The CLI names a value by the flag that carried it ("invalid --network:",
 * "--allow-host \"x\": ", "(given with -w)"); the caller of this package
 * never typed a flag, so an error read from the CLI is given as the
 * library's own text, as the Python package gets it (doc/SPEC.md 16, "One
 * text per refusal"): the CLI's wrappers dropped, any flag left named by
 * the option of the call. The flags and options are the table's
 * (./table.js), longest first, whole words only; the few that are not
 * options of the table (-c, --config, --max-bytes) are listed here.
 */
const FLAG_OPTIONS = (() => {
  const rows = require('./table').ROWS.filter((r) => r.node && r.flag);
  const pairs = rows.map((r) => [r.flag, r.node])
    .concat(rows.filter((r) => r.short).map((r) => [r.short, r.node]))
    .concat([['-c', 'command'], ['--config', 'config'], ['--max-bytes', 'maxBytes']]);
  return pairs.sort((x, y) => y[0].length - x[0].length)
    .map(([flag, option]) => [flag, option, new RegExp(`(?<![\\w-])${flag}(?![\\w-])`, 'g')]);
})();
const optionOfFlag = (flag) => (FLAG_OPTIONS.find(([f]) => f === flag) || [])[1] || null;

/** `message` as the library's text (the CLI's wrappers dropped, each flag
 * left replaced by the option's name), and the option it names (null when
 * none). */
function inOptionWords(message) {
  let first = null;
  let text = message;
  // "... (given with -w) ...": the CLI's note of the flag
  text = text.replace(/ \(given with (-{1,2}[\w-]+)\)/g, (m, flag) => {
    first = first || optionOfFlag(flag);
    return '';
  });
  // "invalid --network: TEXT", "--allow-host \"VALUE\": TEXT"
  const wrapped = /^(?:invalid (-{1,2}[\w-]+): |(-{1,2}[\w-]+) "(?:[^"\\]|\\.)*": )/.exec(text);
  if (wrapped) {
    first = optionOfFlag(wrapped[1] || wrapped[2]) || first;
    text = text.slice(wrapped[0].length);
  }
  // Flags outside the quoted values only: a value is the caller's, as
  // given (an unprotect entry "--network=on" stays that, red team F6).
  const parts = text.split(/("(?:[^"\\]|\\.)*")/);
  let at = Infinity;
  for (const [, option, pattern] of FLAG_OPTIONS) {
    let offset = 0;
    for (let i = 0; i < parts.length; i++) {
      if (i % 2 === 0) {
        pattern.lastIndex = 0;
        const found = pattern.exec(parts[i]);
        if (found && offset + found.index < at && first === null) {
          at = offset + found.index;
          first = option;
        }
        parts[i] = parts[i].replace(pattern, option);
      }
      offset += parts[i].length;
    }
  }
  text = parts.join('');
  // The library's own messages start with the config key at fault
  // ("denyRead entry ...", "network.allow entry ...").
  const lead = /^([a-zA-Z]+(?:\.[a-zA-Z]+)?)\b/.exec(text);
  if (first === null && lead && isPolicyOption(lead[1].split('.')[0])) first = lead[1];
  if (first === null && /^workspace root /.test(text)) first = 'workspace';
  return { text, option: first };
}

function errorFrom(object, exitStatus) {
  const message = String(object.message || 'confine failed');
  const named = inOptionWords(message);
  switch (object.code) {
    case 'SANDBOX_UNAVAILABLE':
      return new SandboxUnavailableError(message, {
        runnerFailure: object.runnerFailure === undefined ? undefined : object.runnerFailure,
        exitStatus,
      });
    case 'INVALID_POLICY':
      return new InvalidPolicyError(named.text, { exitStatus, option: named.option });
    case 'INVALID_CONFIG':
      // the CLI's config errors start with the file: "FILE: key ..."
      return new InvalidConfigError(named.text, {
        exitStatus, option: named.option || (/^\/[^:]*: /.test(message) ? 'config' : null),
      });
    case 'USAGE':
      return new UsageError(named.text, { exitStatus, option: named.option });
    case 'SPAWN_FAILED':
      return new SpawnFailedError(message, { exitStatus });
    case 'DENIED':
      return new DeniedError(message, { exitStatus });
    case 'FS_ERROR':
      return new FsError(message, { exitStatus });
    default:
      return new ConfineError(message, { code: object.code || 'SYSTEM_ERROR', exitStatus });
  }
}

function isSandboxUnavailableText(message) {
  return message.startsWith(SANDBOX_UNAVAILABLE_PREFIX) &&
    message.includes(SANDBOX_UNAVAILABLE_MARK);
}

/** Whether `name` is a policy option (required lazily: policy-options.js
 * needs this file first). */
function isPolicyOption(name) {
  return Object.prototype.hasOwnProperty.call(require('./policy-options').POLICY_OPTIONS, name);
}

module.exports = {
  ConfineError, SandboxUnavailableError, InvalidPolicyError, UsageError, SpawnFailedError,
  InvalidConfigError, DeniedError, FsError, errorFrom, isSandboxUnavailableText, inOptionWords,
};
