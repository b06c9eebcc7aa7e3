/**
 * TrueType glyph outlines (the glyf and loca tables), read far enough to
 * compare two glyphs as a rasterizer sees them: contours, points with their
 * on-curve bits, bounding box, hinting instructions, and for a composite
 * glyph its components with their placement. The bytes of two equal outlines
 * may differ (a WOFF2 decoder writes flags and coordinates in its own packing
 * and pads glyphs its own way); what they draw may not.
 */
import { NotAFont, tableReader } from './sfnt.js';

/** OpenType's limit on nested composite glyphs. */
const MAX_COMPONENT_DEPTH = 16;

/**
 * @typedef {object} GlyphTable the glyphs of one TrueType font
 * @property {number} count
 * @property {(glyph: number) => Uint8Array} data a glyph's bytes (empty for a glyph with no outline)
 */

/**
 * The glyphs of a font with a glyf table, or null for a CFF font.
 * @param {Map<string, Uint8Array>} tables
 * @returns {GlyphTable | null}
 */
export function glyphTable(tables) {
  const glyf = tables.get('glyf');
  const loca = tables.get('loca');
  if (!glyf) return null;
  if (!loca) throw new NotAFont('a glyf table without loca');
  const head = tableReader(/** @type {Uint8Array} */ (tables.get('head')), 'head');
  const count = tableReader(/** @type {Uint8Array} */ (tables.get('maxp')), 'maxp').u16(4);
  const long = head.i16(50) === 1;
  const l = tableReader(loca, 'loca');
  const offset = (/** @type {number} */ i) => (long ? l.u32(4 * i) : 2 * l.u16(2 * i));
  return {
    count,
    data(glyph) {
      const start = offset(glyph);
      const end = offset(glyph + 1);
      if (end < start || end > glyf.length) throw new NotAFont(`glyf table: glyph ${glyph} lies outside it`);
      return glyf.subarray(start, end);
    },
  };
}

/**
 * Whether glyph A of one font draws what glyph B of another does; for
 * composite glyphs their components are compared in turn (a subset numbers
 * its glyphs anew). Null when they are the same, else what differs.
 * @param {GlyphTable} fontA
 * @param {number} glyphA
 * @param {GlyphTable} fontB
 * @param {number} glyphB
 * @param {Set<string>} [compared] pairs already found equal (shared components are compared once)
 * @param {number} [depth]
 * @returns {string | null}
 */
export function glyphDifference(fontA, glyphA, fontB, glyphB, compared = new Set(), depth = 0) {
  const pair = `${glyphA}:${glyphB}`;
  if (compared.has(pair)) return null;
  if (depth > MAX_COMPONENT_DEPTH) return `glyph ${glyphA}: components nested deeper than ${MAX_COMPONENT_DEPTH}`;
  const a = readGlyph(fontA.data(glyphA), glyphA);
  const b = readGlyph(fontB.data(glyphB), glyphB);
  if (a.shape !== b.shape) return `glyph ${glyphA}: ${a.shape} against ${b.shape}`;
  if (a.shape === 'composite' && b.shape === 'composite') {
    if (a.components.length !== b.components.length) return `glyph ${glyphA}: ${a.components.length} components against ${b.components.length}`;
    for (let i = 0; i < a.components.length; i++) {
      if (a.components[i].placement !== b.components[i].placement) return `glyph ${glyphA}: component ${i} placed differently`;
      const inner = glyphDifference(fontA, a.components[i].glyph, fontB, b.components[i].glyph, compared, depth + 1);
      if (inner) return inner;
    }
  }
  if (a.outline !== b.outline) return `glyph ${glyphA}: different outline`;
  compared.add(pair);
  return null;
}

/**
 * @typedef {{ shape: 'empty', outline: string }
 *   | { shape: 'simple', outline: string }
 *   | { shape: 'composite', outline: string, components: { glyph: number, placement: string }[] }} Glyph
 *   outline: what draws it, as one comparable string (a composite's own part: its box and instructions)
 */

/**
 * @param {Uint8Array} data
 * @param {number} id for messages
 * @returns {Glyph}
 */
function readGlyph(data, id) {
  if (data.length === 0) return { shape: 'empty', outline: '' };
  const r = tableReader(data, `glyf (glyph ${id})`);
  const contours = r.i16(0);
  const box = [r.i16(2), r.i16(4), r.i16(6), r.i16(8)].join(',');
  if (contours >= 0) return { shape: 'simple', outline: `${box}|${simpleOutline(r, contours)}` };
  /** @type {{ glyph: number, placement: string }[]} */
  const components = [];
  let at = 10;
  let flags = 0;
  do {
    flags = r.u16(at);
    const glyph = r.u16(at + 2);
    const argBytes = flags & 0x0001 ? 4 : 2;
    const transformBytes = flags & 0x0008 ? 2 : flags & 0x0040 ? 4 : flags & 0x0080 ? 8 : 0;
    // The flags that say how a component is placed and measured; the glyph number is compared through the recursion.
    const placement = `${flags & ~0x0020 & ~0x0100}:${Buffer.from(r.bytes(at + 4, argBytes + transformBytes)).toString('hex')}`;
    components.push({ glyph, placement });
    at += 4 + argBytes + transformBytes;
  } while (flags & 0x0020);
  const instructions = flags & 0x0100 ? Buffer.from(r.bytes(at + 2, r.u16(at))).toString('hex') : '';
  return { shape: 'composite', outline: `${box}|${instructions}`, components };
}

/**
 * A simple glyph's contours, instructions and points, unpacked.
 * @param {ReturnType<typeof tableReader>} r
 * @param {number} contours
 */
function simpleOutline(r, contours) {
  const ends = [];
  for (let i = 0; i < contours; i++) ends.push(r.u16(10 + 2 * i));
  const points = contours ? ends[contours - 1] + 1 : 0;
  const instructionsAt = 10 + 2 * contours;
  const instructionLength = r.u16(instructionsAt);
  const instructions = Buffer.from(r.bytes(instructionsAt + 2, instructionLength)).toString('hex');
  let at = instructionsAt + 2 + instructionLength;
  /** @type {number[]} */
  const flags = [];
  while (flags.length < points) {
    const flag = r.u8(at++);
    flags.push(flag);
    if (flag & 0x08) {
      const repeat = r.u8(at++);
      for (let k = 0; k < repeat; k++) flags.push(flag);
    }
  }
  const coordinates = (/** @type {number} */ short, /** @type {number} */ same) => {
    const values = [];
    let value = 0;
    for (let i = 0; i < points; i++) {
      const flag = flags[i];
      if (flag & short) {
        const delta = r.u8(at++);
        value += flag & same ? delta : -delta;
      } else if (!(flag & same)) {
        value += r.i16(at);
        at += 2;
      }
      values.push(value);
    }
    return values;
  };
  const xs = coordinates(0x02, 0x10);
  const ys = coordinates(0x04, 0x20);
  // On-curve bits, and the overlap bit that only the first flag carries.
  const kinds = flags.map((f, i) => (f & 0x01 ? 1 : 0) | (i === 0 && f & 0x40 ? 2 : 0)).join('');
  return `${ends.join(',')}|${instructions}|${kinds}|${xs.join(',')}|${ys.join(',')}`;
}
