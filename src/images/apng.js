/**
 * Animated PNG: a writer that stores each frame after the first as the
 * rectangle that changed, and a decoder for any PNG or APNG of bit depth ≤ 8
 * that composites frames as a browser does, to prove the writer exact.
 */
import zlib from 'node:zlib';
import { PNG_SIGNATURE, chunk, ihdr, readChunks } from './png-chunks.js';
import {
  alphaOf, analyse, finishRaster, formatOverhead, formatChunks, paeth, paletteDepth, pixelWords, rankRaster,
  transparentWord, wordOf, zopfliIterationsOf,
} from './png-encode.js';

/** @typedef {import('./png-encode.js').PngFormat} PngFormat */
/** @typedef {import('./png-encode.js').Ranking} Ranking */

const DISPOSE_NONE = 0, DISPOSE_BACKGROUND = 1, DISPOSE_PREVIOUS = 2;
const BLEND_SOURCE = 0, BLEND_OVER = 1;
const MAX_UINT16 = 0xffff;
/** How many frames decide the shared format of a long animation. */
const FORMAT_SAMPLE_FRAMES = 12;

/** @typedef {{ x: number, y: number, width: number, height: number }} Rect */

// ---------------------------------------------------------------- writing

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
  /** @type {{ format: PngFormat, size: number, plans: FramePlan[] } | undefined} */
  let best;
  for (const format of withTransparentEntries(analyse(frames.map((frame) => frame.data), { paletteOrder: options.paletteOrder, width }))) {
    const plans = await planFrames(animation, words, rects, format, sample);
    const size = formatOverhead(format) + plans.reduce((sum, plan) => sum + plan.ranking.trials[0].size, 0);
    if (!best || size < best.size) best = { format, size, plans };
  }
  if (!best) throw new Error('No PNG format holds these frames'); // analyse always offers one
  const { format } = best;
  // Formats were compared with NONE disposal; the disposals are chosen in the winning format.
  const allowDispose = options.dispose ?? true;
  const plans = sample.length === frames.length && !allowDispose ? best.plans : await planSequence(animation, words, format, allowDispose);

  // The quick ranking chose format and blends; the final one tries every filter.
  const parts = [
    PNG_SIGNATURE,
    ihdr({ width, height, bitDepth: format.bitDepth, colorType: format.colorType }),
    chunk('acTL', uint32s(frames.length, animation.loop ?? 0)),
    ...formatChunks(format),
  ];
  let sequence = 0;
  for (const [i, plan] of plans.entries()) {
    const ranking = await rankRaster(plan.patch, plan.rect.width, plan.rect.height, format);
    const raster = await finishRaster(plan.patch, plan.rect.width, plan.rect.height, format, ranking, iterations);
    parts.push(chunk('fcTL', frameControl(sequence++, plan.rect, frames[i].delayCs, plan.blend, plan.dispose)));
    parts.push(i === 0 ? chunk('IDAT', raster.data) : chunk('fdAT', Buffer.concat([uint32s(sequence++), raster.data])));
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
 * @param {Animation} animation
 * @param {Uint32Array[]} words
 * @param {PngFormat} format
 * @param {boolean} allowDispose false: NONE only
 * @returns {Promise<FramePlan[]>}
 */
async function planSequence(animation, words, format, allowDispose) {
  const { width, height } = animation;
  /** @type {FramePlan[]} */
  const plans = [await planFrame(width, undefined, words[0], { x: 0, y: 0, width, height }, format)];
  let drawnOn = /** @type {Uint32Array} */ (new Uint32Array(width * height)); // the canvas the previous frame was drawn on
  for (let i = 1; i < words.length; i++) {
    const previous = plans[i - 1];
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
    drawnOn = chosen.canvas;
    plans.push(chosen.plan);
  }
  return plans;
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

// ---------------------------------------------------------------- reading

/**
 * @typedef {object} Header
 * @property {number} width
 * @property {number} height
 * @property {number} bitDepth
 * @property {number} colorType
 * @property {number} interlace
 */

/**
 * @typedef {object} FrameControl
 * @property {number} width
 * @property {number} height
 * @property {number} x
 * @property {number} y
 * @property {number} delayNum
 * @property {number} delayDen 0 read as 100, as the spec says
 * @property {number} dispose
 * @property {number} blend
 */

/**
 * @typedef {object} DecodedFrame
 * @property {Buffer} data the composited full canvas, RGBA
 * @property {number} delayNum
 * @property {number} delayDen
 */

/**
 * @typedef {object} DecodedAnimation
 * @property {number} width
 * @property {number} height
 * @property {number} loop plays; 0 = forever (also for a still PNG)
 * @property {DecodedFrame[]} frames a still PNG gives one frame with delay 0/100
 */

/** Valid bit depths per colour type, bit depth 16 left out. */
const DEPTHS = /** @type {Record<number, number[]>} */ ({ 0: [1, 2, 4, 8], 2: [8], 3: [1, 2, 4, 8], 4: [8], 6: [8] });
const CHANNELS = /** @type {Record<number, number>} */ ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 });

