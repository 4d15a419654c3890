// SPDX-License-Identifier: MIT
// Meson's entry to the Node suite: checks that the pinned rung can run here
// (else exit 77, skip, or 1 under CONFINE_MUST_WORK=1), then runs
// `node --test` on the test files.
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
  const launcher = process.env.CONFINE_TEST_LAUNCHER;
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
  const files = fs.readdirSync(path.join(__dirname)).filter((f) => f.endsWith('.test.js'))
    .map((f) => path.join(__dirname, f));
  console.log(`# confine ${confine.findConfine()}, runner ${runner || 'default'}, node ${process.version}`);
  const done = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
  return done.status === null ? 1 : done.status;
}

main().then((status) => process.exit(status), (e) => {
  console.log(`not ok - ${e.stack || e}`);
  process.exit(1);
});
