import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { jpegQuality } from '../src/images/jpeg-quality.js';

/** The standard luminance table (ITU-T T.81, table K.1), in the order a DQT segment holds it does not matter here. */
const K1 = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];

/**
 * SOI, then one DQT segment holding the given tables, then EOI.
 * @param {{ id: number, wide: boolean, entries: number[] }[]} tables
 */
function withTables(tables) {
  const body = tables.flatMap(({ id, wide, entries }) => [((wide ? 1 : 0) << 4) | id, ...entries.flatMap((e) => (wide ? [e >> 8, e & 255] : [e]))]);
  return Uint8Array.from([0xff, 0xd8, 0xff, 0xdb, (body.length + 2) >> 8, (body.length + 2) & 255, ...body, 0xff, 0xd9]);
}

describe('jpegQuality', () => {
  it("gives back the quality libjpeg wrote, from 20 to 98 (below, baseline tables clip entries at 255)", async () => {
    const image = sharp({ create: { width: 16, height: 16, channels: 3, background: '#7f6050' } });
    const found = [];
    const asked = [20, 24, 25, 49, 50, 51, 63, 75, 80, 85, 90, 92, 95, 98];
    for (const quality of asked) found.push(jpegQuality(await image.clone().jpeg({ quality }).toBuffer()));
    expect(found).toEqual(asked);
  });

  it('reads table 0 wherever it is in the segment, and 16-bit entries', () => {
    const chroma = { id: 1, wide: false, entries: K1.map(() => 99) };
    expect(jpegQuality(withTables([chroma, { id: 0, wide: false, entries: K1 }]))).toBe(50);
    expect(jpegQuality(withTables([{ id: 0, wide: true, entries: K1.map((e) => e * 2) }]))).toBe(25);
    expect(jpegQuality(withTables([{ id: 0, wide: false, entries: K1.map((e) => Math.max(1, Math.round(e / 10))) }]))).toBe(95);
  });

  it('answers null for what holds no table 0: another format, a truncated segment, a table after the scan', async () => {
    expect(jpegQuality(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toBuffer())).toBeNull();
    expect(jpegQuality(new Uint8Array([0xff, 0xd8]))).toBeNull();
    expect(jpegQuality(withTables([{ id: 1, wide: false, entries: K1 }]))).toBeNull();
    expect(jpegQuality(withTables([{ id: 0, wide: false, entries: K1 }]).subarray(0, 40))).toBeNull();
    const scanFirst = Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0, 2, ...withTables([{ id: 0, wide: false, entries: K1 }]).subarray(2)]);
    expect(jpegQuality(scanFirst)).toBeNull();
  });
});
