// The GIF reader (src/images/gif/) on small GIFs whose every pixel is known:
// compositing as browsers do it, structure, limits and damaged files. Each
// result is checked three ways: against hand-written expectations, against
// sharp (libvips), whose known differences from browsers are pinned here, and
// against Chromium's own decoder when /usr/bin/chromium is installed. The
// generated corpus fixtures/gifs is checked for determinism and composition.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import omggif from 'omggif';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeGif } from '../src/images/gif/decode.js';
import { readGifStructure } from '../src/images/gif/structure.js';
import { sniffImageType } from '../src/site/sniff.js';
import { makeGifCorpus } from '../scripts/fixtures/gif-corpus.js';
import { encodeGif } from '../scripts/fixtures/gif.js';
import { chromiumTest, launchChromium } from './helpers/chromium.js';
import { tempDir } from './helpers/tmp.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

const RED = 0xff0000;
const GREEN = 0x00ff00;
const BLUE = 0x0000ff;
const WHITE = 0xffffff;
const P = [RED, GREEN, BLUE, WHITE];

/** RGBA of palette colours and of a transparent pixel. */
const R = [255, 0, 0, 255];
const G = [0, 255, 0, 255];
const B = [0, 0, 255, 255];
const W = [255, 255, 255, 255];
const K = [0, 0, 0, 255];
const _ = [0, 0, 0, 0];

/**
 * Every GIF with known pixels, by name, built when this file loads: the tests
 * below and the sharp and Chromium cross-checks use the same bytes.
 * @type {Map<string, { bytes: Buffer, animated: boolean }>}
 */
const built = new Map();

/**
 * Remember a GIF under a name and return it.
 * @param {string} name
 * @param {Buffer} bytes
 * @param {{ animated?: boolean }} [how]
 */
function keep(name, bytes, how = {}) {
  if (built.has(name)) throw new Error(`two test GIFs named ${name}`);
  built.set(name, { bytes, animated: how.animated ?? false });
  return bytes;
}

/** @param {string} name @returns {Buffer} */
function named(name) {
  const entry = built.get(name);
  if (!entry) throw new Error(`no test GIF named ${name}`);
  return entry.bytes;
}

/**
 * A GIF written by omggif's GifWriter (through the fixtures' encodeGif).
 * @param {string} name
 * @param {import('../scripts/fixtures/gif.js').GifSpec} spec
 */
function gif(name, spec) {
  return keep(name, encodeGif(spec), { animated: spec.frames.length > 1 });
}

/**
 * One frame of `spec` from a string of palette digits ('0123', rows of width w).
 * @param {number} x
 * @param {number} y
 * @param {number} w
 * @param {string} digits
 * @param {Partial<import('../scripts/fixtures/gif.js').GifFrame>} [more]
 */
function frame(x, y, w, digits, more = {}) {
  const indices = Uint8Array.from(digits, Number);
  return { x, y, width: w, height: indices.length / w, indices, ...more };
}

/**
 * A full-canvas RGBA buffer from rows of pixels.
 * @param {number[][][]} rows
 */
function rgba(rows) {
  return Buffer.from(rows.flat(2));
}

// Hand-assembled GIFs, for what GifWriter does not write (interlacing,
// disposal 4, damaged data): blocks as byte arrays, LZW data from GifWriter.
const u16 = (/** @type {number} */ n) => [n & 255, n >> 8];
const rgb = (/** @type {number[]} */ p) => p.flatMap((c) => [(c >> 16) & 255, (c >> 8) & 255, c & 255]);
const size = (/** @type {number[]} */ p) => Math.log2(p.length) - 1;
const TRAILER = [0x3b];

/**
 * @param {number} w
 * @param {number} h
 * @param {number[] | null} palette
 * @param {{ version?: string, background?: number }} [o]
 */
function header(w, h, palette, o = {}) {
  return [...Buffer.from(`GIF${o.version ?? '89a'}`), ...u16(w), ...u16(h), palette ? 0x80 | size(palette) : 0, o.background ?? 0, 0, ...(palette ? rgb(palette) : [])];
}

/** @param {{ disposal?: number, delay?: number, transparent?: number | null }} o */
function control({ disposal = 0, delay = 0, transparent = null }) {
  return [0x21, 0xf9, 4, (disposal << 2) | (transparent === null ? 0 : 1), ...u16(delay), transparent ?? 0, 0];
}

/** @param {number} count */
function loopBlock(count, id = 'NETSCAPE2.0') {
  return [0x21, 0xff, 11, ...Buffer.from(id), 3, 1, ...u16(count), 0];
}

/**
 * LZW data (minimum code size, sub-blocks, terminator) for palette indices,
 * written by omggif.
 * @param {ArrayLike<number>} indices
 * @param {number} [colours] palette size the code size follows
 */
function lzw(indices, colours = 4) {
  const out = Buffer.alloc(indices.length * 2 + 1024);
  const writer = new omggif.GifWriter(out, Math.min(indices.length, 65535), 1, { palette: new Array(colours).fill(0) });
  const start = writer.getOutputBufferPosition();
  const end = writer.addFrame(0, 0, indices.length, 1, indices);
  return [...out.subarray(start + 10, end)];
}

/**
 * LZW data from explicit codes ([code, bits]), for damaged streams.
 * @param {number} minCodeSize
 * @param {[number, number][]} list
 */
