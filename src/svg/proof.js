/**
 * The pixel proof of an SVG change, in Chromium. Many drawings go on one
 * page, each before and after the change in a shadow root of its own (so
 * ids, a gradient, a clip path, a symbol, resolve inside their own version
 * and never in another's). Every slot gets one place on the page, where
 * both versions are drawn in turn: Chromium's antialiasing depends on where
 * a shape is drawn (the same circle 160 device pixels to the right differs
 * in a few edge pixels), so before and after are only comparable in the
 * same place. The page is screenshotted with the before drawings shown,
 * then the after ones, at device scale 1 and 2 (a context each, side by
 * side), and every slot compared pixel for pixel, alpha included (no
 * background is painted). Pages come from the site model's bytes through
 * request interception at the layout measurements' origin (nothing is
 * written to disk, nothing is fetched from the network); a version of an
 * SVG file being proven is served under a query of its own. Scripts do not
 * run and animations stand still.
 */
import { PAGE_TIMEOUT_MS, withPageTimeout, withinPageTime } from '../browser/page-failed.js';
import { capture } from '../browser/capture.js';
import sharp from 'sharp';
import { ORIGIN } from '../browser/site-route.js';
import { encodePath } from '../site/edits.js';
import { mimeType } from '../site/mime.js';

/** The device scales every drawing is compared at. */
export const PROOF_SCALES = [1, 2];
/** A drawing wider or taller than this (CSS px) is not proven: it is kept as it is. */
export const MAX_SIDE = 2048;
/** Slots are laid out in rows this wide (CSS px); a wider slot makes the page wider. */
const PAGE_WIDTH = 1024;
/** Space between slots, CSS px. */
const GAP = 8;
/** A screenshot covers at most this many CSS px of the page's height (and one slot, whatever its height). */
const BAND = 2048;
/** Groups on one page. */
const GROUPS_PER_PAGE = 48;
/** Pages a tab draws before it is replaced (its renderer exits), so renderers stay small. */
const PAGES_PER_TAB = 100;
const PROOF_PATH = '/__pagediet-svg-proof__';
const VARIANT = 'pagediet-svg';

/**
 * Inherited properties a drawing is also shown with in a `contrast` slot,
 * as a page may give them to an inline <svg> or a <use>: colours apart from
 * the defaults, and a stroke with round caps, which shows a path segment
 * svgo dropped as drawing nothing.
 */
const CONTRAST = 'color:#d9480f;fill:#2b8a3e;stroke:#1c4fd8;stroke-width:1px;stroke-linecap:round;stroke-linejoin:round';

/**
 * @typedef {import('../site/site.js').Site} Site
 *
 * @typedef {object} ProofGroup drawings proven together, slot by slot
 * @property {string} base '' or the URL their relative references resolve against
 * @property {string[]} before the HTML of each slot, before the change
 * @property {string[]} after the HTML of each slot, after it (as many)
 *
 * @typedef {object} SlotDifference
 * @property {number} slot
 * @property {string} reason one line: where and how it differs
 *
 * @typedef {{ same: true } | { same: false, differences: SlotDifference[] } | { same: null, reason: string }} ProofOutcome
 *   same: null when the drawings could not be compared (too large, or the page did not load)
 */

/**
 * Escapes text for a double-quoted attribute value.
 * @param {string} text
 */
