/**
 * Reads a PNG or APNG (bit depth ≤ 8) back as the full-canvas RGBA frames a
 * browser shows, to prove what pagediet writes. The pixels are decoded by
 * fast-png (image-js), not by code written with pagediet's encoder, so that a
 * proof does not share the encoder's mistakes.
 *
 * Why the rest is hand-written here, not taken from fast-png 8.0.0:
 * - its decodeApng returns neither the frames as stored (no fcTL rectangle,
 *   dispose_op or blend_op) nor what a browser shows: a frame smaller than
 *   the canvas is drawn on an empty canvas instead of the previous one, a
 *   frame's own dispose_op is applied before it is drawn, OVER adds to the
 *   canvas, all on raw samples (palette indices, packed bits). So the chunks
 *   are walked here (acTL, fcTL, fdAT as the APNG specification orders them),
 *   each frame is rewrapped as a still PNG for fast-png's decode, and the
 *   frames are composited here by the specification: dispose NONE,
 *   BACKGROUND and PREVIOUS, blend SOURCE and OVER.
 * - its Adam7 reader takes rows of bit depths below 8 for a byte a pixel, so
 *   an interlaced image is split here into its seven passes, each a still PNG;
 * - it reads image data of the wrong length (rows past the end, bytes after
 *   the last row), so the inflated size is checked here first;
 * - it refuses a valid tRNS colour key on an image of fewer than 3 pixels, so
 *   grey and truecolour keys are applied here.
 */
import zlib from 'node:zlib';
import { convertIndexedToRgb, decode } from 'fast-png';
import { PNG_SIGNATURE, chunk, ihdr, readChunks } from './png-chunks.js';

const DISPOSE_BACKGROUND = 1, DISPOSE_PREVIOUS = 2; // NONE (0) leaves the canvas as it is
const BLEND_SOURCE = 0, BLEND_OVER = 1;
/** Bit depths each colour type allows, 16 left out: frames are 8 bits a channel. */
const DEPTHS = /** @type {Record<number, number[]>} */ ({ 0: [1, 2, 4, 8], 2: [8], 3: [1, 2, 4, 8], 4: [8], 6: [8] });
const CHANNELS = /** @type {Record<number, number>} */ ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 });
/** Adam7: origin and spacing of each pass. */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/**
 * @typedef {{ width: number, height: number, bitDepth: number, colorType: number, interlace: number }} Header
 * @typedef {{ palette?: Buffer, transparency?: Buffer }} Colours PLTE and tRNS data
 * @typedef {{ x: number, y: number, width: number, height: number, delayNum: number, delayDen: number, dispose: number, blend: number }} FrameControl
 *   delayDen 0 is read as 100, as the specification says
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

/**
 * @typedef {object} AnimationReader
 * @property {number} width
 * @property {number} height
 * @property {number} loop plays; 0 = forever (also for a still PNG)
 * @property {number} count how many frames the file holds
 * @property {() => Generator<DecodedFrame>} frames the composited frames in order, decoded one at a
 *   time; each frame's data is the reader's own canvas, valid until the next frame is asked for
 */

/**
 * Decodes a PNG or APNG (bit depth ≤ 8, any colour type, interlaced or not)
 * into the composited RGBA frames. Throws on a file that breaks the PNG or
 * APNG rules this relies on.
 * @param {Uint8Array} buffer
 * @returns {DecodedAnimation}
 */
export function decodeApng(buffer) {
  const { width, height, loop, frames } = readApng(buffer);
  return { width, height, loop, frames: Array.from(frames(), (frame) => ({ ...frame, data: Buffer.from(frame.data) })) };
}

/**
 * Reads a PNG or APNG as decodeApng does, but holds one canvas, not every
 * frame: a proof compares frame i and lets it go before frame i + 1 is
 * decoded, so a long animation is never held twice. The structure (chunk
 * order, frame count, rectangles) is checked here; a frame's image data when
 * that frame is reached.
 * @param {Uint8Array} buffer
 * @returns {AnimationReader}
 */