/**
 * Decodes a PNG or APNG (bit depth ≤ 8, any colour type, interlaced or not)
 * into composited RGBA frames.
 * @param {Uint8Array} buffer
 * @returns {DecodedAnimation}
 */
export function decodeApng(buffer) {
  const chunks = readChunks(buffer);
  if (chunks[0].type !== 'IHDR') throw new Error('Invalid PNG: IHDR is not the first chunk');
  const header = parseHeader(chunks[0].data);
  const { palette, transparency, animationControl, idat, frames } = readStructure(chunks.slice(1), header);
  if (header.colorType === 3 && !palette) throw new Error('Invalid PNG: palette image without PLTE');
  const lookup = sampleLookup(header, palette, transparency);
  const { width, height } = header;

  if (!animationControl) {
    const image = decodeRaster(Buffer.concat(idat), header, width, height, lookup, transparency);
    return { width, height, loop: 0, frames: [{ data: Buffer.from(image.buffer, image.byteOffset, image.byteLength), delayNum: 0, delayDen: 100 }] };
  }
  if (frames.length !== animationControl.frames) throw new Error(`Invalid APNG: acTL says ${animationControl.frames} frames, found ${frames.length}`);
  const rasters = frames.map(({ control, parts }, i) => {
    if (parts.length === 0) throw new Error(`Invalid APNG: frame ${i} has no image data`);
    return decodeRaster(Buffer.concat(parts), header, control.width, control.height, lookup, transparency);
  });
  return { width, height, loop: animationControl.plays, frames: composite(header, frames.map(({ control }) => control), rasters) };
}

/**
 * The chunks after IHDR, checked for order and APNG sequence numbers.
 * @param {import('./png-chunks.js').PngChunk[]} chunks
 * @param {Header} header
 */
function readStructure(chunks, header) {
  /** @type {Buffer | undefined} */ let palette;
  /** @type {Buffer | undefined} */ let transparency;
  /** @type {{ frames: number, plays: number } | undefined} */ let animationControl;
  /** @type {Buffer[]} */ const idat = [];
  /** @type {{ control: FrameControl, parts: Buffer[] }[]} */ const frames = [];
  let sequence = 0, idatState = 'before';
  for (const { type, data } of chunks) {
    if (type !== 'IDAT' && idatState === 'inside') idatState = 'after';
    if (type === 'IHDR') throw new Error('Invalid PNG: more than one IHDR');
    else if (type === 'PLTE') palette = parsePalette(data, header, idatState);
    else if (type === 'tRNS') transparency = data;
    else if (type === 'IDAT') {
      if (idatState === 'after') throw new Error('Invalid PNG: IDAT chunks are not consecutive');
      // An fcTL before the first IDAT makes the default image the first frame.
      if (idatState === 'before' && frames.length === 1) frames[0].parts = idat;
      idatState = 'inside';
      idat.push(data);
    } else if (type === 'acTL') {
      if (idatState !== 'before') throw new Error('Invalid APNG: acTL after IDAT');
      if (data.length !== 8 || data.readUInt32BE(0) === 0) throw new Error('Invalid APNG: bad acTL');
      animationControl = { frames: data.readUInt32BE(0), plays: data.readUInt32BE(4) };
    } else if (type === 'fcTL' && animationControl) {
      checkSequence(data, sequence++);
      frames.push({ control: parseFrameControl(data, header, frames.length === 0 && idatState === 'before'), parts: [] });
    } else if (type === 'fdAT' && animationControl) {
      checkSequence(data, sequence++);
      const frame = frames[frames.length - 1];
      if (!frame || frame.parts === idat) throw new Error('Invalid APNG: fdAT without its own fcTL');
      frame.parts.push(data.subarray(4));
    } else if (type === 'IEND') break;
    else if (/^[A-Z]/.test(type)) throw new Error(`Unsupported critical PNG chunk ${type}`);
  }
  if (idat.length === 0) throw new Error('Invalid PNG: no IDAT');
  return { palette, transparency, animationControl, idat, frames };
}

