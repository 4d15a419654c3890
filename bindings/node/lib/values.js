// SPDX-License-Identifier: MIT
'use strict';

const { UsageError, InvalidPolicyError, InvalidConfigError } = require('./errors');

// ---- values: every one checked where it enters ---------------------------

/*
 * What this package hands to `confine` is checked first (doc/SPEC.md 16,
 * "Values the packages hand over"), so no value reaches the CLI other than
 * as given and every refusal names the option of the call:
 * - a string holding a NUL byte (an argv word ends there) or a lone UTF-16
 *   surrogate (it would reach the CLI as U+FFFD, another value) is USAGE;
 * - a value of the wrong type is refused with its family's code: a policy
 *   option, `mode` and `workspace` INVALID_POLICY; the provider's `runner`
 *   and `config` INVALID_CONFIG; the call's own arguments USAGE;
 * - a bound (timeout 1 to 600000 ms, maxOutput) is refused past it, never
 *   cut to it.
 */
const FAMILY = {
  usage: (message, option) => new UsageError(message, { option }),
  policy: (message, option) => new InvalidPolicyError(message, { option }),
  config: (message, option) => new InvalidConfigError(message, { option }),
};

const show = (value) => {
  let text;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
};
const typeName = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const wellFormed = (s) => (typeof s.isWellFormed === 'function' ? s.isWellFormed()
  : !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s));

/** A string for the CLI: no NUL, well-formed UTF-16; `allowEmpty` false
 * refuses "". */
function checkString(value, option, family, { allowEmpty = true } = {}) {
  if (typeof value !== 'string') {
    throw FAMILY[family](`${option} must be a string, not ${typeName(value)} ${show(value)}`, option);
  }
  if (value.includes('\0')) {
    throw new UsageError(`${option} ${show(value)} holds a NUL byte (a C string would end there)`, { option });
  }
  if (!wellFormed(value)) {
    throw new UsageError(`${option} ${show(value)} is not valid Unicode text (a lone surrogate cannot reach confine as given)`, { option });
  }
  if (!allowEmpty && value === '') throw new UsageError(`${option} is an empty string`, { option });
  return value;
}

/** An array of strings (one string when `oneAllowed`, as a list of it). */
function checkStrings(value, option, family, what, { oneAllowed = false, allowEmpty = true } = {}) {
  if (typeof value === 'string' && oneAllowed) value = [value];
  if (!Array.isArray(value)) {
    throw FAMILY[family](`${option} must be an array of ${what}, not ${typeName(value)} ${show(value)}`, option);
  }
  return value.map((item) => checkString(item, option, family, { allowEmpty }));
}

function checkBoolean(value, option, family) {
  if (typeof value !== 'boolean') throw FAMILY[family](`${option} must be true or false, not ${show(value)}`, option);
  return value;
}

function checkObject(value, option, family, known) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw FAMILY[family](`${option} must be an object {${known.join(', ')}}, not ${typeName(value)} ${show(value)}`, option);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw FAMILY[family](`${option}: unknown key ${JSON.stringify(key)} (expected ${known.join(', ')})`, option);
    }
  }
  return value;
}

module.exports = { FAMILY, show, typeName, checkString, checkStrings, checkBoolean, checkObject };
