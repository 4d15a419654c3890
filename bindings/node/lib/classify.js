// SPDX-License-Identifier: MIT
'use strict';

const { UsageError } = require('./errors');
const { show } = require('./values');

// ---- SPEC 8's stderr classifiers, as the library has them ------------------

/*
 * The rules of confine_classify_runner_failure() and
 * confine_classify_denial() (src/lib/classify.c), for a wrap's consumer
 * that spawned the argv itself. They read bytes: stderr (a string is taken
 * as its UTF-8 bytes) is handled as Latin-1 text, one character per byte,
 * so case folding is ASCII's and a byte sequence compares as the C code
 * compares it. tests/golden/classifiers.json holds the cases the C, Python
 * and Node suites all run: a change here that answers otherwise fails there.
 */
const asBytes = (text) => (Buffer.isBuffer(text) ? text : Buffer.from(String(text), 'utf8')).toString('latin1');
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
// C's isspace() in the C locale
const isBlank = (s) => /^[ \t\n\v\f\r]*$/.test(s);

/** Lines end at "\n", a "\r" right before it belongs to the terminator; what
 * follows the last "\n" is a line only when it is not empty. */
function linesOf(bytes) {
  const parts = bytes.split('\n');
  const last = parts.pop();
  const lines = parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (last !== '') lines.push(last);
  return lines;
}

/** The line names what was refused: a '/', a quote, or U+2018/U+2019. */
const namesAPath = (line) => /[/'"`]/.test(line) || line.includes('\u00e2\u0080\u0098') || line.includes('\u00e2\u0080\u0099');

/** The signature found at `at` ends the error or the line names a path. */
function denialAt(line, at, length) {
  const rest = line.slice(at + length);
  if (namesAPath(line) || rest === '') return true;
  if (':,;.'.includes(rest[0])) return true;
  return rest.length >= 10 && asciiLower(rest.slice(0, 10)) === ' (os error';
}

function lineShowsDenial(line, signature) {
  const lower = asciiLower(line);
  for (let at = lower.indexOf(signature); at >= 0; at = lower.indexOf(signature, at + 1)) {
    if (denialAt(line, at, signature.length)) return true;
  }
  return false;
}

/** Whether a finished run's stderr shows a denial in `dialect` (doc/SPEC.md
 * 8): stderr counts at any exit, a death by signal (`status` null)
 * included. */
function classifyDenial(dialect, status, stderr) {
  checkStatus(status);
  const signatures = checkSignatures(dialect, 'dialect').filter((s) => !isBlank(s)).map((s) => asciiLower(asBytes(s)));
  if (!signatures.length) return false;
  return linesOf(asBytes(stderr)).some((line) => signatures.some((s) => lineShowsDenial(line, s)));
}

/** The runner's failure line when a finished run failed in the runner
 * before the command ran (doc/SPEC.md 8), else null: never at exit 0 or a
 * death by signal (`status` null); per rule in order, an exit code the rule
 * allows (any when it lists none), the informational lines dropped, and a
 * line that begins with a fatal signature (case-insensitively). */
function classifyRunnerFailure(rules, status, stderr) {
  checkStatus(status);
  if (!Array.isArray(rules)) throw new UsageError('rules must be an array of runner-failure rules', { option: 'rules' });
  if (status === null || status === 0) return null;
  const lines = linesOf(asBytes(stderr));
  for (const rule of rules) {
    const exits = rule.allowedExitCodes || [];
    if (exits.length && !exits.includes(status)) continue;
    const info = checkSignatures(rule.informationalLines || [], 'rules').map((l) => asciiLower(asBytes(l)));
    const fatal = checkSignatures(rule.fatalSignatures || [], 'rules').filter((s) => !isBlank(s)).map((s) => asciiLower(asBytes(s)));
    for (const line of lines) {
      const lower = asciiLower(line);
      if (info.includes(lower)) continue;
      if (fatal.some((s) => lower.startsWith(s))) return Buffer.from(line, 'latin1').toString('utf8');
    }
  }
  return null;
}

function checkStatus(status) {
  if (status !== null && !Number.isInteger(status)) {
    throw new UsageError(`status must be an exit code (an integer) or null for a death by signal, not ${show(status)}`, { option: 'status' });
  }
}

function checkSignatures(list, option) {
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) {
    throw new UsageError(`${option} must hold strings`, { option });
  }
  return list;
}

module.exports = { classifyDenial, classifyRunnerFailure };
