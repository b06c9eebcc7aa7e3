/**
 * The unicode-range descriptor of @font-face: read from CSS text into code
 * point ranges, and written from a set of code points as the shortest list of
 * ranges (`U+20,U+41-5A`).
 */

/** @typedef {[number, number]} CodePointRange first and last, inclusive */

const ITEM = /^u\+([0-9a-f?]{1,6})(?:-([0-9a-f]{1,6}))?$/i;

/**
 * The ranges of a unicode-range value, or null when it is not one a browser reads
 * (a browser then drops the descriptor and the face covers every character).
 * @param {string} text
 * @returns {CodePointRange[] | null}
 */
export function parseUnicodeRange(text) {
  /** @type {CodePointRange[]} */
  const ranges = [];
  for (const item of text.split(',')) {
    const m = ITEM.exec(item.trim());
    if (!m || (m[1].includes('?') && m[2]) || /\?[^?]/.test(m[1])) return null;
    const first = parseInt(m[1].replace(/\?/g, '0'), 16);
    const last = m[2] ? parseInt(m[2], 16) : parseInt(m[1].replace(/\?/g, 'f'), 16);
    if (last < first || first > 0x10ffff) return null;
    ranges.push([first, Math.min(last, 0x10ffff)]);
  }
  return ranges;
}

/**
 * Whether a code point is in the ranges (null: every code point is).
 * @param {CodePointRange[] | null} ranges
 * @param {number} code
 */
export function inRanges(ranges, code) {
  return ranges === null || ranges.some(([first, last]) => code >= first && code <= last);
}

/**
 * A unicode-range value covering exactly these code points.
 * @param {Iterable<number>} codePoints
 */
export function formatUnicodeRange(codePoints) {
  const sorted = [...new Set(codePoints)].sort((a, b) => a - b);
  /** @type {string[]} */
  const items = [];
  const hex = (/** @type {number} */ n) => n.toString(16).toUpperCase();
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    items.push(j === i ? `U+${hex(sorted[i])}` : `U+${hex(sorted[i])}-${hex(sorted[j])}`);
    i = j;
  }
  return items.join(',');
}
