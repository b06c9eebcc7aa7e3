/**
 * The size an image is shown at, in CSS px at its natural size: its pixels,
 * turned by its EXIF orientation. Read from the header; nothing is decoded.
 */
import sharp from 'sharp';
import { sniffImageType } from '../site/sniff.js';

/** Raster types whose pixels give an image its size (SVG has sizes of its own). */
const SIZED_TYPES = new Set(['png', 'gif', 'jpeg', 'webp', 'avif']);
/** EXIF orientations that turn the image a quarter: width and height swap. */
const QUARTER_TURNS = new Set([5, 6, 7, 8]);

/**
 * @param {Buffer} bytes
 * @param {number} maxPixels larger images are not read (null)
 * @returns {Promise<{ width: number, height: number } | null>} null for what is no raster image or cannot be read
 */
export async function shownSize(bytes, maxPixels) {
  try {
    const type = sniffImageType(bytes);
    if (!type || !SIZED_TYPES.has(type)) return null;
    const meta = await sharp(bytes, { limitInputPixels: maxPixels }).metadata();
    if (!meta.width || !meta.height) return null;
    return QUARTER_TURNS.has(meta.orientation ?? 1) ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch {
    return null;
  }
}
