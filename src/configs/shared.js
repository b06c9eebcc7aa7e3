/**
 * What every server config shares: which names are fingerprinted (their
 * content can never change, so they may be cached for a year), which are
 * pages (always revalidated), the cache headers, and the comment each file
 * starts with.
 */
import { VERSION } from '../summary.js';
import { COMPRESSIBLE_EXTENSIONS, SIDECAR_EXTENSIONS } from '../compress/encodings.js';

/** For fingerprinted names: a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** For pages: cached, but revalidated on every use (the ETag makes that a 304). */
export const REVALIDATE = 'no-cache';

/** Where a build writes the configs, inside its output (the configs refuse to serve it). */
export const CONFIGS_DIR = 'pagediet-configs';

/**
 * A fingerprinted name: a content hash of 8 or more hex digits as the last
 * part of the name before the extension, after a dot or a hyphen
 * (`app.3f2a9c1b.js`, `style-5d41402abc4b2a76.css`: webpack, Parcel, esbuild
 * with hex hashes). Base-64 hashes (`index-B2Xq7kZ9.js`) cannot be told from
 * words, so they are not matched. Written for PCRE (nginx, Apache) and RE2
 * (Caddy) alike.
 */
export const FINGERPRINT_PATTERN = '[.-][0-9a-fA-F]{8,}\\.[A-Za-z0-9]+$';
const FINGERPRINT = new RegExp(FINGERPRINT_PATTERN);

/** Page extensions (revalidated), as a regex alternation. */
export const PAGE_EXTENSIONS = ['html', 'htm', 'xhtml', 'shtml'];

/** Extensions that may have sidecars, sorted, for regex alternations. */
export const COMPRESSIBLE = [...COMPRESSIBLE_EXTENSIONS].sort();

/** @param {string} sitePath */
export function isFingerprinted(sitePath) {
  return FINGERPRINT.test(sitePath);
}

/** @param {string} sitePath */
export function isPage(sitePath) {
  const dot = sitePath.lastIndexOf('.');
  return dot > sitePath.lastIndexOf('/') && PAGE_EXTENSIONS.includes(sitePath.slice(dot + 1).toLowerCase());
}

/** @param {string} sitePath */
export function isSidecar(sitePath) {
  return Object.values(SIDECAR_EXTENSIONS).some((ext) => sitePath.endsWith(ext));
}

/**
 * What a config needs to know of a site: its files (site paths, `/`-separated, no leading slash).
 * @typedef {object} SiteFacts
 * @property {string[]} files every file, sorted
 * @property {boolean} zstd whether any .zst sidecar exists
 */

/**
 * @param {string[]} files
 * @returns {SiteFacts}
 */
export function siteFacts(files) {
  const sorted = [...files].sort();
  return { files: sorted, zstd: sorted.some((f) => f.endsWith(SIDECAR_EXTENSIONS.zstd)) };
}

/**
 * The comment each config starts with: pagediet's version, then what it expects.
 * @param {string} prefix the comment marker, e.g. '#'
 * @param {string[]} lines
 */
export function headerComment(prefix, lines) {
  return [`pagediet ${VERSION}: ${lines[0]}`, ...lines.slice(1)].map((l) => (l ? `${prefix} ${l}` : prefix)).join('\n');
}

/**
 * A site path as a URL path: `/` first, each segment percent-encoded (spaces, non-ASCII).
 * @param {string} sitePath
 */
export function urlPath(sitePath) {
  return `/${sitePath.split('/').map((s) => encodeURIComponent(s)).join('/')}`;
}
