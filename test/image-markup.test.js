/**
 * The image-markup pass on pages whose <img>s have no width and height: what
 * it adds to each tag from the layout Chromium measures, what it leaves out
 * where the width and height would move a box, and the same output and
 * decisions whether its pages are measured one or several at a time; and
 * the largest contentful paint as Chromium names it fetched first, a CSS
 * background through a preload that the browser requests before the style
 * sheet that draws it has arrived.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { chromiumTest, launchChromium } from './helpers/chromium.js';
import { readTree, tempDir } from './helpers/tmp.js';

/** A page with a large image in the first view, the same image below it, and a small one below that. */
const HINTS_PAGE = '<!doctype html><title>a</title><body style="margin:0"><img src="big.png"><div style="height:1200px"></div><img src="big.png"><img src="small.png"></body>';
/** A style that sizes the width alone: a height attribute would then fix the height, and the box would move. */
const WIDTH_ONLY_PAGE = '<!doctype html><title>c</title><style>img{width:100%}</style><body style="margin:0"><img src="big.png"></body>';

/**
 * Builds a site of one page, index.html, and one solid PNG with image-markup alone.
 * @param {string} page the page's markup
 * @param {string} name the image's file name
 * @param {number} width
 * @param {number} height
 */
async function buildPage(page, name, width, height) {
  const site = await tempDir();
  await writeFile(path.join(site, name), await sharp({ create: { width, height, channels: 3, background: '#3a6ea5' } }).png().toBuffer());
  await writeFile(path.join(site, 'index.html'), page);
  const output = path.join(await tempDir(), 'out');
  const summary = await build({ input: site, output, only: ['image-markup'], cache: false, configs: false });
  return { html: await readFile(path.join(output, 'index.html'), 'utf8'), summary };
}

