import { describe, expect, it, vi } from 'vitest';
import fs from 'node:fs/promises';
import zlib from 'node:zlib';
import sharp from 'sharp';
import UPNG from 'upng-js';
import { encodeApng } from '../src/images/apng.js';
import { decodeApng } from '../src/images/apng-frames.js';
import { PNG_SIGNATURE, chunk, ihdr, readChunks } from '../src/images/png-chunks.js';
import { animation as animationJob } from '../src/images/jobs/animation.js';

/** What the encoder's output is turned into before the animation job proves it; undefined: left as written. */
const tamper = vi.hoisted(() => ({ with: /** @type {((png: Buffer) => Buffer) | undefined} */ (undefined) }));
vi.mock('../src/images/apng.js', async (importOriginal) => {
  const real = /** @type {typeof import('../src/images/apng.js')} */ (await importOriginal());
  /** @type {typeof real.encodeApng} */
  const encodeApng = async (...args) => {
    const png = await real.encodeApng(...args);
    return tamper.with ? tamper.with(png) : png;
  };
  return { ...real, encodeApng };
});

const RED = [220, 20, 30, 255], BLUE = [10, 40, 200, 255], GREEN = [0, 160, 0, 255], WHITE = [255, 255, 255, 255];
const CLEAR = [0, 0, 0, 0];

/** @param {number} seed a small deterministic generator, so that images are the same on every run */
function random(seed) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** @param {number} width @param {number} height @param {(x: number, y: number) => number[]} pixel RGBA */
function canvas(width, height, pixel) {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4);
  return data;
}

/**
 * A copy of a canvas with a rectangle painted.
 * @param {Buffer} data @param {number} width @param {{ x: number, y: number, w: number, h: number }} rect
 * @param {(x: number, y: number) => number[]} pixel
 */
function paint(data, width, { x, y, w, h }, pixel) {
  const out = Buffer.from(data);
  for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) out.set(pixel(i, j), (j * width + i) * 4);
  return out;
}

/** The fcTL fields of every frame. @param {Buffer} png */
function frameControls(png) {
  return readChunks(png).filter((c) => c.type === 'fcTL').map(({ data }) => ({
    sequence: data.readUInt32BE(0), width: data.readUInt32BE(4), height: data.readUInt32BE(8), x: data.readUInt32BE(12), y: data.readUInt32BE(16),
    delayNum: data.readUInt16BE(20), delayDen: data.readUInt16BE(22), dispose: data[24], blend: data[25],
  }));
}

/** @param {Buffer} png */
function viaUpng(png) {
  const decoded = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.length));
  return { decoded, frames: UPNG.toRGBA8(decoded).map((frame) => Buffer.from(frame)) };
}

/**
 * Checks an encoded animation with fast-png (src/images/apng-frames.js), UPNG and sharp.
 * @param {{ width: number, height: number, loop: number, frames: { data: Buffer, delayCs: number }[] }} animation
 * @param {{ upng?: boolean }} [options] upng false where UPNG's own compositing is inexact
 */
async function roundTrip(animation, { upng = true } = {}) {
  const png = await encodeApng(animation, { zopfliIterations: 0 });
  const decoded = decodeApng(png);
  expect([decoded.width, decoded.height, decoded.loop]).toEqual([animation.width, animation.height, animation.loop]);
  expect(decoded.frames.length).toBe(animation.frames.length);
  decoded.frames.forEach((frame, i) => {
    expect(frame.data, `frame ${i}`).toEqual(animation.frames[i].data);
    expect([frame.delayNum, frame.delayDen]).toEqual([animation.frames[i].delayCs, 100]);
  });
  if (upng) {
    const { decoded: theirs, frames } = viaUpng(png);
    expect(theirs.tabs.acTL).toEqual({ num_frames: animation.frames.length, num_plays: animation.loop });
    expect(frames).toEqual(animation.frames.map((frame) => frame.data));
    expect(theirs.frames.map((/** @type {{ delay: number }} */ frame) => frame.delay)).toEqual(animation.frames.map((frame) => frame.delayCs * 10));
  }
  expect(await sharp(png).ensureAlpha().raw().toBuffer()).toEqual(animation.frames[0].data);
  // Sequence numbers run 0, 1, 2... over fcTL and fdAT together.
  const sequenced = readChunks(png).filter((c) => c.type === 'fcTL' || c.type === 'fdAT');
  expect(sequenced.map((c) => c.data.readUInt32BE(0))).toEqual(sequenced.map((_, i) => i));
  expect(readChunks(png).map((c) => c.type).slice(0, 2)).toEqual(['IHDR', 'acTL']);
  return png;
}

