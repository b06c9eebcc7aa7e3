/**
 * Compression on the fly, as an ordinary web server does it: a file with no
 * precompressed sidecar of its own, of a type worth compressing, is sent
 * gzip-encoded to a client that accepts gzip. The loader serves the report's
 * 'before' side this way (`compressOnTheFly`), so the input is measured as a
 * visitor of the original site would usually have got it, not as identity
 * bytes no server sends.
 *
 * The gzip of a file is made once per server and kept in memory, keyed by the
 * file's identity (real path, size, mtime, inode): repeated requests cost
 * nothing and get the same bytes.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);

/**
 * What the loader does on the fly, for a report to say so ("gzip level 6 on
 * the fly for text types"). Level 6 because it is what servers that compress
 * on the fly commonly run at: zlib's and Apache mod_deflate's default
 * (DeflateCompressionLevel), and what the usual nginx configs set
 * (gzip_comp_level 5 or 6; nginx's own default of 1 is seldom kept).
 */
export const ON_THE_FLY = Object.freeze({ encoding: /** @type {const} */ ('gzip'), level: 6 });

/**
 * @typedef {'gzip' | { gzip: number }} CompressOnTheFly gzip each compressible file that has no sidecars, `'gzip'` at ON_THE_FLY.level (6) or `{ gzip: level }` at a zlib level from 1 to 9
 */

/**
 * The media types an ordinary server compresses on the fly (those of the
 * common server configs, h5bp's among them): text, JSON and XML, SVG,
 * icons and BMP, uncompressed fonts (TrueType, OpenType, EOT) and
 * WebAssembly. Never PNG, GIF, JPEG, WebP, AVIF, WOFF, WOFF2, PDF, ZIP,
 * audio or video, which are compressed already. One list: the handler
 * decides by it, and a report can quote it.
 */
export const COMPRESSIBLE_TYPES = Object.freeze([
  'text/html', 'text/css', 'text/javascript', 'application/javascript', 'application/x-javascript', 'application/ecmascript',
  'text/plain', 'text/csv', 'text/markdown', 'text/xml', 'text/vtt', 'text/calendar', 'text/cache-manifest',
  'application/json', 'application/ld+json', 'application/geo+json', 'application/manifest+json', 'application/x-web-app-manifest+json',
  'application/xml', 'application/xhtml+xml', 'application/rss+xml', 'application/atom+xml', 'application/rdf+xml',
  'image/svg+xml', 'image/x-icon', 'image/vnd.microsoft.icon', 'image/bmp',
  'font/ttf', 'font/otf', 'font/eot', 'font/sfnt', 'application/font-sfnt', 'application/x-font-ttf', 'application/x-font-opentype',
  'application/vnd.ms-fontobject', 'application/wasm',
]);

const COMPRESSIBLE = new Set(COMPRESSIBLE_TYPES);

/**
 * Whether a server compresses responses of this media type on the fly.
 * Parameters (`; charset=utf-8`) and case do not matter.
 * @param {string} type a Content-Type value
 */
export function isCompressibleType(type) {
  return COMPRESSIBLE.has(type.split(';')[0].trim().toLowerCase());
}

/**
 * The gzip level an option asks for, or undefined when it is off.
 * @param {CompressOnTheFly | undefined} option
 * @returns {number | undefined}
 */
export function onTheFlyLevel(option) {
  if (option === undefined) return undefined;
  if (option === 'gzip') return ON_THE_FLY.level;
  const level = typeof option === 'object' && option !== null ? option.gzip : undefined;
  if (!Number.isInteger(level) || /** @type {number} */ (level) < 1 || /** @type {number} */ (level) > 9) {
    throw new RangeError(`compressOnTheFly must be 'gzip' or { gzip: level } with a level from 1 to 9, not ${JSON.stringify(option)}`);
  }
  return /** @type {number} */ (level);
}

/** Past this many bytes of gzip kept, the oldest go (they are made again if asked for). */
const MAX_BYTES = 64 * 1024 * 1024;

/** One server's gzipped files, made once each. */
export class GzipCache {
  /** @type {Map<string, { key: string, gzipped: Promise<Buffer>, size: number }>} */
  #cache = new Map();
  #bytes = 0;

  /** @param {number} level */
  constructor(level) {
    this.level = level;
  }

  /**
   * The gzip of a file's bytes, made on the first call for this version of the file.
   * @param {string} real the file's real path
   * @param {import('node:fs').Stats} stats of the bytes that `read` gives
   * @param {() => Promise<Buffer>} read the file's bytes, called only when they are not gzipped yet
   * @returns {Promise<Buffer>}
   */
  get(real, stats, read) {
    const key = `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
    const hit = this.#cache.get(real);
    if (hit?.key === key) {
      // Re-inserted at the end: the map's order is the time of last use.
      this.#cache.delete(real);
      this.#cache.set(real, hit);
      return hit.gzipped;
    }
    this.#forget(real);
    const record = { key, size: 0, gzipped: read().then((bytes) => gzip(bytes, { level: this.level })) };
    this.#cache.set(real, record);
    record.gzipped.then(
      (bytes) => {
        if (this.#cache.get(real) !== record) return;
        record.size = bytes.length;
        this.#bytes += bytes.length;
        // The least recently used go first, never the one just made.
        for (const [name, old] of this.#cache) {
          if (this.#bytes <= MAX_BYTES || old === record) break;
          this.#forget(name);
        }
      },
      () => {
        if (this.#cache.get(real) === record) this.#forget(real);
      },
    );
    return record.gzipped;
  }

  /** @param {string} real */
  #forget(real) {
    const old = this.#cache.get(real);
    if (!old) return;
    this.#bytes -= old.size;
    this.#cache.delete(real);
  }
}
