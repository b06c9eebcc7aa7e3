/**
 * Deflate for PNG image data: zopfli when asked (slow, a few percent
 * smaller), with zlib's best as the floor, so the result is never larger
 * than zlib's.
 */
import zlib from 'node:zlib';
import { zlibAsync } from '@gfx/zopfli';

/**
 * @param {Buffer} raw filtered scanlines
 * @param {number} iterations zopfli iterations; 0: zlib only
 * @returns {Promise<Buffer>} a zlib stream
 */
export async function deflatePng(raw, iterations) {
  const fast = zlib.deflateSync(raw, { level: 9, memLevel: 9 });
  if (iterations <= 0) return fast;
  const slow = Buffer.from(await zlibAsync(raw, { numiterations: iterations, blocksplitting: true }));
  return slow.length < fast.length ? slow : fast;
}
