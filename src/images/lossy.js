/**
 * Lossy PNG, only when asked: a palette chosen by libimagequant (pngquant's
 * engine, inside sharp), kept only when it reaches the quality floor.
 *
 * sharp takes libimagequant's maximum quality but not its minimum, so the
 * floor is checked here: the result's mean squared error, measured as
 * libimagequant measures it (channels scaled to 0..1, colour weighted by
 * alpha), is turned into its 0-100 quality scale with the inverse of its own
 * quality_to_mse().
 */
import sharp from 'sharp';

/**
 * @param {Buffer} rgba
 * @param {number} width
 * @param {number} height
 * @param {[number, number]} quality floor and target, 0-100
 * @returns {Promise<{ png: Buffer | null, quality: number }>} png null when the floor is not reached
 */
export async function lossyPng(rgba, width, height, [min, max]) {
  const png = await sharp(rgba, { raw: { width, height, channels: 4 } }).png({ palette: true, quality: max, effort: 10, compressionLevel: 9 }).toBuffer();
  const quality = await qualityOf(rgba, png);
  return { png: quality >= min ? png : null, quality };
}

/**
 * Lossy WebP (libwebp in sharp) at quality MAX, kept only when it reaches the
 * floor on the same scale as lossy PNG. Smart chroma subsampling, because
 * GIF-style graphics have sharp colour edges that plain 4:2:0 smears.
 * @param {Buffer} rgba
 * @param {number} width
 * @param {number} height
 * @param {[number, number]} quality floor and target, 0-100
 * @returns {Promise<{ webp: Buffer | null, quality: number }>} webp null when the floor is not reached
 */
export async function lossyWebp(rgba, width, height, [min, max]) {
  const webp = await sharp(rgba, { raw: { width, height, channels: 4 } }).webp({ quality: max, effort: 6, smartSubsample: true }).toBuffer();
  const quality = await qualityOf(rgba, webp);
  return { webp: quality >= min ? webp : null, quality };
}

/**
 * An encoded image's quality against the RGBA it was made from, decoded by sharp.
 * @param {Buffer} rgba
 * @param {Buffer} encoded
 */
async function qualityOf(rgba, encoded) {
  const back = await sharp(encoded).ensureAlpha().raw().toBuffer();
  return mseToQuality(meanSquaredError(rgba, back));
}

/**
 * @param {Buffer} a
 * @param {Buffer} b
 */
export function meanSquaredError(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i += 4) {
    const aa = a[i + 3] / 255;
    const ba = b[i + 3] / 255;
    for (let c = 0; c < 3; c++) {
      const d = (a[i + c] / 255) * aa - (b[i + c] / 255) * ba;
      sum += d * d;
    }
    sum += (aa - ba) * (aa - ba);
  }
  return sum / (a.length / 4) / 4;
}

/**
 * libimagequant's quality_to_mse (libimagequant.c).
 * @param {number} quality 0-100
 */
export function qualityToMse(quality) {
  if (quality <= 0) return 1e20;
  if (quality >= 100) return 0;
  const lowQualityFudge = Math.max(0, 0.016 / (0.001 + quality) - 0.001);
  return lowQualityFudge + (2.5 / Math.pow(210 + quality, 1.2)) * ((100.1 - quality) / 100);
}

/**
 * The highest quality whose MSE bound the error meets.
 * @param {number} mse
 */
export function mseToQuality(mse) {
  for (let q = 100; q > 0; q--) if (mse <= qualityToMse(q) + 1e-9) return q;
  return 0;
}
