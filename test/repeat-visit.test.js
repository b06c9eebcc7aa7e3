// The robot's repeat visit, through pagediet's own server on every strategy: a browser coming back with its
// HTTP cache. A built site (subresources with fingerprinted names) served with the configs' cache policy costs
// one request, the page's 304; an input served as a stock server (no Cache-Control) is decided by heuristic
// freshness from its files' times: nothing asked when they are old, conditional requests when they are new.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSite } from '../src/loader/load.js';
import { loadPage, STRATEGIES } from '../src/loader/client.js';
import { startServer } from '../src/loader/server.js';
import { model, planFromTrace } from '../src/loader/model.js';
import { NETWORKS } from '../src/loader/networks.js';
import { compareSites } from '../src/report/compare.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const DAY = 86_400;
const CSS = Buffer.from(`body { background: url(bg.9f8e7d6c.png) }\n${'.row { margin: 0 }\n'.repeat(60)}`);

/**
 * A small site as a build leaves it: a page (with its precompressed copies) whose style sheet, script and images
 * have fingerprinted names; the style sheet loads one more image. 6 objects.
 */
function builtSite() {
  const page = Buffer.from(`<!doctype html><html><head><title>built</title><link rel="stylesheet" href="site.1a2b3c4d.css"><script src="app-CWg6gKPv.js"></script></head><body>
${'<p>a page of a built site</p>\n'.repeat(40)}<img src="logo.3f9a1c2b.png" alt=""><img src="photo.0a1b2c3d4e5f.jpg" alt=""></body></html>\n`);
  return {
    'index.html': page,
    'index.html.br': zlib.brotliCompressSync(page),
    'index.html.gz': zlib.gzipSync(page),
    'site.1a2b3c4d.css': CSS,
    'site.1a2b3c4d.css.br': zlib.brotliCompressSync(CSS),
    'app-CWg6gKPv.js': 'console.log("built");\n',
    'logo.3f9a1c2b.png': Buffer.alloc(1200, 7),
    'photo.0a1b2c3d4e5f.jpg': Buffer.alloc(5000, 9),
    'bg.9f8e7d6c.png': Buffer.alloc(300, 3),
  };
}

/** The same site as its input was: nothing fingerprinted. 6 objects. */
function inputSite() {
  return {
    'index.html': '<!doctype html><title>input</title><link rel="stylesheet" href="style.css"><img src="logo.png"><img src="photo.jpg"><script src="app.js"></script>',
    'style.css': 'body { background: url(bg.png) }\n',
    'app.js': 'console.log("input");\n',
    'logo.png': Buffer.alloc(1200, 7),
    'photo.jpg': Buffer.alloc(5000, 9),
    'bg.png': Buffer.alloc(300, 3),
  };
}

/**
 * Sets every file's times under a folder.
 * @param {string} root @param {Date} when @param {(name: string) => boolean} [which]
 */
async function touch(root, when, which = () => true) {
  for (const name of await fs.readdir(root, { recursive: true })) {
    if (which(name)) await fs.utimes(path.join(root, name), when, when);
  }
}

/** @param {import('../src/loader/load.js').LoadResult} result @param {string} protocol @param {string} visit */
const traceOf = (result, protocol, visit) => {
  const t = result.traces.find((x) => x.protocol === protocol && x.visit === visit);
  if (!t) throw new Error(`no ${visit} trace of ${protocol}`);
  return t;
};

/** @param {import('../src/loader/load.js').LoadResult} result @param {string} protocol @param {string} visit */
const runOf = (result, protocol, visit) => {
  const r = result.runs.find((x) => x.protocol === protocol && x.visit === visit && x.network === 'wan-1997');
  if (!r) throw new Error(`no ${visit} run of ${protocol}`);
  return r;
};

