/**
 * The recompressPng job: a PNG re-encoded from its pixels (colour type, bit
 * depth, palette order, filters, deflate), with the chunks that change
 * rendering kept; the original stays when it is not larger.
 */
import sharp from 'sharp';
import zlib from 'node:zlib';
import { encodePng } from '../png/encode.js';
import { decodeApng } from '../apng-frames.js';
import { readChunks, chunk, PNG_SIGNATURE } from '../png-chunks.js';
import { deflatePng } from '../deflate.js';
import { lossyPng } from '../lossy.js';
import { imageErrorReason } from '../../util/image-error.js';
import { COLOR_TYPES, guarded, samePixels } from './results.js';

/**
 * @typedef {import('./results.js').ImageJobOptions} ImageJobOptions
 * @typedef {import('./results.js').ImageResult} ImageResult
 */

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
        original = await sharp(bytes, { limitInputPixels: false, ignoreIcc: true }).raw({ depth: 'ushort' }).toBuffer();
      } catch (error) {
        return { status: 'failed', reason: `corrupt PNG: ${imageErrorReason(error)}` };
      }
      const redone = await redeflate(chunks, carried, options.zopfliIterations);
      const again = await sharp(redone, { limitInputPixels: false, ignoreIcc: true }).raw({ depth: 'ushort' }).toBuffer().catch(() => null);
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
