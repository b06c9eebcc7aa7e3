/**
 * What a document costs on the wire with the two compressions a server would
 * use for it: gzip at zlib's level 9 (the study's deflate) and brotli at
 * quality 11. The html-case pass reports them before and after, because what
 * lower-case names buy is measured in compressed bytes.
 *
 * zopfli is not measured: on a 42 KB page it takes 330 to 440 ms against
 * brotli's 45 to 55 ms, and it moved with gzip -9 on every page measured
 * (docs/markup.md). The .gz files the build writes are precompress's, and it
 * reports their sizes.
 */
import zlib from 'node:zlib';

/** @typedef {{ gzip: number, brotli: number }} CompressedSizes bytes */

/** The encodings measured, in the order they are reported. */
export const ENCODINGS = /** @type {const} */ (['gzip', 'brotli']);

/**
 * The worker-pool job (src/jobs.js): the sizes of one document, cached by its bytes.
 * @param {{ bytes: Uint8Array }} input
 * @returns {Promise<CompressedSizes>}
 */
export async function measureCompressed({ bytes }) {
  const gzip = zlib.gzipSync(bytes, { level: 9 }).length;
  const brotli = zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length;
  return { gzip, brotli };
}

