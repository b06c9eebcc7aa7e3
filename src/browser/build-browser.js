/**
 * The build's Chromium: started when a pass first asks for it, shared by
 * every pass through `ctx.browser` (each opens its own contexts and closes
 * them), and closed when the build ends. One browser a build, not one a
 * pass: a start costs about half a second and its processes some 100 MB.
 *
 * A browser that closes or crashes during the build is started again for
 * the next pass or page that asks: what was drawing in it fails where it
 * was (those candidates are kept, with a warning), and the rest of the build
 * goes on. A browser that cannot start is not tried again: every later
 * caller gets the same NoBrowserError.
 */
import { launchBrowser } from './launch.js';

/**
 * @typedef {import('./launch.js').LaunchedBrowser} LaunchedBrowser
 * @typedef {import('./launch.js').BrowserChoice} BrowserChoice
 */

export class BuildBrowser {
  /** @param {BrowserChoice} [choice] */
  constructor(choice = {}) {
    this.choice = choice;
    /** @type {Promise<LaunchedBrowser> | null} the browser running or starting, or why none starts */
    this.current = null;
    /** The first browser that started: what the build reports of its choice. @type {LaunchedBrowser | null} */
    this.first = null;
    /** Browsers started, the first included. */
    this.starts = 0;
    this.closed = false;
  }

  /**
   * The build's browser, started on first use, and again after it closed.
   * @returns {Promise<LaunchedBrowser>}
   */
  get() {
    if (this.closed) return Promise.reject(new Error('the build\'s browser is closed: the build has ended'));
    if (this.current) return this.current;
    const starting = launchBrowser(this.choice).then((launched) => {
      this.starts++;
      this.first ??= launched;
      launched.browser.on('disconnected', () => {
        if (this.current === starting) this.current = null;
      });
      injectedBrowserFault(launched.browser);
      return launched;
    });
    this.current = starting;
    return starting;
  }

  /** Closes the browser, if one runs; later calls to get() fail. */
  async close() {
    this.closed = true;
    const launched = await this.current?.catch(() => null);
    this.current = null;
    await launched?.browser.close().catch(() => {});
  }
}

/**
 * For tests of what a browser that goes away does to a build
 * (test/faults.test.js): with `browser-close` in PAGEDIET_TEST_FAULTS, each
 * browser the build starts closes as soon as the first page opened in it has
 * loaded, in the middle of whatever proof or measurement loaded it.
 * @param {import('playwright-core').Browser} browser
 */
function injectedBrowserFault(browser) {
  if (!(process.env.PAGEDIET_TEST_FAULTS ?? '').split(',').some((fault) => fault.trim() === 'browser-close')) return;
  const newContext = browser.newContext.bind(browser);
  let closing = false;
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.on('page', (page) => page.once('load', () => {
      if (closing) return;
      closing = true;
      void browser.close().catch(() => {});
    }));
    return context;
  };
}
