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
const DEFAULT_TIMEOUT_MS = 120000;
const MAX_TIMEOUT_MS = 600000;
const CAPTURE_LIMIT = 64000;
// run(): what is kept of each of the command's streams (not a cap on what
// the command may write: past it the rest is read and dropped).
const RUN_OUTPUT_LIMIT = 64 * 1024 * 1024;
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
  constructor(message, { code = 'SYSTEM_ERROR', exitStatus = null } = {}) {
    super(message);
    this.name = 'ConfineError';
    this.code = code;
    this.exitStatus = exitStatus;
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
    super(message, { code: 'INVALID_POLICY', exitStatus });
    this.name = 'InvalidPolicyError';
    this.option = option;
  }
}

/** The call itself is wrong (an empty argv, a bad timeout or mode) or
 * confine's command line was refused: code USAGE. */
class UsageError extends ConfineError {
  constructor(message, { exitStatus = null } = {}) {
    super(message, { code: 'USAGE', exitStatus });
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
  constructor(message, { exitStatus = null } = {}) {
    super(message, { code: 'INVALID_CONFIG', exitStatus });
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

function errorFrom(object, exitStatus) {
  const message = String(object.message || 'confine failed');
  switch (object.code) {
    case 'SANDBOX_UNAVAILABLE':
      return new SandboxUnavailableError(message, {
        runnerFailure: object.runnerFailure === undefined ? undefined : object.runnerFailure,
        exitStatus,
      });
    case 'INVALID_POLICY':
      return new InvalidPolicyError(message, { exitStatus });
    case 'INVALID_CONFIG':
      return new InvalidConfigError(message, { exitStatus });
    case 'USAGE':
      return new UsageError(message, { exitStatus });
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

// ---- policy options: one table ---------------------------------------------

/*
 * The policy options beyond mode and workspace (the contract's config keys,
 * camelCase) and the CLI flags each becomes. An option is forwarded when the
 * `confine` in use lists its flag in its --help; otherwise it is refused with
 * InvalidPolicyError naming it: a policy the sandbox would not enforce is
 * never accepted silently. Supporting a new option is one entry here.
 */
const list = (flag) => (value, option) => {
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    if (typeof item !== 'string' || item === '') {
      throw new InvalidPolicyError(`policy option ${option}: expected paths (strings), got ${JSON.stringify(value)}`, { option });
    }
  }
  return items.flatMap((item) => [flag, item]);
};

const POLICY_OPTIONS = {
  writableRoots: { flags: ['--writable'], toArgs: list('--writable') },
  protectedPaths: { flags: ['--protect'], toArgs: list('--protect') },
  defaultProtections: {
    flags: ['--no-default-protections'],
    toArgs: (value, option) => {
      if (typeof value !== 'boolean') throw new InvalidPolicyError(`policy option ${option}: expected a boolean`, { option });
      return value ? [] : ['--no-default-protections'];
    },
  },
  denyRead: { flags: ['--deny-read'], toArgs: list('--deny-read') },
  network: {
    flags: ['--network'],
    toArgs: (value, option) => {
      // The allowlist (doc/SPEC.md 15, "Network allowlist"):
      // {allow: [hosts], deny: [hosts], allowLocal: bool}, the network off
      // plus confine's proxy; each host is checked by confine itself.
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        const known = ['allow', 'deny', 'allowLocal'];
        for (const key of Object.keys(value)) {
          if (!known.includes(key)) throw new InvalidPolicyError(`policy option ${option}: unknown key ${JSON.stringify(key)} (expected allow, deny, allowLocal)`, { option });
        }
        const hosts = (key, flag) => {
          const items = value[key] === undefined ? [] : value[key];
          if (!Array.isArray(items) || items.some((h) => typeof h !== 'string')) throw new InvalidPolicyError(`policy option ${option}.${key}: expected host names (strings), got ${JSON.stringify(items)}`, { option });
          return items.flatMap((h) => [flag, h]);
        };
        if (value.allowLocal !== undefined && typeof value.allowLocal !== 'boolean') throw new InvalidPolicyError(`policy option ${option}.allowLocal: expected a boolean`, { option });
        const allow = hosts('allow', '--allow-host');
        return [...(allow.length ? [] : ['--network', 'off']), ...allow, ...hosts('deny', '--deny-host'),
          ...(value.allowLocal ? ['--allow-local-network'] : [])];
      }
      if (value !== 'on' && value !== 'off') throw new InvalidPolicyError(`policy option ${option}: expected "on", "off" or {allow, deny, allowLocal}, got ${JSON.stringify(value)}`, { option });
      return ['--network', value];
    },
  },
  allowUnixSockets: { flags: ['--allow-unix-socket'], toArgs: list('--allow-unix-socket') },
  env: {
    flags: ['--env-inherit', '--env-include', '--env-exclude', '--env-set', '--no-default-env-excludes'],
    toArgs: (value, option) => {
      if (typeof value !== 'object' || value === null) throw new InvalidPolicyError(`policy option ${option}: expected {inherit, include, exclude, set, defaultExcludes}`, { option });
      const args = [];
      for (const key of Object.keys(value)) {
        if (!['inherit', 'include', 'exclude', 'set', 'defaultExcludes'].includes(key)) {
          throw new InvalidPolicyError(`policy option env: unknown key ${JSON.stringify(key)}`, { option });
        }
      }
      if (value.inherit !== undefined) args.push('--env-inherit', value.inherit === true ? 'all' : value.inherit === false ? 'none' : String(value.inherit));
      for (const p of value.include || []) args.push('--env-include', String(p));
      for (const p of value.exclude || []) args.push('--env-exclude', String(p));
      for (const [k, v] of Object.entries(value.set || {})) args.push('--env-set', `${k}=${v}`);
      if (value.defaultExcludes === false) args.push('--no-default-env-excludes');
      return args;
    },
  },
  requireFull: {
    flags: ['--require-full'],
    toArgs: (value, option) => {
      if (typeof value !== 'boolean') throw new InvalidPolicyError(`policy option ${option}: expected a boolean`, { option });
      return value ? ['--require-full'] : [];
    },
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

async function contextArgs(bin, command, options) {
  await checkVersion(bin);
  const args = [];
  const policy = [];
  for (const [option, value] of Object.entries(options)) {
    if (value === undefined || value === null) continue;
    if (CALL_OPTIONS.has(option)) continue;
    const spec = POLICY_OPTIONS[option];
    if (!spec) {
      throw new InvalidPolicyError(`unknown policy option ${JSON.stringify(option)} (known: ${Object.keys(POLICY_OPTIONS).join(', ')})`, { option });
    }
    const optionArgs = spec.toArgs(value, option);
    const help = await helpText(bin, command);
    const missing = optionArgs.filter((a) => a.startsWith('--') && !help.includes(a));
    if (missing.length) {
      throw new InvalidPolicyError(`policy option ${JSON.stringify(option)} (${missing.join(', ')}) is not supported by ${bin}: refusing to run with a policy that would not be enforced`, { option });
    }
    policy.push(...optionArgs);
  }
  // Without `mode`, the CLI's default applies (the config's mode, else
  // read-only); a wrong one is the CLI's to refuse, with its own message.
  const mode = options.mode === undefined || options.mode === null ? null : options.mode;
  if (mode !== null && !MODES.includes(mode)) {
    // The library's wording (the CLI reports it as a usage error).
    throw new InvalidPolicyError(`unknown sandbox mode ${JSON.stringify(String(mode))} (expected read-only, workspace-write or danger-full-access)`, { option: 'mode' });
  }
  if (mode !== null) args.push('-m', mode);
  if (options.workspace !== undefined && options.workspace !== null) {
    args.push('-w', path.resolve(String(options.workspace)));
  }
  if (options.runner) args.push('--runner', String(options.runner));
  if (options.config) args.push('--config', String(options.config));
  return { args: args.concat(policy), mode };
}

function timeoutArg(options) {
  if (options.timeout === undefined || options.timeout === null) return DEFAULT_TIMEOUT_MS;
  const ms = Math.round(Number(options.timeout));
  if (!(ms > 0) || ms > MAX_TIMEOUT_MS) {
    throw new UsageError(`timeout must be 1..${MAX_TIMEOUT_MS} ms, not ${options.timeout}`);
  }
  return ms;
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
  if (!Array.isArray(argv) || argv.length === 0 || !argv[0]) {
    throw new UsageError('argv must be a non-empty array (use bash() for a shell command)');
  }
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const { args, mode } = await contextArgs(bin, 'run', options);
  const timeoutMs = timeoutArg(options);
  const limit = options.maxOutput === undefined || options.maxOutput === null
    ? RUN_OUTPUT_LIMIT : Number(options.maxOutput);
  if (!(limit >= 0)) throw new UsageError(`maxOutput must be a number of bytes, not ${options.maxOutput}`);
  let command = argv.map((a) => (Buffer.isBuffer(a) ? a.toString('utf8') : String(a)));
  if (command.some((a) => a.includes('\0'))) throw new UsageError('an argument holds a NUL byte');
  if (options.cwd !== undefined && options.cwd !== null) {
    command = ['/bin/sh', '-c', 'cd -- "$0" && exec "$@"', path.resolve(String(options.cwd)), ...command];
  }
  const stdin = options.stdin;
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
    const timer = setTimeout(() => {
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
        child.stdin.end(Buffer.isBuffer(stdin) ? stdin : Buffer.from(String(stdin)));
      }
    }

    child.on('close', (status, termSignal) => {
      clearTimeout(timer);
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
      resolve({
        ...result,
        stdout: stdoutBuffer.toString('utf8'),
        stderr: stderrBuffer.toString('utf8'),
        stdoutBuffer,
        stderrBuffer,
        truncated: { stdout: cut.stdout, stderr: cut.stderr },
        timedOut: timedOut || result.timedOut,
      });
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
  if (typeof command !== 'string') throw new UsageError('command must be a string');
  const bin = options.bin || findConfine(options.environ || process.env);
  let line = command;
  if (options.cwd !== undefined && options.cwd !== null) {
    line = `cd -- ${quote(path.resolve(String(options.cwd)))} && ${command}`;
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
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new UsageError('argv must be a non-empty array');
  }
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const { args, mode } = await contextArgs(bin, 'wrap', options);
  const done = await exec(bin, ['wrap', ...args, '--', ...argv.map(String)], { environ, signal: options.signal });
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
    cwd: options.cwd ? path.resolve(String(options.cwd)) : policy.workspaceRoot,
    unenforced: object.unenforced || [],
    layers: object.layers || [],
    clauses: clausesOf(object.clauses),
    policy,
    denied: (status, stderr) => classifyDenial(dialect, status, stderr),
    runnerFailure: (status, stderr) => classifyRunnerFailure(rules, status, stderr),
  };
}

/** SPEC 8's denial rule: a non-zero exit and a signature in stderr. */
function classifyDenial(dialect, status, stderr) {
  if (status === 0 || status === null) return false;
  const text = String(stderr).toLowerCase();
  return dialect.some((s) => text.includes(s.toLowerCase()));
}

/** SPEC 8's runner-failure rule over a wrap's rules: the matched line, or
 * null. `status` null (a signal death) is never a runner failure. */
function classifyRunnerFailure(rules, status, stderr) {
  if (status === 0 || status === null) return null;
  const lines = String(stderr).split(/\r?\n/);
  for (const rule of rules) {
    if (rule.allowedExitCodes.length && !rule.allowedExitCodes.includes(status)) continue;
    const info = rule.informationalLines.map((l) => l.toLowerCase());
    const sigs = rule.fatalSignatures.map((s) => s.trim() ? s.toLowerCase() : null).filter(Boolean);
    for (const line of lines) {
      const lower = line.toLowerCase();
      if (info.includes(lower)) continue;
      if (sigs.some((s) => lower.includes(s))) return line;
    }
  }
  return null;
}

/** Which sandbox backend this host can use (`confine probe --json`):
 * { usable, runner, enforcement, landlockAbi, runnerPath, runnerFailure }. */
async function probe(options = {}) {
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const args = ['probe', '--json'];
  if (options.runner) args.push('--runner', String(options.runner));
  if (options.config) args.push('--config', String(options.config));
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
  const environ = options.environ || process.env;
  const bin = options.bin || findConfine(environ);
  const opts = { mode: defaultMode, ...options };
  delete opts.runner; // no runner is involved
  for (const p of paths) {
    // an argv word cannot hold a NUL; cut there it would name another file
    if (String(p).includes('\0')) {
      return Promise.reject(new UsageError(`path ${JSON.stringify(String(p))} holds a NUL byte`, { exitStatus: 125 }));
    }
  }
  return contextArgs(bin, 'fs', opts).then(({ args }) => new Promise((resolve, reject) => {
    const child = spawn(bin, ['fs', '--json', ...args, op, ...paths.map(String)],
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
