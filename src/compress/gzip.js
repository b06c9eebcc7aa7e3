/**
 * gzip members with a fixed header: no name, no timestamp (MTIME 0), OS 3
 * (Unix), so the same input gives the same bytes on every machine. The
 * deflate stream comes from libdeflate at its strongest level (12: a few
 * percent smaller than gzip -9, in a few milliseconds per page), from
 * zopfli (about 1% smaller still, tens of times slower; libdeflate's
 * stream is tried as well and the smaller wins, so the result is never
 * larger than zopfli's own) or from node's zlib at level 9.
 */
import zlib from 'node:zlib';

/** zopfli's own default, and what the `zopfli` command does without --i. */
export const DEFAULT_GZIP_ITERATIONS = 15;

/** @typedef {'libdeflate' | 'zopfli' | 'zlib'} GzipMethod */

/** The strongest of libdeflate's levels. */
const LIBDEFLATE_LEVEL = 12;

/**
 * @param {Uint8Array} bytes
 * @param {{ method: GzipMethod, iterations: number }} options
 * @returns {Promise<{ bytes: Buffer, detail: string }>}
 */
export async function gzip(bytes, options) {
  if (options.method === 'zlib') {
    const raw = zlib.deflateRawSync(bytes, { level: 9, memLevel: 9 });
    return { bytes: gzipMember(raw, bytes), detail: 'zlib level 9' };
  }
  // Loaded when first needed, in the worker that compresses (see images/deflate.js).
  const { deflate: libdeflateRaw } = await import('libdeflate');
  const libdeflate = Buffer.from(libdeflateRaw(bytes, LIBDEFLATE_LEVEL));
  if (options.method === 'libdeflate') return { bytes: gzipMember(libdeflate, bytes), detail: `libdeflate level ${LIBDEFLATE_LEVEL}` };
  const { deflateAsync } = await import('@gfx/zopfli');
  const zopfli = Buffer.from(await deflateAsync(bytes, { numiterations: Math.max(1, options.iterations), blocksplitting: true }));
  const best = libdeflate.length < zopfli.length ? { raw: libdeflate, detail: `libdeflate level ${LIBDEFLATE_LEVEL}` } : { raw: zopfli, detail: `zopfli, ${options.iterations} iterations` };
  return { bytes: gzipMember(best.raw, bytes), detail: best.detail };
}

/** ID1 ID2, CM deflate, FLG 0, MTIME 0, XFL 2 (slowest, smallest), OS 3 (Unix): what the zopfli command writes. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);

/**
 * Wraps a raw deflate stream in a gzip member (RFC 1952).
 * @param {Buffer} raw
 * @param {Uint8Array} original
 */
export function gzipMember(raw, original) {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(original) >>> 0, 0);
  trailer.writeUInt32LE(original.length >>> 0, 4);
  return Buffer.concat([HEADER, raw, trailer]);
}
