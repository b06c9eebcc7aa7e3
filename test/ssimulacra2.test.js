/**
 * SSIMULACRA 2 (src/images/ssimulacra2.js) pinned to its references.
 *
 * - SSIMULACRA 2.1, the version pagediet decides with: scores recorded from
 *   libjxl's own tool (tools/ssimulacra2 built from libjxl at commit aea3a06,
 *   2026-08) for images this file makes from arithmetic alone, so the same
 *   bytes on every machine; no 2.1 tool is installable here, so its scores
 *   are pinned as numbers.
 * - The shared pipeline (linear RGB, XYB, downscaling, the recursive Gaussian,
 *   the SSIM and edge maps) live against calc-s2-rust, the npm wasm build of
 *   an early rust-av/ssimulacra2, which implements SSIMULACRA 2.0: our
 *   `version: '2.0'` against it on seeded images encoded by sharp.
 * - Exact properties: identical images score 100, an opaque RGBA image scores
 *   as its RGB, JPEG qualities score in order, bad input throws.
 * - Exact scores, to the last bit, so that making the code faster cannot
 *   change one: a table of scores pinned from the first implementation, and
 *   ssimulacra2Scorer (the reference's half computed once) scoring exactly as
 *   ssimulacra2() on every image, size, alpha case and order of calls.
 *
 * Agreement is not to the last digit: the references compute in float32, and
 * the recursive Gaussian's rounding errors (its poles are on the unit circle)
 * leave a floor that depends on every rounding; calc-s2-rust adds its own
 * (a polynomial pow in sRGB decoding, an XYB round trip). Measured: 2.1
 * within 0.13 of libjxl, 2.0 within 0.26 of calc-s2-rust, means about 0.02.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
// The package has no "main" or "exports", only "module", so its file is
// imported by name; initSync instantiates the wasm from its bytes.
import { initSync, new_buffer as newBuffer, calc_s2 as calcS2 } from 'calc-s2-rust/calc_s2_rust.js';
import { Rng } from '../scripts/fixtures/random.js';
import { ssimulacra2, ssimulacra2Scorer } from '../src/images/ssimulacra2.js';
import { dropAlpha, opaqueRgba } from './helpers/rgba.js';

/** The seed of the images compared with calc-s2-rust: fixed, so every run is the same; PAGEDIET_SSIMULACRA2_SEED chooses another. */
const SEED = Number(process.env.PAGEDIET_SSIMULACRA2_SEED ?? 20261125);
if (!Number.isInteger(SEED)) throw new Error(`PAGEDIET_SSIMULACRA2_SEED must be a whole number, not '${process.env.PAGEDIET_SSIMULACRA2_SEED}'`);
console.log(`test/ssimulacra2.test.js: image seed ${SEED} (set PAGEDIET_SSIMULACRA2_SEED to run another)`);

/** @typedef {{ data: Uint8Array, width: number, height: number, channels: 3 | 4 }} Image */

const require = createRequire(import.meta.url);
const wasm = initSync(readFileSync(require.resolve('calc-s2-rust/calc_s2_rust_bg.wasm')));
let bufferKey = 0;

/**
 * calc-s2-rust's SSIMULACRA 2.0 score of two RGB images. It takes its inputs
 * as named buffers in the wasm memory (it frees both after the score), and
 * its published build logs every buffer it makes, so console.log is quiet
 * meanwhile.
 * @param {Image} a
 * @param {Image} b
 */
function calcS2Rust(a, b) {
  if (a.channels !== 3 || b.channels !== 3) throw new Error('calc-s2-rust takes RGB only');
  const log = console.log;
  console.log = () => {};
  try {
    const keys = [a, b].map((image) => {
      const key = `image${bufferKey++}`;
      const pointer = newBuffer(key, image.data.length);
      new Uint8Array(wasm.memory.buffer, pointer, image.data.length).set(image.data);
      return key;
    });
    return calcS2(keys[0], keys[1], a.width, a.height);
  } finally {
    console.log = log;
  }
}