describe('encodeApng', () => {
  const width = 40, height = 30;
  const next = random(11);
  const colours = [RED, BLUE, GREEN, WHITE, [250, 200, 0, 255], [90, 90, 90, 255]];
  const cells = Array.from({ length: 100 }, () => colours[Math.floor(next() * colours.length)]);
  const background = canvas(width, height, (x, y) => cells[Math.floor(y / 4) * 10 + Math.floor(x / 4)]);
  const moved = paint(background, width, { x: 5, y: 7, w: 3, h: 2 }, () => [1, 2, 3, 255]);
  const boxed = paint(moved, width, { x: 30, y: 20, w: 4, h: 4 }, () => BLUE);
  const corners = paint(paint(boxed, width, { x: 0, y: 0, w: 1, h: 1 }, () => GREEN), width, { x: 39, y: 29, w: 1, h: 1 }, () => GREEN);

  it('stores later frames as the rectangle that changed, 1x1 when nothing did', async () => {
    const animation = {
      width, height, loop: 0,
      frames: [background, moved, moved, boxed, corners].map((data, i) => ({ data, delayCs: [10, 20, 0, 35, 7][i] })),
    };
    const png = await roundTrip(animation);
    const controls = frameControls(png);
    expect(controls.map(({ x, y, width: w, height: h }) => [x, y, w, h])).toEqual([
      [0, 0, 40, 30], [5, 7, 3, 2], [0, 0, 1, 1], [30, 20, 4, 4], [0, 0, 40, 30],
    ]);
    expect(controls.every((c) => c.dispose === 0 && c.delayDen === 100)).toBe(true);
    expect(controls[0].blend).toBe(0);
    expect(readChunks(png).find((c) => c.type === 'acTL')?.data).toEqual(Buffer.from([0, 0, 0, 5, 0, 0, 0, 0]));
  });

  it('keeps transparency exact and writes the loop count', async () => {
    const size = 24;
    const empty = canvas(size, size, () => CLEAR);
    const square = (/** @type {number} */ at) => paint(empty, size, { x: at, y: at, w: 6, h: 6 }, () => RED);
    const dotted = paint(square(8), size, { x: 20, y: 2, w: 2, h: 2 }, () => BLUE);
    const animation = { width: size, height: size, loop: 3, frames: [square(2), square(5), square(8), dotted].map((data) => ({ data, delayCs: 12 })) };
    await roundTrip(animation);
  });

  it('falls back to RGBA when the frames have more than 256 colours between them', async () => {
    const size = 14;
    const frames = [0, 1, 2].map((k) => canvas(size, size, (x, y) => (x < 3 && y < 3 ? CLEAR : [x * 18, y * 18, k * 100, 255])));
    const png = await roundTrip({ width: size, height: size, loop: 1, frames: frames.map((data) => ({ data, delayCs: 5 })) });
    expect([readChunks(png)[0].data[8], readChunks(png)[0].data[9]]).toEqual([8, 6]);
  });

  it('blends OVER, with unchanged pixels transparent, where that is exact and smaller', async () => {
    // A clear palette entry lets a sparse change skip the pixels between.
    const size = 32;
    const base = canvas(size, size, (x, y) => ((x >> 2) + (y >> 2)) % 2 ? RED : WHITE);
    const changed = canvas(size, size, (x, y) => ((x * 7 + y * 3) % 11 === 0 ? BLUE : [...base.subarray((y * size + x) * 4, (y * size + x) * 4 + 4)]));
    const png = await roundTrip({ width: size, height: size, loop: 0, frames: [base, changed].map((data) => ({ data, delayCs: 50 })) });
    expect(frameControls(png)[1].blend).toBe(1);
  });

  it('keeps semi-transparent pixels and hidden colours exact', async () => {
    const size = 10;
    const first = canvas(size, size, (x, y) => [x * 20, y * 20, 77, (x * 25) % 256]);
    const second = paint(first, size, { x: 2, y: 3, w: 4, h: 2 }, (x) => [200, 100, x, 128]);
    const third = paint(second, size, { x: 0, y: 9, w: 10, h: 1 }, (x) => [x, 1, 2, 0]);
    // UPNG composites with floats and truncates, so only src/images/apng-frames.js is held to these pixels.
    await roundTrip({ width: size, height: size, loop: 2, frames: [first, second, third].map((data) => ({ data, delayCs: 9 })) }, { upng: false });
  });

  describe('disposal', () => {
    const size = 48, sprite = 8;
    const spots = [[4, 4], [36, 4], [36, 36], [4, 36], [20, 20], [30, 12]];
    const spriteAt = (/** @type {Buffer} */ under, /** @type {number[]} */ [x, y]) =>
      paint(under, size, { x, y, w: sprite, h: sprite }, (i, j) => ((i + j) % 2 ? [250, 0, 250, 255] : [0, 250, 250, 255]));

    it('restores the background under a moving sprite (dispose PREVIOUS), storing only the sprite', async () => {
      // A throbber: a static, detailed background, and a sprite drawn somewhere else in each frame.
      const rand = random(5);
      const tiles = Array.from({ length: 144 }, () => colours[Math.floor(rand() * colours.length)]);
      const scene = canvas(size, size, (x, y) => tiles[Math.floor(y / 4) * 12 + Math.floor(x / 4)]);
      const animation = { width: size, height: size, loop: 0, frames: [scene, ...spots.map((spot) => spriteAt(scene, spot))].map((data) => ({ data, delayCs: 8 })) };
      const png = await roundTrip(animation);
      const controls = frameControls(png);
      expect(controls.slice(1).map(({ x, y, width: w, height: h }) => [x, y, w, h])).toEqual(spots.map(([x, y]) => [x, y, sprite, sprite]));
      expect(controls.some((c) => c.dispose === 2)).toBe(true);
      expect(controls[0].dispose).not.toBe(2); // PREVIOUS on the first frame would mean BACKGROUND
      expect(controls[controls.length - 1].dispose).toBe(0);
      const noneOnly = await encodeApng(animation, { zopfliIterations: 0, dispose: false });
      expect(frameControls(noneOnly).every((c) => c.dispose === 0)).toBe(true);
      expect(decodeApng(noneOnly).frames.map((f) => f.data)).toEqual(animation.frames.map((f) => f.data));
      expect(png.length).toBeLessThan(noneOnly.length);
    });

    it('clears a sprite on a transparent canvas (dispose BACKGROUND), the first frame too', async () => {
      const empty = canvas(size, size, () => CLEAR);
      const animation = { width: size, height: size, loop: 0, frames: spots.map((spot) => ({ data: spriteAt(empty, spot), delayCs: 5 })) };
      const png = await roundTrip(animation);
      const controls = frameControls(png);
      expect(controls.slice(1).map(({ x, y, width: w, height: h }) => [x, y, w, h])).toEqual(spots.slice(1).map(([x, y]) => [x, y, sprite, sprite]));
      expect(controls[0].dispose).toBe(1);
      expect(controls.some((c) => c.dispose === 2)).toBe(false); // BACKGROUND ties PREVIOUS here and comes first
      expect(controls[controls.length - 1].dispose).toBe(0);
      expect(png.length).toBeLessThan((await encodeApng(animation, { zopfliIterations: 0, dispose: false })).length);
    });
  });

  it('writes a single frame as a one-frame APNG', async () => {
    await roundTrip({ width: 3, height: 2, loop: 0, frames: [{ data: canvas(3, 2, (x) => (x ? RED : BLUE)), delayCs: 100 }] });
  });

  it('refuses frames of the wrong size and delays beyond 16 bits', async () => {
    const data = canvas(2, 2, () => RED);
    await expect(encodeApng({ width: 2, height: 3, loop: 0, frames: [{ data, delayCs: 1 }] })).rejects.toThrow(/canvas needs 24/);
    await expect(encodeApng({ width: 2, height: 2, loop: 0, frames: [{ data, delayCs: 70000 }] })).rejects.toThrow(/delay/);
  });
});

