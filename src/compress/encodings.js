/**
 * The content codings pagediet precompresses into, each with its sidecar
 * extension, encoder and decoder (every sidecar is decoded again and
 * compared with its source before it is written).
 */
import zlib from 'node:zlib';
import { DEFAULT_GZIP_ITERATIONS, gzip } from './gzip.js';
import { brotli } from './brotli.js';
import { unzstd, zstd } from './zstd.js';
import { extensionOf } from '../site/mime.js';

/**
 * @typedef {'br' | 'gzip' | 'zstd'} Encoding the HTTP content-coding name
 *
 * @typedef {object} EncodeOptions
 * @property {import('./gzip.js').GzipMethod} gzip
 * @property {number} iterations zopfli iterations
 * @property {number} quality brotli's quality (default 11)
 */

/** Sidecar extension of each coding. */
export const SIDECAR_EXTENSIONS = /** @type {const} */ ({ br: '.br', gzip: '.gz', zstd: '.zst' });

/** In the order servers prefer them when a client accepts several. */
export const ENCODINGS = /** @type {Encoding[]} */ (['br', 'zstd', 'gzip']);

/**
 * @param {Encoding} encoding
 * @param {Uint8Array} bytes
 * @param {Partial<EncodeOptions>} options gzip's settings (default libdeflate; zopfli at 15 iterations when asked), brotli's quality (default 11)
 * @returns {Promise<{ bytes: Buffer, detail: string }>}
 */
export async function encode(encoding, bytes, options) {
  if (encoding === 'gzip') return gzip(bytes, { method: options.gzip ?? 'libdeflate', iterations: options.iterations ?? DEFAULT_GZIP_ITERATIONS });
  if (encoding === 'br') return brotli(bytes, options.quality);
  return zstd(bytes);
}

/**
 * @param {Encoding} encoding
 * @param {Uint8Array} bytes
 * @returns {Buffer}
 */
export function decode(encoding, bytes) {
  if (encoding === 'gzip') return zlib.gunzipSync(bytes);
  if (encoding === 'br') return zlib.brotliDecompressSync(bytes);
  return unzstd(bytes);
}

/** Extensions of files worth compressing: text, SVG, icons, uncompressed fonts. Never PNG, GIF, JPEG, WebP, WOFF, ZIP and the like, which are compressed already. */
export const COMPRESSIBLE_EXTENSIONS = new Set([
  'html', 'htm', 'shtml', 'xhtml', 'css', 'js', 'mjs', 'json', 'map', 'webmanifest', 'xml', 'rss', 'atom',
  'txt', 'csv', 'md', 'svg', 'ico', 'bmp', 'ttf', 'otf', 'eot',
]);

/**
 * Whether a file's name says it is worth compressing.
 * @param {string} sitePath
 */
export function isCompressible(sitePath) {
  return COMPRESSIBLE_EXTENSIONS.has(extensionOf(sitePath));
}
