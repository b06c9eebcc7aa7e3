/**
 * Loads pages of a site directory the way the studies did: the site is
 * served on 127.0.0.1, the robot loads each page with each strategy (a first
 * visit; a revalidation with the validators it got; a repeat visit
 * betweenVisits later, with the browser's cache the first visit filled), and
 * each recorded exchange is modelled on each network.
 */
import fs from 'node:fs/promises';
import { startServer } from './server.js';
import { UserError } from '../build/errors.js';
import { missingPages, networkNames, unknownNetworks } from '../build/preflight.js';
import { DEFAULT_BETWEEN_VISITS, loadPage, STRATEGIES, VISITS } from './client.js';
import { model, planFromTrace } from './model.js';
import { networkProfile } from './networks.js';
import { onTheFlyLevel } from './on-the-fly.js';

export { COMPRESSIBLE_TYPES, ON_THE_FLY, isCompressibleType } from './on-the-fly.js';

/**
 * @typedef {import('./client.js').Strategy} Strategy
 * @typedef {import('./client.js').Visit} Visit
 *
 * @typedef {object} LoadSiteOptions
 * @property {string} root the site directory
 * @property {string[]} [pages] paths of pages to load (default ['/index.html'])
 * @property {Strategy[]} [protocols] default: all four
 * @property {string[]} [networks] profile names (default ['wan-1997'])
 * @property {Visit[]} [visits] default: first, revalidate and repeat (VISITS)
 * @property {number} [betweenVisits] seconds from the first visit to the repeat visit (default DEFAULT_BETWEEN_VISITS:
 *   a day); the robot's clock is set that far ahead, nothing waits
 * @property {import('./handler.js').CacheHeaders} [cacheHeaders] the Cache-Control the server sends: 'policy' (the
 *   default: that of pagediet's server configs, as `pagediet serve`) or 'none' (only ETag and Last-Modified, as a stock
 *   server: browsers' heuristic freshness applies; a report's 'before' side)
 * @property {import('./networks.js').CustomNetwork} [custom] flags for the 'custom' network
 * @property {number} [connections] parallel connections per host for http1.0 and http1.1 (default: the profile's for http1.0, 1 for http1.1)
 * @property {number} [domains] host names subresources are spread over (model only)
 * @property {string} [acceptEncoding]
 * @property {import('./on-the-fly.js').CompressOnTheFly} [compressOnTheFly] serve the site as an ordinary server
 *   would: `'gzip'` gzips, at level 6 (ON_THE_FLY), each file of a compressible type that has no precompressed
 *   sidecar (a report's 'before' side); `{ gzip: level }` at another level. Default off: the files as they are.
 *
 * @typedef {object} Run one page, strategy, network and visit
 * @property {string} page
 * @property {Strategy} protocol
 * @property {string} network
 * @property {Visit} visit
 * @property {number} requests
 * @property {number} fromCache objects taken from the browser's cache without a request (a repeat visit)
 * @property {number} connections
 * @property {number} packets
 * @property {number} wireBytes
 * @property {number} payloadBytes
 * @property {number} seconds
 * @property {number} firstRender seconds until the page and every render-blocking response it needs from the network
 *   have arrived (model.js: firstRenderSeconds)
 * @property {number | null} largestPaint seconds until the image the page names as its largest paint has arrived too;
 *   null when it names none (model.js: largestPaintSeconds)
 * @property {number} overheadPercent
 * @property {number} retransmissions
 * @property {{ status: Record<string, number>, bodyBytes: number, headerBytes: number, connections: number }} measured what the real exchange on loopback was
 *   (status: the responses that crossed it, by status)
 * @property {import('./model.js').RequestTiming[]} timeline
 *
 * @typedef {object} LoadResult
 * @property {Run[]} runs
 * @property {import('./client.js').Trace[]} traces
 */

/**
 * What a load needs, checked before a server starts: the site, its pages, the networks.
 * @param {string} root
 * @param {readonly string[]} pages
 * @param {readonly string[]} networks
 */
async function checkLoadOptions(root, pages, networks) {
  const stat = typeof root === 'string' ? await fs.stat(root).catch(() => null) : null;
  if (!stat?.isDirectory()) throw new UserError(`load options: root ${JSON.stringify(root)} is not a folder`);
  const unknown = unknownNetworks(networks);
  if (unknown.length) throw new UserError(`load options: unknown network '${unknown[0]}' in networks (known: ${networkNames()})`);
  if (!pages.length) throw new UserError(`load options: pages is empty: no page of ${root} to load`);
  const missing = await missingPages(root, pages);
  if (missing.length) throw new UserError(`load options: ${missing[0]} in pages is no page of ${root}${missing.length > 1 ? ` (nor ${missing.length - 1} more)` : ''}`);
}

