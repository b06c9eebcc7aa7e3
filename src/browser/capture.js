/**
 * Screenshots as the build takes them: DevTools' Page.captureScreenshot
 * first (a third of the time of playwright's), playwright's when that fails
 * (a browser without an option it was given), and both again, up to
 * CAPTURE_TRIES times, while Chromium answers "Unable to capture screenshot":
 * on a busy machine its compositor sometimes has no frame to give, which says
 * nothing about the page. Between tries the page draws two frames. Any other
 * error is thrown at once: the caller fails its page or candidate alone.
 */

/** How many times a capture is tried while Chromium has no frame to give. */
export const CAPTURE_TRIES = 4;

/**
 * @param {import('playwright-core').Page} page
 * @param {() => Promise<Buffer>} devtools the capture through DevTools
 * @param {() => Promise<Buffer>} playwright the capture through playwright
 * @returns {Promise<Buffer>} PNG
 */
export async function capture(page, devtools, playwright) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await devtools();
    } catch {
      try {
        return await playwright();
      } catch (error) {
        if (attempt >= CAPTURE_TRIES || !isFrameless(error)) throw error;
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      }
    }
  }
}

/** @param {unknown} error */
function isFrameless(error) {
  return String(/** @type {Error} */ (error)?.message).includes('Unable to capture screenshot');
}
