/**
 * The animation job: an animated GIF to APNG or animated WebP, each
 * candidate decoded again and held to the same frames, delays and loop count;
 * the smaller proven one wins, and a candidate ruled out says why.
 *
 * Memory: a long animation's frames are hundreds of megabytes (262 frames of
 * 500x485 are 254 MB of RGBA), so they are held once at a time, as one
 * buffer that an encoder reads as it is (sharp: a stack of pages). The WebP
 * is written first, from frames in memory that is given back as soon as
 * sharp is done (decodeGif's `releasable`), and proven by decoding it 16 MiB
 * of pages at a time beside the GIF composited again a frame at a time; then
 * the APNG is written from the frames decoded again into plain memory (its
 * encoder reads them over and over, which Node 20 does four times slower in
 * releasable memory) and read back a frame at a time against them.
 *
 * Time: a budget per image (imageTimeBudget, seconds) bounds the candidates
 * written. It is counted in work estimated from the animation, not in time
 * measured while encoding, so that a build writes the same bytes on every run
 * and machine. A candidate's work is a·P + b·C microseconds, P being the
 * canvas's pixels times the frames and C the pixels of the rectangles that
 * change from one frame to the next (frame 0 whole); WORK holds a and b, CPU
 * time on the benchmark machine (2 cores, Node 20: bench/animation.js,
 * docs/measurements/animation-benchmark.md). When APNG and WebP together are
 * estimated over the budget, the dearer is not written, and the result names
 * it with its estimate. The estimates are rough (about a factor of two
 * either way on the animations measured, but lossy WebP on a plain
 * background five times over); at the default of 60 s they leave out a candidate only for the
 * largest animations (27 million pixel-frames or more, 111 frames of
 * 500x485, with every pixel changing); on a slower machine the same budget
 * allows more seconds.
 */
import sharp from 'sharp';
import { decodeGif, readGif } from '../gif/decode.js';
import { changedRect, encodeApng } from '../apng.js';
import { readApng } from '../apng-frames.js';
import { pixelWords } from '../png/pixels.js';
import { imageErrorReason } from '../../util/image-error.js';
import { guarded, sameVisiblePixels } from './results.js';

/**
 * @typedef {import('./results.js').ImageJobOptions} ImageJobOptions
 * @typedef {import('./results.js').ImageResult} ImageResult
 * @typedef {import('./results.js').Converted & { ruledOut?: string[] }} ConvertedAnimation a conversion, and
 *   each candidate that was not proven or not tried, with why (e.g. "WebP ruled out: frame 12 differs")
 * @typedef {'apng' | 'webp'} Candidate
 * @typedef {import('../gif/decode.js').GifReader} GifReader
 * @typedef {import('../gif/decode.js').DecodedGifFrame} DecodedGifFrame
 * @typedef {ImageJobOptions & { format: 'auto' | 'apng' | 'webp', lossy: boolean, quality: [number, number], imageTimeBudget?: number }} AnimationOptions
 *   imageTimeBudget: seconds (DEFAULT_TIME_BUDGET_S when not given; 0: no budget)
 */

/** Seconds of work an animation's candidates may take by default (imageTimeBudget); 0 is no budget. */
export const DEFAULT_TIME_BUDGET_S = 60;

/**
 * Microseconds of CPU time per pixel-frame (a) and per changed pixel (b) of
 * each candidate, written and proven (see the header), fitted to six
 * animations of 0.6 to 64 million pixel-frames (the fit is in
 * docs/measurements/animation-benchmark.md). APNG is the dearer where much
 * changes (every changed rectangle is ranked in three disposals); lossy WebP
 * is dear even where little does, as its inexact frames make libwebp store
 * much more than changed (less so on a plain background).
 */
const WORK = {
  apng: { a: 0.15, b: 1.3 },
  webp: { a: 0.08, b: 0.7 },
  webpLossy: { a: 0.45, b: 0.35 },
};

/**
 * What sharp decodes of a WebP at a time, for its proof: whole pages, at
 * least one. libwebp decodes every chunk from the first frame on (on 262
 * frames of 500x485, 16 MiB chunks cost 0.4 s of CPU more than one decode);
 * larger chunks outlive more garbage collections, and wait longer for one
 * after they are dropped.
 */
const PROOF_CHUNK_BYTES = 16 * 2 ** 20;

/** @type {Record<Candidate, string>} */
const NAMES = { apng: 'APNG', webp: 'WebP' };

/**
 * An animated GIF to APNG or animated WebP, whichever is smaller and proven.
 * @param {{ bytes: Uint8Array, options: AnimationOptions }} input
 * @returns {Promise<ConvertedAnimation | import('./results.js').Kept | import('./results.js').Failed>}
 */
