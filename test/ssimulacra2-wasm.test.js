/**
 * The WebAssembly SSIMULACRA 2 (src/images/ssimulacra2-fast.js, computed by
 * src/images/ssimulacra2-wasm/ssimulacra2.c) against the JavaScript one
 * (src/images/ssimulacra2.js), which test/ssimulacra2.test.js pins to libjxl:
 *
 * - the same scores to the last bit (Object.is): seeded random images, RGB
 *   and RGBA with transparency on either side, every small size the scale
 *   loop treats differently, real photographs re-encoded by sharp at several
 *   qualities, identical images (100), and any order of calls;
 * - the same errors for bad input;
 * - its float32 cube root, which replaces Math.cbrt's divisions with Newton
 *   steps and an exact fallback, equal to f32(Math.cbrt(x)) for every float32
 *   in [2^-9, 2) (XYB's inputs lie in [0.0038, 1.004]); for all 2^32 inputs
 *   (about 90 s) when PAGEDIET_SSIMULACRA2_ALL_CUBE_ROOTS is set;
 * - the committed .wasm is what scripts/build-ssimulacra2-wasm.js builds from
 *   the C source (needs clang-14 and wasm-ld-14: skipped without them, failed
 *   under CI).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { Rng } from '../scripts/fixtures/random.js';
import { buildSsimulacra2Wasm, compilerMissing, DEFAULT_OUT } from '../scripts/build-ssimulacra2-wasm.js';
import { ssimulacra2Scorer as javascriptScorer } from '../src/images/ssimulacra2.js';
import { ssimulacra2Scorer as wasmScorer } from '../src/images/ssimulacra2-fast.js';
import { needed } from './helpers/needed.js';
import { dropAlpha, opaqueRgba } from './helpers/rgba.js';

/** The seed of the random images: fixed, so every run is the same; PAGEDIET_SSIMULACRA2_SEED chooses another. */
const SEED = Number(process.env.PAGEDIET_SSIMULACRA2_SEED ?? 20261207);
if (!Number.isInteger(SEED)) throw new Error(`PAGEDIET_SSIMULACRA2_SEED must be a whole number, not '${process.env.PAGEDIET_SSIMULACRA2_SEED}'`);
console.log(`test/ssimulacra2-wasm.test.js: image seed ${SEED} (set PAGEDIET_SSIMULACRA2_SEED to run another)`);

const PHOTOS = new URL('../fixtures/modern/img/photos/', import.meta.url);

/** @typedef {{ data: Uint8Array, width: number, height: number, channels: 3 | 4 }} Image */

/** @param {number} v */
const byte = (v) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/**
 * A random image: smooth colour ramps, blocks of flat colour, and noise; with
 * 4 channels, alpha in bands (opaque, transparent, ramps, noise).
 * @param {number} width
 * @param {number} height
 * @param {number} seed
 * @param {3 | 4} channels
 * @returns {Image}
 */
function randomImage(width, height, seed, channels) {
  const rng = new Rng(seed);
  const ramp = [0, 1, 2].map(() => [rng.next() * 255, (rng.next() - 0.5) * 4, (rng.next() - 0.5) * 4]);
  const grain = rng.next() * 40;
  const block = 2 + Math.floor(rng.next() * 9);
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      const flat = ((x / block) ^ (y / block)) & 1;
      for (let c = 0; c < 3; c++) {
        const [base, dx, dy] = ramp[c];
        data[o + c] = byte(flat && c === 0 ? 40 + 170 * ((x * 7 + y * 3) % 2) : base + dx * x + dy * y + (rng.next() - 0.5) * grain);
      }
      if (channels === 4) {
        const band = Math.floor((4 * x) / width);
        data[o + 3] = band === 0 ? 255 : band === 1 ? 0 : band === 2 ? byte((255 * y) / (height - 1)) : byte(rng.next() * 256);
      }
    }
  }
  return { data, width, height, channels };
}

/**
 * IMAGE with noise of strength K added to its colour samples (alpha kept).
 * @param {Image} image
 * @param {number} k
 * @param {number} seed
 */
