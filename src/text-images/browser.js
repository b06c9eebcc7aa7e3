/**
 * Rendering in real Chromium, driven by playwright-core (which downloads no
 * browser of its own): the original image and its candidate replacements
 * drawn one under another on one page, screenshotted once, and cut into
 * same-sized pictures to compare. The browser is the first that launches of
 * those browser-discovery.js finds. A pass uses one browser with a page per
 * thread (RenderSessions); each page is purged of dead documents often and
 * replaced now and then, so the renderers stay small.
 */
import sharp from 'sharp';
import { cssColour } from './pixels.js';
import { findBrowsers, howToGetABrowser } from './browser-discovery.js';
import { embeddedBrowser } from './embedded-browser.js';

/**
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./pixels.js').Rgba} Rgba
 * @typedef {{ html: string, css: string }} Variant an element and the rules it needs (in the harness it is laid out as a block)
 * @typedef {import('./browser-discovery.js').BrowserCandidate} BrowserCandidate
 *
 * @typedef {object} LaunchedBrowser
 * @property {import('playwright-core').Browser} browser
 * @property {BrowserCandidate} candidate the one that launched
 * @property {string} executable
 * @property {string[]} failed one line for each candidate tried before it that did not launch
 *
 * @typedef {object} BrowserChoice
 * @property {string} [browser] the --browser option: a browser to try first
 * @property {string[]} [args] switches besides CHROMIUM_ARGS
 */

/** No browser was found, or none of those found launched. */
export class NoBrowserError extends Error {
  /** @param {string} message @param {string[]} failed */
  constructor(message, failed) {
    super(message);
    this.name = 'NoBrowserError';
    this.failed = failed;
  }
}

/**
 * Features playwright-core (1.65) turns off. Chromium takes only the last
 * --disable-features switch, so the one below must repeat them; a test holds
 * this list to what playwright passes.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = ['AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'TcpPortRandomizationWin', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch', 'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion'];

/**
 * Processes a headless browser starts that rendering never uses: the address
 * bar's popup, which Chromium 151 and later draw in a renderer of its own at
 * start (50-80 MB), and the spare renderer kept ready for the next site (20 MB).
 */
export const UNUSED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess'];

