#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// A minimal "shell tool" an LLM agent calls, confined by confine (Node).
//
// Every command runs read-only. A command runs with workspace-write only
// when the model asks for it (write: true) *and* the approval callback says
// yes. The model gets confine's rendering back (stdout, [stderr], the
// markers), so it sees why a write failed and can ask for approval. When
// nothing can confine here, SANDBOX_UNAVAILABLE comes back to the model as
// an error: the tool never switches to danger-full-access by itself.
//
// Runs offline: the "model" is a scripted fake. --check asserts the
// transcript (the Meson suite runs it); --unavailable simulates a host
// where the sandbox cannot run (a pinned Landlock launcher that does not
// exist).
//
//   node examples/node_agent.mjs [--workspace DIR] [--keep] [--check] [--unavailable]
//
// Without --workspace it works in a fresh directory under ~/.cache, removed
// when it ends (whatever the outcome) unless --keep is given. `confine` is
// $CONFINE_BIN, the installed one, or else this checkout's build
// (build/src/cli/confine, after `make demo`).
//
// A user of the npm package writes `import confine from 'confine'`.
import confine from '../bindings/node/index.js';
import assert from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function makeShellTool({ workspace, approve, config, runner, bin, timeout = 60000 }) {
  return async function shell({ command, write = false }) {
    let mode = 'read-only';
    if (write) {
      if (!(await approve(command, 'workspace-write'))) {
        return '[not approved: workspace-write was refused; nothing ran]';
      }
      mode = 'workspace-write';
    }
    try {
      const result = await confine.bash(command, { mode, workspace, timeout, config, runner, bin });
      return result.rendering;
    } catch (e) {
      if (e instanceof confine.SandboxUnavailableError) {
        // An error for the model and the person; no retry unconfined.
        return `[error: SANDBOX_UNAVAILABLE] ${e.message}`;
      }
      if (e instanceof confine.ConfineError) return `[error: ${e.code}] ${e.message}`;
      throw e;
    }
  };
}

// A scripted stand-in for an LLM: reads each observation, picks the next call.
function fakeModel() {
  let step = 0;
  return (observation) => {
    step += 1;
    if (step === 1) return { command: 'ls -a && echo listed' };
    if (step === 2) return { command: "echo 'hello from the agent' > notes.txt" };
    if (step === 3) {
      return observation.includes('[sandbox: file access denied')
        ? { command: "echo 'hello from the agent' > notes.txt", write: true } : null;
    }
    if (step === 4) return { command: 'cat notes.txt' };
    return null;
  };
}

async function agentLoop(shell, model) {
  const transcript = [];
  let observation = null;
  for (;;) {
    const call = model(observation);
    if (!call) return transcript;
    observation = await shell(call);
    transcript.push({ call, observation });
    console.log(`model> shell(${JSON.stringify(call.command)}, write=${!!call.write})`);
    console.log(`tool>  ${observation.replace(/\n/g, '\n       ')}`);
  }
}

// The confine to run: none named here when $CONFINE_BIN or an installed one
// is found; else this checkout's build, if there is one.
function checkoutConfine() {
  try {
    confine.findConfine();
    return undefined;
  } catch {
    const built = fileURLToPath(new URL('../build/src/cli/confine', import.meta.url));
    return fs.existsSync(built) ? built : undefined;
  }
}

async function main(argv) {
  const check = argv.includes('--check');
  const unavailable = argv.includes('--unavailable');
  const keep = argv.includes('--keep');
  const at = argv.indexOf('--workspace');
  let workspace = at >= 0 ? argv[at + 1] : null;
  const made = !workspace;
  // The example's own files (a fresh workspace, a config) in one directory
  // under $HOME, not /tmp: a workspace-write root under the host's /tmp is
  // refused on the Landlock rung.
  const base = path.join(os.homedir(), '.cache');
  fs.mkdirSync(base, { recursive: true });
  const own = fs.mkdtempSync(path.join(base, 'confine-node-agent.'));
  // Removed however the example ends: its end, a failed check, an uncaught
  // error (process 'exit'), Ctrl-C or a TERM.
  const cleanup = () => {
    if (made && keep) fs.rmSync(path.join(own, 'config.json'), { force: true });
    else fs.rmSync(own, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]]) {
    process.on(signal, () => process.exit(128 + number));
  }
  if (made) {
    workspace = path.join(own, 'workspace');
    fs.mkdirSync(workspace);
  }
  await run({ workspace, own, check, unavailable });
  if (made && keep) console.log(`workspace kept: ${workspace}`);
}

async function run({ workspace, own, check, unavailable }) {
  let config;
  let runner;
  if (unavailable) {
    config = path.join(own, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ landlockLauncher: '/nonexistent/landlock-run' }));
    runner = 'landlock';
  }
  const approvals = [];
  const approve = async (command, mode) => {
    approvals.push(command);
    console.log(`approval> ${mode} for ${JSON.stringify(command)}: yes (scripted)`);
    return true;
  };
  const bin = checkoutConfine();
  const transcript = await agentLoop(makeShellTool({ workspace, approve, config, runner, bin }), fakeModel());
  if (!check) return;
  const notes = path.join(workspace, 'notes.txt');
  if (unavailable) {
    assert.ok(transcript.every((t) => t.observation.startsWith('[error: SANDBOX_UNAVAILABLE] sandbox mode')));
    assert.strictEqual(transcript.length, 2, 'the agent escalated on SANDBOX_UNAVAILABLE');
    assert.ok(approvals.length === 0 && !fs.existsSync(notes));
  } else {
    assert.ok(transcript[0].observation.includes('listed'));
    // the marker, then what was refused: what an approval would grant
    const refused = path.join(fs.realpathSync(workspace), 'notes.txt');
    assert.ok(transcript[1].observation.endsWith('[sandbox: file access denied under read-only mode]\n' +
      `[denied: write ${refused} (mode)]\n[exit code: 1]`));
    assert.deepStrictEqual(approvals, ["echo 'hello from the agent' > notes.txt"]);
    assert.strictEqual(transcript[3].observation, 'hello from the agent\n');
    assert.strictEqual(fs.readFileSync(notes, 'utf8'), 'hello from the agent\n');
  }
  console.log(`ok - node agent example (${unavailable ? 'unavailable' : 'confined'})`);
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e);
  process.exit(1);
});
