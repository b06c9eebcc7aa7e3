/**
 * The font container formats, told apart by their first bytes, and the
 * table directory of an sfnt (TrueType or OpenType) font: what the other
 * font modules read tables from. A font whose directory points outside the
 * file, or that lacks a table every font has, is not a font here: browsers
 * refuse it too (their sanitizer, OTS, is stricter still).
 */

/** @typedef {'sfnt' | 'woff' | 'woff2' | 'collection'} FontContainer */

/** A file that is not a usable font, with the reason in one line. */
export class NotAFont extends Error {}

/** Tables every TrueType or OpenType font has. */
const REQUIRED_TABLES = ['cmap', 'head', 'hhea', 'hmtx', 'maxp'];

/**
 * The container format by its signature, or null when the bytes are no font.
 * @param {Uint8Array} bytes
 * @returns {FontContainer | null}
 */
export function fontContainer(bytes) {
  if (bytes.length < 12) return null;
  const signature = Buffer.from(bytes.buffer, bytes.byteOffset, 4).toString('latin1');
  if (signature === 'wOFF') return 'woff';
  if (signature === 'wOF2') return 'woff2';
  if (signature === 'ttcf') return 'collection';
  if (signature === '\x00\x01\x00\x00' || signature === 'OTTO' || signature === 'true') return 'sfnt';
  return null;
}

/**
 * How the first bytes of a file that is not a font look, for a warning:
 * `starts with "<!DOCTYPE html>"` or `starts with bytes 00 00 12 ff`.
 * @param {Uint8Array} bytes
 */
export function describeStart(bytes) {
  if (bytes.length === 0) return 'empty';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 16));
  const text = head.toString('latin1');
  if (/^[\t\n\r\x20-\x7e]+$/.test(text)) return `starts with ${JSON.stringify(text.trim().slice(0, 16))}`;
  return `starts with bytes ${[...head.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`;
}

/**
 * The tables of an sfnt font, by tag, as views of its bytes; throws NotAFont
 * when the directory does not fit the file or a required table is missing.
 * @param {Uint8Array} sfnt
 * @returns {Map<string, Uint8Array>}
 */
export function readTables(sfnt) {
  const bytes = Buffer.from(sfnt.buffer, sfnt.byteOffset, sfnt.byteLength);
  if (bytes.length < 12) throw new NotAFont(`truncated (${bytes.length} B)`);
  const count = bytes.readUInt16BE(4);
  if (count === 0 || 12 + 16 * count > bytes.length) throw new NotAFont(`truncated table directory (${count} tables in ${bytes.length} B)`);
  /** @type {Map<string, Uint8Array>} */
  const tables = new Map();
  for (let i = 0; i < count; i++) {
    const entry = 12 + 16 * i;
    const tag = bytes.toString('latin1', entry, entry + 4);
    const offset = bytes.readUInt32BE(entry + 8);
    const length = bytes.readUInt32BE(entry + 12);
    if (offset + length > bytes.length) throw new NotAFont(`table ${tag.trim()} ends at byte ${offset + length}, past the end (${bytes.length} B)`);
    tables.set(tag, bytes.subarray(offset, offset + length));
  }
  const missing = REQUIRED_TABLES.filter((tag) => !tables.has(tag));
  if (missing.length) throw new NotAFont(`no ${missing.join(', ')} table${missing.length > 1 ? 's' : ''}`);
  if (!tables.has('glyf') && !tables.has('CFF ') && !tables.has('CFF2')) throw new NotAFont('no glyf, CFF or CFF2 table: no outlines');
  return tables;
}

/**
 * A big-endian reader over one table that throws NotAFont, not RangeError, when a read runs past its end.
 * @param {Uint8Array} table
 * @param {string} tag for messages
 */
export function tableReader(table, tag) {
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const check = (/** @type {number} */ at, /** @type {number} */ size) => {
    if (at < 0 || at + size > table.byteLength) throw new NotAFont(`${tag.trim()} table: a read at byte ${at} runs past its end (${table.byteLength} B)`);
  };
  return {
    length: table.byteLength,
    u8: (/** @type {number} */ at) => (check(at, 1), view.getUint8(at)),
    u16: (/** @type {number} */ at) => (check(at, 2), view.getUint16(at)),
    i16: (/** @type {number} */ at) => (check(at, 2), view.getInt16(at)),
    u32: (/** @type {number} */ at) => (check(at, 4), view.getUint32(at)),
    bytes: (/** @type {number} */ at, /** @type {number} */ length) => (check(at, length), table.subarray(at, at + length)),
  };
}
