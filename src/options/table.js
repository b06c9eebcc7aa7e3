/**
 * The one option table: every option of a build, declared once, by the
 * build itself (BUILD_OPTIONS) or by the pass that reads it (its `options`;
 * options several passes read, such as the image passes' `lossy`, are one
 * definition they all list). From it come the command line's flags, the
 * config file's keys, the API's check, the README's option table and each
 * pass's resolved options; every value is checked here before a build starts.
 * The model is svgo's plugins: typed params with their defaults, merged in
 * one place.
 */
import { DEFAULT_JOB_TIMEOUT_S } from '../util/pool.js';
import { UserError } from '../build/errors.js';
import { boolean, duration, list, text, wholeNumber } from './kinds.js';
import { parseShard } from '../build/shard.js';
import { DEFAULT_CACHE_LIMIT } from '../util/cache.js';

/**
 * @template V
 * @typedef {object} OptionDefinition
 * @property {import('./kinds.js').OptionKind<V>} kind
 * @property {V} default undefined for an option that is unset unless given (optional())
 * @property {string} doc one line, for --help, the README and the API docs
 * @property {string} [flag] the command-line flag when it is not `--` and the key in kebab case (e.g. `--origin` for origins)
 * @property {boolean} [repeatable] on the command line, given once per value (a list kind)
 * @property {string} [short] a one-letter alias (`-o`)
 */

/**
 * @typedef {Record<string, OptionDefinition<any>>} OptionDefinitions
 *
 * @typedef {object} TableEntry
 * @property {OptionDefinition<any>} definition
 * @property {string[]} readers the passes that read it, or ['build']
 */

/**
 * An option with a default.
 * @template V
 * @param {import('./kinds.js').OptionKind<V>} kind
 * @param {V} value the default
 * @param {string} doc
 * @param {Partial<Pick<OptionDefinition<V>, 'flag' | 'repeatable' | 'short'>>} [extra]
 * @returns {OptionDefinition<V>}
 */
export function option(kind, value, doc, extra = {}) {
  return { kind, default: value, doc, ...extra };
}

/**
 * An option that is unset unless given.
 * @template V
 * @param {import('./kinds.js').OptionKind<V>} kind
 * @param {string} doc
 * @param {Partial<Pick<OptionDefinition<V>, 'flag' | 'repeatable' | 'short'>>} [extra]
 * @returns {OptionDefinition<V | undefined>}
 */
export function optional(kind, doc, extra = {}) {
  return { kind, default: undefined, doc, ...extra };
}

/** @type {import('./kinds.js').OptionKind<import('../build/shard.js').Shard>} */
const shardKind = {
  name: 'shard',
  expected: 'an { index, count } pair with 1 <= index <= count',
  argument: '<i/n>',
  check: (v) => {
    const s = /** @type {{ index?: unknown, count?: unknown }} */ (v);
    return Boolean(v) && typeof v === 'object' && Number.isInteger(s.index) && Number.isInteger(s.count) && /** @type {number} */ (s.index) >= 1 && /** @type {number} */ (s.index) <= /** @type {number} */ (s.count);
  },
  parse: (t) => parseShard(t),
  ts: '{ index: number, count: number }',
};

/** Options of the build itself, read by no pass. */
export const BUILD_OPTIONS = {
  only: optional(list(), 'run only these passes (comma-separated names)'),
  skip: optional(list(), 'do not run these passes (comma-separated names)'),
  origins: optional(list('<url>'), 'an absolute origin that is this site (`https://www.example.com`), so absolute links to it resolve to local files', { flag: '--origin', repeatable: true }),
  force: option(boolean, false, 'write into a non-empty directory pagediet did not write'),
  shard: optional(shardKind, 'build only slice I of N (pages by a hash of their path, with every file they load), into an output the other shards share'),
  cache: option(boolean, true, 'keep and use results of earlier builds (node_modules/.cache/pagediet)'),
  cacheDir: optional(text('<dir>', { path: true }), 'where results are kept between builds (default node_modules/.cache/pagediet of the nearest package)'),
  cacheLimit: option(wholeNumber({ argument: '<MiB>' }), DEFAULT_CACHE_LIMIT / (1024 * 1024), 'MiB the cache is trimmed to after a build, least recently used first; it keeps what the build used, and as much again of older results, whatever this limit'),
  memoryBudget: option(wholeNumber({ argument: '<MiB>' }), 64, 'MiB of file bytes kept in memory during the build; the rest wait in a scratch directory under $TMPDIR'),
  jobTimeout: option(wholeNumber({ argument: '<seconds>' }), DEFAULT_JOB_TIMEOUT_S, 'stop an encode or OCR job that runs longer and leave its file as it is (0: no limit)'),
  threads: optional(wholeNumber({ min: 1, max: 1024 }), 'worker threads (default: the machine\'s cores)'),
  betweenVisits: option(duration, '1d', 'the report\'s repeat visit comes this long after the first (30s, 10m, 2h, 1d, 1w, or seconds): what a browser\'s cache still holds fresh by then is not asked for'),
};

