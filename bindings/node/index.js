// SPDX-License-Identifier: MIT
/*
 * confine for Node: run commands confined, over the `confine` command's JSON.
 *
 * CommonJS (require('confine'); from ES modules `import confine from
 * 'confine'` or `import { run } from 'confine'` both work). Every call
 * spawns one `confine` process:
 *
 *   run(argv, opts)     -> `confine run --json -- ARGV`: stdin and stdout are
 *                          the command's own, byte for byte (piped, any size,
 *                          NUL included); the outcome object is the last line
 *                          of stderr (doc/SPEC.md 10)
 *   bash(command, opts) -> `confine bash --json -c COMMAND`, plus `rendering`
 *   wrap(argv, opts)    -> `confine wrap` (the argv to spawn yourself)
 *   probe(opts)         -> `confine probe --json`
 *
 * `confine` is found through $CONFINE_BIN, else next to the library named by
 * $CONFINE_LIBRARY (LIBDIR/../bin/confine, or a build tree's
 * src/cli/confine), else in the directory `meson install` recorded beside
 * an installed package (_build_config.json), else on $PATH; or pass `bin`
 * per call.
 */
'use strict';

const { execFile, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const MODES = ['read-only', 'workspace-write', 'danger-full-access'];
const RUNNERS = ['bwrap', 'landlock', 'seatbelt'];
const DEFAULT_TIMEOUT_MS = 120000;
const MAX_TIMEOUT_MS = 600000;
const CAPTURE_LIMIT = 64000;
// run(): what is kept of each of the command's streams (not a cap on what
// the command may write: past it the rest is read and dropped).
const RUN_OUTPUT_LIMIT = 64 * 1024 * 1024;
// The most a kept stream can be (a Buffer's limit).
const MAX_OUTPUT_LIMIT = require('node:buffer').constants.MAX_LENGTH;
// A timeout or an abort sends SIGTERM to confine, which forwards it to the
// command's tree; SIGKILL follows after this grace (the library's), and the
// launcher's lifeline then kills whatever is left.
const KILL_GRACE_MS = 3000;
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
 * "(given with -w)"); the caller of this package never typed a flag, so an
 * error from the CLI names the option of the call instead, as the Python
 * package names its keyword. Longest first, whole words only.
 */
const FLAG_OPTIONS = [
  ['--no-default-env-excludes', 'env.defaultExcludes'], ['--no-default-protections', 'defaultProtections'],
  ['--allow-local-network', 'network.allowLocal'], ['--allow-unix-socket', 'allowUnixSockets'],
  ['--env-inherit', 'env.inherit'], ['--env-include', 'env.include'], ['--env-exclude', 'env.exclude'],
  ['--require-full', 'requireFull'], ['--allow-host', 'network.allow'], ['--deny-host', 'network.deny'],
  ['--deny-read', 'denyRead'], ['--workspace', 'workspace'], ['--max-bytes', 'maxBytes'],
  ['--writable', 'writableRoots'], ['--env-set', 'env.set'], ['--protect', 'protectedPaths'],
  ['--network', 'network'], ['--timeout', 'timeout'], ['--config', 'config'], ['--runner', 'runner'],
  ['--mode', 'mode'], ['-w', 'workspace'], ['-m', 'mode'], ['-c', 'command'],
].map(([flag, option]) => [new RegExp(`(?<![\\w-])${flag}(?![\\w-])`, 'g'), option]);

/** `message` with each CLI flag replaced by the option's name, and the
 * first option it named (null when none). */
function inOptionWords(message) {
  let first = null;
  let at = Infinity;
  let text = message.replace(/ \(given with (-w|--workspace)\)/g, ' (given as workspace)');
  for (const [pattern, option] of FLAG_OPTIONS) {
    pattern.lastIndex = 0;
    const found = pattern.exec(text);
    if (found && found.index < at) {
      at = found.index;
      first = option;
    }
    text = text.replace(pattern, option);
  }
  if (first === null && / \(given as workspace\)/.test(text)) first = 'workspace';
  // The library's own messages start with the config key at fault
  // ("denyRead entry ...", "network.allow entry ...").
  const lead = /^([a-zA-Z]+(?:\.[a-zA-Z]+)?)\b/.exec(text);
  if (first === null && lead && POLICY_OPTIONS[lead[1].split('.')[0]]) first = lead[1];
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

// ---- values: every one checked where it enters ---------------------------

/*
 * What this package hands to `confine` is checked first (doc/SPEC.md 16,
 * "Values the packages hand over"), so no value reaches the CLI other than
 * as given and every refusal names the option of the call:
 * - a string holding a NUL byte (an argv word ends there) or a lone UTF-16
 *   surrogate (it would reach the CLI as U+FFFD, another value) is USAGE;
 * - a value of the wrong type is refused with its family's code: a policy
 *   option, `mode` and `workspace` INVALID_POLICY; the provider's `runner`
 *   and `config` INVALID_CONFIG; the call's own arguments USAGE;
 * - a bound (timeout 1 to 600000 ms, maxOutput) is refused past it, never
 *   cut to it.
 */
const FAMILY = {
  usage: (message, option) => new UsageError(message, { option }),
  policy: (message, option) => new InvalidPolicyError(message, { option }),
  config: (message, option) => new InvalidConfigError(message, { option }),
};

const show = (value) => {
  let text;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
};
const typeName = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const wellFormed = (s) => (typeof s.isWellFormed === 'function' ? s.isWellFormed()
  : !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s));

/** A string for the CLI: no NUL, well-formed UTF-16; `allowEmpty` false
 * refuses "". */
