/**
 * The loader's first render and largest paint: which requests the robot
 * marks as render-blocking (the page, its blocking style sheets and their
 * @imports, classic scripts in <head>) and as the image the page names as
 * its largest paint (fetchpriority="high"), and the times the model gives
 * them: when the last of those responses has arrived.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSite } from '../src/loader/load.js';
import { model, planFromTrace } from '../src/loader/model.js';
import { networkProfile } from '../src/loader/networks.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cfc0f01f0005000201a3a8c1a40000000049454e44ae426082', 'hex');
/** Large enough that the image arrives well after the style sheets. */
const HERO = Buffer.concat([PNG, Buffer.alloc(60_000, 7)]);

const PAGE = `<!doctype html>
<html><head>
<link rel="preload" href="/a.css" as="style">
<link rel="stylesheet" href="/a.css">
<link rel="preload" as="font" href="/first.woff2" crossorigin>
<link rel="stylesheet" href="/print.css" media="print">
<link rel="stylesheet" href="/wide.css" media="(min-width: 2000px)">
<link rel="stylesheet" href="/narrow.css" media="screen and (max-width: 1300px)">
<link rel="stylesheet" href="/off.css" disabled>
<script src="/head.js"></script>
<script src="/async.js" async></script>
<script src="/defer.js" defer></script>
<script type="module" src="/module.js"></script>
<style>@import url(/from-style.css); .x { background: url(/style-bg.png) }</style>
</head><body>
<p>Text</p>
<script src="/body.js"></script>
<img src="/small.png" alt="">
<picture><source srcset="/hero.webp" type="image/webp"><img src="/hero.png" fetchpriority="high" alt=""></picture>
<link rel="preload" as="image" href="/other.png">
</body></html>
`;

const FILES = {
  'index.html': PAGE,
  'plain.html': '<!doctype html><title>t</title><link rel="stylesheet" href="/b.css"><img src="/hero.png" alt="">',
  'a.css': '@import url(b.css); body { background: url(bg.png) } @font-face { font-family: F; src: url(first.woff2) format("woff2") }',
  'first.woff2': 'wOF2',
  'b.css': 'p { color: red }',
  'print.css': '@import url(print-import.css);',
  'print-import.css': 'p { color: black }',
  'wide.css': 'p { color: blue }',
  'narrow.css': 'p { color: green }',
  'off.css': 'p { color: gray }',
  'from-style.css': 'p { margin: 0 }',
  'head.js': 'var a = 1;',
  'async.js': 'var b = 1;',
  'defer.js': 'var c = 1;',
  'module.js': 'export {};',
  'body.js': 'var d = 1;',
  'small.png': PNG,
  'bg.png': PNG,
  'style-bg.png': PNG,
  'other.png': PNG,
  'hero.png': HERO,
  'hero.webp': HERO,
};

/** @type {import('../src/loader/load.js').LoadResult} */
let loaded;

beforeAll(async () => {
  const root = await tempDir();
  await writeTree(root, FILES);
  loaded = await loadSite({ root, pages: ['/index.html', '/plain.html'], protocols: ['h2', 'http1.1'], networks: ['slow-4g'], visits: ['first', 'repeat'] });
});

describe('the robot marks what the first render waits for, and the largest paint', () => {
  it('marks the page, its blocking style sheets, their @imports and the classic scripts of its head; the fetchpriority image as the paint', () => {
    const trace = loaded.traces.find((t) => t.page === '/index.html' && t.protocol === 'h2' && t.visit === 'first');
    const marks = Object.fromEntries((trace?.requests ?? []).map((r) => [r.path, `${r.blocking ? 'blocking' : ''}${r.paint ? 'paint' : ''}`]));
    expect(marks).toEqual({
      '/index.html': 'blocking',
      '/a.css': 'blocking', // its preload is no stylesheet, its link is
      '/b.css': 'blocking', // @imported by a blocking style sheet
      '/first.woff2': '', // fonts block nothing, preloaded or not: only a built page names its fonts
      '/bg.png': '',
      '/print.css': '',
      '/print-import.css': '',
      '/wide.css': '',
      '/off.css': '', // the robot fetches a disabled style sheet (a browser does not); it blocks nothing
      '/narrow.css': 'blocking', // its media holds at the robot's 1280 px
      '/head.js': 'blocking',
      '/async.js': '',
      '/defer.js': '',
      '/module.js': '',
      '/from-style.css': 'blocking', // @imported by a <style>
      '/style-bg.png': '',
      '/body.js': '',
      '/small.png': '',
      '/hero.webp': 'paint', // the <picture>'s choice for a browser that shows WebP
      '/other.png': '', // a preload without fetchpriority="high" names no paint
    });
  });
});

