/**
 * Debian's Chromium, driven by playwright-core, for tests that open pages in
 * a real browser (playwright-core downloads no browser of its own).
 *
 * When /usr/bin/chromium is missing, tests that use `chromiumTest` are skipped
 * with a message; .ci/run installs the package, and when the CI variable is set
 * a missing browser fails instead, so CI never skips them quietly.
 *
 *   import { chromiumTest, launchChromium } from './helpers/chromium.js';
 *   chromiumTest('draws the report', async () => {
 *     const browser = await launchChromium();
 *     try { ... } finally { await browser.close(); }
 *   });
 */
import fs from 'node:fs';
import { it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../src/text-images/browser.js';

// The same browser and flags as the text-images pass (PAGEDIET_CHROMIUM names another browser for both).
export { CHROMIUM_ARGS, CHROMIUM_PATH };

/** Why browser tests cannot run here, or null when they can. */
export const chromiumMissing = fs.existsSync(CHROMIUM_PATH)
  ? null
  : `${CHROMIUM_PATH} is missing: browser tests are skipped (install Debian's chromium package, as .ci/run does)`;

if (chromiumMissing && process.env.CI) throw new Error(`${chromiumMissing}; CI must run them`);
if (chromiumMissing) console.warn(`pagediet tests: ${chromiumMissing}`);

/**
 * `it`, skipped with the reason when Chromium is missing.
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
 * Starts a headless Chromium. Close it when done.
 * @param {import('playwright-core').LaunchOptions} [options] merged over the defaults (args are added to CHROMIUM_ARGS)
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchChromium(options = {}) {
  if (chromiumMissing) throw new Error(chromiumMissing);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ ...options, executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...(options.args ?? [])] });
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
