/**
 * SSIMULACRA 2.1 by WebAssembly with SIMD: ssimulacra2Scorer as
 * src/images/ssimulacra2.js exports it, same arguments, same checks and
 * messages, and the same scores to the last bit, about 4.5 times faster
 * (about 70 ms per megapixel and score against 310; bench/ssimulacra2.js).
 *
 * The computation is src/images/ssimulacra2-wasm/ssimulacra2.c (its header
 * says how it stays exact: float32 where the JavaScript rounds to float32,
 * its fused multiply-adds in float64, Math.cbrt's float32 roundings, float64
 * sums in the same order), built into ssimulacra2-wasm/ssimulacra2.wasm by
 * scripts/build-ssimulacra2-wasm.js and committed, so no compiler is needed
 * to run it. What stays here: the checks; the sRGB and alpha-blending tables
 * (a power function, which wasm lacks), copied into the scorer's memory; and the 108
 * features and the final score (a power again) from the sums the wasm
 * returns, as ssimulacra2.js computes them.
 *
 * The WebAssembly.Module is compiled once per thread, synchronously at the
 * first scorer (V8 compiles it quickly first and optimises its hot functions
 * while they run: a thread's first scorer and score take about 40% and 15%
 * longer); each scorer has its own instance and memory, freed with the
 * scorer. `version: '2.0'` is the JavaScript scorer's, as is an image too
 * large for wasm32's 4 GiB of memory (about 60 megapixels, 35 with
 * transparency).
 *
 * The checks, the tables, the features and the final transform are
 * ssimulacra2.js's own; test/ssimulacra2-wasm.test.js compares the two
 * modules' scores and errors.
 */
import { readFileSync } from 'node:fs';
import { ssimulacra2Scorer as javascriptScorer, blendTable, checkImage, checkMinSize, checkSameSize, checkVersion, hasTransparency, MIN_SIZE, NUM_SCALES, score21, setFeatures, SRGB_TO_LINEAR } from './ssimulacra2.js';

/** @typedef {import('./ssimulacra2.js').Ssimulacra2Image} Ssimulacra2Image */
/** @typedef {import('./ssimulacra2.js').Ssimulacra2Options} Ssimulacra2Options */
/** @typedef {import('./ssimulacra2.js').Ssimulacra2Scorer} Ssimulacra2Scorer */

/**
 * The wasm module's exports (ssimulacra2.c).
 * @typedef {object} Ssimulacra2Wasm
 * @property {WebAssembly.Memory} memory
 * @property {(width: number, height: number, pyramids: number) => number} setup allocates everything; 0 when memory runs out
 * @property {() => number} pixels_address the 8-bit pixels of the image to convert next (width * height * 4 bytes)
 * @property {() => number} srgb_address 256 float32: 8-bit sRGB to linear
 * @property {() => number} blend_address 65536 float32: blendTable(background)
 * @property {() => number} sums_address float64 [scale][channel][6]: the sums of the error maps
 * @property {(pyramid: number, channels: number) => void} reference the reference's planes from the pixels
 * @property {(pyramid: number, channels: number) => number} compare the sums for the pixels against a pyramid; returns the number of scales
 */

const WASM_URL = new URL('./ssimulacra2-wasm/ssimulacra2.wasm', import.meta.url);

/** @type {WebAssembly.Module | undefined} */
let compiled;

/** The compiled module, once per thread. */
function wasmModule() {
  return (compiled ??= new WebAssembly.Module(readFileSync(WASM_URL)));
}

/**
 * A scorer of images against one REFERENCE, as ssimulacra2Scorer of
 * ssimulacra2.js: the reference's half of the work is done here, once, and
 * score(distorted) returns exactly what that scorer returns.
 *
 * Memory, in the scorer's wasm instance: the reference's 9 float32 planes per
 * scale, about 48 bytes per pixel for the 6 scales (96 when the reference has
 * transparency: one reference per background, 0.1 and 0.9); the distorted
 * image's planes at full and half size, 15 bytes per pixel; a copy of the
 * image's 8-bit pixels, 4 bytes per pixel; and a few rows and about 0.4 MB
 * whatever the size (a 256 KB blending table among it): about 67 bytes per
 * pixel in all, 115 with transparency (ssimulacra2.js: 63 and 111). It holds
 * no reference to REFERENCE's pixels, and nothing grows with the number of
 * scores.
 * @param {Ssimulacra2Image} reference
 * @param {Ssimulacra2Options} [options]
 * @returns {Ssimulacra2Scorer}
 */
