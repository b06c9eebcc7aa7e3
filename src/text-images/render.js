/**
 * Rendering in real Chromium, driven by playwright-core (which downloads no
 * browser of its own): an image and its candidate replacements drawn in
 * same-sized slots, in columns, screenshotted, and cut into pictures to
 * compare. A screenshot costs about 25 ms whatever it holds (Chromium draws a
 * frame for it), so the renders waiting when a page is free are drawn
 * together, one page and one screenshot for all (RenderSessions.render):
 * every slot sits at whole pixels on its own background, so a picture does
 * not depend on what was drawn beside it. The browser is the first that
 * launches of those src/browser/discovery.js finds. A pass uses one browser with
 * a page per thread; each page is purged of dead documents often and
 * replaced now and then, so the renderers stay small.
 */
import sharp from 'sharp';
import { cssColour } from './pixels.js';
import { withPageTimeout, withinPageTime } from '../browser/page-failed.js';
import { capture } from '../browser/capture.js';

/**
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./pixels.js').Rgba} Rgba
 * @typedef {{ html: string, css: string }} Variant an element and the rules it needs (in the harness it is laid out as a block)
 * @typedef {{ image: { bytes: Uint8Array, mime: string }, width: number, height: number, variants: Variant[], background: Rgb }} RenderRequest
 *   the image at a size and each variant in a box of the same size, on a background colour
 * @typedef {{ original: Rgba, variants: Rgba[] }} Drawn the pictures of a request (RGBA, width x height each)
 * @typedef {{ render(image: RenderRequest['image'], width: number, height: number, variants: Variant[], background: Rgb): Promise<Drawn> }} Renderer
 *   what draws a fit's renders: a session, or the sessions of a pass
 * @typedef {import('../browser/launch.js').BrowserChoice} BrowserChoice
 * @typedef {import('../browser/launch.js').LaunchedBrowser} LaunchedBrowser
 */

/** Space between slots, so no element's overflow reaches the next. */
const GAP = 8;

/**
 * Slots drawn between purges of a page's renderer: a full garbage collection
 * and a critical memory-pressure signal (Chromium drops its caches). The DOM
 * of each replaced document stays until a collection, which a small JS heap
 * rarely starts: without purges a renderer grew from 50 MB to 190 MB in 500
 * renders of about four slots, and 240 MB in 1,000; purged every 50 renders
 * it held 86 MB and 96 MB, in the same time.
 */
export const SLOTS_PER_PURGE = 200;

/**
 * Slots a page draws before a fresh page (and renderer process) replaces it,
 * for what purges leave (about 10 MB per 2,000 slots).
 */
export const SLOTS_PER_PAGE = 2000;

/**
 * The area of the slots drawn together at most (px², each slot with its gap),
 * laid out in columns of COLUMN_HEIGHT: a screenshot's cost grows with its
 * pixels only past its fixed cost (40 slots of 140x30 take 59 ms, 4 take
 * 34 ms), and so does the browser process's memory. On 1,000 generated pages
 * the fits took 37 s drawn one by one, 13 to 18 s at this area (the browser
 * as large as before, about 170 MB) and 10 s at four times it (the browser
 * 270 MB).
 */
export const BATCH_AREA = 320 * 1024;
/** Slots are stacked to this height, then a column to the right begins. */
export const COLUMN_HEIGHT = 1024;

/**
 * @typedef {object} Tab a page in a context of its own
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page
 * @property {import('playwright-core').CDPSession} cdp the page's DevTools session, for purges
 */

export class RenderSession {
  /**
   * @param {import('playwright-core').Browser} browser
   * @param {Tab} tab
   * @param {{ slotsPerPage?: number, ownsBrowser?: boolean }} [options] ownsBrowser: close() closes the browser, not only the page
   */
  constructor(browser, tab, { slotsPerPage = SLOTS_PER_PAGE, ownsBrowser = false } = {}) {
    this.browser = browser;
    this.tab = tab;
    this.slotsPerPage = slotsPerPage;
    this.ownsBrowser = ownsBrowser;
    /** Slots drawn on this page. */
    this.slots = 0;
    /** Slots drawn since the last purge. */
    this.unpurged = 0;
  }

  get page() {
    return this.tab.page;
  }