function codes(minCodeSize, list) {
  const bytes = [];
  let cur = 0;
  let n = 0;
  for (const [c, w] of list) {
    cur |= c << n;
    n += w;
    for (; n >= 8; n -= 8, cur >>>= 8) bytes.push(cur & 255);
  }
  if (n) bytes.push(cur & 255);
  return [minCodeSize, bytes.length, ...bytes, 0];
}

/**
 * @param {number} x
 * @param {number} y
 * @param {number} w
 * @param {number} h
 * @param {number[]} data LZW data
 * @param {{ palette?: number[], interlaced?: boolean }} [o]
 */
function image(x, y, w, h, data, o = {}) {
  const flags = (o.palette ? 0x80 | size(o.palette) : 0) | (o.interlaced ? 0x40 : 0);
  return [0x2c, ...u16(x), ...u16(y), ...u16(w), ...u16(h), flags, ...(o.palette ? rgb(o.palette) : []), ...data];
}

/**
 * @param {string} name
 * @param {number[]} bytes
 * @param {{ animated?: boolean }} [how]
 */
function raw(name, bytes, how) {
  return keep(name, Buffer.from(bytes), how);
}

/** Rows of a frame in the order an interlaced GIF stores them. */
function interlaceOrder(/** @type {number} */ height) {
  const rows = [];
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]]) for (let y = start; y < height; y += step) rows.push(y);
  return rows;
}

// ---------------------------------------------------------------- GIFs with known pixels

// 4x2 screen; frame 0 paints it blue, frame 1 puts green at (1,0)-(2,0) with
// the disposal under test, frame 2 puts white at (3,1).
for (const disposal of [0, 1, 2, 3]) {
  gif(`disposal-${disposal}`, {
    width: 4,
    height: 2,
    palette: P,
    loop: 0,
    frames: [frame(0, 0, 4, '22222222', { disposal: 1, delay: 10 }), frame(1, 0, 2, '11', { disposal: /** @type {0|1|2|3} */ (disposal), delay: 10 }), frame(3, 1, 1, '3', { delay: 10 })],
  });
}
gif('disposal-3-first', {
  width: 3,
  height: 1,
  palette: P,
  loop: 0,
  frames: [frame(0, 0, 3, '000', { disposal: 3 }), frame(0, 0, 1, '1', { disposal: 3 }), frame(1, 0, 1, '2', { disposal: 3 }), frame(2, 0, 1, '3', { disposal: 1 }), frame(0, 0, 1, '2')],
});
for (const disposal of [4, 5, 7]) {
  // Red, then green at (0,0) with the disposal under test, then blue at (1,0).
  raw(`disposal-raw-${disposal}`, [...header(2, 1, P), ...loopBlock(0), ...image(0, 0, 2, 1, lzw([0, 0])), ...control({ disposal }), ...image(0, 0, 1, 1, lzw([1])), ...image(1, 0, 1, 1, lzw([2])), ...TRAILER], { animated: true });
}
raw('partial-still', [...header(3, 2, P, { background: 2 }), ...image(1, 0, 1, 1, lzw([0])), ...TRAILER]);
gif('transparent-index', { width: 3, height: 1, palette: P, loop: 0, frames: [frame(0, 0, 3, '012'), frame(0, 0, 3, '303', { transparent: 3 })] });
gif('local-palettes', {
  width: 2,
  height: 1,
  palette: P,
  loop: 0,
  frames: [frame(0, 0, 2, '01', { palette: [0x112233, 0x445566] }), frame(0, 0, 2, '10', { palette: [0x778899, 0xaabbcc, 0xddeeff] }), frame(1, 0, 1, '3')],
});
const INTERLACED_HEIGHTS = [1, 2, 3, 4, 5, 7, 8, 9, 10, 17];
for (const height of INTERLACED_HEIGHTS) {
  const width = 3;
  const digits = Array.from({ length: width * height }, (_, i) => (Math.floor(i / width) + i) % 3);
  const stored = interlaceOrder(height).flatMap((y) => digits.slice(y * width, (y + 1) * width));
  // On a taller screen, so rows written past the frame would show (the
  // unused transparent index keeps the rest transparent in sharp too).
  const clear = control({ transparent: 3 });
  raw(`interlaced-${height}`, [...header(width, height + 9, P), ...clear, ...image(0, 0, width, height, lzw(stored), { interlaced: true }), ...TRAILER]);
  raw(`plain-${height}`, [...header(width, height + 9, P), ...clear, ...image(0, 0, width, height, lzw(digits)), ...TRAILER]);
}
raw('out-of-bounds', [...header(2, 2, P), ...loopBlock(0), ...image(1, 1, 2, 2, lzw([0, 1, 2, 3])), ...image(1, 0, 3, 1, lzw([3, 3, 3])), ...TRAILER], { animated: true });
raw('screen-0x0', [...header(0, 0, P), ...image(1, 1, 2, 2, lzw([0, 1, 2, 3])), ...TRAILER]);
raw('gif87a-small-frame', [...header(4, 4, P, { version: '87a' }), ...image(1, 1, 2, 2, lzw([0, 1, 2, 3])), ...TRAILER]);
raw('gif87a', [...header(2, 1, P, { version: '87a' }), ...image(0, 0, 2, 1, lzw([3, 0])), ...TRAILER]);
raw('index-past-palette', [...header(3, 1, [RED, GREEN]), ...image(0, 0, 3, 1, lzw([0, 3, 2])), ...TRAILER]);
raw('no-palette', [...header(2, 1, null), ...control({ transparent: 1 }), ...image(0, 0, 2, 1, lzw([0, 1])), ...TRAILER]);
gif('delays', { width: 1, height: 1, palette: P, loop: 0, frames: [0, 1, 2, 10].map((delay) => frame(0, 0, 1, '0', { delay })) });
{
  const two = [frame(0, 0, 1, '0'), frame(0, 0, 1, '1')];
  gif('loop-absent', { width: 1, height: 1, palette: P, frames: two });
  gif('loop-0', { width: 1, height: 1, palette: P, loop: 0, frames: two });
  gif('loop-3', { width: 1, height: 1, palette: P, loop: 3, frames: two });
  const frames = [...image(0, 0, 1, 1, lzw([0])), ...image(0, 0, 1, 1, lzw([1]))];
  raw('loop-animexts', [...header(1, 1, P), ...loopBlock(4, 'ANIMEXTS1.0'), ...frames, ...TRAILER], { animated: true });
  raw('loop-twice', [...header(1, 1, P), ...loopBlock(5), ...frames, ...loopBlock(7), ...TRAILER], { animated: true });
}
// 256 colours of noisy runs fill the 4096-entry LZW table several times.
const LZW_WIDTH = 300;
const LZW_HEIGHT = 200;
const LZW_INDICES = Uint8Array.from({ length: LZW_WIDTH * LZW_HEIGHT }, (_, i) => ((i * 7919) % 13 < 9 ? (i >> 4) & 255 : (i * 31) & 255));
gif('lzw-256', { width: LZW_WIDTH, height: LZW_HEIGHT, palette: Array.from({ length: 256 }, (_, i) => i * 0x010101), frames: [{ x: 0, y: 0, width: LZW_WIDTH, height: LZW_HEIGHT, indices: LZW_INDICES }] });
// Code size 1: clear 2, end 3; the code width grows to 3 bits after the first new entry.
raw('lzw-min-1', [...header(4, 1, P), ...image(0, 0, 4, 1, codes(1, [[2, 2], [0, 2], [1, 2], [0, 3], [1, 3], [3, 3]])), ...TRAILER]);
const BODY = [...header(2, 1, P), ...loopBlock(0), ...image(0, 0, 2, 1, lzw([0, 1])), ...image(0, 0, 1, 1, lzw([2]))];
raw('trailing-garbage', [...BODY, ...TRAILER, ...Buffer.from('\r\n<html>junk</html>')], { animated: true });
raw('no-trailer', BODY, { animated: true });
raw('stray-bytes', [...BODY, 0x55, 0x66], { animated: true });
raw('cut-extension', [...BODY, 0x21, 0xfe, 10, 65, 66], { animated: true });
raw('extensions', [
  ...header(2, 1, P),
  ...[0x21, 0xfe, 5, ...Buffer.from('hello'), 0],
  ...[0x21, 0x01, 12, ...new Array(12).fill(0), 3, 65, 66, 67, 0],
  ...[0x21, 0x99, 2, 1, 2, 0],
  ...[0x21, 0xff, 11, ...Buffer.from('XMP DataXMP'), 4, 1, 2, 3, 4, 0],
  ...image(0, 0, 2, 1, lzw([1, 2])),
  ...TRAILER,
]);
gif('structure', {
  width: 5,
  height: 4,
  palette: [RED, GREEN, BLUE],
  loop: 2,
  comment: 'Created with GIMP',
  frames: [frame(0, 0, 5, '01201201201201201201', { delay: 20, disposal: 1 }), frame(2, 1, 2, '3030', { palette: [WHITE, RED, GREEN, BLUE], transparent: 3, disposal: 2, delay: 0 })],
});

