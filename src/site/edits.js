/**
 * Byte-range edits: the only way pagediet changes a page or style sheet, so
 * every byte a pass does not mean to change stays as it was.
 *
 * @typedef {object} Edit
 * @property {number} start byte offset
 * @property {number} end byte offset (exclusive)
 * @property {Uint8Array} bytes what replaces [start, end)
 */

/**
 * @param {Uint8Array} source
 * @param {Edit[]} edits non-overlapping, in any order
 * @returns {Buffer}
 */
export function applyEdits(source, edits) {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  /** @type {Uint8Array[]} */
  const parts = [];
  let at = 0;
  for (const edit of sorted) {
    if (edit.start < at || edit.end < edit.start || edit.end > source.length) {
      throw new RangeError(`overlapping or out-of-range edit [${edit.start}, ${edit.end}) at ${at} of ${source.length}`);
    }
    parts.push(source.subarray(at, edit.start), edit.bytes);
    at = edit.end;
  }
  parts.push(source.subarray(at));
  return Buffer.concat(parts);
}

/**
 * Percent-encodes a site path for use as a URL in any context (quoted or
 * unquoted HTML attribute, CSS url()): the result is plain ASCII with no
 * quote, space, parenthesis, ampersand, '#', '?' or backslash.
 * @param {string} sitePath
 */
export function encodePath(sitePath) {
  return sitePath
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

/**
 * Where attributes go at the end of a start tag: before its `/>` or `>`.
 * @param {Buffer} bytes
 * @param {number} tagEnd offset after the tag's last byte
 */
export function startTagEnd(bytes, tagEnd) {
  return bytes[tagEnd - 2] === 0x2f ? tagEnd - 2 : tagEnd - 1;
}