describe('image-markup', () => {
  /** @type {string} */
  let input;

  beforeAll(async () => {
    input = await tempDir();
    await mkdir(input, { recursive: true });
    const solid = (/** @type {number} */ width, /** @type {number} */ height) => sharp({ create: { width, height, channels: 3, background: '#3a6ea5' } }).png().toBuffer();
    await writeFile(path.join(input, 'big.png'), await solid(600, 400));
    await writeFile(path.join(input, 'small.png'), await solid(40, 40));
    for (const name of ['a', 'b', 'd', 'e', 'f']) await writeFile(path.join(input, `${name}.html`), HINTS_PAGE);
    await writeFile(path.join(input, 'c.html'), WIDTH_ONLY_PAGE);
  });

  chromiumTest('adds width and height, decoding, lazy loading below the first view and fetchpriority, page by page, measured side by side or not', async () => {
    /** @param {number} threads */
    const built = async (threads) => {
      const output = path.join(await tempDir(), 'out');
      const summary = await build({ input, output, only: ['image-markup'], cache: false, configs: false, threads });
      const pass = /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'image-markup'));
      return { tree: await readTree(output), decisions: pass.decisions, warnings: summary.warnings.map((w) => `${w.file} ${w.code}: ${w.message}`) };
    };
    const alone = await built(1);
    const sideBySide = await built(2);
    expect(sideBySide).toEqual(alone);
    const page = (/** @type {string} */ name) => (/** @type {Buffer} */ (alone.tree.get(name))).toString('utf8');
    const hinted = '<!doctype html><title>a</title><body style="margin:0"><img src="big.png" width="600" height="400" decoding="async" fetchpriority="high"><div style="height:1200px"></div><img src="big.png" width="600" height="400" decoding="async" loading="lazy"><img src="small.png" width="40" height="40"></body>';
    for (const name of ['a.html', 'b.html', 'd.html', 'e.html', 'f.html']) expect(page(name)).toBe(hinted);
    // With width and height the image would be 400 px high at every width: only the hints go on.
    expect(page('c.html')).toBe('<!doctype html><title>c</title><style>img{width:100%}</style><body style="margin:0"><img src="big.png" decoding="async" fetchpriority="high"></body>');
    expect(alone.warnings).toEqual(['c.html layout-changed: image-markup: <img>s left without width and height: with them a box moved at 360 px wide']);
    const hints = '3 width and height, 2 decoding=async, 1 loading=lazy, fetchpriority=high on the largest contentful paint';
    expect(alone.decisions).toEqual([
      { file: 'a.html', action: 'changed', reason: hints },
      { file: 'b.html', action: 'changed', reason: hints },
      { file: 'c.html', action: 'changed', reason: '1 decoding=async, fetchpriority=high on the largest contentful paint' },
      { file: 'd.html', action: 'changed', reason: hints },
      { file: 'e.html', action: 'changed', reason: hints },
      { file: 'f.html', action: 'changed', reason: hints },
    ]);
    // The input is left as it was.
    expect(await readFile(path.join(input, 'a.html'), 'utf8')).toBe(HINTS_PAGE);
  }, 180_000);

  chromiumTest('sizes a wide image drawn with max-width: 100% and height: auto, whose width comes out a few 1/64 px wider from the attribute', async () => {
    // 1900x400 in a box 53.5% wide: with the width attribute Chromium derives the width from the height rounded to
    // a layout unit, 3 to 4 units (1/64 px) wider than from the pixels at these viewports. The painted rectangle is
    // the same; the height is the same to the unit.
    const page = '<!doctype html><title>w</title><body style="margin:0"><div style="width:53.5%"><img src="wide.png" style="max-width:100%;height:auto"></div><p>after</p></body>';
    const { html, summary } = await buildPage(page, 'wide.png', 1900, 400);
    // It is also the page's largest contentful paint.
    expect(html).toBe(page.replace('height:auto">', 'height:auto" width="1900" height="400" decoding="async" fetchpriority="high">'));
    expect(summary.warnings).toEqual([]);
  }, 120_000);

  chromiumTest('makes an image lazy only where its box is reserved', async () => {
    // A style that sizes the width alone: with a height attribute the box would change, so the images stay unsized,
    // and the one below the first view is not made lazy (arriving as the visitor scrolls, it would push the text
    // after it down). The same image with the author's width and height is made lazy.
    const page = '<!doctype html><title>l</title><style>.w{width:100%}</style><body style="margin:0"><div style="height:1200px"></div><img class="w" src="big.png"><p>after</p><img src="big.png" width="600" height="400"></body>';
    const { html, summary } = await buildPage(page, 'big.png', 600, 400);
    expect(html).toBe('<!doctype html><title>l</title><style>.w{width:100%}</style><body style="margin:0"><div style="height:1200px"></div><img class="w" src="big.png" decoding="async"><p>after</p><img src="big.png" width="600" height="400" decoding="async" loading="lazy"></body>');
    expect(summary.warnings.map((w) => `${w.file} ${w.code}: ${w.message}`)).toEqual(['index.html layout-changed: image-markup: <img>s left without width and height: with them a box moved at 360 px wide']);
  }, 120_000);

  chromiumTest('preloads a CSS background that is the largest contentful paint, the file each width draws, requested before the style sheet has arrived', async () => {
    const site = await tempDir();
    // Noise: Chromium passes over an image of less than 0.05 bits a pixel (a solid colour) for the largest paint.
    const noise = (/** @type {number} */ width, /** @type {number} */ height) => {
      const pixels = Buffer.alloc(width * height * 3);
      for (let i = 0, x = 12345; i < pixels.length; i++) pixels[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
      return sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer();
    };
    await writeFile(path.join(site, 'narrow.png'), await noise(800, 600));
    await writeFile(path.join(site, 'wide.png'), await noise(1600, 600));
    await writeFile(path.join(site, 'hero.css'), '.hero{height:600px;background:url(narrow.png) center/cover}@media (min-width:768px){.hero{background-image:url(wide.png)}}');
    const page = '<!doctype html><html><head><title>Hero</title><link rel="stylesheet" href="hero.css"></head><body style="margin:0"><div class="hero"></div><p>A caption.</p></body></html>';
    await writeFile(path.join(site, 'index.html'), page);
    const output = path.join(await tempDir(), 'out');
    const summary = await build({ input: site, output, only: ['image-markup'], cache: false, configs: false });
    const built = await readFile(path.join(output, 'index.html'), 'utf8');
    // Chromium names the hero its largest paint at 360 px (narrow.png) and at 1280 px (wide.png).
    expect(built).toBe(page.replace('</head>', '<link rel="preload" as="image" href="narrow.png" media="(width < 768px)" fetchpriority="high"><link rel="preload" as="image" href="wide.png" media="(width >= 768px)" fetchpriority="high"></head>'));
    expect(summary.passes.find((p) => p.name === 'image-markup')?.decisions).toEqual([{ file: 'index.html', action: 'changed', reason: '2 preloads of the largest contentful paint\'s background' }]);
    expect(summary.warnings).toEqual([]);

    // The style sheet's response is held until the event named; what was requested before it is recorded.
    const browser = await launchChromium();
    try {
      /**
       * @param {string} html the page
       * @param {number} width the viewport's
       * @param {'image' | 'domcontentloaded'} release what the style sheet waits for: the request of an image, or the page's DOMContentLoaded
       */
      const requestedBeforeStyleSheet = async (html, width, release) => {
        const context = await browser.newContext({ viewport: { width, height: 800 }, serviceWorkers: 'block' });
        const tab = await context.newPage();
        /** @type {string[]} */
        const events = [];
        /** @type {() => void} */
        let imageRequested = () => {};
        const image = new Promise((resolve) => { imageRequested = () => resolve(undefined); });
        const contentLoaded = new Promise((resolve) => tab.once('domcontentloaded', () => resolve(undefined)));
        /** @type {() => void} */
        let styleSheetDone = () => {};
        const styleSheetAnswered = new Promise((resolve) => { styleSheetDone = () => resolve(undefined); });
        await context.route('http://site.invalid/**', async (route) => {
          const name = new URL(route.request().url()).pathname.slice(1);
          if (name === 'index.html') return route.fulfill({ body: html, contentType: 'text/html' });
          if (name === 'hero.css') {
            await (release === 'image' ? image : contentLoaded);
            events.push('hero.css answered');
            await route.fulfill({ body: await readFile(path.join(output, name)), contentType: 'text/css' });
            return styleSheetDone();
          }
          events.push(`${name} requested`);
          imageRequested();
          return route.fulfill({ body: await readFile(path.join(output, name)), contentType: 'image/png' });
        });
        await tab.goto('http://site.invalid/index.html', { waitUntil: 'commit' });
        // Both have happened, in whichever order the page made them happen (a background may be asked for after load).
        await Promise.all([image, contentLoaded, styleSheetAnswered]);
        await context.close();
        return events;
      };
      // Without the preload the browser cannot know the image before the style sheet: it asks for it after.
      expect(await requestedBeforeStyleSheet(page, 360, 'domcontentloaded')).toEqual(['hero.css answered', 'narrow.png requested']);
      // With it, each width's file is asked for while the style sheet is held, and only that file.
      expect(await requestedBeforeStyleSheet(built, 360, 'image')).toEqual(['narrow.png requested', 'hero.css answered']);
      expect(await requestedBeforeStyleSheet(built, 1280, 'image')).toEqual(['wide.png requested', 'hero.css answered']);
    } finally {
      await browser.close();
    }
  }, 180_000);

  chromiumTest('preloads the web font that draws the first view, not the one drawn below it only', async () => {
    const site = await tempDir();
    await writeFile(path.join(site, 'top.woff'), await readFile('fixtures/modern/fonts/dejavu-serif-condensed-bold.woff'));
    await writeFile(path.join(site, 'bottom.ttf'), await readFile('fixtures/modern/fonts/dejavu-serif-condensed-bold.ttf'));
    const page = '<!doctype html><html><head><title>Fonts</title><style>@font-face{font-family:"Top";font-weight:700;src:url(top.woff) format("woff")}'
      + '@font-face{font-family:Bottom;src:url(bottom.ttf) format("truetype")}h1{font-family:"Top",serif}footer{font-family:Bottom,serif}</style></head>'
      + '<body style="margin:0"><h1>Deep Field</h1><div style="height:2000px"></div><footer>Below the first view</footer></body></html>';
    await writeFile(path.join(site, 'index.html'), page);
    const output = path.join(await tempDir(), 'out');
    const summary = await build({ input: site, output, only: ['image-markup'], cache: false, configs: false });
    expect(await readFile(path.join(output, 'index.html'), 'utf8')).toBe(page.replace('</head>', '<link rel="preload" as="font" href="top.woff" crossorigin></head>'));
    expect(summary.passes.find((p) => p.name === 'image-markup')?.decisions).toEqual([{ file: 'index.html', action: 'changed', reason: '1 preload of the web fonts of the first view' }]);
  }, 120_000);
});
