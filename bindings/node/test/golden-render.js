// SPDX-License-Identifier: MIT
// run()'s rendering (lib/render.js) against tests/golden/render.json, the
// cases the C unit suite renders with confine_bash_render(): the library's
// text, byte for byte (doc/SPEC.md 9).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const fs = require('node:fs');
const { render } = require('../lib/render');

const table = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'tests', 'golden', 'render.json'), 'utf8'));

test('the golden renderings', () => {
  assert.ok(table.rows.length > 10);
  for (const row of table.rows) {
    const result = {
      stdout: row.stdout, stderr: row.stderr, mode: row.mode || 'read-only',
      denied: !!row.denied, networkDenied: !!row.networkDenied, denials: row.denials || [],
      limit: row.limit || null, clauses: row.clauses || [], timedOut: !!row.timedOut,
      signal: row.signal || null, exitCode: row.signal ? null : row.exitCode,
      truncated: row.truncated || { stdout: false, stderr: false },
    };
    assert.strictEqual(render(result, row.timeoutMs || 0), row.expected, row.name);
  }
});
