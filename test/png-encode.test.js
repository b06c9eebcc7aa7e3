import { describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { analyse } from '../src/images/png/analyse.js';
import { encodePng } from '../src/images/png/encode.js';
import { decodeApng } from '../src/images/apng-frames.js';
import { PNG_SIGNATURE, chunk, ihdr, isPng, readChunks } from '../src/images/png-chunks.js';

/** @param {number} seed a small deterministic generator, so that images are the same on every run */
function random(seed) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/**
 * @param {number} width
 * @param {number} height
 * @param {(x: number, y: number) => number[]} pixel RGBA
 */
function image(width, height, pixel) {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4);
  return { data, width, height };
}

/** Blocks of colours taken from a list, in a pseudo-random pattern. @param {number[][]} colours */
function blocks(width, height, colours, seed, block = 3) {
  const next = random(seed);
  const cells = Array.from({ length: Math.ceil(width / block) * Math.ceil(height / block) }, () => colours[Math.floor(next() * colours.length)]);
  return image(width, height, (x, y) => cells[Math.floor(y / block) * Math.ceil(width / block) + Math.floor(x / block)]);
}

const RED = [220, 20, 30, 255], BLUE = [10, 40, 200, 255], CLEAR = [0, 0, 0, 0];
const sixteen = Array.from({ length: 16 }, (_, i) => [(i * 53) & 255, (i * 97 + 40) & 255, (i * 29 + 100) & 255, 255]);

const IMAGES = {
  'one pixel': { image: image(1, 1, () => [10, 20, 30, 255]), colorType: 2, bitDepth: 8 },
  'two-colour bullet': { image: image(24, 24, (x, y) => ((x - 12) ** 2 + (y - 12) ** 2 < 80 ? RED : BLUE)), colorType: 3, bitDepth: 1 },
  'two colours, width 13': { image: blocks(13, 7, [RED, BLUE], 1, 1), colorType: 3, bitDepth: 1 },
  'four colours, width 11': { image: blocks(11, 5, [RED, BLUE, [0, 128, 0, 255], [250, 250, 0, 255]], 2, 1), colorType: 3, bitDepth: 2 },
  // One byte per index: deflate finds the 3-pixel blocks' repeats whole, which 4-bit packing splits.
  '16-colour icon': { image: blocks(37, 23, sixteen, 3), colorType: 3, bitDepth: 8 },
  'greyscale ramp': { image: image(256, 16, (x) => [x, x, x, 255]), colorType: 0, bitDepth: 8 },
  'grey in steps of 17, width 7': { image: blocks(7, 9, Array.from({ length: 16 }, (_, i) => [i * 17, i * 17, i * 17, 255]), 4, 1), colorType: 0, bitDepth: 4 },
  'black and white, width 5': { image: blocks(5, 3, [[0, 0, 0, 255], [255, 255, 255, 255]], 5, 1), colorType: 0, bitDepth: 1 },
  'black on transparent white, width 30': { image: blocks(30, 30, [[0, 0, 0, 255], [255, 255, 255, 0]], 8, 2), colorType: 0, bitDepth: 1 },
  'one transparent colour': { image: blocks(60, 60, [RED, BLUE, CLEAR, [0, 128, 0, 255], [255, 255, 255, 255]], 6), colorType: 3, bitDepth: 8 },
  'one transparent colour, 4096 colours': {
    image: image(64, 64, (x, y) => ((x * y) % 11 === 3 ? [5, 6, 7, 0] : [x * 4, y * 4, 90, 255])), colorType: 2, bitDepth: 8,
  },
  'semi-transparent gradient': { image: image(64, 64, (x, y) => [x * 4, y * 4, 128, (x + y) * 2]), colorType: 6, bitDepth: 8 },
  'truecolour, 4096 colours': { image: image(64, 64, (x, y) => [x * 4, y * 4, (x * y) & 255, 255]), colorType: 2, bitDepth: 8 },
  'transparent pixels of varying colour': {
    image: image(30, 10, (x, y) => (x < 10 ? [x * 20, y * 20, 7, 0] : x < 20 ? RED : BLUE)), colorType: 6, bitDepth: 8,
  },
};

/** @param {Buffer} png */
async function viaSharp(png) {
  return sharp(png).ensureAlpha().raw().toBuffer();
}

