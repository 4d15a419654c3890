// SPDX-License-Identifier: MIT
// The Node door of tests/golden/doors.py. With bad-inputs.json: calls the
// Node package once per row that has a `node` entry and prints one JSON
// line per row: {name, code, option, message} for a refusal, {name, ran}
// for a call that did not refuse. With accepted-inputs.json: wrap() with
// the row's options, {name, policy} (or the error). Usage:
// node node-door.js bad|accepted TABLE WS OUT
'use strict';

const path = require('node:path');
const fs = require('node:fs');
const confine = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const [kind, table, ws, out] = process.argv.slice(2);
const rows = JSON.parse(fs.readFileSync(table, 'utf8')).rows;

/** {ws} replaced everywhere in a JSON value. */
function place(value) {
  if (typeof value === 'string') return value.split('{ws}').join(ws).split('{out}').join(out);
  if (Array.isArray(value)) return value.map(place);
  // Text that is not UTF-8 (table.py's non-UTF-8 case): a lone surrogate.
  if (value && typeof value === 'object' && value.$lone === true) return 'caf\ud800';
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, place(v)]));
  }
  return value;
}

async function call(entry) {
  const { argv, command, ...options } = place(entry.args);
  const marker = path.join(ws, 'ran');
  const opts = { workspace: ws, mode: 'workspace-write', ...options };
  switch (entry.call) {
    case 'run': return confine.run(argv === undefined ? ['touch', marker] : argv, opts);
    case 'bash': return confine.bash(command === undefined ? `touch ${marker}` : command, opts);
    case 'wrap': return confine.wrap(argv === undefined ? ['true'] : argv, opts);
    default: throw new Error(`unknown call ${entry.call}`);
  }
}

// An accepted value reaches the ladder: the config file doors.py wrote
// names the staged launcher (a build's under /tmp is not trusted).
const config = process.env.CONFINE_TEST_DOOR_CONFIG || undefined;

async function accepted() {
  for (const row of rows) {
    try {
      const w = await confine.wrap(['true'], { workspace: ws, mode: 'workspace-write', config, ...place(row.node) });
      console.log(JSON.stringify({ name: row.name, policy: w.policy }));
    } catch (e) {
      console.log(JSON.stringify({ name: row.name, code: e.code || null, message: String(e.message) }));
    }
  }
}

async function main() {
  if (kind === 'accepted') return accepted();
  for (const row of rows) {
    if (!row.node) continue;
    try {
      await call(row.node);
      console.log(JSON.stringify({ name: row.name, ran: true }));
    } catch (e) {
      console.log(JSON.stringify({ name: row.name, code: e.code || null, option: e.option || null,
        message: String(e.message), type: e.name }));
    }
  }
}

main().catch((e) => {
  console.error(e.stack || e);
  process.exit(1);
});
