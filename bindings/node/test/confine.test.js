// SPDX-License-Identifier: MIT
// World-effect tests of the Node package against the freshly built confine,
// on one Linux rung (pinned). Environment (set by Meson):
//   CONFINE_BIN           the built confine command
//   CONFINE_TEST_RUNNER   bwrap or landlock
//   CONFINE_TEST_LAUNCHER the built landlock-run
//   CONFINE_TEST_VERSION  meson.build's project version
//   CONFINE_MUST_WORK=1   a rung that cannot run fails instead of skipping
// Workspaces live under $HOME/.cache/confine-tests, as in the other suites.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const confine = require('..');

const RUNNER = process.env.CONFINE_TEST_RUNNER || undefined;
const LAUNCHER = process.env.CONFINE_TEST_LAUNCHER;
const MISSING_LAUNCHER = '/nonexistent/confine-tests/landlock-run';
const CONTRACT = (mode) => `sandbox mode "${mode}" is requested but no sandbox backend is usable on this host; ` +
  'refusing to run the command unconfined. Install bubblewrap or run a ' +
  'Landlock-enforcing kernel (Linux), ensure sandbox-exec is usable (macOS) ' +
  '\u2014 Windows has no confinement backend yet \u2014 or switch the consumer to ' +
  'danger-full-access.';

const root = path.join(process.env.HOME || os.tmpdir(), '.cache', 'confine-tests');
fs.mkdirSync(root, { recursive: true });
const base = fs.mkdtempSync(path.join(root, 'node.'));
const configPath = path.join(base, 'config.json');
fs.writeFileSync(configPath, JSON.stringify(LAUNCHER ? { landlockLauncher: LAUNCHER } : {}));
const brokenConfig = path.join(base, 'broken.json');
fs.writeFileSync(brokenConfig, JSON.stringify({ landlockLauncher: MISSING_LAUNCHER }));
test.after(() => fs.rmSync(base, { recursive: true, force: true }));

let n = 0;
function workspace() {
  const dir = path.join(base, `t${n++}`);
  fs.mkdirSync(path.join(dir, 'ws'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'outside'));
  return { ws: path.join(dir, 'ws'), outside: path.join(dir, 'outside') };
}
const opts = (ws, extra = {}) => ({ workspace: ws, runner: RUNNER, config: configPath, ...extra });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('a denied write renders the exact marker and leaves no file', async () => {
  const { ws } = workspace();
  const r = await confine.bash('echo x > f', opts(ws, { mode: 'read-only' }));
  assert.strictEqual(r.denied, true);
  assert.strictEqual(r.exitCode, 1);
  if (RUNNER) assert.strictEqual(r.runner, RUNNER);
  const lines = r.rendering.split('\n');
  assert.strictEqual(lines[0], '[stderr]');
  assert.deepStrictEqual(lines.slice(-2), ['[sandbox: file access denied under read-only mode]', '[exit code: 1]']);
  assert.ok(!fs.existsSync(path.join(ws, 'f')));

  const rr = await confine.run(['sh', '-c', 'echo x > f'], opts(ws, { mode: 'read-only' }));
  assert.strictEqual(rr.denied, true);
  assert.ok(!fs.existsSync(path.join(ws, 'f')));
});

test('workspace-write: a write outside is denied, inside lands with its content', async () => {
  const { ws, outside } = workspace();
  const target = path.join(outside, 'o');
  const r = await confine.bash(`echo x > '${target}'`, opts(ws, { mode: 'workspace-write' }));
  assert.strictEqual(r.denied, true);
  assert.ok(r.rendering.split('\n').includes('[sandbox: file access denied under workspace-write mode]'));
  assert.ok(!fs.existsSync(target));

  const ok = await confine.run(['sh', '-c', "printf 'run content' > f"], opts(ws, { mode: 'workspace-write' }));
  assert.deepStrictEqual([ok.exitCode, ok.denied, ok.signal], [0, false, null]);
  assert.strictEqual(fs.readFileSync(path.join(ws, 'f'), 'utf8'), 'run content');
  const b = await confine.bash("printf 'bash content' > g && echo done", opts(ws, { mode: 'workspace-write' }));
  assert.strictEqual(b.rendering, 'done\n');
  assert.strictEqual(fs.readFileSync(path.join(ws, 'g'), 'utf8'), 'bash content');
});

