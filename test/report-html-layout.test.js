/**
 * The HTML report laid out in Chromium, for the microscape demo (built with
 * pagediet's passes) and for a made-up site of 300 pages: at 1280x800 and at
 * 390x844 no element is wider than its box (tables scroll in their own box at
 * 390 px, and need not at 1280), chart text is at least 11 CSS px, axis
 * labels do not overlap, and the first screen shows what visitors load and
 * the files no page loads apart. The 300-page file's size and the time
 * Chromium takes to load it are printed and held to a bound.
 *
 * Screenshots of the first screens go to scratch/ (git-ignored) when that
 * folder exists, to look at; otherwise to the test's temporary folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { build } from '../src/build/pipeline.js';
import { change, compareSites, headline, REPORT_NETWORKS } from '../src/report/compare.js';
import { renderHtmlReport } from '../src/report/html.js';
import { PAGES_OPEN } from '../src/report/html-numbers.js';
import { TOP_PAGES } from '../src/report/html-pages.js';
import { chromiumTest, launchChromium, offlinePage, screenshot } from './helpers/chromium.js';
import { tempDir } from './helpers/tmp.js';

const int = new Intl.NumberFormat('en-US');
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];
/** The least font size of chart text, in CSS px, on any screen. */
const CHART_TEXT_PX = 11;
/**
 * The bound for the 300-page report: the old report was 15.9 MB and took about 14 s to load. With three visits it holds
 * 28,800 runs (4.2 MB); the bound is 174 B a run, less than the 208 B of 4 MB for the 19,200 runs of two visits.
 */
const LARGE_BYTES = 5_000_000;

/**
 * A made-up report and build summary of a site of `count` pages, every one
 * loaded on the report's four networks with the four strategies, first
 * visit, revalidation and repeat visit (the output's subresources from the
 * cache, the input's revalidated): the shape of a real one, in the numbers
 * of a large site.
 * @param {number} count
 */
