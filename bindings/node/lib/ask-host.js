// SPDX-License-Identifier: MIT
'use strict';

/*
 * The run's decider (doc/SPEC.md 15, "Ask"): `askHost` on run() and
 * bash(), the table's name for the CLI's `--ask-host COMMAND`. The package
 * reaches the library through `confine`, so the decider is a COMMAND: a
 * relay script this module writes for the run in a directory of its own
 * (mode 0700), which `confine` runs as `RELAY HOST PORT`; it asks this
 * process over a unix socket beside it (./ask-relay.js), prints the
 * reason and exits 0 to allow. `askHost(host, port)` may be async; it
 * returns true, false or {allow, reason}. It throwing, answering anything
 * else, or not answering within ANSWER_MS refuses the host with a reason
 * saying which (fail closed). ANSWER_MS is both packages' 20 s, inside the
 * CLI's 25 s for its COMMAND and the proxy's 30 s.
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { InvalidPolicyError, UsageError } = require('./errors');
const { show, typeName } = require('./values');

const state = { answerMs: 20000 };

/** The call's decider, checked: a function or null. wrap() takes none
 * (its argv is spawned by another process, which has no one to ask: the
 * CLI's `wrap --ask-host` is the same usage error). */
function checkAskHost(value, call) {
  if (value === undefined || value === null) return null;
  if (call === 'wrap') {
    throw new UsageError("option 'askHost' is for run and bash only: a wrap argv is spawned by another process, which has no decider to ask", { option: 'askHost' });
  }
  if (typeof value !== 'function') {
    throw new InvalidPolicyError(`policy option 'askHost': expected a function (host, port) => boolean or {allow, reason}, not ${typeName(value)}`, { option: 'askHost' });
  }
  return value;
}

/** [allow, reason] of what the decider answered; anything but a boolean
 * (alone or as `allow`) refuses. */
function verdict(answer) {
  let allow = answer;
  let reason = '';
  if (answer && typeof answer === 'object' && !Array.isArray(answer)) {
    allow = answer.allow;
    reason = answer.reason === undefined || answer.reason === null ? '' : String(answer.reason);
  }
  if (typeof allow !== 'boolean') {
    return [false, `the decider answered ${show(answer).slice(0, 80)}, not true, false or {allow, reason}`];
  }
  return [allow, reason];
}

/** [allow, reason] within the bound. */
async function answer(askHost, host, port) {
  const seconds = state.answerMs / 1000;
  let timer = null;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve([false, `the decider did not answer within ${seconds} s`]), state.answerMs);
  });
  const asked = (async () => verdict(await askHost(host, port)))().catch((e) => [false,
    `the decider threw ${e && e.name ? e.name : typeName(e)}: ${e && e.message !== undefined ? e.message : String(e)}`]);
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One line, control characters as spaces. */
const oneLine = (text) => String(text).split(/\r?\n/)[0].replace(/[\x00-\x1f\x7f]/g, ' ');

/** A single-quoted shell word. */
const quote = (word) => `'${word.split("'").join("'\\''")}'`;

/**
 * Starts the relay for a run with `askHost` (null: nothing to start).
 * Resolves to {args: ['--ask-host', RELAY], close()}; close() stops the
 * socket and removes the directory.
 */
async function startAsker(askHost) {
  if (!askHost) return { args: [], close() {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'confine-ask-'));
  fs.chmodSync(dir, 0o700);
  const socket = path.join(dir, 'ask.sock');
  const relay = path.join(dir, 'ask');
  const server = net.createServer((conn) => {
    let input = '';
    conn.setEncoding('utf8');
    conn.on('error', () => {});
    conn.on('data', async (chunk) => {
      input += chunk;
      const end = input.indexOf('\n');
      if (end < 0) return;
      const [host, portText] = input.slice(0, end).split(' ');
      const [allow, reason] = await answer(askHost, host, Number(portText));
      conn.end(`${allow ? 'allow' : 'deny'} ${oneLine(reason)}\n`);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  fs.writeFileSync(relay, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(path.join(__dirname, 'ask-relay.js'))} ${quote(socket)} "$@"\n`,
    { mode: 0o700 });
  return {
    args: ['--ask-host', relay],
    close() {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { checkAskHost, startAsker, verdict, state };
