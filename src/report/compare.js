/**
 * A before-and-after comparison of two versions of a site: both are loaded
 * with the robot and modelled on the same networks, and their files are
 * totalled by type at the encoding a browser would get. The before side is
 * served as an ordinary server serves a site (no Cache-Control: browsers'
 * heuristic freshness), the after side with the cache policy of pagediet's
 * server configs.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadSite, ON_THE_FLY, isCompressibleType } from '../loader/load.js';
import { DEFAULT_BETWEEN_VISITS } from '../loader/client.js';
import { walkSite } from '../site/walk.js';
import { extensionOf, isHtmlPath, mimeType } from '../site/mime.js';
import { MARKER } from '../build/output.js';
import { UserError } from '../build/errors.js';
import { missingPages, networkNames, unknownNetworks } from '../build/preflight.js';

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
 * @property {Change} fromCache objects taken from the browser's cache without a request
 * @property {Change} packets
 * @property {Change} wireBytes
 * @property {Change} seconds
 * @property {Change} firstRender seconds until the page and its render-blocking responses have arrived (Run.firstRender)
 *
 * @typedef {Record<string, { files: number, bytes: number, served: number }>} TypeTotals
 *   by MIME type: files, bytes on disk, and bytes served at the best encoding offered
 *
 * @typedef {object} VisitTotals one visit of every page loaded, summed over the pages
 * @property {Change} wireBytes
 * @property {Change} requests
 * @property {Change} fromCache objects taken from the browser's cache without a request (a repeat visit's)
 * @property {Record<string, Change>} seconds by network
 * @property {Record<string, Change>} firstRender seconds until the first render, summed over the pages, by network
 *
 * @typedef {object} Headline what visitors load, before and after: the report's first lines
 * @property {import('../loader/client.js').Strategy} protocol the strategy the figures are of
 * @property {number} pages pages loaded
 * @property {number} sitePages pages in the site (the input)
 * @property {Baseline} baseline how both sides were served besides the output's precompressed files
 * @property {number} betweenVisits seconds from the first visit to the repeat visit
 * @property {Partial<Record<import('../loader/client.js').Visit, VisitTotals>>} visits first, repeat and revalidate,
 *   in that order, those that were loaded
 *
 * @typedef {'gzip' | 'raw'} Baseline how both sides are served besides their own precompressed files: 'gzip', as an
 *   ordinary server does (gzip at ON_THE_FLY.level on the fly for compressible types without a sidecar), or 'raw' (no
 *   compression but the sidecars)
 *
 * @typedef {object} ReportData
 * @property {Baseline} baseline
 * @property {number} betweenVisits seconds from the first visit to the repeat visit
 * @property {{ site: string, runs: Run[], files: TypeTotals }} before
 * @property {{ site: string, runs: Run[], files: TypeTotals }} after
 * @property {Comparison[]} savings
 * @property {Headline} headline
 *
 * @typedef {Omit<import('../loader/load.js').LoadSiteOptions, 'root' | 'compressOnTheFly' | 'cacheHeaders'> & { before: string, after: string, sample?: number, baseline?: Baseline }} CompareOptions
 *   sample: how many pages to load when `pages` is not given (default REPORT_SAMPLE); baseline: default 'gzip'.
 *   The before side is served without Cache-Control (cacheHeaders 'none', as a stock server), the after side with the
 *   configs' policy ('policy').
 */

/** The order reports show the visits in: what a visitor sees first and when coming back, then the revalidation. */
export const REPORT_VISITS = /** @type {const} */ (['first', 'repeat', 'revalidate']);

/**
 * Visits in the order reports show them (REPORT_VISITS), any other after.
 * @template {string} V
 * @param {V[]} visits
 * @returns {V[]}
 */
export function inReportOrder(visits) {
  const rank = (/** @type {string} */ v) => {
    const i = (/** @type {readonly string[]} */ (REPORT_VISITS)).indexOf(v);
    return i < 0 ? REPORT_VISITS.length : i;
  };
  return [...visits].sort((a, b) => rank(a) - rank(b));
}

/** Networks a report models when none are named: two of the studies', two of today's. */
export const REPORT_NETWORKS = ['modem-28.8k', 'wan-1997', 'slow-4g', 'cable'];

/** Pages a report loads when none are named. */
export const REPORT_SAMPLE = 10;