function synthetic(count) {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pages = ['/index.html', ...Array.from({ length: count - 1 }, (_, i) => `/section-${i % 7}/article-${String(i + 1).padStart(3, '0')}.html`)];
  const protocols = /** @type {const} */ (['http1.0', 'http1.1', 'pipelined', 'h2']);
  const speed = /** @type {Record<string, number>} */ ({ 'modem-28.8k': 3500, 'wan-1997': 150000, 'slow-4g': 200000, cable: 2500000 });
  /** @type {{ before: import('../src/loader/load.js').Run[], after: import('../src/loader/load.js').Run[] }} */
  const runs = { before: [], after: [] };
  /** @type {import('../src/report/compare.js').Comparison[]} */
  const savings = [];
  const figures = pages.map((page) => {
    const requests = 10 + Math.floor(random() * 60);
    const bytes = 20000 + Math.floor(random() * 400000);
    // One page in ten grows a little: the report must show it, red only when it is really worse.
    const cut = random() < 0.1 ? -0.02 : 0.1 + random() * 0.5;
    return { page, requests, bytes, after: { requests: Math.max(1, requests - Math.floor(random() * requests * 0.6)), bytes: Math.round(bytes * (1 - cut)) } };
  });
  for (const f of figures) {
    for (const network of REPORT_NETWORKS) {
      for (const protocol of protocols) {
        for (const visit of /** @type {const} */ (['first', 'revalidate', 'repeat'])) {
          const run = (/** @type {number} */ all, /** @type {number} */ bytes, /** @type {number} */ fromCache = 0) => {
            const requests = all - fromCache;
            const wire = visit === 'first' ? Math.round(bytes * 1.06) : requests * 330;
            const seconds = Math.round((wire / speed[network] + requests * (protocol === 'h2' ? 0.01 : 0.09)) * 1000) / 1000;
            const timeline = Array.from({ length: requests }, (_, i) => {
              const sentMs = Math.round((i * seconds * 700) / requests);
              return { order: i, connection: protocol === 'h2' ? 0 : i % 4, domain: 0, sentMs, doneMs: sentMs + Math.round((seconds * 300 * (1 + (i % 3))) / 3) + 5 };
            });
            return {
              page: f.page, protocol, network, visit, requests, fromCache, connections: protocol === 'h2' ? 1 : Math.min(4, requests),
              packets: Math.ceil(wire / 1400) + requests * 2, wireBytes: wire, payloadBytes: Math.round(wire * 0.94), seconds, overheadPercent: 6.4, retransmissions: 0,
              measured: { status: { 200: requests }, bodyBytes: bytes, headerBytes: requests * 200, connections: 1 }, timeline,
            };
          };
          const a = run(f.requests, f.bytes);
          const b = run(f.after.requests, f.after.bytes, visit === 'repeat' ? f.after.requests - 1 : 0);
          runs.before.push(a);
          runs.after.push(b);
          savings.push({ page: f.page, protocol, network, visit, requests: change(a.requests, b.requests), fromCache: change(a.fromCache, b.fromCache), packets: change(a.packets, b.packets), wireBytes: change(a.wireBytes, b.wireBytes), seconds: change(a.seconds, b.seconds), firstRender: change(a.firstRender, b.firstRender) });
        }
      }
    }
  }
  /** @type {import('../src/report/compare.js').ReportData} */
  const report = {
    baseline: 'gzip',
    betweenVisits: 86_400,
    before: { site: '/srv/www/example-site', runs: runs.before, files: { 'image/gif': { files: 2400, bytes: 31e6, served: 31e6 }, 'text/css': { files: 12, bytes: 4e5, served: 9e4 }, 'text/html': { files: count, bytes: 9e6, served: 2.1e6 } } },
    after: { site: '/srv/www/example-site-pagediet', runs: runs.after, files: { 'application/octet-stream': { files: 5, bytes: 7489, served: 7489 }, 'image/gif': { files: 2400, bytes: 31e6, served: 31e6 }, 'image/png': { files: 2100, bytes: 22e6, served: 22e6 }, 'text/css': { files: 12, bytes: 3e5, served: 5e4 }, 'text/html': { files: count, bytes: 8.6e6, served: 1.4e6 } } },
    savings,
    headline: headline(savings, pages.length, pages.length, 'gzip'),
  };
  const gifs = Array.from({ length: 2400 }, (_, i) => `images/s${i % 7}/pic-${i}.gif`);
  /** @param {string} name @returns {import('../src/build/pass.js').Decision[]} */
  const decisions = (name) => {
    if (name === 'gif-to-png') return gifs.map((file, i) => (i % 8 === 0 ? { file, action: 'skipped', reason: 'no page or style sheet refers to it' } : i % 5 === 0 ? { file, action: 'kept', reason: `the PNG is larger (${1000 + i} B against ${900 + i} B)` } : { file, action: 'changed', reason: `→ ${file.replace('.gif', '.png')}: ${2000 + i} → ${1500 + i} B` }));
    if (name === 'text-images') return gifs.slice(0, 1500).map((file, i) => (i % 3 === 0 ? { file, action: 'kept', reason: `not text: ${i} of 10710 pixels are neither background, ink nor between them` } : i % 3 === 1 ? { file, action: 'kept', reason: `larger than 32 KB, the most a text image may be (${40000 + i} B)`, score: 0.5 } : { file, action: 'changed', reason: 'text on a flat background', score: 0.97 }));
    if (name === 'html-case') return pages.map((p) => ({ file: p.slice(1), action: 'changed', reason: '1324 names lowered; gzip 10543 → 10338 B' }));
    return [];
  };
  const names = ['text-images', 'gif-to-png', 'animations', 'png', 'photos', 'image-markup', 'svg', 'scripts', 'fonts', 'html-case', 'css', 'precompress'];
  const passes = names.map((name, i) => ({
    name,
    description: name === 'photos' ? 'JPEG, lossy WebP and AVIF photographs re-encoded as AVIF, WebP and mozjpeg where SSIMULACRA 2 scores them visually identical, in the widths the layout draws them at, offered through <picture> and srcset' : `what ${name} does to a site`,
    files: i % 3 === 0 ? Array.from({ length: 40 }, (_, k) => ({ path: `f${k}`, before: 1000, after: 700 })) : [],
    bytesBefore: i % 3 === 0 ? 12345678 : 0, bytesAfter: i % 3 === 0 ? 9876543 : 0, referencesRewritten: i * 100, requestsRemoved: i === 0 ? 1200 : 0,
    decisions: decisions(name), ms: 1000 * i + 17,
  }));
  /** @type {[string, import('../src/build/messages.js').Severity, number, (i: number) => string][]} */
  const codes = [
    ['reference-missing', 'warning', 180, (i) => `img "images/missing-${i}.gif" points at a file that does not exist`],
    ['markup-repaired', 'info', 250, (i) => `an end tag </p> with no open element (line ${i})`],
    ['css-invalid', 'info', 12, () => 'CSS csso cannot parse: kept as it is'],
    ['compress-failed', 'error', 2, () => 'brotli failed: out of memory'],
  ];
  const warnings = codes.flatMap(([code, severity, n, message]) => Array.from({ length: n }, (_, i) => ({ file: pages[i % pages.length].slice(1), code, severity, message: message(i) })));
  const sum = (/** @type {(f: typeof figures[number]) => number} */ of) => figures.reduce((n, f) => n + of(f), 0);
  /** @type {import('../src/build/summary.js').BuildSummary} */
  const summary = {
    tool: 'pagediet', version: '0.1.0', input: '/srv/www/example-site', output: '/srv/www/example-site-pagediet', ms: 754321,
    totals: {
      files: 5000, pages: count, stylesheets: 12, assets: 4988, bytesIn: 40.4e6, bytesOut: 62e6, bytesSaved: -21.6e6, references: 40000,
      requestsBefore: sum((f) => f.requests), requestsAfter: sum((f) => f.after.requests), pageBytesBefore: sum((f) => f.bytes), pageBytesAfter: sum((f) => f.after.bytes),
      errors: 2, warnings: 180, info: 262,
    },
    outputFiles: {
      loaded: { files: 2700, bytes: 33e6 },
      notLoaded: { files: 2300, bytes: 29e6, paths: gifs.slice(0, 2300).sort() },
      configs: { files: 5, bytes: 7489, paths: ['pagediet-configs/_headers', 'pagediet-configs/caddy.conf', 'pagediet-configs/h2o.yaml', 'pagediet-configs/htaccess', 'pagediet-configs/nginx.conf'] },
    },
    pages: figures.map((f) => ({ path: f.page.slice(1), charset: 'utf-8', bytes: 30000, references: 50, requestsBefore: f.requests, requestsAfter: f.after.requests, loadBytesBefore: f.bytes, loadBytesAfter: f.after.bytes })),
    assets: gifs.map((p) => ({ path: p, type: 'image/gif', role: 'asset', bytesIn: 1000, bytesOut: 1000 })),
    referencesByKind: {}, referencesByStatus: {}, referencesListed: 'unresolved', references: [], passes, warnings,
    artifacts: [], written: { written: 3000, copied: 2000, removed: 0 }, work: { jobs: 4000, cacheHits: 0, passesReplayed: 0 },
  };
  return { report, summary };
}