/** The chunk types of a PNG, each CRC checked here independently of readChunks. @param {Buffer} png */
function chunkTypes(png) {
  expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  const types = [];
  for (let offset = 8; offset < png.length;) {
    const length = png.readUInt32BE(offset);
    const crc = zlib.crc32(png.subarray(offset + 4, offset + 8 + length)) >>> 0;
    expect(png.readUInt32BE(offset + 8 + length)).toBe(crc);
    types.push(png.toString('latin1', offset + 4, offset + 8));
    offset += 12 + length;
  }
  return types;
}

describe('encodePng', () => {
  for (const [name, { image: input, colorType, bitDepth }] of Object.entries(IMAGES)) {
    it(`${name}: exact pixels, colour type ${colorType} at ${bitDepth} bits, zopfli no larger than libdeflate`, async () => {
      const libdeflateOnly = await encodePng(input, { zopfliIterations: 0 });
      const zopfli = await encodePng(input, { zopfliIterations: 15 });
      for (const result of [libdeflateOnly, zopfli]) {
        expect(await viaSharp(result.png)).toEqual(input.data);
        expect(decodeApng(result.png).frames[0].data).toEqual(input.data);
        expect(chunkTypes(result.png).filter((type) => type === 'IDAT')).toHaveLength(1);
        expect(result.png[8 + 8 + 12]).toBe(0); // IHDR interlace byte
      }
      expect(libdeflateOnly.deflate).toBe('libdeflate');
      expect([zopfli.colorType, zopfli.bitDepth]).toEqual([colorType, bitDepth]);
      expect(zopfli.png.length).toBeLessThanOrEqual(libdeflateOnly.png.length);
      expect(zopfli.candidates).toBeGreaterThan(libdeflateOnly.candidates);
    });
  }

  it('writes tRNS only as long as the last non-opaque palette entry', async () => {
    const { png } = await encodePng(IMAGES['one transparent colour'].image, { zopfliIterations: 0 });
    const chunks = readChunks(png);
    const plte = chunks.find((c) => c.type === 'PLTE');
    const trns = chunks.find((c) => c.type === 'tRNS');
    expect(plte?.data.length).toBe(5 * 3);
    // Non-opaque entries come first in every order but the hint's, so one byte suffices.
    expect(trns?.data).toEqual(Buffer.from([0]));
  });

  it('writes a truecolour tRNS key for the one transparent colour', async () => {
    const { png } = await encodePng(IMAGES['one transparent colour, 4096 colours'].image, { zopfliIterations: 0 });
    expect(readChunks(png).find((c) => c.type === 'tRNS')?.data).toEqual(Buffer.from([0, 5, 0, 6, 0, 7]));
  });

  it('carries ancillary chunks, after IHDR and before PLTE', async () => {
    const gama = { type: 'gAMA', data: Buffer.from([0, 0, 0xb1, 0x8f]) };
    const srgb = { type: 'sRGB', data: Buffer.from([0]) };
    const { png } = await encodePng(IMAGES['one transparent colour'].image, { zopfliIterations: 0, chunks: [gama, srgb] });
    expect(chunkTypes(png)).toEqual(['IHDR', 'gAMA', 'sRGB', 'PLTE', 'tRNS', 'IDAT', 'IEND']);
    const chunks = readChunks(png);
    expect(chunks[1].data).toEqual(gama.data);
    expect(chunks[2].data).toEqual(srgb.data);
  });

  it('keeps a grey image in colour when an ICC profile is carried', async () => {
    const iccp = { type: 'iCCP', data: Buffer.concat([Buffer.from('x\0\0'), zlib.deflateSync(Buffer.alloc(8))]) };
    const result = await encodePng(IMAGES['greyscale ramp'].image, { zopfliIterations: 0, chunks: [iccp] });
    expect([2, 3]).toContain(result.colorType);
    expect(await viaSharp(result.png)).toEqual(IMAGES['greyscale ramp'].image.data);
  });

  it('refuses to carry chunks that depend on the colour type', async () => {
    await expect(encodePng(IMAGES['one pixel'].image, { chunks: [{ type: 'bKGD', data: Buffer.from([0]) }] })).rejects.toThrow(/bKGD/);
  });

  it('refuses RGBA data of the wrong length', async () => {
    await expect(encodePng({ data: Buffer.alloc(15), width: 2, height: 2 })).rejects.toThrow(/needs 16/);
  });

  it('tries no format whose chunks alone reach the size to beat, except the one with the fewest', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => [i * 12, 255 - i * 12, (i * 37) & 255, 255]);
    const input = blocks(64, 64, twenty, 9, 4);
    const free = await encodePng(input, { zopfliIterations: 0 });
    expect([free.colorType, free.bitDepth]).toEqual([3, 8]);
    // A palette of 20 needs 72 bytes of PLTE: with 57 of framing and at least 10 of image data, 139 bytes or more.
    const bounded = await encodePng(input, { zopfliIterations: 0, smallerThan: 139 });
    expect(bounded.colorType).toBe(2);
    expect(bounded.candidates).toBeLessThan(free.candidates);
    expect(await viaSharp(bounded.png)).toEqual(input.data);
    const justAbove = await encodePng(input, { zopfliIterations: 0, smallerThan: 140 });
    expect(justAbove.png).toEqual(free.png);
  });

  it('decodes a fully transparent image with its hidden colours intact', async () => {
    const input = image(9, 4, (x, y) => [x * 25, y * 60, 3, 0]);
    const { png } = await encodePng(input, { zopfliIterations: 0 });
    expect(await viaSharp(png)).toEqual(input.data);
    expect(decodeApng(png).frames[0].data).toEqual(input.data);
  });
});

