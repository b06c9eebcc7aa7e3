/**
 * A page Chromium could not load, settle or read: it did not load, or its
 * images and fonts had not loaded, within the time allowed, or the browser
 * closed or crashed while it was open. The pass keeps what it would have
 * changed on that page (or on what the page draws), and says why.
 */
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
