// The text-images estimate draws its candidate texts many lines per call
// (src/text-images/estimate.js, renderTexts): each line must be the very
// pixels of that text drawn alone, or the estimates would change with the
// batching.
import { describe, expect, it } from 'vitest';
import { TEXT_FACES, drawAlone, renderTexts } from '../src/text-images/estimate.js';

/**
 * A coverage cut to its ink (any value above 0), as rows of bytes.
 * @param {{ width: number, height: number, data: Float32Array }} c
 */
function ink(c) {
  let left = c.width, top = c.height, right = -1, bottom = -1;
  for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
    if (c.data[y * c.width + x] === 0) continue;
    left = Math.min(left, x); right = Math.max(right, x); top = Math.min(top, y); bottom = Math.max(bottom, y);
  }
  const rows = [];
  for (let y = top; y <= bottom; y++) rows.push(Array.from(c.data.subarray(y * c.width + left, y * c.width + right + 1), (v) => Math.round(v * 255)).join(','));
  return { rows };
}

describe('text drawn many lines per call', () => {
  it('gives each text the pixels it has drawn alone, in every face, at small and large sizes, with letter spacing', async () => {
    // Accents and dots above the letters (more than one row of ink per line), descenders, a symbol, one letter.
    const texts = ['Products', 'gjpqy', 'Ágil ÿ', '\u25cf', 'i'];
    const requests = texts.flatMap((text) => TEXT_FACES.flatMap((face) => [9, 14, 40].map((size) => ({ text, face, size, letterSpacing: size === 14 ? 0.75 : 0 }))));
    const batched = await renderTexts(requests);
    expect(batched).toHaveLength(requests.length);
    for (const [i, request] of requests.entries()) {
      const alone = ink(await drawAlone(request));
      const line = ink(batched[i]);
      const label = `${request.text} ${request.face.name} ${request.face.weight} ${request.face.style} ${request.size}px`;
      // The same ink, pixel for pixel; where it starts in the picture does not matter, since the estimate
      // aligns every drawing by its ink box.
      expect(line.rows, label).toEqual(alone.rows);
    }
  }, 120_000);
});
