// SPDX-License-Identifier: MIT
'use strict';

/*
 * The table of options (doc/SPEC.md 15, "The table of options"):
 * ../options.json is `confine options --json`, one row per option with its
 * config key, CLI flag, Python and Node names, type, bounds and default,
 * made from src/common/options.def (the test `options table` requires the
 * copy to equal the command's output). The package takes its option names
 * and flags from here instead of restating them.
 */
const ROWS = require('../options.json').options;

const head = (name) => name.split('.')[0];
const leaf = (name) => name.split('.').pop();

/** The rows of doc/SPEC.md 15 the Node package takes as policy options
 * (the decider, askHost, is the run's: an option of run and bash). */
const policyRows = () => ROWS.filter((r) => r.spec === '15' && r.node && r.type !== 'decider');

/** The policy options of run(), bash() and wrap(), in the table's order
 * ("network" for network.allow: the head of a dotted name). */
const policyOptions = () => [...new Set(policyRows().map((r) => head(r.node)))];

/** The rows inside the object `option` takes (env: inherit, include, ...). */
const under = (option) => policyRows().filter((r) => r.node.startsWith(`${option}.`));

/** The row of the Node option `name` (dotted), or undefined. */
const row = (name) => ROWS.find((r) => r.node === name);

module.exports = { ROWS, policyRows, policyOptions, under, row, leaf, head };