/**
 * @param {LoadSiteOptions} options
 * @returns {Promise<LoadResult>}
 */
export async function loadSite(options) {
  const pages = options.pages ?? ['/index.html'];
  const protocols = options.protocols ?? [...STRATEGIES];
  await checkLoadOptions(options.root, pages, options.networks ?? []);
  const networks = (options.networks ?? ['wan-1997']).map((n) => networkProfile(n, options.custom));
  const visits = options.visits ?? [...VISITS];
  const unknownVisit = visits.find((v) => !(/** @type {readonly string[]} */ (VISITS)).includes(v));
  if (unknownVisit !== undefined) throw new UserError(`load options: unknown visit '${unknownVisit}' in visits (known: ${VISITS.join(', ')})`);
  const betweenVisits = options.betweenVisits ?? DEFAULT_BETWEEN_VISITS;
  if (typeof betweenVisits !== 'number' || !Number.isFinite(betweenVisits) || betweenVisits < 0) throw new UserError(`load options: betweenVisits must be seconds, 0 or more, not ${JSON.stringify(betweenVisits)}`);
  onTheFlyLevel(options.compressOnTheFly); // a bad level is refused before any server starts
  const served = { root: options.root, snapshot: true, compressOnTheFly: options.compressOnTheFly, cacheHeaders: options.cacheHeaders };
  const http1 = protocols.some((p) => p !== 'h2') ? await startServer({ ...served, protocol: 'http1' }) : null;
  const h2 = protocols.includes('h2') ? await startServer({ ...served, protocol: 'h2c' }) : null;
  /** @type {Run[]} */
  const runs = [];
  /** @type {import('./client.js').Trace[]} */
  const traces = [];
  try {
    for (const page of pages) {
      for (const protocol of protocols) {
        const server = /** @type {{ url: string }} */ (protocol === 'h2' ? h2 : http1);
        const cache = new Map();
        /** When the first visit started, on the real clock: the repeat visit comes betweenVisits later. */
        let firstAt = 0;
        for (const visit of visits) {
          // A revalidation or a repeat visit needs the cache of a first visit, even when only they are reported.
          if (visit !== 'first' && cache.size === 0) {
            firstAt = Date.now();
            await loadPage({ origin: server.url, page, protocol, visit: 'first', cache, acceptEncoding: options.acceptEncoding });
          }
          if (visit === 'first') firstAt = Date.now();
          const started = Date.now();
          const clock = visit === 'repeat' ? () => firstAt + betweenVisits * 1000 + (Date.now() - started) : undefined;
          const trace = await loadPage({ origin: server.url, page, protocol, visit, cache, connections: options.connections, acceptEncoding: options.acceptEncoding, clock });
          traces.push(trace);
          const plan = planFromTrace(trace);
          const onLoopback = measured(trace);
          const fromCache = trace.requests.length - plan.requests.length;
          for (const profile of networks) {
            const m = model(plan, protocol, profile, { connections: options.connections, domains: options.domains });
            runs.push({
              page, protocol, network: profile.name, visit,
              requests: m.requests, fromCache, connections: m.connections, packets: m.packets, wireBytes: m.wireBytes, payloadBytes: m.payloadBytes,
              seconds: round(m.seconds, 3), firstRender: round(m.firstRenderSeconds, 3),
              largestPaint: m.largestPaintSeconds === null ? null : round(m.largestPaintSeconds, 3), overheadPercent: round(m.overheadPercent, 1), retransmissions: m.retransmissions,
              measured: onLoopback, timeline: m.timeline,
            });
          }
        }
      }
    }
  } finally {
    await Promise.all([http1?.close(), h2?.close()]);
  }
  return { runs, traces };
}

/** @param {import('./client.js').Trace} trace */
function measured(trace) {
  /** @type {Record<string, number>} */
  const status = {};
  let bodyBytes = 0;
  let headerBytes = 0;
  for (const r of trace.requests) {
    if (r.fromCache) continue;
    status[r.status] = (status[r.status] ?? 0) + 1;
    bodyBytes += r.bodyBytes;
    headerBytes += r.requestBytes + r.responseHeaderBytes;
  }
  return { status, bodyBytes, headerBytes, connections: trace.connections.length };
}

/** @param {number} n @param {number} digits */
function round(n, digits) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
