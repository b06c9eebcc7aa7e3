// The robot on the real servers: fixtures/microscape built with pagediet's
// default passes, served by Debian's nginx, Apache, Caddy and h2o, each with
// the config the build wrote beside the output (<output>-configs/), and loaded
// over every strategy: HTTP/1.0 (a connection per request), HTTP/1.1,
// pipelined HTTP/1.1 and HTTP/2 in cleartext with prior knowledge. Each load
// must come out as the same load from pagediet's own server (src/loader/server.js)
// does: the same requests in the same order, connections and writes, statuses,
// codings (but h2o's over HTTP/1.0, see expectedFigures) and decoded bytes, and
// bodies that are the built files; then the same revalidation. So a count of
// requests per strategy on a real server is the count the robot makes on
// pagediet's server, and a repeat visit a day later sends the page's request alone.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { CONFIG_FILES } from '../src/configs/index.js';
import { STRATEGIES, loadPage } from '../src/loader/client.js';
import { startServer as startOwnServer } from '../src/loader/server.js';
import { h2Unavailable, startServer, unavailable } from './helpers/servers.js';
import { tempDir } from './helpers/tmp.js';
import { needed } from './helpers/needed.js';

/** @typedef {import('../src/loader/client.js').Strategy} Strategy */
/** @typedef {import('../src/loader/client.js').Trace} Trace */
/** @typedef {import('../src/loader/client.js').CacheEntry} CacheEntry */
/** @typedef {import('./helpers/servers.js').ServerName} ServerName */

const PAGE = '/index.html';
const REAL_SERVERS = /** @type {const} */ (['nginx', 'apache', 'caddy', 'h2o']);

/** Why each real server is skipped here (null: it runs); under CI a missing one fails instead. */
const skip = Object.fromEntries(REAL_SERVERS.map((name) => [name, needed(unavailable(name), `test/real-servers-loader.test.js: ${name}'s loads`)]));
/** Why a server that runs cannot be loaded over 'h2' here (the helper's h2Unavailable), or null. */
const skipH2 = Object.fromEntries(REAL_SERVERS.map((name) => [name, skip[name] ? null : needed(h2Unavailable(name), `test/real-servers-loader.test.js: ${name}'s h2c loads`)]));
const anyServer = REAL_SERVERS.some((name) => !skip[name]);

/**
 * What a load came to, in the figures the tests compare.
 * @typedef {object} Figures
 * @property {number} requests
 * @property {number[][]} writes for each connection, how many requests each of its writes carried
 * @property {{ path: string, status: number, encoding: string | null, decodedBytes: number }[]} responses in request order
 */

/** @param {Trace} trace @returns {Figures} */
function figures(trace) {
  return {
    requests: trace.requests.length,
    writes: trace.connections.map((c) => c.writes.map((w) => w.length)),
    responses: trace.requests.map((r) => ({ path: r.path, status: r.status, encoding: r.encoding, decodedBytes: r.decodedBytes })),
  };
}

/** @type {string} the build's output, served by every server */
let output;
/** @type {Record<string, string>} the configs the build wrote beside it, by file name */
let configs;
/**
 * The robot's loads from pagediet's own server (http1 for the HTTP/1 strategies, h2c for h2), by strategy.
 * @type {Map<Strategy, { first: Trace, revalidate: Trace, repeat: Trace }>}
 */
const reference = new Map();