/**
 * @typedef {object} HandFrame
 * @property {number} x @property {number} y @property {number} w @property {number} h
 * @property {(x: number, y: number) => number[]} pixel RGBA within the frame
 * @property {number} [dispose] @property {number} [blend] @property {number} [delay]
 */

/**
 * An RGBA APNG built chunk by chunk, to exercise the decoder's compositing.
 * @param {number} width @param {number} height @param {HandFrame[]} frames
 * @param {{ defaultImage?: Buffer }} [options] defaultImage: an IDAT image that is not a frame
 */
function handApng(width, height, frames, { defaultImage } = {}) {
  /** @param {HandFrame} frame */
  const scanlines = ({ w, h, pixel }) => {
    const rows = [];
    for (let y = 0; y < h; y++) rows.push(Buffer.from([0]), canvas(w, 1, (x) => pixel(x, y)));
    return zlib.deflateSync(Buffer.concat(rows));
  };
  const parts = [PNG_SIGNATURE, ihdr({ width, height, bitDepth: 8, colorType: 6 })];
  const control = Buffer.alloc(8);
  control.writeUInt32BE(frames.length, 0);
  parts.push(chunk('acTL', control));
  if (defaultImage) parts.push(chunk('IDAT', zlib.deflateSync(defaultImage)));
  let sequence = 0;
  frames.forEach((frame, i) => {
    const fctl = Buffer.alloc(26);
    [sequence++, frame.w, frame.h, frame.x, frame.y].forEach((value, k) => fctl.writeUInt32BE(value, k * 4));
    fctl.writeUInt16BE(frame.delay ?? 10, 20);
    fctl.writeUInt16BE(100, 22);
    fctl[24] = frame.dispose ?? 0;
    fctl[25] = frame.blend ?? 0;
    parts.push(chunk('fcTL', fctl));
    if (i === 0 && !defaultImage) parts.push(chunk('IDAT', scanlines(frame)));
    else {
      const seq = Buffer.alloc(4);
      seq.writeUInt32BE(sequence++, 0);
      parts.push(chunk('fdAT', Buffer.concat([seq, scanlines(frame)])));
    }
  });
  parts.push(chunk('IEND'));
  return Buffer.concat(parts);
}

