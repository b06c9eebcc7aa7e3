/**
 * Zstandard, when node's zlib has it (node 22.15 and newer; node 20 does
 * not). No zstd package from the npm registry is a dependency: the ones that
 * exist are native add-ons or large WebAssembly builds, and node's own
 * encoder is coming to every supported release.
 */
import zlib from 'node:zlib';

/** The strongest ordinary level (20-22 need much more memory to decode). */
export const ZSTD_LEVEL = 19;

/**
 * @typedef {(bytes: Uint8Array, options?: object) => Buffer} SyncCodec
 */

/** Node's zstd functions, or null where this node has none. */
function codecs() {
  const z = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (zlib));
  if (typeof z.zstdCompressSync !== 'function' || typeof z.zstdDecompressSync !== 'function') return null;
  return { compress: /** @type {SyncCodec} */ (z.zstdCompressSync), decompress: /** @type {SyncCodec} */ (z.zstdDecompressSync) };
}

/** Whether this node can write .zst files. */
export function zstdAvailable() {
  return codecs() !== null;
}

/** Why --zstd does nothing here, in one line. */
export function zstdUnavailableReason() {
  return `node ${process.versions.node} has no zstd encoder (zlib.zstdCompressSync came in node 22.15): no .zst files written`;
}

/**
 * @param {Uint8Array} bytes
 * @returns {{ bytes: Buffer, detail: string }}
 */
export function zstd(bytes) {
  const c = codecs();
  if (!c) throw new Error(zstdUnavailableReason());
  const constants = /** @type {Record<string, number>} */ (/** @type {unknown} */ (zlib.constants));
  return { bytes: c.compress(bytes, { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL, [constants.ZSTD_c_checksumFlag]: 1 } }), detail: `zstd level ${ZSTD_LEVEL}` };
}

/** @param {Uint8Array} bytes */
export function unzstd(bytes) {
  const c = codecs();
  if (!c) throw new Error(zstdUnavailableReason());
  return c.decompress(bytes);
}
