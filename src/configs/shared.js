/**
 * What every server config shares: which names are fingerprinted (their
 * content can never change, so they may be cached for a year), which are
 * pages (always revalidated), the cache headers, the charset of text types,
 * and the comment each file starts with.
 */
import { VERSION } from '../build/summary.js';
import { COMPRESSIBLE_EXTENSIONS, SIDECAR_EXTENSIONS } from '../compress/encodings.js';

/** For fingerprinted names: a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** For pages: cached, but revalidated on every use (the ETag makes that a 304). */
export const REVALIDATE = 'no-cache';
/**
 * For every other file (no fingerprint: its content may change under the same
 * name): an hour, then revalidated. H5BP's far-future defaults assume
 * filename-based cache busting and advise far less without it; an hour bounds
 * how long a changed style sheet or image can lag behind its page.
 */
export const SHORT = 'public, max-age=3600, must-revalidate';

/**
 * Where older builds wrote the configs: inside their output, so deployed
 * with the site. Builds now write them beside the output; the
 * configs and `pagediet serve` still refuse to serve this folder, for sites
 * deployed from such an older build.
 */
export const CONFIGS_DIR = 'pagediet-configs';

/** base64url, the alphabet of Rollup's, Rolldown's (Vite) and esbuild's hashes. */
const B64 = '[A-Za-z0-9_-]';
const HEX = '[0-9a-fA-F]';

/**
 * The fingerprint rules, as regular expressions that must all match the end
 * of a name (an alternative) or of which one alternative must match. Each
 * ends with `EXT` (the last extension) and looks only at the hash before it:
 * the hash's length is fixed, so each bounded repeat stays inside it.
 *
 * - hex, after `.` or `-`: 8 to 64 hex digits with at least one digit and
 *   one letter a-f (webpack's `[name].[contenthash].js`, 20 hex digits, or 8
 *   with `:8`; Parcel's `name.1a2b3c4d.js`; gulp-rev, Hugo). All digits is a
 *   date (`photo-20240315.jpg`), all letters a word (`-deadbeef`).
 * - base64url, after `-`: exactly 8 characters of A-Z a-z 0-9 _ -
 *   (Vite/Rollup/Rolldown's `name-[hash].js`, `index-CWg6gKPv.js`;
 *   esbuild's `name-[hash].js`, 8 of A-Z 2-7). Words have that shape too
 *   (`-overview.js`, `-Products.js`, `-MyButton.js`), so the hash must mix:
 *   a digit and an upper-case letter, or a lower-case letter with two
 *   upper-case letters in a row or two lower-to-upper changes. About 4% of
 *   Rolldown's hashes and 19% of esbuild's (all letters) do not, and are not
 *   recognised: they get the short policy, never a wrong year.
 *
 * Written for PCRE (nginx, Apache), RE2 (Caddy) and JavaScript alike; the
 * alternatives are combined with lookaheads for PCRE and JavaScript, and
 * with `&&` and `||` in a CEL expression for Caddy (RE2 has no lookahead).
 * @param {string} end what follows the extension: `$`, or a sidecar suffix and `$`
 * @returns {string[][]}
 */
export function fingerprintRules(end = '$') {
  const ext = `\\.[A-Za-z0-9]+${end}`;
  const hexHash = `[.-]${HEX}{8,64}${ext}`;
  const b64Hash = `-${B64}{8}${ext}`;
  /** Somewhere in the base64url hash (8 characters): `part` followed by at most 8 - `width` more. */
  const inB64 = (/** @type {string} */ part, /** @type {number} */ width) => `${part}${B64}{0,${8 - width}}${ext}`;
  /** Two lower-to-upper changes within the hash: the gap between them and what follows add up to at most 4. */
  const twoChanges = `[a-z][A-Z](?:${[0, 1, 2, 3, 4].map((gap) => `${B64}{${gap}}[a-z][A-Z]${B64}{0,${4 - gap}}`).join('|')})${ext}`;
  return [
    [hexHash, `[0-9]${HEX}*${ext}`, `[a-fA-F]${HEX}*${ext}`],
    [b64Hash, inB64('[0-9]', 1), inB64('[A-Z]', 1)],
    [b64Hash, inB64('[a-z]', 1), inB64('[A-Z]{2}', 2)],
    [b64Hash, inB64('[a-z]', 1), twoChanges],
  ];
}

/**
 * The fingerprint rules as one regular expression (lookaheads: PCRE for
 * nginx and Apache, and JavaScript).
 * @param {string} [end] as for fingerprintRules
 */
