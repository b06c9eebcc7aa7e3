/**
 * Pixels into PNG scanlines: RGBA data in a format's colour type and bit
 * depth (channels picked, grey samples or palette indices packed), rows
 * padded to whole bytes, ready for filtering.
 */
import { greyStep } from './formats.js';
import { distinctColours } from './pixels.js';

/** @typedef {import('./formats.js').PngFormat} PngFormat */

/** @param {PngFormat} format */
export function bitsPerPixel(format) {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[format.colorType];
  return channels * format.bitDepth;
}

/**
 * Scanlines of a raster in a format, without filter bytes.
 * @typedef {object} PackedRaster
 * @property {Uint8Array} raw
 * @property {number} stride bytes per row
 * @property {number} height
 * @property {number} bpp bytes per complete pixel, at least 1 (the filters' unit)
 */

/**
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @returns {PackedRaster}
 */
export function packRaster(rgba, width, height, format) {
  const bpp = Math.max(1, bitsPerPixel(format) >> 3);
  switch (format.colorType) {
    case 6: return { raw: rgba, stride: width * 4, height, bpp };
    case 2: return { raw: pickChannels(rgba, [0, 1, 2]), stride: width * 3, height, bpp };
    case 4: return { raw: pickChannels(rgba, [0, 3]), stride: width * 2, height, bpp };
    case 0: return { ...packSamples(greySamples(rgba, format), width, height, format.bitDepth), height, bpp };
    case 3: return { ...packSamples(paletteIndices(rgba, format), width, height, format.bitDepth), height, bpp };
  }
}

/**
 * @param {Uint8Array} rgba
 * @param {number[]} channels which of R, G, B, A to keep
 */
function pickChannels(rgba, channels) {
  const pixels = rgba.length >> 2, n = channels.length;
  const out = new Uint8Array(pixels * n);
  for (let p = 0, o = 0; p < pixels; p++) {
    for (let c = 0; c < n; c++) out[o++] = rgba[p * 4 + channels[c]];
  }
  return out;
}

/** @param {Uint8Array} rgba @param {PngFormat} format @returns {Uint8Array} one sample per pixel */
function greySamples(rgba, format) {
  const pixels = rgba.length >> 2;
  const out = new Uint8Array(pixels);
  const step = greyStep(format.bitDepth);
  for (let p = 0; p < pixels; p++) {
    const value = rgba[p * 4];
    if (value % step !== 0 || rgba[p * 4 + 1] !== value || rgba[p * 4 + 2] !== value) {
      throw new Error(`Pixel ${p} does not fit format ${format.name}`);
    }
    out[p] = value / step;
  }
  return out;
}

/** @param {Uint8Array} rgba @param {PngFormat} format @returns {Uint8Array} one palette index per pixel */
function paletteIndices(rgba, format) {
  const palette = /** @type {Uint32Array} */ (format.palette);
  /** @type {Map<number, number>} */
  const indexOf = new Map();
  palette.forEach((word, index) => indexOf.set(word, index));
  const { colours, indices } = distinctColours(rgba);
  const permutation = colours.map((word) => {
    const index = indexOf.get(word);
    if (index === undefined) throw new Error(`A pixel has a colour missing from the palette of ${format.name}`);
    return index;
  });
  const out = new Uint8Array(indices.length);
  for (let p = 0; p < indices.length; p++) out[p] = permutation[indices[p]];
  return out;
}

/**
 * Packs one sample per pixel at the bit depth, rows padded to whole bytes.
 * @param {Uint8Array} samples
 * @param {number} width
 * @param {number} height
 * @param {number} depth
 */
function packSamples(samples, width, height, depth) {
  if (depth === 8) return { raw: samples, stride: width };
  const stride = Math.ceil((width * depth) / 8);
  const raw = new Uint8Array(stride * height);
  const perByte = 8 / depth;
  for (let y = 0; y < height; y++) {
    let o = y * stride, p = y * width;
    for (let x = 0; x < width; x += perByte, o++) {
      let byte = 0;
      for (let k = 0; k < perByte; k++) byte = (byte << depth) | (x + k < width ? samples[p + x + k] : 0);
      raw[o] = byte;
    }
  }
  return { raw, stride };
}
