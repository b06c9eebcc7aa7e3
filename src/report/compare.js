/**
 * A before-and-after comparison of two versions of a site: both are loaded
 * with the robot and modelled on the same networks, and their files are
 * totalled by type at the encoding a browser would get.
 */
import path from 'node:path';
import { loadSite } from '../loader/load.js';
import { walkSite } from '../site/walk.js';
import { extensionOf, isHtmlPath, mimeType } from '../site/mime.js';
import { MARKER } from '../output.js';

/**
 * @typedef {import('../loader/load.js').Run} Run
 *
 * @typedef {object} Change
 * @property {number} before
 * @property {number} after
 * @property {number} saved before - after
 * @property {number} percent saved, of before
 *
 * @typedef {object} Comparison one page, strategy, network and visit, before and after
 * @property {string} page
 * @property {import('../loader/client.js').Strategy} protocol
 * @property {string} network
 * @property {import('../loader/client.js').Visit} visit
 * @property {Change} requests
 * @property {Change} packets
 * @property {Change} wireBytes
 * @property {Change} seconds
 *
 * @typedef {Record<string, { files: number, bytes: number, served: number }>} TypeTotals
 *   by MIME type: files, bytes on disk, and bytes served at the best encoding offered
 *
 * @typedef {object} ReportData
 * @property {{ site: string, runs: Run[], files: TypeTotals }} before
 * @property {{ site: string, runs: Run[], files: TypeTotals }} after
 * @property {Comparison[]} savings
 *
 * @typedef {Omit<import('../loader/load.js').LoadSiteOptions, 'root'> & { before: string, after: string }} CompareOptions
 */

/** Networks a report models when none are named: two of the studies', two of today's. */
export const REPORT_NETWORKS = ['modem-28.8k', 'wan-1997', 'slow-4g', 'cable'];

/**
 * @param {CompareOptions} options
 * @returns {Promise<ReportData>}
 */
export async function compareSites(options) {
  const { before, after, ...load } = options;
  const pages = load.pages ?? (await defaultPages(before));
  const shared = { ...load, pages, networks: load.networks ?? REPORT_NETWORKS };
  const [a, b] = [await loadSite({ ...shared, root: before }), await loadSite({ ...shared, root: after })];
  /** @type {Comparison[]} */
  const savings = [];
  for (const r of a.runs) {
    const s = b.runs.find((x) => x.page === r.page && x.protocol === r.protocol && x.network === r.network && x.visit === r.visit);
    if (!s) continue;
    savings.push({
      page: r.page, protocol: r.protocol, network: r.network, visit: r.visit,
      requests: change(r.requests, s.requests), packets: change(r.packets, s.packets),
      wireBytes: change(r.wireBytes, s.wireBytes), seconds: change(r.seconds, s.seconds),
    });
  }
  return {
    before: { site: path.resolve(before), runs: a.runs, files: await typeTotals(before) },
    after: { site: path.resolve(after), runs: b.runs, files: await typeTotals(after) },
    savings,
  };
}

/** @param {number} before @param {number} after @returns {Change} */
export function change(before, after) {
  const saved = before - after;
  return { before, after, saved: Math.round(saved * 1000) / 1000, percent: before ? Math.round((saved / before) * 1000) / 10 : 0 };
}

/**
 * The pages a report loads by default: index.html first, then the others in
 * path order, ten at most (a report is a sample, not a crawl).
 * @param {string} root
 */
export async function defaultPages(root) {
  const { files } = await walkSite(path.resolve(root));
  const pages = files.map((f) => f.path).filter((p) => isHtmlPath(p));
  pages.sort((x, y) => Number(y === 'index.html') - Number(x === 'index.html') || (x < y ? -1 : 1));
  return pages.slice(0, 10).map((p) => `/${p.split('/').map(encodeURIComponent).join('/')}`);
}

/** Sidecar extensions a server picks instead of the file, for a browser that accepts br and gzip. */
const SIDECARS = ['br', 'gz'];

/**
 * @param {string} root
 * @returns {Promise<TypeTotals>}
 */
export async function typeTotals(root) {
  const { files } = await walkSite(path.resolve(root));
  const sizes = new Map(files.map((f) => [f.path, f.size]));
  /** @type {TypeTotals} */
  const totals = {};
  for (const f of files) {
    const ext = extensionOf(f.path);
    const base = f.path.slice(0, -(ext.length + 1));
    if (f.path === MARKER || (SIDECARS.includes(ext) && sizes.has(base)) || ext === 'zst') continue;
    const served = Math.min(f.size, ...SIDECARS.map((s) => sizes.get(`${f.path}.${s}`) ?? Infinity));
    const type = mimeType(f.path);
    const t = totals[type] ?? { files: 0, bytes: 0, served: 0 };
    t.files++;
    t.bytes += f.size;
    t.served += served;
    totals[type] = t;
  }
  return Object.fromEntries(Object.entries(totals).sort(([x], [y]) => (x < y ? -1 : 1)));
}
