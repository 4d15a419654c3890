// SPDX-License-Identifier: MIT
// The Node package's staged runs (doc/SPEC.md 21): run()/bash() with
// `stage` write nowhere but the stage, and the result's `stage` lists,
// patches, applies and discards, on disk under the real kernel, on the
// pinned rung (environment as confine.test.js: CONFINE_BIN,
// CONFINE_TEST_RUNNER, CONFINE_TEST_LAUNCHER).
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
const root = path.join(process.env.HOME || os.tmpdir(), '.cache', 'confine-tests');
fs.mkdirSync(root, { recursive: true });
const base = fs.mkdtempSync(path.join(root, 'node-stage.'));
const configPath = path.join(base, 'config.json');
fs.writeFileSync(configPath, JSON.stringify(LAUNCHER ? { landlockLauncher: LAUNCHER } : {}));
// A stage left undiscarded holds overlayfs's work/work, mode 000: root
// removes it anyway, another user must give itself the bits first.
test.after(() => {
  spawnSync('chmod', ['-R', 'u+rwX', base]);
  fs.rmSync(base, { recursive: true, force: true });
});

let n = 0;
function tree() {
  const dir = path.join(base, `t${n++}`);
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  for (const [name, text] of [['mod.txt', 'one\n'], ['gone.txt', 'bye\n'], ['old-name.txt', 'moving\n'],
    ['run.sh', 'echo hi\n'], ['same.txt', 'untouched\n']]) {
    fs.writeFileSync(path.join(ws, name), text);
  }
  fs.chmodSync(path.join(ws, 'run.sh'), 0o644);
  return { ws, stage: path.join(dir, 'stage'), dir };
}
const opts = (ws, extra = {}) => ({ workspace: ws, runner: RUNNER, config: configPath, ...extra });

// Every entry below top: type, permission bits, bytes or link target.
function snapshot(top) {
  const out = {};
  const walk = (d) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const rel = path.relative(top, p);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = ['l', fs.readlinkSync(p)];
      else if (st.isDirectory()) {
        out[rel] = ['d', st.mode & 0o7777];
        walk(p);
      } else out[rel] = ['f', st.mode & 0o7777, fs.readFileSync(p).toString('hex')];
    }
  };
  walk(top);
  return out;
}

const CHANGES = 'echo new > new.txt; echo more >> mod.txt; rm gone.txt; mv old-name.txt new-name.txt; ' +
  'chmod 755 run.sh; ln -s mod.txt link; mkdir dir; echo inner > dir/inner.txt';

