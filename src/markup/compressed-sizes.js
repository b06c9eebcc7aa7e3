/**
 * What a document costs on the wire with each compression a server would use
 * for it: gzip at zlib's level 9, gzip made by zopfli (precompressed files),
 * and brotli at quality 11. The html-case pass reports them before and after,
 * because what lower-case names buy is measured in compressed bytes.
 */
import zlib from 'node:zlib';
// zopfli's default (what its own command line does), as the precompressed .gz files use.
import { DEFAULT_GZIP_ITERATIONS as ZOPFLI_ITERATIONS } from '../compress/gzip.js';

/** @typedef {{ gzip: number, zopfli: number, brotli: number }} CompressedSizes bytes */

/** The encodings measured, in the order they are reported. */
export const ENCODINGS = /** @type {const} */ (['gzip', 'zopfli', 'brotli']);

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
  // Loaded here, in the worker, not in the main thread that imports ENCODINGS (see images/deflate.js).
  const { gzipAsync } = await import('@gfx/zopfli');
  const zopfli = (await gzipAsync(bytes, { numiterations: ZOPFLI_ITERATIONS })).length;
  return { gzip, zopfli, brotli };
}

