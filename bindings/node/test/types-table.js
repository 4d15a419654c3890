// SPDX-License-Identifier: MIT
// index.d.ts against the table of options (../options.json, `confine
// options --json`): every option the Node package takes is typed where its
// calls take it, with the type its row gives, and nothing else is typed as
// an option (issue 27: `network` was typed 'on' | 'off' while the runtime
// took the allowlist). Runs without TypeScript; where tsc is installed,
// 'node types (tsc --strict)' also compiles test/types-check.ts.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const fs = require('node:fs');

const ROOT = path.join(__dirname, '..');
const dts = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
const rows = require('../options.json').options.filter((r) => r.node);

/** The members of `interface NAME` (or of an inline object at a member),
 * as {name: type text}. */
function members(body) {
  const out = {};
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if (ch === '{' || ch === '(' || ch === '<') depth++;
    if (ch === '}' || ch === ')' || ch === '>') depth--;
    if (ch === ';' && depth === 0) {
      const m = /^\s*(\w+)\?:\s*([\s\S]*)$/.exec(current);
      if (m) out[m[1]] = m[2].trim();
      current = '';
    } else {
      current += ch;
    }
  }
  return out;
}

function block(text, start) {
  let depth = 0;
  for (let i = text.indexOf('{', start); i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return text.slice(text.indexOf('{', start) + 1, i);
  }
  throw new Error('unbalanced');
}

function iface(name) {
  const at = dts.search(new RegExp(`export interface ${name}\\b`));
  assert.ok(at >= 0, `index.d.ts has interface ${name}`);
  const head = dts.slice(at, dts.indexOf('{', at));
  const base = /extends (\w+)/.exec(head);
  return { ...(base ? iface(base[1]) : {}), ...members(block(dts, at)) };
}

const alias = (name) => {
  const m = new RegExp(`export type ${name} = ([^;]+);`).exec(dts);
  return m && !m[1].includes('=>') ? m[1] : name;  // a function type stays its name
};

/** A type's union members, aliases and inline objects resolved one level. */
function union(type) {
  const parts = [];
  let depth = 0;
  let current = '';
  for (const ch of type) {
    if ('{(<'.includes(ch)) depth++;
    if ('})>'.includes(ch)) depth--;
    if (ch === '|' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  parts.push(current.trim());
  return new Set(parts.flatMap((p) => (/^[A-Z]\w*$/.test(p) && alias(p) !== p ? [...union(alias(p))] : [p])));
}

/** What the row's type is in TypeScript (a set of union members), and the
 * runtime's documented extras (env.inherit takes a boolean). */
function expected(row) {
  const words = (row.choices || []).map((c) => `'${c}'`);
  switch (row.type) {
    case 'bool': return ['boolean'];
    case 'path-list': case 'string-list': return ['string', 'string[]'];
    case 'host-list': case 'pattern-list': return ['string[]'];
    case 'env-set': return ['Record<string, string>'];
    case 'path': return ['string'];
    case 'decider': return ['AskHost'];
    case 'ms': return ['number'];
    case 'int': case 'size': case 'seconds':
      return row.key && row.key.startsWith('limits.') ? ['number', 'string', 'null'] : ['number'];
    case 'enum':
      if (row.node === 'network') return [...words, 'NetworkAllowlist'];
      if (row.node === 'env.inherit') return ['boolean', ...words];
      return words;
    default: throw new Error(`a type this test does not know: ${row.type}`);
  }
}

/** Where a row's option is typed: the interface of each call that takes it. */
function homes(row) {
  const on = new Set(row.commands);
  if (row.spec === '4' && !row.flag) return [];  // the provider's: config file only
  if (on.has('wrap')) return ['CallOptions'];
  if (on.has('run') || on.has('bash')) return ['RunOptions', 'BashOptions'];
  return ['RunOptions'];  // maxOutput: run()'s (bash() keeps the default)
}

function typeAt(name, option) {
  let scope = iface(name);
  const parts = option.split('.');
  for (const part of parts.slice(0, -1)) {
    const inner = scope[part];
    assert.ok(inner, `${name} types ${part}`);
    // the object among the union's members: an interface, or inline
    const object = [...union(inner)].find((p) => p.startsWith('{') ||
      new RegExp(`export interface ${p}\\b`).test(dts));
    assert.ok(object, `${name}.${part} takes an object: ${inner}`);
    scope = object.startsWith('{') ? members(`${object.slice(1, -1)};`) : iface(object);
  }
  return scope[parts[parts.length - 1]];
}

test('every option of the table is typed where its calls take it, as its row says', () => {
  assert.ok(rows.length > 20);
  for (const row of rows) {
    for (const home of homes(row)) {
      const type = typeAt(home, row.node);
      assert.ok(type, `${home} types ${row.node}`);
      assert.deepStrictEqual([...union(type)].sort(), expected(row).sort(), `${home}.${row.node}: ${type}`);
    }
  }
});

test('the options interfaces type nothing the table lacks', () => {
  const known = new Set(rows.map((r) => r.node.split('.')[0]));
  // the call's own, not options of the table: where, how and with what it runs
  for (const own of ['environ', 'bin', 'signal', 'stdin', 'config']) known.add(own);
  for (const name of ['PolicyOptions', 'CallOptions', 'RunOptions', 'BashOptions']) {
    for (const member of Object.keys(iface(name))) {
      assert.ok(known.has(member), `${name}.${member} is not a row of the table`);
    }
  }
  for (const member of Object.keys(iface('NetworkAllowlist'))) {
    assert.ok(rows.some((r) => r.node === `network.${member}`), `NetworkAllowlist.${member}`);
  }
});