  /**
   * A page in a context of its own, which can load nothing but data: URLs.
   * @param {import('playwright-core').Browser} browser
   * @returns {Promise<Tab>}
   */
  static async newTab(browser) {
    const context = withPageTimeout(await browser.newContext({ deviceScaleFactor: 1, serviceWorkers: 'block' }));
    await context.route((url) => url.protocol !== 'data:', (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    return { context, page, cdp: await context.newCDPSession(page) };
  }

  /** Replaces the page with a fresh one in a new context, and closes the old (its renderer exits). */
  async renew() {
    const old = this.tab.context;
    this.tab = await RenderSession.newTab(this.browser);
    this.slots = 0;
    this.unpurged = 0;
    await old.close();
  }

  /** Frees what the renderer keeps of the documents it drew: see SLOTS_PER_PURGE. */
  async purge() {
    this.unpurged = 0;
    await this.tab.cdp.send('HeapProfiler.collectGarbage');
    await this.tab.cdp.send('Memory.simulatePressureNotification', { level: 'critical' });
  }

  /** Closes the page, and the browser when the session started it. */
  async close() {
    await (this.ownsBrowser ? this.browser.close() : this.tab.context.close());
  }

  /**
   * Draws the image at a size and each variant in a box of the same size, on
   * a background colour, and returns their pixels.
   * @param {RenderRequest['image']} image
   * @param {number} width
   * @param {number} height
   * @param {Variant[]} variants
   * @param {Rgb} background
   * @returns {Promise<Drawn>}
   */
  async render(image, width, height, variants, background) {
    return (await this.renderAll([{ image, width, height, variants, background }]))[0];
  }

  /**
   * Draws several requests on one page with one screenshot, each slot at a
   * whole-pixel offset on its request's background.
   * @param {RenderRequest[]} requests
   * @returns {Promise<Drawn[]>}
   */
  async renderAll(requests) {
    if (this.slots >= this.slotsPerPage) await this.renew();
    else if (this.unpurged >= SLOTS_PER_PURGE) await this.purge();
    const html = ['<!DOCTYPE html><html><head><style>', 'html,body{margin:0;padding:0;background:#fff}', '.slot{position:absolute;overflow:hidden}', '.slot>*{display:block!important;margin:0!important;float:none!important;vertical-align:top!important}'];
    for (const { variants } of requests) for (const v of variants) html.push(v.css);
    html.push('</style></head><body>');
    /** @type {[number, number][][]} each request's slots' left and top */
    const places = [];
    let pageWidth = 1;
    let pageHeight = 0;
    let left = 0;
    let top = 0;
    for (const { image, width, height, variants, background } of requests) {
      const box = `width:${width}px;height:${height}px;background:${cssColour(background)}`;
      const src = `data:${image.mime};base64,${Buffer.from(image.bytes).toString('base64')}`;
      /** @type {[number, number][]} */
      const at = [];
      for (const content of [`<img src="${src}" width="${width}" height="${height}" alt="">`, ...variants.map((v) => v.html)]) {
        if (top > 0 && top + height > COLUMN_HEIGHT) {
          left = pageWidth + GAP;
          top = 0;
        }
        html.push(`<div class="slot" style="left:${left}px;top:${top}px;${box}">${content}</div>`);
        at.push([left, top]);
        top += height + GAP;
        pageWidth = Math.max(pageWidth, left + width);
        pageHeight = Math.max(pageHeight, top);
      }
      places.push(at);
    }
    html.push('</body></html>');
    const slots = places.reduce((n, at) => n + at.length, 0);
    this.slots += slots;
    this.unpurged += slots;
    // The viewport only grows: resizing it costs a render about 13 ms, and the screenshot is clipped to the slots.
    const viewport = this.page.viewportSize();
    if (!viewport || viewport.width < pageWidth || viewport.height < pageHeight) {
      await withinPageTime(this.page, this.page.setViewportSize({ width: Math.max(pageWidth, viewport?.width ?? 0), height: Math.max(pageHeight, viewport?.height ?? 0) }), 'setting the render page\'s viewport');
    }
    await this.page.setContent(html.join(''), { waitUntil: 'load' });
    const png = await this.screenshot(pageWidth, pageHeight);
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return requests.map(({ width, height }, r) => {
      /** @param {[number, number]} place @returns {Rgba} */
      const cut = ([left, top]) => {
        const out = new Uint8Array(width * height * 4);
        for (let y = 0; y < height; y++) {
          const from = ((top + y) * info.width + left) * 4;
          out.set(data.subarray(from, from + width * 4), y * width * 4);
        }
        return { width, height, data: out };
      };
      const [original, ...variants] = places[r].map(cut);
      return { original, variants };
    });
  }

  /**
   * The page's top-left corner as a PNG (src/browser/capture.js), DevTools'
   * capture with optimizeForSpeed (Chromium's fastest PNG compression: the
   * same pixels in a larger file, the screenshots of a build 40% faster).
   * @param {number} width
   * @param {number} height
   */
  screenshot(width, height) {
    const clip = { x: 0, y: 0, width, height };
    return capture(
      this.page,
      async () => Buffer.from((await this.tab.cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale: 1 }, optimizeForSpeed: true })).data, 'base64'),
      () => this.page.screenshot({ type: 'png', clip, animations: 'disabled' }),
    );
  }
}

