// fixtures/modern (a Bootstrap site with camera-sized photographs) built with
// pagediet's defaults: at 360, 768 and 1280 px wide every page lays out
// as the input does (every element's box, measured in Chromium, to the
// layout unit or, on a page whose images got width and height, to
// sizedTolerance's units),
// every reference of the output resolves, and every photograph a page shows
// comes in a width no larger than it is drawn at twice. Built again while
// threads spin on every core (every pass and proof run again; the worker
// jobs come from the first build's cache), the same files and summary. Built
// with --lossless, every image of the output shows the input's pixels exactly.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { Site } from '../src/site/site.js';
import { layoutDifference, siteLayouts, sizedTolerance } from '../src/images/layout.js';
import { sniffImageType } from '../src/site/sniff.js';
import { asBuildBrowser, chromiumMissing, chromiumTest, launchChromium } from './helpers/chromium.js';
import { allReferences } from './helpers/references.js';
import { readTree, tempDir } from './helpers/tmp.js';
import { whileBusy } from './helpers/busy.js';

const INPUT = path.resolve('fixtures/modern');
const PAGES = ['index.html', 'blog/index.html', 'blog/first-post.html', 'about/index.html', 'gallery.html'];
const VIEWPORTS = [360, 768, 1280];

/** The build with the defaults that the first tests read, and its cache, for the busy build to compare with. */
const quiet = { output: '', cacheDir: '', /** @type {import('../src/build/pipeline.js').BuildSummary | null} */ summary: null };
describe('fixtures/modern, built with the defaults', () => {
  /** @type {string} */
  let output;
  /** @type {string} */
  let cacheDir;
  /** @type {import('../src/build/pipeline.js').BuildSummary} */
  let summary;
  /** @type {Site} */
  let input, built;
  /** @type {import('playwright-core').Browser} */
  let browser;

  beforeAll(async () => {
    if (chromiumMissing) return;
    output = path.join(await tempDir(), 'out');
    cacheDir = path.join(await tempDir(), 'cache');
    summary = await build({ input: INPUT, output, cacheDir });
    Object.assign(quiet, { output, cacheDir, summary });
    input = await Site.read(INPUT);
    built = await Site.read(output);
    browser = await launchChromium();
    // Mostly the photos pass's search on camera-sized photographs: about 6 minutes on 2 cores alone, twice that beside another test file.
  }, 3_000_000);

  afterAll(async () => {
    await browser?.close();
    await input?.close();
    await built?.close();
  });

  chromiumTest('lays out every page as the input does at 360, 768 and 1280 px', async () => {
    const before = await siteLayouts(asBuildBrowser(browser), input);
    const after = await siteLayouts(asBuildBrowser(browser), built);
    try {
      for (const page of PAGES) {
        const a = await before.measure(page, VIEWPORTS);
        const b = await after.measure(page, VIEWPORTS);
        // The images image-markup gave width and height may come out wider by their aspect ratio in layout units
        // (src/images/layout.js sizedTolerance); every other box to the unit.
        const sized = [...(await built.read(page)).toString('latin1').matchAll(/<img\s[^>]*\bwidth="(\d+)" height="(\d+)"/g)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
        const tolerance = sizedTolerance(sized);
        expect({ page, moved: layoutDifference(a, b, tolerance) }).toEqual({ page, moved: null });
        // Every image drawn where it was, to that tolerance.
        const images = (/** @type {import('../src/images/layout.js').PageLayout[]} */ layouts) => layouts.flatMap((l) => l.images.flatMap((i) => [i.x, i.y, i.width, i.height]));
        const drawnAfter = images(b);
        expect(images(a).filter((v, i) => Math.abs(v - drawnAfter[i]) > tolerance / 64 + 1e-9)).toEqual([]);
        expect(drawnAfter).toHaveLength(images(a).length);
      }
    } finally {
      await before.close();
      await after.close();
    }
  }, 300_000);

  chromiumTest('measures pages side by side, one context per tab, as it measures them one after another', async () => {
    await expect(siteLayouts(asBuildBrowser(browser), input, { tabs: 0 })).rejects.toThrow('siteLayouts: tabs must be a whole number of at least 1, not 0');
    const contextsBefore = browser.contexts().length;
    const oneByOne = await siteLayouts(asBuildBrowser(browser), input);
    const sideBySide = await siteLayouts(asBuildBrowser(browser), input, { tabs: 3 });
    try {
      /** @type {import('../src/images/layout.js').PageLayout[][]} */
      const expected = [];
      for (const page of PAGES) expected.push(await oneByOne.measure(page, VIEWPORTS, { backgrounds: true }));
      const opened = browser.contexts().length;
      const measured = await Promise.all(PAGES.map((page) => sideBySide.measure(page, VIEWPORTS, { backgrounds: true })));
      expect(measured).toEqual(expected);
      // One context for the one-by-one session, three for the five pages side by side.
      expect([opened - contextsBefore, browser.contexts().length - opened]).toEqual([1, 3]);
    } finally {
      await oneByOne.close();
      await sideBySide.close();
    }
    expect(browser.contexts().length).toBe(contextsBefore);
  }, 300_000);

  chromiumTest('resolves every reference, and makes smaller widths only of photographs', async () => {
    // Resolved: in the site (ok), elsewhere (external), in the document (fragment) or in the URL (inline, data:).
    const unresolved = (/** @type {Site} */ site) => allReferences(site).filter((r) => !['ok', 'external', 'fragment', 'inline'].includes(r.status)).map((r) => `${r.source}: ${r.url} (${r.status})`);
    expect(unresolved(input)).toEqual([]);
    expect(unresolved(built)).toEqual([]);
    // Each width under its content hash (hash-names), the only name of a file the build made.
    const widths = [...built.files.keys()].filter((p) => /-\d+w\.[0-9a-f]{8,64}\.(avif|webp|jpg)$/.test(p));
    expect(widths.length).toBeGreaterThan(10);
    expect([...built.files.keys()].filter((p) => /-\d+w\.(avif|webp|jpg)$/.test(p))).toEqual([]);
    for (const p of widths) {
      const original = p.replace(/-\d+w\.[0-9a-f]{8,64}\.(avif|webp|jpg)$/, '');
      expect([...input.files.keys()].some((q) => q.replace(/\.(jpe?g|webp)$/, '') === original)).toBe(true);
      const meta = await sharp(await built.read(p)).metadata();
      expect(meta.width).toBe(Number(/-(\d+)w\./.exec(p)?.[1]));
    }
    // The photos pass changed every lossy image of the fixture (its 12 JPEGs and its lossy WebP), each at or above the gate.
    const decisions = summary.passes.find((p) => p.name === 'photos')?.decisions ?? [];
    expect(decisions.filter((d) => d.action === 'changed').length).toBe(13);
    for (const d of decisions.filter((d) => d.action === 'changed')) expect(d.score).toBeGreaterThanOrEqual(85);
  });
});

describe('fixtures/modern, built on a busy machine', () => {
  chromiumTest('writes the same files and the same summary as the quiet build', async () => {
    const quietSummary = /** @type {import('../src/build/pipeline.js').BuildSummary} */ (quiet.summary);
    const busyOut = path.join(await tempDir(), 'out');
    const busy = await whileBusy(() => build({ input: INPUT, output: busyOut, cacheDir: quiet.cacheDir, replay: false }));
    // Only the timings, what came from the cache, and the output's own path (the configs are beside it) differ.
    const strip = (/** @type {import('../src/build/pipeline.js').BuildSummary} */ s, /** @type {string} */ out) => JSON.parse(JSON.stringify({ ...s, ms: 0, work: null, passes: s.passes.map((p) => ({ ...p, ms: 0 })) }).replaceAll(out, '<out>'));
    expect(strip(busy, busyOut)).toEqual(strip(quietSummary, quiet.output));
    expect(busy.work.passesReplayed).toBe(0);
    const [a, b] = await Promise.all([readTree(quiet.output), readTree(busyOut)]);
    a.delete('.pagediet-output.json');
    b.delete('.pagediet-output.json');
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [file, bytes] of a) expect(b.get(file)?.equals(bytes), file).toBe(true);
  }, 1_800_000);
});

describe('fixtures/modern, built --lossless', () => {
  chromiumTest('shows every image of the input with the same pixels', async () => {
    const output = path.join(await tempDir(), 'out');
    await build({ input: INPUT, output, lossless: true });
    const site = await Site.read(INPUT);
    try {
      let images = 0;
      for (const file of site.files.values()) {
        const bytes = await site.read(file.path);
        if (!sniffImageType(bytes)) continue;
        const pixels = async (/** @type {Buffer} */ b) => (await sharp(b).autoOrient().ensureAlpha().raw().toBuffer({ resolveWithObject: true }));
        const a = await pixels(bytes);
        const b = await pixels(await fs.readFile(path.join(output, file.path)));
        expect({ file: file.path, size: [b.info.width, b.info.height], same: b.data.equals(a.data) }).toEqual({ file: file.path, size: [a.info.width, a.info.height], same: true });
        images++;
      }
      expect(images).toBe(14);
    } finally {
      await site.close();
    }
  }, 300_000);
});