function noisy(image, k, seed) {
  const rng = new Rng(seed);
  const data = image.data.slice();
  for (let i = 0; i < data.length; i++) if (image.channels === 3 || i % 4 < 3) data[i] = byte(data[i] + (rng.next() * 2 - 1) * k);
  return { ...image, data };
}

/** @param {Image} image RGB @param {number} seed @returns {Image} RGBA with a soft round hole of transparency */
function withHole(image, seed) {
  const rng = new Rng(seed);
  const cx = rng.next() * image.width, cy = rng.next() * image.height, r = (0.2 + rng.next() * 0.3) * Math.min(image.width, image.height);
  const rgba = opaqueRgba(image);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) rgba.data[(y * image.width + x) * 4 + 3] = byte((255 * Math.hypot(x - cx, y - cy)) / r - 255);
  }
  return rgba;
}

/**
 * @param {Buffer | Uint8Array} data
 * @param {{ width: number, height: number, channels: number }} info
 * @returns {Image}
 */
const image = (data, info) => ({ data: new Uint8Array(data), width: info.width, height: info.height, channels: /** @type {3 | 4} */ (info.channels) });

/**
 * IMAGE encoded by sharp and decoded again, with its alpha when it has one.
 * @param {Image} source
 * @param {'jpeg' | 'webp' | 'avif'} format
 * @param {object} options
 */
async function reencoded(source, format, options) {
  const raw = { width: source.width, height: source.height, channels: source.channels };
  const file = await sharp(source.data, { raw })[format](options).toBuffer();
  const decoded = source.channels === 4 ? sharp(file).ensureAlpha() : sharp(file).removeAlpha();
  const { data, info } = await decoded.raw().toBuffer({ resolveWithObject: true });
  return image(data, info);
}

/**
 * The scores of every image of DISTORTED against REFERENCE by both scorers,
 * identical: the wasm scorer's forwards, backwards and forwards again (no
 * score may depend on the ones before it).
 * @param {string} name
 * @param {Image} reference
 * @param {[string, Image][]} distorted
 * @returns {number} the scores compared
 */
function expectSameScores(name, reference, distorted) {
  const js = javascriptScorer(reference);
  const expected = distorted.map(([, other]) => js.score(other));
  const wasm = wasmScorer(reference);
  const order = [...distorted.keys(), ...[...distorted.keys()].reverse(), ...distorted.keys()];
  for (const i of order) {
    const got = wasm.score(distorted[i][1]);
    expect(Object.is(got, expected[i]), `${name} ${distorted[i][0]}: wasm ${got}, JavaScript ${expected[i]}`).toBe(true);
  }
  return order.length;
}

