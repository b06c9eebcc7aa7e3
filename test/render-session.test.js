import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderSession } from '../src/text-images/browser.js';

describe('a render session replaces its page after a number of renders', () => {
  /** @type {RenderSession} */
  let session;
  beforeAll(async () => {
    session = await RenderSession.open({ rendersPerPage: 2 });
  });
  afterAll(async () => {
    await session?.close();
  });

  it('draws the same pixels on every page, and closes the pages it replaced', async () => {
    // Two colours side by side, 6x4: the original must come back exactly, every time.
    const raw = Buffer.alloc(6 * 4 * 3);
    for (let i = 0; i < 24; i++) raw.set(i % 6 < 3 ? [200, 30, 40] : [20, 90, 250], i * 3);
    const bytes = await sharp(raw, { raw: { width: 6, height: 4, channels: 3 } }).png().toBuffer();
    const variant = { html: '<span class="v">x</span>', css: '.v{display:block;width:6px;height:4px;background:#14e}' };
    const pages = [];
    const drawn = [];
    for (let i = 0; i < 5; i++) {
      drawn.push(await session.render({ bytes, mime: 'image/png' }, 6, 4, [variant], [255, 255, 255]));
      pages.push(session.page);
    }
    // Renders 1-2 on the first page, 3-4 on the second, 5 on the third.
    expect(new Set(pages).size).toBe(3);
    expect(pages.map((p) => p.isClosed())).toEqual([true, true, true, true, false]);
    const expected = await sharp(bytes).ensureAlpha().raw().toBuffer();
    for (const { original, variants } of drawn) {
      expect(Buffer.from(original.data).equals(expected)).toBe(true);
      expect([...variants[0].data.subarray(0, 4)]).toEqual([0x11, 0x44, 0xee, 255]);
      expect(Buffer.from(variants[0].data).equals(Buffer.from(drawn[0].variants[0].data))).toBe(true);
    }
  });
});