/** @param {number} seed numbers in [0, 1), the same on every machine (the fixtures' mulberry32) */
function random(seed) {
  const rng = new Rng(seed);
  return () => rng.next();
}

/** @param {number} v */
const byte = (v) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/**
 * A photograph-like image from arithmetic alone (no Math.sin, no encoder):
 * smooth colour fields interpolated from a coarse random grid, hard-edged and
 * soft-edged shapes, and grain.
 * @param {number} width
 * @param {number} height
 * @param {number} seed
 * @param {3 | 4} [channels] 4: alpha falls from opaque to transparent left to right, shapes opaque
 * @returns {Image}
 */
function synthPhoto(width, height, seed, channels = 3) {
  const rnd = random(seed);
  const gw = 6, gh = 5;
  const grid = Array.from({ length: gw * gh * 3 }, () => 30 + rnd() * 200);
  const shapes = Array.from({ length: 9 }, () => ({
    disc: rnd() < 0.5, x: rnd() * width, y: rnd() * height,
    rx: (0.04 + rnd() * 0.2) * width, ry: (0.04 + rnd() * 0.2) * height,
    colour: [rnd() * 255, rnd() * 255, rnd() * 255], soft: rnd() < 0.5,
  }));
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const gx = (x / (width - 1)) * (gw - 1), gy = (y / (height - 1)) * (gh - 1);
      const ix = Math.min(gw - 2, Math.floor(gx)), iy = Math.min(gh - 2, Math.floor(gy));
      const fx = gx - ix, fy = gy - iy;
      const px = [0, 0, 0];
      for (let c = 0; c < 3; c++) {
        /** @param {number} i @param {number} j */
        const at = (i, j) => grid[((iy + j) * gw + ix + i) * 3 + c];
        px[c] = (at(0, 0) * (1 - fx) + at(1, 0) * fx) * (1 - fy) + (at(0, 1) * (1 - fx) + at(1, 1) * fx) * fy;
      }
      let opaqueShape = false;
      for (const s of shapes) {
        const dx = (x - s.x) / s.rx, dy = (y - s.y) / s.ry;
        const d = s.disc ? dx * dx + dy * dy : Math.max(dx * dx, dy * dy);
        // Inside: the shape's colour; a soft shape fades over its outer fifth.
        const t = d <= 0.64 ? 1 : d <= 1 ? (s.soft ? (1 - d) / 0.36 : 1) : 0;
        if (t > 0) opaqueShape = true;
        for (let c = 0; c < 3; c++) px[c] = px[c] * (1 - t) + s.colour[c] * t;
      }
      const grain = (rnd() + rnd() - 1) * 16;
      const o = (y * width + x) * channels;
      for (let c = 0; c < 3; c++) data[o + c] = byte(px[c] + grain);
      if (channels === 4) data[o + 3] = opaqueShape ? 255 : byte(255 - (255 * x) / (width - 1));
    }
  }
  return { data, width, height, channels };
}

/** @param {Image} image */
const copy = (image) => ({ ...image, data: image.data.slice() });

/**
 * A copy with FN applied to every colour sample (alpha kept).
 * @param {Image} image
 * @param {(v: number, c: number) => number} fn
 */
function map(image, fn) {
  const out = copy(image);
  const { channels } = image;
  for (let i = 0; i < out.data.length; i++) if (i % channels < 3) out.data[i] = fn(image.data[i], i % channels);
  return out;
}

/** @param {Image} image @param {number} k @param {number} seed */
function noise(image, k, seed) {
  const rnd = random(seed);
  return map(image, (v) => byte(v + Math.round((rnd() * 2 - 1) * k)));
}

/** @param {Image} image 3x3 box blur, edges repeated */
function box(image) {
  const out = copy(image);
  const { width, height, channels, data } = image;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let j = -1; j <= 1; j++) {
          for (let i = -1; i <= 1; i++) {
            const xx = Math.min(width - 1, Math.max(0, x + i)), yy = Math.min(height - 1, Math.max(0, y + j));
            sum += data[(yy * width + xx) * channels + c];
          }
        }
        out.data[(y * width + x) * channels + c] = Math.round(sum / 9);
      }
    }
  }
  return out;
}

