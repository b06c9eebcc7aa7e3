/**
 * The image jobs the passes hand to the worker pool. Each takes the file's
 * bytes and options, and returns what to write, or why the file stays as it
 * is. Nothing is written unless it was decoded again and found to give the
 * same pixels (and, for animations, the same frames, delays and loop count).
 */
import sharp from 'sharp';
import { decodeGif, readGifStructure } from './gif.js';
import { MIN_IMAGE_DATA_BYTES, PNG_FRAMING_BYTES, encodePng } from './png-encode.js';
import { decodeApng, encodeApng } from './apng.js';
import { readChunks, chunk, PNG_SIGNATURE } from './png-chunks.js';
import { deflatePng } from './deflate.js';
import { lossyPng, lossyWebp } from './lossy.js';
import zlib from 'node:zlib';
import { imageErrorReason } from '../util/image-error.js';

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

/**
 * A static GIF to PNG.
 * @param {{ bytes: Uint8Array, options: ImageJobOptions & { lossy?: boolean, quality?: [number, number] } }} input
 * @returns {Promise<ImageResult>}
 */
export async function gifToPng({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return guarded(async () => {
    const gif = decodeGif(bytes, { maxPixels: options.maxPixels });
    if (gif.frames.length !== 1) return { status: 'kept', reason: `animated (${gif.frames.length} frames): the animations pass handles it`, warnings: [] };
    const smallestPng = PNG_FRAMING_BYTES + MIN_IMAGE_DATA_BYTES;
    if (bytes.length <= smallestPng) return { status: 'kept', reason: `PNG not smaller (${smallestPng} B, the least any PNG takes, against ${bytes.length} B)`, warnings: gif.warnings };
    const structure = readGifStructure(bytes);
    const frame = gif.frames[0].data;
    // What browsers show is what decodeGif composites; sharp's own decoder must agree, or the GIF is odd enough to leave alone.
    const viaSharp = await rgbaOf(bytes, options.maxPixels);
    if (!sameVisiblePixels(viaSharp, frame)) return { status: 'kept', reason: 'decoders disagree on its pixels', warnings: gif.warnings };
    const palette = structure.frames[0].localPalette ?? structure.globalPalette ?? [];
    const encoded = await encodePng(
      { data: frame, width: gif.width, height: gif.height },
      { zopfliIterations: options.zopfliIterations, paletteOrder: palette.map((rgb) => ((rgb << 8) | 0xff) >>> 0), smallerThan: bytes.length },
    );
    const detail = `${COLOR_TYPES[encoded.colorType]}, ${encoded.bitDepth} bit${encoded.bitDepth > 1 ? 's' : ''}, ${encoded.deflate}`;
    /** @type {ImageResult} */
    let lossless;
    if (encoded.png.length >= bytes.length) {
      lossless = { status: 'kept', reason: `PNG not smaller (${encoded.png.length} B, ${detail}, against ${bytes.length} B)`, warnings: gif.warnings, candidates: { png: encoded.png.length } };
    } else {
      // Only a PNG that would be written needs the proof: decoded again, by sharp and by pagediet's own decoder.
      const check = await samePixels(encoded.png, frame, gif.width, gif.height);
      lossless = check
        ? { status: 'kept', reason: `PNG failed its pixel check (${check})`, warnings: gif.warnings }
        : { status: 'converted', bytes: encoded.png, format: 'png', detail, warnings: gif.warnings, candidates: { png: encoded.png.length } };
    }
    if (!options.lossy || !options.quality) return lossless;
    // Asked for lossy: a WebP that reaches the quality floor wins when it is smaller than the lossless result.
    const smallest = lossless.status === 'converted' ? lossless.bytes.length : bytes.length;
    const { webp, quality } = await lossyWebp(frame, gif.width, gif.height, options.quality);
    if (!webp || webp.length >= smallest) return lossless;
    return { status: 'converted', bytes: webp, format: 'webp', detail: `lossy WebP, quality ${quality} (floor ${options.quality[0]}; lossless ${smallest} B)`, warnings: gif.warnings, candidates: { png: encoded.png.length, webp: webp.length } };
  });
}

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
 * An existing PNG, losslessly smaller: re-encoded from its pixels when its
 * bit depth allows, its image data deflated again otherwise. Chunks that
 * change how it renders (gAMA, cHRM, sRGB, iCCP) are kept; the rest go.
 * @param {{ bytes: Uint8Array, options: ImageJobOptions & { lossy: boolean, quality: [number, number] } }} input
 * @returns {Promise<ImageResult>}
 */
export async function recompressPng({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return guarded(async () => {
    const chunks = readChunks(bytes);
    const header = chunks[0];
    if (!header || header.type !== 'IHDR') return { status: 'failed', reason: 'corrupt PNG: no IHDR first' };
    const width = header.data.readUInt32BE(0);
    const height = header.data.readUInt32BE(4);
    const bitDepth = header.data[8];
    if (width * height > options.maxPixels) return { status: 'failed', reason: `${width}×${height} is over the pixel limit (${options.maxPixels})` };
    if (chunks.some((c) => c.type === 'acTL')) return { status: 'kept', reason: 'APNG: left as it is', warnings: [] };
    const carried = chunks.filter((c) => RENDERING_CHUNKS.has(c.type)).map((c) => ({ type: c.type, data: c.data }));
    /** @type {{ bytes: Buffer, detail: string }} */
    let best;
    if (bitDepth === 16) {
      // Filters and samples are carried over without decoding them, so both files are decoded (16 bits a
      // sample) and compared: a PNG that cannot be read is left as it is, never turned into another unreadable one.
      let original;
      try {
        original = await sharp(bytes, { limitInputPixels: false }).raw({ depth: 'ushort' }).toBuffer();
      } catch (error) {
        return { status: 'failed', reason: `corrupt PNG: ${imageErrorReason(error)}` };
      }
      const redone = await redeflate(chunks, carried, options.zopfliIterations);
      const again = await sharp(redone, { limitInputPixels: false }).raw({ depth: 'ushort' }).toBuffer().catch(() => null);
      if (!again?.equals(original)) return { status: 'kept', reason: 're-deflated PNG failed its pixel check', warnings: [] };
      best = { bytes: redone, detail: '16 bits, image data deflated again' };
    } else {
      const decoded = decodeApng(bytes);
      const frame = decoded.frames[0].data;
      const encoded = await encodePng(
        { data: frame, width, height },
        { zopfliIterations: options.zopfliIterations, chunks: carried, paletteOrder: paletteOf(chunks), smallerThan: bytes.length },
      );
      const check = await samePixels(encoded.png, frame, width, height);
      if (check) return { status: 'kept', reason: `re-encoded PNG failed its pixel check (${check})`, warnings: [] };
      best = { bytes: encoded.png, detail: `${COLOR_TYPES[encoded.colorType]}, ${encoded.bitDepth} bit${encoded.bitDepth > 1 ? 's' : ''}, ${encoded.deflate}` };
      if (options.lossy && encoded.colorType !== 3 && encoded.colorType !== 0) {
        const lossy = await lossyPng(frame, width, height, options.quality);
        if (lossy.png && lossy.png.length < best.bytes.length) best = { bytes: lossy.png, detail: `lossy palette, quality ${lossy.quality}` };
      }
    }
    if (best.bytes.length >= bytes.length) return { status: 'kept', reason: `not smaller (${best.bytes.length} B against ${bytes.length} B)`, warnings: [] };
    return { status: 'converted', bytes: best.bytes, format: 'png', detail: best.detail, warnings: [] };
  });
}

/**
 * A palette PNG's own palette order (0xRRGGBBAA entries, alpha from tRNS), a
 * candidate for the re-encoding as the GIF's is for gif-to-png: the same file
 * encoded again then finds the order it was written in.
 * @param {{ type: string, data: Buffer }[]} chunks
 * @returns {number[] | undefined}
 */
function paletteOf(chunks) {
  if (chunks[0].data[9] !== 3) return undefined;
  const plte = chunks.find((c) => c.type === 'PLTE')?.data;
  const alphas = chunks.find((c) => c.type === 'tRNS')?.data ?? Buffer.alloc(0);
  if (!plte) return undefined;
  return Array.from({ length: Math.floor(plte.length / 3) }, (_, i) => (
    ((plte[i * 3] << 24) | (plte[i * 3 + 1] << 16) | (plte[i * 3 + 2] << 8) | (i < alphas.length ? alphas[i] : 255)) >>> 0
  ));
}

/** Chunks that change the pixels a browser shows. */
const RENDERING_CHUNKS = new Set(['gAMA', 'cHRM', 'sRGB', 'iCCP']);

const COLOR_TYPES = /** @type {Record<number, string>} */ ({ 0: 'grey', 2: 'truecolour', 3: 'palette', 4: 'grey + alpha', 6: 'truecolour + alpha' });

/**
 * A 16-bit PNG's image data, inflated and deflated again; filters kept.
 * @param {{ type: string, data: Buffer }[]} chunks
 * @param {{ type: string, data: Buffer }[]} carried
 * @param {number} iterations
 */
async function redeflate(chunks, carried, iterations) {
  const raw = zlib.inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const idat = await deflatePng(raw, iterations);
  const keep = chunks.filter((c) => c.type === 'IHDR' || c.type === 'PLTE' || c.type === 'tRNS');
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', keep[0].data),
    ...carried.map((c) => chunk(c.type, c.data)),
    ...keep.slice(1).map((c) => chunk(c.type, c.data)),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Runs a job; a file it cannot read becomes a one-line failure, never a crash.
 * @param {() => Promise<ImageResult>} work
 * @returns {Promise<ImageResult>}
 */
async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    return { status: 'failed', reason: imageErrorReason(error) };
  }
}

/**
 * RGBA as sharp decodes an image (the first frame).
 * @param {Buffer} bytes
 * @param {number} maxPixels
 */
async function rgbaOf(bytes, maxPixels) {
  return sharp(bytes, { limitInputPixels: maxPixels }).ensureAlpha().raw().toBuffer();
}

/**
 * Whether two RGBA buffers show the same: equal alpha everywhere, equal
 * colour where alpha is not 0 (a fully transparent pixel has no colour).
 * @param {Buffer} a
 * @param {Buffer} b
 */
function sameVisiblePixels(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i + 3] !== b[i + 3]) return false;
    if (a[i + 3] !== 0 && (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2])) return false;
  }
  return true;
}

/**
 * Decodes a PNG twice (sharp, and pagediet's own decoder) and compares both
 * with the expected RGBA, byte for byte.
 * @param {Buffer} png
 * @param {Buffer} expected
 * @param {number} width
 * @param {number} height
 * @returns {Promise<string | null>} what differs, or null
 */
async function samePixels(png, expected, width, height) {
  const { data, info } = await sharp(png, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) return `sharp reads ${info.width}×${info.height}`;
  if (!data.equals(expected)) return 'sharp reads other pixels';
  const own = decodeApng(png).frames[0].data;
  if (!own.equals(expected)) return 'pixels differ';
  return null;
}

/**
 * @param {Buffer} apng
 * @param {ReturnType<typeof decodeGif>} gif
 * @param {number} plays
 * @returns {string | null}
 */
function checkApng(apng, gif, plays) {
  const decoded = decodeApng(apng);
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