function checkString(value, option, family, { allowEmpty = true } = {}) {
  if (typeof value !== 'string') {
    throw FAMILY[family](`${option} must be a string, not ${typeName(value)} ${show(value)}`, option);
  }
  if (value.includes('\0')) {
    throw new UsageError(`${option} ${show(value)} holds a NUL byte (a C string would end there)`, { option });
  }
  if (!wellFormed(value)) {
    throw new UsageError(`${option} ${show(value)} is not valid Unicode text (a lone surrogate cannot reach confine as given)`, { option });
  }
  if (!allowEmpty && value === '') throw new UsageError(`${option} is an empty string`, { option });
  return value;
}

/** An array of strings (one string when `oneAllowed`, as a list of it). */
function checkStrings(value, option, family, what, { oneAllowed = false, allowEmpty = true } = {}) {
  if (typeof value === 'string' && oneAllowed) value = [value];
  if (!Array.isArray(value)) {
    throw FAMILY[family](`${option} must be an array of ${what}, not ${typeName(value)} ${show(value)}`, option);
  }
  return value.map((item) => checkString(item, option, family, { allowEmpty }));
}

function checkBoolean(value, option, family) {
  if (typeof value !== 'boolean') throw FAMILY[family](`${option} must be true or false, not ${show(value)}`, option);
  return value;
}

function checkObject(value, option, family, known) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw FAMILY[family](`${option} must be an object {${known.join(', ')}}, not ${typeName(value)} ${show(value)}`, option);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw FAMILY[family](`${option}: unknown key ${JSON.stringify(key)} (expected ${known.join(', ')})`, option);
    }
  }
  return value;
}

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
};

// The options every call takes that are not policy options.
const CALL_OPTIONS = new Set([
  'mode', 'workspace', 'cwd', 'timeout', 'stdin', 'runner', 'config', 'bin', 'environ', 'signal',
  'maxOutput',
]);

// ---- finding and running `confine` -----------------------------------------

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The bindir `meson install` recorded beside this package, or null (a
 * checkout or an npm tarball has none). */
function installedBindir() {
  try {
    const { bindir } = JSON.parse(fs.readFileSync(path.join(__dirname, '_build_config.json'), 'utf8'));
    return typeof bindir === 'string' && path.isAbsolute(bindir) ? bindir : null;
  } catch {
    return null;
  }
}

/** The `confine` command this package uses (see the file's header). */
function findConfine(env = process.env) {
  if (env.CONFINE_BIN) return env.CONFINE_BIN;
  if (env.CONFINE_LIBRARY) {
    const libdir = path.dirname(env.CONFINE_LIBRARY);
    for (const candidate of [path.join(libdir, '..', 'bin', 'confine'),
      path.join(libdir, '..', '..', 'bin', 'confine'),
      path.join(libdir, '..', 'cli', 'confine')]) {
      if (isExecutable(candidate)) return path.resolve(candidate);
    }
  }
  const installed = installedBindir();
  if (installed && isExecutable(path.join(installed, 'confine'))) return path.join(installed, 'confine');
  for (const dir of (env.PATH || '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue; // never the current directory
    const candidate = path.join(dir, 'confine');
    if (isExecutable(candidate)) return candidate;
  }
  throw new ConfineError('the confine command was not found: set CONFINE_BIN, or put confine on PATH', { code: 'CONFINE_NOT_FOUND' });
}

function exec(bin, args, { environ, signal } = {}) {
  return new Promise((resolve, reject) => {
    execFile(bin, args, {
      env: environ || process.env,
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
      signal,
      killSignal: 'SIGTERM', // confine forwards it to the command's tree
    }, (error, stdout, stderr) => {
      if (error && error.name === 'AbortError') return reject(error);
      if (error && typeof error.code === 'string') {
        return reject(new ConfineError(`cannot run ${bin}: ${error.message}`, { code: error.code === 'ENOENT' ? 'CONFINE_NOT_FOUND' : 'SYSTEM_ERROR' }));
      }
      resolve({ status: error ? error.code : 0, termSignal: error ? error.signal : null, stdout, stderr });
    });
  });
}

const helpCache = new Map();

async function helpText(bin, command) {
  const key = `${bin}\0${command}`;
  if (!helpCache.has(key)) {
    helpCache.set(key, exec(bin, [command, '--help']).then((r) => r.stdout + r.stderr));
  }
  return helpCache.get(key);
}

/** Validates the call's options and returns the CLI arguments for the
 * context (mode, workspace, runner, config) and the policy options. */
const PACKAGE_VERSION = require('./package.json').version;
const versionChecked = new Map();

/** The `confine` this package drives must be its own version: the JSON
 * shapes and options are that version's (a mismatch is a clear error, once
 * per binary, cached). */
function checkVersion(bin) {
  if (!versionChecked.has(bin)) {
    versionChecked.set(bin, exec(bin, ['--version']).then((done) => {
      const match = /(\d+\.\d+\.\d+)/.exec(done.stdout);
      const found = match ? match[1] : done.stdout.trim();
      if (found !== PACKAGE_VERSION) {
        throw new ConfineError(`${bin} is confine ${found || '(unknown version)'}, but this confine package is ${PACKAGE_VERSION}: install the package that matches the command (or point CONFINE_BIN at confine ${PACKAGE_VERSION})`, { code: 'VERSION_MISMATCH' });
      }
    }));
  }
  return versionChecked.get(bin);
}

/**
 * Checks the call's options before anything runs (no `confine` is spawned
 * for a call that is wrong) and returns the CLI arguments for the context
 * (mode, workspace, runner, config) and the policy options, with `mode`
 * (null: the CLI's default). Each refusal names the option (see "values").
 */
function checkOptions(options, { timeout = true } = {}) {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError(`options must be an object, not ${typeName(options)}`, { option: 'options' });
  }
  const given = (name) => options[name] !== undefined && options[name] !== null;
  const args = [];
  const policy = [];
  for (const [option, value] of Object.entries(options)) {
    if (value === undefined || value === null) continue;
    if (CALL_OPTIONS.has(option)) continue;
    const spec = POLICY_OPTIONS[option];
    if (!spec) {
      throw new InvalidPolicyError(`unknown policy option ${JSON.stringify(option)} (known: ${Object.keys(POLICY_OPTIONS).join(', ')})`, { option });
    }
    policy.push({ option, args: spec.toArgs(value, option) });
  }
  // Without `mode`, the CLI's default applies (the config's mode, else
  // read-only).
  const mode = given('mode') ? checkString(options.mode, 'mode', 'policy') : null;
  if (mode !== null && !MODES.includes(mode)) {
    // The library's wording.
    throw new InvalidPolicyError(`unknown sandbox mode ${JSON.stringify(mode)} (expected read-only, workspace-write or danger-full-access)`, { option: 'mode' });
  }
  if (mode !== null) args.push('-m', mode);
  if (given('workspace')) {
    // path.resolve('') would be the current directory: refused, as the
    // library refuses an empty root.
    if (checkString(options.workspace, 'workspace', 'policy') === '') {
      throw new InvalidPolicyError('workspace root "" is empty: it must be an absolute path to a directory', { option: 'workspace' });
    }
    args.push('-w', path.resolve(options.workspace));
  }
  if (given('runner')) {
    const runner = checkString(options.runner, 'runner', 'config');
    if (!RUNNERS.includes(runner)) {
      throw new InvalidConfigError(`unknown runner ${JSON.stringify(runner)} (expected ${RUNNERS.join(', ')})`, { option: 'runner' });
    }
    args.push('--runner', runner);
  }
  if (given('config')) args.push('--config', checkString(options.config, 'config', 'config', { allowEmpty: false }));
  if (given('cwd')) checkString(options.cwd, 'cwd', 'usage', { allowEmpty: false });
  if (given('bin')) checkString(options.bin, 'bin', 'usage', { allowEmpty: false });
  if (given('environ')) checkEnviron(options.environ);
  if (given('signal') && !(typeof options.signal === 'object' && typeof options.signal.aborted === 'boolean')) {
    throw new UsageError(`signal must be an AbortSignal, not ${typeName(options.signal)}`, { option: 'signal' });
  }
  if (timeout) timeoutArg(options);
  return { args, policy, mode };
}