describe('decodeGif: compositing as browsers do', () => {
  it('starts from a transparent canvas and ignores the background colour', () => {
    const d = decodeGif(named('partial-still'));
    expect(d.frames).toHaveLength(1);
    expect(d.frames[0].data).toEqual(rgba([[_, R, _], [_, _, _]]));
    expect(d.warnings).toEqual([]);
  });

  it('keeps the frame for disposal 0 (unspecified) and 1 (none)', () => {
    for (const name of ['disposal-0', 'disposal-1']) {
      const d = decodeGif(named(name));
      expect(d.frames.map((f) => f.data)).toEqual([
        rgba([[B, B, B, B], [B, B, B, B]]),
        rgba([[B, G, G, B], [B, B, B, B]]),
        rgba([[B, G, G, B], [B, B, B, W]]),
      ]);
    }
  });

  it('clears the frame rectangle to transparent for disposal 2', () => {
    const d = decodeGif(named('disposal-2'));
    expect(d.frames.map((f) => f.data)).toEqual([
      rgba([[B, B, B, B], [B, B, B, B]]),
      rgba([[B, G, G, B], [B, B, B, B]]),
      rgba([[B, _, _, B], [B, B, B, W]]),
    ]);
  });

  it('restores what was under the frame for disposal 3', () => {
    const d = decodeGif(named('disposal-3'));
    expect(d.frames.map((f) => f.data)).toEqual([
      rgba([[B, B, B, B], [B, B, B, B]]),
      rgba([[B, G, G, B], [B, B, B, B]]),
      rgba([[B, B, B, B], [B, B, B, W]]),
    ]);
  });

  it('restores to transparent after a first frame with disposal 3, and through runs of disposal 3', () => {
    expect(decodeGif(named('disposal-3-first')).frames.map((f) => f.data)).toEqual([rgba([[R, R, R]]), rgba([[G, _, _]]), rgba([[_, B, _]]), rgba([[_, _, W]]), rgba([[B, _, W]])]);
  });

  it('reads disposal 4 as 3 and 5-7 as 0, as Chromium and Firefox do', () => {
    for (const [disposal, left] of [[4, R], [5, G], [7, G]]) {
      const bytes = named(`disposal-raw-${disposal}`);
      expect(readGifStructure(bytes).frames[1].disposal).toBe(disposal === 4 ? 3 : 0);
      expect(decodeGif(bytes).frames[2].data).toEqual(rgba([[left, B]]));
    }
  });

  it('leaves the canvas under transparent-index pixels', () => {
    expect(decodeGif(named('transparent-index')).frames[1].data).toEqual(rgba([[R, R, B]]));
  });

  it('uses each frame\'s local palette', () => {
    const bytes = named('local-palettes');
    expect(decodeGif(bytes).frames.map((f) => f.data)).toEqual([
      Buffer.from([0x11, 0x22, 0x33, 255, 0x44, 0x55, 0x66, 255]),
      Buffer.from([0xaa, 0xbb, 0xcc, 255, 0x77, 0x88, 0x99, 255]),
      Buffer.from([0xaa, 0xbb, 0xcc, 255, 255, 255, 255, 255]),
    ]);
    expect(readGifStructure(bytes).frames.map((f) => f.localPalette)).toEqual([[0x112233, 0x445566], [0x778899, 0xaabbcc, 0xddeeff, 0], null]);
  });

  it('puts the rows of interlaced frames in place, for every height', () => {
    for (const height of INTERLACED_HEIGHTS) {
      const interlaced = named(`interlaced-${height}`);
      const plain = named(`plain-${height}`);
      expect(readGifStructure(interlaced).frames[0].interlaced).toBe(true);
      expect(decodeGif(interlaced).frames[0].data.equals(decodeGif(plain).frames[0].data), `height ${height}`).toBe(true);
    }
  });

  it('clips later frames to the canvas and enlarges the canvas to hold frame 0, as Chromium does', () => {
    const bytes = named('out-of-bounds');
    const s = readGifStructure(bytes);
    expect([s.width, s.height]).toEqual([2, 2]);
    expect(s.frames.map((f) => [f.left, f.top, f.width, f.height])).toEqual([[1, 1, 2, 2], [1, 0, 3, 1]]);
    const d = decodeGif(bytes);
    expect([d.width, d.height]).toEqual([3, 3]);
    expect(d.frames[1].data).toEqual(rgba([[_, W, W], [_, R, G], [_, B, W]]));
    expect(d.warnings).toEqual(['frame 0 reaches outside the 2x2 logical screen: the canvas is 3x3, as in Chromium; Firefox shows 2x2']);
  });

  it('warns where Firefox sizes the canvas differently: a 0x0 screen, GIF87a', () => {
    const zero = decodeGif(named('screen-0x0'));
    expect([zero.width, zero.height]).toEqual([3, 3]);
    expect(zero.frames[0].data).toEqual(rgba([[_, _, _], [_, R, G], [_, B, W]]));
    expect(zero.warnings).toEqual(['frame 0 reaches outside the 0x0 logical screen: the canvas is 3x3, as in Chromium; Firefox shows 2x2 with frame 0 at the top-left corner']);
    const old = decodeGif(named('gif87a-small-frame'));
    expect([old.width, old.height]).toEqual([4, 4]);
    expect(old.warnings).toEqual(['GIF87a whose frame 0 does not fill the 4x4 screen: Firefox shows 2x2 with frame 0 at the top-left corner']);
    expect(decodeGif(named('gif87a')).warnings).toEqual([]);
  });

  it('shows indices past the palette, and pixels of a GIF without any palette, as opaque black', () => {
    expect(decodeGif(named('index-past-palette')).frames[0].data).toEqual(rgba([[R, K, K]]));
    expect(decodeGif(named('no-palette')).frames[0].data).toEqual(rgba([[K, _]]));
  });

  it('waits 10 hundredths for delays of 0 and 1, as browsers do', () => {
    const d = decodeGif(named('delays'));
    expect(d.frames.map((f) => f.rawDelayCs)).toEqual([0, 1, 2, 10]);
    expect(d.frames.map((f) => f.delayCs)).toEqual([10, 10, 2, 10]);
  });

  it('reports the loop count: absent, 0 (forever), 3, ANIMEXTS1.0, and the last of several', () => {
    expect(decodeGif(named('loop-absent')).loop).toBeNull();
    expect(decodeGif(named('loop-0')).loop).toBe(0);
    expect(decodeGif(named('loop-3')).loop).toBe(3);
    expect(readGifStructure(named('loop-animexts')).loop).toBe(4);
    expect(readGifStructure(named('loop-twice')).loop).toBe(7);
  });

  it('decodes LZW streams with full tables, 12-bit codes and a minimum code size of 1', () => {
    const d = decodeGif(named('lzw-256'));
    const expected = Buffer.alloc(LZW_WIDTH * LZW_HEIGHT * 4);
    LZW_INDICES.forEach((v, i) => expected.set([v, v, v, 255], i * 4));
    expect(d.frames[0].data.equals(expected)).toBe(true);
    expect(decodeGif(named('lzw-min-1')).frames[0].data).toEqual(rgba([[R, G, R, G]]));
  });
});

