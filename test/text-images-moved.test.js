import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderSession } from '../src/text-images/render.js';
import { openRenderSession } from './helpers/chromium.js';
import { cssRule } from '../src/text-images/markup.js';
import { pictureSimilarity } from '../src/text-images/pixels.js';
import { movedSimilarity } from '../src/text-images/verify.js';

const WHITE = /** @type {import('../src/text-images/pixels.js').Rgb} */ ([255, 255, 255]);

/**
 * An RGBA picture of a width and height from a list of [x, y, grey] ink pixels on white.
 * @param {number} width @param {number} height @param {[number, number, number][]} ink
 */
function picture(width, height, ink) {
  const data = new Uint8Array(width * height * 4).fill(255);
  for (const [x, y, grey] of ink) data.set([grey, grey, grey, 255], (y * width + x) * 4);
  return data;
}

/**
 * A picture moved by (ox, oy), the uncovered pixels its own.
 * @param {Uint8Array} data @param {number} width @param {number} height @param {number} ox @param {number} oy
 */
function moved(data, width, height, ox, oy) {
  const out = new Uint8Array(data);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = x - ox;
      const sy = y - oy;
      if (sx >= 0 && sy >= 0 && sx < width && sy < height) out.set(data.subarray((sy * width + sx) * 4, (sy * width + sx) * 4 + 4), (y * width + x) * 4);
    }
  }
  return out;
}

describe('movedSimilarity', () => {
  it('scores a drawing moved by whole pixels as pictureSimilarity scores the moved picture', () => {
    const image = picture(4, 3, [[2, 2, 0], [3, 2, 100]]);
    const drawn = picture(4, 3, [[1, 1, 0], [2, 1, 100]]);
    expect(movedSimilarity(image, drawn, 4, 3, 1, 1, WHITE)).toBe(1);
    expect(movedSimilarity(image, drawn, 4, 3, 0, 0, WHITE)).toBe(pictureSimilarity(image, drawn, 4, WHITE));
    // Moved by (2, 1): the image's black pixel meets white (255), its grey one the drawing's black (100), and the
    // drawing's black is also left where the move uncovers the left columns, over the image's white (255).
    expect(movedSimilarity(image, drawn, 4, 3, 2, 1, WHITE)).toBeCloseTo(1 - (255 + 100 + 255) / (255 + (155 + 255) + 255), 12);
    for (const [ox, oy] of [[-1, -1], [1, 0], [0, 1], [-1, 1]]) {
      expect(movedSimilarity(image, drawn, 4, 3, ox, oy, WHITE)).toBe(pictureSimilarity(image, moved(drawn, 4, 3, ox, oy), 4, WHITE));
    }
  });

  it('is 1 for two blank pictures, and never below 0', () => {
    expect(movedSimilarity(picture(2, 2, []), picture(2, 2, []), 2, 2, 1, 0, WHITE)).toBe(1);
    expect(movedSimilarity(picture(2, 1, [[0, 0, 0]]), picture(2, 1, [[1, 0, 0]]), 2, 1, 0, 0, WHITE)).toBe(0);
  });
});

describe('a placement a pixel away draws the same glyphs moved (what the fit ranks placements by)', () => {
  /** @type {RenderSession} */
  let session;
  beforeAll(async () => {
    session = await openRenderSession();
  });
  afterAll(async () => {
    await session?.close();
  });

  const WIDTH = 160;
  const HEIGHT = 26;
  const OFFSETS = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1], [1, -1], [-1, 1]];

  it('in every face, size, weight and letter spacing tried, text-indent and line-height move the ink by whole pixels', async () => {
    const blank = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: '#ffffff' } }).png().toBuffer();
    let compared = 0;
    for (const font of ['DejaVu Sans', 'DejaVu Serif', 'Liberation Sans', 'Liberation Serif', 'Liberation Mono']) {
      for (const [size, spacing] of [[11, 0], [13, 0.33], [15, -0.25]]) {
        for (const weight of ['normal', 'bold']) {
          /** @param {number} ox @param {number} oy */
          const declarations = (ox, oy) => /** @type {[string, string][]} */ ([['font', `${weight} ${size}px "${font}"`], ['text-indent', `${4 + ox}px`], ['line-height', `${size + 4 + 2 * oy}px`], ['letter-spacing', `${spacing}px`], ['white-space', 'nowrap'], ['color', '#123']]);
          const variants = [[0, 0], ...OFFSETS].map(([ox, oy], i) => ({ html: `<span class="m${i}">Products &amp; news</span>`, css: cssRule(`m${i}`, declarations(ox, oy)) }));
          const drawn = await session.render({ bytes: blank, mime: 'image/png' }, WIDTH, HEIGHT, variants, WHITE);
          const base = drawn.variants[0].data;
          OFFSETS.forEach(([ox, oy], i) => {
            expect(Buffer.from(drawn.variants[i + 1].data).equals(Buffer.from(moved(base, WIDTH, HEIGHT, ox, oy))), `${font} ${weight} ${size}px, spacing ${spacing}, moved ${ox},${oy}`).toBe(true);
            compared++;
          });
        }
      }
    }
    expect(compared).toBe(5 * 3 * 2 * 8);
  });

  it('keeps a larger viewport for smaller renders, with the pixels a fresh page draws', async () => {
    const blank = await sharp({ create: { width: 30, height: 12, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const text = [{ html: '<span class="t">ab</span>', css: '.t{font:12px "DejaVu Sans";color:#000;line-height:12px}' }];
    const tall = Array.from({ length: 80 }, () => text[0]);
    await session.render({ bytes: blank, mime: 'image/png' }, 30, 12, tall, WHITE);
    const grown = session.page.viewportSize();
    // 81 slots of 12 + 8 px: 51 fill the first column (up to COLUMN_HEIGHT), past the 720 px of a fresh page.
    expect(grown?.height).toBe(51 * 20);
    const small = await session.render({ bytes: blank, mime: 'image/png' }, 30, 12, text, WHITE);
    expect(session.page.viewportSize()).toEqual(grown);
    const fresh = await openRenderSession();
    try {
      const again = await fresh.render({ bytes: blank, mime: 'image/png' }, 30, 12, text, WHITE);
      expect(Buffer.from(small.variants[0].data).equals(Buffer.from(again.variants[0].data))).toBe(true);
      expect(fresh.page.viewportSize()).toEqual({ width: 1280, height: 720 });
    } finally {
      await fresh.close();
    }
  });
});