/**
 * The key a pass that is off by default is turned on with: its name in camel case (minify-html: minifyHtml).
 * @param {{ name: string }} pass
 */
export function enablingKey(pass) {
  return pass.name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}

/**
 * Every option of a build with these passes, by key, in the order they are declared.
 * @param {readonly import('../build/pass.js').AnyPass[]} passes
 * @returns {Map<string, TableEntry>}
 */
export function optionTable(passes) {
  /** @type {Map<string, TableEntry>} */
  const table = new Map();
  /** @param {string} key @param {OptionDefinition<any>} definition @param {string} reader */
  const add = (key, definition, reader) => {
    const entry = table.get(key);
    if (!entry) table.set(key, { definition, readers: [reader] });
    else if (entry.definition !== definition) throw new Error(`option '${key}' is declared by ${entry.readers.join(', ')} and again, differently, by ${reader}: declare it once and list that definition`);
    else entry.readers.push(reader);
  };
  for (const [key, definition] of Object.entries(BUILD_OPTIONS)) add(key, definition, 'build');
  for (const pass of passes) {
    if (pass.enabledByDefault === false) add(enablingKey(pass), option(boolean, false, `also run the ${pass.name} pass: ${pass.description}`), pass.name);
    for (const [key, definition] of Object.entries(pass.options ?? {})) add(key, definition, pass.name);
  }
  return table;
}

/**
 * A pass's own options, each given or its default.
 * @param {import('../build/pass.js').AnyPass} pass
 * @param {Record<string, unknown>} options the build's
 * @returns {Record<string, any>}
 */
export function resolvePassOptions(pass, options) {
  /** @type {Record<string, unknown>} */
  const resolved = {};
  for (const [key, definition] of Object.entries(pass.options ?? {})) resolved[key] = options[key] ?? definition.default;
  return resolved;
}

/**
 * Whether a pass runs: its selection by only/skip, and for a pass off by default, its enabling option.
 * @param {import('../build/pass.js').AnyPass} pass
 * @param {{ only?: string[], skip?: string[] } & Record<string, unknown>} options
 */
export function passSelected(pass, options) {
  if (options.skip?.includes(pass.name)) return false;
  if (options.only?.length) return options.only.includes(pass.name);
  return pass.enabledByDefault !== false || options[enablingKey(pass)] === true;
}

/**
 * Checks options against the table before any work: an unknown key or a
 * value of the wrong kind is one line, naming the option as the caller
 * spells it.
 * @param {Record<string, unknown>} options
 * @param {readonly import('../build/pass.js').AnyPass[]} passes
 * @param {{ where: string, extra?: OptionDefinitions, name?: (key: string) => string }} how where: what the line starts with;
 *   extra: options of the caller's that are not in the table (a command's --out); name: how an option is shown
 */
export function checkOptions(options, passes, { where, extra = {}, name = (key) => `'${key}'` }) {
  const table = optionTable(passes);
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const definition = table.get(key)?.definition ?? (Object.hasOwn(extra, key) ? extra[key] : undefined);
    if (!definition) {
      const near = [...table.keys(), ...Object.keys(extra)].find((k) => closeTo(k, key));
      throw new UserError(`${where}: unknown option ${name(key)}${near ? ` (did you mean ${name(near)}?)` : ''}`);
    }
    if (!definition.kind.check(value)) throw new UserError(`${where}: option ${name(key)} must be ${definition.kind.expected}, not ${show(value)}`);
  }
  for (const key of ['only', 'skip']) {
    for (const pass of /** @type {string[]} */ (options[key] ?? [])) {
      if (!passes.some((p) => p.name === pass)) throw new UserError(`${where}: unknown pass '${pass}' in ${name(key)}; available: ${passes.map((p) => p.name).join(', ') || 'none'}`);
    }
  }
}

/** @param {unknown} value */
function show(value) {
  const s = typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * Whether two keys are one slip apart (a letter missing, added, changed, or two swapped).
 * @param {string} a
 * @param {string} b
 */
function closeTo(a, b) {
  a = a.toLowerCase();
  b = b.toLowerCase();
  if (Math.abs(a.length - b.length) > 1) return false;
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length] <= (a.length > 4 ? 2 : 1);
}

/**
 * The command-line flag of an option: `--kebab-key`, or `--no-kebab-key` for a switch that is on by default.
 * @param {string} key
 * @param {OptionDefinition<any>} definition
 */
export function flagName(key, definition) {
  const base = definition.flag ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  return definition.kind === boolean && definition.default === true ? base.replace(/^--/, '--no-') : base;
}