describe('analyse', () => {
  /** @param {number[]} rgba */
  const hex = ([r, g, b, a]) => ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;

  it('orders the hinted palette as the hint says, dropping colours the image lacks', () => {
    const input = blocks(10, 10, [RED, BLUE, CLEAR], 7);
    const hint = [hex(BLUE), hex([1, 2, 3, 255]), hex(CLEAR), hex(RED)];
    const hinted = analyse([input.data], { paletteOrder: hint }).find((format) => format.name === 'palette/hint');
    const entries = [...(hinted?.palette ?? [])].map((word) => hex([...new Uint8Array(new Uint32Array([word]).buffer)]));
    expect(entries).toEqual([hex(BLUE), hex(CLEAR), hex(RED)]);
    expect(hinted?.bitDepth).toBe(2);
  });

  it('offers grey with a tRNS key only when the transparent grey never appears opaque', () => {
    const keyed = image(8, 8, (x) => (x === 0 ? [128, 128, 128, 0] : x % 2 ? [0, 0, 0, 255] : [255, 255, 255, 255]));
    expect(analyse([keyed.data]).map((f) => [f.name, f.bitDepth])).toContainEqual(['grey+trns', 8]);
    const clash = image(8, 8, (x) => (x === 0 ? [128, 128, 128, 0] : x % 2 ? [128, 128, 128, 255] : [255, 255, 255, 255]));
    const names = analyse([clash.data]).map((f) => f.name);
    expect(names).not.toContain('grey+trns');
    expect(names).toContain('grey+alpha');
  });

  it('with a width, offers one byte per index beside the packed depth, and the adjacency order', () => {
    // Four quadrants: C above A, D above B. C touches A and D touches B along 4 pixels, C touches D and A touches B along 2.
    const [A, B, C, D] = [[200, 0, 0, 255], [0, 200, 0, 255], [0, 0, 200, 255], [90, 90, 90, 255]];
    const input = image(8, 4, (x, y) => (y < 2 ? (x < 4 ? C : D) : (x < 4 ? A : B)));
    const names = (/** @type {import('../src/images/png/formats.js').PngFormat[]} */ formats) => formats.map((f) => `${f.name} ${f.bitDepth}`);
    // On images this small, direct colour is offered too (PLTE can cost more than it saves).
    expect(names(analyse([input.data]))).toEqual(['palette/appearance 2', 'palette/frequency 2', 'palette/luma 2', 'truecolour 8']);
    const wide = analyse([input.data], { width: 8 });
    expect(names(wide)).toEqual([
      'palette/appearance 2', 'palette/appearance/8-bit 8', 'palette/frequency 2', 'palette/frequency/8-bit 8',
      'palette/luma 2', 'palette/luma/8-bit 8', 'palette/adjacency 2', 'palette/adjacency/8-bit 8', 'truecolour 8',
    ]);
    // The chain starts from the pair that touches most (C, A), and grows at the end each next colour touches most.
    const adjacency = wide.find((f) => f.name === 'palette/adjacency');
    expect([...(adjacency?.palette ?? [])].map((word) => hex([...new Uint8Array(new Uint32Array([word]).buffer)]))).toEqual([B, D, C, A].map(hex));
  });

  it('counts the colours that touch over every frame of an animation for the adjacency order', () => {
    const [A, B, C] = [[200, 0, 0, 255], [0, 200, 0, 255], [0, 0, 200, 255]];
    // Frame 1: A beside B; frame 2: B beside C. B touches both, so it goes between them (frame 1 alone would give C, A, B).
    const first = image(8, 4, (x) => (x < 4 ? A : B));
    const second = image(8, 4, (x) => (x < 4 ? B : C));
    const adjacency = analyse([first.data, second.data], { width: 8 }).find((f) => f.name === 'palette/adjacency');
    expect([...(adjacency?.palette ?? [])].map((word) => hex([...new Uint8Array(new Uint32Array([word]).buffer)]))).toEqual([A, B, C].map(hex));
  });

  it('screened: ranks a drawn image unfiltered only, a photograph with the adaptive filters too', () => {
    const drawn = analyse([blocks(40, 40, sixteen, 11, 4).data], { width: 40, screen: true });
    expect(drawn.map((f) => f.screen)).toEqual(drawn.map(() => ['none']));
    expect(drawn.some((f) => f.name === 'palette/adjacency')).toBe(false);
    // Noise: under half of the pixels repeat the one before.
    const noisy = analyse([blocks(40, 40, sixteen, 12, 1).data], { width: 40, screen: true });
    expect(noisy.map((f) => [f.name, f.screen])).toEqual([
      ['palette/appearance', ['none']], ['palette/appearance/8-bit', ['none']],
      ['palette/frequency', ['none']], ['palette/frequency/8-bit', ['none']],
      ['palette/luma', ['none', 'minsum', 'entropy']], ['palette/luma/8-bit', ['none']],
      ['palette/adjacency', ['minsum', 'entropy']], ['truecolour', ['none', 'minsum', 'entropy']],
    ]);
  });

  it('offers no palette beyond 256 colours, and the union of several images counts', () => {
    const a = image(16, 9, (x, y) => [x, y, 0, 255]);
    const b = image(16, 9, (x, y) => [x, y, 1, 255]);
    expect(analyse([a.data]).some((f) => f.colorType === 3)).toBe(true);
    expect(analyse([a.data, b.data]).map((f) => f.name)).toEqual(['truecolour']);
  });
});

