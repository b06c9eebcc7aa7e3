/**
 * Loads pages of a site directory the way the studies did: the site is
 * served on 127.0.0.1, the robot loads each page with each strategy (a first
 * visit, then a revalidation with the validators it got), and each recorded
 * exchange is modelled on each network.
 */
import fs from 'node:fs/promises';
import { startServer } from './server.js';
import { UserError } from '../errors.js';
import { missingPages, networkNames, unknownNetworks } from '../preflight.js';
import { loadPage, STRATEGIES } from './client.js';
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
 * @property {Visit[]} [visits] default: first and revalidate
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
 * @property {number} connections
 * @property {number} packets
 * @property {number} wireBytes
 * @property {number} payloadBytes
 * @property {number} seconds
 * @property {number} overheadPercent
 * @property {number} retransmissions
 * @property {{ status: Record<string, number>, bodyBytes: number, headerBytes: number, connections: number }} measured what the real exchange on loopback was
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
  const visits = options.visits ?? ['first', 'revalidate'];
  onTheFlyLevel(options.compressOnTheFly); // a bad level is refused before any server starts
  const served = { root: options.root, snapshot: true, compressOnTheFly: options.compressOnTheFly };
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
        for (const visit of visits) {
          // A revalidation needs the validators of a first visit, even when only revalidation is reported.
          if (visit === 'revalidate' && cache.size === 0) await loadPage({ origin: server.url, page, protocol, visit: 'first', cache, acceptEncoding: options.acceptEncoding });
          const trace = await loadPage({ origin: server.url, page, protocol, visit, cache, connections: options.connections, acceptEncoding: options.acceptEncoding });
          traces.push(trace);
          const plan = planFromTrace(trace);
          const onLoopback = measured(trace);
          for (const profile of networks) {
            const m = model(plan, protocol, profile, { connections: options.connections, domains: options.domains });
            runs.push({
              page, protocol, network: profile.name, visit,
              requests: m.requests, connections: m.connections, packets: m.packets, wireBytes: m.wireBytes, payloadBytes: m.payloadBytes,
              seconds: round(m.seconds, 3), overheadPercent: round(m.overheadPercent, 1), retransmissions: m.retransmissions,
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
