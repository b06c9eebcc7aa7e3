/**
 * What the image jobs share: their results, running a job so that a bad file
 * ends in a result (never a crash), and the pixel checks every written image
 * passes (decoded again, it must show the same pixels).
 */
import sharp from 'sharp';
import { decodeApng } from '../apng-frames.js';
import { imageErrorReason } from '../../util/image-error.js';

/**
 * @typedef {object} ImageJobOptions
 * @property {number} zopfliIterations 0: libdeflate only (default); more adds zopfli
 * @property {number} maxPixels refuse images with more pixels than this
 *
 * @typedef {object} Converted
 * @property {'converted'} status
 * @property {Buffer} bytes
 * @property {string} format 'png' | 'apng' | 'webp'
 * @property {string} detail what was chosen, e.g. "palette, 4 bits"
 * @property {string[]} warnings
 * @property {Record<string, number>} [candidates] bytes of each candidate format
 *
 * @typedef {object} Kept
 * @property {'kept'} status
 * @property {string} reason
 * @property {string[]} warnings
 * @property {Record<string, number>} [candidates]
 *
 * @typedef {object} Failed
 * @property {'failed'} status
 * @property {string} reason one line
 *
 * @typedef {Converted | Kept | Failed} ImageResult
 */

/** Names of PNG colour types, for details. */
export const COLOR_TYPES = /** @type {Record<number, string>} */ ({ 0: 'grey', 2: 'truecolour', 3: 'palette', 4: 'grey + alpha', 6: 'truecolour + alpha' });

/**
 * Runs a job; a file it cannot read becomes a one-line failure, never a crash.
 * @template {{ status: string }} R
 * @param {() => Promise<R>} work
 * @returns {Promise<R | Failed>}
 */
export async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    return { status: 'failed', reason: imageErrorReason(error) };
  }
}

/**
 * RGBA as sharp decodes an image (the first frame): the samples as stored.
 * An embedded ICC profile is not applied (ignoreIcc; sharp would convert to
 * sRGB): a check compares samples, and a file written carries its original's
 * profile, which the browser applies to both alike.
 * @param {Buffer} bytes
 * @param {number} maxPixels
 */
export async function rgbaOf(bytes, maxPixels) {
  return sharp(bytes, { limitInputPixels: maxPixels, ignoreIcc: true }).ensureAlpha().raw().toBuffer();
}

/**
 * Whether two RGBA buffers show the same: equal alpha everywhere, equal
 * colour where alpha is not 0 (a fully transparent pixel has no colour).
 * @param {Buffer} a
 * @param {Buffer} b
 */
export function sameVisiblePixels(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i + 3] !== b[i + 3]) return false;
    if (a[i + 3] !== 0 && (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2])) return false;
  }
  return true;
}

/**
 * Decodes a PNG twice (sharp, and fast-png by ./apng-frames.js) and compares both
 * with the expected RGBA, byte for byte.
 * @param {Buffer} png
 * @param {Buffer} expected
 * @param {number} width
 * @param {number} height
 * @returns {Promise<string | null>} what differs, or null
 */
export async function samePixels(png, expected, width, height) {
  const { data, info } = await sharp(png, { limitInputPixels: false, ignoreIcc: true }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) return `sharp reads ${info.width}×${info.height}`;
  if (!data.equals(expected)) return 'sharp reads other pixels';
  const own = decodeApng(png).frames[0].data;
  if (!own.equals(expected)) return 'pixels differ';
  return null;
}