export function ssimulacra2Scorer(reference, options = {}) {
  checkImage(reference, 'reference');
  const version = checkVersion(options);
  if (version === '2.0') return javascriptScorer(reference, options);
  const { width, height, channels } = reference;
  checkMinSize(width, height);
  const transparent = hasTransparency(reference);
  const wasm = /** @type {Ssimulacra2Wasm} */ (/** @type {unknown} */ (new WebAssembly.Instance(wasmModule()).exports));
  // Past wasm32's 4 GiB: the JavaScript, which has no such limit.
  if (!wasm.setup(width, height, transparent ? 2 : 1)) return javascriptScorer(reference, options);
  // The memory grows only in setup, so these views stay valid.
  const { buffer } = wasm.memory;
  const pixels = new Uint8Array(buffer, wasm.pixels_address() >>> 0, width * height * 4);
  const blend = new Float32Array(buffer, wasm.blend_address() >>> 0, 256 * 256);
  const sums = new Float64Array(buffer, wasm.sums_address() >>> 0, NUM_SCALES * 3 * 6);
  new Float32Array(buffer, wasm.srgb_address() >>> 0, 256).set(SRGB_TO_LINEAR);
  const pixelCounts = scalePixelCounts(width, height);
  let blended = -1;
  /** @param {number} background the blending table in memory for it */
  const blendAgainst = (background) => {
    if (blended !== background) blend.set(blendTable(background));
    blended = background;
  };
  pixels.set(reference.data);
  // An opaque reference's planes are the same against every background.
  if (channels === 4) blendAgainst(transparent ? 0.1 : 0.5);
  wasm.reference(0, channels);
  if (transparent) {
    blendAgainst(0.9);
    wasm.reference(1, channels);
  }
  /**
   * The score of the distorted image in memory against pyramid PYRAMID.
   * @param {number} pyramid
   * @param {3 | 4} distortedChannels
   * @param {number} background
   */
  const compare = (pyramid, distortedChannels, background) => {
    if (distortedChannels === 4) blendAgainst(background);
    const scales = wasm.compare(pyramid, distortedChannels);
    return score21(features(sums, pixelCounts, scales), scales);
  };
  return {
    score(distorted) {
      checkImage(distorted, 'distorted');
      checkSameSize({ width, height }, distorted);
      pixels.set(distorted.data);
      if (channels === 4 && (transparent || hasTransparency(distorted))) {
        // The reference has alpha: the worse of a dark and a light background.
        const dark = compare(0, distorted.channels, 0.1);
        const light = compare(transparent ? 1 : 0, distorted.channels, 0.9);
        return Math.min(dark, light);
      }
      return compare(0, distorted.channels, 0.5);
    },
  };
}

/**
 * The pixel count of each scale, as ssimulacra2.js's scale loop makes them.
 * @param {number} width
 * @param {number} height
 */
function scalePixelCounts(width, height) {
  const counts = [];
  let w = width;
  let h = height;
  for (let scale = 0; scale < NUM_SCALES; scale++) {
    counts.push(w * h);
    if (!(w >= MIN_SIZE && h >= MIN_SIZE)) break;
    w = Math.ceil(w / 2);
    h = Math.ceil(h / 2);
  }
  return counts;
}

/**
 * The 18 features per scale from the sums of the error maps, as
 * ssimulacra2.js's compare() makes them.
 * @param {Float64Array} sums [scale][channel][ssim, ssim^4, artifact, artifact^4, lost, lost^4]
 * @param {number[]} pixelCounts
 * @param {number} scales
 */
function features(sums, pixelCounts, scales) {
  const out = new Float64Array(NUM_SCALES * 18);
  for (let scale = 0; scale < scales; scale++) {
    for (let c = 0; c < 3; c++) setFeatures(out, scale, c, sums, (scale * 3 + c) * 6, pixelCounts[scale]);
  }
  return out;
}
