/**
 * Server configs by name, from a list of the site's files (and the charsets
 * of its pages): what `pagediet configs` prints and what a build writes
 * beside its output, into `<output>-configs/`.
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../build/errors.js';
import { detectHtmlCharset } from '../site/charset.js';
import { isInside, realish, walkSite } from '../site/walk.js';
import { forEachOrdered } from '../util/ordered.js';
import { apacheConfig } from './apache.js';
import { caddyConfig } from './caddy.js';
import { h2oConfig } from './h2o.js';
import { headersConfig } from './headers.js';
import { preloadHeaders } from './page-preloads.js';
import { nginxBrotliConfig, nginxConfig } from './nginx.js';
import { CONFIGS_DIR, isPage, siteFacts } from './shared.js';

export { CONFIGS_DIR };

/** @typedef {'nginx' | 'nginx-brotli' | 'apache' | 'caddy' | 'h2o' | 'headers'} ServerName */

/** Each config's file name (nginx-brotli: the include for the ngx_brotli module, beside nginx's). */
export const CONFIG_FILES = /** @type {const} */ ({ nginx: 'nginx.conf', 'nginx-brotli': 'nginx-brotli.conf', apache: 'htaccess', caddy: 'caddy.conf', h2o: 'h2o.yaml', headers: '_headers' });

export const SERVERS = /** @type {ServerName[]} */ (Object.keys(CONFIG_FILES));

/** Every config starts so (then pagediet's version): a file that does not is not pagediet's, and is never replaced. */
const OWN_CONFIG_START = '# pagediet ';

/**
 * @typedef {object} SiteListing
 * @property {string[]} files site paths of every file
 * @property {string} root the site's absolute directory
 * @property {string[]} [pageCharsets] the charset of each page ('utf-8' for an ASCII one; pageCharset()); none: every
 *   page is taken for UTF-8
 * @property {Map<string, string[]>} [pagePreloads] the `Link` header values of each page's image and font preloads
 *   (page-preloads.js), for the pages that have any
 */

/**
 * One server's config.
 * @param {ServerName} server
 * @param {SiteListing} site
 */
export function serverConfig(server, site) {
  const facts = siteFacts(site.files, site.pageCharsets, site.pagePreloads);
  switch (server) {
    case 'nginx': return nginxConfig(facts);
    case 'nginx-brotli': return nginxBrotliConfig();
    case 'apache': return apacheConfig(facts);
    case 'caddy': return caddyConfig(facts);
    case 'h2o': return h2oConfig(facts, site.root);
    case 'headers': return headersConfig(facts);
    default: throw new UserError(`unknown server '${server}'; known: ${SERVERS.join(', ')}`);
  }
}

/**
 * Every server's config, by file name.
 * @param {SiteListing} site
 * @returns {Record<string, string>}
 */
export function allConfigs(site) {
  return Object.fromEntries(SERVERS.map((s) => [CONFIG_FILES[s], serverConfig(s, site)]));
}

/**
 * A page's charset as the configs see it: ASCII bytes read the same in UTF-8, whatever the page declares.
 * @param {Uint8Array} bytes
 */
export function pageCharset(bytes) {
  return isAscii(bytes) ? 'utf-8' : detectHtmlCharset(bytes).charset;
}

/**
 * The files of a built site on disk, and its pages' charsets, for `pagediet configs <dir>`.
 * @param {string} dir
 * @returns {Promise<SiteListing>}
 */
export async function readSiteFiles(dir) {
  const stats = await fs.stat(dir).catch(() => null);
  if (!stats) throw new UserError(`directory ${dir} does not exist`);
  if (!stats.isDirectory()) throw new UserError(`${dir} is not a directory`);
  const root = await fs.realpath(dir);
  const walked = await walkSite(root);
  const files = walked.files.map((f) => f.path);
  const { pageCharsets, pagePreloads } = await readPages(files, (f) => fs.readFile(path.join(root, f)));
  return { root, files, pageCharsets, pagePreloads };
}

/**
 * What the configs read in the pages: each page's charset and its image and font preloads.
 * @param {string[]} files
 * @param {(page: string) => Promise<Uint8Array | null>} read
 */