describe('decodeApng', () => {
  const W = 4, H = 4;
  const redCanvas = canvas(W, H, () => RED);
  const fullRed = { x: 0, y: 0, w: W, h: H, pixel: () => RED };

  it('clears a frame\'s rectangle for dispose BACKGROUND', () => {
    const png = handApng(W, H, [fullRed, { x: 1, y: 1, w: 2, h: 2, pixel: () => BLUE, dispose: 1 }, { x: 0, y: 0, w: 1, h: 1, pixel: () => GREEN }]);
    const expected = [
      redCanvas,
      paint(redCanvas, W, { x: 1, y: 1, w: 2, h: 2 }, () => BLUE),
      paint(paint(redCanvas, W, { x: 1, y: 1, w: 2, h: 2 }, () => CLEAR), W, { x: 0, y: 0, w: 1, h: 1 }, () => GREEN),
    ];
    expect(decodeApng(png).frames.map((f) => f.data)).toEqual(expected);
    expect(viaUpng(png).frames).toEqual(expected);
  });

  it('restores the rectangle for dispose PREVIOUS', () => {
    const png = handApng(W, H, [fullRed, { x: 2, y: 2, w: 2, h: 2, pixel: () => BLUE, dispose: 2 }, { x: 0, y: 3, w: 1, h: 1, pixel: () => GREEN }]);
    const expected = [
      redCanvas,
      paint(redCanvas, W, { x: 2, y: 2, w: 2, h: 2 }, () => BLUE),
      paint(redCanvas, W, { x: 0, y: 3, w: 1, h: 1 }, () => GREEN),
    ];
    expect(decodeApng(png).frames.map((f) => f.data)).toEqual(expected);
    expect(viaUpng(png).frames).toEqual(expected);
  });

  it('treats dispose PREVIOUS on the first frame as BACKGROUND', () => {
    const png = handApng(W, H, [{ ...fullRed, dispose: 2 }, { x: 0, y: 0, w: 1, h: 1, pixel: () => GREEN }]);
    const expected = [redCanvas, paint(canvas(W, H, () => CLEAR), W, { x: 0, y: 0, w: 1, h: 1 }, () => GREEN)];
    expect(decodeApng(png).frames.map((f) => f.data)).toEqual(expected);
  });

  it('blends OVER: transparent pixels keep the canvas, opaque ones replace it', () => {
    const pattern = (/** @type {number} */ x, /** @type {number} */ y) => ((x + y) % 2 ? BLUE : [9, 9, 9, 0]);
    const png = handApng(W, H, [fullRed, { x: 1, y: 0, w: 3, h: 3, pixel: pattern, blend: 1 }]);
    const expected = [redCanvas, paint(redCanvas, W, { x: 1, y: 0, w: 3, h: 3 }, (x, y) => ((x - 1 + y) % 2 ? BLUE : RED))];
    expect(decodeApng(png).frames.map((f) => f.data)).toEqual(expected);
    expect(viaUpng(png).frames).toEqual(expected);
  });

  it('blends OVER with partial alpha by the PNG formula, rounded', () => {
    const png = handApng(2, 1, [
      { x: 0, y: 0, w: 2, h: 1, pixel: (x) => (x ? CLEAR : [200, 100, 50, 255]) },
      { x: 0, y: 0, w: 2, h: 1, pixel: (x) => (x ? [255, 0, 0, 128] : [0, 0, 255, 128]), blend: 1 },
    ]);
    // Opaque under: colour (0*128 + c*127) / 255 per channel, alpha 255; clear under: the source as it is.
    expect([...decodeApng(png).frames[1].data]).toEqual([100, 50, 153, 255, 255, 0, 0, 128]);
  });

  it('leaves out a default image that has no fcTL of its own', () => {
    const white = Buffer.concat(Array.from({ length: H }, () => Buffer.concat([Buffer.from([0]), canvas(W, 1, () => WHITE)])));
    const png = handApng(W, H, [fullRed, { x: 3, y: 3, w: 1, h: 1, pixel: () => BLUE }], { defaultImage: white });
    const expected = [redCanvas, paint(redCanvas, W, { x: 3, y: 3, w: 1, h: 1 }, () => BLUE)];
    expect(decodeApng(png).frames.map((f) => f.data)).toEqual(expected);
    expect(viaUpng(png).frames).toEqual(expected);
  });

  it('reads still PNGs of every colour type and bit depth as sharp does', async () => {
    const width = 13, height = 7;
    const rgba = canvas(width, height, (x, y) => [x * 19, y * 36, (x * y * 7) & 255, x === 3 ? 0 : 255 - y * 20]);
    const grey = canvas(width, height, (x, y) => [x * 19, x * 19, x * 19, 255 - y * 30]);
    const raw = { raw: { width, height, channels: /** @type {4} */ (4) } };
    const pngs = [
      await sharp(rgba, raw).png().toBuffer(),
      await sharp(rgba, raw).removeAlpha().png().toBuffer(),
      await sharp(grey, raw).toColourspace('b-w').png().toBuffer(),
      await sharp(grey, raw).toColourspace('b-w').removeAlpha().png().toBuffer(),
      ...(await Promise.all([2, 4, 16, 256].map((colours) => sharp(rgba, raw).png({ palette: true, colours, dither: 0 }).toBuffer()))),
      await sharp(rgba, raw).png({ progressive: true }).toBuffer(),
      await sharp(rgba, raw).png({ progressive: true, palette: true, colours: 4, dither: 0 }).toBuffer(),
      await sharp(canvas(1, 1, () => BLUE), { raw: { width: 1, height: 1, channels: 4 } }).png({ progressive: true }).toBuffer(),
      await sharp(canvas(9, 10, (x, y) => [x * 28, y * 25, 3, 255]), { raw: { width: 9, height: 10, channels: 4 } }).png({ progressive: true }).toBuffer(),
    ];
    const seen = new Set();
    for (const png of pngs) {
      const header = readChunks(png)[0].data;
      seen.add(`${header[9]}/${header[8]}${header[12] ? 'i' : ''}`);
      const decoded = decodeApng(png);
      expect(decoded.frames).toHaveLength(1);
      expect(decoded.frames[0].data, `colour type ${header[9]}, depth ${header[8]}`).toEqual(await sharp(png).ensureAlpha().raw().toBuffer());
    }
    expect([...seen].sort()).toEqual(['0/8', '2/8', '3/1', '3/2', '3/2i', '3/4', '3/8', '4/8', '6/8', '6/8i']);
  });

  it('reads colour keys and interlaced bit depths below 8 as sharp does', async () => {
    /**
     * A still PNG from samples, packed at its bit depth, each row filtered None.
     * @param {number} width @param {number} height @param {number} bitDepth @param {number} colorType
     * @param {(x: number, y: number) => number[]} samples @param {{ interlace?: number, extra?: Buffer[] }} [options]
     */
    const still = (width, height, bitDepth, colorType, samples, { interlace = 0, extra = [] } = {}) => {
      const passes = interlace ? [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] : [[0, 0, 1, 1]];
      const rows = [];
      for (const [px, py, dx, dy] of passes) {
        for (let y = py; y < height; y += dy) {
          const values = [];
          for (let x = px; x < width; x += dx) values.push(...samples(x, y));
          if (values.length === 0) continue;
          const row = Buffer.alloc(1 + Math.ceil((values.length * bitDepth) / 8));
          values.forEach((v, i) => (row[1 + ((i * bitDepth) >> 3)] |= v << (8 - bitDepth - ((i * bitDepth) & 7))));
          rows.push(row);
        }
      }
      return Buffer.concat([PNG_SIGNATURE, ihdr({ width, height, bitDepth, colorType, interlace }), ...extra, chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND')]);
    };
    const palette = chunk('PLTE', Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37) & 255)));
    const pngs = [
      still(2, 1, 8, 2, (x) => (x ? [9, 8, 7] : [1, 2, 3]), { extra: [chunk('tRNS', Buffer.from([0, 1, 0, 2, 0, 3]))] }), // a key on fewer than 3 pixels
      still(5, 3, 4, 0, (x, y) => [(x * 3 + y) & 15], { extra: [chunk('tRNS', Buffer.from([0, 7]))] }),
      still(9, 9, 1, 0, (x, y) => [(x ^ y) & 1], { interlace: 1 }),
      still(10, 7, 4, 3, (x, y) => [(x + y * 3) & 15], { interlace: 1, extra: [palette, chunk('tRNS', Buffer.from([0, 90, 255]))] }),
      still(3, 5, 2, 0, (x, y) => [(x + y) & 3], { interlace: 1, extra: [chunk('tRNS', Buffer.from([0, 2]))] }),
    ];
    for (const [i, png] of pngs.entries()) expect(decodeApng(png).frames[0].data, `image ${i}`).toEqual(await sharp(png).ensureAlpha().raw().toBuffer());
  });

  it('refuses files that break the PNG or APNG rules', async () => {
    const good = handApng(W, H, [fullRed, { x: 0, y: 0, w: 1, h: 1, pixel: () => GREEN }]);
    expect(() => decodeApng(good.subarray(0, good.length - 20))).toThrow(/Truncated PNG/);
    const wrongCount = Buffer.from(good);
    const actl = readChunks(wrongCount).find((c) => c.type === 'acTL');
    wrongCount.writeUInt32BE(3, /** @type {number} */ (actl?.offset) + 8);
    expect(() => decodeApng(wrongCount)).toThrow(/CRC mismatch/);
    const recounted = Buffer.concat([good.subarray(0, 33), chunk('acTL', Buffer.from([0, 0, 0, 3, 0, 0, 0, 0])), good.subarray(33 + 20)]);
    expect(() => decodeApng(recounted)).toThrow(/acTL says 3 frames, found 2/);
    const outside = handApng(W, H, [fullRed, { x: 3, y: 3, w: 2, h: 1, pixel: () => GREEN }]);
    expect(() => decodeApng(outside)).toThrow(/outside the 4x4 canvas/);
    const unordered = rewrite(good, (type, data) => (type === 'fdAT' ? Buffer.concat([Buffer.from([0, 0, 0, 7]), data.subarray(4)]) : data));
    expect(() => decodeApng(unordered)).toThrow(/fdAT out of sequence/);
    const deep = Buffer.concat([PNG_SIGNATURE, ihdr({ width: 1, height: 1, bitDepth: 16, colorType: 6 }), chunk('IDAT', zlib.deflateSync(Buffer.alloc(9))), chunk('IEND')]);
    expect(() => decodeApng(deep)).toThrow(/bit depth 16 is not supported/);
    // Image data of the wrong length either way (fast-png alone would read both).
    const short = Buffer.concat([PNG_SIGNATURE, ihdr({ width: 2, height: 2, bitDepth: 8, colorType: 6 }), chunk('IDAT', zlib.deflateSync(Buffer.alloc(9))), chunk('IEND')]);
    expect(() => decodeApng(short)).toThrow(/Truncated PNG image data/);
    const long = Buffer.concat([PNG_SIGNATURE, ihdr({ width: 2, height: 2, bitDepth: 8, colorType: 6 }), chunk('IDAT', zlib.deflateSync(Buffer.alloc(19))), chunk('IEND')]);
    expect(() => decodeApng(long)).toThrow(/1 bytes too many/);
  });
});

