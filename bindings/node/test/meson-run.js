// SPDX-License-Identifier: MIT
// Meson's entry to the Node suite: checks that the pinned rung can run here
// (else exit 77, skip, or 1 under CONFINE_MUST_WORK=1), then runs
// `node --test` on the test files (those named as arguments, else every
// *.test.js).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const confine = require('..');

async function main() {
  const runner = process.env.CONFINE_TEST_RUNNER || undefined;
  const root = path.join(process.env.HOME || os.tmpdir(), '.cache', 'confine-tests');
  fs.mkdirSync(root, { recursive: true });
  const ws = fs.mkdtempSync(path.join(root, 'node-preflight.'));
  const config = path.join(ws, 'config.json');
  // From a build under /tmp the build's launcher is not one confine may
  // run from disk (doc/SPEC.md 14): a copy under ~/.cache then (this run's
  // own, removed when it exits), which the test files read from the same
  // variable.
  let launcher = process.env.CONFINE_TEST_LAUNCHER;
  if (launcher && fs.realpathSync(launcher).startsWith('/tmp/')) {
    const dir = fs.mkdtempSync(path.join(root, 'launcher.'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    fs.chmodSync(dir, 0o755);
    const copy = path.join(dir, 'landlock-run');
    fs.copyFileSync(fs.realpathSync(launcher), copy);
    fs.chmodSync(copy, 0o755);
    launcher = copy;
    process.env.CONFINE_TEST_LAUNCHER = launcher;
  }
  fs.writeFileSync(config, JSON.stringify(launcher ? { landlockLauncher: launcher } : {}));
  try {
    await confine.run(['true'], { workspace: ws, runner, config });
  } catch (e) {
    if (!(e instanceof confine.SandboxUnavailableError)) throw e;
    const why = `the ${runner || 'default'} rung cannot run here: ${e.message}`;
    if (process.env.CONFINE_MUST_WORK === '1') {
      console.log(`not ok - ${why}, but CONFINE_MUST_WORK=1`);
      return 1;
    }
    console.log(`# SKIP ${why}`);
    return 77;
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
  // The files named (a test of its own, ask-host.js), else every *.test.js.
  const named = process.argv.slice(2);
  const files = (named.length ? named : fs.readdirSync(path.join(__dirname)).filter((f) => f.endsWith('.test.js')))
    .map((f) => path.join(__dirname, f));
  console.log(`# confine ${confine.findConfine()}, runner ${runner || 'default'}, node ${process.version}`);
  const done = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
  return done.status === null ? 1 : done.status;
}

main().then((status) => process.exit(status), (e) => {
  console.log(`not ok - ${e.stack || e}`);
  process.exit(1);
});