async function readPages(files, read) {
  /** @type {string[]} */
  const pageCharsets = [];
  /** @type {Map<string, string[]>} */
  const pagePreloads = new Map();
  await forEachOrdered(files.filter(isPage), async (f) => {
    const bytes = await read(f);
    return bytes && { charset: pageCharset(bytes), preloads: preloadHeaders(bytes, f) };
  }, (found, f) => {
    if (!found) return;
    pageCharsets.push(found.charset);
    if (found.preloads.length) pagePreloads.set(f, found.preloads);
  });
  return { pageCharsets, pagePreloads };
}

/**
 * Where a build writes its configs when not told: the folder beside the
 * output, named after it (dist → dist-configs), so that a deploy of the
 * output never publishes them.
 * @param {string} outputDir absolute
 */
export function defaultConfigsDir(outputDir) {
  const base = path.basename(outputDir);
  if (!base) throw new UserError(`output ${outputDir} has no folder beside it for the server configs: name one with configs`, { cli: `output ${outputDir} has no folder beside it for the server configs: name one with --configs <dir>` });
  return path.join(path.dirname(outputDir), `${base}-configs`);
}

/**
 * After the passes of a build: every config, as artifacts of the build
 * (site.artifacts, by absolute path; the output writer writes them once the
 * site is written, atomically, and the summary counts them), for the folder
 * `dir` or, by default, `<output>-configs/` beside the output. Only the
 * config files are written there, each replacing the one an earlier build
 * wrote; a file of that name that is not pagediet's (it does not start with
 * pagediet's comment) is kept, and the config is not written. In a folder
 * inside the output (only when `dir` names one), a site file of that name
 * is kept too.
 * @param {import('../site/site.js').Site} site
 * @param {{ outputDir: string, dir?: string }} where outputDir: the output's real absolute path
 * @returns {Promise<string[]>} the absolute paths to be written
 */
export async function writeBuildConfigs(site, where) {
  const dir = await realish(where.dir ? path.resolve(where.dir) : defaultConfigsDir(where.outputDir));
  if (isInside(dir, site.root)) throw new UserError(`the server configs' folder ${dir} is in the input ${site.root}: name another with configs, or configs: false`, { cli: `the server configs' folder ${dir} is in the input ${site.root}: name another with --configs <dir>, or --no-configs` });
  const stats = await fs.stat(dir).catch(() => null);
  if (stats && !stats.isDirectory()) throw new UserError(`the server configs' folder ${dir} exists and is not a folder: name another with configs, or configs: false`, { cli: `the server configs' folder ${dir} exists and is not a folder: name another with --configs <dir>, or --no-configs` });
  const files = [...site.files.keys()];
  const { pageCharsets, pagePreloads } = await readPages(files, (f) => site.read(f).catch(() => null));
  const configs = allConfigs({ files, root: where.outputDir, pageCharsets, pagePreloads });
  /** @type {string[]} */
  const written = [];
  for (const [name, text] of Object.entries(configs)) {
    const target = path.join(dir, name);
    const display = path.relative(path.dirname(where.outputDir), target);
    if (isInside(target, where.outputDir) && site.files.has(path.relative(where.outputDir, target).split(path.sep).join('/'))) {
      site.warn('', 'config-exists', `${display} is a file of the site: kept, no ${name} written`);
      continue;
    }
    if (!(await ownOrAbsent(target))) {
      site.warn('', 'config-exists', `${target} exists and was not written by pagediet: kept, no ${name} written`);
      continue;
    }
    site.artifacts.set(target, Buffer.from(text));
    written.push(target);
  }
  return written;
}

/**
 * Whether a config may be written at `file`: nothing is there, or a config pagediet wrote.
 * @param {string} file
 */
async function ownOrAbsent(file) {
  let handle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT';
  }
  try {
    if (!(await handle.stat()).isFile()) return false;
    const start = Buffer.alloc(OWN_CONFIG_START.length);
    const { bytesRead } = await handle.read(start, 0, start.length, 0);
    return start.subarray(0, bytesRead).toString('latin1') === OWN_CONFIG_START;
  } finally {
    await handle.close();
  }
}
