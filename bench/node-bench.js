#!/usr/bin/env node
// SPDX-License-Identifier: MIT
/*
 * What the Node package costs: confine.run(['/bin/true']) against Node
 * spawning the very `confine run --json` command line it runs (the CLI's
 * cost seen from Node), against a bare spawn of /bin/true, interleaved in
 * one run (issue 33: Node's call <= 1.3x the CLI's). Figures come from
 * here, never from timed assertions; make check runs it with a few rounds
 * (the meson test `bench node`) only to see that it runs and prints its
 * ratios.
 *
 *   node bench/node-bench.js [--rounds N] [--warmup N] [--build DIR]
 *
 * Each round runs every variant once, the starting variant rotating; wall
 * time per run. Ratios are medians of per-round ratios. Uses the build
 * tree's CLI (--build, default ./build) unless CONFINE_BIN is set.
 */
'use strict';
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function parse(argv) {
  const o = { rounds: 100, warmup: 10, build: path.join(__dirname, '..', 'build') };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o) || argv[i + 1] === undefined) {
      console.error('usage: node-bench.js [--rounds N] [--warmup N] [--build DIR]');
      process.exit(2);
    }
    o[key] = key === 'build' ? argv[i + 1] : Number(argv[i + 1]);
  }
  return o;
}

function spawnOnce(file, args) {
  return new Promise((resolve, reject) => {
    execFile(file, args, (error) => (error ? reject(error) : resolve()));
  });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

async function main() {
  const o = parse(process.argv.slice(2));
  const bin = process.env.CONFINE_BIN || path.join(path.resolve(o.build), 'src', 'cli', 'confine');
  process.env.CONFINE_BIN = bin;
  const confine = require(path.join(__dirname, '..', 'bindings', 'node'));
  const base = path.join(os.homedir(), '.cache', 'confine-bench');
  fs.mkdirSync(base, { recursive: true });
  const ws = fs.mkdtempSync(path.join(base, 'node-bench.'));
  const variants = [['spawn /bin/true', () => spawnOnce('/bin/true', [])]];
  for (const rung of ['bwrap', 'landlock']) {
    variants.push([`spawn confine run --json (${rung})`,
      () => spawnOnce(bin, ['run', '--json', '--runner', rung, '-w', ws, '--', '/bin/true'])]);
    variants.push([`confine.run (${rung})`, async () => {
      const r = await confine.run(['/bin/true'], { runner: rung, workspace: ws });
      if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}`);
    }]);
  }
  const times = variants.map(() => []);
  for (let round = 0; round < o.warmup + o.rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (k + round) % variants.length;
      const t0 = process.hrtime.bigint();
      await variants[i][1]();
      const t1 = process.hrtime.bigint();
      if (round >= o.warmup) times[i].push(Number(t1 - t0) / 1e6);
    }
  }
  console.log(`node ${process.version}, ${bin}, ${o.rounds} rounds, median wall ms, ` +
              'ratio = median of per-round ratios to spawn /bin/true');
  const perRound = (a, b) => median(times[a].map((t, r) => t / times[b][r]));
  variants.forEach(([name], i) => {
    console.log(`${name.padEnd(40)} ${median(times[i]).toFixed(3).padStart(9)} ${perRound(i, 0).toFixed(2).padStart(7)}`);
  });
  for (const rung of ['bwrap', 'landlock']) {
    const a = variants.findIndex(([n]) => n === `confine.run (${rung})`);
    const b = variants.findIndex(([n]) => n === `spawn confine run --json (${rung})`);
    console.log(`package / CLI process, ${rung}: ${perRound(a, b).toFixed(2)}`);
  }
  fs.rmSync(ws, { recursive: true, force: true });
}

main().catch((e) => { console.error(`node-bench: ${e.message}`); process.exit(1); });
