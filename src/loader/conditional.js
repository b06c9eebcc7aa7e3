/**
 * Conditional and partial requests (RFC 9110 §13 and §14): whether a cached
 * copy is still good (304), and which bytes a Range asks for (206/416).
 */

/** @typedef {import('node:http').IncomingHttpHeaders} Headers */

/**
 * Whether the client's copy is current: If-None-Match when present (weak
 * comparison, `*` matches), otherwise If-Modified-Since.
 * @param {Headers} headers
 * @param {string} etag the representation's entity tag, quoted
 * @param {Date} modified its modification time
 * @param {number} [now]
 */
export function isNotModified(headers, etag, modified, now = Date.now()) {
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) return noneMatch.trim() === '*' || entityTags(noneMatch).includes(opaque(etag));
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const date = Date.parse(since);
  // A date in the future is invalid (§13.1.3): the client's clock is not ours.
  if (Number.isNaN(date) || date > now) return false;
  return seconds(modified) <= date;
}

/**
 * The byte range to send: null for the whole representation (no Range, a
 * malformed one, several ranges, or an If-Range that no longer matches),
 * 'unsatisfiable' for 416, or the inclusive range.
 * @param {Headers} headers
 * @param {number} size
 * @param {string} etag
 * @param {Date} modified
 * @returns {{ start: number, end: number } | 'unsatisfiable' | null}
 */
export function requestedRange(headers, size, etag, modified) {
  const header = headers.range;
  if (header === undefined) return null;
  const rawIfRange = headers['if-range'];
  const ifRange = (Array.isArray(rawIfRange) ? rawIfRange[0] : rawIfRange)?.trim();
  if (ifRange !== undefined) {
    // If-Range needs a strong match: a weak tag never matches, a date must be exact.
    const current = ifRange.startsWith('"') || ifRange.startsWith('W/') ? ifRange === etag : Date.parse(ifRange) === seconds(modified);
    if (!current) return null;
  }
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!match) return null;
  const specs = match[1].split(',').map((s) => s.trim()).filter(Boolean);
  // One range or the whole file: multipart/byteranges is allowed to be skipped.
  if (specs.length !== 1) return null;
  const spec = /^(\d*)\s*-\s*(\d*)$/.exec(specs[0]);
  if (!spec || (spec[1] === '' && spec[2] === '')) return null;
  if (spec[1] === '') {
    const suffix = Number(spec[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(spec[1]);
  const last = spec[2] === '' ? Infinity : Number(spec[2]);
  if (last < start) return null; // invalid, so ignored (§14.1.1)
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}

/**
 * The opaque tags of an If-None-Match list, without weakness (`W/`).
 * @param {string} list
 */
function entityTags(list) {
  return [...list.matchAll(/(?:W\/)?("[^"]*")/g)].map((m) => m[1]);
}

/** @param {string} etag */
function opaque(etag) {
  return etag.startsWith('W/') ? etag.slice(2) : etag;
}

/**
 * A time truncated to whole seconds, as HTTP dates are.
 * @param {Date} date
 */
function seconds(date) {
  return Math.floor(date.getTime() / 1000) * 1000;
}