/**
 * Up to `size` render sessions, all pages of one browser, that draw the
 * renders asked of them: the renders waiting when a session is free are drawn
 * together (up to BATCH_AREA of slots, the waiting shared among the free
 * sessions), so fitting runs in as many renderer processes at once as the
 * machine has cores, each screenshot serving many fits, and the browser's own
 * processes (about 250 MB: the browser, which also composites, and the
 * network and zygote processes) are there once. Sessions start when first
 * needed; a picture never depends on which session drew it or what beside.
 * @implements {Renderer}
 */
export class RenderSessions {
  /**
   * @param {number} size
   * @param {{ get(): Promise<LaunchedBrowser> }} browser the build's browser (src/browser/build-browser.js)
   */
  constructor(size, browser) {
    this.size = Math.max(1, size);
    this.browser = browser;
    /** Sessions open or opening. */
    this.opened = 0;
    /** @type {Set<RenderSession>} every session open, to close their pages */
    this.sessions = new Set();
    /** @type {RenderSession[]} */
    this.idle = [];
    /** @type {{ request: RenderRequest, resolve: (drawn: Drawn) => void, reject: (error: unknown) => void }[]} renders not yet drawn */
    this.waiting = [];
    this.scheduled = false;
  }

  /**
   * Draws the image at a size and each variant in a box of the same size, on
   * a background colour, with the other renders waiting.
   * @param {RenderRequest['image']} image
   * @param {number} width
   * @param {number} height
   * @param {Variant[]} variants
   * @param {Rgb} background
   * @returns {Promise<Drawn>}
   */
  render(image, width, height, variants, background) {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request: { image, width, height, variants, background }, resolve, reject });
      // Renders asked for in the same turn (fits continuing after a screenshot) wait for each other.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.dispatch();
        });
      }
    });
  }

  /** Gives the waiting renders to the free sessions, and opens sessions up to `size`. */
  dispatch() {
    let free = this.idle.length + this.size - this.opened;
    while (this.waiting.length && free > 0) {
      const area = this.waiting.reduce((sum, { request }) => sum + slotsArea(request), 0);
      const share = Math.min(BATCH_AREA, Math.ceil(area / free));
      let taken = 0;
      let n = 0;
      while (n < this.waiting.length) {
        const slots = slotsArea(this.waiting[n].request);
        if (n > 0 && taken + slots > share) break;
        taken += slots;
        n++;
      }
      void this.draw(this.waiting.splice(0, n));
      free--;
    }
  }

  /**
   * Draws a batch on a session, and hands the session to the renders waiting.
   * @param {RenderSessions['waiting']} batch
   */
  async draw(batch) {
    /** @type {RenderSession} */
    let session;
    try {
      session = await this.acquire();
    } catch (error) {
      for (const { reject } of batch) reject(error);
      this.dispatch();
      return;
    }
    let usable = true;
    try {
      const drawn = await session.renderAll(batch.map(({ request }) => request));
      batch.forEach(({ resolve }, i) => resolve(drawn[i]));
    } catch (error) {
      // The page may be left mid-render (a timed-out screenshot): the next batch gets a fresh one. When none can be
      // had (the browser closed or crashed), the session goes, and the next batch opens one in the browser started again.
      usable = await session.renew().then(() => true, () => false);
      for (const { reject } of batch) reject(error);
    } finally {
      if (usable) {
        this.idle.push(session);
      } else {
        this.sessions.delete(session);
        this.opened--;
      }
      this.dispatch();
    }
  }

  /** An idle session, or a new one while fewer than `size` are open. @returns {Promise<RenderSession>} */
  acquire() {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    this.opened++;
    return this.open().catch((error) => {
      // Its place is free again: the renders waiting try to open one (and fail the same way if Chromium cannot start).
      this.opened--;
      throw error;
    });
  }

  /** A session on a new page of the build's browser. */
  async open() {
    const { browser } = await this.browser.get();
    const session = new RenderSession(browser, await RenderSession.newTab(browser));
    this.sessions.add(session);
    return session;
  }

  /** Closes the sessions' pages (the browser is the build's). */
  async close() {
    await Promise.all([...this.sessions].map((session) => session.close().catch(() => {})));
    this.sessions.clear();
  }
}

/**
 * The area a request's slots take on a page, with their gaps.
 * @param {RenderRequest} request
 */
function slotsArea({ width, height, variants }) {
  return (1 + variants.length) * (width + GAP) * (height + GAP);
}
