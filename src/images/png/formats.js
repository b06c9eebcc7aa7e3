/**
 * What a PNG format (colour type, bit depth, and palette or transparent key)
 * adds to a file: its PLTE and tRNS chunks and their size, and which pixel
 * word it stores as fully transparent.
 */
import { chunk } from '../png-chunks.js';
import { alphaOf, channelsOf, wordOf } from './pixels.js';

/** @typedef {import('./filters.js').FilterName} FilterName */

/**
 * An exact way to store some RGBA pixels in a PNG.
 * @typedef {object} PngFormat
 * @property {string} name e.g. 'palette/frequency', 'grey', 'rgba'
 * @property {0 | 2 | 3 | 4 | 6} colorType
 * @property {1 | 2 | 4 | 8} bitDepth
 * @property {Uint32Array} [palette] colour type 3: the entries as pixel words, in index order
 * @property {number} [transparentKey] colour types 0 and 2: the pixel word that tRNS makes transparent
 * @property {FilterName[]} [screen] the filters worth ranking in this format; all when absent
 */

/**
 * PLTE and tRNS for a format.
 * @param {PngFormat} format
 * @returns {Buffer[]} whole chunks, in file order
 */
export function formatChunks(format) {
  if (format.colorType === 3) {
    const palette = /** @type {Uint32Array} */ (format.palette);
    const plte = Buffer.alloc(palette.length * 3);
    const alphas = Buffer.alloc(palette.length);
    let trnsLength = 0;
    palette.forEach((word, index) => {
      const [r, g, b, a] = channelsOf(word);
      plte[index * 3] = r;
      plte[index * 3 + 1] = g;
      plte[index * 3 + 2] = b;
      alphas[index] = a;
      if (a !== 255) trnsLength = index + 1;
    });
    return trnsLength ? [chunk('PLTE', plte), chunk('tRNS', alphas.subarray(0, trnsLength))] : [chunk('PLTE', plte)];
  }
  if (format.transparentKey === undefined) return [];
  const [r, g, b] = channelsOf(format.transparentKey);
  if (format.colorType === 0) {
    const trns = Buffer.alloc(2);
    trns.writeUInt16BE(r / greyStep(format.bitDepth), 0);
    return [chunk('tRNS', trns)];
  }
  const trns = Buffer.alloc(6);
  trns.writeUInt16BE(r, 0);
  trns.writeUInt16BE(g, 2);
  trns.writeUInt16BE(b, 4);
  return [chunk('tRNS', trns)];
}

/** @param {PngFormat} format @returns {number} bytes of PLTE and tRNS */
export function formatOverhead(format) {
  return formatChunks(format).reduce((total, part) => total + part.length, 0);
}

/**
 * A pixel word that the format stores as fully transparent, if it has one.
 * @param {PngFormat} format
 * @returns {number | undefined}
 */
export function transparentWord(format) {
  if (format.colorType === 6 || format.colorType === 4) return wordOf(0, 0, 0, 0);
  if (format.colorType === 3) return /** @type {Uint32Array} */ (format.palette).find((word) => alphaOf(word) === 0);
  return format.transparentKey;
}

/** @param {number} bitDepth grey value represented by one step of a sample */
export function greyStep(bitDepth) {
  return 255 / ((1 << bitDepth) - 1);
}