test('run() with stage: the real tree is untouched, changes lists each, apply and discard', async () => {
  const { ws, stage, dir } = tree();
  const before = snapshot(ws);
  // The control: unstaged, the same command changes the real tree.
  const control = tree();
  const c = await confine.run(['sh', '-c', CHANGES], opts(control.ws, { mode: 'workspace-write' }));
  assert.strictEqual(c.exitCode, 0, c.stderr);
  assert.notDeepStrictEqual(snapshot(control.ws), snapshot(ws), 'unstaged, the command writes the real tree');

  const r = await confine.run(['sh', '-c', `${CHANGES}; ls -l >/dev/null`], opts(ws, { stage }));
  assert.strictEqual(r.exitCode, 0, r.stderr);
  assert.strictEqual(r.mode, 'workspace-write', 'a stage means workspace-write without mode');
  assert.ok(r.stage instanceof confine.Stage);
  assert.strictEqual(r.stage.path, stage);
  assert.deepStrictEqual(snapshot(ws), before, 'the real tree is byte-identical after the staged run');
  assert.strictEqual(fs.statSync(stage).mode & 0o777, 0o700);
  const clause = r.clauses.find((x) => x.clause === 'stage');
  assert.ok(clause && clause.status === 'enforced' && clause.subject === stage, JSON.stringify(r.clauses));

  const changes = await r.stage.changes;
  const got = changes.map((x) => `${x.change} ${x.path}`).sort();
  assert.deepStrictEqual(got, ['added dir', 'added dir/inner.txt', 'added new.txt', 'deleted gone.txt',
    'mode run.sh', 'modified mod.txt', 'renamed new-name.txt', 'symlink link'].sort());
  const renamed = changes.find((x) => x.change === 'renamed');
  assert.strictEqual(renamed.from, 'old-name.txt');
  assert.strictEqual(changes.find((x) => x.path === 'run.sh').mode, 0o755);
  assert.ok(changes.every((x) => x.git === false && typeof x.binary === 'boolean'));

  // The patch: git apply --check accepts it on a copy, and git apply gives
  // what the command saw (the unstaged control's tree).
  const patch = await r.stage.patch();
  assert.match(patch, /^diff --git /m);
  const copy = path.join(dir, 'copy');
  fs.cpSync(ws, copy, { recursive: true, verbatimSymlinks: true });
  const check = spawnSync('git', ['apply', '--check', '-'], { cwd: copy, input: patch });
  assert.strictEqual(check.status, 0, `${check.stderr}\n${patch}`);
  const applied = spawnSync('git', ['apply', '-'], { cwd: copy, input: patch });
  assert.strictEqual(applied.status, 0, String(applied.stderr));
  const seen = snapshot(control.ws);
  delete seen.dir; // git knows no directory modes; compare files and links
  const fromPatch = snapshot(copy);
  delete fromPatch.dir;
  assert.deepStrictEqual(fromPatch, seen);

  // apply(paths): only those; the rest stays staged.
  const some = await r.stage.apply(['new.txt', 'dir']);
  assert.deepStrictEqual(some.map((x) => [x.path, x.outcome]).sort(),
    [['dir', 'applied'], ['dir/inner.txt', 'applied'], ['new.txt', 'applied']]);
  assert.strictEqual(fs.readFileSync(path.join(ws, 'new.txt'), 'utf8'), 'new\n');
  assert.ok(!fs.existsSync(path.join(ws, 'link')), 'an unnamed change is not applied');
  assert.strictEqual((await r.stage.changes).length, 5);
  const rest = await r.stage.apply();
  assert.ok(rest.every((x) => x.outcome === 'applied' && x.message === null), JSON.stringify(rest));
  assert.deepStrictEqual(snapshot(ws), snapshot(control.ws), 'after apply the tree is what the command saw');
  assert.deepStrictEqual(await r.stage.changes, []);
  assert.ok(fs.existsSync(stage), 'apply keeps the stage');
  await r.stage.discard();
  assert.ok(!fs.existsSync(stage), 'discard removes the stage');
});

test('bash() with stage, then discard: the tree is as before and the stage gone', async () => {
  const { ws, stage } = tree();
  const before = snapshot(ws);
  const r = await confine.bash('echo x > new.txt; rm gone.txt; echo y >> mod.txt', opts(ws, { stage }));
  assert.strictEqual(r.exitCode, 0, r.stderr);
  assert.deepStrictEqual((await r.stage.changes).map((x) => x.path).sort(), ['gone.txt', 'mod.txt', 'new.txt']);
  await r.stage.discard();
  assert.ok(!fs.existsSync(stage));
  assert.deepStrictEqual(snapshot(ws), before);
});

test('a host-side edit is a named conflict; the rest is applied; overwrite applies it', async () => {
  const { ws, stage } = tree();
  const r = await confine.run(['sh', '-c', 'echo staged >> mod.txt; echo staged > same.txt'], opts(ws, { stage }));
  assert.strictEqual(r.exitCode, 0, r.stderr);
  fs.writeFileSync(path.join(ws, 'mod.txt'), 'host edit\n');
  const results = Object.fromEntries((await r.stage.apply()).map((x) => [x.path, x]));
  assert.strictEqual(results['mod.txt'].outcome, 'conflict');
  assert.match(results['mod.txt'].message, /mod\.txt changed on the host/);
  assert.strictEqual(results['same.txt'].outcome, 'applied');
  assert.strictEqual(fs.readFileSync(path.join(ws, 'mod.txt'), 'utf8'), 'host edit\n');
  assert.strictEqual(fs.readFileSync(path.join(ws, 'same.txt'), 'utf8'), 'staged\n');
  const again = await new confine.Stage(stage).apply(['mod.txt'], { overwrite: true });
  assert.deepStrictEqual(again.map((x) => [x.path, x.outcome]), [['mod.txt', 'applied']]);
  assert.strictEqual(fs.readFileSync(path.join(ws, 'mod.txt'), 'utf8'), 'one\nstaged\n');
});

