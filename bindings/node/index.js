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
 * The parts (lib/): command.js (finding and running `confine`),
 * call-options.js (a call's options checked, and the CLI arguments they
 * become), results.js (what `confine` printed, read back), errors.js (the
 * typed errors, the CLI's error object in the package's words), values.js
 * (every value checked where it enters), table.js (the table of options,
 * ../options.json), policy-options.js (the policy options and their flags,
 * from the table), classify.js (SPEC 8's stderr classifiers, as the library
 * has them), render.js (run()'s model-facing rendering; bash() returns the
 * library's own, from `confine bash --json`).
 *
 * `confine` is found through $CONFINE_BIN, else next to the library named by
 * $CONFINE_LIBRARY (LIBDIR/../bin/confine, or a build tree's
 * src/cli/confine), else in the directory `meson install` recorded beside
 * an installed package (_build_config.json), else in /usr/local/bin,
 * /usr/bin or /bin, trusted (never $PATH: red team R4-F10); or pass `bin`
 * per call.
 */
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');
const {
  ConfineError, SandboxUnavailableError, InvalidPolicyError, UsageError, SpawnFailedError,
  InvalidConfigError, DeniedError, FsError, errorFrom,
} = require('./lib/errors');
const { show, typeName, checkString } = require('./lib/values');
const { POLICY_OPTIONS } = require('./lib/policy-options');
const { classifyDenial, classifyRunnerFailure } = require('./lib/classify');
const { render } = require('./lib/render');
const { findConfine, exec } = require('./lib/command');
const {
  MODES, KILL_GRACE_MS, checkOptions, contextArgs, checkArgv, timeoutArg, maxOutputArg, CAPTURE_LIMIT,
  checkStdin, checkProbeOptions,
} = require('./lib/call-options');
const { parseJsonLine, failure, resultOf, clausesOf } = require('./lib/results');
const { Stage } = require('./lib/stage');
const { startAsker } = require('./lib/ask-host');

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

async function bashJson(command, options, bin) {
  const { args, mode } = await contextArgs(bin, 'bash', options);
  const timeoutMs = timeoutArg(options);
  const asker = await startAsker(options.askHost);
  let done;
  try {
    done = await exec(bin, ['bash', '--json', ...args, ...asker.args, '--timeout', String(timeoutMs), '-c', command],
      { environ: options.environ, signal: options.signal });
  } finally {
    asker.close();
  }
  const object = parseJsonLine(done.stdout);
  if (!object || object.error) {
    throw (object && object.error ? errorFrom(object.error, done.status) : failure(done, bin)) ||
      new ConfineError(`${bin} bash printed no result (exit ${done.status}): ${done.stderr.trim()}`, { exitStatus: done.status });
  }
  // The rendering is the library's (confine_bash_render, doc/SPEC.md 9),
  // as `confine bash --json` writes it.
  return { result: resultOf(object, mode), timeoutMs, rendering: object.rendering };
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
 * `maxOutput` bytes (default 64000, the library's, as bash(); `truncated` says which was cut). A
 * timeout (ms, default 120000, at most 600000) or an aborted `signal` sends
 * SIGTERM to confine, which ends the command's whole tree; SIGKILL follows
 * 3000 ms later. `cwd` is where the program starts (`confine run --cwd`;
 * default the workspace root). Options also: mode,
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
  const command = argv;
  const signal = options.signal;
  if (signal && signal.aborted) throw abortError(signal);
  const asker = await startAsker(options.askHost);
  try {
    return await spawnRun(bin, args, asker, { command, signal, environ, stdin, limit, timeoutMs, mode, options });
  } finally {
    asker.close();
  }
}

/** run()'s `confine run --json` and its result. */
function spawnRun(bin, args, asker, { command, signal, environ, stdin, limit, timeoutMs, mode, options }) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['run', '--json', ...args, ...asker.args, '--', ...command], {
      // confine ends the run when this process dies, SIGKILL included
      // (doc/SPEC.md 15, "Nothing left behind"): no orphaned run.
      env: { ...environ, CONFINE_DIE_WITH_PARENT: String(process.pid) },
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
            truncated: { stdout: cut.stdout, stderr: cut.stderr }, denied: false, networkDenied: false, denials: [], denialsDropped: 0, networkDecisions: [], timedOut: true,
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
  // `confine bash` keeps the library's cap (doc/SPEC.md 9) and has no flag
  // for another: a different maxOutput is refused, never silently ignored.
  if (options.maxOutput !== undefined && options.maxOutput !== null &&
      maxOutputArg(options) !== CAPTURE_LIMIT) {
    throw new UsageError(`maxOutput ${options.maxOutput} is run()'s: bash() keeps the default ${CAPTURE_LIMIT} bytes of each stream`, { option: 'maxOutput' });
  }
  const bin = options.bin || findConfine(options.environ || process.env);
  const { result, timeoutMs, rendering } = await bashJson(command, options, bin);
  return { ...result, rendering, timeoutMs, ...stageOf(options, bin) };
}

/**
 * The argv to spawn instead of `argv` (`confine wrap`); runs nothing. Spawn
 * it with `env` as its environment, `cwd` as its working directory,
 * `detached: true` (a new session) and stdio you choose; classify with
 * `denied(status, stderr)` and `runnerFailure(status, stderr)`.
 */
async function wrap(argv, options = {}) {
  checkArgv(argv);
  checkOptions(options, { timeout: false, call: 'wrap' });
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
function fsCall(op, paths, options, input, defaultMode, extra = []) {
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
    const child = spawn(bin, ['fs', '--json', ...args, ...extra, op, ...paths],
      { env: environ, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    // A Buffer holds at most buffer.constants.MAX_LENGTH bytes: past it
    // the read is an error naming the bound, never a cut (issue 28.6).
    let held = 0;
    let tooBig = false;
    const err = [];
    child.stdout.on('data', (c) => {
      held += c.length;
      if (held > require('buffer').constants.MAX_LENGTH) {
        if (!tooBig) child.kill('SIGKILL');
        tooBig = true;
        return;
      }
      out.push(c);
    });
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', (e) => reject(new ConfineError(`cannot run ${bin}: ${e.message}`, { code: e.code === 'ENOENT' ? 'CONFINE_NOT_FOUND' : 'SYSTEM_ERROR' })));
    child.stdin.on('error', () => {});
    child.stdin.end(input === undefined ? Buffer.alloc(0) : Buffer.from(input));
    child.on('close', (status) => {
      if (tooBig) {
        return reject(new UsageError(`${op} ${paths[0]}: the file holds more than the ${require('buffer').constants.MAX_LENGTH} bytes a Buffer can: pass maxBytes`, { option: 'maxBytes' }));
      }
      const stdout = Buffer.concat(out);
      if (status === 0) return resolve(stdout);
      const object = parseJsonLine(stdout.toString('utf8'));
      if (object && object.error) return reject(errorFrom(object.error, status));
      return reject(new ConfineError(`${bin} fs ${op} failed (exit ${status}): ${Buffer.concat(err).toString('utf8').trim()}`, { exitStatus: status }));
    });
  }));
}

/** `{"gitHazards":[...]}`, as `confine fs --json` prints after a write. */
function hazardsOf(stdout) {
  const object = parseJsonLine(stdout.toString('utf8'));
  return object && Array.isArray(object.gitHazards)
    ? object.gitHazards.map((h) => ({ path: h.path, kind: h.kind })) : [];
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
    // confine reads at most maxBytes (--max-bytes): the file is never
    // read whole first (issue 28.6); 0 or absent: no bound.
    if (maxBytes !== undefined && maxBytes !== 0 && !(Number.isSafeInteger(maxBytes) && maxBytes > 0)) {
      throw new UsageError(`maxBytes must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${show(maxBytes)}`, { option: 'maxBytes' });
    }
    const extra = maxBytes ? ['--max-bytes', String(maxBytes)] : [];
    // --json prints nothing on success for read: the bytes are stdout.
    return fsCall('read', [file], rest, undefined, 'read-only', extra);
  },
  /** Each write operation resolves to the gitHazards it left: [{path, kind}]
   * (doc/SPEC.md 19; `kind` "planted" for what runs later). */
  write: async (file, data, options = {}) => hazardsOf(await fsCall('write', [file], options, data, 'workspace-write')),
  append: async (file, data, options = {}) => hazardsOf(await fsCall('append', [file], options, data, 'workspace-write')),
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
  mkdir: async (dir, options = {}) => hazardsOf(await fsCall('mkdir', [dir], options, undefined, 'workspace-write')),
  remove: async (file, options = {}) => hazardsOf(await fsCall('remove', [file], options, undefined, 'workspace-write')),
  rename: async (from, to, options = {}) => hazardsOf(await fsCall('rename', [from, to], options, undefined, 'workspace-write')),
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
