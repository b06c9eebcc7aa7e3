// Benchmark: what visitors feel first, on the input, pagediet's output and
// jampack's (the tool users of such sites pick), each built with its
// defaults, cold. Every page is loaded in Chromium under an emulated slow 4G
// link (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up, by the DevTools
// protocol's network emulation), an empty cache each load, at 1280x800 and
// 360x740 (device pixel ratio 1), LOADS times (default 3):
// - FCP and LCP: the `paint` and `largest-contentful-paint` entries
//   Chromium reports, read at the load event once the network is idle,
//   before any scrolling;
// - CLS: the sum of `layout-shift` entries without recent input, from the
//   start of the load until the page has been scrolled to its end, a
//   viewport at a time, and every image (lazy ones included) has arrived;
// - the page's height then (what a full-page screenshot is): equal to the
//   input's, or the page is counted as grown or shrunk.
// A page's figure is the median of its loads; a site's, the median of its
// pages. Then it prints the first-render issue's goals: LCP at most 0.8x
// jampack's, FCP no later than jampack's, CLS 0 and every page's height the
// input's.
// Run: npm run bench:vitals   [--site DIR] [--loads N] [--keep] [--no-record]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from '../src/build/pipeline.js';
import { launchBrowser } from '../src/browser/launch.js';
import { installJampack, runJampack, serveSite, sitePages } from './peers/chromium-visit.js';
import { machineLine } from './machine.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const flag = (/** @type {string} */ name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const INPUT = path.resolve(flag('--site') ?? path.join(ROOT, 'fixtures/modern'));
const SITE_NAME = flag('--site') ? path.basename(INPUT) : 'fixtures/modern';
const LOADS = Number(flag('--loads') ?? 3);
const KEEP = process.argv.includes('--keep');
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 360, height: 740 }];
/** Slow 4G as the first-render issue measures it; bytes per second for the protocol. */
const NETWORK = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };

const PAGES = sitePages(INPUT);

/** Runs in each page before its scripts: collects the paint, LCP and layout-shift entries. */
function observe() {
  const seen = { fcp: /** @type {number | null} */ (null), lcp: /** @type {number | null} */ (null), cls: 0 };
  Object.defineProperty(window, '__vitals', { value: seen });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') seen.fcp = entry.startTime;
  }).observe({ type: 'paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) seen.lcp = entry.startTime;
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of /** @type {any[]} */ (list.getEntries())) if (!entry.hadRecentInput) seen.cls += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
}

/**
 * In the page: scrolls to the end a viewport at a time, at each step waiting
 * for the images drawn in view (a lazy image further down starts loading
 * only when it comes near, and one not drawn never does).
 */
async function scrollThrough() {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)));
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight) {
    scrollTo(0, y);
    await frame();
    const inView = [...document.images].filter((img) => {
      const box = img.getBoundingClientRect();
      return !img.complete && box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight;
    });
    await Promise.all(inView.map((img) => new Promise((resolve) => {
      img.addEventListener('load', resolve, { once: true });
      img.addEventListener('error', resolve, { once: true });
    })));
  }
}

/**
 * The tab's requests in flight, counted by their events: `settled()`
 * resolves when none is (at once if none is).
 * @param {import('playwright-core').Page} tab
 */
function inFlight(tab) {
  let count = 0;
  /** @type {(() => void)[]} */
  const waiting = [];
  const done = () => {
    count--;
    if (count === 0) for (const resolve of waiting.splice(0)) resolve();
  };
  tab.on('request', () => { count++; });
  tab.on('requestfinished', done);
  tab.on('requestfailed', done);
  return { settled: () => (count === 0 ? Promise.resolve() : new Promise((resolve) => { waiting.push(() => resolve(undefined)); })) };
}

/**
 * The median of the figures that were taken (NaN where none was: a page without an LCP entry, say).
 * @param {number[]} values
 */
function medianOf(values) {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
}

/**
 * Every page of a site loaded LOADS times at each viewport.
 * @param {string} root
 * @returns {Promise<Record<string, Record<string, { fcp: number, lcp: number, cls: number, height: number }>>>} by viewport, by page
 */
