import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { offerInCss, offerWidthsInCss, offerWidthsInStyleAttributes } from '../src/images/image-set.js';
import { chromiumTest, launchChromium, offlinePage, screenshot } from './helpers/chromium.js';
import { candidateWidths, sizesAttribute, sizesEntries, srcsetAttribute } from '../src/images/responsive.js';
import { sizesWidth } from '../src/site/image-choice.js';
import { viewportsOf } from '../src/images/layout.js';
import { pageRequests } from '../src/site/page-requests.js';
import { Site } from '../src/site/site.js';
import { tempDir, writeTree } from './helpers/tmp.js';

describe('viewports measured', () => {
  it('are both sides of every media query width, from 360 to 1920, and common screen widths', () => {
    expect(viewportsOf({ min: [576, 768, 2000], max: [575.98, 300] })).toEqual([360, 414, 575, 576, 767, 768, 1024, 1280, 1366, 1440, 1536, 1680, 1920]);
    expect(viewportsOf({ min: [], max: [] })).toEqual([360, 414, 768, 1024, 1280, 1366, 1440, 1536, 1680, 1920]);
  });
});

describe('sizes from measured widths', () => {
  // An image in a Bootstrap column: full width below 768, half from 768, capped by the container from 1200.
  const drawn = [
    { viewport: 360, width: 335.98 }, { viewport: 767, width: 735 }, { viewport: 768, width: 348 },
    { viewport: 1199, width: 558 }, { viewport: 1200, width: 558 }, { viewport: 1920, width: 558 },
  ];

  it('never says less than any box between two measured viewports', () => {
    const entries = sizesEntries(drawn);
    expect(sizesAttribute(entries)).toBe('(max-width: 360px) 336px, (max-width: 767px) 735px, (max-width: 768px) 348px, 558px');
    // Not 100vw above 1920: the box stopped growing. It ends with the last width.
    expect(entries.at(-1)).toEqual({ maxViewport: null, width: 558 });
  });

  it('ends with 100vw when the box still grows at the widest viewport', () => {
    expect(sizesAttribute(sizesEntries([{ viewport: 360, width: 360 }, { viewport: 1920, width: 1920 }]))).toBe('(max-width: 360px) 360px, (max-width: 1920px) 1920px, 100vw');
  });

  it('makes each width at densities 1 and 2, one file serving up to 20% less, whole heights, none near full size', () => {
    const entries = sizesEntries(drawn);
    // Wanted: 336, 348, 558, 672, 696, 735, 1116, 1470. At 3:2 (multiples of 3 have whole heights), 348 is 351 and serves 336 too.
    expect(candidateWidths([entries], 2400, 1600)).toEqual([348, 558, 735, 1116, 1470]);
    // 1800x1197: only multiples of 200 have whole heights (200x133); 1470 would be 1600, within 80% of 1800.
    expect(candidateWidths([entries], 1800, 1197)).toEqual([400, 600, 800, 1200]);
    // Nothing below the original's width: an image drawn at its own size needs no other.
    expect(candidateWidths([sizesEntries([{ viewport: 360, width: 600 }])], 600, 400)).toEqual([]);
  });

  it('writes srcset URLs relative to the page, narrowest first', () => {
    expect(srcsetAttribute('blog/post.html', [{ target: 'img/a b.jpg', width: 2400 }, { target: 'img/a-336w.jpg', width: 336 }])).toBe('../img/a-336w.jpg 336w, ../img/a%20b.jpg 2400w');
  });
});

