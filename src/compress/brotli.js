/**
 * Brotli at quality 11 with node's zlib, told the input's size (the size
 * hint lets the encoder tune itself to small inputs). The window is tried
 * twice, brotli's default (22 bits) and the smallest that holds the whole
 * input (what the `brotli` command picks): the window size is written in
 * the stream header and shifts the bit alignment, so either may be a byte
 * smaller. The smaller stream wins, the default on a tie.
 */
import zlib from 'node:zlib';

/** The smallest and largest LZ77 window brotli allows, in bits. */
const MIN_WINDOW_BITS = 10;
const MAX_WINDOW_BITS = 24;

/**
 * @param {Uint8Array} bytes
 * @returns {{ bytes: Buffer, detail: string }}
 */
export function brotli(bytes) {
  const { constants } = zlib;
  const encode = (/** @type {number} */ lgwin) => zlib.brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_LGWIN]: lgwin,
    },
  });
  const standard = encode(constants.BROTLI_DEFAULT_WINDOW);
  const fitted = windowBits(bytes.length);
  if (fitted === constants.BROTLI_DEFAULT_WINDOW) return { bytes: standard, detail: 'brotli quality 11' };
  const small = encode(fitted);
  return small.length < standard.length ? { bytes: small, detail: `brotli quality 11, ${fitted}-bit window` } : { bytes: standard, detail: 'brotli quality 11' };
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
