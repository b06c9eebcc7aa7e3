/**
 * Sharding: `--shard I/N` builds a deterministic slice of a site, so that N
 * machines (sharing a cache directory) together build what one would. A page
 * belongs to the shard its path hashes to; a shard also builds every file its
 * pages load (style sheets, images, scripts, following style sheets), so a
 * file several shards' pages use is built by each of them, to the same bytes;
 * a file no page loads belongs to the shard its path hashes to.
 */
import crypto from 'node:crypto';
import { UserError } from './errors.js';
import { pageRequests } from '../site/page-requests.js';

/**
 * @typedef {object} Shard
 * @property {number} index 1-based
 * @property {number} count
 */

/**
 * Parses "I/N".
 * @param {string} text
 * @returns {Shard}
 */
export function parseShard(text) {
  const match = /^(\d+)\/(\d+)$/.exec(String(text).trim());
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || count < 1 || index < 1 || index > count) throw new UserError(`--shard must be I/N with 1 <= I <= N, not '${text}'`);
  return { index, count };
}

/**
 * The shard (1-based) a site path belongs to by its name alone.
 * @param {string} sitePath
 * @param {number} count
 */
export function shardOf(sitePath, count) {
  return (crypto.createHash('sha256').update(sitePath).digest().readUInt32BE(0) % count) + 1;
}

/**
 * The site paths a shard builds.
 * @param {import('../site/site.js').Site} site
 * @param {Shard} shard
 * @returns {Set<string>}
 */
export function shardSlice(site, shard) {
  const slice = new Set();
  const loaded = new Set();
  const loadsOf = new Map();
  for (const page of site.pages) {
    const requests = pageRequests(site, page.path, loadsOf);
    const mine = shardOf(page.path, shard.count) === shard.index;
    for (const p of requests.slice(1)) {
      if (site.files.get(p)?.role === 'page') continue; // a frame is a page of its own shard
      loaded.add(p);
      if (mine) slice.add(p);
    }
    if (mine) slice.add(page.path);
  }
  for (const file of site.files.values()) {
    if (file.role !== 'page' && !loaded.has(file.path) && shardOf(file.path, shard.count) === shard.index) slice.add(file.path);
  }
  return slice;
}
