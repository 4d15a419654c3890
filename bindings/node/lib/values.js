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

/** The value as every door's message quotes it (doc/SPEC.md 16, "One text
 * per refusal"): a string as JSON quotes it, a number as JSON writes it;
 * bounded to 200 characters. */
const show = (value) => {
  let text;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
};
/** What a value of the wrong type is, in JSON's words, the same at every
 * door: `a string "5"`, `a number 5`, `a boolean true`, `null`, `an
 * array`, `an object`; another type by its name. */
const described = (value) => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'boolean': return `a boolean ${value}`;
    case 'number': return `a number ${show(value)}`;
    case 'string': return `a string ${show(value)}`;
    case 'object': return 'an object';
    case 'undefined': return 'undefined';
    default: return `a ${typeof value}`;
  }
};
const typeName = described;
/** A value of the wrong type refused: `OPTION must be EXPECTED, not
 * DESCRIBED` (doc/SPEC.md 16, "One text per refusal"). */
const wrongType = (family, option, expected, value) => FAMILY[family](`${option} must be ${expected}, not ${described(value)}`, option);
const wellFormed = (s) => (typeof s.isWellFormed === 'function' ? s.isWellFormed()
  : !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s));

/** A string for the CLI: no NUL, well-formed UTF-16; `allowEmpty` false
 * refuses "". */
function checkString(value, option, family, { allowEmpty = true } = {}) {
  if (typeof value !== 'string') {
    throw wrongType(family, option, 'a string', value);
  }
  if (value.includes('\0')) {
    throw new UsageError(`${option} ${show(value)} holds a NUL byte (a C string would end there)`, { option });
  }
  if (!wellFormed(value)) {
    throw new UsageError(`${option} ${show(value)} is not valid UTF-8 text`, { option });
  }
  if (!allowEmpty && value === '') throw new UsageError(`${option} is an empty string`, { option });
  return value;
}

/** An array of strings (one string when `oneAllowed`, as a list of it). */
function checkStrings(value, option, family, what, { oneAllowed = false, allowEmpty = true } = {}) {
  if (typeof value === 'string' && oneAllowed) value = [value];
  if (!Array.isArray(value)) {
    throw wrongType(family, option, `an array of ${what}`, value);
  }
  return value.map((item) => checkString(item, option, family, { allowEmpty }));
}

function checkBoolean(value, option, family) {
  if (typeof value !== 'boolean') throw wrongType(family, option, 'true or false', value);
  return value;
}

function checkObject(value, option, family, known) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw wrongType(family, option, 'an object', value);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      // the full dotted name, as an unknown top-level option is named
      throw FAMILY[family](`unknown policy option ${show(`${option}.${key}`)} (known: ${known.join(', ')})`, option);
    }
  }
  return value;
}

module.exports = { FAMILY, show, described, typeName, wrongType, checkString, checkStrings, checkBoolean, checkObject };