describe('ssimulacra2Scorer in WebAssembly', () => {
  it(`scores seeded random images exactly as the JavaScript, RGB and RGBA, at every small size (seed ${SEED})`, () => {
    let compared = 0;
    const sizes = [[8, 8], [9, 13], [12, 12], [15, 8], [17, 11], [8, 40], [33, 9], [16, 16], [61, 37], [97, 65], [130, 71], [203, 157]];
    for (const [index, [width, height]] of sizes.entries()) {
      const seed = SEED + 100 * index;
      const rgb = randomImage(width, height, seed, 3);
      const rgba = randomImage(width, height, seed + 1, 4);
      /** @type {[string, Image][]} */
      const againstRgb = [
        ['identical', { ...rgb, data: rgb.data.slice() }],
        ['noise 3', noisy(rgb, 3, seed + 2)],
        ['noise 30', noisy(rgb, 30, seed + 3)],
        ['other image', randomImage(width, height, seed + 4, 3)],
        ['with transparency', randomImage(width, height, seed + 5, 4)],
        ['opaque RGBA', opaqueRgba(noisy(rgb, 5, seed + 6))],
      ];
      compared += expectSameScores(`${width}x${height} RGB`, rgb, againstRgb);
      /** @type {[string, Image][]} */
      const againstRgba = [
        ['identical', { ...rgba, data: rgba.data.slice() }],
        ['noise 3', noisy(rgba, 3, seed + 7)],
        ['noise 30', noisy(rgba, 30, seed + 8)],
        ['alpha dropped', dropAlpha(rgba)],
        ['other image', randomImage(width, height, seed + 9, 4)],
      ];
      compared += expectSameScores(`${width}x${height} RGBA`, rgba, againstRgba);
      // An RGBA reference with every alpha 255 counts as opaque; against a transparent image it blends on dark and light.
      compared += expectSameScores(`${width}x${height} opaque RGBA`, opaqueRgba(rgb), [['transparent', rgba], ['noise 10', noisy(opaqueRgba(rgb), 10, seed + 10)]]);
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('scores identical images exactly 100', () => {
    for (const [width, height, channels] of /** @type {[number, number, 3 | 4][]} */ ([[8, 8, 3], [9, 13, 4], [120, 80, 3], [121, 81, 4]])) {
      const reference = randomImage(width, height, SEED + width, channels);
      const scorer = wasmScorer(reference);
      expect(scorer.score(reference)).toBe(100);
      expect(scorer.score({ ...reference, data: reference.data.slice() })).toBe(100);
    }
  });

  it('scores real photographs re-encoded by sharp exactly as the JavaScript, with and without alpha', async () => {
    let compared = 0;
    for (const [file, width, height] of /** @type {[string, number, number][]} */ ([['chelsea.jpg', 320, 213], ['coffee.jpg', 257, 171], ['rocket.jpg', 161, 107]])) {
      const { data, info } = await sharp(fileURLToPath(new URL(file, PHOTOS))).resize(width, height, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
      const photo = image(data, info);
      /** @type {[string, Image][]} */
      const distorted = [];
      for (const quality of [30, 60, 90]) distorted.push([`jpeg ${quality}`, await reencoded(photo, 'jpeg', { quality })]);
      distorted.push(['jpeg 80 4:4:4', await reencoded(photo, 'jpeg', { quality: 80, chromaSubsampling: '4:4:4' })]);
      for (const quality of [50, 85]) distorted.push([`webp ${quality}`, await reencoded(photo, 'webp', { quality })]);
      distorted.push(['avif 55', await reencoded(photo, 'avif', { quality: 55, effort: 2 })]);
      compared += expectSameScores(file, photo, distorted);
      // With a hole of transparency: the reference's alpha blended on dark and light, the encodes keep their alpha.
      const transparent = withHole(photo, SEED);
      /** @type {[string, Image][]} */
      const transparentDistorted = [['webp 70', await reencoded(transparent, 'webp', { quality: 70, alphaQuality: 80 })], ['avif 60', await reencoded(transparent, 'avif', { quality: 60, effort: 2 })], ['alpha dropped', dropAlpha(transparent)]];
      compared += expectSameScores(`${file} with transparency`, transparent, transparentDistorted);
    }
    expect(compared).toBeGreaterThanOrEqual(90);
  });

  it('keeps nothing of the reference but its planes', () => {
    const reference = randomImage(40, 30, SEED, 3);
    const distorted = noisy(reference, 8, SEED + 1);
    const expected = javascriptScorer(reference).score(distorted);
    const pixels = { ...reference, data: reference.data.slice() };
    const scorer = wasmScorer(pixels);
    pixels.data.fill(0);
    expect(scorer.score(distorted)).toBe(expected);
  });

  it('throws what the JavaScript throws for bad input', () => {
    const good = randomImage(16, 16, SEED, 3);
    /** @param {() => unknown} fn */
    const thrown = (fn) => {
      try {
        fn();
      } catch (err) {
        return err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
      }
      return 'nothing thrown';
    };
    /** @type {[string, any, any][]} reference, and options or a distorted image */
    const references = [
      ['missing', undefined, {}],
      ['not an object', 'image', {}],
      ['data an array', { ...good, data: Array.from(good.data) }, {}],
      ['width 0', { ...good, width: 0, data: new Uint8Array(0) }, {}],
      ['width 1.5', { ...good, width: 1.5 }, {}],
      ['2 channels', { ...good, channels: 2 }, {}],
      ['data too short', { ...good, data: good.data.subarray(1) }, {}],
      ['1x16', randomImage(1, 16, SEED, 3), {}],
      ['16x7', randomImage(16, 7, SEED, 4), {}],
      ['version 3', good, { version: '3' }],
    ];
    for (const [what, reference, options] of references) {
      const expected = thrown(() => javascriptScorer(reference, options));
      expect(expected, what).not.toBe('nothing thrown');
      expect(thrown(() => wasmScorer(reference, options)), what).toBe(expected);
    }
    const js = javascriptScorer(good);
    const wasm = wasmScorer(good);
    /** @type {[string, any][]} */
    const distorted = [
      ['missing', null],
      ['other size', randomImage(16, 17, SEED, 3)],
      ['2 channels', { ...good, channels: 2 }],
      ['data too long', { ...good, data: new Uint8Array(good.data.length + 1) }],
    ];
    for (const [what, other] of distorted) {
      const expected = thrown(() => js.score(other));
      expect(expected, what).not.toBe('nothing thrown');
      expect(thrown(() => wasm.score(other)), what).toBe(expected);
    }
    // And the scorer still scores after refusing.
    expect(wasm.score(noisy(good, 5, SEED))).toBe(js.score(noisy(good, 5, SEED)));
  });

  it("computes version '2.0' as the JavaScript does (it is the JavaScript's)", () => {
    const reference = randomImage(64, 48, SEED, 3);
    const distorted = noisy(reference, 10, SEED + 1);
    expect(wasmScorer(reference, { version: '2.0' }).score(distorted)).toBe(javascriptScorer(reference, { version: '2.0' }).score(distorted));
  });

  it('takes the cube root of every float32 XYB can meet exactly as f32(Math.cbrt(x))', () => {
    const all = Boolean(process.env.PAGEDIET_SSIMULACRA2_ALL_CUBE_ROOTS);
    // [2^-9, 2) by default; every bit pattern, negative, NaN and infinite included, when asked.
    const [first, end] = all ? [0, 2 ** 32] : [0x3b000000, 0x40000000];
    const mismatches = cubeRootMismatches(first, end);
    expect(mismatches).toEqual([]);
  }, 600_000);

  it('runs the .wasm built from the C source by scripts/build-ssimulacra2-wasm.js', (context) => {
    // Missing compilers skip this test here, and fail it under CI.
    const skip = needed(compilerMissing(), 'test/ssimulacra2-wasm.test.js: the build check');
    if (skip) context.skip(skip);
    const fresh = buildSsimulacra2Wasm(join(tmpdir(), `pagediet-ssimulacra2-${process.pid}.wasm`));
    const committed = readFileSync(DEFAULT_OUT);
    expect(fresh.equals(committed), 'src/images/ssimulacra2-wasm/ssimulacra2.wasm is not what the C source builds: run node scripts/build-ssimulacra2-wasm.js').toBe(true);
  }, 120_000);
});

/**
 * The float32 bit patterns in [FIRST, END) whose cube root by the wasm
 * (its test export cube_roots) differs from f32(Math.cbrt(x)), at most 10.
 * @param {number} first
 * @param {number} end
 */
function cubeRootMismatches(first, end) {
  const wasm = /** @type {any} */ (new WebAssembly.Instance(new WebAssembly.Module(readFileSync(DEFAULT_OUT))).exports);
  const out = new Float32Array(wasm.memory.buffer, wasm.cube_roots_address(), 4096);
  const bits = new Uint32Array(4096);
  const inputs = new Float32Array(bits.buffer);
  /** @type {string[]} */
  const mismatches = [];
  for (let start = first; start < end && mismatches.length < 10; start += 4096) {
    wasm.cube_roots(start, 4096);
    for (let i = 0; i < 4096; i++) bits[i] = start + i;
    for (let i = 0; i < 4096 && start + i < end; i++) {
      const expected = Math.fround(Math.cbrt(inputs[i]));
      if (!Object.is(out[i], expected) && !(Number.isNaN(out[i]) && Number.isNaN(expected))) mismatches.push(`0x${(start + i).toString(16)}: ${out[i]} instead of ${expected}`);
    }
  }
  return mismatches;
}
