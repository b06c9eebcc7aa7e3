// The build's screenshots (src/browser/capture.js) are taken again while
// Chromium answers "Unable to capture screenshot" (its compositor had no frame
// to give, seen on a busy machine), up to CAPTURE_TRIES times, and any other
// error fails at once. The failures are Chromium's own message, thrown in
// front of real captures of a real page.
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { chromiumTest, launchChromium } from './helpers/chromium.js';
import { CAPTURE_TRIES, capture } from '../src/browser/capture.js';

const FRAMELESS = 'Protocol error (Page.captureScreenshot): Unable to capture screenshot';

describe('capture', () => {
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {import('playwright-core').Page} */
  let page;
  /** @type {import('playwright-core').CDPSession} */
  let cdp;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 64, height: 32 } });
    await page.setContent('<body style="margin:0;background:#c03"><div style="width:20px;height:10px;background:#03c"></div></body>');
    cdp = await page.context().newCDPSession(page);
  }, 60_000);
  afterAll(async () => browser?.close());

  /** Real captures, the first FAILURES of each kind answered with Chromium's frameless error, every call counted. @param {number} failures @param {string} [message] */
  const flaky = (failures, message = FRAMELESS) => {
    const calls = { devtools: 0, playwright: 0 };
    return {
      calls,
      devtools: async () => {
        if (++calls.devtools <= failures) throw new Error(message);
        return Buffer.from((await cdp.send('Page.captureScreenshot', { format: 'png' })).data, 'base64');
      },
      playwright: async () => {
        if (++calls.playwright <= failures) throw new Error(message);
        return page.screenshot({ type: 'png' });
      },
    };
  };

  chromiumTest('tries again while Chromium has no frame, and returns the page as drawn', async () => {
    const { calls, devtools, playwright } = flaky(CAPTURE_TRIES - 1);
    const png = await capture(page, devtools, playwright);
    expect(calls).toEqual({ devtools: CAPTURE_TRIES, playwright: CAPTURE_TRIES - 1 });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png).toEqual(await devtools());
  }, 60_000);

  chromiumTest('gives up after CAPTURE_TRIES frameless answers, and fails at once on any other error', async () => {
    const frameless = flaky(CAPTURE_TRIES);
    await expect(capture(page, frameless.devtools, frameless.playwright)).rejects.toThrow('Unable to capture screenshot');
    expect(frameless.calls).toEqual({ devtools: CAPTURE_TRIES, playwright: CAPTURE_TRIES });
    const other = flaky(1, 'Target page, context or browser has been closed');
    await expect(capture(page, other.devtools, other.playwright)).rejects.toThrow('has been closed');
    expect(other.calls).toEqual({ devtools: 1, playwright: 1 });
  }, 60_000);
});