beforeAll(async () => {
  if (!anyServer) return;
  output = path.join(await tempDir('pagediet-real-loader-'), 'site');
  await build({ input: 'fixtures/microscape', output, cache: false });
  const configsDir = `${output}-configs`;
  configs = Object.fromEntries(await Promise.all((await fs.readdir(configsDir)).map(async (f) => [f, await fs.readFile(path.join(configsDir, f), 'utf8')])));
  // Before any real server starts (Apache puts its .htaccess into the output while it runs).
  const http1 = await startOwnServer({ root: output, protocol: 'http1' });
  const h2c = await startOwnServer({ root: output, protocol: 'h2c' });
  try {
    for (const strategy of STRATEGIES) {
      const origin = strategy === 'h2' ? h2c.url : http1.url;
      const cache = new Map();
      const first = await firstVisit(origin, strategy, cache);
      const revalidate = await revalidation(origin, strategy, cache);
      reference.set(strategy, { first, revalidate, repeat: await repeatVisit(origin, strategy, cache) });
    }
  } finally {
    await http1.close();
    await h2c.close();
  }
}, 240_000);

/**
 * A first visit to the page.
 * @param {string} origin
 * @param {Strategy} strategy
 * @param {Map<string, CacheEntry>} cache filled with every body, decoded, by path
 */
function firstVisit(origin, strategy, cache) {
  return loadPage({ origin, page: PAGE, protocol: strategy, visit: 'first', cache });
}

/**
 * A revalidation of everything the first visit cached.
 * @param {string} origin
 * @param {Strategy} strategy
 * @param {Map<string, CacheEntry>} cache
 */
function revalidation(origin, strategy, cache) {
  return loadPage({ origin, page: PAGE, protocol: strategy, visit: 'revalidate', cache });
}

/**
 * Every body the robot decoded is the built file at its path: no response went to
 * another request (pipelined responses are matched to requests by their order alone).
 * @param {Map<string, CacheEntry>} cache
 * @param {string} where
 */
async function expectBodiesAreTheFiles(cache, where) {
  for (const [urlPath, entry] of cache) {
    const file = await fs.readFile(path.join(output, decodeURIComponent(urlPath.split('?')[0])));
    expect(entry.body.equals(file), `${where} ${urlPath}`).toBe(true);
  }
}

/**
 * The figures a real server must give: pagediet's own, but that h2o 2.2 sends no
 * precompressed file to an HTTP/1.0 request (lib/handler/file.c sends one only when
 * `req->version >= 0x101`): the same bytes, decoded, without a Content-Encoding.
 * @param {ServerName} server
 * @param {Strategy} strategy
 * @param {Trace} trace pagediet's own server's
 */
function expectedFigures(server, strategy, trace) {
  const expected = figures(trace);
  if (server === 'h2o' && strategy === 'http1.0') expected.responses = expected.responses.map((r) => ({ ...r, encoding: null }));
  return expected;
}

/**
 * A day later, with the cache of the first visit (a browser coming back): every
 * file the page loads has a fingerprinted name after a default build, so the
 * server's year-long Cache-Control keeps it fresh, and the page alone (no-cache)
 * is asked again, answered 304. The same on every server, h2o included (its
 * config lists each fingerprinted file).
 * @param {string} origin
 * @param {Strategy} strategy
 * @param {Map<string, CacheEntry>} cache
 */
function repeatVisit(origin, strategy, cache) {
  return loadPage({ origin, page: PAGE, protocol: strategy, visit: 'repeat', cache, betweenVisits: 86_400 });
}

/**
 * What a repeat visit sent and what it took from the cache.
 * @param {Trace} trace
 */
function repeatFigures(trace) {
  return {
    sent: trace.requests.filter((r) => !r.fromCache).map((r) => [r.path, r.status]),
    fromCache: trace.requests.filter((r) => r.fromCache).map((r) => r.path).sort(),
  };
}

/**
 * The repeat visit on a real server: one request, the page's 304, and every
 * other file of the first visit from the cache, as from pagediet's own server.
 * @param {{ server: ServerName, strategy: Strategy, origin: string, cache: Map<string, CacheEntry>, first: Trace }} visit
 */