/** @param {Image} image @param {number} strength each 8x8 block pulled toward its mean */
function blocks(image, strength) {
  const out = copy(image);
  const { width, height, channels, data } = image;
  for (let by = 0; by < height; by += 8) {
    for (let bx = 0; bx < width; bx += 8) {
      for (let c = 0; c < 3; c++) {
        let sum = 0, n = 0;
        for (let y = by; y < Math.min(height, by + 8); y++) for (let x = bx; x < Math.min(width, bx + 8); x++) { sum += data[(y * width + x) * channels + c]; n++; }
        const mean = sum / n;
        for (let y = by; y < Math.min(height, by + 8); y++) {
          for (let x = bx; x < Math.min(width, bx + 8); x++) {
            const o = (y * width + x) * channels + c;
            out.data[o] = byte(data[o] * (1 - strength) + mean * strength);
          }
        }
      }
    }
  }
  return out;
}

/** Distortions from arithmetic alone. @type {Record<string, (image: Image) => Image>} */
const DISTORTIONS = {
  'noise 2': (image) => noise(image, 2, 11),
  'noise 6': (image) => noise(image, 6, 12),
  'noise 20': (image) => noise(image, 20, 13),
  'posterize 6': (image) => map(image, (v) => byte(Math.round(v / 6) * 6)),
  'posterize 24': (image) => map(image, (v) => byte(Math.round(v / 24) * 24)),
  'box blur 3x3': box,
  'blocks 8x8 50%': (image) => blocks(image, 0.5),
  'blocks 8x8 90%': (image) => blocks(image, 0.9),
  'red +4': (image) => map(image, (v, c) => (c === 0 ? byte(v + 4) : v)),
};

/**
 * Scores of libjxl's tools/ssimulacra2 (SSIMULACRA 2.1; commit aea3a06) for
 * synthPhoto(width, height, seed, channels) against each distortion, the
 * images given to it as PNG. Small sizes take the reference's scale loop to
 * its edges (a last scale of 4 pixels, fewer than 6 scales); the last two
 * rows blend transparency: an RGB reference with an RGBA distorted image
 * (against grey 0.5), an RGBA reference (against 0.1 and 0.9, the worse).
 * @type {[number, number, number, 3 | 4, string, number][]} width, height, seed, channels, distortion, score
 */
const LIBJXL = [
  [192, 144, 7, 3, 'noise 2', 94.447], [192, 144, 7, 3, 'noise 6', 84.8068], [192, 144, 7, 3, 'noise 20', 48.1492],
  [192, 144, 7, 3, 'posterize 6', 92.3137], [192, 144, 7, 3, 'posterize 24', 66.2759], [192, 144, 7, 3, 'box blur 3x3', 63.8235],
  [192, 144, 7, 3, 'blocks 8x8 50%', 44.9325], [192, 144, 7, 3, 'blocks 8x8 90%', 3.4964], [192, 144, 7, 3, 'red +4', 92.2575],
  [192, 144, 8, 4, 'noise 2', 95.3653], [192, 144, 8, 4, 'noise 6', 87.6315], [192, 144, 8, 4, 'noise 20', 59.8238],
  [192, 144, 8, 4, 'posterize 6', 93.478], [192, 144, 8, 4, 'posterize 24', 73.4271], [192, 144, 8, 4, 'box blur 3x3', 64.0852],
  [192, 144, 8, 4, 'blocks 8x8 50%', 45.8063], [192, 144, 8, 4, 'blocks 8x8 90%', 8.4689], [192, 144, 8, 4, 'red +4', 92.517],
  [61, 37, 9, 3, 'noise 2', 86.6175], [61, 37, 9, 3, 'noise 6', 54.0791], [61, 37, 9, 3, 'noise 20', -34.2782],
  [61, 37, 9, 3, 'posterize 6', 79.802], [61, 37, 9, 3, 'posterize 24', 21.5499], [61, 37, 9, 3, 'box blur 3x3', 11.3215],
  [61, 37, 9, 3, 'blocks 8x8 50%', -24.3012], [61, 37, 9, 3, 'blocks 8x8 90%', -64.1403], [61, 37, 9, 3, 'red +4', 95.6044],
  [8, 8, 36, 3, 'noise 6', 95.8301], [8, 8, 36, 3, 'box blur 3x3', 83.3471],
  [9, 13, 42, 3, 'noise 6', 95.5148], [9, 13, 42, 3, 'box blur 3x3', 79.3399],
  [12, 12, 44, 3, 'noise 6', 95.7753], [12, 12, 44, 3, 'box blur 3x3', 80.8548],
  [16, 16, 52, 3, 'noise 6', 93.1433], [16, 16, 52, 3, 'box blur 3x3', 66.2763],
  [17, 11, 48, 3, 'noise 6', 95.2409], [17, 11, 48, 3, 'box blur 3x3', 82.7479],
  [15, 8, 43, 3, 'noise 6', 95.7422], [15, 8, 43, 3, 'box blur 3x3', 80.2655],
  [8, 40, 68, 3, 'noise 6', 95.1971], [8, 40, 68, 3, 'box blur 3x3', 84.8508],
  [33, 9, 62, 3, 'noise 6', 95.3811], [33, 9, 62, 3, 'box blur 3x3', 80.8439],
];

