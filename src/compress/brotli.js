/**
 * Brotli at quality 11 (or one asked for) with node's zlib, told the input's
 * size (the size hint lets the encoder tune itself to small inputs), with the
 * smallest window that holds the whole input, as the `brotli` command picks it.
 * Brotli's default 22-bit window is sometimes a byte smaller (the window
 * size shifts the stream's bit alignment): 22 B over the fixtures' 51 text
 * files, not worth encoding every file twice.
 */
import zlib from 'node:zlib';

/** The smallest and largest LZ77 window brotli allows, in bits. */
const MIN_WINDOW_BITS = 10;
const MAX_WINDOW_BITS = 24;

/**
 * @param {Uint8Array} bytes
 * @param {number} [quality] 0 to 11
 * @returns {{ bytes: Buffer, detail: string }}
 */
export function brotli(bytes, quality = zlib.constants.BROTLI_MAX_QUALITY) {
  const { constants } = zlib;
  const encode = (/** @type {number} */ lgwin) => zlib.brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_LGWIN]: lgwin,
    },
  });
  const fitted = Math.min(windowBits(bytes.length), constants.BROTLI_DEFAULT_WINDOW);
  return { bytes: encode(fitted), detail: fitted === constants.BROTLI_DEFAULT_WINDOW ? `brotli quality ${quality}` : `brotli quality ${quality}, ${fitted}-bit window` };
}

/**
 * The smallest window (2^bits - 16 bytes of history) that covers the input.
 * @param {number} size
 */
export function windowBits(size) {
  let bits = MIN_WINDOW_BITS;
  while (bits < MAX_WINDOW_BITS && (1 << bits) - 16 < size) bits++;
  return bits;
}