export function attr(text) {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Slot HTML for the kinds of drawing a proof shows. */
export const slots = {
  /** An SVG as an image, at its natural size. @param {string} url */
  image: (url) => `<img src="${attr(url)}" alt="">`,
  /** An SVG as an image scaled by CSS to a height, as a page's icon class draws it. @param {string} url @param {number} height CSS px */
  scaledImage: (url, height) => `<img src="${attr(url)}" alt="" style="height:${height}px;width:auto">`,
  /** Markup (an inline <svg>) as it is, or in a box that gives it the contrast properties. @param {string} markup @param {boolean} contrast */
  markup: (markup, contrast) => (contrast ? `<div style="${CONTRAST};width:max-content">${markup}</div>` : markup),
  /**
   * An element drawn by <use>, with the contrast properties.
   * @param {string} href
   * @param {{ width: number, height: number, viewBox?: string, symbol?: boolean }} box
   */
  use: (href, { width, height, viewBox, symbol }) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"${viewBox && !symbol ? ` viewBox="${attr(viewBox)}"` : ''} style="${CONTRAST}"><use href="${attr(href)}"${symbol ? ` width="${width}" height="${height}"` : ''}/></svg>`,
  /**
   * A box drawn through a clip path, mask or filter of the SVG, as CSS uses one.
   * @param {'clip-path' | 'mask' | 'filter'} property
   * @param {string} href
   * @param {{ width: number, height: number }} box
   */
  css: (property, href, { width, height }) => `<div style="width:${width}px;height:${height}px;background:linear-gradient(135deg,#d9480f,#1c4fd8);${property}:url(&quot;${attr(href)}&quot;)"></div>`,
  /** A rectangle painted with a gradient or pattern of the SVG. @param {string} href @param {{ width: number, height: number }} box */
  paint: (href, { width, height }) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="url(&quot;${attr(href)}&quot;)"/></svg>`,
};

/** How the reason of a proof Chromium could not draw begins (the page did not load, the browser went away). */
export const NOT_DRAWN = 'not drawn: ';

export class SvgProof {
  /**
   * @param {Site} site
   * @param {import('playwright-core').BrowserContext[]} contexts one per scale of PROOF_SCALES
   */
  constructor(site, contexts) {
    this.site = site;
    this.contexts = contexts;
    /** Per scale, the tab it draws in. @type {(Tab | null)[]} */
    this.tabs = contexts.map(() => null);
    this.pagesDrawn = 0;
    /** Versions of SVG files being proven, by serial number. @type {Map<string, { path: string, bytes: Buffer }>} */
    this.variants = new Map();
    this.serial = 0;
    /** Proof pages being drawn, by number. @type {Map<string, string>} */
    this.documents = new Map();
  }

  /**
   * Opens a context per scale in a browser.
   * @param {import('playwright-core').Browser} browser
   * @param {Site} site
   */
  static async open(browser, site) {
    const contexts = await Promise.all(PROOF_SCALES.map(async (scale) => withPageTimeout(await browser.newContext({
      deviceScaleFactor: scale,
      javaScriptEnabled: false,
      serviceWorkers: 'block',
      reducedMotion: 'reduce',
      viewport: { width: PAGE_WIDTH, height: 800 },
    }))));
    const proof = new SvgProof(site, contexts);
    for (const context of contexts) await context.route('**/*', (route) => proof.serve(route));
    return proof;
  }

  /**
   * A URL that serves these bytes as the SVG file at `path` (its relative references resolve beside it).
   * @param {string} path site path
   * @param {Buffer} bytes
   */
  variant(path, bytes) {
    const serial = String(++this.serial);
    this.variants.set(serial, { path, bytes });
    return `/${encodePath(path)}?${VARIANT}=${serial}`;
  }

  /** Forgets the versions registered so far. */
  clearVariants() {
    this.variants.clear();
  }

  /** @param {import('playwright-core').Route} route */
  async serve(route) {
    const url = new URL(route.request().url());
    if (url.origin !== ORIGIN) return route.abort('blockedbyclient');
    const headers = { 'cache-control': 'no-store' };
    if (url.pathname === PROOF_PATH) {
      const html = this.documents.get(url.searchParams.get('n') ?? '');
      if (html === undefined) return route.fulfill({ status: 404, body: '', headers });
      return route.fulfill({ status: 200, body: Buffer.from(html, 'utf8'), headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } });
    }
    const variant = this.variants.get(url.searchParams.get(VARIANT) ?? '');
    if (variant) return route.fulfill({ status: 200, body: variant.bytes, headers: { ...headers, 'content-type': mimeType(variant.path) } });
    let sitePath;
    try {
      sitePath = decodeURIComponent(url.pathname).slice(1);
    } catch {
      return route.fulfill({ status: 404, body: '', headers });
    }
    if (!this.site.files.has(sitePath)) return route.fulfill({ status: 404, body: '', headers });
    const body = await this.site.read(sitePath).catch(() => null);
    if (!body) return route.fulfill({ status: 404, body: '', headers });
    return route.fulfill({ status: 200, body, headers: { ...headers, 'content-type': mimeType(sitePath) } });
  }

  /**
   * Proves groups: every slot before against the same slot after, at every scale.
   * @param {ProofGroup[]} groups
   * @returns {Promise<ProofOutcome[]>}
   */
  async prove(groups) {
    /** @type {ProofOutcome[]} */
    const outcomes = [];
    // One page per base URL: relative references resolve against the page's.
    /** @type {Map<string, number[]>} */
    const byBase = new Map();
    groups.forEach((g, i) => {
      const list = byBase.get(g.base);
      if (list) list.push(i);
      else byBase.set(g.base, [i]);
    });
    for (const [base, indexes] of byBase) {
      for (let at = 0; at < indexes.length; at += GROUPS_PER_PAGE) {
        const batch = indexes.slice(at, at + GROUPS_PER_PAGE);
        const results = await this.provePage(base, batch.map((i) => groups[i]));
        batch.forEach((i, k) => { outcomes[i] = results[k]; });
      }
    }
    return outcomes;
  }

  /**
   * Draws one page of groups at every scale and compares their slots.
   * @param {string} base
   * @param {ProofGroup[]} groups
   * @returns {Promise<ProofOutcome[]>}
   */
  async provePage(base, groups) {
    const n = String(++this.serial);
    this.documents.set(n, proofDocument(base, groups));
    try {
      if (this.pagesDrawn > 0 && this.pagesDrawn % PAGES_PER_TAB === 0) await this.renewTabs();
      this.pagesDrawn++;
      const drawn = await Promise.all(this.contexts.map((_, i) => this.draw(i, `${ORIGIN}${PROOF_PATH}?n=${n}`)));
      return groups.map((group, g) => compareGroup(group, drawn.map((d) => d[g])));
    } catch (error) {
      const reason = `${NOT_DRAWN}${String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0]}`;
      await this.renewTabs().catch(() => {});
      return groups.map(() => ({ same: null, reason }));
    } finally {
      this.documents.delete(n);
    }
  }

  async renewTabs() {
    const old = this.tabs;
    this.tabs = this.contexts.map(() => null);
    await Promise.all(old.map((tab) => tab?.page.close()));
  }

  /**
   * A tab of a scale's context, with a transparent background.
   * @param {number} index
   * @returns {Promise<Tab>}
   */
  async tab(index) {
    const known = this.tabs[index];
    if (known) return known;
    const page = await this.contexts[index].newPage();
    const cdp = await this.contexts[index].newCDPSession(page);
    await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    return (this.tabs[index] = { page, cdp });
  }

  /**
   * Loads a proof page in the context of one scale, puts each slot's before
   * and after drawings in the same place (Chromium's antialiasing depends on
   * where on the page a shape is drawn), and screenshots each band of the
   * page with the before drawings shown, then with the after drawings.
   * @param {number} index the scale's index in PROOF_SCALES
   * @param {string} url
   * @returns {Promise<DrawnGroup[]>}
   */
  async draw(index, url) {
    const scale = PROOF_SCALES[index];
    const { page, cdp } = await this.tab(index);
    await withinPageTime(page, page.setViewportSize({ width: PAGE_WIDTH, height: 800 }), 'setting the proof page\'s viewport');
    await page.goto(url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    const sizes = /** @type {[number, number][][][]} */ (await withinPageTime(page, page.evaluate(measure), 'measuring the drawings'));
    const layout = layOut(sizes.map((g) => g[0]), sizes.map((g) => g[1]));
    await withinPageTime(page, page.evaluate(place, layout.cells), 'placing the drawings');
    await withinPageTime(page, page.setViewportSize({ width: layout.width, height: Math.max(1, Math.min(layout.height, BAND)) }), 'setting the proof page\'s viewport');
    // Band by band, the before and the after drawings, each slot compared as soon as both are in: only one band's two
    // screenshots are ever held (a page of large drawings at 2x is gigabytes of pixels).
    /** @type {(SlotComparison | null)[][]} per group, per slot */
    const compared = layout.cells.map((host) => host.map(() => null));
    for (const band of layout.bands) {
      const clip = { x: 0, y: band.top, width: layout.width, height: band.height };
      /** @type {{ data: Buffer, info: import('sharp').OutputInfo }[]} */
      const shots = [];
      for (const version of [0, 1]) {
        await withinPageTime(page, page.evaluate(show, version), 'showing the drawings');
        const png = await screenshot(page, cdp, clip, scale);
        shots.push(await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true }));
      }
      for (const [g, s] of band.slots) compared[g][s] = compareCell(shots[0], shots[1], /** @type {Cell} */ (layout.cells[g][s]), band.top, scale);
    }
    return layout.cells.map((cells, g) => ({ cells, before: sizes[g][0], after: sizes[g][1], compared: compared[g] }));
  }

  async close() {
    await Promise.all(this.contexts.map((c) => c.close().catch(() => {})));
  }
}

/**
 * @typedef {[number, number, number, number]} Cell x, y, width, height of a slot, whole CSS px
 *
 * @typedef {{ page: import('playwright-core').Page, cdp: import('playwright-core').CDPSession }} Tab
 *
 * @typedef {object} DrawnGroup one group as drawn at one scale
 * @property {(Cell | null)[]} cells where each slot was drawn; null: too large, not drawn
 * @property {[number, number][]} before each slot's drawing's size before, CSS px
 * @property {[number, number][]} after
 * @property {(SlotComparison | null)[]} compared each slot's pixels before against after; null: outside its screenshot
 *
 * @typedef {object} SlotComparison
 * @property {number} differing pixels (RGBA, alpha included) that differ
 * @property {number} total pixels in the slot
 */

/**
 * A proof page: each group's slots before and after the change, each
 * version in a shadow root of its own (its ids resolve inside it), every
 * slot placed absolutely once its size is known.
 * @param {string} base
 * @param {ProofGroup[]} groups
 */
function proofDocument(base, groups) {
  const style = '<style>:host{display:contents}.s{position:absolute;left:0;top:0;overflow:hidden}.s>*{display:block;margin:0}*,::before,::after{animation:none!important;transition:none!important}</style>';
  const host = (/** @type {string[]} */ list, /** @type {string} */ version) => `<div class="g ${version}"><template shadowrootmode="open">${style}${list.map((html) => `<div class="s">${html}</div>`).join('')}</template></div>`;
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8">',
    base ? `<base href="${attr(base)}">` : '',
    '<style>html,body{margin:0;padding:0;background:transparent}body{position:relative}</style>',
    '</head><body>',
    ...groups.map((g) => host(g.before, 'v0') + host(g.after, 'v1')),
    '</body></html>',
  ].join('');
}

/**
 * A screenshot of part of the page, PNG (src/browser/capture.js).
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').CDPSession} cdp
 * @param {{ x: number, y: number, width: number, height: number }} clip CSS px
 * @param {number} scale the device scale: the picture has as many pixels as the screen
 */
function screenshot(page, cdp, clip, scale) {
  return capture(
    page,
    async () => Buffer.from((await cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale }, captureBeyondViewport: true, fromSurface: true })).data, 'base64'),
    () => page.screenshot({ type: 'png', fullPage: true, omitBackground: true, animations: 'disabled', caret: 'hide', clip, timeout: PAGE_TIMEOUT_MS }),
  );
}

/**
 * Where every slot goes, the same on the before and the after page: rows
 * PAGE_WIDTH wide, each slot as large as the larger of its two drawings in
 * whole CSS px; none for a drawing over MAX_SIDE.
 * @param {[number, number][][]} before
 * @param {[number, number][][]} after
 */
function layOut(before, after) {
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  let width = PAGE_WIDTH;
  /** @type {(Cell | null)[][]} */
  const cells = before.map((slots, g) => slots.map((b, s) => {
    const a = after[g]?.[s] ?? [0, 0];
    const w = Math.ceil(Math.max(b[0], a[0]));
    const h = Math.ceil(Math.max(b[1], a[1]));
    if (w > MAX_SIDE || h > MAX_SIDE) return null;
    if (x > 0 && x + w > PAGE_WIDTH) {
      y += rowHeight + GAP;
      x = 0;
      rowHeight = 0;
    }
    /** @type {Cell} */
    const cell = [x, y, w, h];
    x += w + GAP;
    rowHeight = Math.max(rowHeight, h);
    width = Math.max(width, cell[0] + w);
    return cell;
  }));
  return { cells, width, height: y + rowHeight, bands: bands(cells) };
}

/**
 * In the page: waits for its images and fonts, and gives each slot's
 * drawing's size, per group, before and after.
 * @returns {Promise<[number, number][][][]>}
 */
/* c8 ignore start: runs in the browser */
async function measure() {
  const hosts = [...document.querySelectorAll('.g')];
  const slotsOf = (/** @type {Element} */ host) => [...(/** @type {ShadowRoot} */ (host.shadowRoot)).children].filter((e) => e.classList.contains('s'));
  const images = hosts.flatMap((h) => [.../** @type {ShadowRoot} */ (h.shadowRoot).querySelectorAll('img')]);
  await Promise.all(images.map((img) => img.decode().catch(() => {})));
  await document.fonts.ready;
  // Drawings that are not proven but are drawn beside others (an animated sprite) stand still at their start.
  for (const svg of hosts.flatMap((h) => [.../** @type {ShadowRoot} */ (h.shadowRoot).querySelectorAll('svg')])) {
    /** @type {SVGSVGElement} */ (svg).pauseAnimations();
    /** @type {SVGSVGElement} */ (svg).setCurrentTime(0);
  }
  const sizes = hosts.map((h) => slotsOf(h).map((slot) => {
    const r = slot.firstElementChild?.getBoundingClientRect();
    return /** @type {[number, number]} */ ([r?.width ?? 0, r?.height ?? 0]);
  }));
  /** @type {[number, number][][][]} */
  const out = [];
  for (let i = 0; i < sizes.length; i += 2) out.push([sizes[i], sizes[i + 1]]);
  return out;
}

/**
 * In the page: puts every slot of both versions of a group in its cell.
 * @param {([number, number, number, number] | null)[][]} cells per group, per slot
 */
function place(cells) {
  const hosts = [...document.querySelectorAll('.g')];
  hosts.forEach((h, i) => {
    const slots = [...(/** @type {ShadowRoot} */ (h.shadowRoot)).children].filter((e) => e.classList.contains('s'));
    slots.forEach((slot, s) => {
      const c = cells[Math.floor(i / 2)]?.[s];
      /** @type {HTMLElement} */ (slot).style.cssText = c ? `left:${c[0]}px;top:${c[1]}px;width:${c[2]}px;height:${c[3]}px` : 'display:none';
    });
  });
}

/**
 * In the page: shows one version of every group (0: before, 1: after) and hides the other.
 * @param {number} version
 */
function show(version) {
  for (const h of document.querySelectorAll('.g')) /** @type {HTMLElement} */ (h).style.display = h.classList.contains(`v${version}`) ? '' : 'none';
}
/* c8 ignore stop */

/**
 * Horizontal bands of the page that together hold every cell, none taller
 * than BAND unless one cell is.
 * @param {(Cell | null)[][]} cells
 * @returns {{ top: number, height: number, slots: [number, number][] }[]}
 */
function bands(cells) {
  /** @type {[number, number, Cell][]} */
  const all = [];
  cells.forEach((host, g) => host.forEach((c, s) => { if (c && c[2] > 0 && c[3] > 0) all.push([g, s, c]); }));
  all.sort((a, b) => a[2][1] - b[2][1]);
  /** @type {{ top: number, height: number, slots: [number, number][] }[]} */
  const out = [];
  for (const [g, s, c] of all) {
    const last = out[out.length - 1];
    const bottom = c[1] + c[3];
    if (last && Math.max(last.top + last.height, bottom) - last.top <= BAND) {
      last.height = Math.max(last.top + last.height, bottom) - last.top;
      last.slots.push([g, s]);
    } else {
      out.push({ top: c[1], height: c[3], slots: [[g, s]] });
    }
  }
  return out;
}

/**
 * A slot's pixels in the before and the after screenshot of a band,
 * compared row by row where they lie (nothing copied), or null when the
 * slot is not wholly inside them.
 * @param {{ data: Buffer, info: import('sharp').OutputInfo }} before RGBA
 * @param {{ data: Buffer, info: import('sharp').OutputInfo }} after RGBA, as large
 * @param {Cell} cell CSS px
 * @param {number} top the band's top, CSS px
 * @param {number} scale
 * @returns {SlotComparison | null}
 */
function compareCell(before, after, cell, top, scale) {
  const { width, height } = before.info;
  const x = cell[0] * scale;
  const y = (cell[1] - top) * scale;
  const w = cell[2] * scale;
  const h = cell[3] * scale;
  if (x + w > width || y + h > height || after.info.width !== width || after.info.height !== height) return null;
  let differing = 0;
  for (let row = 0; row < h; row++) {
    const start = ((y + row) * width + x) * 4;
    const end = start + w * 4;
    if (before.data.compare(after.data, start, end, start, end) === 0) continue;
    for (let i = start; i < end; i += 4) if (before.data.readUInt32LE(i) !== after.data.readUInt32LE(i)) differing++;
  }
  return { differing, total: w * h };
}

/**
 * A group's outcome from its drawings at every scale.
 * @param {ProofGroup} group
 * @param {DrawnGroup[]} scales
 * @returns {ProofOutcome}
 */
function compareGroup(group, scales) {
  /** @type {SlotDifference[]} */
  const differences = [];
  for (let slot = 0; slot < group.before.length; slot++) {
    for (let s = 0; s < scales.length; s++) {
      const { cells, before, after, compared } = scales[s];
      const b = before[slot];
      const a = after[slot];
      if (!b || !a) return { same: null, reason: 'a slot was not laid out' };
      if (!cells[slot]) return { same: null, reason: `drawn at ${Math.round(Math.max(a[0], b[0]))}x${Math.round(Math.max(a[1], b[1]))} px, larger than the ${MAX_SIDE} px a proof draws` };
      if (b[0] !== a[0] || b[1] !== a[1]) {
        differences.push({ slot, reason: `drawn at ${round2(a[0])}x${round2(a[1])} px instead of ${round2(b[0])}x${round2(b[1])}` });
        break;
      }
      if (b[0] === 0 || b[1] === 0) break;
      const pixels = compared[slot];
      if (!pixels) return { same: null, reason: 'a slot was outside its screenshot' };
      if (pixels.differing > 0) {
        differences.push({ slot, reason: `${pixels.differing} of ${pixels.total} pixels differ at ${PROOF_SCALES[s]}x` });
        break;
      }
    }
  }
  return differences.length ? { same: false, differences } : { same: true };
}

/** @param {number} n */
function round2(n) {
  return Math.round(n * 100) / 100;
}