export function readApng(buffer) {
  const [first, ...rest] = readChunks(buffer);
  if (first.type !== 'IHDR') throw new Error('Invalid PNG: IHDR is not the first chunk');
  const header = readHeader(first.data);
  const { colours, animation, idat, frames } = readStructure(rest, header);
  const { width, height } = header;
  if (!animation) {
    return { width, height, loop: 0, count: 1, frames: function* still() {
      const pixels = decodeImage(idat, header, width, height, colours);
      yield { data: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.length), delayNum: 0, delayDen: 100 };
    } };
  }
  if (frames.length !== animation.frames) throw new Error(`Invalid APNG: acTL says ${animation.frames} frames, found ${frames.length}`);
  return { width, height, loop: animation.plays, count: frames.length, frames: function* composited() {
    const canvas = Buffer.alloc(width * height * 4);
    for (const [i, { control, data }] of frames.entries()) {
      if (data.length === 0) throw new Error(`Invalid APNG: frame ${i} has no image data`);
      const pixels = decodeImage(data, header, control.width, control.height, colours);
      // dispose PREVIOUS on the first frame means BACKGROUND.
      const dispose = i === 0 && control.dispose === DISPOSE_PREVIOUS ? DISPOSE_BACKGROUND : control.dispose;
      const under = dispose === DISPOSE_PREVIOUS ? copyRect(canvas, width, control) : undefined;
      drawRect(canvas, width, control, pixels, control.blend);
      yield { data: canvas, delayNum: control.delayNum, delayDen: control.delayDen };
      if (dispose === DISPOSE_BACKGROUND) drawRect(canvas, width, control, new Uint8Array(control.width * control.height * 4), BLEND_SOURCE);
      else if (under) drawRect(canvas, width, control, under, BLEND_SOURCE);
    }
  } };
}

/** @param {Buffer} data @returns {Header} */
function readHeader(data) {
  if (data.length !== 13) throw new Error('Invalid PNG: IHDR is not 13 bytes');
  const header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8], colorType: data[9], interlace: data[12] };
  const { width, height, bitDepth, colorType } = header;
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) throw new Error(`Invalid PNG size ${width}x${height}`);
  if (bitDepth === 16 && DEPTHS[colorType]) throw new Error('PNG bit depth 16 is not supported');
  if (!DEPTHS[colorType]?.includes(bitDepth)) throw new Error(`Invalid PNG: bit depth ${bitDepth} with colour type ${colorType}`);
  if (data[10] !== 0 || data[11] !== 0 || header.interlace > 1) throw new Error('Invalid PNG: unknown compression, filter or interlace method');
  return header;
}

/**
 * The chunks after IHDR, in the order PNG and APNG require: PLTE before the
 * image data, IDAT chunks together, acTL before them, fcTL and fdAT numbered
 * 0, 1, 2... An fcTL before the IDAT chunks makes them the first frame.
 * @param {import('./png-chunks.js').PngChunk[]} chunks
 * @param {Header} header
 */
function readStructure(chunks, header) {
  /** @type {Colours} */
  const colours = {};
  /** @type {{ frames: number, plays: number } | undefined} */
  let animation;
  /** @type {Buffer[]} */
  const idat = [];
  /** @type {{ control: FrameControl, data: Buffer[] }[]} */
  const frames = [];
  let sequence = 0, place = 'before'; // before, among or after the IDAT chunks
  for (const { type, data } of chunks) {
    if (place === 'among' && type !== 'IDAT') place = 'after';
    if (type === 'IEND') break;
    if (type === 'IHDR') throw new Error('Invalid PNG: a second IHDR');
    if (type === 'PLTE') {
      const entries = data.length / 3;
      if (place !== 'before') throw new Error('Invalid PNG: PLTE after IDAT');
      if (!Number.isInteger(entries) || entries < 1 || entries > 256 || (header.colorType === 3 && entries > 1 << header.bitDepth)) {
        throw new Error(`Invalid PNG: PLTE of ${data.length} bytes`);
      }
      colours.palette = data;
    } else if (type === 'tRNS') colours.transparency = data;
    else if (type === 'IDAT') {
      if (place === 'after') throw new Error('Invalid PNG: IDAT chunks are not consecutive');
      place = 'among';
      idat.push(data);
    } else if (type === 'acTL') {
      if (place !== 'before') throw new Error('Invalid APNG: acTL after IDAT');
      if (data.length !== 8 || data.readUInt32BE(0) === 0) throw new Error('Invalid APNG: bad acTL');
      animation = { frames: data.readUInt32BE(0), plays: data.readUInt32BE(4) };
    } else if ((type === 'fcTL' || type === 'fdAT') && animation) {
      if (data.length < 4 || data.readUInt32BE(0) !== sequence) throw new Error(`Invalid APNG: ${type} out of sequence where ${sequence} was due`);
      sequence++;
      if (type === 'fcTL') {
        const covers = frames.length === 0 && place === 'before';
        frames.push({ control: readFrameControl(data, header, covers), data: covers ? idat : [] });
      } else {
        const frame = frames.at(-1);
        if (!frame || frame.data === idat) throw new Error('Invalid APNG: fdAT without its own fcTL');
        frame.data.push(data.subarray(4));
      }
    } else if (/^[A-Z]/.test(type)) throw new Error(`Unsupported critical PNG chunk ${type}`);
  }
  if (idat.length === 0) throw new Error('Invalid PNG: no IDAT');
  if (header.colorType === 3 && !colours.palette) throw new Error('Invalid PNG: palette image without PLTE');
  return { colours, animation, idat, frames };
}

