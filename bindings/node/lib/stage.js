// SPDX-License-Identifier: MIT
/*
 * A staged run's changes (doc/SPEC.md 21): `run(argv, { stage: DIR })` (and
 * bash()) writes nowhere but DIR, and the result's `stage` lists, renders,
 * applies or discards what the command changed, over `confine stage
 * diff|apply|discard` (each call spawns one confine, as the rest of the
 * package does):
 *
 *   await result.stage.changes       [{path, change, from, type, size, mode, binary, git}]
 *   await result.stage.patch()       the unified diff `git apply` accepts
 *   await result.stage.apply(paths, { overwrite })  [{path, outcome, message}]
 *   await result.stage.discard()
 *
 * The same words as the Python package's confine.Stage (`from` for its
 * `from_path`), async.
 */
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');
const { ConfineError, UsageError, errorFrom } = require('./errors');
const { checkString, typeName } = require('./values');

const OUTCOMES = ['applied', 'conflict', 'refused', 'failed'];

/** The `stage` option: a non-empty path without NUL, made absolute. */
function stageDir(value) {
  checkString(value, 'stage', 'policy', { allowEmpty: false });
  return path.resolve(value);
}

/** `confine stage VERB DIR ...` run to its end: {status, stdout, stderr}. */
function stageCall(bin, environ, argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['stage', ...argv], { env: environ, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', (e) => reject(new ConfineError(`cannot run ${bin}: ${e.message}`,
      { code: e.code === 'ENOENT' ? 'CONFINE_NOT_FOUND' : 'SYSTEM_ERROR' })));
    child.on('close', (status, signal) => resolve({
      status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
    }));
  });
}

/** The JSON object `--json` printed, or the typed error it or the exit says. */
function jsonOf(done, bin, verb, { partial = false } = {}) {
  let object = null;
  try {
    object = JSON.parse(done.stdout.trim().split('\n').pop() || 'null');
  } catch {
    object = null;
  }
  if (object && object.error) throw errorFrom(object.error, done.status);
  if (!object || !(done.status === 0 || (partial && done.status === 1))) {
    throw new ConfineError(`${bin} stage ${verb} failed (${done.signal || `exit ${done.status}`}): ${done.stderr.trim()}`,
      { exitStatus: done.status });
  }
  return object;
}

function changeOf(c, git) {
  return {
    path: c.path,
    change: c.change,
    from: c.from === undefined ? null : c.from,
    type: c.type,
    size: c.size,
    mode: c.mode,
    binary: !!c.binary,
    git,
  };
}

/** The stage at `dir` (absolute, or made so). */
class Stage {
  constructor(dir, { bin, environ } = {}) {
    this.path = stageDir(dir);
    // Found when first used, as the package's calls find confine.
    Object.defineProperty(this, '_bin', { value: bin || null, enumerable: false });
    Object.defineProperty(this, '_environ', { value: environ || process.env, enumerable: false });
  }

  _confine() {
    // Late: index.js requires this file.
    return this._bin || require('..').findConfine(this._environ);
  }

  /** Every change against the real tree as it is now, by path, those under
   * a `.git` directory last with `git: true` (a promise). */
  get changes() {
    const bin = this._confine();
    return stageCall(bin, this._environ, ['diff', this.path, '--json']).then((done) => {
      const object = jsonOf(done, bin, 'diff');
      return (object.changes || []).map((c) => changeOf(c, false))
        .concat((object.git || []).map((c) => changeOf(c, true)));
    });
  }

  /** A unified diff of the changes that `git apply` accepts. */
  async patch() {
    const bin = this._confine();
    const done = await stageCall(bin, this._environ, ['diff', this.path, '--patch', '--json']);
    return jsonOf(done, bin, 'diff').patch || '';
  }

  /** Applies the changes (all, or those at or under `paths`) to the real
   * tree: a conflict or a refused path is in the list, never applied
   * (unless `overwrite` for a conflict); the stage is kept. */
  async apply(paths = null, { overwrite = false } = {}) {
    if (paths !== null && paths !== undefined) {
      if (!Array.isArray(paths)) {
        throw new UsageError(`paths must be an array of paths, not ${typeName(paths)}`, { option: 'paths' });
      }
      for (const p of paths) checkString(p, 'paths', 'usage', { allowEmpty: false });
    }
    if (typeof overwrite !== 'boolean') {
      throw new UsageError(`overwrite must be a boolean, not ${typeName(overwrite)}`, { option: 'overwrite' });
    }
    const bin = this._confine();
    const argv = ['apply', this.path, '--json'];
    if (overwrite) argv.push('--overwrite');
    if (paths && paths.length) argv.push('--', ...paths);
    else if (paths && paths.length === 0) return [];
    const object = jsonOf(await stageCall(bin, this._environ, argv), bin, 'apply', { partial: true });
    return (object.results || []).map((e) => ({
      path: e.path,
      outcome: OUTCOMES.includes(e.outcome) ? e.outcome : 'failed',
      message: e.message === undefined ? null : e.message,
    }));
  }

  /** Removes the stage and everything in it. */
  async discard() {
    const bin = this._confine();
    const done = await stageCall(bin, this._environ, ['discard', this.path, '--json']);
    if (done.status !== 0) jsonOf(done, bin, 'discard');
  }
}

module.exports = { Stage, stageDir };
