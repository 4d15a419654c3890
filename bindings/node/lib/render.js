// SPDX-License-Identifier: MIT
// run()'s model-facing rendering (doc/SPEC.md 9), as confine_bash_render()
// writes it: tests/golden/render.json holds the cases the C suite renders
// with the library and the Node suite with this (bash() returns the
// library's own rendering, from `confine bash --json`).
'use strict';

/** "[denied: OP OBJECT (CLAUSE)[: REASON]]" per denial of one kind, as
 * confine_bash_render() writes it: a control character shows as '?'. */
function denialLines(result, files) {
  const safe = (text) => text.replace(/[\x00-\x1f\x7f]/g, '?');
  return (result.denials || []).filter((d) => (files ? d.path : d.address) !== null)
    .map((d) => `[denied: ${d.op} ${safe(files ? d.path : d.address)} (${d.clause})${d.reason ? `: ${safe(d.reason)}` : ''}]`);
}

/** "denyRead (/ws/.env), signals": the clauses that did not hold, each
 * name once with its subjects, as confine_bash_render() lists them. */
function describeUnenforced(clauses) {
  const names = [];
  for (const c of clauses) if (c.status !== 'enforced' && !names.includes(c.clause)) names.push(c.clause);
  return names.map((name) => {
    const subjects = clauses.filter((c) => c.clause === name && c.status !== 'enforced' && c.subject !== null)
      .map((c) => c.subject);
    return subjects.length ? `${name} (${subjects.join(', ')})` : name;
  }).join(', ');
}

/** A limit's value as confine_limit_format() writes it. */
function limitValue(name, value) {
  if (['memory', 'fileSize', 'temp'].includes(name)) {
    const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let unit = -1;
    let shown = value;
    while (unit < 4 && shown % 1024 === 0) { shown /= 1024; unit += 1; }
    return unit < 0 ? `${value} bytes` : `${shown} ${units[unit]}`;
  }
  return name === 'cpuSeconds' ? `${value} s` : String(value);
}

/** The marker of the limit that stopped the run, as
 * confine_outcome_limit_marker() writes it. */
function limitMarker(limit) {
  const value = limitValue(limit.name, limit.value);
  return limit.killed
    ? `[sandbox: killed: ${limit.name === 'cpuSeconds' ? 'cpu' : limit.name} limit (${value})]`
    : `[sandbox: limit reached: ${limit.name} (${value})]`;
}

/** The model-facing rendering (SPEC 9), as confine_bash_render() writes it. */
function render(result, timeoutMs) {
  const nulFree = (s) => s.replace(/\0/g, '\uFFFD');
  let text = '';
  const marker = (m) => {
    if (text.length && !text.endsWith('\n')) text += '\n';
    text += m;
  };
  if (result.stdout) text += nulFree(result.stdout);
  if (result.stderr) {
    if (text.length && !text.endsWith('\n')) text += '\n';
    text += '[stderr]\n' + nulFree(result.stderr);
  }
  if (!result.stdout && !result.stderr) text += '(no output)';
  // The model must know it saw only the start of a stream (the bytes kept).
  const kept = (name) => (result[`${name}Buffer`] ? result[`${name}Buffer`].length
    : Buffer.byteLength(result[name] || ''));
  const truncated = result.truncated || {};
  if (truncated.stdout) marker(`[stdout truncated at ${kept('stdout')} bytes]`);
  if (truncated.stderr) marker(`[stderr truncated at ${kept('stderr')} bytes]`);
  if (result.denied) marker(`[sandbox: file access denied under ${result.mode} mode]`);
  for (const line of denialLines(result, true)) marker(line);
  if (result.networkDenied) marker(`[sandbox: network access denied under ${result.mode} mode]`);
  for (const line of denialLines(result, false)) marker(line);
  if (result.limit) marker(limitMarker(result.limit));
  if (result.clauses && result.clauses.some((c) => c.status !== 'enforced')) {
    marker(`[sandbox: not enforced on this run: ${describeUnenforced(result.clauses)}]`);
  }
  if (result.timedOut) marker(`[timed out after ${timeoutMs}ms]`);
  if (result.signal) marker(`[killed by signal: ${result.signal}]`);
  else if (result.exitCode !== 0 && result.exitCode !== null) marker(`[exit code: ${result.exitCode}]`);
  return text;
}

module.exports = { render };
