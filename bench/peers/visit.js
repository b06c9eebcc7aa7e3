// What a site costs a visitor: every page loaded by pagediet's robot from
// pagediet's server (which sends a file's .br or .gz sidecar when the robot,
// like a browser, says Accept-Encoding: br, gzip), once as a first visit with
// an empty cache and once as a revalidation with the validators it got, and
// each exchange modelled on one network profile.
import { loadSite } from '../../src/loader/load.js';
import { isHtmlPath } from '../../src/site/mime.js';
import { listFiles } from './chain.js';

/** The strategy and network every site is measured on: HTTP/2, Lighthouse's throttled mobile. */
export const VISIT_PROFILE = /** @type {const} */ ({ protocol: 'h2', network: 'slow-4g' });

/**
 * @typedef {object} VisitFigures means per page
 * @property {number} pages
 * @property {number} firstWireBytes bytes of a first visit on the wire (payload plus TCP/IP headers, both directions)
 * @property {number} firstBodyBytes response bodies of a first visit, as sent (compressed where a sidecar was sent)
 * @property {number} requests requests of a first visit
 * @property {number} revalidateWireBytes bytes of a revalidation visit on the wire
 * @property {number} firstSeconds a first visit's modelled time
 * @property {Record<string, number>} status responses by status code, first visits of all pages
 */

/**
 * The site's pages, sorted, as URL paths.
 * @param {string} root
 */
export async function pagesOf(root) {
  return (await listFiles(root)).filter((f) => isHtmlPath(f)).map((f) => `/${f.split('/').map(encodeURIComponent).join('/')}`);
}

/**
 * Loads every page of a site and returns the means per page.
 * @param {string} root
 * @param {string[]} pages URL paths
 * @returns {Promise<VisitFigures>}
 */
export async function visit(root, pages) {
  const { runs } = await loadSite({ root, pages, protocols: [VISIT_PROFILE.protocol], networks: [VISIT_PROFILE.network], visits: ['first', 'revalidate'] });
  const first = runs.filter((r) => r.visit === 'first');
  const again = runs.filter((r) => r.visit === 'revalidate');
  /** @param {typeof runs} rs @param {(r: typeof runs[number]) => number} f */
  const mean = (rs, f) => Math.round((rs.reduce((n, r) => n + f(r), 0) / rs.length) * 10) / 10;
  /** @type {Record<string, number>} */
  const status = {};
  for (const r of first) for (const [code, n] of Object.entries(r.measured.status)) status[code] = (status[code] ?? 0) + n;
  return {
    pages: first.length,
    firstWireBytes: mean(first, (r) => r.wireBytes),
    firstBodyBytes: mean(first, (r) => r.measured.bodyBytes),
    requests: mean(first, (r) => r.requests),
    revalidateWireBytes: mean(again, (r) => r.wireBytes),
    firstSeconds: Math.round(mean(first, (r) => r.seconds * 1000)) / 1000,
    status,
  };
}
