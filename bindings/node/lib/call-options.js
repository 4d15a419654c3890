// SPDX-License-Identifier: MIT
'use strict';

// The options of a call, checked before anything runs (no `confine` is
// spawned for a call that is wrong), and the CLI arguments they become.
const path = require('node:path');
const { InvalidPolicyError, InvalidConfigError, UsageError } = require('./errors');
const { show, typeName, wrongType, checkString } = require('./values');
const { POLICY_OPTIONS } = require('./policy-options');
const { helpText, checkVersion } = require('./command');
const table = require('./table');
const { stageDir } = require('./stage');
const { checkAskHost } = require('./ask-host');

// The words, bounds and defaults are the table of options' (./table.js).
const MODES = table.row('mode').choices;
const RUNNERS = table.row('runner').choices;
const DEFAULT_TIMEOUT_MS = 120000;
const MAX_TIMEOUT_MS = table.row('timeout').max;
// What is kept of each captured stream, run() and bash() alike (doc/SPEC.md
// 9: the library's CONFINE_DEFAULT_CAPTURE_LIMIT).
const CAPTURE_LIMIT = table.row('maxOutput').default;
// The most a kept stream can be (a Buffer's limit).
const MAX_OUTPUT_LIMIT = require('node:buffer').constants.MAX_LENGTH;
// A timeout or an abort sends SIGTERM to confine, which forwards it to the
// command's tree; SIGKILL follows after this grace (the library's), and the
// launcher's lifeline then kills whatever is left.
const KILL_GRACE_MS = 3000;
// The options every call takes that are not policy options.
const CALL_OPTIONS = new Set([
  'mode', 'workspace', 'cwd', 'timeout', 'stdin', 'runner', 'config', 'bin', 'environ', 'signal',
  'maxOutput', 'stage', 'askHost',
]);

/**
 * Checks the call's options before anything runs (no `confine` is spawned
 * for a call that is wrong) and returns the CLI arguments for the context
 * (mode, workspace, runner, config) and the policy options, with `mode`
 * (null: the CLI's default). Each refusal names the option (see "values").
 */
function checkOptions(options, { timeout = true, call = 'run' } = {}) {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError(`options must be an object, not ${typeName(options)}`, { option: 'options' });
  }
  // The run's decider (lib/ask-host.js): run() and bash() only.
  checkAskHost(options.askHost, call);
  const given = (name) => options[name] !== undefined && options[name] !== null;
  const args = [];
  const policy = [];
  for (const [option, value] of Object.entries(options)) {
    if (value === undefined || value === null) continue;
    if (CALL_OPTIONS.has(option)) continue;
    const spec = POLICY_OPTIONS[option];
    if (!spec) {
      throw new InvalidPolicyError(`unknown policy option ${show(option)} (known: ${Object.keys(POLICY_OPTIONS).join(', ')})`, { option });
    }
    policy.push({ option, args: spec.toArgs(value, option), flags: spec.flags });
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
      // The library's wording (confine_runner_parse), the table's words.
      throw new InvalidConfigError(`unknown runner ${JSON.stringify(runner)} (expected ${RUNNERS.slice(0, -1).join(', ')} or ${RUNNERS[RUNNERS.length - 1]})`, { option: 'runner' });
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
    throw wrongType('usage', 'environ', 'an object of names to strings', environ);
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
  for (const { option, args: optionArgs, flags: optionFlags } of policy) {
    const help = await helpText(bin, command);
    // the option's flags among its words (a bare flag, `--flag=VALUE`, or a
    // flag before its value word: policy-options.js), each in the help
    const missing = optionArgs.map((a) => a.split('=')[0])
      .filter((f) => optionFlags.includes(f) && !help.includes(f));
    if (missing.length) {
      throw new InvalidPolicyError(`policy option ${JSON.stringify(option)} (${missing.join(', ')}) is not supported by ${bin}: refusing to run with a policy that would not be enforced`, { option });
    }
    flags.push(...optionArgs);
  }
  // --cwd DIR (run, bash; doc/SPEC.md 10): where the command starts.
  if ((command === 'run' || command === 'bash') && options.cwd !== undefined && options.cwd !== null) {
    flags.push('--cwd', path.resolve(options.cwd));
  }
  return { args: args.concat(flags), mode };
}

/** The argv of run() and wrap(): a non-empty array of strings, each
 * without NUL (no number or Buffer coerced: what runs is what was given). */
function checkArgv(argv) {
  if (!Array.isArray(argv)) throw wrongType('usage', 'argv', 'an array of arguments', argv);
  if (argv.length === 0) throw new UsageError('argv must not be empty', { option: 'argv' });
  for (const word of argv) checkString(word, 'argv', 'usage');
  if (argv[0] === '') throw new UsageError('argv[0] is an empty string', { option: 'argv' });
  return argv;
}

/** The timeout in ms, 1 to 600000 (SPEC 10's --timeout, at every door):
 * past the bound it is refused, never cut to it, and a fraction is refused,
 * never rounded. `fallback` when none is given (bash: 120000; run: none, as
 * `confine run`). */
function timeoutArg(options, fallback = DEFAULT_TIMEOUT_MS) {
  if (options.timeout === undefined || options.timeout === null) return fallback;
  // The messages speak in milliseconds, as the library's and the other
  // doors' do (doc/SPEC.md 16, "One text per refusal").
  if (typeof options.timeout !== 'number') throw wrongType('usage', 'timeout', 'a number', options.timeout);
  if (!Number.isFinite(options.timeout)) {
    throw new UsageError(`timeout ${show(options.timeout)} is not a finite number`, { option: 'timeout' });
  }
  // A fraction of a millisecond is refused, never rounded (1.5 is not 2).
  if (!Number.isInteger(options.timeout)) {
    throw new UsageError(`timeout ${options.timeout} ms is not a whole number of milliseconds`, { option: 'timeout' });
  }
  const ms = options.timeout === 0 ? 0 : options.timeout;
  if (ms < 1) throw new UsageError(`timeout ${ms} ms is below the minimum of 1 ms`, { option: 'timeout' });
  if (ms > MAX_TIMEOUT_MS) {
    throw new UsageError(`timeout ${ms} ms exceeds the maximum of ${MAX_TIMEOUT_MS} ms`, { option: 'timeout' });
  }
  return ms;
}

/** Bytes kept of each of run()'s streams: a whole number, 0 or more
 * (default 64000, the library's); past what a Buffer holds it is refused, not cut. */
function maxOutputArg(options) {
  const value = options.maxOutput;
  if (value === undefined || value === null) return CAPTURE_LIMIT;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType('usage', 'maxOutput', 'a whole number', value);
  if (value < 0) throw new UsageError(`maxOutput ${show(value)} is below the minimum of 0`, { option: 'maxOutput' });
  if (value > MAX_OUTPUT_LIMIT) {
    throw new UsageError(`maxOutput ${show(value)} exceeds the maximum of ${MAX_OUTPUT_LIMIT}`, { option: 'maxOutput' });
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

module.exports = {
  MODES, RUNNERS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, CAPTURE_LIMIT, KILL_GRACE_MS,
  checkOptions, contextArgs, checkArgv, timeoutArg, maxOutputArg, checkStdin, checkProbeOptions,
};