export function fingerprintPattern(end = '$') {
  return `^(?:${fingerprintRules(end).map((all) => all.map((re) => `(?=.*${re})`).join('')).join('|')})`;
}

/** The one test of a fingerprinted name, for every config. */
export const FINGERPRINT_PATTERN = fingerprintPattern();
const FINGERPRINT = new RegExp(FINGERPRINT_PATTERN);

/** Page extensions (revalidated, never taken for fingerprinted). */
export const PAGE_EXTENSIONS = ['html', 'htm', 'xhtml', 'shtml'];

/** Extensions that may have sidecars, sorted, for regex alternations. */
export const COMPRESSIBLE = [...COMPRESSIBLE_EXTENSIONS].sort();

/**
 * Text types that get `charset=utf-8` when every page of the site is UTF-8,
 * by extension, with the Content-Type each server gives them.
 */
export const TEXT_TYPES = /** @type {const} */ ({
  html: 'text/html', htm: 'text/html', css: 'text/css', js: 'text/javascript', mjs: 'text/javascript',
  svg: 'image/svg+xml', json: 'application/json', txt: 'text/plain', xml: 'text/xml',
});

/**
 * Whether a name carries a content hash (see fingerprintRules): only the
 * name, not the policy (a page is never cached for a year; cachePolicy).
 * @param {string} sitePath
 */
export function isFingerprinted(sitePath) {
  return FINGERPRINT.test(sitePath);
}

/** @param {string} sitePath */
export function isPage(sitePath) {
  const dot = sitePath.lastIndexOf('.');
  return dot > sitePath.lastIndexOf('/') && PAGE_EXTENSIONS.includes(sitePath.slice(dot + 1).toLowerCase());
}

/**
 * The Cache-Control a file gets: pages revalidate, fingerprinted names are
 * immutable, the rest gets the short policy.
 * @param {string} sitePath
 * @returns {'revalidate' | 'immutable' | 'short'}
 */
export function cachePolicy(sitePath) {
  if (isPage(sitePath)) return 'revalidate';
  return isFingerprinted(sitePath) ? 'immutable' : 'short';
}

/** The header value of each policy. */
export const CACHE_CONTROL = /** @type {const} */ ({ revalidate: REVALIDATE, immutable: IMMUTABLE, short: SHORT });

/** @param {string} sitePath */
export function isSidecar(sitePath) {
  return Object.values(SIDECAR_EXTENSIONS).some((ext) => sitePath.endsWith(ext));
}

/**
 * What a config needs to know of a site: its files (site paths, `/`-separated, no leading slash).
 * @typedef {object} SiteFacts
 * @property {string[]} files every file, sorted
 * @property {boolean} zstd whether any .zst sidecar exists
 * @property {'utf-8' | null} charset the charset text types are sent with: utf-8 when every page is UTF-8 (or
 *   ASCII, the same bytes), else none
 * @property {string[]} otherCharsets the charsets of the pages that are not UTF-8 or ASCII, sorted
 * @property {Map<string, string[]>} preloads the `Link` header values of each page's image and font preloads (page-preloads.js)
 */

/**
 * @param {string[]} files
 * @param {string[]} [pageCharsets] the charset of each page, 'utf-8' for an ASCII one (pageCharset()); none: UTF-8
 * @param {Map<string, string[]>} [preloads] the `Link` header values of pages' image and font preloads
 * @returns {SiteFacts}
 */
export function siteFacts(files, pageCharsets = [], preloads = new Map()) {
  const sorted = [...files].sort();
  const otherCharsets = [...new Set(pageCharsets.filter((c) => c !== 'utf-8'))].sort();
  return { files: sorted, zstd: sorted.some((f) => f.endsWith(SIDECAR_EXTENSIONS.zstd)), charset: otherCharsets.length ? null : 'utf-8', otherCharsets, preloads };
}

/**
 * The header comment's lines on the charset.
 * @param {SiteFacts} facts
 * @returns {string[]}
 */
export function charsetComment(facts) {
  if (facts.charset) return [`Text types (${[...new Set(Object.keys(TEXT_TYPES))].join(', ')}) are sent with charset=utf-8: every page of the site is UTF-8.`];
  return [
    `No charset is added to any type: pages of the site are ${facts.otherCharsets.join(', ')}, and a charset in`,
    'Content-Type overrides the one a page declares. Each page\'s own <meta charset> decides.',
  ];
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
