import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { compareSites, headline } from '../src/report/compare.js';
import { renderHtmlReport } from '../src/report/html.js';
import { niceTicks, WATERFALL_ROWS } from '../src/report/html-charts.js';
import { escapeHtml, WORSE_PERCENT } from '../src/report/html-format.js';
import { commonFolder } from '../src/report/html-headline.js';
import { FILTER_SCRIPT } from '../src/report/html-filter.js';
import { tempDir } from './helpers/tmp.js';
import { chromiumTest, launchChromium, offlinePage, screenshot } from './helpers/chromium.js';

const int = new Intl.NumberFormat('en-US');
const EVIL = 'images/<script>alert(1)</script>&"x\'.gif';

/**
 * A build summary shaped like the one a build that made the "after" site would return.
 * @param {Partial<import('../src/build/pipeline.js').PassReport>[]} passes
 * @returns {import('../src/build/summary.js').BuildSummary}
 */
function buildSummary(passes) {
  return {
    tool: 'pagediet', version: '0.1.0', input: 'in', output: 'out', ms: 1234,
    totals: { files: 46, pages: 1, stylesheets: 0, assets: 45, bytesIn: 178422, bytesOut: 182711, bytesSaved: -4289, references: 108, requestsBefore: 43, requestsAfter: 41, pageBytesBefore: 170496, pageBytesAfter: 110360, errors: 0, warnings: 0, info: 0 },
    outputFiles: {
      loaded: { files: 44, bytes: 111360 },
      notLoaded: { files: 2, bytes: 71351, paths: ['images/anim/banner.gif', 'images/news/feature.gif'] },
      configs: { files: 2, bytes: 2400, paths: ['pagediet-configs/_headers', 'pagediet-configs/nginx.conf'] },
    },
    pages: [{ path: 'index.html', charset: 'windows-1252', bytes: 42252, references: 108, requestsBefore: 43, requestsAfter: 41, loadBytesBefore: 170496, loadBytesAfter: 110360 }],
    assets: [], referencesByKind: {}, referencesByStatus: {}, referencesListed: 'all', references: [], warnings: [], artifacts: [],
    written: { written: 3, copied: 40, removed: 0 }, work: { jobs: 0, cacheHits: 0, passesReplayed: 0 },
    passes: passes.map((p) => ({ name: 'x', description: 'x', files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 1, ...p })),
  };
}

/** A report with one run per side, made up, for tests that need no robot. @param {object} [o] */
function fakeReport({ site = '/sites/a', page = '/index.html', requests = 3, type = 'text/html' } = {}) {
  const timeline = Array.from({ length: requests }, (_, i) => ({ order: i, connection: 0, domain: 0, sentMs: i * 10, doneMs: i * 10 + 25 }));
  const run = {
    page, protocol: /** @type {const} */ ('h2'), network: 'wan-1997', visit: /** @type {const} */ ('first'),
    requests, fromCache: 0, connections: 1, packets: 10, wireBytes: 5000, payloadBytes: 4600, seconds: 0.5, firstRender: 0.25, largestPaint: null, overheadPercent: 8, retransmissions: 0,
    measured: { status: { 200: requests }, bodyBytes: 4000, headerBytes: 600, connections: 1 }, timeline,
  };
  const change = (/** @type {number} */ n) => ({ before: n, after: n, saved: 0, percent: 0 });
  const savings = [{ page, protocol: run.protocol, network: run.network, visit: run.visit, requests: change(requests), fromCache: change(0), packets: change(10), wireBytes: change(5000), seconds: change(0.5), firstRender: change(0.25) }];
  return {
    baseline: /** @type {const} */ ('gzip'),
    betweenVisits: 86_400,
    before: { site, runs: [run], files: { [type]: { files: 1, bytes: 100, served: 100 } } },
    after: { site: `${site}-after`, runs: [run], files: { [type]: { files: 1, bytes: 90, served: 50 } } },
    savings,
    headline: headline(savings, 1, 1, 'gzip'),
  };
}

/**
 * The made-up report with its three visits: the repeat visit, `between` seconds later, takes `cached` of the
 * after side's objects from the cache; the before side revalidates them all.
 * @param {number} between @param {number} cached
 */
