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
  const slow = await zopfliDeflate(raw, iterations);
  return slow.length < fast.length ? slow : fast;
}

/**
 * A zlib stream made by zopfli (wasm), as a Buffer.
 * @param {Uint8Array} bytes
 * @param {number} iterations
 * @returns {Promise<Buffer>}
 */
export async function zopfliDeflate(bytes, iterations) {
  const out = await zlibAsync(bytes, { numiterations: iterations, blocksplitting: true });
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
