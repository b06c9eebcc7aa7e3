/**
 * The text-images pass on the microscape page, judged in real Chromium: the
 * page before and after is rendered at the same size, each replaced element's
 * region is compared with the image's, and every pixel outside the replaced
 * elements must be unchanged.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { pictureSimilarity } from '../src/text-images/pixels.js';
import { startServer } from '../src/loader/server.js';
import { chromiumTest, launchChromium, screenshot } from './helpers/chromium.js';
import { tempDir } from './helpers/tmp.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const microscape = path.join(root, 'fixtures', 'microscape');
const manifest = JSON.parse(await fs.readFile(path.join(root, 'fixtures', 'microscape.json'), 'utf8'));

/**
 * Floors documented in docs/text-images.md: no replaced element below, and
 * the median at least. In the page an element may sit at a fractional x
 * (after text), where Chromium draws the image snapped to whole pixels but the
 * text at the fraction, so the lowest in-page figure is under the pass's own
 * threshold (measured at whole pixels).
 */
const ELEMENT_FLOOR = 0.6;
const MEDIAN_FLOOR = 0.95;

/**
 * A full-page screenshot as RGBA of a site served by pagediet's own server
 * (which serves the extensionless and root-relative image URLs as a web
 * server would), with the boxes and src attributes of some elements.
 * @param {import('playwright-core').Browser} browser
 * @param {string} dir
 * @param {string} selector
 */
async function shoot(browser, dir, selector) {
  const server = await startServer({ root: dir });
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1 });
  try {
    await context.route((url) => !url.href.startsWith(server.url), (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    await page.goto(`${server.url}/index.html`, { waitUntil: 'load' });
    const boxes = await page.$$eval(selector, (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height, src: e.getAttribute('src') ?? '' };
    }));
    const png = await screenshot(page, { fullPage: true, animations: 'disabled' });
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, boxes };
  } finally {
    await context.close();
    await server.close();
  }
}

/**
 * @param {{ data: Buffer, width: number }} shot
 * @param {{ x: number, y: number, width: number, height: number }} box
 */
function crop(shot, box) {
  const out = Buffer.alloc(box.width * box.height * 4);
  for (let y = 0; y < box.height; y++) shot.data.copy(out, y * box.width * 4, ((box.y + y) * shot.width + box.x) * 4, ((box.y + y) * shot.width + box.x + box.width) * 4);
  return out;
}

/** The commonest colour of a region: the background its similarity is measured against. @param {Buffer} rgba */
function commonest(rgba) {
  const counts = new Map();
  for (let i = 0; i < rgba.length; i += 4) {
    const key = (rgba[i] << 16) | (rgba[i + 1] << 8) | rgba[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const key = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  return /** @type {[number, number, number]} */ ([(key >> 16) & 255, (key >> 8) & 255, key & 255]);
}

describe('text-images on microscape, in Chromium', () => {
  chromiumTest('replaces every replaceable image, keeps the rest, and draws the page the same', async () => {
    const out = await tempDir();
    const summary = await build({ input: microscape, output: out, only: ['text-images'], cache: false, threads: 1 });
    const report = summary.passes[0];
    const changed = report.decisions.filter((d) => d.action === 'changed').map((d) => d.file).sort();
    const replaceable = manifest.files.filter((f) => f.replaceable).map((f) => f.path).sort();
    const pictures = manifest.files.filter((f) => f.replaceable === false).map((f) => f.path);
    // Every decision has a reason; every changed one a score.
    for (const d of report.decisions) expect(d.reason.length).toBeGreaterThan(0);
    for (const d of report.decisions.filter((x) => x.action === 'changed')) expect(d.score).toBeGreaterThanOrEqual(0.8);
    expect(changed.filter((f) => pictures.includes(f))).toEqual([]);
    // Every replaceable image goes, the form's <input type=image> too (as a <button>, see docs/text-images.md).
    expect(replaceable.filter((f) => !changed.includes(f))).toEqual([]);
    expect(report.requestsRemoved).toBe(changed.length);
    expect(summary.totals.requestsAfter).toBe(summary.totals.requestsBefore - changed.length);

    const replacedUrls = new Set(manifest.files.filter((f) => changed.includes(f.path)).map((f) => f.url ?? f.path));
    const animatedUrls = new Set(manifest.files.filter((f) => f.kind === 'animation').map((f) => f.url ?? f.path));
    const browser = await launchChromium();
    try {
      const before = await shoot(browser, microscape, 'img, input[type=image]');
      const after = await shoot(browser, out, 'span[class^=pd], button[class^=pd]');
      const originals = before.boxes.filter((b) => replacedUrls.has(b.src));
      expect(after.boxes.length).toBe(originals.length);
      expect([after.width, after.height]).toEqual([before.width, before.height]);

      const mask = new Uint8Array(before.width * before.height);
      /** @type {number[]} */
      const scores = [];
      for (const [i, box] of originals.entries()) {
        const b = { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) };
        const a = after.boxes[i];
        // The replacement sits exactly where the image did.
        expect([Math.round(a.x), Math.round(a.y), Math.round(a.width), Math.round(a.height)]).toEqual([b.x, b.y, b.width, b.height]);
        if (b.width === 0 || b.height === 0) continue;
        const original = crop(before, b);
        scores.push(pictureSimilarity(original, crop(after, b), 4, commonest(original)));
        for (let y = b.y; y < b.y + b.height; y++) mask.fill(1, y * before.width + b.x, y * before.width + b.x + b.width);
      }
      // Animated GIFs move between the two screenshots: their boxes are not compared.
      for (const box of before.boxes.filter((b) => animatedUrls.has(b.src))) {
        for (let y = Math.floor(box.y); y < Math.ceil(box.y + box.height); y++) mask.fill(1, y * before.width + Math.floor(box.x), y * before.width + Math.ceil(box.x + box.width));
      }
      let changedOutside = 0;
      for (let p = 0; p < mask.length; p++) {
        if (mask[p]) continue;
        const i = p * 4;
        if (before.data[i] !== after.data[i] || before.data[i + 1] !== after.data[i + 1] || before.data[i + 2] !== after.data[i + 2]) changedOutside++;
      }
      const sorted = [...scores].sort((x, y) => x - y);
      const median = sorted[Math.floor(sorted.length / 2)];
      console.log(`text-images page test: ${scores.length} elements, min ${sorted[0].toFixed(3)}, median ${median.toFixed(3)}, pixels changed outside: ${changedOutside}`);
      console.log(`per element: ${originals.filter((b) => b.width && b.height).map((b, i) => `${b.src} ${scores[i].toFixed(3)}`).join('; ')}`);
      expect(sorted[0]).toBeGreaterThanOrEqual(ELEMENT_FLOOR);
      expect(median).toBeGreaterThanOrEqual(MEDIAN_FLOOR);
      expect(changedOutside).toBe(0);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