function threeVisits(between, cached) {
  const report = fakeReport({ requests: 10 });
  const first = report.before.runs[0];
  const c = (/** @type {number} */ before, /** @type {number} */ after) => ({ before, after, saved: before - after, percent: before ? Math.round(((before - after) / before) * 1000) / 10 : 0 });
  for (const [visit, fromCache, wire] of /** @type {const} */ ([['revalidate', 0, 3000], ['repeat', cached, 300 * (10 - cached)]])) {
    const before = { ...first, visit, measured: { ...first.measured, status: { 304: 10 } }, wireBytes: 3000 };
    const after = { ...before, requests: 10 - fromCache, fromCache, wireBytes: wire, timeline: first.timeline.slice(fromCache) };
    report.before.runs.push(before);
    report.after.runs.push(after);
    report.savings.push({ page: first.page, protocol: 'h2', network: 'wan-1997', visit, requests: c(10, 10 - fromCache), fromCache: c(0, fromCache), packets: c(10, 10), wireBytes: c(3000, wire), seconds: c(0.3, 0.1), firstRender: c(0.2, 0.05) });
  }
  report.betweenVisits = between;
  report.headline = headline(report.savings, 1, 1, 'gzip', between);
  return report;
}

/** The report without its one script, the filter boxes' (src/report/html-filter.js). @param {string} html */
const withoutFilter = (html) => html.replace(`<script>${FILTER_SCRIPT}</script>`, '');