/**
 * Exact scores of synthPhoto(width, height, seed, channels) against each
 * distortion, as the first implementation (commit 4f3e207, before the scorer
 * and the row-at-a-time blur) computed them: every change for speed must
 * leave them to the last bit. They depend on nothing but IEEE arithmetic and
 * V8's Math.pow and Math.cbrt (ports of fdlibm); should a Node release change
 * those, every row moves at once, by an ulp or so, and the table is pinned
 * again from the code of that commit.
 * @type {[number, number, number, 3 | 4, string, '2.1' | '2.0', number][]} width, height, seed, channels, distortion, version, score
 */
const EXACT = [
  [192, 144, 7, 3, 'noise 2', '2.1', 94.4643187564253], [192, 144, 7, 3, 'noise 6', '2.1', 84.81679887863812],
  [192, 144, 7, 3, 'noise 20', '2.1', 48.15303463583482], [192, 144, 7, 3, 'posterize 6', '2.1', 92.34980649731608],
  [192, 144, 7, 3, 'posterize 24', '2.1', 66.29920564114012], [192, 144, 7, 3, 'box blur 3x3', '2.1', 63.813077385000994],
  [192, 144, 7, 3, 'blocks 8x8 50%', '2.1', 44.93554974924056], [192, 144, 7, 3, 'blocks 8x8 90%', '2.1', 3.499445025202448],
  [192, 144, 7, 3, 'red +4', '2.1', 92.32065864609172], [192, 144, 8, 4, 'noise 6', '2.1', 87.65103969450794],
  [192, 144, 8, 4, 'box blur 3x3', '2.1', 64.08528394863274], [192, 144, 8, 4, 'blocks 8x8 50%', '2.1', 45.808220859049094],
  [192, 144, 8, 4, 'red +4', '2.1', 92.53374632790484], [61, 37, 9, 3, 'noise 6', '2.1', 54.05496774742309],
  [61, 37, 9, 3, 'posterize 24', '2.1', 21.55251493433714], [8, 8, 36, 3, 'noise 6', '2.1', 95.83014445886792],
  [9, 13, 42, 3, 'noise 6', '2.1', 95.51489219806425], [17, 11, 48, 3, 'noise 6', '2.1', 95.2408079599176],
  [33, 9, 62, 3, 'noise 6', '2.1', 95.3805602666862], [9, 13, 43, 4, 'box blur 3x3', '2.1', 82.13963074528803],
  [192, 144, 7, 3, 'noise 6', '2.0', 88.18889244975851], [192, 144, 7, 3, 'box blur 3x3', '2.0', 68.41881552757107],
  [192, 144, 8, 4, 'noise 6', '2.0', 92.85722501246526],
];
/** The same for synthPhoto(96, 64, 30) as RGB, as RGBA, and as RGB with every alpha 255, compared with each other. */
const EXACT_ALPHA = { rgbVsRgba: 22.368432918625587, rgbaVsRgb: -49.22975746569614, opaqueVsRgba: -49.368566225444425 };