/** @param {Buffer} data @returns {Header} */
function parseHeader(data) {
  if (data.length !== 13) throw new Error('Invalid PNG: IHDR is not 13 bytes');
  const header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8], colorType: data[9], interlace: data[12] };
  if (header.width === 0 || header.height === 0 || header.width > 0x7fffffff || header.height > 0x7fffffff) throw new Error(`Invalid PNG size ${header.width}x${header.height}`);
  const depths = DEPTHS[header.colorType];
  if (header.bitDepth === 16 && depths) throw new Error('PNG bit depth 16 is not supported');
  if (!depths || !depths.includes(header.bitDepth)) throw new Error(`Invalid PNG: bit depth ${header.bitDepth} with colour type ${header.colorType}`);
  if (data[10] !== 0 || data[11] !== 0) throw new Error('Invalid PNG: unknown compression or filter method');
  if (header.interlace > 1) throw new Error(`Invalid PNG: interlace method ${header.interlace}`);
  return header;
}

/** @param {Buffer} data @param {Header} header @param {string} idatState */
function parsePalette(data, header, idatState) {
  if (idatState !== 'before') throw new Error('Invalid PNG: PLTE after IDAT');
  const entries = data.length / 3;
  if (!Number.isInteger(entries) || entries < 1 || entries > 256) throw new Error(`Invalid PNG: PLTE of ${data.length} bytes`);
  if (header.colorType === 3 && entries > 1 << header.bitDepth) throw new Error(`Invalid PNG: ${entries} palette entries at bit depth ${header.bitDepth}`);
  return data;
}

/** @param {Buffer} data @param {number} expected */
function checkSequence(data, expected) {
  if (data.length < 4) throw new Error('Invalid APNG: frame chunk too short');
  const found = data.readUInt32BE(0);
  if (found !== expected) throw new Error(`Invalid APNG: sequence number ${found} where ${expected} was due`);
}

/**
 * @param {Buffer} data
 * @param {Header} header
 * @param {boolean} isDefaultImage whether this fcTL describes the IDAT image
 * @returns {FrameControl}
 */
function parseFrameControl(data, header, isDefaultImage) {
  if (data.length !== 26) throw new Error('Invalid APNG: fcTL is not 26 bytes');
  const control = {
    width: data.readUInt32BE(4), height: data.readUInt32BE(8), x: data.readUInt32BE(12), y: data.readUInt32BE(16),
    delayNum: data.readUInt16BE(20), delayDen: data.readUInt16BE(22) || 100, dispose: data[24], blend: data[25],
  };
  const { width, height, x, y } = control;
  if (width === 0 || height === 0 || x + width > header.width || y + height > header.height) {
    throw new Error(`Invalid APNG: frame ${width}x${height} at ${x},${y} outside the ${header.width}x${header.height} canvas`);
  }
  if (isDefaultImage && (x !== 0 || y !== 0 || width !== header.width || height !== header.height)) {
    throw new Error('Invalid APNG: the default image frame does not cover the canvas');
  }
  if (control.dispose > DISPOSE_PREVIOUS || control.blend > BLEND_OVER) throw new Error('Invalid APNG: unknown dispose_op or blend_op');
  return control;
}

/**
 * Maps samples to pixel words for colour types 0 and 3 (one sample per pixel).
 * @param {Header} header
 * @param {Buffer | undefined} palette
 * @param {Buffer | undefined} transparency tRNS data
 * @returns {Uint32Array | undefined} pixel word per sample value
 */
function sampleLookup(header, palette, transparency) {
  if (header.colorType === 3) {
    const entries = /** @type {Buffer} */ (palette).length / 3;
    if (transparency && transparency.length > entries) throw new Error('Invalid PNG: tRNS longer than the palette');
    return Uint32Array.from({ length: entries }, (_, i) => {
      const p = /** @type {Buffer} */ (palette);
      return wordOf(p[i * 3], p[i * 3 + 1], p[i * 3 + 2], transparency && i < transparency.length ? transparency[i] : 255);
    });
  }
  if (header.colorType === 0) {
    const levels = 1 << header.bitDepth;
    const clearGrey = transparency && transparency.length >= 2 ? transparency.readUInt16BE(0) : -1;
    return Uint32Array.from({ length: levels }, (_, v) => {
      const grey = (v * 255) / (levels - 1);
      return wordOf(grey, grey, grey, v === clearGrey ? 0 : 255);
    });
  }
  return undefined;
}

