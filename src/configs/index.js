/**
 * Server configs by name, from a list of the site's files: what
 * `pagediet configs` prints and what a build writes into pagediet-configs/.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../errors.js';
import { walkSite } from '../site/walk.js';
import { writeFileAtomic } from '../util/atomic.js';
import { apacheConfig } from './apache.js';
import { caddyConfig } from './caddy.js';
import { h2oConfig } from './h2o.js';
import { headersConfig } from './headers.js';
import { nginxConfig } from './nginx.js';
import { CONFIGS_DIR, siteFacts } from './shared.js';

export { CONFIGS_DIR };

/** @typedef {'nginx' | 'apache' | 'caddy' | 'h2o' | 'headers'} ServerName */

/** Each server's config file name. */
export const CONFIG_FILES = /** @type {const} */ ({ nginx: 'nginx.conf', apache: 'htaccess', caddy: 'caddy.conf', h2o: 'h2o.yaml', headers: '_headers' });

export const SERVERS = /** @type {ServerName[]} */ (Object.keys(CONFIG_FILES));

/**
 * One server's config.
 * @param {ServerName} server
 * @param {{ files: string[], root: string }} site site paths of every file, and the site's absolute directory
 */
export function serverConfig(server, site) {
  const facts = siteFacts(site.files);
  switch (server) {
    case 'nginx': return nginxConfig(facts);
    case 'apache': return apacheConfig(facts);
    case 'caddy': return caddyConfig(facts);
    case 'h2o': return h2oConfig(facts, site.root);
    case 'headers': return headersConfig(facts);
    default: throw new UserError(`unknown server '${server}'; known: ${SERVERS.join(', ')}`);
  }
}

/**
 * Every server's config, by file name.
 * @param {{ files: string[], root: string }} site
 * @returns {Record<string, string>}
 */
export function allConfigs(site) {
  return Object.fromEntries(SERVERS.map((s) => [CONFIG_FILES[s], serverConfig(s, site)]));
}

/**
 * The files of a built site on disk, for `pagediet configs <dir>`.
 * @param {string} dir
 */
export async function readSiteFiles(dir) {
  const stats = await fs.stat(dir).catch(() => null);
  if (!stats) throw new UserError(`directory ${dir} does not exist`);
  if (!stats.isDirectory()) throw new UserError(`${dir} is not a directory`);
  const root = await fs.realpath(dir);
  const walked = await walkSite(root);
  return { root, files: walked.files.map((f) => f.path) };
}

/**
 * After the passes of a build: every config, into the output's
 * pagediet-configs/ (as artifacts of the build: the output's marker lists
 * them, the summary does not count them as files of the site) or, when
 * `dir` is given, into that directory.
 * @param {import('../site/site.js').Site} site
 * @param {{ outputDir: string, dir?: string }} where
 * @returns {Promise<string[]>} the paths written
 */
export async function writeBuildConfigs(site, where) {
  const configs = allConfigs({ files: [...site.files.keys()], root: where.outputDir });
  /** @type {string[]} */
  const written = [];
  if (where.dir) {
    await fs.mkdir(where.dir, { recursive: true });
    for (const [name, text] of Object.entries(configs)) {
      await writeFileAtomic(path.join(where.dir, name), text);
      written.push(path.join(where.dir, name));
    }
    return written;
  }
  for (const [name, text] of Object.entries(configs)) {
    const sitePath = `${CONFIGS_DIR}/${name}`;
    if (site.files.has(sitePath)) {
      site.warn(sitePath, 'config-exists', `${sitePath} is in the input: kept, no ${name} written`);
      continue;
    }
    site.artifacts.set(sitePath, Buffer.from(text));
    written.push(sitePath);
  }
  return written;
}
