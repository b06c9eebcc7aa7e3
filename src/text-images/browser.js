/**
 * Rendering in real Chromium (Debian's, driven by playwright-core, which
 * downloads no browser of its own): the original image and its candidate
 * replacements drawn one under another on one page, screenshotted once, and
 * cut into same-sized pictures to compare. A pass uses one browser per
 * thread (RenderSessions), each with one page it renews now and then.
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { cssColour } from './pixels.js';

/**
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./pixels.js').Rgba} Rgba
 * @typedef {{ html: string, css: string }} Variant an element and the rules it needs (in the harness it is laid out as a block)
 */

/** The browser pagediet renders with; PAGEDIET_CHROMIUM names another. */
export const CHROMIUM_PATH = process.env.PAGEDIET_CHROMIUM || '/usr/bin/chromium';

/** No sandbox (builds may run as root in containers), no GPU, nothing that talks to Google's servers. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];

/** Space between slots, so no element's overflow reaches the next. */
const GAP = 8;

/**
 * Renders a page draws before a fresh page (and renderer process) replaces
 * it: a renderer grows with what it has drawn. On 10,000 generated pages each
 * of the two had grown to about 195 MB; a fresh one holds about 50 MB, and
 * 500 renders add about 10 MB.
 */
export const RENDERS_PER_PAGE = 500;

export class RenderSession {
  /**
   * @param {import('playwright-core').Browser} browser
   * @param {{ context: import('playwright-core').BrowserContext, page: import('playwright-core').Page }} tab
   * @param {number} [rendersPerPage]
   */
  constructor(browser, { context, page }, rendersPerPage = RENDERS_PER_PAGE) {
    this.browser = browser;
    this.context = context;
    this.page = page;
    this.rendersPerPage = rendersPerPage;
    this.renders = 0;
  }

  /** Why rendering is impossible here, or null. */
  static missing() {
    return fs.existsSync(CHROMIUM_PATH) ? null : `${CHROMIUM_PATH} is missing (set PAGEDIET_CHROMIUM or install Chromium)`;
  }

  /**
   * Starts Chromium with one page that can load nothing from the network.
   * @param {{ rendersPerPage?: number }} [options] renders before the page is replaced (tests set a few)
   */
  static async open({ rendersPerPage } = {}) {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      return new RenderSession(browser, await RenderSession.newTab(browser), rendersPerPage);
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  /**
   * A page in a context of its own, which can load nothing but data: URLs.
   * @param {import('playwright-core').Browser} browser
   */
  static async newTab(browser) {
    const context = await browser.newContext({ deviceScaleFactor: 1, serviceWorkers: 'block' });
    await context.route((url) => url.protocol !== 'data:', (route) => route.abort('blockedbyclient'));
    return { context, page: await context.newPage() };
  }

  /** Replaces the page with a fresh one in a new context, and closes the old (its renderer exits). */
  async renew() {
    const old = this.context;
    const { context, page } = await RenderSession.newTab(this.browser);
    this.context = context;
    this.page = page;
    this.renders = 0;
    await old.close();
  }

  async close() {
    await this.browser.close();
  }

  /**
   * Draws the image at a size and each variant in a box of the same size, on
   * a background colour, and returns their pixels (RGBA, width x height each).
   * @param {{ bytes: Uint8Array, mime: string }} image
   * @param {number} width
   * @param {number} height
   * @param {Variant[]} variants
   * @param {Rgb} background
   * @returns {Promise<{ original: Rgba, variants: Rgba[] }>}
   */
  async render(image, width, height, variants, background) {
    if (this.renders === this.rendersPerPage) await this.renew();
    this.renders++;
    const slots = 1 + variants.length;
    const pitch = height + GAP;
    const src = `data:${image.mime};base64,${Buffer.from(image.bytes).toString('base64')}`;
    const html = [
      '<!DOCTYPE html><html><head><style>',
      `html,body{margin:0;padding:0;background:${cssColour(background)}}`,
      `.slot{position:absolute;left:0;width:${width}px;height:${height}px;overflow:hidden}`,
      '.slot>*{display:block!important;margin:0!important;float:none!important;vertical-align:top!important}',
      ...variants.map((v) => v.css),
      '</style></head><body>',
      `<div class="slot" style="top:0"><img src="${src}" width="${width}" height="${height}" alt=""></div>`,
      ...variants.map((v, i) => `<div class="slot" style="top:${(i + 1) * pitch}px">${v.html}</div>`),
      '</body></html>',
    ].join('');
    await this.page.setViewportSize({ width: Math.max(width, 1), height: Math.max(1, slots * pitch) });
    await this.page.setContent(html, { waitUntil: 'load' });
    const png = await this.page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: Math.max(width, 1), height: slots * pitch }, animations: 'disabled' });
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    /** @param {number} slot @returns {Rgba} */
    const cut = (slot) => {
      const out = new Uint8Array(width * height * 4);
      for (let y = 0; y < height; y++) {
        const from = ((slot * pitch + y) * info.width) * 4;
        out.set(data.subarray(from, from + width * 4), y * width * 4);
      }
      return { width, height, data: out };
    };
    return { original: cut(0), variants: variants.map((_, i) => cut(i + 1)) };
  }
}

/**
 * Up to `size` render sessions, each lent to one task at a time: fitting runs
 * in as many browsers at once as the machine has cores (Chromium renders in
 * its own processes, so two fits keep two cores busy). Sessions start when
 * first needed; a result never depends on which session drew it.
 */
export class RenderSessions {
  /** @param {number} size */
  constructor(size) {
    this.size = Math.max(1, size);
    /** @type {RenderSession[]} */
    this.idle = [];
    /** @type {Promise<RenderSession>[]} */
    this.all = [];
    /** @type {((session: RenderSession) => void)[]} */
    this.waiting = [];
  }

  /**
   * Runs a task with a session of its own.
   * @template T
   * @param {(session: RenderSession) => Promise<T>} task
   * @returns {Promise<T>}
   */
  async use(task) {
    const session = await this.acquire();
    try {
      return await task(session);
    } finally {
      const next = this.waiting.shift();
      if (next) next(session);
      else this.idle.push(session);
    }
  }

  /** @returns {Promise<RenderSession>} */
  acquire() {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.all.length < this.size) {
      const opening = RenderSession.open();
      this.all.push(opening);
      return opening;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async close() {
    const sessions = await Promise.allSettled(this.all);
    await Promise.all(sessions.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
  }
}