/** The environment `confine` gets: names to strings (an undefined value
 * is left out, as child_process does), each checked. */
function checkEnviron(environ) {
  if (typeof environ !== 'object' || Array.isArray(environ)) {
    throw new UsageError(`environ must be an object of names to strings, not ${typeName(environ)}`, { option: 'environ' });
  }
  for (const [name, value] of Object.entries(environ)) {
    if (value === undefined) continue;
    checkString(name, 'environ', 'usage', { allowEmpty: false });
    if (name.includes('=')) throw new UsageError(`environ name ${show(name)} holds '='`, { option: 'environ' });
    checkString(value, 'environ', 'usage');
  }
  return environ;
}

/** The checked options as CLI arguments, each policy flag one this
 * `confine` lists in its help (else InvalidPolicyError naming the option). */
async function contextArgs(bin, command, options) {
  const { args, policy, mode } = checkOptions(options, { timeout: false });
  await checkVersion(bin);
  const flags = [];
  for (const { option, args: optionArgs } of policy) {
    const help = await helpText(bin, command);
    const missing = optionArgs.filter((a) => a.startsWith('--') && !help.includes(a));
    if (missing.length) {
      throw new InvalidPolicyError(`policy option ${JSON.stringify(option)} (${missing.join(', ')}) is not supported by ${bin}: refusing to run with a policy that would not be enforced`, { option });
    }
    flags.push(...optionArgs);
  }
  return { args: args.concat(flags), mode };
}

/** The argv of run() and wrap(): a non-empty array of strings, each
 * without NUL (no number or Buffer coerced: what runs is what was given). */
function checkArgv(argv) {
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new UsageError('argv must be a non-empty array of strings (use bash() for a shell command)', { option: 'argv' });
  }
  for (const word of argv) checkString(word, 'argv', 'usage');
  if (argv[0] === '') throw new UsageError('argv[0] is an empty string', { option: 'argv' });
  return argv;
}

/** The timeout in ms, 1 to 600000 (SPEC 10's --timeout, at every door):
 * past the bound it is refused, never cut to it. `fallback` when none is
 * given (bash: 120000; run: none, as `confine run`). */
function timeoutArg(options, fallback = DEFAULT_TIMEOUT_MS) {
  if (options.timeout === undefined || options.timeout === null) return fallback;
  if (typeof options.timeout !== 'number' || !Number.isFinite(options.timeout)) {
    throw new UsageError(`timeout must be a number of milliseconds, not ${typeName(options.timeout)} ${show(options.timeout)}`, { option: 'timeout' });
  }
  const ms = Math.round(options.timeout);
  if (!(ms >= 1) || ms > MAX_TIMEOUT_MS) {
    throw new UsageError(`timeout must be 1 to ${MAX_TIMEOUT_MS} ms, not ${show(options.timeout)}`, { option: 'timeout' });
  }
  return ms;
}

/** Bytes kept of each of run()'s streams: a whole number, 0 or more
 * (default 64 MiB); past what a Buffer holds it is refused, not cut. */