test('F4: host work below a deleted directory is a conflict; nothing of it is deleted', async () => {
  for (const host of [false, true]) {
    const { ws, stage } = tree();
    fs.mkdirSync(path.join(ws, 'd', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'd', 'sub', 'old'), 'keep\n');
    const r = await confine.bash('rm -rf d', opts(ws, { stage }));
    assert.strictEqual(r.exitCode, 0, r.stderr);
    if (host) {
      fs.appendFileSync(path.join(ws, 'd', 'sub', 'old'), 'host edit\n');
      fs.writeFileSync(path.join(ws, 'd', 'sub', 'new'), 'host work\n');
    }
    const before = snapshot(ws);
    const results = await r.stage.apply();
    if (!host) {
      // The control: the directory goes whole.
      assert.deepStrictEqual(results.map((x) => [x.path, x.outcome]), [['d', 'applied']]);
      assert.ok(!fs.existsSync(path.join(ws, 'd')));
      continue;
    }
    assert.deepStrictEqual(results.map((x) => [x.path, x.outcome]), [['d', 'conflict']]);
    assert.match(results[0].message, /^conflict: .*\/d\/sub changed on the host since the run began/);
    assert.deepStrictEqual(snapshot(ws), before, 'apply deleted nothing');
  }
});

test('changes under .git are listed apart, and a hook is refused at apply', async () => {
  const { ws, stage } = tree();
  assert.strictEqual(spawnSync('git', ['init', '-q', ws]).status, 0);
  const r = await confine.bash('echo x > fine.txt; echo evil > .git/hooks/post-checkout; echo y > .git/description',
    opts(ws, { stage }));
  const changes = await r.stage.changes;
  const git = changes.filter((x) => x.git).map((x) => x.path).sort();
  assert.ok(git.includes('.git/description'), JSON.stringify(changes));
  assert.deepStrictEqual(changes.filter((x) => !x.git).map((x) => x.path), ['fine.txt']);
  const results = Object.fromEntries((await r.stage.apply()).map((x) => [x.path, x.outcome]));
  assert.strictEqual(results['fine.txt'], 'applied');
  if (results['.git/hooks/post-checkout']) assert.strictEqual(results['.git/hooks/post-checkout'], 'refused');
  assert.ok(!fs.existsSync(path.join(ws, '.git', 'hooks', 'post-checkout')), 'no hook lands');
});

test('stage values are checked before anything runs, as at the other doors', async () => {
  const { ws, stage } = tree();
  await assert.rejects(confine.run(['true'], opts(ws, { stage: 42 })),
    (e) => e instanceof confine.InvalidPolicyError && e.option === 'stage' && /42/.test(e.message));
  // Empty: USAGE, as `confine run --stage ''` says.
  await assert.rejects(confine.run(['true'], opts(ws, { stage: '' })),
    (e) => e instanceof confine.UsageError && e.option === 'stage');
  await assert.rejects(confine.wrap(['true'], opts(ws, { stage })),
    (e) => e instanceof confine.UsageError && e.option === 'stage');
  // Inside the workspace: the CLI's refusal, nothing runs, no stage left.
  const inside = path.join(ws, 'st');
  await assert.rejects(confine.run(['sh', '-c', 'echo no > new.txt'], opts(ws, { stage: inside })),
    (e) => e instanceof confine.ConfineError && /stage/.test(e.message));
  assert.ok(!fs.existsSync(path.join(ws, 'new.txt')) && !fs.existsSync(inside));
  // Not a stage: the CLI's error, typed.
  await assert.rejects(new confine.Stage(ws).changes, (e) => e instanceof confine.ConfineError && /no stage/.test(e.message));
  await assert.rejects(new confine.Stage(stage).apply('x'), (e) => e instanceof confine.UsageError && e.option === 'paths');
});