/**
 * In the page: every element wider than its box. Outside boxes that scroll
 * sideways (overflow-x auto or scroll), an element's right edge stays within
 * its parent's content box; an element that does not scroll holds its
 * content (scrollWidth within clientWidth: nothing clipped). With
 * `noScrolling`, no box needs to scroll either. Inside an SVG the drawing is
 * the chart's: its text is checked by chartText().
 * @param {boolean} noScrolling
 */
function layoutProblems(noScrolling) {
  const problems = [];
  const scrolls = (/** @type {Element} */ el) => /auto|scroll/.test(getComputedStyle(el).overflowX);
  const name = (/** @type {Element} */ el) => `${el.localName}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
  const page = document.documentElement;
  if (page.scrollWidth > innerWidth) problems.push(`the page is ${page.scrollWidth} px wide in ${innerWidth}`);
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') && el.localName !== 'svg') continue;
    // Not drawn (inside a closed <details>, or hidden): nothing to hold.
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.display === 'contents') continue;
    if (el instanceof HTMLElement && style.display !== 'inline' && el.clientWidth > 0) {
      if (!scrolls(el) && el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} holds ${el.scrollWidth} px in ${el.clientWidth}`);
      if (scrolls(el) && noScrolling && el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} scrolls: ${el.scrollWidth} px in ${el.clientWidth}`);
    }
    let scroller = null;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) scroller = p;
    if (scroller) continue;
    let parent = el.parentElement;
    while (parent && getComputedStyle(parent).display === 'contents') parent = parent.parentElement;
    if (!parent) continue;
    const ps = getComputedStyle(parent);
    const right = parent.getBoundingClientRect().right - parseFloat(ps.borderRightWidth) - parseFloat(ps.paddingRight);
    if (r.right > right + 1) problems.push(`${name(el)} ends at ${Math.round(r.right)} px, past the content box of ${name(parent)} at ${Math.round(right)}`);
  }
  return problems;
}

/**
 * In the page: the text of every chart shown, with its size in CSS px as
 * drawn (an SVG's text times the scale of its drawing), and the axis labels
 * of each chart that overlap.
 */
function chartText() {
  /** @type {{ chart: string, text: string, px: number }[]} */
  const texts = [];
  const overlaps = [];
  for (const chart of document.querySelectorAll('.chart')) {
    const svg = chart instanceof SVGSVGElement;
    const elements = svg
      ? [...chart.querySelectorAll('text')]
      : [...chart.querySelectorAll('*')].filter((el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim()));
    for (const el of elements) {
      const box = el.getBoundingClientRect();
      if (getComputedStyle(el).display === 'none' || !box.width) continue;
      const matrix = svg ? /** @type {SVGTextElement} */ (el).getScreenCTM() : null;
      const scale = matrix ? Math.hypot(matrix.a, matrix.b) : 1;
      texts.push({ chart: chart.id, text: el.textContent ?? '', px: parseFloat(getComputedStyle(el).fontSize) * scale });
    }
    const ticks = [...chart.querySelectorAll('.tick')].map((t) => t.getBoundingClientRect()).filter((b) => b.width).sort((a, b) => a.left - b.left);
    for (let i = 1; i < ticks.length; i++) if (ticks[i].left < ticks[i - 1].right) overlaps.push(`${chart.id}: tick ${i} overlaps tick ${i - 1}`);
  }
  return { texts, overlaps };
}

/**
 * In the page: what the first screen shows, the texts of elements wholly in
 * the viewport and not covered, or null.
 */
function firstScreen() {
  const seen = (/** @type {string} */ selector) => {
    const el = document.querySelector(selector);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || r.top < 0 || r.bottom > innerHeight || r.right > innerWidth || getComputedStyle(el).visibility !== 'visible') return null;
    const hit = document.elementFromPoint(r.left + Math.min(r.width, 20) / 2, r.top + r.height / 2);
    if (!hit || !(el === hit || el.contains(hit))) return null;
    return { text: el.textContent?.trim() ?? '', className: el.firstElementChild?.className ?? el.className };
  };
  const change = (/** @type {string} */ visit, /** @type {string} */ metric) => seen(`.visit[data-visit="${visit}"] [data-metric="${metric}"] dd:not(.big)`);
  return {
    title: seen('#headline-h'),
    firstBytes: change('first', 'wireBytes'),
    firstRequests: change('first', 'requests'),
    repeatBytes: change('repeat', 'wireBytes'),
    repeatRequests: change('repeat', 'requests'),
    repeatCached: seen('.visit[data-visit="repeat"] [data-metric="fromCache"]'),
    firstTimes: seen('.visit[data-visit="first"] table.times'),
    repeatTimes: seen('.visit[data-visit="repeat"] table.times'),
    revalidation: seen('.visit-notes [data-visit="revalidate"]'),
    baseline: seen('#headline .lede'),
    loaded: seen('.part[data-kind="loaded"] .count'),
    notLoaded: seen('.part[data-kind="notLoaded"] .count'),
    notLoadedTitle: seen('.part[data-kind="notLoaded"] h3'),
    configs: seen('.part[data-kind="configs"] .count'),
    configsTitle: seen('.part[data-kind="configs"] h3'),
    configsList: seen('.part[data-kind="configs"] summary'),
  };
}

/** Where screenshots go: scratch/ when it exists (git-ignored), else `fallback`. @param {string} fallback */
function shotDir(fallback) {
  const scratch = path.resolve('scratch');
  return existsSync(scratch) ? scratch : fallback;
}

/** "−39,721 B (−26.4%)" for a change in bytes. @param {import('../src/report/compare.js').Change} c @param {string} unit */
function changeText(c, unit) {
  const sign = c.saved > 0 ? '−' : '+';
  return `${sign}${int.format(Math.abs(c.saved))}${unit} (${sign}${Math.abs(c.percent).toFixed(1)}%)`;
}

describe('the HTML report laid out in Chromium', () => {
  /** @type {string} */
  let dir;
  /** @type {Record<'microscape' | 'many' | 'large', { file: string, report: import('../src/report/compare.js').ReportData, summary: import('../src/build/summary.js').BuildSummary }>} */
  const reports = /** @type {any} */ ({});
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;

  beforeAll(async () => {
    dir = await tempDir();
    // The demo built with every pass, as `pagediet build --html` does. Its files modified now: served as a stock
    // server serves them, none is heuristically fresh a day later (a checkout months old would make them all fresh).
    const input = path.join(dir, 'microscape');
    await fs.cp('fixtures/microscape', input, { recursive: true });
    const now = new Date();
    for (const name of await fs.readdir(input, { recursive: true })) await fs.utimes(path.join(input, name), now, now);
    const out = path.join(dir, 'microscape-out');
    const summary = await build({ input, output: out });
    const report = await compareSites({ before: input, after: out });
    reports.microscape = { file: path.join(dir, 'microscape.html'), report, summary };
    // Layout does not depend on the number of pages past a few: 40 pages lay out every part a large site has
    // (closed per-page tables, long lists); the 300-page report is for its size, load time and filters.
    reports.many = { file: path.join(dir, 'many.html'), ...synthetic(40) };
    reports.large = { file: path.join(dir, 'large.html'), ...synthetic(300) };
    for (const r of Object.values(reports)) await fs.writeFile(r.file, renderHtmlReport(r.report, r.summary));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** @param {{ width: number, height: number }} viewport @param {string} file */
  async function open(viewport, file) {
    browser ??= await launchChromium();
    const session = await offlinePage(browser, { viewport, colorScheme: 'light' });
    const started = performance.now();
    await session.page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return { ...session, ms: performance.now() - started };
  }

  it('the microscape build keeps originals and writes configs: files no page loads', () => {
    const o = reports.microscape.summary.outputFiles;
    expect(o.notLoaded.files).toBeGreaterThan(0);
    expect(o.configs.files).toBeGreaterThan(0);
    expect(reports.microscape.report.headline.visits.first?.wireBytes.saved).toBeGreaterThan(0);
    expect(reports.microscape.report.headline.visits.revalidate?.wireBytes.saved).toBeGreaterThan(0);
    // A day later the input revalidates its 43 objects; the output fewer, and none when its names are fingerprinted.
    const repeat = reports.microscape.report.headline.visits.repeat;
    expect(repeat?.requests.before).toBe(43);
    expect(repeat?.wireBytes.saved).toBeGreaterThan(0);
    expect(repeat?.requests.saved).toBeGreaterThan(0);
  });

  for (const name of /** @type {const} */ (['microscape', 'many'])) {
    for (const viewport of VIEWPORTS) {
      chromiumTest(`${name} at ${viewport.width}x${viewport.height}: nothing wider than its box, chart text readable`, async () => {
        const { context, page, errors, blocked } = await open(viewport, reports[name].file);
        try {
          expect(errors).toEqual([]);
          expect(blocked).toEqual([]);
          // At 1280 px nothing scrolls sideways; at 390 px wide tables scroll in their own box, and nothing else is wider than its box.
          expect(await page.evaluate(layoutProblems, viewport.width >= 1280)).toEqual([]);
          const { texts, overlaps } = await page.evaluate(chartText);
          expect(texts.length).toBeGreaterThan(50);
          expect(new Set(texts.map((t) => t.chart)).size).toBeGreaterThanOrEqual(name === 'microscape' ? 12 : 12);
          expect(texts.filter((t) => t.px < CHART_TEXT_PX - 0.01)).toEqual([]);
          expect(overlaps).toEqual([]);
          // Open every folded list too: what it holds fits as well.
          await page.evaluate(() => document.querySelectorAll('details').forEach((d, i) => { if (i < 400) d.open = true; }));
          expect(await page.evaluate(layoutProblems, viewport.width >= 1280)).toEqual([]);
        } finally {
          await context.close();
        }
      }, 120_000);
    }

    chromiumTest(`${name}: the first screen at 1280x800 shows what visitors load, and the files no page loads apart`, async () => {
      const { report, summary, file } = reports[name];
      const { context, page } = await open({ width: 1280, height: 800 }, file);
      try {
        const png = path.join(shotDir(dir), `report-html-first-screen-${name}.png`);
        await screenshot(page, { path: png });
        const meta = await sharp(png).metadata();
        expect([meta.width, meta.height]).toEqual([1280, 800]);
        const shown = await page.evaluate(firstScreen);
        const first = report.headline.visits.first;
        const repeat = report.headline.visits.repeat;
        const revalidation = report.headline.visits.revalidate;
        if (!first || !repeat || !revalidation) throw new Error('no first or repeat visit, or no revalidation');
        expect(shown.title?.text).toBe('What visitors load');
        // The savings, green.
        expect(shown.firstBytes).toEqual({ text: changeText(first.wireBytes, ' B'), className: 'good' });
        expect(shown.repeatBytes).toEqual({ text: changeText(repeat.wireBytes, ' B'), className: 'good' });
        expect(shown.firstRequests).toEqual({ text: changeText(first.requests, ''), className: 'good' });
        expect(shown.repeatRequests).toEqual({ text: changeText(repeat.requests, ''), className: 'good' });
        expect(shown.repeatCached?.text).toBe(`${int.format(repeat.fromCache.before)} → ${int.format(repeat.fromCache.after)} from the cache`);
        expect(repeat.fromCache.after).toBeGreaterThan(name === 'many' ? 0 : -1);
        expect(shown.revalidation?.text).toContain(`${int.format(revalidation.requests.before)} → ${int.format(revalidation.requests.after)} requests`);
        for (const times of [shown.firstTimes, shown.repeatTimes]) {
          for (const network of REPORT_NETWORKS) expect(times?.text).toContain(network);
        }
        expect(shown.baseline?.text).toContain('(baseline gzip)');
        expect(shown.baseline?.text).toContain('gzip level 6 on the fly');
        // The output on disk: what pages load, and apart, what no page loads and the server configs.
        const o = summary.outputFiles;
        expect(shown.loaded?.text).toBe(`${int.format(o.loaded.files)} files, ${int.format(o.loaded.bytes)} B`);
        expect(shown.notLoadedTitle?.text).toBe('Not loaded by any page');
        expect(shown.notLoaded?.text).toBe(`${int.format(o.notLoaded.files)} files, ${int.format(o.notLoaded.bytes)} B`);
        expect(shown.configsTitle?.text).toBe('Server configs');
        expect(shown.configs?.text).toBe(`${int.format(o.configs.files)} files, ${int.format(o.configs.bytes)} B`);
        expect(shown.configsList?.text).toContain(o.configs.paths[0].slice(o.configs.paths[0].lastIndexOf('/') + 1));
        // Listed apart: three parts, none inside another, and no line counts them as served.
        expect(await page.$$eval('.part', (parts) => parts.map((p) => [p.getAttribute('data-kind'), parts.filter((q) => q !== p && q.contains(p)).length]))).toEqual([['loaded', 0], ['notLoaded', 0], ['configs', 0]]);
        expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/served bytes of the whole site/i);
        // Every path of the lists is in the file.
        for (const kind of /** @type {const} */ (['notLoaded', 'configs'])) {
          const folder = await page.$$eval(`.part[data-kind="${kind}"] .folder code`, (codes) => codes.map((c) => c.textContent ?? ''));
          const listed = await page.$$eval(`.part[data-kind="${kind}"] li`, (lis) => lis.map((li) => li.textContent));
          expect(listed.map((name) => `${folder[0] ?? ''}${name}`)).toEqual(o[kind].paths);
        }
      } finally {
        await context.close();
      }
    }, 120_000);
  }

  chromiumTest('300 pages: a file of a few megabytes (its load time logged), every figure in it', async () => {
    const { report, summary, file } = reports.large;
    const bytes = (await fs.stat(file)).size;
    // Twice: the first load pays for starting the renderer.
    await open({ width: 1280, height: 800 }, file).then((s) => s.context.close());
    const { context, page, ms } = await open({ width: 1280, height: 800 }, file);
    try {
      console.info(`report-html-layout: 300 pages, ${report.savings.length} comparisons, ${report.before.runs.length + report.after.runs.length} runs: ${int.format(bytes)} bytes, loaded in ${Math.round(ms)} ms`);
      expect(bytes).toBeLessThan(LARGE_BYTES);
      // Each page's runs folded away, every run in the file.
      expect(PAGES_OPEN).toBeLessThan(300);
      expect(await page.locator('details.page').count()).toBe(300);
      expect(await page.locator('details.page[open]').count()).toBe(0);
      expect(await page.locator('table.runs tbody tr:not(.group-head)').count()).toBe(report.before.runs.length + report.after.runs.length);
      // The pages that saved most and those that cost most, from the build's figures.
      const bySaving = [...summary.pages].sort((a, b) => (b.loadBytesBefore - b.loadBytesAfter) - (a.loadBytesBefore - a.loadBytesAfter));
      const byCost = [...summary.pages].sort((a, b) => b.loadBytesAfter - a.loadBytesAfter);
      const paths = (/** @type {string} */ id) => page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => r.getAttribute('data-page')));
      expect(await paths('table-top-savings')).toEqual(bySaving.slice(0, TOP_PAGES).map((p) => `/${p.path}`));
      expect(await paths('table-top-costs')).toEqual(byCost.slice(0, TOP_PAGES).map((p) => `/${p.path}`));
      // A page that grew by 2% is red, one that saved is green.
      const classes = await page.$$eval('#table-top-costs tbody tr td:nth-child(4) span', (spans) => spans.map((s) => s.className));
      for (const [k, p] of byCost.slice(0, TOP_PAGES).entries()) expect(classes[k]).toBe(p.loadBytesAfter > p.loadBytesBefore ? 'bad' : 'good');
    } finally {
      await context.close();
    }
  }, 120_000);

  chromiumTest('300 pages: the filter boxes narrow the decisions, the messages and the pages', async () => {
    const { summary, file } = reports.large;
    const { context, page, errors } = await open({ width: 1280, height: 800 }, file);
    try {
      const box = page.locator('p.filter[data-filter="decisions-list"]');
      expect(await box.isVisible()).toBe(true);
      const members = summary.passes.flatMap((p) => p.decisions.map((d) => `${d.file}: ${d.reason}`)).concat(summary.warnings.map((w) => `${w.file}: ${w.message}`));
      const visible = () => page.$$eval('#decisions-list li[data-item]', (lis) => lis.filter((li) => !li.closest('[hidden]')).length);
      expect(await visible()).toBe(members.length);
      expect(await page.locator('#decisions-list details.group[open]').count()).toBe(0);
      await box.locator('input').fill('pic-1001.');
      const matching = members.filter((m) => m.toLowerCase().includes('pic-1001.'));
      expect(matching.length).toBeGreaterThan(0);
      expect(await visible()).toBe(matching.length);
      expect(await box.locator('output').textContent()).toBe(`${matching.length} of ${members.length} shown`);
      // Groups with a match open; the others, and passes with none, are hidden.
      expect(await page.locator('#decisions-list details.group[open]:not([hidden])').count()).toBe(await page.locator('#decisions-list details.group:not([hidden])').count());
      expect(await page.locator('#decisions-list .groups[data-severity]:not([hidden])').count()).toBe(0);
      // A group's label matches all of its members.
      await box.locator('input').fill('markup browsers repair');
      expect(await visible()).toBe(summary.warnings.filter((w) => w.code === 'markup-repaired').length);
      await box.locator('input').fill('');
      expect(await visible()).toBe(members.length);
      expect(await page.locator('#decisions-list details.group[open]').count()).toBe(0);
      expect(await page.locator('#decisions-list [hidden]').count()).toBe(0);
      const pages = page.locator('p.filter[data-filter="page-runs"] input');
      await pages.fill('article-26');
      expect(await page.$$eval('details.page:not([hidden]) summary code', (codes) => codes.map((c) => c.textContent))).toEqual(
        summary.pages.map((p) => `/${p.path}`).filter((p) => p.includes('article-26')),
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  chromiumTest('pagediet report (no build): pages ranked by the first visit\'s bytes on the wire, no decisions', async () => {
    const { report } = reports.large;
    const file = path.join(dir, 'no-build.html');
    const html = renderHtmlReport(report);
    await fs.writeFile(file, html);
    expect(html).not.toContain('id="decisions"');
    expect(html).not.toContain('id="disk"');
    const { context, page } = await open({ width: 390, height: 844 }, file);
    try {
      expect(await page.evaluate(layoutProblems, false)).toEqual([]);
      const first = report.savings.filter((c) => c.visit === 'first' && c.protocol === 'h2' && c.network === REPORT_NETWORKS[0]);
      const top = [...first].sort((a, b) => b.wireBytes.saved - a.wireBytes.saved).slice(0, TOP_PAGES);
      expect(await page.$$eval('#table-top-savings tbody tr', (rows) => rows.map((r) => r.getAttribute('data-page')))).toEqual(top.map((c) => c.page));
      const cells = await page.locator('#table-top-savings tbody tr').first().locator('td').allTextContents();
      expect(cells.slice(0, 2)).toEqual([int.format(top[0].wireBytes.before), int.format(top[0].wireBytes.after)]);
      expect(await page.locator('#pages > p').first().textContent()).toBe('Ranked by the first visit\'s bytes on the wire of each of the 300 pages loaded, over HTTP/2.');
    } finally {
      await context.close();
    }
  }, 120_000);
});