describe('png-chunks', () => {
  it('writes and reads chunks with their CRC', () => {
    const png = Buffer.concat([PNG_SIGNATURE, ihdr({ width: 3, height: 2, bitDepth: 8, colorType: 6 }), chunk('IEND')]);
    expect(isPng(png)).toBe(true);
    const chunks = readChunks(png);
    expect(chunks.map((c) => [c.type, c.offset, c.data.length])).toEqual([['IHDR', 8, 13], ['IEND', 33, 0]]);
    expect([...chunks[0].data]).toEqual([0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0]);
    // The CRC of an empty IEND is a well-known constant.
    expect(chunk('IEND').readUInt32BE(8)).toBe(0xae426082);
  });

  it('throws on a truncated file, a corrupt CRC and a missing signature', async () => {
    const { png } = await encodePng(IMAGES['16-colour icon'].image, { zopfliIterations: 0 });
    expect(() => readChunks(png.subarray(0, png.length - 5))).toThrow(/Truncated PNG/);
    const corrupt = Buffer.from(png);
    corrupt[40] ^= 1;
    expect(() => readChunks(corrupt)).toThrow(/CRC mismatch/);
    expect(() => readChunks(Buffer.from('GIF89a....'))).toThrow(/signature/);
    expect(isPng(Buffer.from('GIF89a'))).toBe(false);
  });
});

describe('recompressPng with an ICC profile', () => {
  it('re-encodes a Display P3 PNG: the iCCP chunk carried byte for byte, the samples unchanged (sharp decodes with ignoreIcc, as a check must)', async () => {
    const { recompressPng } = await import('../src/images/jobs/recompress-png.js');
    const rgb = Buffer.alloc(64 * 64 * 3);
    for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 37) % 256;
    const original = await sharp(rgb, { raw: { width: 64, height: 64, channels: 3 } }).withIccProfile('p3').png({ compressionLevel: 0 }).toBuffer();
    const result = await recompressPng({ bytes: original, options: { maxPixels: 1e8, zopfliIterations: 0, lossy: false, quality: [70, 90] } });
    expect(result.status).toBe('converted');
    const written = /** @type {{ bytes: Buffer }} */ (result).bytes;
    expect(written.length).toBeLessThan(original.length);
    const profile = (/** @type {Buffer} */ png) => readChunks(png).find((c) => c.type === 'iCCP')?.data;
    expect(profile(written)).toEqual(profile(original));
    expect(profile(written)?.length).toBeGreaterThan(100);
    expect(decodeApng(written).frames[0].data).toEqual(decodeApng(original).frames[0].data);
  });
});
