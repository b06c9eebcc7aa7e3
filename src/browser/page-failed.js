/**
 * A page Chromium could not load, settle or read: it did not load, or its
 * images and fonts had not loaded, within the time allowed, or the browser
 * closed or crashed while it was open. The pass keeps what it would have
 * changed on that page (or on what the page draws), and says why.
 */
/**
 * The longest any one step in a page (loading it, its images and fonts
 * settling, a screenshot) may take: a guard against a renderer that hangs,
 * not a pace. Far above what a step takes on a machine with every core busy
 * (seconds), so that what a build decides does not depend on the machine's
 * load; a step that reaches it fails its page alone.
 */
export const PAGE_TIMEOUT_MS = testPageTimeout() ?? 120_000;

/**
 * The test suite's shorter limit (PAGEDIET_TEST_PAGE_TIMEOUT_S), so that a
 * test of a page that never settles does not wait two minutes; null otherwise.
 */
function testPageTimeout() {
  const seconds = Number(process.env.PAGEDIET_TEST_PAGE_TIMEOUT_S);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

/**
 * Sets a context's default time for every call in its pages to PAGE_TIMEOUT_MS (playwright's is 30 s).
 * @template {import('playwright-core').BrowserContext} C
 * @param {C} context
 * @returns {C}
 */
export function withPageTimeout(context) {
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  return context;
}

/**
 * A call into a page that has no time limit of its own (page.evaluate, a
 * viewport change), given PAGE_TIMEOUT_MS: a page whose script never ends,
 * or a promise in it that never settles, would otherwise hold the build
 * forever. When the time runs out the page is closed (so that the call
 * ends, and the page is not used again) and PageFailed is thrown.
 * @template T
 * @param {import('playwright-core').Page} page
 * @param {Promise<T>} call
 * @param {string} what the step, for the message: 'its images and fonts settling'
 * @returns {Promise<T>}
 */
export async function withinPageTime(page, call, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new PageFailed(`${what} had not ended after ${PAGE_TIMEOUT_MS / 1000} s`)), PAGE_TIMEOUT_MS);
  });
  try {
    return /** @type {T} */ (await Promise.race([call, late]));
  } catch (error) {
    if (error instanceof PageFailed) {
      call.catch(() => {});
      await page.close().catch(() => {});
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export class PageFailed extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'PageFailed';
  }
}

/**
 * An error's first line, for a message.
 * @param {unknown} error
 */
export function firstLine(error) {
  return String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0];
}

/**
 * Whether a page can still be used: it is open, in a browser that runs.
 * @param {import('playwright-core').Page} page
 */
export function pageUsable(page) {
  return !page.isClosed() && Boolean(page.context().browser()?.isConnected());
}