/** The strategy of the headline: what a visitor's browser uses today. */
export const HEADLINE_PROTOCOL = 'h2';

/**
 * @param {CompareOptions} options
 * @returns {Promise<ReportData>}
 */
export async function compareSites(options) {
  const { before, after, sample, baseline = 'gzip', ...load } = options;
  if (baseline !== 'gzip' && baseline !== 'raw') throw new RangeError(`baseline must be 'gzip' or 'raw', not ${JSON.stringify(baseline)}`);
  for (const [name, dir] of [['before', before], ['after', after]]) {
    const stat = typeof dir === 'string' ? await fs.stat(dir).catch(() => null) : null;
    if (!stat?.isDirectory()) throw new UserError(`report options: ${name} ${JSON.stringify(dir)} is not a folder`);
  }
  if (load.betweenVisits !== undefined && !(typeof load.betweenVisits === 'number' && Number.isFinite(load.betweenVisits) && load.betweenVisits >= 0)) {
    throw new UserError(`report options: betweenVisits must be seconds, 0 or more, not ${JSON.stringify(load.betweenVisits)}`);
  }
  const all = await sitePages(before);
  if (!all.length && !load.pages) throw new UserError(`report options: before ${before} has no page (.html or .htm) to load`);
  const pages = load.pages ?? samplePages(all, sample ?? REPORT_SAMPLE);
  const unknown = unknownNetworks(load.networks ?? []);
  if (unknown.length) throw new UserError(`report options: unknown network '${unknown[0]}' in networks (known: ${networkNames()})`);
  for (const [name, dir] of [['before', before], ['after', after]]) {
    const missing = await missingPages(dir, pages);
    if (missing.length) throw new UserError(`report options: ${missing[0]} is no page of ${name} ${dir}${missing.length > 1 ? ` (nor ${missing.length - 1} more)` : ''}`);
  }
  // Both sides on the same ordinary server: the output's precompressed files are what it adds. The input gets a stock
  // server's cache headers (none: heuristic freshness), the output those of the configs written beside it.
  const betweenVisits = load.betweenVisits ?? DEFAULT_BETWEEN_VISITS;
  const shared = { ...load, betweenVisits, pages, networks: load.networks ?? REPORT_NETWORKS, ...(baseline === 'gzip' ? { compressOnTheFly: /** @type {const} */ ('gzip') } : {}) };
  const a = await loadSite({ ...shared, root: before, cacheHeaders: 'none' });
  const b = await loadSite({ ...shared, root: after, cacheHeaders: 'policy' });
  /** @type {Comparison[]} */
  const savings = [];
  for (const r of a.runs) {
    const s = b.runs.find((x) => x.page === r.page && x.protocol === r.protocol && x.network === r.network && x.visit === r.visit);
    if (!s) continue;
    savings.push({
      page: r.page, protocol: r.protocol, network: r.network, visit: r.visit,
      requests: change(r.requests, s.requests), fromCache: change(r.fromCache, s.fromCache), packets: change(r.packets, s.packets),
      wireBytes: change(r.wireBytes, s.wireBytes), seconds: change(r.seconds, s.seconds), firstRender: change(r.firstRender, s.firstRender),
    });
  }
  return {
    baseline,
    betweenVisits,
    before: { site: path.resolve(before), runs: a.runs, files: await typeTotals(before, baseline) },
    after: { site: path.resolve(after), runs: b.runs, files: await typeTotals(after, baseline) },
    savings,
    headline: headline(savings, pages.length, all.length, baseline, betweenVisits),
  };
}

/**
 * Sums the comparisons of every page loaded, by visit, on the headline's
 * strategy (or the first one loaded, when it was not).
 * @param {Comparison[]} savings
 * @param {number} pages
 * @param {number} sitePages
 * @param {Baseline} baseline
 * @param {number} [betweenVisits] seconds from the first to the repeat visit (default a day)
 * @returns {Headline}
 */