/**
 * @param {Image} image
 * @param {'jpeg' | 'webp' | 'avif'} format
 * @param {object} options
 * @returns {Promise<Image>} the encoded image decoded again, RGB
 */
async function encoded(image, format, options) {
  const raw = { width: image.width, height: image.height, channels: image.channels };
  const file = await sharp(image.data, { raw })[format](options).toBuffer();
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 };
}

/** @param {Image} image @param {number} sigma */
async function blurred(image, sigma) {
  const { data } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } }).blur(sigma).raw().toBuffer({ resolveWithObject: true });
  return { ...image, data: new Uint8Array(data) };
}

/** @param {number[]} diffs */
const meanAbs = (diffs) => diffs.reduce((sum, d) => sum + Math.abs(d), 0) / diffs.length;

describe('ssimulacra2', () => {
  it('scores identical images exactly 100, in both versions, with and without alpha, down to 8x8', () => {
    for (const image of [synthPhoto(192, 144, 1), synthPhoto(192, 144, 2, 4), synthPhoto(8, 8, 3), synthPhoto(9, 8, 4, 4)]) {
      expect(ssimulacra2(image, image)).toBe(100);
      expect(ssimulacra2(image, copy(image))).toBe(100);
      expect(ssimulacra2(image, image, { version: '2.0' })).toBe(100);
    }
  });

  it('scores an opaque RGBA image exactly as its RGB', () => {
    const rgb = synthPhoto(97, 61, 5);
    const distorted = DISTORTIONS['noise 6'](rgb);
    /** @param {Image} image */
    const opaque = (image) => {
      const data = new Uint8Array(image.width * image.height * 4).fill(255);
      for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) data.set(image.data.subarray(i, i + 3), j);
      return { ...image, data, channels: /** @type {const} */ (4) };
    };
    const score = ssimulacra2(rgb, distorted);
    expect(score).toBeLessThan(100);
    expect(ssimulacra2(opaque(rgb), distorted)).toBe(score);
    expect(ssimulacra2(rgb, opaque(distorted))).toBe(score);
    expect(ssimulacra2(opaque(rgb), opaque(distorted))).toBe(score);
  });

  it('scores JPEG qualities in order: 20 < 40 < 60 < 80 < 95', async () => {
    const image = synthPhoto(192, 144, SEED);
    const scores = [];
    for (const quality of [20, 40, 60, 80, 95]) scores.push(ssimulacra2(image, await encoded(image, 'jpeg', { quality })));
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(new Set(scores).size).toBe(scores.length);
    expect(scores[4]).toBeLessThan(100);
  });

  it('refuses images of different sizes, under 8x8, or whose data does not match', () => {
    const image = synthPhoto(16, 16, 6);
    expect(() => ssimulacra2(image, synthPhoto(16, 17, 6))).toThrow(/differ in size: reference 16x16, distorted 16x17/);
    expect(() => ssimulacra2(synthPhoto(7, 16, 6), synthPhoto(7, 16, 6))).toThrow(/at least 8x8 pixels, these are 7x16/);
    expect(() => ssimulacra2(synthPhoto(16, 7, 6), synthPhoto(16, 7, 6))).toThrow(/at least 8x8/);
    expect(() => ssimulacra2({ ...image, data: image.data.subarray(1) }, image)).toThrow(/reference image's data has 767 bytes, 16x16x3 needs 768/);
    expect(() => ssimulacra2(image, /** @type {any} */ ({ ...image, channels: 2 }))).toThrow(/distorted image must have 3 \(RGB\) or 4 \(RGBA\) channels/);
    expect(() => ssimulacra2(image, /** @type {any} */ ({ ...image, data: Array.from(image.data) }))).toThrow(/Uint8Array/);
    expect(() => ssimulacra2(image, image, /** @type {any} */ ({ version: '3' }))).toThrow(/unknown version/);
  });

  it('keeps its exact scores: pinned to the last bit, RGB and RGBA, both versions, down to 8x8', () => {
    for (const [width, height, seed, channels, distortion, version, expected] of EXACT) {
      const image = synthPhoto(width, height, seed, channels);
      expect(ssimulacra2(image, DISTORTIONS[distortion](image), { version }), `${width}x${height} seed ${seed} ${channels} ${distortion} ${version}`).toBe(expected);
    }
    const rgb = synthPhoto(96, 64, 30, 3), rgba = synthPhoto(96, 64, 30, 4);
    expect(ssimulacra2(rgb, rgba)).toBe(EXACT_ALPHA.rgbVsRgba);
    expect(ssimulacra2(rgba, rgb)).toBe(EXACT_ALPHA.rgbaVsRgb);
    expect(ssimulacra2(opaqueRgba(rgb), rgba)).toBe(EXACT_ALPHA.opaqueVsRgba);
  });

  it('scores with ssimulacra2Scorer exactly as ssimulacra2(), call after call in any order, with and without alpha, down to 8x8', () => {
    /** @type {[string, Image][]} references: RGB, RGBA with transparency, and RGBA all opaque */
    const references = [];
    for (const [width, height, seed] of [[192, 144, 7], [61, 37, 9], [8, 8, 36], [9, 13, 42], [12, 12, 44], [17, 11, 48], [15, 8, 43], [8, 40, 68], [33, 9, 62]]) {
      references.push([`${width}x${height} RGB`, synthPhoto(width, height, seed)], [`${width}x${height} RGBA`, synthPhoto(width, height, seed + 1, 4)]);
    }
    references.push(['96x64 opaque RGBA', opaqueRgba(synthPhoto(96, 64, 30))]);
    let compared = 0;
    for (const [name, reference] of references) {
      /** @type {[string, Image][]} */
      const distorted = Object.entries(DISTORTIONS).map(([distortion, fn]) => [distortion, fn(reference)]);
      distorted.push(['identical', copy(reference)]);
      // The other alpha cases: an RGB image against an RGBA reference and the other way round
      // (against an RGB reference, a transparent image is blended on grey; against an opaque
      // RGBA one, on dark and light).
      if (reference.channels === 4) distorted.push(['alpha dropped', dropAlpha(reference)]);
      else distorted.push(['with transparency', synthPhoto(reference.width, reference.height, 99, 4)]);
      if (name === '96x64 opaque RGBA') distorted.push(['with transparency', synthPhoto(96, 64, 30, 4)]);
      // 2.0 differs only in its XYB offsets and weights: on two references.
      for (const version of /** @type {const} */ (name.startsWith('61x37') ? ['2.1', '2.0'] : ['2.1'])) {
        const expected = distorted.map(([, image]) => ssimulacra2(reference, image, { version }));
        const scorer = ssimulacra2Scorer(reference, { version });
        // Forwards, backwards, and repeats: no score may depend on the ones before it.
        const order = [...distorted.keys(), ...[...distorted.keys()].reverse(), 3, 0, 3];
        for (const i of order) {
          expect(scorer.score(distorted[i][1]), `${name} ${distorted[i][0]} ${version}`).toBe(expected[i]);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('ssimulacra2Scorer keeps nothing of the reference but its planes, and refuses what ssimulacra2() refuses', () => {
    const reference = synthPhoto(40, 30, 77);
    const distorted = DISTORTIONS['noise 6'](reference);
    const expected = ssimulacra2(reference, distorted);
    const pixels = copy(reference);
    const scorer = ssimulacra2Scorer(pixels);
    pixels.data.fill(0);
    expect(scorer.score(distorted)).toBe(expected);
    expect(() => scorer.score(synthPhoto(40, 31, 77))).toThrow(/differ in size: reference 40x30, distorted 40x31/);
    expect(() => scorer.score(/** @type {any} */ ({ ...distorted, channels: 2 }))).toThrow(/distorted image must have 3 \(RGB\) or 4 \(RGBA\) channels/);
    expect(() => ssimulacra2Scorer(synthPhoto(7, 16, 6))).toThrow(/at least 8x8 pixels, these are 7x16/);
    expect(() => ssimulacra2Scorer({ ...reference, data: reference.data.subarray(1) })).toThrow(/reference image's data has 3599 bytes/);
    expect(() => ssimulacra2Scorer(reference, /** @type {any} */ ({ version: '3' }))).toThrow(/unknown version/);
    expect(scorer.score(distorted)).toBe(expected);
  });

  it("agrees with libjxl's ssimulacra2 tool (2.1) on pinned images, with and without alpha, down to 8x8", () => {
    /** @type {Map<string, Image>} */
    const sources = new Map();
    const rows = [];
    for (const [width, height, seed, channels, distortion, expected] of LIBJXL) {
      const key = `${width}x${height} seed ${seed} ${channels === 4 ? 'RGBA' : 'RGB'}`;
      if (!sources.has(key)) sources.set(key, synthPhoto(width, height, seed, channels));
      const image = /** @type {Image} */ (sources.get(key));
      const ours = ssimulacra2(image, DISTORTIONS[distortion](image));
      rows.push({ image: key, distortion, ours: +ours.toFixed(4), libjxl: expected, difference: +(ours - expected).toFixed(4) });
    }
    // Transparency: an RGB reference against its RGBA self, and the other way round.
    const rgb = synthPhoto(96, 64, 30, 3), rgba = synthPhoto(96, 64, 30, 4);
    for (const [image, a, b, expected] of /** @type {[string, Image, Image, number][]} */ ([['96x64 RGB vs RGBA', rgb, rgba, 22.3693], ['96x64 RGBA vs RGB', rgba, rgb, -49.2284]])) {
      const ours = ssimulacra2(a, b);
      rows.push({ image, distortion: 'alpha', ours: +ours.toFixed(4), libjxl: expected, difference: +(ours - expected).toFixed(4) });
    }
    console.table(rows);
    for (const row of rows) expect(Math.abs(row.difference), `${row.image} ${row.distortion}`).toBeLessThan(0.3);
    expect(meanAbs(rows.map((row) => row.difference))).toBeLessThan(0.05);
  });

  it(`agrees with calc-s2-rust (2.0) on seeded photographs re-encoded by sharp (seed ${SEED})`, async () => {
    const rows = [];
    for (const seed of [SEED, SEED + 1]) {
      const image = synthPhoto(192, 144, seed);
      /** @type {[string, Image][]} */
      const cases = [['identical', copy(image)]];
      for (const quality of [30, 50, 70, 80, 90, 95]) cases.push([`jpeg ${quality}`, await encoded(image, 'jpeg', { quality })]);
      cases.push(['jpeg 90 4:4:4', await encoded(image, 'jpeg', { quality: 90, chromaSubsampling: '4:4:4' })]);
      for (const quality of [50, 90]) cases.push([`webp ${quality}`, await encoded(image, 'webp', { quality })]);
      for (const quality of [50, 80]) cases.push([`avif ${quality}`, await encoded(image, 'avif', { quality })]);
      cases.push(['blur 0.8', await blurred(image, 0.8)]);
      for (const name of ['noise 6', 'box blur 3x3']) cases.push([name, DISTORTIONS[name](image)]);
      for (const [distortion, distorted] of cases) {
        const ours = ssimulacra2(image, distorted, { version: '2.0' });
        const reference = calcS2Rust(image, distorted);
        rows.push({ seed, distortion, ours: +ours.toFixed(4), 'calc-s2-rust': +reference.toFixed(4), difference: +(ours - reference).toFixed(4) });
        if (distortion === 'identical') {
          expect(reference).toBe(100);
          expect(ours).toBe(100);
        }
      }
    }
    console.table(rows);
    for (const row of rows) expect(Math.abs(row.difference), `seed ${row.seed} ${row.distortion}`).toBeLessThan(0.5);
    expect(meanAbs(rows.map((row) => row.difference))).toBeLessThan(0.1);
  });
});
