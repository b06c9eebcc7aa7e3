/**
 * Animated PNG: a writer that stores each frame after the first as the
 * rectangle that changed. What it writes is proven by reading it back with
 * another decoder (./apng-frames.js: fast-png's, composited by the spec).
 */
import { PNG_SIGNATURE, chunk, ihdr } from './png-chunks.js';
import { analyse, paletteDepth } from './png/analyse.js';
import { formatChunks, formatOverhead, transparentWord } from './png/formats.js';
import { alphaOf, pixelWords, wordOf } from './png/pixels.js';
import { finishRaster, rankRaster, zopfliIterationsOf } from './png/rank.js';

/** @typedef {import('./png/formats.js').PngFormat} PngFormat */
/** @typedef {import('./png/rank.js').Ranking} Ranking */

const DISPOSE_NONE = 0, DISPOSE_BACKGROUND = 1, DISPOSE_PREVIOUS = 2;
const BLEND_SOURCE = 0, BLEND_OVER = 1;
const MAX_UINT16 = 0xffff;
/** How many frames decide the shared format of a long animation. */
const FORMAT_SAMPLE_FRAMES = 12;

/** @typedef {{ x: number, y: number, width: number, height: number }} Rect */

/**
 * @typedef {object} Animation
 * @property {number} width
 * @property {number} height
 * @property {number} [loop] plays; 0 = forever
 * @property {{ data: Uint8Array, delayCs: number }[]} frames full-canvas RGBA; delay in hundredths of a second
 */

/**
 * How one frame is stored: the rectangle, blend and pixels, its ranking
 * in the chosen format, and how it is disposed of before the next frame.
 * @typedef {{ rect: Rect, blend: number, patch: Uint8Array, ranking: Ranking, dispose: number }} FramePlan
 */

/**
 * Writes an APNG whose frames composite to exactly the given ones. Each
 * frame's dispose_op (NONE, BACKGROUND or PREVIOUS) is chosen, greedily, as
 * the one that lets the next frame be stored smallest.
 * @param {Animation} animation
 * @param {{ zopfliIterations?: number, paletteOrder?: number[], dispose?: boolean }} [options]
 *   paletteOrder: 0xRRGGBBAA colours in a preferred order; dispose: false keeps every dispose_op NONE (for comparison)
 * @returns {Promise<Buffer>}
 */
export async function encodeApng(animation, options = {}) {
  checkAnimation(animation);
  const { width, height, frames } = animation;
  const iterations = zopfliIterationsOf(options);
  const words = frames.map((frame) => pixelWords(frame.data));
  const rects = words.map((current, i) => (i === 0 ? { x: 0, y: 0, width, height } : changedRect(words[i - 1], current, width, height)));

  // Formats are compared on a sample of the frames, as every format costs a pass over them.
  const sample = evenlySpaced(frames.length, FORMAT_SAMPLE_FRAMES);
  // Fresh views of the frames: the colour analysis caches each raster's palette indices by its array
  // (./png/pixels.js), a quarter of the frames' bytes again, which should go when the analysis does.
  const formats = withTransparentEntries(analyse(frames.map((frame) => frame.data.subarray()), { paletteOrder: options.paletteOrder, width }));
  /** @type {{ format: PngFormat, size: number, plans: FramePlan[] } | undefined} */
  let best;
  for (const format of formats) {
    const plans = await planFrames(animation, words, rects, format, sample);
    const size = formatOverhead(format) + plans.reduce((sum, plan) => sum + plan.ranking.trials[0].size, 0);
    if (!best || size < best.size) best = { format, size, plans };
  }
  if (!best) throw new Error('No PNG format holds these frames'); // analyse always offers one
  const { format } = best;

  // The quick ranking chose format and blends; the final one tries every filter.
  const parts = [
    PNG_SIGNATURE,
    ihdr({ width, height, bitDepth: format.bitDepth, colorType: format.colorType }),
    chunk('acTL', uint32s(frames.length, animation.loop ?? 0)),
    ...formatChunks(format),
  ];
  let sequence = 0;
  /** @type {(plan: FramePlan, i: number) => Promise<void>} */
  const write = async (plan, i) => {
    const ranking = await rankRaster(plan.patch, plan.rect.width, plan.rect.height, format);
    const raster = await finishRaster(plan.patch, plan.rect.width, plan.rect.height, format, ranking, iterations);
    parts.push(chunk('fcTL', frameControl(sequence++, plan.rect, frames[i].delayCs, plan.blend, plan.dispose)));
    parts.push(i === 0 ? chunk('IDAT', raster.data) : chunk('fdAT', Buffer.concat([uint32s(sequence++), raster.data])));
  };
  // Formats were compared with NONE disposal; the disposals are chosen in the winning format.
  const allowDispose = options.dispose ?? true;
  if (sample.length === frames.length && !allowDispose) {
    for (const [i, plan] of best.plans.entries()) await write(plan, i);
  } else {
    best = undefined; // its sample's plans: every frame is planned again
    await planSequence(animation, words, format, allowDispose, write);
  }
  parts.push(chunk('IEND'));
  return Buffer.concat(parts);
}

