/**
 * The animation job: an animated GIF to APNG or animated WebP, each
 * candidate decoded again and held to the same frames, delays and loop count;
 * the smaller proven one wins, and a candidate ruled out says why.
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
 * @typedef {import('./results.js').Converted & { ruledOut?: string[] }} ConvertedAnimation a conversion, and
 *   each candidate that was not proven or not tried, with why (e.g. "WebP ruled out: frame 12 differs")
 */

/**
 * An animated GIF to APNG or animated WebP, whichever is smaller and proven.
 * @param {{ bytes: Uint8Array, options: ImageJobOptions & { format: 'auto' | 'apng' | 'webp', lossy: boolean, quality: [number, number] } }} input
 * @returns {Promise<ConvertedAnimation | import('./results.js').Kept | import('./results.js').Failed>}
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
    /** @type {{ name: string, why: string, tried: boolean }[]} candidates not proven (tried) or not written (not tried), and why */
    const failures = [];
    if (options.format !== 'webp') {
      const apng = await encodeApng({ width: gif.width, height: gif.height, loop: plays, frames: gif.frames.map((f) => ({ data: f.data, delayCs: f.delayCs })) }, { zopfliIterations: options.zopfliIterations });
      candidates.apng = apng.length;
      const problem = checkApng(apng, gif, plays);
      if (problem) failures.push({ name: 'APNG', why: problem, tried: true });
      else proven.push({ format: 'apng', bytes: apng, detail: `APNG, ${gif.frames.length} frames` });
    }
    if (options.format !== 'apng') {
      const lossy = options.lossy;
      const limit = webpLimit(gif, plays);
      if (limit) failures.push({ name: 'WebP', why: limit, tried: false });
      else {
        let webp = null;
        try {
          const stacked = Buffer.concat(gif.frames.map((f) => f.data));
          // decodeGif has held the canvas times the frames to maxPixels.
          webp = await sharp(stacked, { raw: { width: gif.width, height: gif.height * gif.frames.length, channels: 4, pageHeight: gif.height }, limitInputPixels: false })
            .webp(lossy ? { quality: options.quality[1], effort: 6, loop: plays, delay: delaysCs.map((d) => d * 10) } : { lossless: true, exact: true, effort: 6, loop: plays, delay: delaysCs.map((d) => d * 10) })
            .toBuffer();
        } catch (error) {
          failures.push({ name: 'WebP', why: `cannot be written (${imageErrorReason(error)})`, tried: false });
        }
        if (webp) {
          candidates.webp = webp.length;
          const checked = await checkWebp(webp, gif, plays, lossy);
          if (typeof checked === 'string') failures.push({ name: 'WebP', why: checked, tried: true });
          else {
            const stored = checked.pages < gif.frames.length ? ` (${checked.pages} stored: repeated frames shown longer)` : '';
            proven.push({ format: 'webp', bytes: webp, detail: `${lossy ? 'lossy' : 'lossless'} WebP, ${gif.frames.length} frames${stored}` });
          }
        }
      }
    }
    proven.sort((a, b) => a.bytes.length - b.bytes.length);
    const best = proven[0];
    if (!best) return { status: 'kept', reason: failures.map(({ name, why, tried }) => (tried ? `${name} ${why}` : `${name} not tried: ${why}`)).join('; '), warnings: gif.warnings, candidates };
    const ruledOut = failures.map(({ name, why, tried }) => `${name} ${tried ? 'ruled out' : 'not tried'}: ${why}`);
    if (best.bytes.length >= bytes.length) {
      return { status: 'kept', reason: `GIF smaller (${bytes.length} B; ${Object.entries(candidates).map(([k, v]) => `${k} ${v} B`).join(', ')})${ruledOut.map((why) => `; ${why}`).join('')}`, warnings: gif.warnings, candidates };
    }
    return { status: 'converted', bytes: best.bytes, format: best.format, detail: best.detail, warnings: gif.warnings, candidates, ...(ruledOut.length > 0 && { ruledOut }) };
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

/** What sharp writes into an animated WebP: frames of at most 65,535 ms, at most 65,535 plays, at most 16,383 pixels a side. */
const WEBP_MAX_DELAY_MS = 65535, WEBP_MAX_PLAYS = 65535, WEBP_MAX_SIDE = 16383;