/**
 * @param {Buffer} data
 * @param {Header} header
 * @param {boolean} covers whether the frame is the IDAT image, which must cover the canvas
 * @returns {FrameControl}
 */
function readFrameControl(data, header, covers) {
  if (data.length !== 26) throw new Error('Invalid APNG: fcTL is not 26 bytes');
  const control = {
    width: data.readUInt32BE(4), height: data.readUInt32BE(8), x: data.readUInt32BE(12), y: data.readUInt32BE(16),
    delayNum: data.readUInt16BE(20), delayDen: data.readUInt16BE(22) || 100, dispose: data[24], blend: data[25],
  };
  const { width, height, x, y } = control;
  if (width === 0 || height === 0 || x + width > header.width || y + height > header.height) {
    throw new Error(`Invalid APNG: frame ${width}x${height} at ${x},${y} outside the ${header.width}x${header.height} canvas`);
  }
  if (covers && (width !== header.width || height !== header.height)) throw new Error('Invalid APNG: the IDAT frame does not cover the canvas');
  if (control.dispose > DISPOSE_PREVIOUS || control.blend > BLEND_OVER) throw new Error('Invalid APNG: unknown dispose_op or blend_op');
  return control;
}

/**
 * One image (the IDAT image or a frame's rectangle) to RGBA: inflated and
 * checked for size here, each Adam7 pass (or the whole image) decoded by
 * fast-png as a still PNG of its own.
 * @param {Buffer[]} parts the image data, IDAT or fdAT payloads
 * @param {Header} header
 * @param {number} width
 * @param {number} height
 * @param {Colours} colours
 * @returns {Uint8Array}
 */
function decodeImage(parts, header, width, height, colours) {
  let inflated;
  try {
    inflated = zlib.inflateSync(Buffer.concat(parts));
  } catch (error) {
    throw new Error(`Corrupt PNG image data: ${/** @type {Error} */ (error).message}`);
  }
  const passes = header.interlace
    ? ADAM7.map(([x, y, dx, dy]) => ({ x, y, dx, dy, width: Math.ceil((width - x) / dx), height: Math.ceil((height - y) / dy) }))
    : [{ x: 0, y: 0, dx: 1, dy: 1, width, height }];
  const out = new Uint8Array(width * height * 4);
  let offset = 0;
  for (const pass of passes) {
    if (pass.width <= 0 || pass.height <= 0) continue;
    const end = offset + (Math.ceil((pass.width * CHANNELS[header.colorType] * header.bitDepth) / 8) + 1) * pass.height;
    if (end > inflated.length) throw new Error(`Truncated PNG image data: ${inflated.length} bytes, ${end} needed`);
    const pixels = rgbaOf(inflated.subarray(offset, end), header, pass.width, pass.height, colours);
    offset = end;
    if (!header.interlace) {
      out.set(pixels);
      continue;
    }
    for (let y = 0, i = 0; y < pass.height; y++) {
      for (let x = 0; x < pass.width; x++, i += 4) out.set(pixels.subarray(i, i + 4), ((pass.y + y * pass.dy) * width + pass.x + x * pass.dx) * 4);
    }
  }
  if (offset !== inflated.length) throw new Error(`Invalid PNG image data: ${inflated.length - offset} bytes too many`);
  return out;
}

