/**
 * Options from a config file: `pagediet.config.js` (or .mjs) in the working
 * directory, a file named with --config, or a "pagediet" key in package.json.
 * Flags given on the command line win over the file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';
import { UserError } from '../build/errors.js';
import { resolveWithin } from './config-resolve.js';
import { PASSES } from '../passes/index.js';
import { boolean, list, oneOf, text, wholeNumber } from '../options/kinds.js';
import { checkOptions, option, optional } from '../options/table.js';
import { REPORT_NETWORKS, REPORT_SAMPLE } from '../report/compare.js';

/**
 * What a config file may set besides the option table's options: the build
 * command's own. `pagediet build` has a flag for each, and the README's table
 * of command options is written from them (`npm run options`).
 */
export const COMMAND_OPTIONS = {
  out: optional(text('<dir>', { path: true }), 'the output folder (required, here or in the config file): not inside the input, not the input, not containing it', { short: '-o' }),
  report: option(boolean, true, 'the report at the end of a build: it loads the input and the output with the robot and compares them'),
  network: optional(list(), `networks the report models (default ${REPORT_NETWORKS.join(',')})`),
  sample: optional(wholeNumber({ min: 1 }), `pages the report loads: index.html and pages spread over the site (default ${REPORT_SAMPLE})`),
  baseline: option(oneOf(/** @type {const} */ (['gzip', 'raw'])), 'gzip', 'how the report serves both sides besides their precompressed files: gzip on the fly as ordinary servers do, or raw'),
  html: optional(text('<file>', { path: true }), 'also write the report as a self-contained HTML file'),
  verbose: option(boolean, false, 'list every message and decision, and the report\'s tables per page'),
  quiet: option(boolean, false, 'no progress (progress goes to stderr: a bar on a terminal, a line every few seconds in a CI log, nothing when piped)', { short: '-q' }),
};

/** The build command's flags that a config file cannot set. */
export const COMMAND_LINE_ONLY = {
  json: option(boolean, false, 'print the summary as JSON on stdout'),
  config: optional(text('<file>', { path: true }), 'the config file (default: pagediet.config.js, or "pagediet" in package.json)', { short: '-c' }),
};

/**
 * @typedef {import('../options/build-options.js').BuildOptions & { out?: string, report?: boolean, quiet?: boolean, network?: string[], html?: string, sample?: number, verbose?: boolean, baseline?: 'gzip' | 'raw' }} FileConfig
 */

/**
 * @param {string} cwd
 * @param {string} [explicit] a path given with --config
 * @returns {Promise<{ config: FileConfig, from: string | null }>}
 */
export async function loadConfig(cwd, explicit) {
  const candidates = explicit ? [path.resolve(cwd, explicit)] : ['pagediet.config.js', 'pagediet.config.mjs'].map((n) => path.join(cwd, n));
  for (const file of candidates) {
    try {
      await fs.access(file);
    } catch {
      if (explicit) throw new UserError(`config file ${explicit} does not exist`);
      continue;
    }
    let mod;
    try {
      resolveOwnPackage();
      mod = await import(pathToFileURL(file).href);
    } catch (error) {
      throw new UserError(`config file ${path.relative(cwd, file) || file} failed to load: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }
    const value = typeof mod.default === 'function' ? await mod.default() : mod.default;
    return { config: validate(value, file), from: file };
  }
  let pkg;
  try {
    pkg = JSON.parse(await fs.readFile(path.join(cwd, 'package.json'), 'utf8'));
  } catch {
    // No package.json, or not JSON: no config from it.
  }
  if (pkg && typeof pkg === 'object' && pkg.pagediet) return { config: validate(pkg.pagediet, 'package.json "pagediet"'), from: 'package.json' };
  return { config: {}, from: null };
}

let ownPackageResolved = false;

/**
 * Lets a config file import `pagediet` and `pagediet/vite` when its project
 * has no pagediet installed (npx): they resolve to this copy. Once per process.
 */
function resolveOwnPackage() {
  if (ownPackageResolved) return;
  ownPackageResolved = true;
  const entries = { pagediet: new URL('../index.js', import.meta.url).href, 'pagediet/vite': new URL('../plugins/vite.js', import.meta.url).href };
  // module.register() is deprecated from node 26 on, where registerHooks has long been there (node 22.15).
  const { registerHooks } = /** @type {{ registerHooks?: (hooks: { resolve: ReturnType<typeof resolveWithin> }) => unknown }} */ (nodeModule);
  if (registerHooks) registerHooks({ resolve: resolveWithin(entries) });
  else nodeModule.register(new URL('./config-resolve.js', import.meta.url), { data: { entries } });
}

/**
 * @param {unknown} value
 * @param {string} where
 * @returns {FileConfig}
 */
function validate(value, where) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`${where}: the config must be an object`);
  checkOptions(/** @type {Record<string, unknown>} */ (value), PASSES, { where, extra: COMMAND_OPTIONS });
  return /** @type {FileConfig} */ (value);
}