/**
 * A PNG with each chunk's data passed through edit, CRCs written again.
 * @param {Buffer} png @param {(type: string, data: Buffer, index: number) => Buffer} edit
 */
function rewrite(png, edit) {
  return Buffer.concat([PNG_SIGNATURE, ...readChunks(png).map(({ type, data }, i) => chunk(type, edit(type, Buffer.from(data), i)))]);
}

describe('the animation job, when the APNG it wrote does not prove', () => {
  const options = { format: /** @type {const} */ ('apng'), zopfliIterations: 0, maxPixels: 4_000_000, lossy: false, quality: /** @type {[number, number]} */ ([65, 80]) };
  /** @param {string} name a fixture GIF @param {((png: Buffer) => Buffer) | undefined} change */
  async function run(name, change) {
    tamper.with = change;
    try {
      return await animationJob({ bytes: await fs.readFile(`fixtures/gifs/${name}`), options });
    } finally {
      tamper.with = undefined;
    }
  }
  /** @param {Buffer} png @param {number} value the dispose_op every fcTL is given */
  const disposeAll = (png, value) => rewrite(png, (type, data) => (type === 'fcTL' ? Buffer.concat([data.subarray(0, 24), Buffer.from([value]), data.subarray(25)]) : data));

  it('keeps the GIF, with the reason, whether the file cannot be read back or shows other frames', async () => {
    // Both GIFs become APNGs as written: anim-flame with dispose BACKGROUND, anim-construction with PREVIOUS.
    for (const name of ['anim-flame.gif', 'anim-construction.gif']) {
      const written = await run(name, undefined);
      expect(written.status, name).toBe('converted');
      expect(readChunks(/** @type {{ bytes: Buffer }} */ (written).bytes).some((c) => c.type === 'fcTL' && c.data[24] !== 0), name).toBe(true);
    }
    /** @type {[string, (png: Buffer) => Buffer, RegExp][]} */
    const cases = [
      ['anim-flame.gif', (png) => png.subarray(0, png.length - 30), /^APNG cannot be read back \(Truncated PNG/],
      ['anim-flame.gif', (png) => rewrite(png, (type, data) => (type === 'acTL' ? Buffer.from([0, 0, 0, 9, 0, 0, 0, 0]) : data)), /^APNG cannot be read back \(Invalid APNG: acTL says 9 frames, found 6\)/],
      ['anim-flame.gif', (png) => rewrite(png, (type, data) => (type === 'fdAT' ? Buffer.concat([Buffer.from([0, 0, 0, 99]), data.subarray(4)]) : data)), /^APNG cannot be read back \(Invalid APNG: fdAT out of sequence/],
      ['anim-flame.gif', (png) => rewrite(png, (type, data) => (type === 'PLTE' ? Buffer.concat([data.subarray(0, 3).map((v) => 255 - v), data.subarray(3)]) : data)), /^APNG frame 0 differs$/],
      // Valid APNGs whose frames are composited otherwise: the proof is the composition, not only the pixels stored.
      ['anim-flame.gif', (png) => disposeAll(png, 0), /^APNG frame \d+ differs$/],
      ['anim-construction.gif', (png) => disposeAll(png, 0), /^APNG frame \d+ differs$/],
    ];
    for (const [name, change, reason] of cases) {
      const result = await run(name, change);
      expect(result.status, String(reason)).toBe('kept');
      expect(/** @type {{ reason: string }} */ (result).reason).toMatch(reason);
      expect(result).not.toHaveProperty('bytes');
    }
  });
});
