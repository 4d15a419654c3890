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
 * The parts (lib/): errors.js (the typed errors, the CLI's error object in
 * the package's words), values.js (every value checked where it enters),
 * policy-options.js (the policy options and their flags), classify.js
 * (SPEC 8's stderr classifiers, as the library has them), render.js (the
 * model-facing rendering).
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
const {
  ConfineError, SandboxUnavailableError, InvalidPolicyError, UsageError, SpawnFailedError,
  InvalidConfigError, DeniedError, FsError, errorFrom, isSandboxUnavailableText,
} = require('./lib/errors');
const { show, typeName, checkString } = require('./lib/values');
const { POLICY_OPTIONS } = require('./lib/policy-options');
const { classifyDenial, classifyRunnerFailure } = require('./lib/classify');
const { render } = require('./lib/render');
const { Stage, stageDir } = require('./lib/stage');

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
// The options every call takes that are not policy options.
const CALL_OPTIONS = new Set([
  'mode', 'workspace', 'cwd', 'timeout', 'stdin', 'runner', 'config', 'bin', 'environ', 'signal',
  'maxOutput', 'stage',
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
  // A staged run (lib/stage.js): without `mode`, the CLI's workspace-write.
  if (given('stage')) args.push('--stage', stageDir(options.stage));
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
    // The limit that stopped the run ({name, value, killed}) or null, and
    // what it used (null where the mechanism cannot tell).
    limit: sandbox.limit || null,
    usage: {
      peakMemory: object.usage && object.usage.peakMemory !== undefined ? object.usage.peakMemory : null,
      peakProcesses: object.usage && object.usage.peakProcesses !== undefined ? object.usage.peakProcesses : null,
      cpuSeconds: object.usage && object.usage.cpuSeconds !== undefined ? object.usage.cpuSeconds : null,
    },
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

/** The report per clause (doc/SPEC.md 15) as plain objects. */
function clausesOf(list) {
  return (list || []).map((c) => ({
    clause: c.clause, subject: c.subject, status: c.status, layers: c.layers || [],
    reason: c.reason, needs: c.needs,
  }));
}

// ---- the calls -------------------------------------------------------------

/** `stage` is run()'s and bash()'s alone (`confine run|bash --stage`). */
function noStage(options, call) {
  if (options.stage !== undefined && options.stage !== null) {
    throw new UsageError(`${call} takes no stage (a staged run is run() or bash() with stage)`, { option: 'stage' });
  }
}

/** A staged call's `stage` (lib/stage.js), or nothing. */
function stageOf(options, bin) {
  if (options.stage === undefined || options.stage === null) return {};
  return { stage: new Stage(options.stage, { bin, environ: options.environ }) };
}

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
      resolve({ ...done, rendering: render(done, timeoutMs || 0), ...stageOf(options, bin) });
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
  return { ...result, rendering: render(result, timeoutMs), timeoutMs, ...stageOf(options, bin) };
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
  noStage(options, 'wrap()');
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
    noStage(options, 'fs');
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
  Stage,
};