describe('decodeGif: damaged and hostile files', () => {
  it('decodes the image data before trailing garbage and says how many bytes were ignored', () => {
    const s = readGifStructure(named('trailing-garbage'));
    expect(s.end).toBe(BODY.length + 1);
    expect(s.trailingBytes).toBe(19);
    expect(s.truncated).toBe(false);
    const d = decodeGif(named('trailing-garbage'));
    expect(d.frames[1].data).toEqual(rgba([[B, G]]));
    expect(d.warnings).toEqual(['19 bytes after the GIF trailer ignored']);
  });

  it('decodes a GIF whose trailer is missing after complete frames, and says so', () => {
    const d = decodeGif(named('no-trailer'));
    expect(d.truncated).toBe(true);
    expect(d.frames).toHaveLength(2);
    expect(d.warnings).toEqual(['no GIF trailer: the data ends after frame 1']);
    // Bytes that are no GIF block where the trailer belongs: browsers stop there too.
    const stray = decodeGif(named('stray-bytes'));
    expect([stray.truncated, stray.trailingBytes, stray.frames.length]).toEqual([true, 2, 2]);
    // An extension cut short after the last frame is no loss either.
    expect(decodeGif(named('cut-extension')).frames).toHaveLength(2);
  });

  it('throws for data that ends inside a frame', () => {
    const cut = Buffer.from([...header(2, 1, P), ...image(0, 0, 2, 1, lzw([0, 1]))].slice(0, -2));
    expect(() => decodeGif(cut)).toThrow(/^truncated GIF: the data ends inside frame 0/);
    expect(() => readGifStructure(cut)).toThrow(/^truncated GIF/);
    expect(() => decodeGif(Buffer.from('GIF89a\x01\x00'))).toThrow(/^truncated GIF/);
    expect(() => decodeGif(Buffer.from([...header(2, 1, P)]))).toThrow(/^truncated GIF: the data ends before the first frame/);
  });

  it('throws "corrupt GIF" for impossible structure and bad LZW data', () => {
    const gifWith = (/** @type {number[]} */ data) => Buffer.from([...header(4, 1, P), ...image(0, 0, 4, 1, data), ...TRAILER]);
    expect(() => decodeGif(gifWith(codes(2, [[4, 3], [0, 3], [7, 3], [5, 3]])))).toThrow(/^corrupt GIF: frame 0 uses the undefined LZW code 7$/);
    expect(() => decodeGif(gifWith(codes(2, [[4, 3], [6, 3], [5, 3]])))).toThrow(/^corrupt GIF: frame 0 uses the undefined LZW code 6/);
    expect(() => decodeGif(gifWith(codes(2, [[4, 3], [0, 3], [1, 3], [5, 3]])))).toThrow(/^corrupt GIF: frame 0 has LZW data for 2 of 4 pixels/);
    expect(() => decodeGif(gifWith(codes(9, [[512, 10], [0, 10]])))).toThrow(/^corrupt GIF: frame 0 has LZW minimum code size 9/);
    expect(() => readGifStructure(Buffer.from([...header(1, 1, P), 0x99, ...TRAILER]))).toThrow(/^corrupt GIF: unknown block 0x99 at offset 25/);
    // Chromium stops at a control block that is not 4 bytes long (Firefox reads on).
    expect(() => readGifStructure(Buffer.from([...header(1, 1, P), 0x21, 0xf9, 5, 0, 0, 0, 0, 0, 0, ...image(0, 0, 1, 1, lzw([0])), ...TRAILER]))).toThrow(/^corrupt GIF: graphic control extension of 5 bytes/);
    expect(() => decodeGif(Buffer.from([...header(1, 1, P), ...TRAILER]))).toThrow(/^corrupt GIF: no frames/);
  });

  it('throws "not a GIF" for other signatures', () => {
    expect(() => readGifStructure(Buffer.from('GIF88a\x01\x00\x01\x00\x00\x00\x00;'))).toThrow(/^not a GIF/);
    expect(() => decodeGif(Buffer.from('hello'))).toThrow(/^not a GIF/);
  });

  it('skips comment, plain-text, unknown and foreign application extensions', () => {
    const bytes = named('extensions');
    const s = readGifStructure(bytes);
    expect(s).toMatchObject({ width: 2, height: 1, loop: null, truncated: false, trailingBytes: 0, end: bytes.length });
    expect(decodeGif(bytes).frames[0].data).toEqual(rgba([[G, B]]));
  });

  it('refuses a 65535x65535 screen before allocating anything', () => {
    const bomb = Buffer.from([...header(65535, 65535, P), ...image(0, 0, 65535, 65535, lzw([0])), ...TRAILER]);
    const held = process.memoryUsage().arrayBuffers;
    expect(() => decodeGif(bomb)).toThrow(/pixel limit/);
    // Refused from the header: not a frame's worth of memory was taken (the screen alone would be 17 GB).
    expect(process.memoryUsage().arrayBuffers - held).toBeLessThan(1024 * 1024);
  });

  it('applies maxPixels to the screen, to each frame, and to all frames together', () => {
    const small = Buffer.from([...header(10, 10, P), ...image(0, 0, 10, 10, lzw(new Array(100).fill(0))), ...TRAILER]);
    expect(decodeGif(small, { maxPixels: 100 }).frames).toHaveLength(1);
    expect(() => decodeGif(small, { maxPixels: 99 })).toThrow(/logical screen of 10x10 exceeds the pixel limit of 99/);
    const wideFrame = Buffer.from([...header(1, 1, P), ...image(0, 0, 1000, 1000, lzw([0])), ...TRAILER]);
    expect(() => decodeGif(wideFrame, { maxPixels: 1000 })).toThrow(/frame 0 of 1000x1000 exceeds the pixel limit/);
    const frames = Array.from({ length: 11 }, () => image(0, 0, 10, 1, lzw(new Array(10).fill(0)))).flat();
    expect(() => decodeGif(Buffer.from([...header(10, 1, P), ...frames, ...TRAILER]), { maxPixels: 100 })).toThrow(/11 frames of 10x1 exceeds the pixel limit of 100 in all/);
  });
});