test('run: argv quoting, cwd and stdin', async () => {
  const { ws } = workspace();
  fs.mkdirSync(path.join(ws, 'sub dir'));
  const r = await confine.run(['sh', '-c', 'pwd; cat; printf "%s|" "$@"', 'sh', "it's", '$HOME', 'a b'],
    opts(ws, { cwd: path.join(ws, 'sub dir'), stdin: 'in\n' }));
  assert.strictEqual(r.stdout, `${ws}/sub dir\nin\nit's|$HOME|a b|`);
  const missing = await confine.run(['confine-no-such-program'], opts(ws));
  assert.strictEqual(missing.exitCode, 127);
  assert.strictEqual(missing.denied, false);
});

test('SANDBOX_UNAVAILABLE rejects with the typed error and the exact text', async () => {
  const { ws } = workspace();
  for (const mode of ['read-only', 'workspace-write']) {
    const o = { workspace: ws, runner: 'landlock', config: brokenConfig, mode };
    for (const call of [() => confine.run(['sh', '-c', 'touch ran'], o),
      () => confine.bash('touch ran', o)]) {
      await assert.rejects(call, (e) => {
        assert.ok(e instanceof confine.SandboxUnavailableError);
        assert.ok(e instanceof confine.ConfineError);
        assert.strictEqual(e.code, 'SANDBOX_UNAVAILABLE');
        assert.strictEqual(e.runnerFailure, `cannot execute ${MISSING_LAUNCHER}: No such file or directory`);
        assert.strictEqual(e.message, `${CONTRACT(mode)} Runner failure: ${e.runnerFailure}`);
        return true;
      });
    }
  }
  assert.ok(!fs.existsSync(path.join(ws, 'ran')), 'a command ran unconfined');
});

test('16 concurrent runs each get their own result', async () => {
  const { ws } = workspace();
  const results = await Promise.all(Array.from({ length: 16 }, (_, i) =>
    confine.run(['sh', '-c', 'echo "$0"; printf "%s" "$0" > "out-$0"', String(i)], opts(ws, { mode: 'workspace-write' }))));
  results.forEach((r, i) => {
    assert.deepStrictEqual([r.exitCode, r.stdout], [0, `${i}\n`]);
    assert.strictEqual(fs.readFileSync(path.join(ws, `out-${i}`), 'utf8'), String(i));
  });
});

test('a timeout kills the tree', async () => {
  const { ws } = workspace();
  const started = Date.now();
  const r = await confine.run(['sh', '-c', '(sleep 2; echo late > late) & sleep 60'], opts(ws, { mode: 'workspace-write', timeout: 500 }));
  assert.strictEqual(r.timedOut, true);
  assert.ok(Date.now() - started < 10000);
  const b = await confine.bash('sleep 60', opts(ws, { timeout: 300 }));
  assert.ok(b.rendering.split('\n').includes('[timed out after 300ms]'));
  await sleep(2500);
  assert.ok(!fs.existsSync(path.join(ws, 'late')), 'a descendant outlived the timeout');
});

test('an aborted call ends the command', async () => {
  const { ws } = workspace();
  const controller = new AbortController();
  const pending = confine.run(['sh', '-c', '(sleep 2; echo late > late) & sleep 60'],
    opts(ws, { mode: 'workspace-write', signal: controller.signal }));
  await sleep(500);
  controller.abort();
  await assert.rejects(pending, (e) => e.name === 'AbortError');
  await sleep(2500);
  assert.ok(!fs.existsSync(path.join(ws, 'late')));
});

