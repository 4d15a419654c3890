// SPDX-License-Identifier: MIT
'use strict';

// Finding the `confine` command and running it (the package's one way to
// the library), with its help and its version checked once per binary.
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ConfineError } = require('./errors');

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
    const { bindir } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '_build_config.json'), 'utf8'));
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
  // The system's program directories, never $PATH: under `npm run` or
  // `npx` node_modules/.bin comes first there, where a confined run may
  // plant a `confine` the next call would run unconfined (red team R4-F10).
  for (const dir of SYSTEM_DIRS) {
    const candidate = path.join(dir, 'confine');
    if (isExecutable(candidate) && trusted(candidate)) return candidate;
  }
  throw new ConfineError(`the confine command was not found: set CONFINE_BIN, or install confine in ${SYSTEM_DIRS.join(', ')}`, { code: 'CONFINE_NOT_FOUND' });
}

// CONFINE_DEFAULT_PATH's directories (confine.h), searched in this order.
const SYSTEM_DIRS = ['/usr/local/bin', '/usr/bin', '/bin'];

/** Whether `file` and every directory above it, as given and as resolved,
 * are owned by root or this process's user and writable by neither group
 * nor others (doc/SPEC.md 4's rule for runners). */
function trusted(file) {
  const me = typeof process.getuid === 'function' ? process.getuid() : 0;
  const chain = (start) => {
    for (let p = start; ; p = path.dirname(p)) {
      const st = fs.statSync(p);
      if ((st.uid !== 0 && st.uid !== me) || (st.mode & 0o022)) return false;
      if (p === path.dirname(p)) return true;
    }
  };
  try {
    return chain(file) && chain(fs.realpathSync(file));
  } catch {
    return false;
  }
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
const PACKAGE_VERSION = require('../package.json').version;
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

module.exports = { findConfine, exec, helpText, checkVersion };
