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
export const PAGE_TIMEOUT_MS = 120_000;

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
