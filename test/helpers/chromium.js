/**
 * The browser the text-images pass would use (the first that launches of
 * those src/browser/discovery.js finds), driven by
 * playwright-core, for tests that open pages in a real browser.
 *
 * When no browser is found, tests that use `chromiumTest` are skipped with a
 * message; .ci/run installs Debian's chromium, and when the CI variable is
 * set a missing browser fails instead, so CI never skips them quietly.
 *
 *   import { chromiumTest, launchChromium } from './helpers/chromium.js';
 *   chromiumTest('draws the report', async () => {
 *     const browser = await launchChromium();
 *     try { ... } finally { await browser.close(); }
 *   });
 */
import { it } from 'vitest';
import { CHROMIUM_ARGS, launchBrowser } from '../../src/browser/launch.js';
import { RenderSession } from '../../src/text-images/render.js';
import { findBrowsers } from '../../src/browser/discovery.js';

export { CHROMIUM_ARGS };

/** Why browser tests cannot run here, or null when they can. */
export const chromiumMissing = findBrowsers().length
  ? null
  : 'no browser found: browser tests are skipped (install Debian\'s chromium package, as .ci/run does)';

if (chromiumMissing && process.env.CI) throw new Error(`${chromiumMissing}; CI must run them`);
if (chromiumMissing) console.warn(`pagediet tests: ${chromiumMissing}`);

/**
 * `it`, skipped with the reason when no browser is found.
 * @param {string} name
 * @param {() => Promise<void>} fn
 * @param {number} [timeout]
 */
export function chromiumTest(name, fn, timeout) {
  return it(name, async (ctx) => {
    if (chromiumMissing) ctx.skip(chromiumMissing);
    await fn();
  }, timeout);
}

/**
 * A text-images render session on a browser of its own, which closing the session closes.
 * @param {{ slotsPerPage?: number }} [options] slotsPerPage: slots drawn before the page is replaced
 * @returns {Promise<RenderSession>}
 */
export async function openRenderSession({ slotsPerPage } = {}) {
  const browser = await launchChromium();
  try {
    return new RenderSession(browser, await RenderSession.newTab(browser), { slotsPerPage, ownsBrowser: true });
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * A browser the test started, given where a build's browser is asked for
 * (src/browser/build-browser.js's get()).
 * @param {import('playwright-core').Browser} browser
 * @returns {{ get(): Promise<import('../../src/browser/launch.js').LaunchedBrowser> }}
 */
export function asBuildBrowser(browser) {
  const launched = { browser, candidate: { name: 'test', path: '', source: /** @type {const} */ ('path') }, executable: '', failed: [] };
  return { get: async () => /** @type {any} */ (launched) };
}

/**
 * Starts the browser. Close it when done.
 * @param {{ args?: string[] }} [options] args: switches besides CHROMIUM_ARGS
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchChromium(options = {}) {
  if (chromiumMissing) throw new Error(chromiumMissing);
  return (await launchBrowser({ args: options.args })).browser;
}
/**
 * A page that can reach nothing but file: and data: URLs: every other request
 * is aborted and recorded in `blocked`, and every request is recorded in
 * `requests`. Console errors and page errors are collected in `errors`.
 * @param {import('playwright-core').Browser} browser
 * @param {import('playwright-core').BrowserContextOptions} [options]
 */
export async function offlinePage(browser, options = {}) {
  const context = await browser.newContext({ serviceWorkers: 'block', ...options });
  /** @type {string[]} */
  const blocked = [];
  /** @type {string[]} */
  const requests = [];
  /** @type {string[]} */
  const errors = [];
  await context.route((url) => url.protocol !== 'file:' && url.protocol !== 'data:', (route) => {
    blocked.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  context.on('request', (request) => requests.push(request.url()));
  context.on('weberror', (error) => errors.push(`page error: ${error.error().message}`));
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return { context, page, blocked, requests, errors };
}

/**
 * page.screenshot, taken again once when Chromium reports that it could not
 * capture a frame ("Unable to capture screenshot", seen on a loaded machine):
 * that is the browser failing to produce a picture, not a finding about the
 * page. Any other error, or a second failure, is thrown.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').PageScreenshotOptions} [options]
 * @returns {Promise<Buffer>}
 */
export async function screenshot(page, options) {
  try {
    return await page.screenshot(options);
  } catch (error) {
    if (!String(/** @type {Error} */ (error)?.message).includes('Unable to capture screenshot')) throw error;
    return page.screenshot(options);
  }
}

/**
 * A full-page screenshot of a page that has finished drawing: the network
 * idle, fonts loaded, two frames drawn, and the picture the same twice in a
 * row. An external `<use>` or an image inside an SVG may still be on its way
 * when `load` fires; a picture taken then differs between two runs.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<Buffer>} PNG
 */
export async function settledScreenshot(page) {
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))));
  let shot = await screenshot(page, { fullPage: true, animations: 'disabled', caret: 'hide' });
  for (let attempt = 0; attempt < 5; attempt++) {
    const again = await screenshot(page, { fullPage: true, animations: 'disabled', caret: 'hide' });
    if (again.equals(shot)) return shot;
    shot = again;
  }
  throw new Error('the page kept changing over six screenshots');
}