describe('HTML report, without a browser', () => {
  it('escapes every string that comes from files and URLs', () => {
    expect(escapeHtml(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&#39;');
    const report = fakeReport({ site: '/sites/<script>alert(1)</script>&co', page: '/a&b<script>.html', type: 'text/<x>&' });
    const build = buildSummary([{ name: 'p<&>', description: '<b>bold</b>', decisions: [{ file: EVIL, action: 'kept', reason: 'score < 1 & "close"', score: 0.5 }] }]);
    build.warnings = [{ file: EVIL, code: 'x<y>', severity: 'warning', message: '<img src=x onerror=alert(1)>' }];
    build.outputFiles.notLoaded.paths = [EVIL];
    const html = renderHtmlReport(report, build);
    // Two members to filter: the filter's script is in, and it is the only one.
    expect(html).toContain(FILTER_SCRIPT);
    expect(withoutFilter(html)).not.toMatch(/<script|<img/i);
    expect(html).not.toContain('<b>bold');
    expect(html).not.toContain('text/<x>');
    expect(html).toContain('/sites/&lt;script&gt;alert(1)&lt;/script&gt;&amp;co');
    expect(html).toContain('/a&amp;b&lt;script&gt;.html');
    expect(html).toContain(escapeHtml(EVIL));
    expect(html).toContain('score &lt; 1 &amp; &quot;close&quot;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<code>x&lt;y&gt;</code>');
  });

  it('is deterministic and self-contained: no URLs, no dates, no script but the filter\'s', () => {
    const report = fakeReport();
    const html = renderHtmlReport(report);
    expect(renderHtmlReport(structuredClone(report))).toBe(html);
    // One page and no build: nothing long to filter, so no script at all.
    expect(html).not.toMatch(/https?:|\/\/[a-z]|url\(|@import|<script|<link|<img|<iframe/i);
    expect(html).not.toMatch(/20\d\d-\d\d-\d\d/);
    // The filter's script fetches nothing either.
    expect(FILTER_SCRIPT).not.toMatch(/https?:|\/\/[a-z]|url\(|@import|fetch|XMLHttpRequest|import\(|src/i);
    const built = renderHtmlReport(report, buildSummary([{ name: 'css', decisions: [{ file: 'a.css', action: 'kept', reason: 'r' }, { file: 'b.css', action: 'kept', reason: 'r' }] }]));
    expect(renderHtmlReport(report, structuredClone(buildSummary([{ name: 'css', decisions: [{ file: 'a.css', action: 'kept', reason: 'r' }, { file: 'b.css', action: 'kept', reason: 'r' }] }])))).toBe(built);
    expect(withoutFilter(built)).not.toMatch(/https?:|\/\/[a-z]|url\(|@import|<script|<link|<img|<iframe/i);
    expect(built.match(/<script>/g)).toHaveLength(1);
  });

  it('leaves out what a report without a build cannot know', () => {
    const html = renderHtmlReport(fakeReport());
    // pagediet report: no pass decisions, no messages, no output on disk, and no word of them.
    for (const gone of ['id="decisions"', 'id="disk"', 'id="passes"', 'Pass decisions', 'Messages', 'Not loaded by any page', 'Server configs', '#decisions']) expect(html).not.toContain(gone);
    expect(html).toContain('<h2 id="headline-h">What visitors load</h2>');
    expect(html).not.toContain('Served bytes of the whole site');
    expect(renderHtmlReport(fakeReport(), buildSummary([{ name: 'css' }]))).toContain('No pass decisions.');
    expect(renderHtmlReport(fakeReport(), buildSummary([]))).toContain('No passes ran.');
  });

  it('says how both sides were served', () => {
    const gzip = renderHtmlReport(fakeReport());
    expect(gzip).toContain('<p class="lede" data-baseline="gzip">1 page, each with everything it loads, over HTTP/2. Both sides served as ordinary servers serve them (baseline gzip): their own precompressed files, else gzip level 6 on the fly.</p>');
    const raw = fakeReport();
    raw.baseline = 'raw';
    raw.headline.baseline = 'raw';
    expect(renderHtmlReport(raw)).toContain('<p class="lede" data-baseline="raw">1 page, each with everything it loads, over HTTP/2. Both sides served without compression on the fly (baseline raw).</p>');
  });

  it('shows the repeat visit beside the first, the time between them and its objects from the cache; the revalidation as a line', () => {
    const html = renderHtmlReport(threeVisits(7200, 9));
    expect([...html.matchAll(/<section class="card visit" data-visit="(\w+)"/g)].map((m) => m[1])).toEqual(['first', 'repeat']);
    expect(html).toContain('<section class="card visit" data-visit="repeat" data-between-visits="7200" aria-labelledby="visit-repeat-h">');
    expect(html).toContain('<h3 id="visit-repeat-h">Repeat visit <span class="muted small">2 hours later; <span data-metric="fromCache" title="objects taken from the browser\'s cache, not asked for"><data class="before" value="0">0</data> → <data class="after" value="9">9</data> from the cache</span></span></h3>');
    expect(html).toContain('<div data-metric="requests"><dt>Requests</dt><dd class="big"><data class="before" value="10">10</data> → <data class="after" value="1">1</data></dd><dd><span class="good">−9 (−90.0%)</span></dd></div>');
    expect(html).toContain('<span data-visit="revalidate">Revalidation, every file asked for again: <data class="before" value="3000">3,000</data> → <data class="after" value="3000">3,000</data> B <span class="same">no change</span>, 10 → 10 requests (<a href="#numbers">all numbers</a>).</span>');
    expect(html).toContain('on the fly. Cache-Control: none before, the server configs&#39; after.</p>');
    // The footer says it whole.
    expect(html).toContain('The repeat visit comes 2 hours after the first: what the browser&#39;s cache still holds fresh is not asked for, the rest is revalidated. The input is served as a stock server serves it (no Cache-Control, so browsers&#39; heuristic freshness), the output with the Cache-Control of pagediet&#39;s server configs.');
    // Every visit has its totals, in the order the headline gives them.
    expect([...html.matchAll(/<table id="table-totals-(\w+)"/g)].map((m) => m[1])).toEqual(['first', 'repeat', 'revalidate']);
    expect(html).toContain('<caption>Repeat visit of <code>/index.html</code>, 2 hours after the first; objects from the cache: 0 before, 9 after</caption>');
    // A report of the revalidation alone gives it its card.
    const alone = threeVisits(86_400, 0);
    alone.savings = alone.savings.filter((x) => x.visit === 'revalidate');
    for (const side of /** @type {const} */ (['before', 'after'])) alone[side].runs = alone[side].runs.filter((r) => r.visit === 'revalidate');
    alone.headline = headline(alone.savings, 1, 1, 'gzip');
    const only = renderHtmlReport(alone);
    expect([...only.matchAll(/<section class="card visit" data-visit="(\w+)"/g)].map((m) => m[1])).toEqual(['revalidate']);
    expect(only).not.toContain('visit-notes');
  });

  it('draws a repeat visit whose every object came from the cache: no request, 0 s', () => {
    const report = threeVisits(86_400, 10);
    const html = renderHtmlReport(report);
    expect(html).toContain('<data class="before" value="10">10</data> → <data class="after" value="0">0</data>');
    expect(html).not.toMatch(/NaN|Infinity|undefined/);
  });

  it(`draws at most ${WATERFALL_ROWS} rows of a waterfall and says so`, () => {
    const html = renderHtmlReport(fakeReport({ requests: 1000 }));
    expect(html.match(/<rect class="req /g)).toHaveLength(2 * WATERFALL_ROWS);
    expect(html).toContain(`showing the first ${WATERFALL_ROWS} of 1,000 requests`);
    expect(html.match(/<text class="rowno"/g)).toHaveLength(2 * WATERFALL_ROWS / 5);
    expect(html.length).toBeLessThan(200_000);
  });

  it(`draws a saving green, a loss of ${WORSE_PERCENT}% or more red, and a smaller one grey`, () => {
    const report = fakeReport();
    const c = report.savings[0];
    const html = (/** @type {number} */ after) => {
      c.wireBytes = { before: 100000, after, saved: 100000 - after, percent: Math.round(((100000 - after) / 100000) * 1000) / 10 };
      report.headline = headline(report.savings, 1, 1, 'gzip');
      return renderHtmlReport(report);
    };
    const shown = (/** @type {string} */ h) => h.match(/<div data-metric="wireBytes">.*?<\/div>/)?.[0].replace(/^.*<dd>(.*)<\/dd><\/div>$/, '$1');
    expect(shown(html(60000))).toBe('<span class="good">−40,000 B (−40.0%)</span>');
    expect(shown(html(100500))).toBe('<span class="same">+500 B (+0.5%)</span>');
    expect(shown(html(101000))).toBe('<span class="bad">+1,000 B (+1.0%)</span>');
    expect(shown(html(100000))).toBe('<span class="same">no change</span>');
  });

  it('lists paths under the folder they share', () => {
    expect(commonFolder([])).toBe('');
    expect(commonFolder(['README.md', 'images/a.gif'])).toBe('');
    expect(commonFolder(['images/a/b.gif', 'images/a/c.gif', 'images/b.gif'])).toBe('images/');
    expect(commonFolder(['pagediet-configs/_headers', 'pagediet-configs/nginx.conf'])).toBe('pagediet-configs/');
    expect(commonFolder(['/srv/out-configs/_headers', '/srv/out-configs/nginx/site.conf'])).toBe('/srv/out-configs/');
    expect(commonFolder(['/srv/ab/x', '/srv/ac/y'])).toBe('/srv/');
    expect(commonFolder(['a/b'])).toBe('');
    expect(commonFolder(['/srv/out-configs/_headers'])).toBe('/srv/out-configs/');
    const build = buildSummary([]);
    build.outputFiles.configs.paths = ['/srv/out-configs/_headers', '/srv/out-configs/nginx.conf'];
    expect(renderHtmlReport(fakeReport(), build)).toContain('<p class="folder small">in <code>/srv/out-configs/</code></p><details class="paths"><summary><code>_headers</code>, <code>nginx.conf</code> <span class="all">all 2</span></summary><ul><li><code>_headers</code></li><li><code>nginx.conf</code></li></ul></details>');
  });

  it('picks round axis ticks', () => {
    expect(niceTicks(4119)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(niceTicks(1708)).toEqual([0, 500, 1000, 1500, 2000]);
    expect(niceTicks(0)).toEqual([0]);
  });
});

describe('HTML report of fixtures/microscape, in Chromium', () => {
  /** @type {string} */
  let dir;
  /** @type {import('../src/report/compare.js').ReportData} */
  let report;
  /** @type {string} */
  let file;
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;
  /** @type {Awaited<ReturnType<typeof offlinePage>> | undefined} */
  let session;

  beforeAll(async () => {
    // The "after" site: two images and their IMG tags gone, and the page precompressed.
    dir = await tempDir();
    const after = path.join(dir, 'after');
    await fs.cp('fixtures/microscape', after, { recursive: true });
    let html = await fs.readFile(path.join(after, 'index.html'), 'latin1');
    for (const img of ['images/anim/banner.gif', 'images/news/feature.gif']) {
      const tag = new RegExp(`<IMG SRC="${img}"[^>]*>`);
      expect(html).toMatch(tag);
      html = html.replace(tag, '');
      await fs.rm(path.join(after, img));
    }
    await fs.writeFile(path.join(after, 'index.html'), html, 'latin1');
    await fs.writeFile(path.join(after, 'index.html.gz'), zlib.gzipSync(Buffer.from(html, 'latin1'), { level: 9 }));
    await fs.writeFile(path.join(after, 'index.html.br'), zlib.brotliCompressSync(Buffer.from(html, 'latin1')));
    // The "before" site, its files modified now: served as a stock server serves it (no Cache-Control), nothing is
    // heuristically fresh a day later, so the repeat visit revalidates every object, as the after side's (the page
    // no-cache, the images an hour: no fingerprinted names).
    const before = path.join(dir, 'before');
    await fs.cp('fixtures/microscape', before, { recursive: true });
    const now = new Date();
    for (const name of await fs.readdir(before, { recursive: true })) await fs.utimes(path.join(before, name), now, now);
    report = await compareSites({ before, after, networks: ['wan-1997', 'slow-4g'] });
    const build = buildSummary([
      { name: 'text-images', description: 'images of text to CSS', bytesBefore: 102252, bytesAfter: 42004, requestsRemoved: 2, decisions: [
        { file: 'images/anim/banner.gif', action: 'changed', reason: 'text on a flat background', score: 0.97 },
        { file: EVIL, action: 'kept', reason: 'a photograph', score: 0.125 },
      ] },
      { name: 'precompress', description: 'br and gzip sidecars', bytesBefore: 42004, bytesAfter: 7909 },
    ]);
    file = path.join(dir, 'report <&> #1.html');
    await fs.writeFile(file, renderHtmlReport(report, build));
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** The report, opened once from its file: URL in a page that cannot reach the network. */
  async function opened() {
    if (!session) {
      browser = await launchChromium();
      session = await offlinePage(browser, { viewport: { width: 1100, height: 900 }, colorScheme: 'light' });
      await session.page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    }
    return session;
  }

  /** @param {string} protocol @param {string} network @param {string} visit */
  const saving = (protocol, network, visit = 'first') => {
    const c = report.savings.find((x) => x.page === '/index.html' && x.protocol === protocol && x.network === network && x.visit === visit);
    if (!c) throw new Error(`no comparison for ${protocol} ${network} ${visit}`);
    return c;
  };

  it('compares a real run: 43 requests before, 41 after', () => {
    expect(saving('http1.0', 'wan-1997').requests).toMatchObject({ before: 43, after: 41 });
    expect(report.after.files['text/html'].served).toBeLessThan(report.after.files['text/html'].bytes);
  });

  chromiumTest('opens from disk with no network, no errors and no script but the filter\'s', async () => {
    const { page, blocked, requests, errors } = await opened();
    expect(blocked).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((u) => u.startsWith('file:'))).toBe(true);
    expect(errors).toEqual([]);
    expect(await page.title()).toBe('pagediet report');
    // One script, inline: the filter's.
    expect(await page.evaluate(() => [...document.scripts].map((s) => [s.src, s.textContent]))).toEqual([['', FILTER_SCRIPT]]);
    // The hostile file name is text in the decisions, not markup.
    expect(await page.locator('#decisions details[data-kind="kept"] li').textContent()).toBe(`${EVIL}: a photograph (score 0.125)`);
  });

  chromiumTest('draws every chart with a size and an accessible name', async () => {
    const { page } = await opened();
    const charts = await page.$$eval('.chart', (els) => els.map((s) => {
      const r = s.getBoundingClientRect();
      const label = s.getAttribute('aria-labelledby');
      return { id: s.id, width: r.width, height: r.height, role: s.getAttribute('role'), title: label ? document.getElementById(label)?.textContent ?? '' : s.getAttribute('aria-label') ?? '' };
    }));
    // By type, by pass, load time on two networks, and before and after for four protocols.
    expect(charts.map((c) => c.id)).toEqual(['chart-types', 'chart-passes', 'chart-time-0', 'chart-time-1', ...[0, 1, 2, 3].flatMap((i) => [`wf-${i}-before`, `wf-${i}-after`])]);
    for (const c of charts) {
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.height, c.id).toBeGreaterThan(c.id.startsWith('wf-') ? 50 : 30);
      expect(c.role).toBe('img');
      expect(c.title.length, c.id).toBeGreaterThan(10);
    }
    // Every table has column headers.
    expect(await page.$$eval('table', (ts) => ts.filter((t) => !t.querySelector('thead th[scope=col]')).length)).toBe(0);
  });

  chromiumTest('draws one waterfall bar per request of the first network\'s first visit', async () => {
    const { page } = await opened();
    for (const protocol of ['http1.0', 'http1.1', 'pipelined', 'h2']) {
      for (const side of /** @type {const} */ (['before', 'after'])) {
        const run = report[side].runs.find((r) => r.protocol === protocol && r.network === 'wan-1997' && r.visit === 'first');
        const bars = await page.$$eval(`svg.waterfall[data-protocol="${protocol}"][data-side="${side}"] rect.req`, (rects) => rects.map((r) => {
          const b = r.getBoundingClientRect();
          return { order: Number(r.getAttribute('data-order')), left: b.left, right: b.right, width: b.width, height: b.height };
        }));
        expect(bars, `${protocol} ${side}`).toHaveLength(run?.timeline.length ?? -1);
        expect(bars.map((b) => b.order)).toEqual(run?.timeline.map((t) => t.order));
        expect(bars.every((b) => b.width > 0 && b.height > 0)).toBe(true);
        // The bar that ends last is the request that finished last.
        const last = run?.timeline.reduce((a, t) => (t.doneMs > a.doneMs ? t : a));
        const rightmost = bars.reduce((a, b) => (b.right > a.right ? b : a));
        expect(rightmost.right).toBeCloseTo(bars.find((b) => b.order === last?.order)?.right ?? -1, 0);
      }
    }
    expect(await page.locator('svg.waterfall[data-protocol="http1.0"][data-side="before"] rect.req').count()).toBe(43);
  });

  chromiumTest('shows the numbers of the ReportData', async () => {
    const { page } = await opened();
    // What visitors load: each visit summed over the pages (one here) over HTTP/2.
    expect(report.headline.protocol).toBe('h2');
    expect(Object.keys(report.headline.visits)).toEqual(['first', 'repeat', 'revalidate']);
    for (const visit of /** @type {const} */ (['first', 'repeat'])) {
      const totals = report.headline.visits[visit];
      if (!totals) throw new Error(`no ${visit} visit`);
      const card = page.locator(`.visit[data-visit="${visit}"]`);
      expect(await card.locator('h3').textContent()).toBe(visit === 'first' ? 'First visit nothing cached: every file is downloaded' : 'Repeat visit 1 day later; 0 → 0 from the cache');
      expect(await card.locator('[data-metric="wireBytes"] data.before').textContent()).toBe(int.format(totals.wireBytes.before));
      expect(await card.locator('[data-metric="wireBytes"] data.after').textContent()).toBe(int.format(totals.wireBytes.after));
      expect(await card.locator('[data-metric="requests"] dd.big').textContent()).toBe('43 → 41');
      expect(await card.locator('[data-metric="requests"] dd:not(.big)').textContent()).toBe('−2 (−4.7%)');
      for (const network of ['wan-1997', 'slow-4g']) {
        const c = totals.seconds[network];
        const cells = await card.locator(`table.times tr[data-network="${network}"] td`).allTextContents();
        expect(cells.slice(0, 2)).toEqual([c.before.toFixed(2), c.after.toFixed(2)]);
        expect(c).toEqual(saving('h2', network, visit).seconds);
        // The first visit's first render, in the line under the cards.
        if (visit === 'first') {
          const render = page.locator(`.visit-notes [data-metric="firstRender"] [data-network="${network}"]`);
          const r = totals.firstRender[network];
          expect(await render.locator('data').evaluateAll((els) => els.map((el) => Number(el.getAttribute('value'))))).toEqual([r.before, r.after]);
          expect(await render.textContent()).toMatch(new RegExp(`^${network} [0-9.,]+ → [0-9.,]+ s$`));
          expect(r).toEqual(saving('h2', network, visit).firstRender);
          expect(r.after).toBeLessThan(c.after);
        }
      }
    }
    const revalidation = report.headline.visits.revalidate;
    expect(await page.locator('.visit-notes [data-visit="revalidate"]').textContent()).toBe(`Revalidation, every file asked for again: ${int.format(revalidation?.wireBytes.before ?? -1)} → ${int.format(revalidation?.wireBytes.after ?? -1)} B −${int.format(revalidation?.wireBytes.saved ?? -1)} B (−${revalidation?.wireBytes.percent.toFixed(1)}%), 43 → 41 requests (all numbers).`);
    const gif = page.locator('#table-types tbody tr', { hasText: 'image/gif' });
    expect(await gif.locator('td').allTextContents()).toEqual(expect.arrayContaining([
      int.format(report.before.files['image/gif'].served), int.format(report.after.files['image/gif'].served),
    ]));
    // Totals by network and strategy: of one page, that page's comparison.
    const row = await page.locator('table.totals tr[data-network="slow-4g"][data-protocol="pipelined"][data-visit="revalidate"] td').allTextContents();
    const c = saving('pipelined', 'slow-4g', 'revalidate');
    expect(row.slice(1, 7)).toEqual([c.requests.before, c.requests.after, c.packets.before, c.packets.after, c.wireBytes.before, c.wireBytes.after].map((n) => int.format(n)));
    expect(row.slice(8, 10)).toEqual([c.seconds.before.toFixed(3), c.seconds.after.toFixed(3)]);
    // Every run, before above after.
    for (const side of /** @type {const} */ (['before', 'after'])) {
      const run = report[side].runs.find((r) => r.protocol === 'http1.1' && r.network === 'wan-1997' && r.visit === 'first');
      if (!run) throw new Error('no run');
      const cells = await page.locator(`table.runs tbody[data-visit="first"][data-network="wan-1997"] tr.${side}`, { hasText: `HTTP/1.1, ${side}` }).locator('td').allTextContents();
      expect(cells).toEqual([int.format(run.requests), int.format(run.connections), int.format(run.packets), int.format(run.wireBytes), int.format(run.payloadBytes), run.overheadPercent.toFixed(1), int.format(run.retransmissions), run.seconds.toFixed(3), run.firstRender.toFixed(3), run.largestPaint === null ? '–' : run.largestPaint.toFixed(3)]);
    }
    expect(await page.locator('table.runs tbody tr:not(.group-head)').count()).toBe(report.before.runs.length + report.after.runs.length);
    // Every machine-readable number reads the same as the text beside it.
    const data = await page.$$eval('data', (els) => els.map((e) => [e.getAttribute('value'), e.textContent]));
    expect(data.length).toBeGreaterThan(150);
    for (const [value, text] of data) {
      const decimals = (text?.split('.')[1] ?? '').length;
      expect(Math.abs(Number(text?.replace(/,/g, '')) - Number(value)), `${value} shown as ${text}`).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
    }
  });

  chromiumTest('groups the decisions and lists every one', async () => {
    const { page } = await opened();
    const groups = await page.$$eval('#decisions details.group', (els) => els.map((d) => ({ kind: d.getAttribute('data-kind'), summary: d.querySelector('summary')?.textContent, items: [...d.querySelectorAll('li')].map((li) => li.textContent) })));
    expect(groups).toEqual([
      { kind: 'changed', summary: 'changed 1 (images/anim/banner.gif)', items: ['images/anim/banner.gif: text on a flat background (score 0.97)'] },
      { kind: 'kept', summary: `kept 1: a photograph (${EVIL})`, items: [`${EVIL}: a photograph (score 0.125)`] },
    ]);
    expect(await page.locator('#decisions .groups[data-pass="precompress"]').count()).toBe(0);
    expect(await page.locator('#decisions p.counts').textContent()).toBe('0 errors, 0 warnings, 0 information.');
  });

  chromiumTest('renders a full-page screenshot with colour', async () => {
    const { page } = await opened();
    const png = path.join(dir, 'report.png');
    await screenshot(page, { path: png, fullPage: true });
    const bytes = await fs.readFile(png);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.length).toBeGreaterThan(100_000);
    const meta = await sharp(bytes).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBe(1100);
    expect(meta.height).toBeGreaterThan(3000);
    const { data, info } = await sharp(bytes).resize({ width: 275, kernel: 'nearest' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const colours = new Set();
    for (let i = 0; i < data.length; i += info.channels) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    expect(colours.size).toBeGreaterThan(12);
  });
});

describe('the offline page helper', () => {
  chromiumTest('aborts and records a request for anything but file: and data:', async () => {
    const browser = await launchChromium();
    try {
      const { page, blocked } = await offlinePage(browser);
      await page.goto('data:text/html,<img src="http://example.invalid/x.png"><img src="https://example.invalid/y.png">');
      await expect.poll(() => blocked.length).toBe(2);
      expect(blocked.sort()).toEqual(['http://example.invalid/x.png', 'https://example.invalid/y.png']);
    } finally {
      await browser.close();
    }
  });
});