describe('a built site served with the configs\' cache policy', () => {
  /** @type {import('../src/loader/load.js').LoadResult} */
  let built;
  beforeAll(async () => {
    const root = await writeTree(await tempDir('pagediet-repeat-built-'), builtSite());
    built = await loadSite({ root, networks: ['wan-1997'] });
  });

  it.each(STRATEGIES)('%s: the repeat visit a day later sends 1 request, the page\'s 304; the 5 fingerprinted objects come from the cache', (protocol) => {
    const first = traceOf(built, protocol, 'first');
    expect(first.requests.map((r) => [r.path, r.status])).toEqual([
      ['/index.html', 200], ['/site.1a2b3c4d.css', 200], ['/app-CWg6gKPv.js', 200], ['/logo.3f9a1c2b.png', 200], ['/photo.0a1b2c3d4e5f.jpg', 200], ['/bg.9f8e7d6c.png', 200],
    ]);
    const repeat = traceOf(built, protocol, 'repeat');
    const asked = repeat.requests.filter((r) => !r.fromCache);
    expect(asked.map((r) => [r.path, r.status, r.bodyBytes])).toEqual([['/index.html', 304, 0]]);
    expect(repeat.requests.filter((r) => r.fromCache).map((r) => [r.path, r.status, r.connection, r.requestBytes]).sort()).toEqual([
      ['/app-CWg6gKPv.js', 200, -1, 0], ['/bg.9f8e7d6c.png', 200, -1, 0], ['/logo.3f9a1c2b.png', 200, -1, 0], ['/photo.0a1b2c3d4e5f.jpg', 200, -1, 0], ['/site.1a2b3c4d.css', 200, -1, 0],
    ]);
    // The style sheet from the cache still reveals its image.
    expect(repeat.requests.find((r) => r.path === '/bg.9f8e7d6c.png')?.fromCache).toBe(true);
    expect(repeat.connections).toHaveLength(1);
    const run = runOf(built, protocol, 'repeat');
    expect([run.requests, run.fromCache, run.connections, run.measured.status]).toEqual([1, 5, 1, { 304: 1 }]);
    // The revalidation is as it was: every object asked again.
    const revalidation = runOf(built, protocol, 'revalidate');
    expect([revalidation.requests, revalidation.fromCache, revalidation.measured.status]).toEqual([6, 0, { 304: 6 }]);
    expect(run.wireBytes).toBeLessThan(revalidation.wireBytes);
    expect(run.seconds).toBeLessThan(revalidation.seconds);
  });

  it('the default visits are first, revalidate and repeat', () => {
    expect([...new Set(built.runs.map((r) => r.visit))]).toEqual(['first', 'revalidate', 'repeat']);
  });

  it('an hour later the page is revalidated too (no-cache); a year later every object', async () => {
    const root = await writeTree(await tempDir('pagediet-repeat-year-'), builtSite());
    const hour = await loadSite({ root, networks: ['wan-1997'], protocols: ['h2'], visits: ['repeat'], betweenVisits: 3600 });
    expect(runOf(hour, 'h2', 'repeat')).toMatchObject({ requests: 1, fromCache: 5 });
    const year = await loadSite({ root, networks: ['wan-1997'], protocols: ['h2'], visits: ['repeat'], betweenVisits: 366 * DAY });
    expect(runOf(year, 'h2', 'repeat')).toMatchObject({ requests: 6, fromCache: 0, measured: { status: { 304: 6 } } });
  });

  it('a repeat visit asking with another Accept-Encoding finds no stored response for what varies on it (Vary)', async () => {
    const root = await writeTree(await tempDir('pagediet-repeat-vary-'), builtSite());
    const server = await startServer({ root, protocol: 'http1', snapshot: true });
    try {
      const cache = new Map();
      const origin = server.url;
      await loadPage({ origin, page: '/index.html', protocol: 'http1.1', cache, acceptEncoding: 'br, gzip' });
      const other = await loadPage({ origin, page: '/index.html', protocol: 'http1.1', visit: 'repeat', cache, acceptEncoding: 'gzip' });
      // The page and the style sheet have sidecars (Vary: Accept-Encoding): asked again in full; the others fresh.
      expect(other.requests.filter((r) => !r.fromCache).map((r) => [r.path, r.status, r.encoding])).toEqual([['/index.html', 200, 'gzip'], ['/site.1a2b3c4d.css', 200, null]]);
      expect(other.requests.filter((r) => r.fromCache).map((r) => r.path).sort()).toEqual(['/app-CWg6gKPv.js', '/bg.9f8e7d6c.png', '/logo.3f9a1c2b.png', '/photo.0a1b2c3d4e5f.jpg']);
    } finally {
      await server.close();
    }
  });
});