/**
 * Filtered scanlines of a non-interlaced image, decoded by fast-png, to RGBA.
 * @param {Uint8Array} scanlines
 * @param {Header} header
 * @param {number} width
 * @param {number} height
 * @param {Colours} colours
 * @returns {Uint8Array}
 */
function rgbaOf(scanlines, header, width, height, colours) {
  const { bitDepth, colorType } = header;
  const { palette, transparency } = colours;
  const png = decode(Buffer.concat([
    PNG_SIGNATURE,
    ihdr({ width, height, bitDepth, colorType }),
    ...(colorType === 3 ? [chunk('PLTE', /** @type {Buffer} */ (palette))] : []),
    ...(colorType === 3 && transparency ? [chunk('tRNS', transparency)] : []),
    chunk('IDAT', zlib.deflateSync(scanlines, { level: 0 })),
    chunk('IEND'),
  ]));
  if (colorType === 3 || colorType === 0) {
    // One sample a pixel, packed below 8 bits: fast-png unpacks it through a palette, of RGBA entries here.
    const key = colorType === 0 && transparency && transparency.length >= 2 ? transparency.readUInt16BE(0) : -1;
    const levels = 1 << bitDepth;
    const entries = colorType === 3
      ? (png.palette ?? []).map(([r, g, b, a = 255]) => [r, g, b, a])
      : Array.from({ length: levels }, (_, v) => [0, 0, 0].fill((v * 255) / (levels - 1)).concat(v === key ? 0 : 255));
    return convertIndexedToRgb({ ...png, palette: entries });
  }
  const { data } = png;
  if (colorType === 6) return Uint8Array.from(data);
  const out = new Uint8Array(width * height * 4);
  const key = colorType === 2 && transparency && transparency.length >= 6 ? [0, 2, 4].map((at) => transparency.readUInt16BE(at)) : undefined;
  for (let p = 0, i = 0; p < width * height; p++, i += CHANNELS[colorType]) {
    if (colorType === 4) out.set([data[i], data[i], data[i], data[i + 1]], p * 4);
    else out.set([data[i], data[i + 1], data[i + 2], key && data[i] === key[0] && data[i + 1] === key[1] && data[i + 2] === key[2] ? 0 : 255], p * 4);
  }
  return out;
}

/** @param {Uint8Array} canvas @param {number} canvasWidth @param {FrameControl} rect */
function copyRect(canvas, canvasWidth, rect) {
  const out = new Uint8Array(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const start = ((rect.y + y) * canvasWidth + rect.x) * 4;
    out.set(canvas.subarray(start, start + rect.width * 4), y * rect.width * 4);
  }
  return out;
}

/**
 * Draws a rectangle of RGBA on the canvas: SOURCE replaces, OVER composites.
 * @param {Uint8Array} canvas
 * @param {number} canvasWidth
 * @param {FrameControl} rect
 * @param {Uint8Array} pixels
 * @param {number} blend
 */
function drawRect(canvas, canvasWidth, rect, pixels, blend) {
  const rowBytes = rect.width * 4;
  for (let y = 0; y < rect.height; y++) {
    const start = ((rect.y + y) * canvasWidth + rect.x) * 4, row = pixels.subarray(y * rowBytes, (y + 1) * rowBytes);
    if (blend === BLEND_SOURCE) canvas.set(row, start);
    else for (let x = 0; x < rowBytes; x += 4) over(row, x, canvas, start + x);
  }
}

/**
 * PNG's OVER with straight alpha, rounded to nearest: a clear source leaves
 * the canvas as it is, an opaque one replaces it.
 * @param {Uint8Array} src @param {number} s @param {Uint8Array} dst @param {number} d
 */
function over(src, s, dst, d) {
  const alpha = src[s + 3];
  if (alpha === 0) return;
  if (alpha === 255) {
    dst.set(src.subarray(s, s + 4), d);
    return;
  }
  const srcWeight = alpha * 255, dstWeight = dst[d + 3] * (255 - alpha), total = srcWeight + dstWeight; // total: output alpha × 255
  for (let c = 0; c < 3; c++) dst[d + c] = Math.round((src[s + c] * srcWeight + dst[d + c] * dstWeight) / total);
  dst[d + 3] = Math.round(total / 255);
}
