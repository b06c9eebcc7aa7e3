/**
 * What a document costs on the wire, measured for the html-case pass, since
 * what lower-case names buy is counted in compressed bytes: gzip at zlib's
 * level 9 (the 1997 study's deflate) always, about a millisecond for a
 * 42 KB page; brotli at quality 11 only when asked (`htmlCaseBrotli`),
 * since it takes 50 to 100 ms for the same page, twice per page, which
 * on a 10,000-page site was more CPU than every other markup pass together.
 * A lower quality is not a stand-in: on microscape, lower-case names save
 * 1.8% at quality 11 and 2.7% at quality 5.
 *
 * zopfli is not measured: on a 42 KB page it takes 330 to 440 ms, and it
 * moved with gzip -9 on every page measured (docs/markup.md). The .gz and
 * .br files the build writes are precompress's, and it reports their sizes.
 */
import zlib from 'node:zlib';

/** @typedef {{ gzip: number, brotli?: number }} CompressedSizes bytes */

/** The encodings measured, in the order they are reported. */
export const ENCODINGS = /** @type {const} */ (['gzip', 'brotli']);

/**
 * The gzip size of a document: quick enough to take where it is needed.
 * @param {Uint8Array} bytes
 */
export function gzipSize(bytes) {
  return zlib.gzipSync(bytes, { level: 9 }).length;
}

/**
 * Both sizes of one document (html-case's job, src/markup/html-case-job.js, takes them in the worker pool).
 * @param {Uint8Array} bytes
 * @returns {Required<CompressedSizes>}
 */
export function compressedSizes(bytes) {
  const brotli = zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length;
  return { gzip: gzipSize(bytes), brotli };
}