async function checkRepeatVisit({ server, strategy, origin, cache, first }) {
  const where = `${server} ${strategy} repeat`;
  const repeat = repeatFigures(await repeatVisit(origin, strategy, cache));
  const others = first.requests.filter((r) => r.path !== PAGE).map((r) => r.path).sort();
  expect(others.length, where).toBeGreaterThan(0);
  expect(repeat, where).toEqual({ sent: [[PAGE, 304]], fromCache: others });
  expect(repeat, where).toEqual(repeatFigures(/** @type {{ repeat: Trace }} */ (reference.get(strategy)).repeat));
}

describe('pagediet\'s own server, the reference', () => {
  const reason = anyServer ? null : 'no real server to compare with';

  it.skipIf(reason)('answers the page and every file it needs with 200 and the built file, the same on every strategy; then 304 for each', async () => {
    const first = /** @type {{ first: Trace }} */ (reference.get('http1.1')).first;
    expect(first.requests.length).toBeGreaterThan(1);
    for (const strategy of STRATEGIES) {
      const { first: load, revalidate } = /** @type {{ first: Trace, revalidate: Trace }} */ (reference.get(strategy));
      expect(figures(load).responses, strategy).toEqual(figures(first).responses);
      for (const r of load.requests) {
        expect([r.status, r.decodedBytes], `${strategy} ${r.path}`).toEqual([200, (await fs.stat(path.join(output, r.path))).size]);
      }
      expect(revalidate.requests.map((r) => [r.path, r.status]), strategy).toEqual(load.requests.map((r) => [r.path, 304]));
    }
    // Requests per strategy: one connection for each request over HTTP/1.0, one connection for all otherwise;
    // HTTP/1.1 writes one request at a time, pipelining and HTTP/2 the page alone and then all it reveals at once.
    const n = first.requests.length;
    expect(Object.fromEntries(STRATEGIES.map((s) => [s, figures(/** @type {{ first: Trace }} */ (reference.get(s)).first).writes]))).toEqual({
      'http1.0': Array.from({ length: n }, () => [1]),
      'http1.1': [Array.from({ length: n }, () => 1)],
      pipelined: [[1, n - 1]],
      h2: [[1, n - 1]],
    });
  });
});

describe.each(REAL_SERVERS)('%s with the config the build wrote', (server) => {
  const reason = skip[server];
  /** @type {import('./helpers/servers.js').RunningServer | undefined} */
  let running;

  beforeAll(async () => {
    if (reason) return;
    // nginx with its brotli part: the helper loads the module. The others' configs as written.
    const snippet = server === 'nginx' ? `${configs['nginx.conf']}\n${configs['nginx-brotli.conf']}` : configs[CONFIG_FILES[server]];
    running = await startServer(server, { root: output, snippet, work: await tempDir(`pagediet-${server}-`) });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
  });

  for (const strategy of STRATEGIES) {
    const why = reason ?? (strategy === 'h2' ? skipH2[server] : null);
    it.skipIf(why)(`loads ${PAGE} over ${strategy} as from pagediet's own server, then revalidates it, and a day later asks for the page alone${why ? ` (skipped: ${why})` : ''}`, async () => {
      const { origin: http1Origin, h2Origin } = /** @type {import('./helpers/servers.js').RunningServer} */ (running);
      const origin = strategy === 'h2' ? /** @type {string} */ (h2Origin) : http1Origin;
      const own = /** @type {{ first: Trace, revalidate: Trace }} */ (reference.get(strategy));
      const where = `${server} ${strategy}`;

      /** @type {Map<string, CacheEntry>} */
      const cache = new Map();
      const first = await firstVisit(origin, strategy, cache);
      expect(figures(first), where).toEqual(expectedFigures(server, strategy, own.first));
      expect([...cache.keys()].sort(), where).toEqual(first.requests.map((r) => r.path).sort());
      await expectBodiesAreTheFiles(cache, where);

      const again = await revalidation(origin, strategy, cache);
      expect(figures(again), `${where} revalidate`).toEqual(figures(own.revalidate));

      await checkRepeatVisit({ server, strategy, origin, cache, first });
    }, 60_000);
  }
});