/**
 * Why an animation cannot be written as WebP at all, or null.
 * @param {ReturnType<typeof decodeGif>} gif
 * @param {number} plays
 * @returns {string | null}
 */
function webpLimit(gif, plays) {
  if (gif.width > WEBP_MAX_SIDE || gif.height > WEBP_MAX_SIDE) return `${gif.width}x${gif.height} is larger than WebP allows (${WEBP_MAX_SIDE} a side)`;
  if (plays > WEBP_MAX_PLAYS) return `plays ${plays} times, more than WebP can say (${WEBP_MAX_PLAYS})`;
  const long = gif.frames.findIndex((f) => f.delayCs * 10 > WEBP_MAX_DELAY_MS);
  if (long >= 0) return `frame ${long} lasts ${gif.frames[long].delayCs * 10} ms, longer than sharp writes (${WEBP_MAX_DELAY_MS} ms)`;
  return null;
}

/**
 * Proves a WebP against the GIF it was written from. libwebp stores a frame
 * that repeats the one before as a longer showing of that frame (a 262-frame
 * GIF with a pause may become 250 WebP frames), so what is compared is what
 * is shown over time: every WebP frame must start and end where GIF frames
 * do, every change of picture in the GIF must start a WebP frame, each WebP
 * frame must show the pixels of the GIF frames it stands for, and the whole
 * must last as long and play as often.
 * @param {Buffer} webp
 * @param {ReturnType<typeof decodeGif>} gif
 * @param {number} plays
 * @param {boolean} lossy pixels are not compared, frames and timing are
 * @returns {Promise<string | { pages: number }>} what fails the proof, or the frames the WebP stores
 */
async function checkWebp(webp, gif, plays, lossy) {
  let data, info, meta;
  try {
    ({ data, info } = await sharp(webp, { animated: true, limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true }));
    meta = await sharp(webp, { animated: true, limitInputPixels: false }).metadata();
  } catch (error) {
    return `cannot be read back (${imageErrorReason(error)})`;
  }
  const pages = meta.pages ?? 1;
  const pageHeight = meta.pageHeight ?? info.height;
  if (info.width !== gif.width || pageHeight !== gif.height) return `is ${info.width}x${pageHeight}, not ${gif.width}x${gif.height}`;
  if ((meta.loop ?? 0) !== plays) return `plays ${meta.loop} times, not ${plays}`;
  const delays = meta.delay ?? [];
  if (delays.length !== pages) return `has ${pages} frames but ${delays.length} delays`;
  /** @type {Map<number, number>} the GIF frame that starts at each time (ms), and the frame count at the end; GIF delays are at least 20 ms, so one a time */
  const starts = new Map();
  let gifTotal = 0;
  gif.frames.forEach((f, i) => {
    starts.set(gifTotal, i);
    gifTotal += f.delayCs * 10;
  });
  starts.set(gifTotal, gif.frames.length);
  const total = delays.reduce((sum, d) => sum + d, 0);
  if (total !== gifTotal) return `lasts ${total} ms in all, not ${gifTotal} ms (${pages} frames for ${gif.frames.length})`;
  const frameBytes = gif.width * gif.height * 4;
  let at = 0;
  for (let page = 0; page < pages; page++) {
    const first = starts.get(at);
    const end = starts.get(at + delays[page]);
    if (first === undefined || end === undefined || end <= first) {
      return `frame ${page} of ${pages} runs from ${at} to ${at + delays[page]} ms, where the GIF has no frame boundary`;
    }
    for (let i = first + 1; i < end; i++) {
      if (!sameVisiblePixels(gif.frames[i].data, gif.frames[i - 1].data)) return `shows frames ${first}-${end - 1} as one, though frame ${i} differs from frame ${i - 1}`;
    }
    if (!lossy && !sameVisiblePixels(data.subarray(page * frameBytes, (page + 1) * frameBytes), gif.frames[first].data)) {
      return end - first > 1 ? `frame ${first} differs (shown until frame ${end - 1})` : `frame ${first} differs`;
    }
    at += delays[page];
  }
  return { pages };
}