/** @param {Animation} animation */
function checkAnimation({ width, height, loop = 0, frames }) {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new Error(`Invalid animation size ${width}x${height}`);
  if (!Number.isInteger(loop) || loop < 0 || loop > 0x7fffffff) throw new Error(`Invalid loop count ${loop}`);
  if (frames.length === 0) throw new Error('An animation needs at least one frame');
  frames.forEach(({ data, delayCs }, i) => {
    if (data.length !== width * height * 4) throw new Error(`Frame ${i} has ${data.length} bytes of RGBA, the canvas needs ${width * height * 4}`);
    if (!Number.isInteger(delayCs) || delayCs < 0 || delayCs > MAX_UINT16) throw new Error(`Frame ${i} delay ${delayCs} is not a whole number of hundredths from 0 to ${MAX_UINT16}`);
  });
}

/**
 * Up to `count` indices from 0 to length - 1, evenly spread, the first included.
 * @param {number} length @param {number} count
 */
function evenlySpaced(length, count) {
  if (length <= count) return Array.from({ length }, (_, i) => i);
  return [...new Set(Array.from({ length: count }, (_, k) => Math.floor((k * length) / count)))];
}

/**
 * Palette formats without a transparent entry get a variant with one, so that
 * later frames can blend OVER and leave unchanged pixels out.
 * @param {PngFormat[]} formats
 */
function withTransparentEntries(formats) {
  return formats.flatMap((format) => {
    const palette = format.palette;
    if (!palette || palette.length >= 256 || transparentWord(format) !== undefined) return [format];
    const entries = Uint32Array.from([wordOf(0, 0, 0, 0), ...palette]);
    // One more entry may need a wider index, never a narrower one (a format of one byte per index stays so).
    const bitDepth = /** @type {1 | 2 | 4 | 8} */ (Math.max(format.bitDepth, paletteDepth(entries.length)));
    return [format, { ...format, name: `${format.name}+clear`, bitDepth, palette: entries }];
  });
}

/**
 * For each frame asked for, drawn on the previous frame left as it is (dispose
 * NONE), the blend (SOURCE, or OVER when exact and smaller) with its quick ranking.
 * @param {Animation} animation
 * @param {Uint32Array[]} words
 * @param {Rect[]} rects
 * @param {PngFormat} format
 * @param {number[]} indices which frames
 * @returns {Promise<FramePlan[]>}
 */
async function planFrames(animation, words, rects, format, indices) {
  /** @type {FramePlan[]} */
  const plans = [];
  for (const i of indices) plans.push(await planFrame(animation.width, i === 0 ? undefined : words[i - 1], words[i], rects[i], format));
  return plans;
}

/**
 * Every frame in order, each drawn on the canvas the previous frame's disposal
 * leaves: for frame i, frame i - 1's dispose_op is the one (of those allowed)
 * whose canvas lets frame i be stored smallest by the quick ranking.
 * PREVIOUS is never used on the first frame, where it would mean BACKGROUND.
 * Each plan is handed to `write` as soon as its dispose_op is chosen, and
 * let go: the patches of a long animation are never all held at once.
 * @param {Animation} animation
 * @param {Uint32Array[]} words
 * @param {PngFormat} format
 * @param {boolean} allowDispose false: NONE only
 * @param {(plan: FramePlan, i: number) => Promise<void>} write called for every frame, in order
 * @returns {Promise<void>}
 */
async function planSequence(animation, words, format, allowDispose, write) {
  const { width, height } = animation;
  let previous = await planFrame(width, undefined, words[0], { x: 0, y: 0, width, height }, format);
  let drawnOn = /** @type {Uint32Array} */ (new Uint32Array(width * height)); // the canvas the previous frame was drawn on
  for (let i = 1; i < words.length; i++) {
    const disposals = !allowDispose ? [DISPOSE_NONE] : i === 1 ? [DISPOSE_NONE, DISPOSE_BACKGROUND] : [DISPOSE_NONE, DISPOSE_BACKGROUND, DISPOSE_PREVIOUS];
    /** @type {{ dispose: number, canvas: Uint32Array, plan: FramePlan } | undefined} */
    let best;
    for (const dispose of disposals) {
      const canvas = disposedCanvas(words[i - 1], drawnOn, previous.rect, width, dispose);
      const plan = await planFrame(width, canvas, words[i], changedRect(canvas, words[i], width, height), format);
      if (!best || smaller(plan, best.plan)) best = { dispose, canvas, plan };
    }
    const chosen = /** @type {NonNullable<typeof best>} */ (best);
    previous.dispose = chosen.dispose;
    await write(previous, i - 1);
    drawnOn = chosen.canvas;
    previous = chosen.plan;
  }
  await write(previous, words.length - 1);
}

/**
 * The canvas after a frame is disposed of, as a decoder leaves it.
 * @param {Uint32Array} shown the canvas with the frame drawn
 * @param {Uint32Array} drawnOn the canvas before the frame was drawn
 * @param {Rect} rect the frame's rectangle
 * @param {number} canvasWidth
 * @param {number} dispose
 * @returns {Uint32Array} not to be modified: it may be one of the arguments
 */
