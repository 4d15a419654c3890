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
const crypto = require('node:crypto');
const net = require('node:net');
const { Readable } = require('node:stream');
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

// ---- a run's processes, found in the process table ----

// Every process of a run given env: { set: { [TREE_VAR]: mark } } carries
// TREE_VAR=mark in its environment (the runner, the launcher and the
// command's whole tree: the environment is inherited across fork and exec),
// and /proc shows processes in a sandbox's PID namespace too.
const TREE_VAR = 'CONFINE_TEST_TREE';
// How long a killed tree may take to leave the process table. This bound
// only proves that a kill fired (the trees here would run for minutes); it is
// no speed assertion, and a loaded machine needs a small part of it.
const GONE_BOUND_MS = 60000;
// The tree the timeout tests end: a background writer (a subshell whose
// `sleep 121` only it runs) that would write `late` when it wakes, and a
// foreground sleep.
const TREE = '(sleep 121; echo late > late) & sleep 120';

const treeMark = () => `${crypto.randomUUID()}-${process.pid}`;

// { pid, argv } of every live process whose environment holds TREE_VAR=mark
// (zombies are dead, and have no environment to read).
function markedProcesses(mark) {
  const entry = `${TREE_VAR}=${mark}`;
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      const state = stat.charAt(stat.lastIndexOf(')') + 2);
      if (state === 'Z' || state === 'X') continue;
      if (!fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) continue;
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').slice(0, -1);
      found.push({ pid: Number(name), argv });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

// Whether the tree's background writer runs and is visible here: the control
// that the scan sees the run's processes at all (a scan that could not read
// them would find every tree gone).
const writerRunning = (mark) => markedProcesses(mark)
  .some(({ argv }) => argv.length === 2 && argv[0] === 'sleep' && argv[1] === '121');

// No process of the run is left, within GONE_BOUND_MS; what is left when the
// bound is reached is killed, then the test fails.
async function assertTreeGone(mark) {
  const deadline = Date.now() + GONE_BOUND_MS;
  while (markedProcesses(mark).length > 0) {
    if (Date.now() > deadline) {
      const left = markedProcesses(mark);
      for (const { pid } of left) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      assert.fail(`the run's processes outlived it by ${GONE_BOUND_MS / 1000} s: ${JSON.stringify(left)}`);
    }
    await sleep(50);
  }
}

// Settles when `promise` does, either way, and says so in `state.settled`.
function watch(promise) {
  const state = { settled: false };
  promise.then(() => { state.settled = true; }, () => { state.settled = true; });
  return state;
}

test('a denied write renders the exact marker and leaves no file', async () => {
  const { ws } = workspace();
  const r = await confine.bash('echo x > f', opts(ws, { mode: 'read-only' }));
  assert.strictEqual(r.denied, true);
  assert.strictEqual(r.exitCode, 1);
  if (RUNNER) assert.strictEqual(r.runner, RUNNER);
  const lines = r.rendering.split('\n');
  assert.strictEqual(lines[0], '[stderr]');
  assert.deepStrictEqual(lines.slice(-3), ['[sandbox: file access denied under read-only mode]',
    `[denied: write ${path.join(ws, 'f')} (mode)]`, '[exit code: 1]']);
  assert.deepStrictEqual(r.denials, [{ op: 'write', path: path.join(ws, 'f'), address: null, clause: 'mode', reason: null }]);
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
  // The model is told what did not hold, one line after the output.
  if (b.clauses.every((c) => c.status === 'enforced')) assert.strictEqual(b.rendering, 'done\n');
  else assert.match(b.rendering, /^done\n\[sandbox: not enforced on this run: [^\n]+\]$/);
  assert.strictEqual(b.enforcement, b.clauses.every((c) => c.status === 'enforced') ? 'full' : 'partial');
  assert.strictEqual(fs.readFileSync(path.join(ws, 'g'), 'utf8'), 'bash content');
});

test('run: argv as given, cwd, and stdin/stdout byte for byte', async () => {
  const { ws } = workspace();
  fs.mkdirSync(path.join(ws, 'sub dir'));
  const r = await confine.run(['sh', '-c', 'pwd; cat; printf "%s|" "$@"', 'sh', "it's", '$HOME', 'a b'],
    opts(ws, { cwd: path.join(ws, 'sub dir'), stdin: 'in\n' }));
  assert.strictEqual(r.stdout, `${ws}/sub dir\nin\nit's|$HOME|a b|`);
  // NUL bytes, bytes that are not UTF-8, and more than any command line holds
  const big = Buffer.alloc(1024 * 1024 + 7);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
  // (64000 bytes are kept by default, as in Python and the library: more
  // is asked for; doc/SPEC.md 9)
  const echoed = await confine.run(['cat'], opts(ws, { stdin: big, maxOutput: 2 * big.length }));
  assert.strictEqual(echoed.exitCode, 0);
  assert.ok(echoed.stdoutBuffer.equals(big), 'stdout is not the bytes fed to stdin');
  assert.deepStrictEqual(echoed.truncated, { stdout: false, stderr: false });
  const streamed = await confine.run(['wc', '-c'], opts(ws, { stdin: Readable.from([big, big]) }));
  assert.strictEqual(streamed.stdout.trim(), String(2 * big.length));
  // stderr is the command's, without confine's outcome line
  const e = await confine.run(['sh', '-c', 'echo out; echo err >&2; exit 3'], opts(ws));
  assert.deepStrictEqual([e.exitCode, e.stdout, e.stderr], [3, 'out\n', 'err\n']);
  // the model-facing rendering, as the Python package's run() carries it
  assert.ok(e.rendering.startsWith('out\n[stderr]\nerr\n') && e.rendering.endsWith('\n[exit code: 3]'), e.rendering);
  const byDefault = await confine.run(['head', '-c', '70000', '/dev/zero'], opts(ws));
  assert.strictEqual(byDefault.stdoutBuffer.length, 64000);
  assert.deepStrictEqual(byDefault.truncated, { stdout: true, stderr: false });
  const cut = await confine.run(['head', '-c', '5000', '/dev/zero'], opts(ws, { maxOutput: 1000 }));
  assert.strictEqual(cut.stdoutBuffer.length, 1000);
  assert.deepStrictEqual(cut.truncated, { stdout: true, stderr: false });
  // a missing program: SPAWN_FAILED, 127, nothing ran
  await assert.rejects(confine.run(['confine-no-such-program'], opts(ws)), (err) => {
    assert.ok(err instanceof confine.SpawnFailedError);
    assert.deepStrictEqual([err.code, err.exitStatus], ['SPAWN_FAILED', 127]);
    assert.strictEqual(err.message, 'confine-no-such-program: command not found');
    return true;
  });
  await assert.rejects(confine.run([], opts(ws)), (err) => err instanceof confine.UsageError && err.code === 'USAGE');
  await assert.rejects(confine.run(['true'], opts(ws, { timeout: 0 })), confine.UsageError);
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
  // The timeout must fire while the tree runs, and on a loaded machine the
  // start can take longer than a short one: until the writer was seen
  // running, again with twice the time.
  for (let timeout = 500; ; timeout *= 2) {
    assert.ok(timeout <= 32000, 'the tree was never seen running before its timeout');
    const mark = treeMark();
    const pending = confine.run(['sh', '-c', TREE],
      opts(ws, { mode: 'workspace-write', timeout, env: { set: { [TREE_VAR]: mark } } }));
    const run = watch(pending);
    let seen = false;
    while (!run.settled && !seen) {
      seen = writerRunning(mark);
      await sleep(10);
    }
    const r = await pending;
    assert.strictEqual(r.timedOut, true);
    await assertTreeGone(mark);
    if (seen) break;
  }
  // The writer is dead, so it can never write.
  assert.ok(!fs.existsSync(path.join(ws, 'late')), 'a descendant outlived the timeout');
  const b = await confine.bash('sleep 60', opts(ws, { timeout: 300 }));
  assert.ok(b.rendering.split('\n').includes('[timed out after 300ms]'));
});

test('an aborted call ends the command', async () => {
  const { ws } = workspace();
  const mark = treeMark();
  const controller = new AbortController();
  const pending = confine.run(['sh', '-c', TREE],
    opts(ws, { mode: 'workspace-write', env: { set: { [TREE_VAR]: mark } }, signal: controller.signal }));
  const run = watch(pending);
  // until the tree runs (the bound only proves it started)
  const deadline = Date.now() + GONE_BOUND_MS;
  while (!writerRunning(mark)) {
    assert.ok(!run.settled, 'the run ended before it was seen');
    assert.ok(Date.now() < deadline, 'the run never started');
    await sleep(50);
  }
  controller.abort();
  await assert.rejects(pending, (e) => e.name === 'AbortError');
  await assertTreeGone(mark);
  assert.ok(!fs.existsSync(path.join(ws, 'late')), 'aborting left the run going');
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

  // both Linux rungs run the launcher (layered inside bwrap): its seccomp
  // deny-list is always among what it applies
  assert.ok(w.layers.includes('seccomp'), w.layers);

  const full = await confine.wrap(['echo', 'hi'], opts(ws, { mode: 'danger-full-access' }));
  assert.deepStrictEqual([full.argv, full.runner, full.layers], [['echo', 'hi'], null, []]);
});

test('wrap errors are typed', async () => {
  const { ws } = workspace();
  await assert.rejects(confine.wrap(['true'], opts(path.join(ws, 'missing'))), confine.InvalidPolicyError);
  await assert.rejects(confine.wrap(['true'], { workspace: ws, config: path.join(ws, 'no-config.json') }), confine.InvalidConfigError);
});

test('every policy option is forwarded; bad values are refused by name', async () => {
  const { ws, outside } = workspace();
  for (const command of ['run', 'bash', 'wrap']) {
    const help = spawnSync(confine.findConfine(), [command, '--help'], { encoding: 'utf8' }).stdout;
    for (const [option, spec] of Object.entries(confine.POLICY_OPTIONS)) {
      for (const flag of spec.flags) assert.ok(help.includes(flag), `${command} --help lacks ${flag} (${option})`);
    }
  }
  // wrap echoes every option back, canonical
  const w = await confine.wrap(['true'], opts(ws, {
    mode: 'workspace-write', writableRoots: [outside], protectedPaths: ['docs'], defaultProtections: false,
    unprotect: ['.envrc', '.idea/'],
    denyRead: [path.join(outside, 'secret')], network: 'off', allowUnixSockets: ['/run/confine-tests.sock'],
    env: { inherit: 'none', include: ['PATH'], exclude: ['X*'], set: { CI: '1' }, defaultExcludes: false },
    requireFull: false,
  }));
  assert.deepStrictEqual(w.policy, {
    mode: 'workspace-write', workspaceRoot: ws, writableRoots: [outside], protectedPaths: ['docs'],
    defaultProtections: false, unprotect: ['.envrc', '.idea'], denyRead: [path.join(outside, 'secret')],
    network: 'off', allowUnixSockets: ['/run/confine-tests.sock'],
    env: { inherit: 'none', include: ['PATH'], exclude: ['X*'], set: { CI: '1' }, defaultExcludes: false },
    requireFull: false, limits: { pids: 4096 },
  });
  assert.deepStrictEqual(w.env, { PATH: process.env.PATH, CI: '1' });
  // bad values: the CLI's INVALID_POLICY / USAGE, or the package's own check
  const notADir = path.join(ws, 'a-file');
  fs.writeFileSync(notADir, 'x');
  const bad = {
    writableRoots: [notADir], network: 'maybe', requireFull: 'yes',
    defaultProtections: 1, denyRead: [ws], env: { bogus: 1 }, limits: { pids: 0 },
    unprotect: ['.bogus'],
  };
  for (const [option, value] of Object.entries(bad)) {
    for (const call of [() => confine.run(['true'], opts(ws, { [option]: value })),
      () => confine.bash('true', opts(ws, { [option]: value })),
      () => confine.wrap(['true'], opts(ws, { [option]: value }))]) {
      await assert.rejects(call, (e) => e instanceof confine.InvalidPolicyError || e instanceof confine.UsageError, option);
    }
  }
  // the network allowlist (doc/SPEC.md 15): echoed as the object; a bad host
  // is the CLI's INVALID_POLICY naming it
  const n = await confine.wrap(['true'], opts(ws, { network: { allow: ['Registry.NPMJS.org'], deny: ['x.npmjs.org'], allowLocal: false } }));
  assert.deepStrictEqual(n.policy.network, { allow: ['registry.npmjs.org'], deny: ['x.npmjs.org'], allowLocal: false });
  await assert.rejects(confine.wrap(['true'], opts(ws, { network: { allow: ['https://x.org'] } })),
    (e) => e instanceof confine.InvalidPolicyError && e.message.includes('"https://x.org" has a scheme'));
  await assert.rejects(confine.wrap(['true'], opts(ws, { network: { hosts: [] } })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'network');
  await assert.rejects(confine.run(['true'], opts(ws, { writableRoots: [notADir] })),
    (e) => e instanceof confine.InvalidPolicyError && e.message.includes('writableRoots'));
  // one that does not exist is skipped, not refused (doc/SPEC.md 15)
  await confine.run(['true'], opts(ws, { writableRoots: [path.join(ws, 'missing')] }));
  await assert.rejects(confine.run(['true'], opts(ws, { writeableRoots: [ws] })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'writeableRoots');
  await assert.rejects(confine.run(['true'], opts(ws, { mode: 'read_only' })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'mode');
});

test('limits: every bad value is the CLI\'s INVALID_POLICY naming it; good ones reach the argv', async () => {
  const { ws } = workspace();
  for (const [key, value, words] of [['pids', 0, 'is zero'], ['pids', -1, 'is negative'],
    ['memory', 1.5, 'after the number'], ['memory', '2X', 'after the number'],
    ['cpuSeconds', 1e30, 'after the number'], ['openFiles', 'many', 'is not a number']]) {
    await assert.rejects(confine.wrap(['true'], opts(ws, { limits: { [key]: value } })),
      (e) => e instanceof confine.InvalidPolicyError && e.message.includes(`limits.${key}`) && e.message.includes(words),
      `${key} ${value}`);
  }
  await assert.rejects(confine.wrap(['true'], opts(ws, { limits: { forks: 5 } })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'limits');
  // a nested value is named by its path, as in Python (doc/SPEC.md 16)
  await assert.rejects(confine.wrap(['true'], opts(ws, { limits: { fileSize: true } })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'limits.fileSize');
  const w = await confine.wrap(['true'], opts(ws, { limits: { memory: '256M', cpuSeconds: 2, pids: null } }));
  assert.deepStrictEqual(w.policy.limits, { memory: 256 * 1024 * 1024, cpuSeconds: 2 });
  assert.ok(w.argv.includes('cpu=2'));
});

test('limits: a cpu limit stops a run end to end, and the result says so', async () => {
  // doc/SPEC.md 15, "Limits": a busy loop under cpuSeconds 1 ends with
  // SIGXCPU; the result names the limit, counts the CPU time, has the marker.
  const { ws } = workspace();
  const r = await confine.run(['sh', '-c', 'while :; do :; done'],
    opts(ws, { limits: { cpuSeconds: 1 }, timeout: 30000 }));
  assert.deepStrictEqual(r.limit, { name: 'cpuSeconds', value: 1, killed: true });
  assert.strictEqual(r.timedOut, false);
  // counted (not the outer bwrap's few ms); RLIMIT_CPU counts in ticks,
  // rusage in run time, which may read lower on a virtual machine
  assert.ok(r.usage.cpuSeconds >= 0.5, `cpuSeconds ${r.usage.cpuSeconds}`);
  assert.ok(r.rendering.includes('[sandbox: killed: cpu limit (1 s)]'), r.rendering);
  const clause = r.clauses.filter((c) => c.clause === 'limits.cpuSeconds');
  assert.deepStrictEqual(clause.map((c) => c.status), ['partial']);
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

test('a writable root: the write lands there, and only with it', async () => {
  const { ws, outside } = workspace();
  const r = await confine.run(['sh', '-c', `printf lands > '${outside}/f'`], opts(ws, { mode: 'workspace-write', writableRoots: [outside] }));
  assert.deepStrictEqual([r.exitCode, r.denied], [0, false]);
  assert.strictEqual(fs.readFileSync(path.join(outside, 'f'), 'utf8'), 'lands');
  const b = await confine.bash(`printf no > '${outside}/g'`, opts(ws, { mode: 'workspace-write' }));
  assert.strictEqual(b.denied, true);
  assert.ok(!fs.existsSync(path.join(outside, 'g')));
});

test('a confine of another version is a clear error, before anything runs', async () => {
  const dir = fs.mkdtempSync(path.join(base, 'fakebin-'));
  const fake = path.join(dir, 'confine');
  fs.writeFileSync(fake, '#!/bin/sh\necho "confine 9.9.9"\n', { mode: 0o755 });
  await assert.rejects(confine.bash('true', { bin: fake }),
    (e) => e.code === 'VERSION_MISMATCH' && /9\.9\.9/.test(e.message) && e.message.includes(require('../package.json').version));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('fs: the harness\'s own writes never follow a planted link out (doc/SPEC.md 19)', async () => {
  const { ws, outside } = workspace();
  const target = path.join(outside, 'bashrc');
  fs.writeFileSync(target, 'original\n');
  fs.symlinkSync(target, path.join(ws, 'notes.md'));
  fs.symlinkSync(outside, path.join(ws, 'dir'));
  const o = { workspace: ws, config: configPath };
  await assert.rejects(confine.fs.write('notes.md', 'pwned', o), (e) => e instanceof confine.DeniedError && /denied by mode/.test(e.message));
  await assert.rejects(confine.fs.write('dir/new', 'pwned', o), confine.DeniedError);
  await assert.rejects(confine.fs.write('../outside/new', 'pwned', o), confine.DeniedError);
  assert.strictEqual(fs.readFileSync(target, 'utf8'), 'original\n');
  assert.deepStrictEqual(fs.readdirSync(outside), ['bashrc']);
  await confine.fs.write('ok.txt', 'hello\n', o);
  assert.strictEqual((await confine.fs.read('ok.txt', o)).toString(), 'hello\n');
  assert.ok((await confine.fs.list('.', o)).some((e) => e.name === 'ok.txt' && e.type === 'file'));
  await assert.rejects(confine.fs.read('missing', o), confine.FsError);
  // a NUL would cut the argv word and name another file: the caller's error
  await assert.rejects(confine.fs.write('ok.txt\0/x', 'pwned', o), (e) => e instanceof confine.UsageError && e.code === 'USAGE' && /NUL/.test(e.message));
  assert.strictEqual((await confine.fs.read('ok.txt', o)).toString(), 'hello\n');
  // The unconfined control: a plain write follows the link out.
  fs.writeFileSync(path.join(ws, 'notes.md'), 'pwned\n');
  assert.strictEqual(fs.readFileSync(target, 'utf8'), 'pwned\n');
});

test('fs: what runs later is refused, gitHazards come back, maxBytes bounds the read (issue 28)', async () => {
  const { ws } = workspace();
  const o = { workspace: ws, config: configPath };
  for (const p of ['.bashrc', '.envrc', '.vscode/settings.json', '.claude/commands/x.md']) {
    await assert.rejects(confine.fs.write(p, 'touch pwned\n', o), (e) => e instanceof confine.DeniedError && /denied by defaultProtections/.test(e.message));
    assert.ok(!fs.existsSync(path.join(ws, p)));
  }
  assert.deepStrictEqual(await confine.fs.write('.envrc', 'x\n', { ...o, unprotect: ['.envrc'] }), []);
  assert.strictEqual(fs.readFileSync(path.join(ws, '.envrc'), 'utf8'), 'x\n');
  await assert.rejects(confine.fs.write('.envrc', 'x', { ...o, unprotect: ['.bogus'] }), (e) => e instanceof confine.InvalidPolicyError && /unprotect entry ".bogus"/.test(e.message));
  spawnSync('git', ['init', '-q', ws]);
  spawnSync('git', ['-C', ws, 'config', 'include.path', '../project.gitconfig']);
  assert.deepStrictEqual(await confine.fs.write('project.gitconfig', '[core]\n\tpager = touch x\n', o),
    [{ path: path.join(ws, 'project.gitconfig'), kind: 'core.pager' }]);
  assert.deepStrictEqual(await confine.fs.write('notes', 'x', o), []);
  // a sparse file past 4 GiB: confine reads 10 bytes of it, not the whole
  const big = path.join(ws, 'big');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 2 ** 32 + 16);
  assert.deepStrictEqual(await confine.fs.read('big', { ...o, maxBytes: 10 }), Buffer.alloc(10));
  await assert.rejects(confine.fs.read('big', { ...o, maxBytes: 2 ** 60 }), confine.UsageError);
  await assert.rejects(confine.fs.read('big', { ...o, maxBytes: -1 }), confine.UsageError);
  fs.unlinkSync(big);
});

test('denyRead pattern **/.env: each match a clause, the model told where it does not hold', async () => {
  const { ws } = workspace();
  const names = [path.join(ws, '.env'), path.join(ws, 'a', 'b', '.env')];
  fs.mkdirSync(path.join(ws, 'a', 'b'), { recursive: true });
  for (const name of names) fs.writeFileSync(name, 's3cret\n');
  const r = await confine.bash('cat .env a/b/.env', opts(ws, { mode: 'workspace-write', denyRead: ['**/.env'] }));
  const deny = r.clauses.filter((c) => c.clause === 'denyRead');
  const pattern = deny.filter((c) => c.subject === '**/.env');
  assert.strictEqual(pattern.length, 1);
  assert.strictEqual(pattern[0].status, 'partial');
  for (const name of names) assert.ok(deny.some((c) => c.subject === name), name);
  if (RUNNER === 'landlock') {
    assert.ok(r.rendering.includes('[sandbox: not enforced on this run: '));
    assert.ok(r.unenforced.includes('denyRead'));
  } else {
    assert.ok(!r.stdout.includes('s3cret'));
  }
});

test('denyRead: the file is unreadable', async () => {
  const { ws } = workspace();
  // Beside no directory that other tests create and remove (the Landlock
  // profile grants every sibling along the way, listed when it is built).
  const stable = path.join(path.dirname(root), 'confine-denyread', `node-${RUNNER || 'default'}`);
  fs.mkdirSync(stable, { recursive: true });
  const secret = path.join(stable, 'secret.txt');
  fs.writeFileSync(secret, 's3cr3t-value\n');
  try {
    const open = await confine.run(['cat', secret], opts(ws));
    assert.strictEqual(open.stdout, 's3cr3t-value\n');
    for (const mode of ['read-only', 'workspace-write']) {
      const r = await confine.run(['cat', secret], opts(ws, { mode, denyRead: [secret] }));
      assert.notStrictEqual(r.exitCode, 0);
      assert.ok(!(r.stdout + r.stderr).includes('s3cr3t'));
      assert.ok(!r.unenforced.includes('denyRead'));
    }
    const b = await confine.bash(`cat '${secret}'`, opts(ws, { denyRead: [stable] }));
    assert.ok(!b.rendering.includes('s3cr3t'));
  } finally {
    fs.rmSync(secret, { force: true });
    fs.rmdirSync(stable); // this rung's own; the shared parent stays
  }
});

test('denials name their object and clause, alike on both rungs; ordinary errors are none', async () => {
  const { ws } = workspace();
  spawnSync('git', ['init', '-q', ws]);
  const config = path.join(ws, '.git', 'config');
  const g = await confine.bash('git config foo.bar 1', opts(ws, { mode: 'workspace-write' }));
  if (RUNNER === 'landlock') {
    // defaultProtections are unenforced there: git config succeeds
    assert.deepStrictEqual([g.exitCode, g.denials], [0, []]);
  } else {
    assert.ok(g.stderr.includes('Device or resource busy'));
    assert.strictEqual(g.denied, true);
    assert.deepStrictEqual(g.denials, [{ op: 'write', path: config, address: null, clause: 'defaultProtections', reason: null }]);
    assert.ok(g.rendering.split('\n').includes(`[denied: write ${config} (defaultProtections)]`));
  }
  // Below denyRead (bwrap's mask: ENOENT; Landlock: EACCES), in a directory
  // beside which no other test makes entries.
  const stable = path.join(path.dirname(root), 'confine-denyread', `node-denials-${RUNNER || 'default'}`);
  fs.mkdirSync(path.join(stable, 'sub'), { recursive: true });
  const key = path.join(stable, 'sub', 'key');
  fs.writeFileSync(key, 's3cr3t-value\n');
  try {
    const r = await confine.bash(`cat '${key}'`, opts(ws, { denyRead: [stable] }));
    assert.ok(!r.stdout.includes('s3cr3t'));
    assert.strictEqual(r.denied, true);
    assert.deepStrictEqual(r.denials, [{ op: 'read', path: key, address: null, clause: 'denyRead', reason: null }]);
  } finally {
    fs.rmSync(key, { force: true });
  }
  // A refused connect, network off: its own marker, the address named.
  const server = net.createServer((socket) => socket.destroy());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  try {
    const n = await confine.bash(`exec 3<>/dev/tcp/127.0.0.1/${port}`, opts(ws, { network: 'off' }));
    assert.deepStrictEqual([n.networkDenied, n.denied], [true, false]);
    assert.deepStrictEqual(n.denials, [{ op: 'connect', path: null, address: `127.0.0.1:${port}`, clause: 'network', reason: null }]);
    assert.ok(n.rendering.includes(`[sandbox: network access denied under read-only mode]\n[denied: connect 127.0.0.1:${port} (network)]`));
    // the rendering is the CLI's, byte for byte
    const bin = confine.findConfine();
    const cli = spawnSync(bin, ['bash', '-w', ws, '--config', configPath, ...(RUNNER ? ['--runner', RUNNER] : []),
      '--network', 'off', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { encoding: 'utf8' }).stdout;
    assert.strictEqual(n.rendering.replace(/\n?$/, '\n'), cli);
  } finally {
    server.close();
  }
  // Ordinary errors are no denials.
  for (const command of ["echo 'git@github.com: Permission denied (publickey).' >&2; exit 255",
    'cat missing-file',
    "python3 -c \"import os; open('pf', 'w').close(); os.chmod('pf', 0); open('pf')\""]) {
    const o = await confine.bash(command, opts(ws, { mode: 'workspace-write' }));
    assert.notStrictEqual(o.exitCode, 0, command);
    assert.deepStrictEqual([o.denied, o.networkDenied, o.denials], [false, false, []], command);
  }
});

test('env: a secret variable is absent, set and include apply', async () => {
  const { ws } = workspace();
  const environ = { ...process.env, CONFINE_TEST_API_KEY: 'k-1', CONFINE_TEST_PLAIN: 'p-1', CONFINE_TEST_DROP: 'd-1' };
  const names = (text) => Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const r = await confine.run(['env'], opts(ws, { environ, env: { exclude: ['confine_test_drop'], set: { CONFINE_TEST_SET: 's-1' } } }));
  const seen = names(r.stdout);
  assert.ok(!('CONFINE_TEST_API_KEY' in seen) && !r.stdout.includes('k-1'));
  assert.ok(!('CONFINE_TEST_DROP' in seen));
  assert.strictEqual(seen.CONFINE_TEST_PLAIN, 'p-1');
  assert.strictEqual(seen.CONFINE_TEST_SET, 's-1');
  const b = await confine.bash('env', opts(ws, { environ, env: { inherit: 'none', include: ['PATH', 'CONFINE_TEST_API_KEY'] } }));
  const only = names(b.stdout);
  assert.strictEqual(only.CONFINE_TEST_API_KEY, 'k-1'); // include wins
  assert.ok(!('CONFINE_TEST_PLAIN' in only));
  const w = await confine.wrap(['env'], opts(ws, { environ }));
  assert.ok(!('CONFINE_TEST_API_KEY' in w.env));
  assert.strictEqual(w.env.CONFINE_TEST_PLAIN, 'p-1');
});

test('a config the run may write is refused (R4-F11)', async () => {
  const { ws } = workspace();
  const inside = path.join(ws, 'confine.json');
  fs.copyFileSync(configPath, inside);
  const marker = path.join(ws, 'r4f11-ran');
  for (const call of [() => confine.run(['touch', marker], opts(ws, { config: inside, mode: 'workspace-write' })),
    () => confine.wrap(['true'], opts(ws, { config: inside, mode: 'workspace-write' }))]) {
    await assert.rejects(call(), (e) => e instanceof confine.InvalidConfigError && e.message.includes(inside) &&
      e.message.includes("lies inside the run's writable root"));
  }
  assert.ok(!fs.existsSync(marker));
  const r = await confine.run(['true'], opts(ws, { config: inside, mode: 'read-only' }));
  assert.strictEqual(r.exitCode, 0); // read-only cannot write it: taken
});

test('env (R4-F5): session secrets, connection strings, _PASS, _PW, URL passwords are absent', async () => {
  const { ws } = workspace();
  const environ = { ...process.env, BW_SESSION: 'r4-bw', AZURE_STORAGE_CONNECTION_STRING: 'r4-az',
    SMTP_PASS: 'r4-smtp', DB_PW: 'r4-pw', PG_URL: 'postgres://a:r4-url@db/x',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/r4/bus', XDG_SESSION_TYPE: 'r4-tty' };
  const r = await confine.run(['env'], opts(ws, { environ }));
  for (const secret of ['r4-bw', 'r4-az', 'r4-smtp', 'r4-pw', 'r4-url']) assert.ok(!r.stdout.includes(secret), secret);
  const lines = r.stdout.split('\n');
  assert.ok(lines.includes('DBUS_SESSION_BUS_ADDRESS=unix:path=/r4/bus'));
  assert.ok(lines.includes('XDG_SESSION_TYPE=r4-tty'));
  const w = await confine.wrap(['env'], opts(ws, { environ }));
  assert.ok(!('PG_URL' in w.env) && !('BW_SESSION' in w.env));
  assert.strictEqual(w.env.XDG_SESSION_TYPE, 'r4-tty');
});

test('network off blocks a loopback TCP connect to a server this test runs', async () => {
  const { ws } = workspace();
  const accepted = []; // what each connection sent, in accept order
  const server = net.createServer((socket) => {
    const entry = { data: '' };
    accepted.push(entry);
    socket.on('data', (chunk) => { entry.data += chunk.toString('latin1'); });
    socket.on('error', () => {});
    socket.on('end', () => socket.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  // The connections accepted before one this test makes now: they are
  // accepted in order, so once the sentinel is in every connection a
  // finished run made has been counted (a rendezvous, not a pause; the bound
  // only proves the server runs).
  const acceptedBeforeASentinel = async () => {
    const sentinel = net.connect(port, '127.0.0.1');
    sentinel.on('error', () => {});
    sentinel.write('S');
    const deadline = Date.now() + GONE_BOUND_MS;
    let i;
    while ((i = accepted.findIndex((e) => e.data === 'S')) < 0) {
      assert.ok(Date.now() < deadline, 'the server stopped accepting');
      await sleep(10);
    }
    sentinel.destroy();
    return accepted.splice(0, i + 1).slice(0, i);
  };
  try {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    const on = await confine.run(['bash', '-c', probe], opts(ws, { timeout: 20000 }));
    assert.strictEqual(on.stdout, 'connected\n');
    assert.strictEqual((await acceptedBeforeASentinel()).length, 1);
    for (const mode of ['read-only', 'workspace-write']) {
      const off = await confine.run(['bash', '-c', probe], opts(ws, { mode, network: 'off', timeout: 20000 }));
      assert.notStrictEqual(off.exitCode, 0);
      assert.ok(!off.stdout.includes('connected'));
      assert.ok(!off.unenforced.includes('network'));
    }
    const b = await confine.bash(probe, opts(ws, { network: 'off' }));
    assert.notStrictEqual(b.exitCode, 0);
    assert.deepStrictEqual(await acceptedBeforeASentinel(), [], 'a connection got out with network off');
  } finally {
    server.close();
  }
});

test('requireFull refuses where the rung is partial; without it the run says partial', async () => {
  const { ws } = workspace();
  // A denyRead inside the workspace: Landlock cannot carve it out of a write
  // grant, and bwrap's mask sits on a name a save on the host replaces
  // (doc/SPEC.md 15): partial on both rungs.
  const envFile = path.join(ws, '.env');
  fs.writeFileSync(envFile, 'K=v\n');
  const r = await confine.run(['sh', '-c', 'touch ran'], opts(ws, { mode: 'workspace-write', denyRead: [envFile] }));
  assert.deepStrictEqual([r.exitCode, r.enforcement], [0, 'partial']);
  assert.ok(r.unenforced.includes('denyRead'));
  fs.rmSync(path.join(ws, 'ran'));
  const title = { bwrap: 'bubblewrap', landlock: 'Landlock' }[RUNNER];
  for (const call of [
    () => confine.run(['sh', '-c', 'touch ran'], opts(ws, { mode: 'workspace-write', denyRead: [envFile], requireFull: true })),
    () => confine.bash('touch ran', opts(ws, { mode: 'workspace-write', denyRead: [envFile], requireFull: true })),
    () => confine.wrap(['sh', '-c', 'touch ran'], opts(ws, { mode: 'workspace-write', denyRead: [envFile], requireFull: true })),
  ]) {
    await assert.rejects(call, (e) => {
      assert.ok(e instanceof confine.SandboxUnavailableError);
      // The clauses that stop it, with their subjects (doc/SPEC.md 15).
      if (title) {
        assert.ok(e.runnerFailure.startsWith(`requireFull: ${title} does not enforce `), e.runnerFailure);
        assert.ok(e.runnerFailure.includes('denyRead ('), e.runnerFailure);
      }
      // requireFull's own text (doc/SPEC.md 2), never "Install bubblewrap".
      assert.strictEqual(e.message, `sandbox mode "workspace-write" is requested with requireFull, and the sandbox this host offers does not enforce the whole policy; refusing to run the command with less. Drop requireFull to run it with enforcement "partial", or change the policy or the host so that the clause named below holds. Runner failure: ${e.runnerFailure}`);
      return true;
    });
  }
  assert.ok(!fs.existsSync(path.join(ws, 'ran')), 'it ran partial');
});

test('bash --json fields: gitHazards, per-stream truncation, unenforced', async () => {
  const { ws } = workspace();
  const r = await confine.bash("mkdir -p repo/.git/hooks && printf '#!/bin/sh\\n' > repo/.git/hooks/pre-commit",
    opts(ws, { mode: 'workspace-write' }));
  assert.strictEqual(r.exitCode, 0);
  assert.deepStrictEqual(r.gitHazards, [{ path: path.join(ws, 'repo', '.git', 'hooks', 'pre-commit'), kind: 'hook' }]);
  // a repository that exists when a run starts has its hooks kept read-only
  // on bwrap: this run makes a new one (allowed, reported)
  const run = await confine.run(['sh', '-c', 'mkdir -p repo2/.git/hooks && printf x > repo2/.git/hooks/post-commit'], opts(ws, { mode: 'workspace-write' }));
  assert.deepStrictEqual(run.gitHazards, [{ path: path.join(ws, 'repo2', '.git', 'hooks', 'post-commit'), kind: 'hook' }]);
  const big = await confine.bash('head -c 70000 /dev/zero | tr "\\0" a; echo e >&2', opts(ws));
  assert.deepStrictEqual(big.truncated, { stdout: true, stderr: false });
  assert.ok(Array.isArray(big.unenforced));
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
