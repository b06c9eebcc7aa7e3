/**
 * The animation job: an animated GIF to APNG or animated WebP, each
 * candidate decoded again and held to the same frames, delays and loop count.
 */
import sharp from 'sharp';
import { decodeGif } from '../gif.js';
import { encodeApng } from '../apng.js';
import { decodeApng } from '../apng-frames.js';
import { imageErrorReason } from '../../util/image-error.js';
import { guarded, sameVisiblePixels } from './results.js';

/**
 * @typedef {import('./results.js').ImageJobOptions} ImageJobOptions
 * @typedef {import('./results.js').ImageResult} ImageResult
 */

/**
 * An animated GIF to APNG or animated WebP, whichever is smaller and proven.
 * @param {{ bytes: Uint8Array, options: ImageJobOptions & { format: 'auto' | 'apng' | 'webp', lossy: boolean, quality: [number, number] } }} input
 * @returns {Promise<ImageResult>}
 */
export async function animation({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return guarded(async () => {
    const gif = decodeGif(bytes, { maxPixels: options.maxPixels });
    if (gif.frames.length < 2) return { status: 'kept', reason: 'not animated', warnings: gif.warnings };
    // GIF counts repetitions after the first play and plays once without a loop block; APNG and WebP count plays.
    const plays = gif.loop === null ? 1 : gif.loop === 0 ? 0 : gif.loop + 1;
    const delaysCs = gif.frames.map((f) => f.delayCs);
    /** @type {Record<string, number>} */
    const candidates = {};
    /** @type {{ format: string, bytes: Buffer, detail: string }[]} */
    const proven = [];
    /** @type {string[]} */
    const failures = [];
    if (options.format !== 'webp') {
      const apng = await encodeApng({ width: gif.width, height: gif.height, loop: plays, frames: gif.frames.map((f) => ({ data: f.data, delayCs: f.delayCs })) }, { zopfliIterations: options.zopfliIterations });
      candidates.apng = apng.length;
      const problem = checkApng(apng, gif, plays);
      if (problem) failures.push(`APNG ${problem}`);
      else proven.push({ format: 'apng', bytes: apng, detail: `APNG, ${gif.frames.length} frames` });
    }
    if (options.format !== 'apng') {
      const lossy = options.lossy;
      const stacked = Buffer.concat(gif.frames.map((f) => f.data));
      const webp = await sharp(stacked, { raw: { width: gif.width, height: gif.height * gif.frames.length, channels: 4, pageHeight: gif.height } })
        .webp(lossy ? { quality: options.quality[1], effort: 6, loop: plays, delay: delaysCs.map((d) => d * 10) } : { lossless: true, exact: true, effort: 6, loop: plays, delay: delaysCs.map((d) => d * 10) })
        .toBuffer();
      candidates.webp = webp.length;
      const problem = await checkWebp(webp, gif, plays, lossy);
      if (problem) failures.push(`WebP ${problem}`);
      else proven.push({ format: 'webp', bytes: webp, detail: `${lossy ? 'lossy' : 'lossless'} WebP, ${gif.frames.length} frames` });
    }
    proven.sort((a, b) => a.bytes.length - b.bytes.length);
    const best = proven[0];
    if (!best) return { status: 'kept', reason: failures.join('; '), warnings: gif.warnings, candidates };
    if (best.bytes.length >= bytes.length) {
      return { status: 'kept', reason: `GIF smaller (${bytes.length} B; ${Object.entries(candidates).map(([k, v]) => `${k} ${v} B`).join(', ')})`, warnings: gif.warnings, candidates };
    }
    return { status: 'converted', bytes: best.bytes, format: best.format, detail: best.detail, warnings: gif.warnings, candidates };
  });
}

/**
 * @param {Buffer} apng
 * @param {ReturnType<typeof decodeGif>} gif
 * @param {number} plays
 * @returns {string | null} what fails the proof; a file that cannot be read back fails it (the WebP may still be proven)
 */
function checkApng(apng, gif, plays) {
  let decoded;
  try {
    decoded = decodeApng(apng);
  } catch (error) {
    return `cannot be read back (${imageErrorReason(error)})`;
  }
  if (decoded.frames.length !== gif.frames.length) return `has ${decoded.frames.length} frames, not ${gif.frames.length}`;
  if (decoded.loop !== plays) return `plays ${decoded.loop} times, not ${plays}`;
  for (let i = 0; i < gif.frames.length; i++) {
    const f = decoded.frames[i];
    if (f.delayNum * 100 !== gif.frames[i].delayCs * (f.delayDen || 100)) return `frame ${i} lasts ${f.delayNum}/${f.delayDen} s`;
    if (!f.data.equals(gif.frames[i].data)) return `frame ${i} differs`;
  }
  return null;
}

/**
 * @param {Buffer} webp
 * @param {ReturnType<typeof decodeGif>} gif
 * @param {number} plays
 * @param {boolean} lossy pixels are not compared, frames and timing are
 * @returns {Promise<string | null>}
 */
async function checkWebp(webp, gif, plays, lossy) {
  const { data, info } = await sharp(webp, { animated: true, limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const meta = await sharp(webp, { animated: true }).metadata();
  const pages = meta.pages ?? 1;
  if (pages !== gif.frames.length) return `has ${pages} frames, not ${gif.frames.length}`;
  if ((meta.loop ?? 0) !== plays) return `plays ${meta.loop} times, not ${plays}`;
  const delays = meta.delay ?? [];
  for (let i = 0; i < gif.frames.length; i++) {
    if (delays[i] !== gif.frames[i].delayCs * 10) return `frame ${i} lasts ${delays[i]} ms`;
  }
  if (lossy) return null;
  const frameBytes = info.width * (meta.pageHeight ?? gif.height) * 4;
  for (let i = 0; i < gif.frames.length; i++) {
    if (!sameVisiblePixels(data.subarray(i * frameBytes, (i + 1) * frameBytes), gif.frames[i].data)) return `frame ${i} differs`;
  }
  return null;
}
