// SPDX-License-Identifier: MIT
// SPEC 8's stderr classifiers against tests/golden/classifiers.json, the
// cases the C unit suite (classify-golden) and the Python suite also run:
// classifyRunnerFailure and classifyDenial (what wrap().runnerFailure and
// wrap().denied call) must give the library's answers. Needs no sandbox.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const confine = require('..');

const golden = require(path.join(__dirname, '..', '..', '..', 'tests', 'golden', 'classifiers.json'));

test('the golden cases hold', () => {
  assert.ok(golden.cases.length >= 30);
  for (const c of golden.cases) {
    const status = c.signal ? null : c.exit;
    for (const stderr of [c.stderr, Buffer.from(c.stderr, 'utf8')]) {
      assert.strictEqual(confine.classifyRunnerFailure(golden.rules[c.rules], status, stderr), c.runnerFailure,
        `${c.name}: runnerFailure`);
      assert.strictEqual(confine.classifyDenial(golden.dialects[c.dialect], status, stderr), c.denied,
        `${c.name}: denied`);
    }
  }
});

test('a status that is not an exit code is refused', () => {
  assert.throws(() => confine.classifyDenial(['permission denied'], '1', 'x'),
    (e) => e instanceof confine.UsageError && e.option === 'status');
  assert.throws(() => confine.classifyRunnerFailure([], 1.5, 'x'), confine.UsageError);
});
