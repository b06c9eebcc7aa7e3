import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { compareSites } from '../src/report/compare.js';
import { escapeHtml, niceTicks, renderHtmlReport, WATERFALL_ROWS } from '../src/report/html.js';
import { tempDir } from './helpers/tmp.js';
import { chromiumTest, launchChromium, offlinePage } from './helpers/chromium.js';

const int = new Intl.NumberFormat('en-US');
const EVIL = 'images/<script>alert(1)</script>&"x\'.gif';

/**
 * A build summary shaped like the one a build that made the "after" site would return.
 * @param {Partial<import('../src/pipeline.js').PassReport>[]} passes
 * @returns {import('../src/summary.js').BuildSummary}
 */
function buildSummary(passes) {
  return {
    tool: 'pagediet', version: '0.1.0', input: 'in', output: 'out', ms: 1234,
    totals: { files: 44, pages: 1, stylesheets: 0, assets: 43, bytesIn: 178422, bytesOut: 118289, bytesSaved: 60133, references: 108, requestsBefore: 43, requestsAfter: 41, warnings: 0 },
    pages: [], assets: [], referencesByKind: {}, referencesByStatus: {}, references: [], warnings: [],
    written: { written: 3, copied: 40, removed: 0 },
    passes: passes.map((p) => ({ name: 'x', description: 'x', files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 1, ...p })),
  };
}

/** A report with one run per side, made up, for tests that need no robot. @param {object} [o] */
function fakeReport({ site = '/sites/a', page = '/index.html', requests = 3, type = 'text/html' } = {}) {
  const timeline = Array.from({ length: requests }, (_, i) => ({ order: i, connection: 0, domain: 0, sentMs: i * 10, doneMs: i * 10 + 25 }));
  const run = {
    page, protocol: /** @type {const} */ ('h2'), network: 'wan-1997', visit: /** @type {const} */ ('first'),
    requests, connections: 1, packets: 10, wireBytes: 5000, payloadBytes: 4600, seconds: 0.5, overheadPercent: 8, retransmissions: 0,
    measured: { status: { 200: requests }, bodyBytes: 4000, headerBytes: 600, connections: 1 }, timeline,
  };
  const change = (/** @type {number} */ n) => ({ before: n, after: n, saved: 0, percent: 0 });
  return {
    before: { site, runs: [run], files: { [type]: { files: 1, bytes: 100, served: 100 } } },
    after: { site: `${site}-after`, runs: [run], files: { [type]: { files: 1, bytes: 90, served: 50 } } },
    savings: [{ page, protocol: run.protocol, network: run.network, visit: run.visit, requests: change(requests), packets: change(10), wireBytes: change(5000), seconds: change(0.5) }],
  };
}