test('wrap output spawned as-is has the same effect', async () => {
  const { ws, outside } = workspace();
  const w = await confine.wrap(['sh', '-c', `echo in > inside; echo out > '${path.join(outside, 'o')}'`], opts(ws, { mode: 'workspace-write' }));
  if (RUNNER) assert.strictEqual(w.runner, RUNNER);
  assert.strictEqual(w.cwd, ws);
  const done = spawnSync(w.argv[0], w.argv.slice(1), { cwd: w.cwd, env: w.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.strictEqual(fs.readFileSync(path.join(ws, 'inside'), 'utf8'), 'in\n');
  assert.ok(!fs.existsSync(path.join(outside, 'o')));
  assert.strictEqual(w.denied(done.status, done.stderr), true);
  assert.strictEqual(w.runnerFailure(done.status, done.stderr), null);
  const rule = w.rules[0];
  const code = rule.allowedExitCodes.length ? rule.allowedExitCodes[0] : 1;
  assert.strictEqual(w.runnerFailure(code, `${rule.fatalSignatures[0]}boom\n`), `${rule.fatalSignatures[0]}boom`);

  const full = await confine.wrap(['echo', 'hi'], opts(ws, { mode: 'danger-full-access' }));
  assert.deepStrictEqual([full.argv, full.runner], [['echo', 'hi'], null]);
});

test('wrap errors are typed', async () => {
  const { ws } = workspace();
  await assert.rejects(confine.wrap(['true'], opts(path.join(ws, 'missing'))), confine.InvalidPolicyError);
  await assert.rejects(confine.wrap(['true'], { workspace: ws, config: path.join(ws, 'no-config.json') }), confine.InvalidConfigError);
});

test('policy options the CLI lacks are refused by name; unknown ones too', async () => {
  const { ws } = workspace();
  const help = spawnSync(confine.findConfine(), ['bash', '--help'], { encoding: 'utf8' }).stdout;
  const samples = {
    writableRoots: [ws], protectedPaths: ['x'], defaultProtections: false, denyRead: ['/etc/shadow'],
    network: 'off', allowUnixSockets: ['/run/x.sock'], env: { include: ['A'] }, requireFull: true,
  };
  for (const [option, spec] of Object.entries(confine.POLICY_OPTIONS)) {
    assert.ok(option in samples, option);
    if (spec.flags.every((f) => help.includes(f))) continue; // supported now
    for (const call of [() => confine.run(['true'], opts(ws, { [option]: samples[option] })),
      () => confine.bash('true', opts(ws, { [option]: samples[option] })),
      () => confine.wrap(['true'], opts(ws, { [option]: samples[option] }))]) {
      await assert.rejects(call, (e) => e instanceof confine.InvalidPolicyError && e.option === option &&
        e.message.includes(option));
    }
  }
  await assert.rejects(confine.run(['true'], opts(ws, { writeableRoots: [ws] })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'writeableRoots');
  await assert.rejects(confine.run(['true'], opts(ws, { mode: 'read_only' })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'mode');
});

test('render matches the CLI rendering', async () => {
  const { ws } = workspace();
  const bin = confine.findConfine();
  const cases = ['echo out; echo err >&2; exit 3', 'printf partial', 'true', 'echo x > f', 'printf e >&2', 'kill -TERM $$'];
  for (const command of cases) {
    const args = ['bash', '-w', ws, '--config', configPath, ...(RUNNER ? ['--runner', RUNNER] : []), '-c', command];
    const cli = spawnSync(bin, args, { encoding: 'utf8' }).stdout;
    const r = await confine.bash(command, opts(ws));
    assert.strictEqual(r.rendering.replace(/\n?$/, '\n'), cli, command);
  }
});

test('probe and version', async () => {
  const v = await confine.probe({ runner: RUNNER, config: configPath });
  assert.strictEqual(v.usable, true);
  if (RUNNER) assert.strictEqual(v.runner, RUNNER);
  const want = process.env.CONFINE_TEST_VERSION;
  const pkg = require('../package.json');
  if (want) {
    assert.strictEqual(await confine.version(), want);
    assert.strictEqual(pkg.version, want);
  }
});
