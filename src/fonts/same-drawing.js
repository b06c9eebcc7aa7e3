/**
 * The proof that a subset draws as its font does, in Chromium: what pages
 * show in it (each of its characters on its own, then the pages' words, in
 * which ligatures and kerning happen) set in the full font and in the subset
 * at every size the pages use, screenshotted, and compared pixel for pixel.
 * The structural check (same-font.js) holds glyphs and metrics; this one
 * also holds what a rasterizer makes of the font as a whole (FreeType's
 * auto-hinter measures every font on reference letters:
 * hinting-characters.js).
 */
import { withPageTimeout, withinPageTime } from '../browser/page-failed.js';

/** Sizes drawn when pages name none, in CSS px: body text to headings. */
const DEFAULT_SIZES = [11, 16, 24, 40];
/** At most this many sizes are drawn (spread over those pages use). */
const MAX_SIZES = 8;
/** Characters of words drawn at a size: fewer at large sizes, so that a screenshot stays within Chromium's limits. */
const textBudget = (/** @type {number} */ size) => Math.min(20000, Math.floor(10_000_000 / (size * size)));
const WIDTH = 1000;
const ORIGIN = 'http://fonts.pagediet.invalid';

/**
 * @typedef {object} Shown
 * @property {number[]} characters code points both fonts have
 * @property {Iterable<string>} words
 * @property {Iterable<number>} sizes CSS px
 */

/**
 * Whether SUBSET draws what pages show exactly as FULL does.
 * @param {import('playwright-core').Browser} browser
 * @param {Buffer} full a WOFF2
 * @param {Buffer} subset a WOFF2
 * @param {Shown} shown
 * @returns {Promise<boolean>}
 */
export async function drawsAlike(browser, full, subset, shown) {
  const escape = (/** @type {string} */ text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const characters = shown.characters.filter((c) => c > 0x20).map((c) => String.fromCodePoint(c)).join(' ');
  const words = [...shown.words].join(' ');
  const sizes = spread([...new Set(shown.sizes)].sort((a, b) => a - b));
  /** @param {number} size @param {string} font */
  const page = (size, font) => `<!doctype html><meta charset="utf-8"><style>@font-face{font-family:f;src:url(${font}) format("woff2")}`
    + `body{margin:0;width:${WIDTH}px;background:#fff;color:#000}p{margin:0 0 4px;font:${size}px/1.5 f;overflow-wrap:anywhere}</style>`
    + `<p>${escape(characters)}</p><p>${escape(words.slice(0, textBudget(size)))}</p>`;
  const context = withPageTimeout(await browser.newContext({ viewport: { width: WIDTH, height: 600 }, deviceScaleFactor: 1, serviceWorkers: 'block' }));
  try {
    let html = '';
    let shots = 0;
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      if (url.pathname === '/page.html') return route.fulfill({ status: 200, body: html, contentType: 'text/html' });
      if (url.pathname === '/full.woff2') return route.fulfill({ status: 200, body: full, contentType: 'font/woff2' });
      if (url.pathname === '/subset.woff2') return route.fulfill({ status: 200, body: subset, contentType: 'font/woff2' });
      return route.fulfill({ status: 404, body: '' });
    });
    /** @param {string} text the page */
    const shot = async (text) => {
      html = text;
      const tab = await context.newPage();
      try {
        await tab.goto(`${ORIGIN}/page.html?${shots++}`, { waitUntil: 'load' });
        const loaded = await withinPageTime(tab, tab.evaluate(async () => {
          await document.fonts.ready;
          for (let frame = 0; frame < 2; frame++) await new Promise((resolve) => requestAnimationFrame(resolve));
          return [...document.fonts].every((face) => face.status === 'loaded');
        }), 'its fonts loading');
        return loaded ? await tab.screenshot({ fullPage: true }) : null;
      } finally {
        await tab.close();
      }
    };
    for (const size of sizes) {
      const a = await shot(page(size, 'full.woff2'));
      const b = await shot(page(size, 'subset.woff2'));
      if (!a || !b || !a.equals(b)) return false;
    }
    return true;
  } finally {
    await context.close();
  }
}

/**
 * At most MAX_SIZES of the sizes, smallest and largest among them.
 * @param {number[]} sorted
 */
function spread(sorted) {
  if (!sorted.length) return DEFAULT_SIZES;
  if (sorted.length <= MAX_SIZES) return sorted;
  return [...new Set(Array.from({ length: MAX_SIZES }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (MAX_SIZES - 1))]))];
}