function disposedCanvas(shown, drawnOn, rect, canvasWidth, dispose) {
  if (dispose === DISPOSE_NONE) return shown;
  // The frame changed only its rectangle, so restoring that gives back the whole canvas it was drawn on.
  if (dispose === DISPOSE_PREVIOUS) return drawnOn;
  const out = Uint32Array.from(shown);
  for (let y = 0; y < rect.height; y++) {
    const start = (rect.y + y) * canvasWidth + rect.x;
    out.fill(0, start, start + rect.width);
  }
  return out;
}

/**
 * A frame's blend (SOURCE, or OVER when exact and smaller) and pixels, drawn
 * on a given canvas, with the quick ranking; dispose NONE until decided.
 * @param {number} canvasWidth
 * @param {Uint32Array | undefined} canvas what the frame is drawn on; undefined for the first frame (SOURCE only)
 * @param {Uint32Array} current the frame
 * @param {Rect} rect holds every pixel where canvas and frame differ
 * @param {PngFormat} format
 * @returns {Promise<FramePlan>}
 */
async function planFrame(canvasWidth, canvas, current, rect, format) {
  /** @type {FramePlan | undefined} */
  let plan;
  for (const blend of canvas ? [BLEND_SOURCE, BLEND_OVER] : [BLEND_SOURCE]) {
    const patch = blend === BLEND_SOURCE ? sourcePatch(canvasWidth, current, rect) : overPatch(canvasWidth, /** @type {Uint32Array} */ (canvas), current, rect, format);
    if (!patch) continue;
    const ranking = await rankRaster(patch, rect.width, rect.height, format, { quick: true });
    const candidate = { rect, blend, patch, ranking, dispose: DISPOSE_NONE };
    if (!plan || smaller(candidate, plan)) plan = candidate;
  }
  return /** @type {FramePlan} */ (plan);
}

/**
 * Whether plan a stores smaller than plan b by the quick ranking; on a tie,
 * the smaller rectangle (less to decode and blend).
 * @param {FramePlan} a @param {FramePlan} b
 */
function smaller(a, b) {
  const sizeA = a.ranking.trials[0].size, sizeB = b.ranking.trials[0].size;
  return sizeA < sizeB || (sizeA === sizeB && a.rect.width * a.rect.height < b.rect.width * b.rect.height);
}

/** @param {number} canvasWidth @param {Uint32Array} current @param {Rect} rect */
function sourcePatch(canvasWidth, current, rect) {
  const out = new Uint32Array(rect.width * rect.height);
  for (let y = 0; y < rect.height; y++) {
    const start = (rect.y + y) * canvasWidth + rect.x;
    out.set(current.subarray(start, start + rect.width), y * rect.width);
  }
  return new Uint8Array(out.buffer);
}

/** @param {number} canvasWidth @param {Uint32Array} previous @param {Uint32Array} current @param {Rect} rect @param {PngFormat} format */
function overPatch(canvasWidth, previous, current, rect, format) {
  const clear = transparentWord(format);
  if (clear === undefined) return undefined;
  const out = new Uint32Array(rect.width * rect.height);
  for (let y = 0, o = 0; y < rect.height; y++) {
    const start = (rect.y + y) * canvasWidth + rect.x;
    for (let x = 0; x < rect.width; x++, o++) {
      const word = current[start + x];
      if (word === previous[start + x]) out[o] = clear;
      else if (alphaOf(word) === 255) out[o] = word;
      else return undefined; // OVER would blend a partly transparent new pixel with the old one
    }
  }
  return new Uint8Array(out.buffer);
}

/**
 * The smallest rectangle holding every pixel that differs, at least 1×1.
 * @param {Uint32Array} previous
 * @param {Uint32Array} current
 * @param {number} width
 * @param {number} height
 * @returns {Rect}
 */
export function changedRect(previous, current, width, height) {
  let top = -1, bottom = -1, left = width, right = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let first = 0;
    while (first < width && previous[row + first] === current[row + first]) first++;
    if (first === width) continue;
    let last = width - 1;
    while (previous[row + last] === current[row + last]) last--;
    if (top < 0) top = y;
    bottom = y;
    left = Math.min(left, first);
    right = Math.max(right, last);
  }
  if (top < 0) return { x: 0, y: 0, width: 1, height: 1 };
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/** @param {...number} values @returns {Buffer} big-endian */
function uint32s(...values) {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => out.writeUInt32BE(value, i * 4));
  return out;
}

/**
 * fcTL data; delays are hundredths of a second.
 * @param {number} sequence @param {Rect} rect @param {number} delayCs @param {number} blend @param {number} dispose
 */
function frameControl(sequence, rect, delayCs, blend, dispose) {
  const data = Buffer.alloc(26);
  data.writeUInt32BE(sequence, 0);
  data.writeUInt32BE(rect.width, 4);
  data.writeUInt32BE(rect.height, 8);
  data.writeUInt32BE(rect.x, 12);
  data.writeUInt32BE(rect.y, 16);
  data.writeUInt16BE(delayCs, 20);
  data.writeUInt16BE(100, 22);
  data[24] = dispose;
  data[25] = blend;
  return data;
}
