/**
 * Options from a config file: `pagediet.config.js` (or .mjs) in the working
 * directory, a file named with --config, or a "pagediet" key in package.json.
 * Flags given on the command line win over the file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from './errors.js';

/** Options a config file may set, with the type each takes. */
export const CONFIG_KEYS = /** @type {const} */ ({
  out: 'string',
  only: 'list',
  skip: 'list',
  force: 'boolean',
  origins: 'list',
  report: 'boolean',
  quiet: 'boolean',
  prune: 'boolean',
  animations: 'string',
  picture: 'boolean',
  lossy: 'boolean',
  quality: 'range',
  zopfliIterations: 'number',
  maxPixels: 'number',
  jobTimeout: 'number',
  gzip: 'string',
  gzipIterations: 'number',
  zstd: 'boolean',
  configs: 'string',
  minifyHtml: 'boolean',
  textImagesThreshold: 'fraction',
  textImagesCss: 'string',
  ocr: 'boolean',
  browser: 'string',
  cache: 'boolean',
  cacheDir: 'string',
  memoryBudget: 'number',
});

/**
 * @typedef {object} ImageConfig
 * @property {boolean} [prune]
 * @property {'auto' | 'apng' | 'webp'} [animations]
 * @property {boolean} [picture]
 * @property {boolean} [lossy]
 * @property {[number, number]} [quality]
 * @property {number} [zopfliIterations]
 * @property {number} [maxPixels]
 * @property {number} [jobTimeout] seconds a worker job may run (0: no limit)
 * @property {'zopfli' | 'zlib'} [gzip] precompress: gzip encoder
 * @property {number} [gzipIterations] precompress: zopfli iterations for .gz files
 * @property {boolean} [zstd] precompress: also .zst files
 * @property {string | false} [configs] where build writes the server configs (false: none)
 * @property {boolean} [minifyHtml] run the minify-html pass
 * @property {number} [textImagesThreshold] text-images: similarity a replacement must reach (0-1)
 * @property {'inline' | 'file'} [textImagesCss] text-images: where the replacements' CSS goes
 * @property {boolean} [ocr] text-images: read images with OCR when ALT and TITLE do not match
 * @property {string} [browser] text-images: a Chromium, Chrome or Edge executable, tried before the browsers pagediet finds
 * @property {boolean} [cache]
 * @property {string} [cacheDir]
 * @property {number} [memoryBudget] MiB of file bytes kept in memory (the rest in a scratch directory)
 *
 * @typedef {{ out?: string, only?: string[], skip?: string[], force?: boolean, origins?: string[], report?: boolean, quiet?: boolean } & ImageConfig} FileConfig
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

/**
 * @param {unknown} value
 * @param {string} where
 * @returns {FileConfig}
 */
function validate(value, where) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UserError(`${where}: the config must be an object`);
  /** @type {Record<string, unknown>} */
  const config = {};
  for (const [key, v] of Object.entries(value)) {
    const type = /** @type {Record<string, string>} */ (CONFIG_KEYS)[key];
    if (!type) throw new UserError(`${where}: unknown option '${key}' (known: ${Object.keys(CONFIG_KEYS).join(', ')})`);
    const ok = type === 'list' ? Array.isArray(v) && v.every((x) => typeof x === 'string')
      : type === 'range' ? Array.isArray(v) && v.length === 2 && v.every((x) => Number.isInteger(x) && x >= 0 && x <= 100) && v[0] <= v[1]
        : type === 'fraction' ? typeof v === 'number' && v >= 0 && v <= 1
        : type === 'number' ? Number.isInteger(v) && /** @type {number} */ (v) >= 0
          : typeof v === type;
    const expected = { list: 'a list of strings', range: 'a [min, max] pair from 0 to 100', number: 'a whole number, 0 or more', fraction: 'a number from 0 to 1' }[type] ?? `a ${type}`;
    if (!ok) throw new UserError(`${where}: option '${key}' must be ${expected}`);
    config[key] = v;
  }
  return /** @type {FileConfig} */ (config);
}