describe('HTML report, without a browser', () => {
  it('escapes every string that comes from files and URLs', () => {
    expect(escapeHtml(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&#39;');
    const report = fakeReport({ site: '/sites/<script>alert(1)</script>&co', page: '/a&b<script>.html', type: 'text/<x>&' });
    const html = renderHtmlReport(report, buildSummary([{ name: 'p<&>', description: '<b>bold</b>', decisions: [{ file: EVIL, action: 'kept', reason: 'score < 1 & "close"', score: 0.5 }] }]));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<b>bold');
    expect(html).not.toContain('text/<x>');
    expect(html).toContain('/sites/&lt;script&gt;alert(1)&lt;/script&gt;&amp;co');
    expect(html).toContain('/a&amp;b&lt;script&gt;.html');
    expect(html).toContain(escapeHtml(EVIL));
    expect(html).toContain('score &lt; 1 &amp; &quot;close&quot;');
  });

  it('is deterministic and self-contained: no scripts, no URLs, no dates', () => {
    const report = fakeReport();
    const html = renderHtmlReport(report);
    expect(renderHtmlReport(structuredClone(report))).toBe(html);
    expect(html).not.toMatch(/https?:|\/\/[a-z]|url\(|@import|<script|<link|<img|<iframe/i);
    expect(html).not.toMatch(/20\d\d-\d\d-\d\d/);
    expect(html).toContain('No build: this report compares two directories');
    expect(renderHtmlReport(report, buildSummary([{ name: 'css' }]))).toContain('No pass decisions.');
    expect(renderHtmlReport(report, buildSummary([]))).toContain('No passes ran.');
  });

  it(`draws at most ${WATERFALL_ROWS} rows of a waterfall and says so`, () => {
    const html = renderHtmlReport(fakeReport({ requests: 1000 }));
    expect(html.match(/<rect class="req /g)).toHaveLength(2 * WATERFALL_ROWS);
    expect(html).toContain(`showing the first ${WATERFALL_ROWS} of 1,000 requests`);
    expect(html.length).toBeLessThan(200_000);
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
    report = await compareSites({ before: 'fixtures/microscape', after, networks: ['wan-1997', 'slow-4g'] });
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

  chromiumTest('opens from disk with no network, no errors and no scripts', async () => {
    const { page, blocked, requests, errors } = await opened();
    expect(blocked).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((u) => u.startsWith('file:'))).toBe(true);
    expect(errors).toEqual([]);
    expect(await page.title()).toBe('pagediet report');
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    // The hostile file name is text in the decisions table, not markup.
    expect(await page.locator('#table-decisions').textContent()).toContain(EVIL);
  });

  chromiumTest('draws every chart with a size and an accessible name', async () => {
    const { page } = await opened();
    const charts = await page.$$eval('svg.chart', (svgs) => svgs.map((s) => {
      const r = s.getBoundingClientRect();
      const label = s.getAttribute('aria-labelledby');
      return { id: s.id, width: r.width, height: r.height, role: s.getAttribute('role'), title: label ? document.getElementById(label)?.textContent ?? '' : '' };
    }));
    // By type, by pass, load time on two networks, and before and after for four protocols.
    expect(charts.map((c) => c.id)).toEqual(['chart-types', 'chart-passes', 'chart-time-0', 'chart-time-1', ...[0, 1, 2, 3].flatMap((i) => [`wf-${i}-before`, `wf-${i}-after`])]);
    for (const c of charts) {
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.height, c.id).toBeGreaterThan(50);
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
    for (const network of ['wan-1997', 'slow-4g']) {
      const c = saving('h2', network);
      const card = page.locator(`.card[data-network="${network}"]`);
      expect(await card.locator('[data-metric="wireBytes"] data.before').textContent()).toBe(int.format(c.wireBytes.before));
      expect(await card.locator('[data-metric="wireBytes"] data.after').textContent()).toBe(int.format(c.wireBytes.after));
      expect(await card.locator('[data-metric="requests"] dd.big').textContent()).toBe('43 → 41');
      expect(await card.locator('[data-metric="seconds"] data.before').textContent()).toBe(c.seconds.before.toFixed(2));
      expect(await card.locator('[data-protocol="http1.0"]').textContent()).toBe(`HTTP/1.0: ${saving('http1.0', network).seconds.saved.toFixed(2)} s saved`);
    }
    const gif = page.locator('#table-types tbody tr', { hasText: 'image/gif' });
    expect(await gif.locator('td').allTextContents()).toEqual(expect.arrayContaining([
      int.format(report.before.files['image/gif'].served), int.format(report.after.files['image/gif'].served),
    ]));
    const row = await page.locator('table.savings tr[data-network="slow-4g"][data-protocol="pipelined"][data-visit="revalidate"] td').allTextContents();
    const c = saving('pipelined', 'slow-4g', 'revalidate');
    expect(row.slice(1, 7)).toEqual([c.requests.before, c.requests.after, c.packets.before, c.packets.after, c.wireBytes.before, c.wireBytes.after].map((n) => int.format(n)));
    // Every machine-readable number reads the same as the text beside it.
    const data = await page.$$eval('data', (els) => els.map((e) => [e.getAttribute('value'), e.textContent]));
    expect(data.length).toBeGreaterThan(300);
    for (const [value, text] of data) {
      const decimals = (text?.split('.')[1] ?? '').length;
      expect(Math.abs(Number(text?.replace(/,/g, '')) - Number(value)), `${value} shown as ${text}`).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
    }
  });

  chromiumTest('renders a full-page screenshot with colour', async () => {
    const { page } = await opened();
    const png = path.join(dir, 'report.png');
    await page.screenshot({ path: png, fullPage: true });
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
