/**
 * The characters a font has: its Unicode cmap subtable read into code point
 * → glyph id. The subtable a browser uses is taken: a full-repertoire one
 * (platform 3 encoding 10, or platform 0) in format 12 or 13 first, then a
 * BMP one (3/1 or 0/x) in format 4 or 6. A symbol font (3/0 only) has no
 * Unicode subtable: browsers map its characters in their own way, so it is
 * not subset.
 */
import { NotAFont, tableReader } from './sfnt.js';

/**
 * The code points of a font's Unicode cmap with their glyphs (glyph 0, the
 * missing glyph, left out), or null when the font has no Unicode subtable.
 * @param {Map<string, Uint8Array>} tables
 * @returns {Map<number, number> | null}
 */
export function unicodeMap(tables) {
  const table = tables.get('cmap');
  if (!table) throw new NotAFont('no cmap table');
  const r = tableReader(table, 'cmap');
  const count = r.u16(2);
  /** @type {{ rank: number, offset: number }[]} */
  const candidates = [];
  for (let i = 0; i < count; i++) {
    const platform = r.u16(4 + 8 * i);
    const encoding = r.u16(6 + 8 * i);
    const offset = r.u32(8 + 8 * i);
    const format = r.u16(offset);
    const full = format === 12 || format === 13;
    const bmp = format === 4 || format === 6;
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (unicode && (full || bmp)) candidates.push({ rank: full ? 0 : 1, offset });
  }
  if (!candidates.length) return null;
  candidates.sort((a, b) => a.rank - b.rank);
  return readSubtable(r, candidates[0].offset);
}

/**
 * @param {ReturnType<typeof tableReader>} r
 * @param {number} at the subtable's offset
 */
function readSubtable(r, at) {
  /** @type {Map<number, number>} */
  const map = new Map();
  const set = (/** @type {number} */ code, /** @type {number} */ glyph) => {
    if (glyph !== 0) map.set(code, glyph);
  };
  const format = r.u16(at);
  if (format === 4) {
    const segments = r.u16(at + 6) / 2;
    const ends = at + 14;
    const starts = ends + 2 * segments + 2;
    const deltas = starts + 2 * segments;
    const rangeOffsets = deltas + 2 * segments;
    for (let s = 0; s < segments; s++) {
      const end = r.u16(ends + 2 * s);
      const start = r.u16(starts + 2 * s);
      const delta = r.u16(deltas + 2 * s);
      const rangeOffset = r.u16(rangeOffsets + 2 * s);
      for (let code = start; code <= end && code !== 0xffff; code++) {
        if (rangeOffset === 0) set(code, (code + delta) & 0xffff);
        else {
          const glyph = r.u16(rangeOffsets + 2 * s + rangeOffset + 2 * (code - start));
          set(code, glyph === 0 ? 0 : (glyph + delta) & 0xffff);
        }
      }
    }
  } else if (format === 6) {
    const first = r.u16(at + 6);
    const count = r.u16(at + 8);
    for (let i = 0; i < count; i++) set(first + i, r.u16(at + 10 + 2 * i));
  } else {
    // Formats 12 and 13: groups of (first, last, glyph); 13 maps the whole group to one glyph.
    const groups = r.u32(at + 12);
    for (let g = 0; g < groups; g++) {
      const first = r.u32(at + 16 + 12 * g);
      const last = Math.min(r.u32(at + 20 + 12 * g), 0x10ffff);
      const glyph = r.u32(at + 24 + 12 * g);
      if (last - first > 0x10ffff) throw new NotAFont('cmap table: a group larger than Unicode');
      for (let code = first; code <= last; code++) set(code, format === 12 ? glyph + (code - first) : glyph);
    }
  }
  return map;
}