/**
 * No sandbox (builds may run as root in containers), no GPU, nothing that
 * talks to Google's servers, no processes that are not needed: with no GPU,
 * the GPU process only composites in software, which the browser process
 * does as well in itself (--in-process-gpu: 13 MB less on 10,000 pages).
 */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--in-process-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_FEATURES].join(',')}`];

/** Space between slots, so no element's overflow reaches the next. */
const GAP = 8;

/**
 * Renders between purges of a page's renderer: a full garbage collection and
 * a critical memory-pressure signal (Chromium drops its caches). The DOM of
 * each replaced document stays until a collection, which a small JS heap
 * rarely starts: without purges a renderer grew from 50 MB to 190 MB in 500
 * renders and 240 MB in 1,000; purged every 50 it held 86 MB and 96 MB, in the
 * same time.
 */
export const RENDERS_PER_PURGE = 50;

/**
 * Renders a page draws before a fresh page (and renderer process) replaces
 * it, for what purges leave (about 10 MB per 500 renders).
 */
export const RENDERS_PER_PAGE = 500;

/**
 * @typedef {object} Tab a page in a context of its own
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page
 * @property {import('playwright-core').CDPSession} cdp the page's DevTools session, for purges
 */

/**
 * Starts the first browser that launches of those found, unpacking the
 * embedded one when it is reached. An embedded browser that was unpacked
 * before and fails to start is unpacked again once (a damaged file the size
 * check did not see).
 * @param {BrowserChoice} [choice]
 * @returns {Promise<LaunchedBrowser>}
 */
export async function launchBrowser(choice = {}) {
  const { chromium } = await import('playwright-core');
  const candidates = findBrowsers(choice);
  const args = [...CHROMIUM_ARGS, ...(choice.args ?? [])];
  /** @type {string[]} */
  const failed = [];
  for (const candidate of candidates) {
    try {
      if (candidate.source !== 'embedded') {
        return { browser: await chromium.launch({ executablePath: candidate.path, args }), candidate, executable: candidate.path, failed };
      }
      let embedded = await embeddedBrowser(candidate.path);
      const start = () => chromium.launch({ executablePath: embedded.executable, args, env: { ...process.env, ...embedded.env } });
      try {
        return { browser: await start(), candidate, executable: embedded.executable, failed };
      } catch (error) {
        if (embedded.unpacked) throw error;
        embedded = await embeddedBrowser(candidate.path, { redo: true });
        return { browser: await start(), candidate, executable: embedded.executable, failed };
      }
    } catch (error) {
      failed.push(`${candidate.name} (${candidate.path}) did not start: ${String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0]}`);
    }
  }
  if (!candidates.length) throw new NoBrowserError(`no browser found: ${howToGetABrowser()}`, failed);
  throw new NoBrowserError(`no browser started (${failed.join('; ')}): ${howToGetABrowser()}`, failed);
}

export class RenderSession {
  /**
   * @param {import('playwright-core').Browser} browser
   * @param {Tab} tab
   * @param {{ rendersPerPage?: number, ownsBrowser?: boolean }} [options] ownsBrowser: close() closes the browser, not only the page
   */
  constructor(browser, tab, { rendersPerPage = RENDERS_PER_PAGE, ownsBrowser = false } = {}) {
    this.browser = browser;
    this.tab = tab;
    this.rendersPerPage = rendersPerPage;
    this.ownsBrowser = ownsBrowser;
    this.renders = 0;
  }

  get page() {
    return this.tab.page;
  }

  /**
   * Starts Chromium with one page that can load nothing from the network.
   * @param {{ rendersPerPage?: number } & BrowserChoice} [options] rendersPerPage: renders before the page is replaced (tests set a few)
   */
  static async open({ rendersPerPage, browser: named } = {}) {
    const { browser } = await launchBrowser({ browser: named });
    try {
      return new RenderSession(browser, await RenderSession.newTab(browser), { rendersPerPage, ownsBrowser: true });
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  /**
   * A page in a context of its own, which can load nothing but data: URLs.
   * @param {import('playwright-core').Browser} browser
   * @returns {Promise<Tab>}
   */
  static async newTab(browser) {
    const context = await browser.newContext({ deviceScaleFactor: 1, serviceWorkers: 'block' });
    await context.route((url) => url.protocol !== 'data:', (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    return { context, page, cdp: await context.newCDPSession(page) };
  }

  /** Replaces the page with a fresh one in a new context, and closes the old (its renderer exits). */
  async renew() {
    const old = this.tab.context;
    this.tab = await RenderSession.newTab(this.browser);
    this.renders = 0;
    await old.close();
  }

  /** Frees what the renderer keeps of the documents it drew: see RENDERS_PER_PURGE. */
  async purge() {
    await this.tab.cdp.send('HeapProfiler.collectGarbage');
    await this.tab.cdp.send('Memory.simulatePressureNotification', { level: 'critical' });
  }

  /** Closes the page, and the browser when the session started it. */
  async close() {
    await (this.ownsBrowser ? this.browser.close() : this.tab.context.close());
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
    else if (this.renders > 0 && this.renders % RENDERS_PER_PURGE === 0) await this.purge();
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
    const pageWidth = Math.max(width, 1);
    const pageHeight = slots * pitch;
    // The viewport only grows: resizing it costs a render about 13 ms, and the screenshot is clipped to the slots.
    const viewport = this.page.viewportSize();
    if (!viewport || viewport.width < pageWidth || viewport.height < pageHeight) {
      await this.page.setViewportSize({ width: Math.max(pageWidth, viewport?.width ?? 0), height: Math.max(pageHeight, viewport?.height ?? 0) });
    }
    await this.page.setContent(html, { waitUntil: 'load' });
    const png = await this.screenshot(pageWidth, pageHeight);
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

  /**
   * The page's top-left corner as a PNG. DevTools' Page.captureScreenshot
   * directly, with optimizeForSpeed (Chromium's fastest PNG compression: the
   * same pixels in a larger file, the screenshots of a build 40% faster), and
   * playwright's screenshot when that fails, as it may for a page just loaded
   * ("Unable to capture screenshot") or in a browser that lacks the option.
   * @param {number} width
   * @param {number} height
   */
  async screenshot(width, height) {
    const clip = { x: 0, y: 0, width, height };
    try {
      const { data } = await this.tab.cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale: 1 }, optimizeForSpeed: true });
      return Buffer.from(data, 'base64');
    } catch {
      return this.page.screenshot({ type: 'png', clip, animations: 'disabled' });
    }
  }
}

/**
 * Up to `size` render sessions, each lent to one task at a time, all pages of
 * one browser: fitting runs in as many renderer processes at once as the
 * machine has cores, and the browser's own processes (about 250 MB: the
 * browser, which also composites, and the network and zygote processes) are
 * there once. Sessions start
 * when first needed; a result never depends on which session drew it.
 */
export class RenderSessions {
  /**
   * @param {number} size
   * @param {BrowserChoice} [choice]
   */
  constructor(size, choice = {}) {
    this.size = Math.max(1, size);
    this.choice = choice;
    /** @type {Promise<LaunchedBrowser> | null} started with the first session */
    this.launched = null;
    /** Sessions open or opening. */
    this.opened = 0;
    /** @type {RenderSession[]} */
    this.idle = [];
    /** @type {((session: RenderSession | null) => void)[]} tasks waiting; null: a session failed to open, try again */
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
    } catch (error) {
      // The page may be left mid-task (a timed-out screenshot): the next task gets a fresh one.
      await session.renew().catch(() => {});
      throw error;
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
    if (this.opened < this.size) {
      this.opened++;
      return this.open().catch((error) => {
        // Its place is free again; a waiting task tries to open one (and fails the same way if Chromium cannot start).
        this.opened--;
        this.waiting.shift()?.(null);
        throw error;
      });
    }
    return new Promise((resolve) => this.waiting.push(resolve)).then((session) => session ?? this.acquire());
  }

  /** A session on a new page of the shared browser. */
  async open() {
    this.launched ??= launchBrowser(this.choice);
    const { browser } = await this.launched;
    return new RenderSession(browser, await RenderSession.newTab(browser));
  }

  async close() {
    // A browser that failed to start has nothing to close.
    const launched = await this.launched?.catch(() => null);
    await launched?.browser.close();
  }
}