describe('the model gives the first render and the largest paint', () => {
  it('the first render when the last blocking response has arrived, the largest paint when its image has', () => {
    for (const protocol of /** @type {const} */ (['h2', 'http1.1'])) {
      const trace = loaded.traces.find((t) => t.page === '/index.html' && t.protocol === protocol && t.visit === 'first');
      if (!trace) throw new Error('no trace');
      const plan = planFromTrace(trace);
      const profile = networkProfile('slow-4g');
      const m = model(plan, protocol, profile);
      const done = (/** @type {string} */ p) => (/** @type {number} */ (m.timeline.find((t) => t.order === plan.requests.find((r) => r.path === p)?.order)?.doneMs) + profile.fixedMs) / 1000;
      const blocking = ['/index.html', '/a.css', '/b.css', '/narrow.css', '/head.js', '/from-style.css'];
      expect(m.firstRenderSeconds).toBe(Math.max(...blocking.map(done)));
      expect(m.largestPaintSeconds).toBe(Math.max(m.firstRenderSeconds, done('/hero.webp')));
      expect(m.seconds).toBeGreaterThanOrEqual(/** @type {number} */ (m.largestPaintSeconds));
      const run = loaded.runs.find((r) => r.page === '/index.html' && r.protocol === protocol && r.visit === 'first');
      expect(run).toMatchObject({ firstRender: Math.round(m.firstRenderSeconds * 1000) / 1000, largestPaint: Math.round(/** @type {number} */ (m.largestPaintSeconds) * 1000) / 1000 });
    }
  });

  it('a page that names no image has no largest paint; a page and a style sheet alone render when the style sheet has arrived', () => {
    const run = loaded.runs.find((r) => r.page === '/plain.html' && r.protocol === 'h2' && r.visit === 'first');
    const trace = loaded.traces.find((t) => t.page === '/plain.html' && t.protocol === 'h2' && t.visit === 'first');
    if (!run || !trace) throw new Error('no run');
    expect(run.largestPaint).toBeNull();
    expect(trace.requests.map((r) => [r.path, r.blocking])).toEqual([['/plain.html', true], ['/b.css', true], ['/hero.png', false]]);
    const css = /** @type {import('../src/loader/model.js').RequestTiming} */ (run.timeline.find((t) => t.order === 1));
    expect(run.firstRender).toBe(Math.round(css.doneMs + networkProfile('slow-4g').fixedMs) / 1000);
    expect(run.firstRender).toBeLessThan(run.seconds);
  });

  it('a repeat visit: what the cache gives costs no time; a named image from the cache paints with the first render', () => {
    const plan = {
      requests: [
        { order: 0, parent: null, requestBytes: 300, responseBytes: 200, blocking: true, paint: false },
        { order: 2, parent: 0, requestBytes: 300, responseBytes: 50_000, blocking: false, paint: false },
      ],
      controlUp: 0,
      controlDown: 0,
      paintNamed: true,
    };
    const profile = networkProfile('slow-4g');
    const m = model(plan, 'h2', profile);
    expect(m.firstRenderSeconds).toBe((m.timeline[0].doneMs + profile.fixedMs) / 1000);
    expect(m.largestPaintSeconds).toBe(m.firstRenderSeconds);
    expect(m.firstRenderSeconds).toBeLessThan(m.seconds);
    // Nothing from the network: rendered at once.
    expect(model({ requests: [], controlUp: 0, controlDown: 0, paintNamed: true }, 'h2', profile)).toMatchObject({ firstRenderSeconds: 0, largestPaintSeconds: 0 });
    expect(model({ ...plan, paintNamed: false }, 'h2', profile).largestPaintSeconds).toBeNull();
  });
});
