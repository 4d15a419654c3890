// SPDX-License-Identifier: MIT
'use strict';

// What `confine` printed, read back: its JSON line, its error, a result.
const { SandboxUnavailableError, errorFrom, isSandboxUnavailableText } = require('./errors');
const { CAPTURE_LIMIT } = require('./call-options');

function parseJsonLine(stdout) {
  const line = stdout.split('\n').find((l) => l.trim().startsWith('{'));
  if (!line) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

function failure(done, bin) {
  const object = parseJsonLine(done.stdout);
  if (object && object.error) return errorFrom(object.error, done.status);
  const line = done.stderr.split('\n').filter((l) => l.startsWith('confine: ')).pop();
  const message = line ? line.slice('confine: '.length) : `${bin} failed (exit ${done.status}): ${done.stderr.trim()}`;
  if (isSandboxUnavailableText(message)) return new SandboxUnavailableError(message, { exitStatus: done.status });
  return null; // the caller decides
}

// ---- results ---------------------------------------------------------------

function truncatedOf(object) {
  const t = object.truncated;
  if (t && typeof t === 'object') return { stdout: !!t.stdout, stderr: !!t.stderr };
  if (object.stdoutTruncated !== undefined || object.stderrTruncated !== undefined) {
    return { stdout: !!object.stdoutTruncated, stderr: !!object.stderrTruncated };
  }
  if (!t) return { stdout: false, stderr: false };
  // One flag for both streams (this confine's JSON): a stream that reached
  // the capture limit is the one that was cut.
  const out = Buffer.byteLength(object.stdout || '') >= CAPTURE_LIMIT;
  const err = Buffer.byteLength(object.stderr || '') >= CAPTURE_LIMIT;
  return out || err ? { stdout: out, stderr: err } : { stdout: true, stderr: true };
}

function resultOf(object, mode) {
  const sandbox = object.sandbox || {};
  return {
    exitCode: object.exitCode === undefined ? null : object.exitCode,
    signal: object.signal === undefined ? null : object.signal,
    stdout: object.stdout || '',
    stderr: object.stderr || '',
    truncated: truncatedOf(object),
    denied: !!sandbox.denied,
    networkDenied: !!sandbox.networkDenied,
    denials: denialsOf(sandbox.denials),
    denialsDropped: sandbox.denialsDropped || 0,
    // Every decision of the allowlist's proxy, once per host and port
    // (doc/SPEC.md 15, "Ask"): {host, port, allow, by}.
    networkDecisions: ((sandbox.network && sandbox.network.decisions) || []).map((d) => ({
      host: d.host, port: d.port, allow: d.decision === 'allow', by: d.by,
    })),
    networkDecisionsDropped: (sandbox.network && sandbox.network.decisionsDropped) || 0,
    timedOut: !!object.timedOut,
    runner: sandbox.runner || null,
    enforcement: sandbox.enforcement || null,
    unenforced: sandbox.unenforced || object.unenforced || [],
    layers: sandbox.layers || [],
    clauses: clausesOf(sandbox.clauses),
    gitHazards: (sandbox.gitHazards || []).map((h) => ({ path: h.path, kind: h.kind })),
    // The limit that stopped the run ({name, value, killed}) or null, and
    // what it used (null where the mechanism cannot tell).
    limit: sandbox.limit || null,
    usage: {
      peakMemory: object.usage && object.usage.peakMemory !== undefined ? object.usage.peakMemory : null,
      peakProcesses: object.usage && object.usage.peakProcesses !== undefined ? object.usage.peakProcesses : null,
      cpuSeconds: object.usage && object.usage.cpuSeconds !== undefined ? object.usage.cpuSeconds : null,
    },
    mode: sandbox.mode || mode,
  };
}

/** The refusals with their object (doc/SPEC.md 9): {op, path, address,
 * clause, reason}, exactly one of path and address set, the other null;
 * reason the run's decider's for a host it refused, else null. */
function denialsOf(list) {
  return (list || []).map((d) => ({
    op: d.op, path: d.path === undefined ? null : d.path,
    address: d.address === undefined ? null : d.address, clause: d.clause,
    reason: d.reason === undefined ? null : d.reason,
  }));
}

/** The report per clause (doc/SPEC.md 15) as plain objects. */
function clausesOf(list) {
  return (list || []).map((c) => ({
    clause: c.clause, subject: c.subject, status: c.status, layers: c.layers || [],
    reason: c.reason, needs: c.needs,
  }));
}

module.exports = { parseJsonLine, failure, truncatedOf, resultOf, clausesOf };
