/**
 * Deflate for PNG image data. libdeflate (WebAssembly) at its strongest
 * level is the default: within a percent of zopfli at a few percent of its
 * time. zopfli, when asked, may shave a little more; the smaller stream wins.
 */
import { zlib as libdeflateZlib } from 'libdeflate';

/** libdeflate's strongest level: near-optimal parsing. */
export const BEST_LEVEL = 12;

/**
 * A zlib stream made by libdeflate, as a Buffer.
 * @param {Uint8Array} bytes
 * @param {number} [level] 1 (fast) to 12 (smallest)
 * @returns {Buffer}
 */
export function libdeflate(bytes, level = BEST_LEVEL) {
  const out = libdeflateZlib(bytes, level);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * @param {Buffer} raw filtered scanlines
 * @param {number} iterations zopfli iterations; 0: libdeflate only
 * @returns {Promise<Buffer>} a zlib stream
 */
export async function deflatePng(raw, iterations) {
  const best = libdeflate(raw);
  if (iterations <= 0) return best;
  const slow = await zopfliDeflate(raw, iterations);
  return slow.length < best.length ? slow : best;
}

/**
 * A zlib stream made by zopfli (wasm), as a Buffer.
 * @param {Uint8Array} bytes
 * @param {number} iterations
 * @returns {Promise<Buffer>}
 */
export async function zopfliDeflate(bytes, iterations) {
  // Loaded when first asked for: zopfli's WebAssembly module takes 16 MB as it
  // loads, which every thread that imports this file (the main one too) would keep.
  const { zlibAsync } = await import('@gfx/zopfli');
  const out = await zlibAsync(bytes, { numiterations: iterations, blocksplitting: true });
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
