/**
 * The gifToPng job: a static GIF to a PNG (or, with lossy, a WebP), decoded
 * again and compared pixel for pixel before it is returned.
 */
import { decodeGif } from '../gif/decode.js';
import { readGifStructure } from '../gif/structure.js';
import { MIN_IMAGE_DATA_BYTES, PNG_FRAMING_BYTES, encodePng } from '../png/encode.js';
import { lossyWebp } from '../lossy.js';
import { COLOR_TYPES, guarded, rgbaOf, sameVisiblePixels, samePixels } from './results.js';
import { imageErrorReason } from '../../util/image-error.js';

/**
 * @typedef {import('./results.js').ImageJobOptions} ImageJobOptions
 * @typedef {import('./results.js').ImageResult} ImageResult
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
    const viaSharp = await rgbaOf(bytes, options.maxPixels).catch((/** @type {unknown} */ error) => imageErrorReason(error));
    if (typeof viaSharp === 'string') return { status: 'kept', reason: `decoders disagree: pagediet's reads it, sharp's cannot (${viaSharp})`, warnings: gif.warnings };
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