async function measure(root) {
  const { server, base } = await serveSite(root);
  const { browser } = await launchBrowser();
  /** @type {Record<string, Record<string, { fcp: number, lcp: number, cls: number, height: number }>>} */
  const figures = {};
  try {
    for (const viewport of VIEWPORTS) {
      const byPage = (figures[`${viewport.width}px`] = {});
      for (const page of PAGES) {
        const loads = [];
        for (let i = 0; i < LOADS; i++) {
          const context = await browser.newContext({ viewport });
          const tab = await context.newPage();
          const cdp = await context.newCDPSession(tab);
          await cdp.send('Network.enable');
          await cdp.send('Network.emulateNetworkConditions', NETWORK);
          await tab.addInitScript(observe);
          const requests = inFlight(tab);
          await tab.goto(base + page, { waitUntil: 'networkidle', timeout: 600_000 });
          const first = await tab.evaluate(() => ({ ...(/** @type {any} */ (window).__vitals) }));
          await tab.evaluate(scrollThrough);
          // What the scrolling started (lazy images without a box yet, say) has arrived and is drawn.
          await requests.settled();
          const { cls, height } = await tab.evaluate(async () => {
            for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(() => resolve(null)));
            return { cls: /** @type {any} */ (window).__vitals.cls, height: document.documentElement.scrollHeight };
          });
          loads.push({ fcp: first.fcp ?? NaN, lcp: first.lcp ?? NaN, cls, height });
          await context.close();
        }
        byPage[page] = { fcp: medianOf(loads.map((l) => l.fcp)), lcp: medianOf(loads.map((l) => l.lcp)), cls: Math.max(...loads.map((l) => l.cls)), height: medianOf(loads.map((l) => l.height)) };
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  return figures;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-bench-vitals-'));
console.log(`first render and LCP on ${SITE_NAME}, ${PAGES.length} pages, ${LOADS} loads each: ${machineLine()}`);
const pagedietOut = path.join(work, 'pagediet');
await build({ input: INPUT, output: pagedietOut, cacheDir: path.join(work, 'cache') });
const jampackOut = path.join(work, 'jampack');
fs.cpSync(INPUT, jampackOut, { recursive: true });
installJampack();
runJampack(jampackOut);
const results = { input: await measure(INPUT), pagediet: await measure(pagedietOut), jampack: await measure(jampackOut) };

const lines = [];
const goals = [];
/** pagediet's pages whose height differs from the input's, at a viewport. @type {string[]} */
const grown = [];
for (const viewport of VIEWPORTS) {
  const key = `${viewport.width}px`;
  lines.push(`| ${key} (median of pages) | FCP | LCP | CLS, largest page | pages whose height differs from the input's |`, '| --- | ---: | ---: | ---: | ---: |');
  /** @type {Record<string, { fcp: number, lcp: number, cls: number }>} */
  const summary = {};
  for (const [tool, figures] of Object.entries(results)) {
    const pages = Object.values(figures[key]);
    const differ = PAGES.filter((p) => Math.abs(figures[key][p].height - results.input[key][p].height) > 1);
    if (tool === 'pagediet') grown.push(...differ.map((p) => `${p} at ${key}`));
    summary[tool] = { fcp: medianOf(pages.map((p) => p.fcp)), lcp: medianOf(pages.map((p) => p.lcp)), cls: Math.max(...pages.map((p) => p.cls)) };
    lines.push(`| ${tool} | ${summary[tool].fcp.toFixed(0)} ms | ${summary[tool].lcp.toFixed(0)} ms | ${summary[tool].cls.toFixed(4)} | ${differ.length ? differ.join(', ') : 'none'} |`);
  }
  lines.push('');
  const met = (/** @type {boolean} */ ok) => (ok ? 'met' : '**missed**');
  const lcpRatio = summary.pagediet.lcp / summary.jampack.lcp;
  goals.push(`- ${met(lcpRatio <= 0.8)}: LCP at ${key}, pagediet over jampack: ${lcpRatio.toFixed(2)} (goal: at most 0.8)`);
  goals.push(`- ${met(summary.pagediet.fcp <= summary.jampack.fcp)}: FCP at ${key}: pagediet ${summary.pagediet.fcp.toFixed(0)} ms, jampack ${summary.jampack.fcp.toFixed(0)} ms (goal: no later)`);
  goals.push(`- ${met(summary.pagediet.cls === 0)}: CLS at ${key} while scrolling each page to its end, largest page: ${summary.pagediet.cls.toFixed(4)} (goal: 0)`);
}
goals.push(`- ${grown.length ? '**missed**' : 'met'}: every page of pagediet's output as high as the input's with its images loaded${grown.length ? ` (not: ${grown.join(', ')})` : ''}`);
const table = `${lines.join('\n')}\n${goals.join('\n')}`;
console.log(`\n${table}`);
await recordMeasurement('vitals-benchmark.md', `first render, LCP and CLS on ${SITE_NAME}`, table);
if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
else console.log(`outputs kept in ${work}`);
