/**
 * The kinds of value an option takes: how a value is checked (from the API
 * or a config file), how a command-line argument becomes one, and how the
 * kind is named in messages, help and the README. Every option of the table
 * (src/options/table.js) has one; nothing else checks option values.
 */
import { parseDuration } from '../util/duration.js';

/**
 * @template V
 * @typedef {object} OptionKind
 * @property {string} name
 * @property {string} expected what a value must be, for messages ("a whole number, 0 or more")
 * @property {string} argument the command line's placeholder ("<n>"); '' for a switch
 * @property {(value: unknown) => boolean} check whether a value is one (API, config file)
 * @property {(text: string) => V} parse a command-line argument to a value; throws OptionValueError
 * @property {string} ts the TypeScript type, for docs
 * @property {boolean} [path] a file or folder: the command line and a config file give it relative to the working directory
 */

/** A command-line argument that is not a value of its option's kind. */
export class OptionValueError extends Error {}

/** @type {OptionKind<boolean>} */
export const boolean = {
  name: 'boolean',
  expected: 'true or false',
  argument: '',
  check: (v) => typeof v === 'boolean',
  parse: () => true,
  ts: 'boolean',
};

/**
 * A whole number from `min` to `max`.
 * @param {{ min?: number, max?: number, argument?: string }} [bounds]
 * @returns {OptionKind<number>}
 */
export function wholeNumber({ min = 0, max = Number.MAX_SAFE_INTEGER, argument = '<n>' } = {}) {
  const expected = max === Number.MAX_SAFE_INTEGER ? `a whole number, ${min} or more` : `a whole number from ${min} to ${max}`;
  const check = (/** @type {unknown} */ v) => Number.isInteger(v) && /** @type {number} */ (v) >= min && /** @type {number} */ (v) <= max;
  return {
    name: 'whole number',
    expected,
    argument,
    check,
    parse: (text) => {
      const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
      if (!check(n)) throw new OptionValueError(`expected ${expected}, not '${text}'`);
      return n;
    },
    ts: 'number',
  };
}

/** @type {OptionKind<number>} */
export const fraction = {
  name: 'fraction',
  expected: 'a number from 0 to 1',
  argument: '<n>',
  check: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  parse: (text) => {
    const n = text.trim() === '' ? NaN : Number(text);
    if (!(n >= 0 && n <= 1)) throw new OptionValueError(`expected a number from 0 to 1, not '${text}'`);
    return n;
  },
  ts: 'number',
};

/**
 * One of a few words.
 * @template {string} W
 * @param {readonly W[]} words
 * @returns {OptionKind<W>}
 */
export function oneOf(words) {
  const expected = `one of ${words.join(', ')}`;
  return {
    name: 'choice',
    expected,
    argument: `<${words.join('|')}>`,
    check: (v) => words.includes(/** @type {W} */ (v)),
    parse: (text) => {
      if (!words.includes(/** @type {W} */ (text))) throw new OptionValueError(`expected ${expected}, not '${text}'`);
      return /** @type {W} */ (text);
    },
    ts: words.map((w) => `'${w}'`).join(' | '),
  };
}

/**
 * A duration: seconds (a number, 0 or more) or text with a unit, `30s`, `10m`, `2h`, `1d`, `1w`
 * (src/util/duration.js); the command line gives it as text and gets seconds.
 * @type {OptionKind<number | string>}
 */
export const duration = {
  name: 'duration',
  expected: "a duration: seconds (0 or more) or a number with s, m, h, d or w ('1d')",
  argument: '<duration>',
  check: (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0) || (typeof v === 'string' && parseDuration(v) !== null),
  parse: (text) => {
    const seconds = parseDuration(text);
    if (seconds === null) throw new OptionValueError(`expected a duration: seconds or a number with s, m, h, d or w ('1d'), not '${text}'`);
    return seconds;
  },
  ts: 'number | string',
};

/** A quality range MIN-MAX from 0 to 100; on the command line "65-80" (a single number means MIN = MAX). @type {OptionKind<[number, number]>} */
export const qualityRange = {
  name: 'range',
  expected: 'a [min, max] pair of whole numbers, 0 <= min <= max <= 100',
  argument: '<min-max>',
  check: (v) => Array.isArray(v) && v.length === 2 && v.every((x) => Number.isInteger(x) && x >= 0 && x <= 100) && v[0] <= v[1],
  parse: (text) => {
    const m = /^\s*(\d{1,3})\s*(?:-\s*(\d{1,3})\s*)?$/.exec(text);
    const min = m ? Number(m[1]) : NaN;
    const max = m ? Number(m[2] ?? m[1]) : NaN;
    if (!(min >= 0 && max <= 100 && min <= max)) throw new OptionValueError(`expected MIN-MAX with 0 <= MIN <= MAX <= 100, not '${text}'`);
    return [min, max];
  },
  ts: '[number, number]',
};

/**
 * A path or other text that must not be empty.
 * @param {string} [argument]
 * @param {{ path?: boolean }} [how] path: it names a file or folder
 * @returns {OptionKind<string>}
 */
export function text(argument = '<path>', { path = false } = {}) {
  return {
    path,
    name: 'text',
    expected: 'a non-empty string',
    argument,
    check: (v) => typeof v === 'string' && v.length > 0,
    parse: (t) => {
      if (!t) throw new OptionValueError('expected a non-empty value');
      return t;
    },
    ts: 'string',
  };
}

/**
 * A folder, or false for none (on the command line `--name <dir>` and `--no-name`).
 * @type {OptionKind<string | false>}
 */
export const folderOrOff = {
  ...text('<dir>', { path: true }),
  name: 'folder or false',
  expected: 'a folder (a non-empty string) or false',
  check: (v) => v === false || (typeof v === 'string' && v.length > 0),
  ts: 'string | false',
};

/**
 * A list of words; on the command line comma-separated.
 * @param {string} [argument]
 * @returns {OptionKind<string[]>}
 */
export function list(argument = '<list>') {
  return {
    name: 'list',
    expected: 'a list of strings',
    argument,
    check: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
    parse: (t) => t.split(',').map((s) => s.trim()).filter(Boolean),
    ts: 'string[]',
  };
}

/**
 * A list of words, each one of WORDS, none twice.
 * @template {string} W
 * @param {readonly W[]} words
 * @returns {OptionKind<W[]>}
 */
export function someOf(words) {
  const expected = `a list of ${words.join(', ')} (comma-separated on the command line), each once`;
  const check = (/** @type {unknown} */ v) => Array.isArray(v) && v.length > 0 && v.every((x) => words.includes(x)) && new Set(v).size === v.length;
  return {
    name: 'choices',
    expected,
    argument: `<${words.join(',')}>`,
    check,
    parse: (t) => {
      const value = t.split(',').map((s) => s.trim()).filter(Boolean);
      if (!check(value)) throw new OptionValueError(`expected ${expected}, not '${t}'`);
      return /** @type {W[]} */ (value);
    },
    ts: `(${words.map((w) => JSON.stringify(w)).join(' | ')})[]`,
  };
}

/**
 * A value the command line never gives (a function, a list of passes): only checked.
 * @template V
 * @param {string} expected
 * @param {(value: unknown) => boolean} check
 * @param {string} ts
 * @returns {OptionKind<V>}
 */
export function apiOnly(expected, check, ts) {
  return {
    name: 'api',
    expected,
    argument: '',
    check,
    parse: () => {
      throw new OptionValueError('not a command-line option');
    },
    ts,
  };
}