/**
 * Inflates, unfilters and expands one image (a frame's rectangle) to RGBA.
 * @param {Buffer} compressed
 * @param {Header} header
 * @param {number} width
 * @param {number} height
 * @param {Uint32Array | undefined} lookup
 * @param {Buffer | undefined} transparency
 * @returns {Uint8Array}
 */
function decodeRaster(compressed, header, width, height, lookup, transparency) {
  let inflated;
  try {
    inflated = zlib.inflateSync(compressed);
  } catch (error) {
    throw new Error(`Corrupt PNG image data: ${/** @type {Error} */ (error).message}`);
  }
  const passes = header.interlace ? adam7Passes(width, height) : [{ x: 0, y: 0, dx: 1, dy: 1, width, height }];
  const out = new Uint8Array(width * height * 4);
  const out32 = new Uint32Array(out.buffer);
  let offset = 0;
  for (const pass of passes) {
    if (pass.width === 0 || pass.height === 0) continue;
    const stride = Math.ceil((pass.width * CHANNELS[header.colorType] * header.bitDepth) / 8);
    const end = offset + (stride + 1) * pass.height;
    if (end > inflated.length) throw new Error(`Truncated PNG image data: ${inflated.length} bytes, ${end} needed`);
    const raw = unfilter(inflated.subarray(offset, end), stride, pass.height, Math.max(1, (CHANNELS[header.colorType] * header.bitDepth) >> 3));
    offset = end;
    const pixels = expandRows(raw, stride, pass.width, pass.height, header, lookup, transparency);
    if (!header.interlace) {
      out32.set(pixels);
      continue;
    }
    for (let y = 0; y < pass.height; y++) {
      for (let x = 0; x < pass.width; x++) out32[(pass.y + y * pass.dy) * width + pass.x + x * pass.dx] = pixels[y * pass.width + x];
    }
  }
  if (offset !== inflated.length) throw new Error(`Invalid PNG image data: ${inflated.length - offset} bytes too many`);
  return out;
}

/** The seven Adam7 passes: origin, spacing and size of each sub-image. @param {number} width @param {number} height */
function adam7Passes(width, height) {
  return [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]].map(([x, y, dx, dy]) => ({
    x, y, dx, dy, width: Math.ceil((width - x) / dx), height: Math.ceil((height - y) / dy),
  }));
}

/**
 * @param {Uint8Array} filtered rows, each led by its filter type
 * @param {number} stride bytes per row without the filter byte
 * @param {number} height
 * @param {number} bpp bytes per complete pixel, at least 1
 * @returns {Uint8Array} rows without filter bytes
 */
function unfilter(filtered, stride, height, bpp) {
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const type = filtered[y * (stride + 1)], src = y * (stride + 1) + 1, row = y * stride, prev = row - stride;
    const hasPrev = y > 0;
    switch (type) {
      case 0:
        raw.set(filtered.subarray(src, src + stride), row);
        break;
      case 1:
        for (let x = 0; x < stride; x++) raw[row + x] = filtered[src + x] + (x >= bpp ? raw[row + x - bpp] : 0);
        break;
      case 2:
        for (let x = 0; x < stride; x++) raw[row + x] = filtered[src + x] + (hasPrev ? raw[prev + x] : 0);
        break;
      case 3:
        for (let x = 0; x < stride; x++) {
          raw[row + x] = filtered[src + x] + (((x >= bpp ? raw[row + x - bpp] : 0) + (hasPrev ? raw[prev + x] : 0)) >> 1);
        }
        break;
      case 4:
        for (let x = 0; x < stride; x++) {
          const left = x >= bpp ? raw[row + x - bpp] : 0, up = hasPrev ? raw[prev + x] : 0;
          raw[row + x] = filtered[src + x] + paeth(left, up, x >= bpp && hasPrev ? raw[prev + x - bpp] : 0);
        }
        break;
      default:
        throw new Error(`Invalid PNG: filter type ${type} in row ${y}`);
    }
  }
  return raw;
}

/**
 * Unfiltered rows to one pixel word per pixel.
 * @param {Uint8Array} raw
 * @param {number} stride
 * @param {number} width
 * @param {number} height
 * @param {Header} header
 * @param {Uint32Array | undefined} lookup
 * @param {Buffer | undefined} transparency
 * @returns {Uint32Array}
 */