describe('an input served as a stock server serves it (no Cache-Control): heuristic freshness decides', () => {
  it('files last modified long ago (10% of their age is more than a day): 0 requests, 0 connections, 0 bytes, 0 s on every strategy', async () => {
    const root = await writeTree(await tempDir('pagediet-repeat-old-'), inputSite());
    await touch(root, new Date(Date.now() - 30 * DAY * 1000));
    const old = await loadSite({ root, networks: ['wan-1997', 'modem-28.8k'], cacheHeaders: 'none' });
    for (const protocol of STRATEGIES) {
      const repeat = traceOf(old, protocol, 'repeat');
      expect(repeat.requests.map((r) => [r.path, r.fromCache])).toEqual([
        ['/index.html', true], ['/style.css', true], ['/bg.png', true], ['/logo.png', true], ['/photo.jpg', true], ['/app.js', true],
      ]);
      expect(repeat.connections).toEqual([]);
      for (const network of ['wan-1997', 'modem-28.8k']) {
        const run = old.runs.find((r) => r.protocol === protocol && r.visit === 'repeat' && r.network === network);
        expect(run).toMatchObject({ requests: 0, fromCache: 6, connections: 0, packets: 0, wireBytes: 0, payloadBytes: 0, seconds: 0, timeline: [], measured: { status: {}, bodyBytes: 0, headerBytes: 0, connections: 0 } });
      }
      expect(runOf(old, protocol, 'revalidate').measured.status).toEqual({ 304: 6 });
    }
    // Thirty days old is fresh for three: not a week later.
    const week = await loadSite({ root, networks: ['wan-1997'], protocols: ['pipelined'], visits: ['repeat'], cacheHeaders: 'none', betweenVisits: 7 * DAY });
    expect(runOf(week, 'pipelined', 'repeat')).toMatchObject({ requests: 6, fromCache: 0, measured: { status: { 304: 6 } } });
  });

  it('files modified just now: every object revalidated, with If-None-Match and If-Modified-Since', async () => {
    const root = await writeTree(await tempDir('pagediet-repeat-new-'), inputSite());
    /** @type {import('../src/loader/handler.js').RequestLogEntry[]} */
    const log = [];
    const fresh = await loadSite({ root, networks: ['wan-1997'], cacheHeaders: 'none' });
    for (const protocol of STRATEGIES) {
      const repeat = traceOf(fresh, protocol, 'repeat');
      expect(repeat.requests.map((r) => [r.path, r.fromCache, r.status])).toEqual([
        ['/index.html', false, 304], ['/style.css', false, 304], ['/logo.png', false, 304], ['/photo.jpg', false, 304], ['/app.js', false, 304], ['/bg.png', false, 304],
      ]);
      expect(runOf(fresh, protocol, 'repeat')).toMatchObject({ requests: 6, fromCache: 0 });
      // The same exchange as the revalidation's.
      expect(runOf(fresh, protocol, 'repeat').packets).toBe(runOf(fresh, protocol, 'revalidate').packets);
    }
    // What the robot keeps of each response.
    const server = await startServer({ root, protocol: 'http1', cacheHeaders: 'none', onRequest: (e) => log.push(e) });
    try {
      const cache = new Map();
      await loadPage({ origin: server.url, page: '/index.html', protocol: 'http1.1', cache });
      const entry = cache.get('/logo.png');
      expect(entry).toMatchObject({ status: 200, requestHeaders: {}, contentType: 'image/png' });
      expect(entry.headers['cache-control']).toBeUndefined();
      expect(entry.headers.etag).toMatch(/^"[^"]+"$/);
      expect(Date.parse(entry.headers['last-modified'])).toBeGreaterThan(0);
      expect(entry.responseTime).toBeGreaterThanOrEqual(entry.requestTime);
      const again = await loadPage({ origin: server.url, page: '/index.html', protocol: 'http1.1', visit: 'repeat', cache });
      expect(again.requests.every((r) => r.status === 304)).toBe(true);
      expect(log.slice(6).map((e) => e.status)).toEqual([304, 304, 304, 304, 304, 304]);
      // The 304 updated the stored response: its times are the repeat visit's, a day on, and so is its Date.
      const updated = cache.get('/logo.png');
      expect(updated.requestTime - entry.requestTime).toBeGreaterThanOrEqual(DAY * 1000);
      expect(Date.parse(updated.headers.date) - Date.parse(entry.headers.date)).toBeGreaterThanOrEqual((DAY - 1) * 1000);
    } finally {
      await server.close();
    }
    // The conditional requests' headers, as a server of our own receives them.
    /** @type {Record<string, string | undefined>[]} */
    const seen = [];
    const modified = new Date(Date.now() - 1000).toUTCString();
    const recorder = http.createServer((req, res) => {
      seen.push({ url: req.url, inm: req.headers['if-none-match'], ims: req.headers['if-modified-since'] });
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"', 'last-modified': modified });
        res.end();
        return;
      }
      const body = req.url === '/index.html' ? '<img src="a.png">' : 'png';
      res.writeHead(200, { 'content-type': req.url === '/index.html' ? 'text/html' : 'image/png', 'content-length': body.length, etag: '"v1"', 'last-modified': modified });
      res.end(body);
    });
    await new Promise((resolve) => recorder.listen(0, '127.0.0.1', () => resolve(undefined)));
    try {
      const origin = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (recorder.address()).port}`;
      const cache = new Map();
      await loadPage({ origin, page: '/index.html', protocol: 'http1.1', cache });
      await loadPage({ origin, page: '/index.html', protocol: 'http1.1', visit: 'repeat', cache });
      expect(seen).toEqual([
        { url: '/index.html', inm: undefined, ims: undefined }, { url: '/a.png', inm: undefined, ims: undefined },
        { url: '/index.html', inm: '"v1"', ims: modified }, { url: '/a.png', inm: '"v1"', ims: modified },
      ]);
    } finally {
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(() => resolve(undefined)));
    }
  });

  it('an old page with a new image: the page from the cache, the image revalidated at once (the model starts it with no page to wait for)', async () => {
    const root = await writeTree(await tempDir('pagediet-repeat-mixed-'), inputSite());
    await touch(root, new Date(Date.now() - 30 * DAY * 1000), (name) => name !== 'photo.jpg');
    const mixed = await loadSite({ root, networks: ['wan-1997'], cacheHeaders: 'none' });
    for (const protocol of STRATEGIES) {
      const repeat = traceOf(mixed, protocol, 'repeat');
      expect(repeat.requests.filter((r) => !r.fromCache).map((r) => [r.path, r.status, r.parent])).toEqual([['/photo.jpg', 304, 0]]);
      const plan = planFromTrace(repeat);
      expect(plan.requests.map((r) => [r.path, r.parent])).toEqual([['/photo.jpg', null]]);
      const m = model(plan, protocol, NETWORKS['wan-1997']);
      expect([m.requests, m.connections]).toEqual([1, 1]);
      expect(m.timeline[0].sentMs).toBeGreaterThan(0); // after the handshake, and no page's round trip before it
      expect(m.seconds).toBeLessThan(runOf(mixed, protocol, 'revalidate').seconds);
    }
  });
});

describe('a report: the input as a stock server sends it, the output with the configs\' headers', () => {
  it('a day after the first visit: the input\'s new files are all revalidated, the output\'s page alone; the input\'s old files are all fresh', async () => {
    const before = await writeTree(await tempDir('pagediet-repeat-report-in-'), inputSite());
    const after = await writeTree(await tempDir('pagediet-repeat-report-out-'), builtSite());
    const report = await compareSites({ before, after, networks: ['wan-1997'] });
    expect(report.betweenVisits).toBe(DAY);
    expect(Object.keys(report.headline.visits)).toEqual(['first', 'repeat', 'revalidate']);
    const repeat = report.headline.visits.repeat;
    expect([repeat?.requests, repeat?.fromCache]).toEqual([{ before: 6, after: 1, saved: 5, percent: 83.3 }, { before: 0, after: 5, saved: -5, percent: 0 }]);
    expect(report.headline.betweenVisits).toBe(DAY);
    for (const protocol of STRATEGIES) {
      const c = report.savings.find((x) => x.protocol === protocol && x.visit === 'repeat');
      expect([protocol, c?.requests.before, c?.requests.after, c?.fromCache.after]).toEqual([protocol, 6, 1, 5]);
      expect(report.before.runs.find((r) => r.protocol === protocol && r.visit === 'repeat')?.measured.status).toEqual({ 304: 6 });
    }
    // The same input modified a month ago: 10% of that is three days, so a day later nothing is asked for.
    await touch(before, new Date(Date.now() - 30 * DAY * 1000));
    const old = await compareSites({ before, after, networks: ['wan-1997'], protocols: ['h2'], visits: ['repeat'] });
    expect(Object.keys(old.headline.visits)).toEqual(['repeat']);
    expect([old.headline.visits.repeat?.requests, old.headline.visits.repeat?.fromCache]).toEqual([
      { before: 0, after: 1, saved: -1, percent: 0 }, { before: 6, after: 5, saved: 1, percent: 16.7 },
    ]);
    expect(old.headline.visits.repeat?.seconds['wan-1997'].before).toBe(0);
    // Four days later the input's freshness is over too.
    const later = await compareSites({ before, after, networks: ['wan-1997'], protocols: ['h2'], visits: ['repeat'], betweenVisits: 4 * DAY });
    expect([later.betweenVisits, later.headline.visits.repeat?.requests.before]).toEqual([4 * DAY, 6]);
    await expect(compareSites({ before, after, betweenVisits: -1 })).rejects.toThrow('report options: betweenVisits must be seconds, 0 or more, not -1');
  });
});

describe('the model of what crossed the network', () => {
  it('gives a load of no requests 0 s and 0 bytes, and reattaches what a cached object revealed to its nearest fetched ancestor', () => {
    const none = model({ requests: [], controlUp: 0, controlDown: 0 }, 'h2', NETWORKS['modem-28.8k']);
    expect(none).toEqual({ requests: 0, connections: 0, packets: 0, packetsUp: 0, packetsDown: 0, payloadBytes: 0, wireBytes: 0, overheadPercent: 0, seconds: 0, retransmissions: 0, firstRenderSeconds: 0, largestPaintSeconds: null, timeline: [] });
    /** @param {number} order @param {number | null} parent @param {boolean} fromCache */
    const record = (order, parent, fromCache) => ({ order, path: `/${order}`, kind: 'img', parent, fromCache, connection: fromCache ? -1 : 0, batch: 0, requestBytes: fromCache ? 0 : 100, responseHeaderBytes: fromCache ? 0 : 200, bodyBytes: 0, framingBytes: 0, status: fromCache ? 200 : 304, encoding: null, contentType: '', decodedBytes: 0, startMs: 0, endMs: 0 });
    // page (fetched) -> css (cached) -> image (fetched); page -> script (cached) -> module (cached) -> image (fetched)
    const trace = { page: '/0', protocol: /** @type {const} */ ('h2'), visit: /** @type {const} */ ('repeat'), ms: 0, connections: [], requests: [record(0, null, false), record(1, 0, true), record(2, 1, false), record(3, 0, true), record(4, 3, true), record(5, 4, false)] };
    expect(planFromTrace(trace).requests.map((r) => [r.order, r.parent])).toEqual([[0, null], [2, 0], [5, 0]]);
    // With the page cached too, they are known at the start.
    trace.requests[0] = record(0, null, true);
    expect(planFromTrace(trace).requests.map((r) => [r.order, r.parent])).toEqual([[2, null], [5, null]]);
  });
});