function maxOutputArg(options) {
  const value = options.maxOutput;
  if (value === undefined || value === null) return RUN_OUTPUT_LIMIT;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`maxOutput must be a whole number of bytes, 0 or more, not ${show(value)}`, { option: 'maxOutput' });
  }
  if (value > MAX_OUTPUT_LIMIT) {
    throw new UsageError(`maxOutput ${value} exceeds the maximum of ${MAX_OUTPUT_LIMIT} bytes`, { option: 'maxOutput' });
  }
  return value;
}

/** run()'s stdin: a string, a Buffer or a readable stream (or none). */
function checkStdin(stdin) {
  if (stdin === undefined || stdin === null) return stdin;
  if (typeof stdin === 'string' || Buffer.isBuffer(stdin) || stdin instanceof Uint8Array) return stdin;
  if (typeof stdin === 'object' && typeof stdin.pipe === 'function') return stdin;
  throw new UsageError(`stdin must be a string, a Buffer or a readable stream, not ${typeName(stdin)}`, { option: 'stdin' });
}

/** probe()'s options, checked as run()'s are. */
function checkProbeOptions(options) {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError(`options must be an object, not ${typeName(options)}`, { option: 'options' });
  }
  for (const key of Object.keys(options)) {
    if (!['runner', 'config', 'environ', 'bin'].includes(key) && options[key] !== undefined) {
      throw new UsageError(`probe() takes runner, config, environ and bin, not ${JSON.stringify(key)}`, { option: key });
    }
  }
  const { args } = checkOptions({ runner: options.runner, config: options.config, environ: options.environ, bin: options.bin }, { timeout: false });
  const value = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  return { runner: value('--runner'), config: value('--config'), environ: options.environ, bin: options.bin };
}

