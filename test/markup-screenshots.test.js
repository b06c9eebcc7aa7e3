// The markup passes change no pixel: real Chromium renders pages before and
// after html-case and css (with and without minify-html), served from disk by
// pagediet's own static server, and the screenshots are compared as raw RGBA.
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { startServer } from '../src/loader/server.js';
import { chromiumMissing, chromiumTest, launchChromium, screenshot } from './helpers/chromium.js';
import { tempDir } from './helpers/tmp.js';

const SITES = {
  microscape: { root: path.resolve('fixtures/microscape'), pages: ['index.html'] },
  markup: { root: path.resolve('fixtures/markup'), pages: ['inline-svg.html', 'css-site/index.html', 'minify.html', 'mixed-case.html', 'latin1.html'] },
};
const BUILDS = {
  'html-case + css': { only: ['html-case', 'css'] },
  'html-case + minify-html + css': { only: ['html-case', 'minify-html', 'css'], minifyHtml: true },
};

/** @typedef {{ url: string, close: () => Promise<void> }} Server */

/**
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 */
async function screenshotOf(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    const response = await page.goto(url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.evaluate(() => document.fonts.ready);
    const png = await screenshot(page, { fullPage: true, animations: 'disabled' });
    return sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  } finally {
    await context.close();
  }
}

describe('markup passes in Chromium', () => {
  /** @type {Server[]} */
  const servers = [];
  /** @type {Record<string, { before: Server, after: Record<string, Server> }>} */
  const served = {};
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;

  beforeAll(async () => {
    if (chromiumMissing) return;
    for (const [name, site] of Object.entries(SITES)) {
      const before = await startServer({ root: site.root });
      servers.push(before);
      /** @type {Record<string, Server>} */
      const after = {};
      for (const [label, options] of Object.entries(BUILDS)) {
        const out = path.join(await tempDir(), 'out');
        await build({ input: site.root, output: out, cache: false, ...options });
        after[label] = await startServer({ root: out });
        servers.push(after[label]);
      }
      served[name] = { before, after };
    }
    // GIF animations are stopped on their first frame, so that two loads of a page draw the same pixels.
    browser = await launchChromium({ args: ['--blink-settings=imageAnimationPolicy=2'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  for (const [name, site] of Object.entries(SITES)) {
    for (const page of site.pages) {
      chromiumTest(`${name}/${page}: pixel-identical after ${Object.keys(BUILDS).join(', and after ')}`, async () => {
        const b = /** @type {import('playwright-core').Browser} */ (browser);
        const before = await screenshotOf(b, `${served[name].before.url}/${page}`);
        for (const [label, server] of Object.entries(served[name].after)) {
          const after = await screenshotOf(b, `${server.url}/${page}`);
          expect([after.info.width, after.info.height], label).toEqual([before.info.width, before.info.height]);
          let differing = 0;
          for (let i = 0; i < before.data.length; i += 4) if (before.data.readUInt32BE(i) !== after.data.readUInt32BE(i)) differing++;
          expect(differing, `${label}: pixels that differ`).toBe(0);
        }
      }, 60_000);
    }
  }
});