export function headline(savings, pages, sitePages, baseline, betweenVisits = DEFAULT_BETWEEN_VISITS) {
  const protocol = savings.some((c) => c.protocol === HEADLINE_PROTOCOL) ? HEADLINE_PROTOCOL : (savings[0]?.protocol ?? HEADLINE_PROTOCOL);
  /** @type {Headline['visits']} */
  const visits = {};
  const networks = [...new Set(savings.map((c) => c.network))];
  for (const visit of REPORT_VISITS) {
    const of = savings.filter((c) => c.protocol === protocol && c.visit === visit);
    if (!of.length) continue;
    // Bytes and requests do not depend on the network: one network's runs count each page once.
    const once = of.filter((c) => c.network === networks[0]);
    /** @param {Comparison[]} list @param {'wireBytes' | 'requests' | 'fromCache' | 'seconds' | 'firstRender'} key */
    const total = (list, key) => change(list.reduce((n, c) => n + c[key].before, 0), list.reduce((n, c) => n + c[key].after, 0));
    visits[visit] = {
      wireBytes: total(once, 'wireBytes'),
      requests: total(once, 'requests'),
      fromCache: total(once, 'fromCache'),
      seconds: Object.fromEntries(networks.map((n) => [n, total(of.filter((c) => c.network === n), 'seconds')])),
      firstRender: Object.fromEntries(networks.map((n) => [n, total(of.filter((c) => c.network === n), 'firstRender')])),
    };
  }
  return { protocol, pages, sitePages, baseline, betweenVisits, visits };
}

/** @param {number} before @param {number} after @returns {Change} */
export function change(before, after) {
  const saved = before - after;
  return { before, after, saved: Math.round(saved * 1000) / 1000, percent: before ? Math.round((saved / before) * 1000) / 10 : 0 };
}

/**
 * The pages of a site as URL paths: index.html first, then the others in
 * path order.
 * @param {string} root
 * @returns {Promise<string[]>}
 */
export async function sitePages(root) {
  const { files } = await walkSite(path.resolve(root));
  const pages = files.map((f) => f.path).filter((p) => isHtmlPath(p));
  pages.sort((x, y) => Number(y === 'index.html') - Number(x === 'index.html') || (x < y ? -1 : 1));
  return pages.map((p) => `/${p.split('/').map(encodeURIComponent).join('/')}`);
}

/**
 * The pages a report loads by default (a report is a sample, not a crawl):
 * the first page (index.html), then pages spread evenly over the rest in
 * path order, so every part of a large site is in it, not its first folder.
 * @param {string[]} pages from sitePages()
 * @param {number} count
 * @returns {string[]}
 */
export function samplePages(pages, count) {
  if (pages.length <= count) return pages;
  if (count <= 1) return pages.slice(0, Math.max(count, 0));
  const rest = pages.length - 1;
  const picked = new Set([0]);
  for (let i = 0; i < count - 1; i++) picked.add(1 + Math.floor((i * rest) / (count - 1)));
  return [...picked].sort((a, b) => a - b).map((i) => pages[i]);
}

/**
 * The pages a report loads by default.
 * @param {string} root
 * @param {number} [count]
 */
export async function defaultPages(root, count = REPORT_SAMPLE) {
  return samplePages(await sitePages(root), count);
}

/** Sidecar extensions a server picks instead of the file, for a browser that accepts br and gzip. */
const SIDECARS = ['br', 'gz'];

/**
 * @param {string} root
 * @param {Baseline} [baseline] 'gzip': a compressible file without sidecars is served gzipped, as on the fly
 * @returns {Promise<TypeTotals>}
 */
export async function typeTotals(root, baseline = 'raw') {
  const { files } = await walkSite(path.resolve(root));
  const sizes = new Map(files.map((f) => [f.path, f.size]));
  /** @type {TypeTotals} */
  const totals = {};
  for (const f of files) {
    const ext = extensionOf(f.path);
    const base = f.path.slice(0, -(ext.length + 1));
    if (f.path === MARKER || (SIDECARS.includes(ext) && sizes.has(base)) || ext === 'zst') continue;
    const type = mimeType(f.path);
    const sidecars = SIDECARS.map((s) => sizes.get(`${f.path}.${s}`) ?? Infinity);
    const onTheFly = baseline === 'gzip' && f.size > 0 && sidecars.every((n) => n === Infinity) && isCompressibleType(type)
      ? gzipSync(await fs.readFile(path.join(root, f.path)), { level: ON_THE_FLY.level }).length
      : Infinity;
    const served = Math.min(f.size, onTheFly, ...sidecars);
    const t = totals[type] ?? { files: 0, bytes: 0, served: 0 };
    t.files++;
    t.bytes += f.size;
    t.served += served;
    totals[type] = t;
  }
  return Object.fromEntries(Object.entries(totals).sort(([x], [y]) => (x < y ? -1 : 1)));
}
