/**
 * The worker-pool job of the html-case pass (src/build/jobs.js): one page's tag and
 * attribute names lowered, and its compressed sizes before and after. A pure
 * function of the page's bytes, charset and type: pages are lowered on every
 * core at once, and a second build takes each from the cache.
 */
import { DocumentView } from '../site/document-view.js';
import { nameRanges, recase, xmlReason } from './names.js';
import { compressedSizes, gzipSize } from './compressed-sizes.js';

/**
 * @typedef {import('./compressed-sizes.js').CompressedSizes} CompressedSizes
 *
 * @typedef {object} LowerPageOptions
 * @property {string} charset the page's charset (src/site/charset.js)
 * @property {number} bomLength bytes of its byte-order mark
 * @property {string} mime the type it is served as
 * @property {boolean} brotli whether brotli's size is measured too (gzip's always is)
 *
 * @typedef {{ outcome: 'xml', xml: string } | { outcome: 'kept' } | { outcome: 'lowered', lowered: Uint8Array, changed: number, sizes: [CompressedSizes, CompressedSizes] }} LowerPageResult
 */

/**
 * @param {{ bytes: Uint8Array, options: LowerPageOptions }} input
 * @returns {Promise<LowerPageResult>}
 */
export async function lowerPage({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const view = new DocumentView(bytes, options.charset, options.bomLength);
  const xml = xmlReason(view, options.mime);
  if (xml) return { outcome: 'xml', xml };
  const recased = recase(view, await nameRanges(view), 'lower');
  if (recased.changed === 0) return { outcome: 'kept' };
  /** @param {Uint8Array} page @returns {CompressedSizes} */
  const measure = (page) => (options.brotli ? compressedSizes(page) : { gzip: gzipSize(page) });
  return { outcome: 'lowered', lowered: recased.bytes, changed: recased.changed, sizes: [measure(bytes), measure(recased.bytes)] };
}