function parseJsonLine(stdout) {
  const line = stdout.split('\n').find((l) => l.trim().startsWith('{'));
  if (!line) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

function failure(done, bin) {
  const object = parseJsonLine(done.stdout);
  if (object && object.error) return errorFrom(object.error, done.status);
  const line = done.stderr.split('\n').filter((l) => l.startsWith('confine: ')).pop();
  const message = line ? line.slice('confine: '.length) : `${bin} failed (exit ${done.status}): ${done.stderr.trim()}`;
  if (isSandboxUnavailableText(message)) return new SandboxUnavailableError(message, { exitStatus: done.status });
  return null; // the caller decides
}

// ---- results ---------------------------------------------------------------

function truncatedOf(object) {
  const t = object.truncated;
  if (t && typeof t === 'object') return { stdout: !!t.stdout, stderr: !!t.stderr };
  if (object.stdoutTruncated !== undefined || object.stderrTruncated !== undefined) {
    return { stdout: !!object.stdoutTruncated, stderr: !!object.stderrTruncated };
  }
  if (!t) return { stdout: false, stderr: false };
  // One flag for both streams (this confine's JSON): a stream that reached
  // the capture limit is the one that was cut.
  const out = Buffer.byteLength(object.stdout || '') >= CAPTURE_LIMIT;
  const err = Buffer.byteLength(object.stderr || '') >= CAPTURE_LIMIT;
  return out || err ? { stdout: out, stderr: err } : { stdout: true, stderr: true };
}

function resultOf(object, mode) {
  const sandbox = object.sandbox || {};
  return {
    exitCode: object.exitCode === undefined ? null : object.exitCode,
    signal: object.signal === undefined ? null : object.signal,
    stdout: object.stdout || '',
    stderr: object.stderr || '',
    truncated: truncatedOf(object),
    denied: !!sandbox.denied,
    networkDenied: !!sandbox.networkDenied,
    denials: denialsOf(sandbox.denials),
    timedOut: !!object.timedOut,
    runner: sandbox.runner || null,
    enforcement: sandbox.enforcement || null,
    unenforced: sandbox.unenforced || object.unenforced || [],
    layers: sandbox.layers || [],
    clauses: clausesOf(sandbox.clauses),
    gitHazards: (sandbox.gitHazards || []).map((h) => ({ path: h.path, kind: h.kind })),
    mode: sandbox.mode || mode,
  };
}

/** The refusals with their object (doc/SPEC.md 9): {op, path, address,
 * clause}, exactly one of path and address set, the other null. */
function denialsOf(list) {
  return (list || []).map((d) => ({
    op: d.op, path: d.path === undefined ? null : d.path,
    address: d.address === undefined ? null : d.address, clause: d.clause,
  }));
}

/** "[denied: OP OBJECT (CLAUSE)]" per denial of one kind, as
 * confine_bash_render() writes it: a control character shows as '?'. */
function denialLines(result, files) {
  return (result.denials || []).filter((d) => (files ? d.path : d.address) !== null)
    .map((d) => `[denied: ${d.op} ${(files ? d.path : d.address).replace(/[\x00-\x1f\x7f]/g, '?')} (${d.clause})]`);
}

/** The report per clause (doc/SPEC.md 15) as plain objects. */
function clausesOf(list) {
  return (list || []).map((c) => ({
    clause: c.clause, subject: c.subject, status: c.status, layers: c.layers || [],
    reason: c.reason, needs: c.needs,
  }));
}

/** "denyRead (/ws/.env), signals": the clauses that did not hold, each
 * name once with its subjects, as confine_bash_render() lists them. */
function describeUnenforced(clauses) {
  const names = [];
  for (const c of clauses) if (c.status !== 'enforced' && !names.includes(c.clause)) names.push(c.clause);
  return names.map((name) => {
    const subjects = clauses.filter((c) => c.clause === name && c.status !== 'enforced' && c.subject !== null)
      .map((c) => c.subject);
    return subjects.length ? `${name} (${subjects.join(', ')})` : name;
  }).join(', ');
}

/** The model-facing rendering (SPEC 9), as confine_bash_render() writes it. */
function render(result, timeoutMs) {
  const nulFree = (s) => s.replace(/\0/g, '\uFFFD');
  let text = '';
  const marker = (m) => {
    if (text.length && !text.endsWith('\n')) text += '\n';
    text += m;
  };
  if (result.stdout) text += nulFree(result.stdout);
  if (result.stderr) {
    if (text.length && !text.endsWith('\n')) text += '\n';
    text += '[stderr]\n' + nulFree(result.stderr);
  }
  if (!result.stdout && !result.stderr) text += '(no output)';
  if (result.denied) marker(`[sandbox: file access denied under ${result.mode} mode]`);
  for (const line of denialLines(result, true)) marker(line);
  if (result.networkDenied) marker(`[sandbox: network access denied under ${result.mode} mode]`);
  for (const line of denialLines(result, false)) marker(line);
  if (result.clauses && result.clauses.some((c) => c.status !== 'enforced')) {
    marker(`[sandbox: not enforced on this run: ${describeUnenforced(result.clauses)}]`);
  }
  if (result.timedOut) marker(`[timed out after ${timeoutMs}ms]`);
  if (result.signal) marker(`[killed by signal: ${result.signal}]`);
  else if (result.exitCode !== 0 && result.exitCode !== null) marker(`[exit code: ${result.exitCode}]`);
  return text;
}

// ---- the calls -------------------------------------------------------------

function quote(arg) {
  const s = Buffer.isBuffer(arg) ? arg.toString('utf8') : String(arg);
  if (s.includes('\0')) throw new UsageError('an argument holds a NUL byte');
  return `'${s.replace(/'/g, "'\\''")}'`;
}

async function bashJson(command, options, bin) {
  const { args, mode } = await contextArgs(bin, 'bash', options);
  const timeoutMs = timeoutArg(options);
  const done = await exec(bin, ['bash', '--json', ...args, '--timeout', String(timeoutMs), '-c', command],
    { environ: options.environ, signal: options.signal });
  const object = parseJsonLine(done.stdout);
  if (!object || object.error) {
    throw (object && object.error ? errorFrom(object.error, done.status) : failure(done, bin)) ||
      new ConfineError(`${bin} bash printed no result (exit ${done.status}): ${done.stderr.trim()}`, { exitStatus: done.status });
  }
  return { result: resultOf(object, mode), timeoutMs };
}

/** The outcome object `confine run --json` wrote as the last line of
 * stderr, and the command's stderr before it. */
function splitOutcome(stderr) {
  let end = stderr.length;
  if (end && stderr[end - 1] === 0x0a) end -= 1;
  const start = stderr.lastIndexOf(0x0a, end - 1) + 1;
  let object = null;
  try {
    object = JSON.parse(stderr.subarray(start, end).toString('utf8'));
  } catch {
    object = null;
  }
  if (!object || typeof object !== 'object' || !('error' in object)) {
    return { object: null, lineLength: 0 };
  }
  return { object, lineLength: stderr.length - start };
}

function abortError(signal) {
  const error = new Error('The operation was aborted', { cause: signal && signal.reason });
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}

/**
 * Runs `argv` confined and resolves to its result: `confine run --json --
 * ARGV` (the library's own spawning, through the runner's status channel).
 * stdin and stdout are the command's own streams, byte for byte: `stdin`
 * (string, Buffer or a readable stream; default /dev/null) is piped in
 * whatever its size, and stdout is kept as the command wrote it
 * (`stdoutBuffer`; `stdout` is its UTF-8 text); stderr is the command's too,
 * without the outcome line confine adds last. Each stream is kept up to
 * `maxOutput` bytes (default 64 MiB; `truncated` says which was cut). A
 * timeout (ms, default 120000, at most 600000) or an aborted `signal` sends
 * SIGTERM to confine, which ends the command's whole tree; SIGKILL follows
 * 3000 ms later. `cwd` other than the workspace root runs the program
 * through `/bin/sh -c 'cd -- "$0" && exec "$@"'`. Options also: mode,
 * workspace, runner, config, environ (confine's environment, which the
 * policy's env filter turns into the command's), bin, and the policy options
 * of POLICY_OPTIONS. Rejects with SandboxUnavailableError, SpawnFailedError
 * (the program is not found: exitStatus 127; not executable: 126),
 * InvalidPolicyError, InvalidConfigError, UsageError or ConfineError.
 */
async function run(argv, options = {}) {
  checkArgv(argv);
  checkOptions(options);
  const timeoutMs = timeoutArg(options, null);
  const limit = maxOutputArg(options);
  const stdin = checkStdin(options.stdin);
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const { args, mode } = await contextArgs(bin, 'run', options);
  let command = argv;
  if (options.cwd !== undefined && options.cwd !== null) {
    command = ['/bin/sh', '-c', 'cd -- "$0" && exec "$@"', path.resolve(options.cwd), ...command];
  }
  const signal = options.signal;
  if (signal && signal.aborted) throw abortError(signal);

  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['run', '--json', ...args, '--', ...command], {
      env: environ,
      stdio: [stdin === undefined || stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const kept = { stdout: [], stderr: [] };
    const size = { stdout: 0, stderr: 0 };
    const cut = { stdout: false, stderr: false };
    // stderr keeps its tail too: the outcome line is the last one, past any
    // limit on the command's own stderr.
    let stderrTail = Buffer.alloc(0);
    // confine's stderr is the command's and then the outcome line: it gets
    // room for that line beyond the command's limit, applied after the
    // line is split off.
    const OUTCOME_ROOM = 65536;
    const collect = (name) => (chunk) => {
      if (name === 'stderr') stderrTail = Buffer.concat([stderrTail, chunk]).subarray(-OUTCOME_ROOM);
      const room = limit + (name === 'stderr' ? OUTCOME_ROOM : 0) - size[name];
      if (room <= 0) {
        cut[name] = true;
        return;
      }
      if (chunk.length > room) cut[name] = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      kept[name].push(part);
      size[name] += part.length;
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));

    let timedOut = false;
    let aborted = false;
    let killTimer = null;
    const end = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      if (!killTimer) killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = timeoutMs === null ? null : setTimeout(() => {
      timedOut = true;
      end();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      end();
    };
    if (signal) signal.addEventListener('abort', onAbort, { once: true });
    let failed = null;
    child.on('error', (e) => {
      failed = new ConfineError(`cannot run ${bin}: ${e.message}`, { code: e.code === 'ENOENT' ? 'CONFINE_NOT_FOUND' : 'SYSTEM_ERROR' });
    });
    if (child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE: the command did not read it all
      if (typeof stdin === 'object' && typeof stdin.pipe === 'function') {
        stdin.pipe(child.stdin);
      } else {
        child.stdin.end(Buffer.isBuffer(stdin) ? stdin : Buffer.from(stdin));
      }
    }

    child.on('close', (status, termSignal) => {
      if (timer) clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (signal) signal.removeEventListener('abort', onAbort);
      if (failed) return reject(failed);
      if (aborted) return reject(abortError(signal));
      const stdoutBuffer = Buffer.concat(kept.stdout);
      let stderrBuffer = Buffer.concat(kept.stderr);
      // confine ended by signal (our SIGKILL): it wrote no outcome.
      const { object, lineLength } = termSignal ? { object: null, lineLength: 0 }
        : splitOutcome(stderrTail);
      if (object && !cut.stderr) {
        // The command's stderr: what came before the outcome line (with,
        // when the command's last line had no newline, the one confine
        // put before the outcome).
        stderrBuffer = stderrBuffer.subarray(0, Math.max(0, stderrBuffer.length - lineLength));
      }
      if (stderrBuffer.length > limit) {
        stderrBuffer = stderrBuffer.subarray(0, limit);
        cut.stderr = true;
      }
      if (object && object.error && !object.sandbox) {
        // Nothing ran: the error object alone.
        return reject(errorFrom(object.error, status));
      }
      if (object && object.error) {
        // The runner failed before the command started.
        return reject(errorFrom(object.error, status));
      }
      if (!object) {
        if (timedOut) {
          return resolve({
            exitCode: null, signal: termSignal || 'SIGKILL', stdout: stdoutBuffer.toString('utf8'),
            stderr: stderrBuffer.toString('utf8'), stdoutBuffer, stderrBuffer,
            truncated: { stdout: cut.stdout, stderr: cut.stderr }, denied: false, networkDenied: false, denials: [], timedOut: true,
            runner: null, enforcement: null, unenforced: [], layers: [], clauses: [], gitHazards: [], mode,
          });
        }
        const text = stderrTail.toString('utf8').trim().split('\n').pop();
        return reject(new ConfineError(`${bin} run ended (${termSignal || `exit ${status}`}) without an outcome: ${text}`, { exitStatus: status }));
      }
      const result = resultOf(object, mode);
      const done = {
        ...result,
        stdout: stdoutBuffer.toString('utf8'),
        stderr: stderrBuffer.toString('utf8'),
        stdoutBuffer,
        stderrBuffer,
        truncated: { stdout: cut.stdout, stderr: cut.stderr },
        timedOut: timedOut || result.timedOut,
      };
      // What a model would be shown of this run, as the Python package's
      // run() result carries it (doc/SPEC.md 9).
      resolve({ ...done, rendering: render(done, timeoutMs || 0) });
    });
  });
}

/**
 * Runs `bash -c COMMAND` confined (`confine bash --json`) and resolves to its
 * result plus `rendering`, the text for an agent's model, and `timeoutMs`.
 * Options as run() (no stdin: bash gets /dev/null). Rejects with
 * SandboxUnavailableError (nothing can confine, or the runner failed),
 * InvalidPolicyError, InvalidConfigError or ConfineError.
 */
async function bash(command, options = {}) {
  checkString(command, 'command', 'usage', { allowEmpty: false });
  checkOptions(options);
  if (options.stdin !== undefined && options.stdin !== null) {
    throw new UsageError('bash() takes no stdin (the command gets /dev/null): use run()', { option: 'stdin' });
  }
  const bin = options.bin || findConfine(options.environ || process.env);
  let line = command;
  if (options.cwd !== undefined && options.cwd !== null) {
    line = `cd -- ${quote(path.resolve(options.cwd))} && ${command}`;
  }
  const { result, timeoutMs } = await bashJson(line, options, bin);
  return { ...result, rendering: render(result, timeoutMs), timeoutMs };
}

/**
 * The argv to spawn instead of `argv` (`confine wrap`); runs nothing. Spawn
 * it with `env` as its environment, `cwd` as its working directory,
 * `detached: true` (a new session) and stdio you choose; classify with
 * `denied(status, stderr)` and `runnerFailure(status, stderr)`.
 */
async function wrap(argv, options = {}) {
  checkArgv(argv);
  checkOptions(options, { timeout: false });
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const { args, mode } = await contextArgs(bin, 'wrap', options);
  const done = await exec(bin, ['wrap', ...args, '--', ...argv], { environ, signal: options.signal });
  const object = parseJsonLine(done.stdout);
  if (done.status !== 0 || !object || object.error) {
    throw failure(done, bin) ||
      new ConfineError(`${bin} wrap failed (exit ${done.status}): ${done.stderr.trim()}`, { exitStatus: done.status });
  }
  const policy = object.policy || { mode, workspaceRoot: null };
  const rules = (object.runnerFailureRules || []).map((r) => ({
    allowedExitCodes: r.allowedExitCodes || [],
    fatalSignatures: r.fatalSignatures || [],
    informationalLines: r.informationalLines || [],
  }));
  const dialect = object.denialSignatures || [];
  // `env` is the complete environment to spawn with: {NAME: VALUE}
  // (doc/SPEC.md 10); a confine before issue 22 printed NAME=VALUE entries.
  let env = { ...environ };
  if (Array.isArray(object.env)) {
    env = {};
    for (const entry of object.env) {
      const at = entry.indexOf('=');
      if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
    }
  } else if (object.env && typeof object.env === 'object') {
    env = { ...object.env };
  }
  return {
    argv: object.argv,
    env,
    runner: object.runner || null,
    enforcement: object.enforcement || null,
    dialect,
    rules,
    mode: policy.mode,
    workspaceRoot: policy.workspaceRoot,
    cwd: options.cwd ? path.resolve(options.cwd) : policy.workspaceRoot,
    unenforced: object.unenforced || [],
    layers: object.layers || [],
    clauses: clausesOf(object.clauses),
    policy,
    denied: (status, stderr) => classifyDenial(dialect, status, stderr),
    runnerFailure: (status, stderr) => classifyRunnerFailure(rules, status, stderr),
  };
}

// ---- SPEC 8's stderr classifiers, as the library has them ------------------

/*
 * The rules of confine_classify_runner_failure() and
 * confine_classify_denial() (src/lib/classify.c), for a wrap's consumer
 * that spawned the argv itself. They read bytes: stderr (a string is taken
 * as its UTF-8 bytes) is handled as Latin-1 text, one character per byte,
 * so case folding is ASCII's and a byte sequence compares as the C code
 * compares it. tests/golden/classifiers.json holds the cases the C, Python
 * and Node suites all run: a change here that answers otherwise fails there.
 */
const asBytes = (text) => (Buffer.isBuffer(text) ? text : Buffer.from(String(text), 'utf8')).toString('latin1');
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
// C's isspace() in the C locale
const isBlank = (s) => /^[ \t\n\v\f\r]*$/.test(s);

/** Lines end at "\n", a "\r" right before it belongs to the terminator; what
 * follows the last "\n" is a line only when it is not empty. */
function linesOf(bytes) {
  const parts = bytes.split('\n');
  const last = parts.pop();
  const lines = parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (last !== '') lines.push(last);
  return lines;
}

/** The line names what was refused: a '/', a quote, or U+2018/U+2019. */
const namesAPath = (line) => /[/'"`]/.test(line) || line.includes('\u00e2\u0080\u0098') || line.includes('\u00e2\u0080\u0099');

/** The signature found at `at` ends the error or the line names a path. */
function denialAt(line, at, length) {
  const rest = line.slice(at + length);
  if (namesAPath(line) || rest === '') return true;
  if (':,;.'.includes(rest[0])) return true;
  return rest.length >= 10 && asciiLower(rest.slice(0, 10)) === ' (os error';
}

function lineShowsDenial(line, signature) {
  const lower = asciiLower(line);
  for (let at = lower.indexOf(signature); at >= 0; at = lower.indexOf(signature, at + 1)) {
    if (denialAt(line, at, signature.length)) return true;
  }
  return false;
}

/** Whether a finished run's stderr shows a denial in `dialect` (doc/SPEC.md
 * 8): stderr counts at any exit, a death by signal (`status` null)
 * included. */
function classifyDenial(dialect, status, stderr) {
  checkStatus(status);
  const signatures = checkSignatures(dialect, 'dialect').filter((s) => !isBlank(s)).map((s) => asciiLower(asBytes(s)));
  if (!signatures.length) return false;
  return linesOf(asBytes(stderr)).some((line) => signatures.some((s) => lineShowsDenial(line, s)));
}

/** The runner's failure line when a finished run failed in the runner
 * before the command ran (doc/SPEC.md 8), else null: never at exit 0 or a
 * death by signal (`status` null); per rule in order, an exit code the rule
 * allows (any when it lists none), the informational lines dropped, and a
 * line that begins with a fatal signature (case-insensitively). */
function classifyRunnerFailure(rules, status, stderr) {
  checkStatus(status);
  if (!Array.isArray(rules)) throw new UsageError('rules must be an array of runner-failure rules', { option: 'rules' });
  if (status === null || status === 0) return null;
  const lines = linesOf(asBytes(stderr));
  for (const rule of rules) {
    const exits = rule.allowedExitCodes || [];
    if (exits.length && !exits.includes(status)) continue;
    const info = checkSignatures(rule.informationalLines || [], 'rules').map((l) => asciiLower(asBytes(l)));
    const fatal = checkSignatures(rule.fatalSignatures || [], 'rules').filter((s) => !isBlank(s)).map((s) => asciiLower(asBytes(s)));
    for (const line of lines) {
      const lower = asciiLower(line);
      if (info.includes(lower)) continue;
      if (fatal.some((s) => lower.startsWith(s))) return Buffer.from(line, 'latin1').toString('utf8');
    }
  }
  return null;
}

function checkStatus(status) {
  if (status !== null && !Number.isInteger(status)) {
    throw new UsageError(`status must be an exit code (an integer) or null for a death by signal, not ${show(status)}`, { option: 'status' });
  }
}

function checkSignatures(list, option) {
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) {
    throw new UsageError(`${option} must hold strings`, { option });
  }
  return list;
}

/** Which sandbox backend this host can use (`confine probe --json`):
 * { usable, runner, enforcement, landlockAbi, runnerPath, runnerFailure }. */
async function probe(options = {}) {
  const { runner, config, environ: given, bin: pinned } = checkProbeOptions(options);
  const environ = given || process.env;
  const bin = pinned || findConfine(environ);
  const args = ['probe', '--json'];
  if (runner) args.push('--runner', runner);
  if (config) args.push('--config', config);
  const done = await exec(bin, args, { environ });
  const object = parseJsonLine(done.stdout);
  if (!object || object.error) {
    throw (object && object.error ? errorFrom(object.error, done.status) : failure(done, bin)) ||
      new ConfineError(`${bin} probe failed (exit ${done.status}): ${done.stderr.trim()}`, { exitStatus: done.status });
  }
  return {
    usable: !!object.usable,
    runner: object.runner || null,
    enforcement: object.enforcement || null,
    unenforced: object.unenforced || [],
    layers: object.layers || [],
    clauses: clausesOf(object.clauses),
    supervisor: !!object.supervisor,
    landlockAbi: object.landlockAbi === undefined ? null : object.landlockAbi,
    runnerPath: object.runnerPath || null,
    reason: object.reason || null,
    runnerFailure: object.runnerFailure || null,
  };
}

/** The `confine` version string (`confine --version`). */
async function version(options = {}) {
  const bin = options.bin || findConfine(options.environ || process.env);
  const done = await exec(bin, ['--version']);
  const match = /(\d+\.\d+\.\d+)/.exec(done.stdout);
  return match ? match[1] : done.stdout.trim();
}

// ---- the harness's own file operations (doc/SPEC.md 19) -------------------

/** Runs `confine fs --json OP PATH...` with `input` on stdin; the parsed
 * JSON, or the typed error. */
function fsCall(op, paths, options, input, defaultMode) {
  try {
    checkOptions(options, { timeout: false });
    // an argv word cannot hold a NUL; cut there it would name another file
    for (const p of paths) checkString(p, 'path', 'usage', { allowEmpty: false });
    if (input !== undefined && typeof input !== 'string' && !Buffer.isBuffer(input) && !(input instanceof Uint8Array)) {
      throw new UsageError(`data must be a string or a Buffer, not ${typeName(input)}`, { option: 'data' });
    }
  } catch (e) {
    return Promise.reject(e);
  }
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const opts = { mode: defaultMode, ...options };
  delete opts.runner; // no runner is involved
  return contextArgs(bin, 'fs', opts).then(({ args }) => new Promise((resolve, reject) => {
    const child = spawn(bin, ['fs', '--json', ...args, op, ...paths],
      { env: environ, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', (e) => reject(new ConfineError(`cannot run ${bin}: ${e.message}`, { code: e.code === 'ENOENT' ? 'CONFINE_NOT_FOUND' : 'SYSTEM_ERROR' })));
    child.stdin.on('error', () => {});
    child.stdin.end(input === undefined ? Buffer.alloc(0) : Buffer.from(input));
    child.on('close', (status) => {
      const stdout = Buffer.concat(out);
      if (status === 0) return resolve(stdout);
      const object = parseJsonLine(stdout.toString('utf8'));
      if (object && object.error) return reject(errorFrom(object.error, status));
      return reject(new ConfineError(`${bin} fs ${op} failed (exit ${status}): ${Buffer.concat(err).toString('utf8').trim()}`, { exitStatus: status }));
    });
  }));
}

/** The harness's own file tools under a run's policy: every path resolved
 * beneath its root (a planted link never leads out), writes only where the
 * mode allows and never onto a protected or denyRead path, reads never of
 * a denyRead path. Options are those of run() (mode, workspace, policy
 * options). */
const confineFs = {
  /** The file's bytes (a Buffer; options.maxBytes bounds it). */
  read: async (file, options = {}) => {
    const { maxBytes, ...rest } = options;
    const done = await fsCall('read', [file], rest, undefined, 'read-only');
    // --json prints nothing on success for read: the bytes are stdout.
    return maxBytes ? done.subarray(0, maxBytes) : done;
  },
  write: async (file, data, options = {}) => { await fsCall('write', [file], options, data, 'workspace-write'); },
  append: async (file, data, options = {}) => { await fsCall('append', [file], options, data, 'workspace-write'); },
  list: async (dir = '.', options = {}) => {
    const out = JSON.parse((await fsCall('list', [dir], options, undefined, 'read-only')).toString('utf8'));
    const types = { f: 'file', d: 'directory', l: 'symlink', o: 'other' };
    return out.entries.map((e) => ({ name: e.name, type: types[e.type] }));
  },
  stat: async (file, options = {}) => {
    const out = JSON.parse((await fsCall('stat', [file], options, undefined, 'read-only')).toString('utf8'));
    const types = { f: 'file', d: 'directory', l: 'symlink', o: 'other' };
    return { ...out, type: types[out.type] };
  },
  mkdir: async (dir, options = {}) => { await fsCall('mkdir', [dir], options, undefined, 'workspace-write'); },
  remove: async (file, options = {}) => { await fsCall('remove', [file], options, undefined, 'workspace-write'); },
  rename: async (from, to, options = {}) => { await fsCall('rename', [from, to], options, undefined, 'workspace-write'); },
};

module.exports = {
  run,
  fs: confineFs,
  classifyDenial,
  classifyRunnerFailure,
  DeniedError,
  FsError,
  bash,
  wrap,
  probe,
  version,
  findConfine,
  render,
  ConfineError,
  SandboxUnavailableError,
  InvalidPolicyError,
  InvalidConfigError,
  UsageError,
  SpawnFailedError,
  POLICY_OPTIONS,
  MODES,
};