describe('the robot\'s choice among widths', () => {
  it('reads sizes at 1280 px', () => {
    expect(sizesWidth('(max-width: 767px) 735px, (max-width: 1199px) 558px, 600px')).toBe(600);
    expect(sizesWidth('(min-width: 768px) 50vw, 100vw')).toBe(640);
    expect(sizesWidth('(max-width: 767px) 100vw, calc(50vw - 2rem)')).toBe(-1);
    expect(sizesWidth('')).toBe(-1);
  });

  it('fetches the narrowest candidate as wide as sizes asks, of the first source of a type it shows', async () => {
    const dir = await writeTree(await tempDir(), {
      'index.html': '<picture><source type="image/avif" srcset="a-300w.avif 300w, a-700w.avif 700w, a.avif 2000w" sizes="(max-width: 767px) 300px, 600px">'
        + '<img src="a.jpg" srcset="a-300w.jpg 300w, a-700w.jpg 700w, a.jpg 2000w" sizes="(max-width: 767px) 300px, 600px"></picture>'
        + '<img src="b.jpg" srcset="b-300w.jpg 300w, b-500w.jpg 500w" sizes="900px">'
        + '<img src="c.jpg" srcset="c-300w.jpg 300w, c.jpg 900w" sizes="calc(100vw - 2rem)">',
      ...Object.fromEntries(['a-300w.avif', 'a-700w.avif', 'a.avif', 'a-300w.jpg', 'a-700w.jpg', 'a.jpg', 'b.jpg', 'b-300w.jpg', 'b-500w.jpg', 'c.jpg', 'c-300w.jpg'].map((n) => [n, 'x'])),
    });
    const site = await Site.read(dir);
    try {
      // a: the AVIF source, 700w for 600px; b: none wide enough, the widest; c: sizes unread, the widest.
      expect(pageRequests(site, 'index.html')).toEqual(['index.html', 'a-700w.avif', 'b-500w.jpg', 'c.jpg']);
    } finally {
      await site.close();
    }
  });
});