describe('readGifStructure', () => {
  it('describes screen, palette, loop and every frame', () => {
    const bytes = named('structure');
    expect(readGifStructure(bytes)).toEqual({
      width: 5,
      height: 4,
      globalPalette: [RED, GREEN, BLUE, 0],
      backgroundIndex: 0,
      loop: 2,
      frames: [
        { left: 0, top: 0, width: 5, height: 4, interlaced: false, localPalette: null, disposal: 1, delayCs: 20, transparentIndex: null },
        { left: 2, top: 1, width: 2, height: 2, interlaced: false, localPalette: [WHITE, RED, GREEN, BLUE], disposal: 2, delayCs: 0, transparentIndex: 3 },
      ],
      end: bytes.length,
      trailingBytes: 0,
      truncated: false,
    });
  });
});

describe('sniffImageType (src/site/sniff.js)', () => {
  it('tells images apart by their first bytes, whatever they are called', async () => {
    const dir = await tempDir();
    try {
      const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#ff0000' } }).png().toBuffer();
      await fs.writeFile(path.join(dir, 'photo.gif'), png);
      const renamed = await fs.readFile(path.join(dir, 'photo.gif'));
      expect(sniffImageType(renamed)).toBe('png');
      expect(() => decodeGif(renamed)).toThrow(/^not a GIF/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    const image = sharp({ create: { width: 2, height: 2, channels: 3, background: '#00ff00' } });
    expect(sniffImageType(await image.clone().jpeg().toBuffer())).toBe('jpeg');
    expect(sniffImageType(await image.clone().webp().toBuffer())).toBe('webp');
    const avif = await image.clone().avif().toBuffer();
    expect(sniffImageType(avif)).toBe('avif');
    // sharp's AVIF: ftyp box of 28 bytes, major brand avif, compatible mif1 avif miaf.
    expect(avif.subarray(4, 12).toString('latin1')).toBe('ftypavif');
    const compatibleOnly = Buffer.from(avif);
    compatibleOnly.write('mif1', 8, 'latin1');
    expect(sniffImageType(compatibleOnly)).toBe('avif');
    // HEIC is ISO-BMFF too, but no image a browser shows.
    const heic = Buffer.from(compatibleOnly);
    heic.write('heic', 8, 'latin1');
    heic.write('heic', 20, 'latin1');
    expect(sniffImageType(heic)).toBeNull();
    expect(sniffImageType(named('disposal-0'))).toBe('gif');
    expect(sniffImageType(Buffer.from('GIF87a'))).toBe('gif');
    expect(sniffImageType(Buffer.from('<html>'))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
  });
});

/**
 * sharp's decode: frame 0 alone, or every page of an animation.
 * @param {Buffer} bytes
 * @param {boolean} animated
 */
async function sharpFrames(bytes, animated) {
  const input = sharp(bytes, { animated });
  const meta = await input.metadata();
  const { data, info } = await input.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const pageHeight = animated ? meta.pageHeight ?? info.height : info.height;
  const pageBytes = info.width * pageHeight * 4;
  const pages = [];
  for (let o = 0; o < data.length; o += pageBytes) pages.push(data.subarray(o, o + pageBytes));
  return { width: info.width, height: pageHeight, pages, meta };
}

describe('sharp (libvips) cross-check', () => {
  // Where sharp differs from browsers (libvips 8.18 with libnsgif):
  // - a GIF with no transparent index anywhere decodes without alpha, so
  //   pixels no frame covers, and those cleared by disposal 2 or 3, are opaque
  //   black instead of transparent;
  // - disposal 2 on a frame without a transparent index fills the rectangle
  //   with the background colour; browsers clear it to transparent;
  // - with an LZW minimum code size of 1 (out of spec, but Chromium reads
  //   it) codes widen one entry later than in Chromium, so pixels differ;
  // - metadata: delays are as written (a control block's 0 stays 0 where
  //   browsers wait 100 ms) and frames without a control block get 100 ms;
  //   `loop` counts plays (the NETSCAPE count + 1, 1 without a loop block,
  //   0 forever).
  // Disposal 3 (also 4, and on frame 0), transparency, interlacing, local
  // palettes and clipping agree with browsers.
  const AGREES_EXCEPT = new Map([
    ['partial-still', 'no alpha: the uncovered pixels are opaque black'],
    ['disposal-2', 'disposal 2 without transparency fills with the background colour'],
    ['disposal-3-first', 'no alpha: the pixels restored to transparent are opaque black'],
    ['out-of-bounds', 'no alpha: the uncovered pixels are opaque black'],
    ['lzw-min-1', 'code width grows one entry later'],
    ['screen-0x0', 'no alpha: the uncovered pixels are opaque black'],
    ['gif87a-small-frame', 'no alpha: the uncovered pixels are opaque black'],
  ]);

  it('decodes frame 0 of every GIF here as decodeGif does, and every frame of the animations', async () => {
    const checked = [];
    for (const [name, { bytes, animated }] of built) {
      if (AGREES_EXCEPT.has(name)) continue;
      const ours = decodeGif(bytes);
      const still = await sharpFrames(bytes, false);
      expect([still.width, still.height], name).toEqual([ours.width, ours.height]);
      expect(still.pages[0].equals(ours.frames[0].data), `${name} frame 0`).toBe(true);
      if (animated) {
        const all = await sharpFrames(bytes, true);
        expect(all.pages.length, name).toBe(ours.frames.length);
        all.pages.forEach((page, i) => expect(page.equals(ours.frames[i].data), `${name} frame ${i}`).toBe(true));
      }
      checked.push(name);
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it('differs from browsers where noted', async () => {
    const partial = await sharpFrames(named('partial-still'), false);
    expect(partial.pages[0]).toEqual(rgba([[K, R, K], [K, K, K]]));
    const cleared = await sharpFrames(named('disposal-2'), true);
    expect(cleared.pages[2]).toEqual(rgba([[B, R, R, B], [B, B, B, W]])); // the background index 0, red
    const restored = await sharpFrames(named('disposal-3-first'), true);
    expect(restored.pages[1]).toEqual(rgba([[G, K, K]]));
    const minOne = await sharpFrames(named('lzw-min-1'), false);
    expect(minOne.pages[0]).toEqual(rgba([[R, G, R, R]]));
    // omggif writes no control block for frame 0 (delay 0, nothing else to say).
    const delays = await sharpFrames(named('delays'), true);
    expect(delays.meta.delay).toEqual([100, 10, 20, 100]);
    const explicitZero = await sharpFrames(named('disposal-raw-5'), true);
    expect(explicitZero.meta.delay).toEqual([100, 0, 100]);
    expect((await sharp(named('loop-3')).metadata()).loop).toBe(4);
    expect((await sharp(named('loop-absent')).metadata()).loop).toBe(1);
  });
});

/**
 * Decode GIFs in Chromium (WebCodecs ImageDecoder, which composites frames as
 * <img> shows them) and hash each frame's RGBA.
 * @param {import('playwright-core').Page} page
 * @param {Buffer} bytes
 * @returns {Promise<{ width: number, height: number, frames: string[] } | { error: string }>}
 */
async function chromiumDecode(page, bytes) {
  return page.evaluate(async (b64) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    try {
      const decoder = new ImageDecoder({ data, type: 'image/gif' });
      await decoder.tracks.ready;
      await decoder.completed;
      const count = decoder.tracks.selectedTrack?.frameCount ?? 0;
      const frames = [];
      let width = 0;
      let height = 0;
      for (let i = 0; i < count; i++) {
        const { image } = await decoder.decode({ frameIndex: i });
        width = image.displayWidth;
        height = image.displayHeight;
        const canvas = new OffscreenCanvas(width, height);
        const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
        ctx.drawImage(image, 0, 0);
        image.close();
        const digest = await crypto.subtle.digest('SHA-256', ctx.getImageData(0, 0, width, height).data);
        frames.push([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''));
      }
      return { width, height, frames };
    } catch (err) {
      return { error: String(err) };
    }
  }, bytes.toString('base64'));
}

/**
 * decodeGif's answer in the same form as chromiumDecode's.
 * @param {Buffer} bytes
 * @returns {{ width: number, height: number, frames: string[] } | { error: string }}
 */
function oursHashed(bytes) {
  try {
    const d = decodeGif(bytes);
    return { width: d.width, height: d.height, frames: d.frames.map((f) => createHash('sha256').update(f.data).digest('hex')) };
  } catch (err) {
    return { error: String(err) };
  }
}

describe('Chromium cross-check', () => {
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;
  /** @type {string | undefined} */
  let dir;

  afterAll(async () => {
    await browser?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  /** A page on a file: URL: ImageDecoder needs a secure context. */
  async function page() {
    browser = await launchChromium();
    dir = await tempDir();
    const file = path.join(dir, 'blank.html');
    await fs.writeFile(file, '<!doctype html><title>gif</title>');
    const p = await browser.newPage();
    await p.goto(pathToFileURL(file).href);
    return p;
  }

  chromiumTest('draws every GIF here and in fixtures/gifs pixel for pixel as decodeGif does', async () => {
    const p = await page();
    const corpus = (await fs.readdir(path.join(FIXTURES, 'gifs'))).filter((f) => f.endsWith('.gif'));
    const cases = [...[...built].map(([name, { bytes }]) => [name, bytes]), ...(await Promise.all(corpus.map(async (f) => [`gifs/${f}`, await fs.readFile(path.join(FIXTURES, 'gifs', f))])))];
    expect(cases.length).toBeGreaterThan(140);
    for (const [name, bytes] of cases) {
      const theirs = await chromiumDecode(p, /** @type {Buffer} */ (bytes));
      // Every GIF here decodes; a failure on either side shows as { error }.
      expect({ name, ...theirs }).toEqual({ name, ...oursHashed(/** @type {Buffer} */ (bytes)) });
    }
  }, 120_000);
});

describe('the corpus fixtures/gifs', () => {
  /** @type {import('../scripts/fixtures/gif-corpus.js').CorpusManifestEntry[]} */
  let manifest;
  /** @type {string} */
  let fresh;

  beforeAll(async () => {
    manifest = JSON.parse(await fs.readFile(path.join(FIXTURES, 'gifs.json'), 'utf8'));
    fresh = await tempDir('pagediet-gifs-');
    await makeGifCorpus(fresh);
  }, 60_000);

  afterAll(async () => {
    if (fresh) await fs.rm(fresh, { recursive: true, force: true });
  });

  it('is what the generator writes, byte for byte (run `npm run fixtures` after changing it)', async () => {
    const committed = (await fs.readdir(path.join(FIXTURES, 'gifs'))).sort();
    expect((await fs.readdir(path.join(fresh, 'gifs'))).sort()).toEqual(committed);
    for (const f of committed) {
      const [a, b] = await Promise.all([fs.readFile(path.join(FIXTURES, 'gifs', f)), fs.readFile(path.join(fresh, 'gifs', f))]);
      expect(a.equals(b), f).toBe(true);
    }
    expect(await fs.readFile(path.join(fresh, 'gifs.json'), 'utf8')).toBe(await fs.readFile(path.join(FIXTURES, 'gifs.json'), 'utf8'));
  });

  it('has over 100 GIFs of many kinds and sizes, under 1.5 MB in all', () => {
    expect(manifest.length).toBeGreaterThanOrEqual(100);
    const kinds = new Set(manifest.map((e) => e.kind));
    for (const k of ['text', 'button', 'bullet', 'arrow', 'rule', 'spacer', 'icon', 'logo', 'photo', 'scan', 'screenshot', 'diagram', 'chart', 'tiny', 'animation']) expect(kinds.has(k), k).toBe(true);
    expect(manifest.reduce((n, e) => n + e.bytes, 0)).toBeLessThan(1.5 * 1024 * 1024);
    const pixels = manifest.map((e) => e.width * e.height);
    expect(Math.min(...pixels)).toBe(1);
    expect(Math.max(...pixels)).toBe(640 * 480);
    const colours = new Set(manifest.map((e) => e.colours));
    for (const c of [2, 3, 5, 7, 16, 64, 128, 256]) expect(colours.has(c), `${c} colours`).toBe(true);
    expect(manifest.filter((e) => e.interlaced).length).toBeGreaterThanOrEqual(5);
    expect(manifest.filter((e) => e.transparent).length).toBeGreaterThanOrEqual(20);
  });

  it('has at least 12 animations with every disposal method, mixed delays and local palettes', async () => {
    const anims = manifest.filter((e) => e.kind === 'animation');
    expect(anims.length).toBeGreaterThanOrEqual(12);
    for (const d of [0, 1, 2, 3]) expect(anims.some((a) => a.disposals.includes(d)), `disposal ${d}`).toBe(true);
    const structures = await Promise.all(anims.map(async (a) => readGifStructure(await fs.readFile(path.join(FIXTURES, 'gifs', a.file)))));
    const delays = new Set(structures.flatMap((s) => s.frames.map((f) => f.delayCs)));
    for (const d of [0, 1, 5, 10, 50]) expect(delays.has(d), `delay ${d}`).toBe(true);
    expect(structures.some((s) => s.frames.length > 2 && s.frames.every((f) => f.localPalette))).toBe(true);
    expect(new Set(structures.map((s) => s.loop))).toEqual(new Set([0, 3, null]));
  });

  it('describes every file truly in gifs.json', async () => {
    for (const e of manifest) {
      const bytes = await fs.readFile(path.join(FIXTURES, 'gifs', e.file));
      const s = readGifStructure(bytes);
      expect({ file: e.file, width: s.width, height: s.height, frames: s.frames.length, disposals: s.frames.map((f) => f.disposal), bytes: bytes.length, interlaced: s.frames.some((f) => f.interlaced), loop: s.loop }).toEqual({ file: e.file, width: e.width, height: e.height, frames: e.frames, disposals: e.disposals, bytes: e.bytes, interlaced: e.interlaced, loop: e.loop });
      expect(e.quirks.includes('trailing-bytes'), e.file).toBe(s.trailingBytes > 0);
      expect(e.quirks.includes('gif87a'), e.file).toBe(bytes.subarray(0, 6).toString('latin1') === 'GIF87a');
    }
  });

  it('decodes every file, and sharp agrees on every frame', async () => {
    for (const e of manifest) {
      const bytes = await fs.readFile(path.join(FIXTURES, 'gifs', e.file));
      const ours = decodeGif(bytes);
      expect(ours.warnings, e.file).toEqual(e.quirks.includes('trailing-bytes') ? [`${ours.trailingBytes} bytes after the GIF trailer ignored`] : []);
      const theirs = await sharpFrames(bytes, e.frames > 1);
      expect(theirs.pages.length, e.file).toBe(ours.frames.length);
      theirs.pages.forEach((page, i) => expect(page.equals(ours.frames[i].data), `${e.file} frame ${i}`).toBe(true));
    }
  }, 60_000);
});