export async function animation({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return guarded(() => convert(bytes, options));
}

/**
 * @param {Buffer} bytes the GIF
 * @param {AnimationOptions} options
 * @returns {Promise<ConvertedAnimation | import('./results.js').Kept>}
 */
async function convert(bytes, options) {
  const { maxPixels } = options;
  const gif = readGif(bytes, { maxPixels });
  const count = gif.delaysCs.length;
  if (count < 2) {
    decodeGif(bytes, { maxPixels }); // a frame that cannot be decoded fails the job, as in every GIF
    return { status: 'kept', reason: 'not animated', warnings: gif.warnings };
  }
  // GIF counts repetitions after the first play and plays once without a loop block; APNG and WebP count plays.
  const plays = gif.loop === null ? 1 : gif.loop === 0 ? 0 : gif.loop + 1;
  const lossy = options.lossy;
  /** @type {Record<Candidate, { why: string, tried: boolean } | undefined>} a candidate not proven (tried) or not written (not tried), and why */
  const failures = { apng: undefined, webp: undefined };

  /** @type {Candidate[]} */
  let wanted = [];
  if (options.format !== 'webp') wanted.push('apng');
  if (options.format !== 'apng') {
    const limit = webpLimit(gif, plays);
    if (limit) failures.webp = { why: limit, tried: false };
    else wanted.push('webp');
  }
  const budget = options.imageTimeBudget ?? DEFAULT_TIME_BUDGET_S;
  if (wanted.length > 1 && budget > 0) {
    const work = workOf(gif);
    /** @param {Candidate} candidate @returns {number} seconds */
    const estimate = (candidate) => {
      const { a, b } = WORK[candidate === 'webp' && lossy ? 'webpLossy' : candidate];
      return (a * work.pixelFrames + b * work.changed) / 1e6;
    };
    if (estimate('apng') + estimate('webp') > budget) {
      const [cheaper, dearer] = estimate('apng') < estimate('webp') ? /** @type {const} */ (['apng', 'webp']) : /** @type {const} */ (['webp', 'apng']);
      failures[dearer] = { why: `estimated at ${seconds(estimate(dearer))}, which with ${NAMES[cheaper]}'s ${seconds(estimate(cheaper))} goes over the ${budget} s budget per image`, tried: false };
      wanted = [cheaper];
    }
  }

  /** @type {Partial<Record<Candidate, Buffer>>} */
  const written = {};
  /** @type {Record<Candidate, { bytes: Buffer, detail: string } | undefined>} */
  const proven = { apng: undefined, webp: undefined };
  // WebP first, from frames given back as soon as sharp has written: neither its proof nor the APNG's frames sit beside them.
  if (wanted.includes('webp')) {
    const frames = decodeGif(bytes, { maxPixels, releasable: true });
    try {
      const delay = gif.delaysCs.map((cs) => cs * 10);
      // The frames stacked as sharp's pages, as decodeGif holds them; it has held the canvas times the frames to maxPixels.
      written.webp = await sharp(frames.pixels, { raw: { width: gif.width, height: gif.height * count, channels: 4, pageHeight: gif.height }, limitInputPixels: false })
        .webp(lossy ? { quality: options.quality[1], effort: 6, loop: plays, delay } : { lossless: true, exact: true, effort: 6, loop: plays, delay })
        .toBuffer();
    } catch (error) {
      failures.webp = { why: `cannot be written (${imageErrorReason(error)})`, tried: false };
    } finally {
      frames.release();
    }
    if (written.webp) {
      const checked = await checkWebp(written.webp, gif, plays, lossy);
      if (typeof checked === 'string') failures.webp = { why: checked, tried: true };
      else {
        const stored = checked.pages < count ? ` (${checked.pages} stored: repeated frames shown longer)` : '';
        proven.webp = { bytes: written.webp, detail: `${lossy ? 'lossy' : 'lossless'} WebP, ${count} frames${stored}` };
      }
    }
  }
  // The APNG encoder reads the frames over and over in JavaScript, so from plain memory.
  if (wanted.includes('apng')) {
    const frames = decodeGif(bytes, { maxPixels }).frames;
    written.apng = await encodeApng({ width: gif.width, height: gif.height, loop: plays, frames: frames.map((f) => ({ data: f.data, delayCs: f.delayCs })) }, { zopfliIterations: options.zopfliIterations });
    const problem = checkApng(written.apng, frames, plays);
    if (problem) failures.apng = { why: problem, tried: true };
    else proven.apng = { bytes: written.apng, detail: `APNG, ${count} frames` };
  }

  // Reported APNG first whatever the order written; on equal sizes the APNG wins.
  /** @type {Candidate[]} */
  const all = ['apng', 'webp'];
  /** @type {Record<string, number>} */
  const candidates = {};
  for (const candidate of all) {
    const file = written[candidate];
    if (file) candidates[candidate] = file.length;
  }
  const ranked = all.flatMap((format) => {
    const found = proven[format];
    return found ? [{ format, ...found }] : [];
  }).sort((a, b) => a.bytes.length - b.bytes.length);
  const notProven = all.flatMap((candidate) => {
    const failure = failures[candidate];
    return failure ? [{ name: NAMES[candidate], ...failure }] : [];
  });
  const best = ranked[0];
  if (!best) return { status: 'kept', reason: notProven.map(({ name, why, tried }) => (tried ? `${name} ${why}` : `${name} not tried: ${why}`)).join('; '), warnings: gif.warnings, candidates };
  const ruledOut = notProven.map(({ name, why, tried }) => `${name} ${tried ? 'ruled out' : 'not tried'}: ${why}`);
  if (best.bytes.length >= bytes.length) {
    return { status: 'kept', reason: `GIF smaller (${bytes.length} B; ${Object.entries(candidates).map(([k, v]) => `${k} ${v} B`).join(', ')})${ruledOut.map((why) => `; ${why}`).join('')}`, warnings: gif.warnings, candidates };
  }
  return { status: 'converted', bytes: best.bytes, format: best.format, detail: best.detail, warnings: gif.warnings, candidates, ...(ruledOut.length > 0 && { ruledOut }) };
}

/**
 * What the budget counts: the canvas's pixels times the frames, and the
 * pixels of the rectangles that change from frame to frame (frame 0 whole),
 * the frames composited one at a time.
 * @param {GifReader} gif
 * @returns {{ pixelFrames: number, changed: number }}
 */
function workOf(gif) {
  const { width, height } = gif;
  const previous = new Uint32Array(width * height);
  let changed = 0;
  let first = true;
  for (const { data } of gif.frames()) {
    const current = pixelWords(data);
    const rect = first ? { width, height } : changedRect(previous, current, width, height);
    changed += rect.width * rect.height;
    previous.set(current);
    first = false;
  }
  return { pixelFrames: width * height * gif.delaysCs.length, changed };
}

/** @param {number} s @returns {string} an estimate, as said in a reason */
function seconds(s) {
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/**
 * Reads the APNG back a frame at a time, each compared with the GIF's and let go.
 * @param {Buffer} apng
 * @param {DecodedGifFrame[]} frames the GIF's
 * @param {number} plays
 * @returns {string | null} what fails the proof; a file that cannot be read back fails it (the WebP may still be proven)
 */
function checkApng(apng, frames, plays) {
  try {
    const reader = readApng(apng);
    if (reader.count !== frames.length) return `has ${reader.count} frames, not ${frames.length}`;
    if (reader.loop !== plays) return `plays ${reader.loop} times, not ${plays}`;
    let i = 0;
    for (const f of reader.frames()) {
      if (f.delayNum * 100 !== frames[i].delayCs * (f.delayDen || 100)) return `frame ${i} lasts ${f.delayNum}/${f.delayDen} s`;
      if (!f.data.equals(frames[i].data)) return `frame ${i} differs`;
      i++;
    }
  } catch (error) {
    return `cannot be read back (${imageErrorReason(error)})`;
  }
  return null;
}

/**
 * The next frame's pixels (the reader's canvas, valid until the one after is asked for).
 * @param {Generator<DecodedGifFrame>} frames
 * @returns {Buffer}
 */
function nextFrame(frames) {
  const next = frames.next();
  if (next.done) throw new Error('the GIF has fewer frames than before'); // the same bytes, composited again
  return next.value.data;
}

/** What sharp writes into an animated WebP: frames of at most 65,535 ms, at most 65,535 plays, at most 16,383 pixels a side. */
const WEBP_MAX_DELAY_MS = 65535, WEBP_MAX_PLAYS = 65535, WEBP_MAX_SIDE = 16383;

/**
 * Why an animation cannot be written as WebP at all, or null.
 * @param {GifReader} gif
 * @param {number} plays
 * @returns {string | null}
 */
function webpLimit(gif, plays) {
  if (gif.width > WEBP_MAX_SIDE || gif.height > WEBP_MAX_SIDE) return `${gif.width}x${gif.height} is larger than WebP allows (${WEBP_MAX_SIDE} a side)`;
  if (plays > WEBP_MAX_PLAYS) return `plays ${plays} times, more than WebP can say (${WEBP_MAX_PLAYS})`;
  const long = gif.delaysCs.findIndex((cs) => cs * 10 > WEBP_MAX_DELAY_MS);
  if (long >= 0) return `frame ${long} lasts ${gif.delaysCs[long] * 10} ms, longer than sharp writes (${WEBP_MAX_DELAY_MS} ms)`;
  return null;
}

/**
 * Proves a WebP against the GIF it was written from. libwebp stores a frame
 * that repeats the one before as a longer showing of that frame (a 262-frame
 * GIF with a pause may become 250 WebP frames), so what is compared is what
 * is shown over time: every WebP frame must start and end where GIF frames
 * do, every change of picture in the GIF must start a WebP frame, each WebP
 * frame must show the pixels of the GIF frames it stands for, and the whole
 * must last as long and play as often. The WebP is decoded a few pages at a
 * time and the GIF a frame at a time, both in order, so neither is held whole.
 * @param {Buffer} webp
 * @param {GifReader} gif
 * @param {number} plays
 * @param {boolean} lossy pixels are not compared, frames and timing are
 * @returns {Promise<string | { pages: number }>} what fails the proof, or the frames the WebP stores
 */
async function checkWebp(webp, gif, plays, lossy) {
  let meta;
  try {
    meta = await sharp(webp, { animated: true, limitInputPixels: false }).metadata();
  } catch (error) {
    return `cannot be read back (${imageErrorReason(error)})`;
  }
  const count = gif.delaysCs.length;
  const pages = meta.pages ?? 1;
  const pageHeight = meta.pageHeight ?? meta.height;
  if (meta.width !== gif.width || pageHeight !== gif.height) return `is ${meta.width}x${pageHeight}, not ${gif.width}x${gif.height}`;
  if ((meta.loop ?? 0) !== plays) return `plays ${meta.loop} times, not ${plays}`;
  const delays = meta.delay ?? [];
  if (delays.length !== pages) return `has ${pages} frames but ${delays.length} delays`;
  /** @type {Map<number, number>} the GIF frame that starts at each time (ms), and the frame count at the end; GIF delays are at least 20 ms, so one a time */
  const starts = new Map();
  let gifTotal = 0;
  gif.delaysCs.forEach((cs, i) => {
    starts.set(gifTotal, i);
    gifTotal += cs * 10;
  });
  starts.set(gifTotal, count);
  const total = delays.reduce((sum, d) => sum + d, 0);
  if (total !== gifTotal) return `lasts ${total} ms in all, not ${gifTotal} ms (${pages} frames for ${count})`;
  const frameBytes = gif.width * gif.height * 4;
  const chunkPages = Math.max(1, Math.floor(PROOF_CHUNK_BYTES / frameBytes));
  /** @type {Buffer | null} */
  let chunk = null;
  const expected = gif.frames();
  const previous = Buffer.alloc(frameBytes);
  let at = 0;
  for (let page = 0; page < pages; page++) {
    if (page % chunkPages === 0) {
      chunk = null; // unreachable before the next is decoded, so that a collection may take it
      try {
        chunk = await sharp(webp, { page, pages: Math.min(chunkPages, pages - page), limitInputPixels: false }).ensureAlpha().raw().toBuffer();
      } catch (error) {
        return `cannot be read back (${imageErrorReason(error)})`;
      }
    }
    const first = starts.get(at);
    const end = starts.get(at + delays[page]);
    if (first === undefined || end === undefined || end <= first) {
      return `frame ${page} of ${pages} runs from ${at} to ${at + delays[page]} ms, where the GIF has no frame boundary`;
    }
    // Pages follow each other in time, so this page's first GIF frame is the one after the last page's.
    let current = nextFrame(expected);
    for (let i = first + 1; i < end; i++) {
      previous.set(current);
      current = nextFrame(expected);
      if (!sameVisiblePixels(current, previous)) return `shows frames ${first}-${end - 1} as one, though frame ${i} differs from frame ${i - 1}`;
    }
    // Frames first to end - 1 show the same, so the last of them stands for frame first.
    const offset = (page % chunkPages) * frameBytes;
    if (!lossy && !sameVisiblePixels(/** @type {Buffer} */ (chunk).subarray(offset, offset + frameBytes), current)) {
      return end - first > 1 ? `frame ${first} differs (shown until frame ${end - 1})` : `frame ${first} differs`;
    }
    at += delays[page];
  }
  return { pages };
}
