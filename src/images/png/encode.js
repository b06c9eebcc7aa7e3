/**
 * Lossless PNG encoder that looks for the smallest exact file, as optipng and
 * zopflipng do: the formats that hold the pixels exactly (analyse.js), each
 * with the filters that win on such data, ranked and compressed (rank.js),
 * written with the ancillary chunks the caller carries.
 */
import { PNG_SIGNATURE, chunk, ihdr } from '../png-chunks.js';
import { analyse } from './analyse.js';
import { formatChunks, formatOverhead } from './formats.js';
import { candidatesOf, finish, rankRaster, zopfliIterationsOf } from './rank.js';

/**
 * @typedef {object} RgbaImage
 * @property {Uint8Array} data RGBA, 8 bits per channel, width*height*4 bytes
 * @property {number} width
 * @property {number} height
 */

/** Bytes of every PNG besides PLTE, tRNS and the image data: the signature, IHDR, and the framing of IDAT and IEND. */
export const PNG_FRAMING_BYTES = 8 + 25 + 12 + 12;
/**
 * The shortest zlib stream of image data: its header and Adler-32, and a
 * fixed-Huffman block of at least a filter byte and one sample (two 8-bit
 * literals, a 3-bit block header and a 7-bit end code: 4 bytes).
 */
export const MIN_IMAGE_DATA_BYTES = 2 + 4 + 4;
/** Chunks whose meaning depends on the colour type or the palette, which the encoder chooses. */
const UNCARRIABLE = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'bKGD', 'hIST', 'sBIT', 'acTL', 'fcTL', 'fdAT']);

/** @param {RgbaImage} image */
function checkImage({ data, width, height }) {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`Invalid image size ${width}x${height}`);
  }
  if (data.length !== width * height * 4) {
    throw new Error(`RGBA data has ${data.length} bytes, a ${width}x${height} image needs ${width * height * 4}`);
  }
}

/**
 * @typedef {object} EncodePngOptions
 * @property {number} [zopfliIterations] default 0 (libdeflate only); more adds zopfli, slower, sometimes a little smaller
 * @property {number[]} [paletteOrder] colours (RGBA as one 32-bit number, red highest) in a preferred palette order, e.g. the GIF's
 * @property {{ type: string, data: Uint8Array }[]} [chunks] ancillary chunks to carry (gAMA, cHRM, sRGB, iCCP), written before PLTE
 * @property {number} [smallerThan] the size to beat (the original file's): formats whose chunks alone reach it are not
 *   tried, except the one with the fewest, so that there is always a result
 */

/**
 * @typedef {object} EncodedPng
 * @property {Buffer} png
 * @property {number} colorType
 * @property {number} bitDepth
 * @property {string} format which candidate won, e.g. 'palette/frequency'
 * @property {string} filter
 * @property {'libdeflate' | 'zopfli'} deflate
 * @property {number} candidates how many compressions were measured
 */

/**
 * The smallest PNG found that decodes to exactly the given RGBA pixels.
 * @param {RgbaImage} image
 * @param {EncodePngOptions} [options]
 * @returns {Promise<EncodedPng>}
 */
export async function encodePng(image, options = {}) {
  checkImage(image);
  const { data, width, height } = image;
  const iterations = zopfliIterationsOf(options);
  const carried = (options.chunks ?? []).map(({ type, data: body }) => {
    if (UNCARRIABLE.has(type) || !/^[a-z]/.test(type)) throw new Error(`Cannot carry a ${type} chunk into a re-encoded PNG`);
    return chunk(type, body);
  });
  // An ICC profile describes RGB or grey data, not both: keep the colour model it was made for.
  const allowGrey = !(options.chunks ?? []).some(({ type }) => type === 'iCCP');
  const offered = analyse([data], { paletteOrder: options.paletteOrder, allowGrey, width, screen: true });
  // Signature, IHDR, IDAT and IEND framing, carried chunks and the shortest image data a format could have.
  const fixedBytes = PNG_FRAMING_BYTES + carried.reduce((total, part) => total + part.length, 0) + MIN_IMAGE_DATA_BYTES;
  const leastOverhead = Math.min(...offered.map(formatOverhead));
  const formats = offered.filter((format) => {
    const overhead = formatOverhead(format);
    return overhead === leastOverhead || fixedBytes + overhead < (options.smallerThan ?? Infinity);
  });

  const ranked = [];
  for (const format of formats) ranked.push({ format, ranking: await rankRaster(data, width, height, format) });
  const raster = await finish(data, width, height, candidatesOf(ranked), iterations);
  const { format } = raster;
  const png = Buffer.concat([
    PNG_SIGNATURE,
    ihdr({ width, height, bitDepth: format.bitDepth, colorType: format.colorType }),
    ...carried,
    ...formatChunks(format),
    chunk('IDAT', raster.data),
    chunk('IEND'),
  ]);
  return { png, colorType: format.colorType, bitDepth: format.bitDepth, format: format.name, filter: raster.filter, deflate: raster.deflate, candidates: raster.candidates };
}