describe('a style attribute\'s background in widths', () => {
  /** Two tiers: below 768 px the 640 px wide files, from 768 px the full size; AVIF first, JPEG as the image-set()'s fallback. */
  const TIERS = [
    { media: '(max-width: 767px)', plain: 'img/a-640w.jpg', entries: [{ target: 'img/a-640w.avif', density: 1, mime: 'image/avif' }, { target: 'img/a-640w.jpg', density: 1, mime: 'image/jpeg' }] },
    { media: '(min-width: 768px)', plain: 'img/a.jpg', entries: [{ target: 'img/a.avif', density: 1, mime: 'image/avif' }, { target: 'img/a.jpg', density: 1, mime: 'image/jpeg' }] },
  ];
  /** Each file a flat colour, to tell from a screenshot which one is drawn. */
  const COLOURS = { 'img/a.jpg': [255, 0, 0], 'img/a.avif': [0, 255, 0], 'img/a-640w.avif': [0, 0, 255], 'img/a-640w.jpg': [255, 255, 0] };
  const PAGE = '<!doctype html><html><head><title>t</title></head><body style="margin:0">'
    + '<header style="height:100px; background-image: url(\'img/a.jpg\'); background-size: cover">x</header></body></html>';

  async function site() {
    const files = /** @type {Record<string, string | Buffer>} */ ({ 'index.html': PAGE });
    for (const [name, [r, g, b]] of Object.entries(COLOURS)) {
      const image = sharp({ create: { width: 64, height: 32, channels: 3, background: { r, g, b } } });
      files[name] = await (name.endsWith('.avif') ? image.avif({ lossless: true }) : image.jpeg({ quality: 100 })).toBuffer();
    }
    return writeTree(await tempDir(), files);
  }

  it('writes a custom property per range in a <style> of the page, and the robot fetches the tier its viewport is in', async () => {
    const dir = await site();
    const s = await Site.read(dir);
    try {
      expect(await offerWidthsInStyleAttributes(s, 'img/a.jpg', TIERS)).toBe(1);
      const types = '@supports (background-image:image-set(url("") type("image/jpeg")))';
      expect((await s.read('index.html')).toString()).toBe('<!doctype html><html><head><title>t</title>'
        + `<style>${types}{@media (max-width: 767px){:root{--pagediet-bg-1:image-set(url(img/a-640w.avif) 1x type("image/avif"),url(img/a-640w.jpg) 1x type("image/jpeg"))}}`
        + '@media (min-width: 768px){:root{--pagediet-bg-1:image-set(url(img/a.avif) 1x type("image/avif"),url(img/a.jpg) 1x type("image/jpeg"))}}}</style>'
        + '</head><body style="margin:0"><header style="height:100px; background-image: url(\'img/a.jpg\');background-image: var(--pagediet-bg-1,url(\'img/a.jpg\')); background-size: cover">x</header></body></html>');
      // The robot (1280 px) takes the second tier's AVIF: the author's url() and the property's fallback are overridden,
      // and the url() of the @supports condition is tested, not fetched.
      expect(pageRequests(s, 'index.html')).toEqual(['index.html', 'img/a.avif']);
      expect(s.get('index.html').references.filter((r) => r.url === '')).toEqual([]);
      // Offered once: a second call finds the declaration overridden.
      expect(await offerWidthsInStyleAttributes(s, 'img/a.jpg', TIERS)).toBe(0);
    } finally {
      await s.close();
    }
  });

  chromiumTest('is what Chromium draws: the tier of its viewport, in the first type it shows', async () => {
    const dir = await site();
    const s = await Site.read(dir);
    let html;
    try {
      await offerWidthsInStyleAttributes(s, 'img/a.jpg', TIERS);
      html = await s.read('index.html');
    } finally {
      await s.close();
    }
    const out = await writeTree(await tempDir(), { 'index.html': html });
    for (const name of Object.keys(COLOURS)) await writeTree(out, { [name]: await fs.readFile(path.join(dir, name)) });
    const browser = await launchChromium();
    try {
      for (const [width, drawn] of /** @type {const} */ ([[500, 'img/a-640w.avif'], [1280, 'img/a.avif']])) {
        const { context, page, requests, errors } = await offlinePage(browser, { viewport: { width, height: 300 } });
        await page.goto(pathToFileURL(path.join(out, 'index.html')).href, { waitUntil: 'load' });
        const { data } = await sharp(await screenshot(page, { clip: { x: 300, y: 50, width: 1, height: 1 } })).raw().toBuffer({ resolveWithObject: true });
        expect([...data.subarray(0, 3)].map((v) => Math.round(v / 16)), `${width} px`).toEqual(COLOURS[drawn].map((v) => Math.round(v / 16)));
        expect(requests.filter((u) => u.includes('/img/')).map((u) => u.slice(u.indexOf('/img/') + 1)), `${width} px`).toEqual([drawn]);
        expect(errors).toEqual([]);
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });
});

describe('image-set() in a style attribute', () => {
  it('quotes type() with the other quote than the attribute\'s, in any declaration of it', async () => {
    const dir = await writeTree(await tempDir(), {
      'index.html': '<div style="color: red; background: url(a.jpg) center">x</div><div style=\'background-image:url("a.jpg")\'>y</div>',
      'a.jpg': 'x', 'a.avif': 'x',
    });
    const s = await Site.read(dir);
    try {
      expect(await offerInCss(s, 'a.jpg', [{ target: 'a.avif', mime: 'image/avif' }], 'image/jpeg')).toBe(2);
      expect((await s.read('index.html')).toString()).toBe('<div style="color: red; background: url(a.jpg) center;background: image-set(url(a.avif) type(\'image/avif\'), url(a.jpg) type(\'image/jpeg\')) center">x</div>'
        + '<div style=\'background-image:url("a.jpg");background-image:image-set(url(a.avif) type("image/avif"), url("a.jpg") type("image/jpeg"))\'>y</div>');
    } finally {
      await s.close();
    }
  });
});

describe('a style sheet\'s background in formats and widths', () => {
  it('gets its image-set() copy, then an @media block per tier after the rule', async () => {
    const dir = await writeTree(await tempDir(), {
      'index.html': '<link rel="stylesheet" href="css/site.css"><div class="h">x</div>',
      'css/site.css': '.h{padding:1rem;background:#000 url(../a.jpg) center/cover}p{margin:0}',
      'a.jpg': 'x', 'a.avif': 'x', 'a-640w.jpg': 'x', 'a-640w.avif': 'x',
    });
    const s = await Site.read(dir);
    try {
      expect(await offerInCss(s, 'a.jpg', [{ target: 'a.avif', mime: 'image/avif' }], 'image/jpeg')).toBe(1);
      expect(await offerWidthsInCss(s, 'a.jpg', [{ media: '(max-width: 767px)', plain: 'a-640w.jpg', entries: [{ target: 'a-640w.avif', density: 1, mime: 'image/avif' }, { target: 'a-640w.jpg', density: 1, mime: 'image/jpeg' }] }])).toBe(1);
      expect((await s.read('css/site.css')).toString()).toBe('.h{padding:1rem;background:#000 url(../a.jpg) center/cover;background:#000 image-set(url(../a.avif) type("image/avif"), url(../a.jpg) type("image/jpeg")) center/cover}'
        + '@media (max-width: 767px){.h{background:#000 url(../a-640w.jpg) center/cover;background:#000 image-set(url(../a-640w.avif) 1x type("image/avif"), url(../a-640w.jpg) 1x type("image/jpeg")) center/cover}}p{margin:0}');
    } finally {
      await s.close();
    }
  });
});