function expandRows(raw, stride, width, height, header, lookup, transparency) {
  const { colorType, bitDepth } = header;
  if (colorType === 6) return new Uint32Array(raw.buffer, raw.byteOffset, width * height); // already RGBA, rows unpadded
  const out = new Uint32Array(width * height);
  if (lookup) {
    const mask = (1 << bitDepth) - 1;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = x * bitDepth;
        const sample = (raw[y * stride + (bit >> 3)] >> (8 - bitDepth - (bit & 7))) & mask;
        if (sample >= lookup.length) throw new Error(`Invalid PNG: palette index ${sample} beyond ${lookup.length} entries`);
        out[y * width + x] = lookup[sample];
      }
    }
    return out;
  }
  const key = colorType === 2 && transparency && transparency.length >= 6
    ? [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)] : undefined;
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * stride; x < width; x++) {
      if (colorType === 4) {
        out[y * width + x] = wordOf(raw[i], raw[i], raw[i], raw[i + 1]);
        i += 2;
      } else {
        const clear = key !== undefined && raw[i] === key[0] && raw[i + 1] === key[1] && raw[i + 2] === key[2];
        out[y * width + x] = wordOf(raw[i], raw[i + 1], raw[i + 2], clear ? 0 : 255);
        i += 3;
      }
    }
  }
  return out;
}

/**
 * Renders the frames in order on a canvas that starts fully transparent black.
 * @param {Header} header
 * @param {FrameControl[]} controls
 * @param {Uint8Array[]} rasters RGBA of each frame's rectangle
 * @returns {DecodedFrame[]}
 */
function composite(header, controls, rasters) {
  const canvas = new Uint8Array(header.width * header.height * 4);
  return controls.map((control, i) => {
    const saved = control.dispose === DISPOSE_PREVIOUS && i > 0 ? copyRect(canvas, header.width, control) : undefined;
    drawRect(canvas, header.width, control, rasters[i], control.blend);
    const frame = { data: Buffer.from(canvas), delayNum: control.delayNum, delayDen: control.delayDen };
    if (saved) drawRect(canvas, header.width, control, saved, BLEND_SOURCE);
    else if (control.dispose === DISPOSE_BACKGROUND || control.dispose === DISPOSE_PREVIOUS) drawRect(canvas, header.width, control, new Uint8Array(control.width * control.height * 4), BLEND_SOURCE);
    return frame;
  });
}

/** @param {Uint8Array} canvas @param {number} canvasWidth @param {Rect} rect */
function copyRect(canvas, canvasWidth, rect) {
  const out = new Uint8Array(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const start = ((rect.y + y) * canvasWidth + rect.x) * 4;
    out.set(canvas.subarray(start, start + rect.width * 4), y * rect.width * 4);
  }
  return out;
}

/**
 * @param {Uint8Array} canvas
 * @param {number} canvasWidth
 * @param {Rect} rect
 * @param {Uint8Array} pixels RGBA of the rectangle
 * @param {number} blend
 */
function drawRect(canvas, canvasWidth, rect, pixels, blend) {
  for (let y = 0; y < rect.height; y++) {
    const start = ((rect.y + y) * canvasWidth + rect.x) * 4, row = y * rect.width * 4;
    if (blend === BLEND_SOURCE) {
      canvas.set(pixels.subarray(row, row + rect.width * 4), start);
      continue;
    }
    for (let x = 0; x < rect.width * 4; x += 4) blendOver(pixels, row + x, canvas, start + x);
  }
}

/**
 * The PNG specification's OVER with straight alpha, rounded to nearest;
 * a transparent source leaves the destination exactly as it was.
 * @param {Uint8Array} src @param {number} s @param {Uint8Array} dst @param {number} d
 */
function blendOver(src, s, dst, d) {
  const sa = src[s + 3];
  if (sa === 0) return;
  if (sa === 255) {
    dst.set(src.subarray(s, s + 4), d);
    return;
  }
  const da = dst[d + 3];
  const srcWeight = sa * 255, dstWeight = da * (255 - sa);
  const total = srcWeight + dstWeight; // output alpha × 255
  for (let c = 0; c < 3; c++) dst[d + c] = Math.round((src[s + c] * srcWeight + dst[d + c] * dstWeight) / total);
  dst[d + 3] = Math.round(total / 255);
}
