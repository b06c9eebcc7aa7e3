/**
 * The checks a font the pass writes must pass against the font it came from.
 *
 * A WOFF2 is a lossless container of the same sfnt tables: decoded, every
 * table must come back byte for byte, but for three a decoder rebuilds. glyf
 * and loca are stored transformed, so each glyph is compared as outline,
 * points and instructions (glyphs.js); head differs only in its checksum
 * adjustment and flags bit 11, which says the font went through such a
 * transform.
 *
 * A subset keeps fewer glyphs, renumbered: for every character it must map,
 * its glyph draws what the original's does with the same advance, and the
 * font's units and line metrics are the original's.
 */
import { unicodeMap } from './cmap.js';
import { glyphDifference, glyphTable } from './glyphs.js';
import { tableReader } from './sfnt.js';

/** Tables a WOFF2 decoder rebuilds rather than returns as stored. */
const REBUILT = new Set(['glyf', 'loca', 'head']);

/**
 * Null when DECODED holds the tables of ORIGINAL as a WOFF2 round trip must, else what differs.
 * @param {Map<string, Uint8Array>} original
 * @param {Map<string, Uint8Array>} decoded
 * @returns {string | null}
 */
export function losslessDifference(original, decoded) {
  const tags = [...original.keys()].sort().join(' ');
  const back = [...decoded.keys()].sort().join(' ');
  if (tags !== back) return `tables ${back} against ${tags}`;
  for (const [tag, bytes] of original) {
    if (REBUILT.has(tag)) continue;
    if (!Buffer.from(bytes).equals(/** @type {Uint8Array} */ (decoded.get(tag)))) return `table ${tag.trim()} differs`;
  }
  if (!comparableHead(/** @type {Uint8Array} */ (original.get('head'))).equals(comparableHead(/** @type {Uint8Array} */ (decoded.get('head'))))) return 'table head differs';
  const glyphsA = glyphTable(original);
  const glyphsB = glyphTable(decoded);
  if (!glyphsA || !glyphsB) return null;
  if (glyphsA.count !== glyphsB.count) return `${glyphsB.count} glyphs against ${glyphsA.count}`;
  const compared = new Set();
  for (let glyph = 0; glyph < glyphsA.count; glyph++) {
    const difference = glyphDifference(glyphsA, glyph, glyphsB, glyph, compared);
    if (difference) return difference;
  }
  return null;
}

/**
 * The head table without its checksum adjustment, and flags bit 11 cleared.
 * @param {Uint8Array} head
 */
function comparableHead(head) {
  const copy = Buffer.from(head);
  if (copy.length >= 18) {
    copy.writeUInt32BE(0, 8);
    copy.writeUInt16BE(copy.readUInt16BE(16) & ~0x0800, 16);
  }
  return copy;
}

/**
 * Null when SUBSET maps exactly the wanted characters the original has, each
 * to a glyph that draws and advances as the original's, with the original's
 * units and line metrics; else what differs.
 * @param {Map<string, Uint8Array>} original
 * @param {Map<string, Uint8Array>} subset
 * @param {Iterable<number>} wanted code points
 * @returns {string | null}
 */
export function subsetDifference(original, subset, wanted) {
  const mapA = unicodeMap(original);
  const mapB = unicodeMap(subset);
  if (!mapA || !mapB) return 'no Unicode cmap';
  const expected = [...new Set(wanted)].filter((c) => mapA.has(c)).sort((a, b) => a - b);
  const got = [...mapB.keys()].sort((a, b) => a - b);
  if (expected.join() !== got.join()) {
    const missing = expected.filter((c) => !mapB.has(c));
    const extra = got.filter((c) => !expected.includes(c));
    return `its cmap ${missing.length ? `lacks ${missing.slice(0, 5).map(codePointName).join(' ')}` : ''}${missing.length && extra.length ? ' and ' : ''}${extra.length ? `has ${extra.slice(0, 5).map(codePointName).join(' ')} besides` : ''}`;
  }
  for (const [what, read] of /** @type {const} */ ([['units per em', unitsPerEm], ['line metrics', lineMetrics]])) {
    if (read(original) !== read(subset)) return `different ${what}`;
  }
  const glyphsA = glyphTable(original);
  const glyphsB = glyphTable(subset);
  const compared = new Set();
  for (const code of expected) {
    const a = /** @type {number} */ (mapA.get(code));
    const b = /** @type {number} */ (mapB.get(code));
    if (advance(original, a) !== advance(subset, b)) return `${codePointName(code)}: a different advance`;
    if (glyphsA && glyphsB) {
      const difference = glyphDifference(glyphsA, a, glyphsB, b, compared);
      if (difference) return `${codePointName(code)}: ${difference}`;
    }
  }
  return null;
}

/** @param {number} code */
export function codePointName(code) {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** @param {Map<string, Uint8Array>} tables */
function unitsPerEm(tables) {
  return String(tableReader(/** @type {Uint8Array} */ (tables.get('head')), 'head').u16(18));
}

/**
 * The metrics that set line height and baseline: hhea's ascender, descender
 * and line gap, and OS/2's typographic and Windows metrics with the flag
 * that chooses between them.
 * @param {Map<string, Uint8Array>} tables
 */
function lineMetrics(tables) {
  const hhea = tableReader(/** @type {Uint8Array} */ (tables.get('hhea')), 'hhea');
  const values = [hhea.i16(4), hhea.i16(6), hhea.i16(8)];
  const os2 = tables.get('OS/2');
  if (os2 && os2.length >= 78) {
    const r = tableReader(os2, 'OS/2');
    values.push(r.u16(62) & 0x80, r.i16(68), r.i16(70), r.i16(72), r.u16(74), r.u16(76));
  }
  return values.join(',');
}

/**
 * A glyph's advance width (hmtx).
 * @param {Map<string, Uint8Array>} tables
 * @param {number} glyph
 */
function advance(tables, glyph) {
  const metrics = tableReader(/** @type {Uint8Array} */ (tables.get('hhea')), 'hhea').u16(34);
  const hmtx = tableReader(/** @type {Uint8Array} */ (tables.get('hmtx')), 'hmtx');
  return hmtx.u16(4 * Math.min(glyph, metrics - 1));
}
