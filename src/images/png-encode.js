/**
 * Lossless PNG encoder that looks for the smallest exact file, as optipng and
 * zopflipng do: every colour type that holds the pixels exactly (palette in
 * several orders, grey, truecolour, with tRNS where one colour is transparent),
 * every filter strategy, ranked by a fast deflate; the two leaders are
 * compressed with libdeflate's strongest level, and, when asked, zopfli
 * recompresses the best one or two.
 *
 * Pixels are handled as "pixel words": the four RGBA bytes read as one
 * platform-endian Uint32, so that comparing and hashing a pixel is one operation.
 */
import { BEST_LEVEL, libdeflate, zopfliDeflate } from './deflate.js';
import { PNG_SIGNATURE, chunk, ihdr } from './png-chunks.js';

/**
 * @typedef {object} RgbaImage
 * @property {Uint8Array} data RGBA, 8 bits per channel, width*height*4 bytes
 * @property {number} width
 * @property {number} height
 */

/**
 * An exact way to store some RGBA pixels in a PNG.
 * @typedef {object} PngFormat
 * @property {string} name e.g. 'palette/frequency', 'grey', 'rgba'
 * @property {0 | 2 | 3 | 4 | 6} colorType
 * @property {1 | 2 | 4 | 8} bitDepth
 * @property {Uint32Array} [palette] colour type 3: the entries as pixel words, in index order
 * @property {number} [transparentKey] colour types 0 and 2: the pixel word that tRNS makes transparent
 */

/**
 * @typedef {'none' | 'sub' | 'up' | 'average' | 'paeth' | 'minsum' | 'entropy'} FilterName
 * 'minsum' and 'entropy' choose a filter per row (adaptive); the others use one for all rows.
 */

/**
 * One screening compression of one filtering of a raster.
 * @typedef {object} Trial
 * @property {FilterName} filter
 * @property {number} size bytes of the zlib stream at the screening level (of a sample of the rows of a large raster)
 */

/**
 * A raster's trials, smallest first.
 * @typedef {object} Ranking
 * @property {Trial[]} trials
 */

/**
 * @typedef {object} EncodedRaster
 * @property {Buffer} data zlib stream of the filtered scanlines (the content of IDAT or fdAT)
 * @property {string} filter
 * @property {'libdeflate' | 'zopfli'} deflate
 * @property {number} candidates how many compressions were measured
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Bit offsets of R, G, B and A inside a pixel word. */
const [R_SHIFT, G_SHIFT, B_SHIFT, A_SHIFT] = LITTLE_ENDIAN ? [0, 8, 16, 24] : [24, 16, 8, 0];
const ALPHA_MASK = (0xff << A_SHIFT) >>> 0;

/** zopfli is off by default: libdeflate comes within a percent of it at a few percent of its time. */
export const DEFAULT_ZOPFLI_ITERATIONS = 0;
/** Below this many pixels, direct colour is tried even when a palette fits: PLTE costs more than the pixels save. */
const SMALL_IMAGE_PIXELS = 16384;
const UNFILTERED = /** @type {const} */ (['none', 'sub', 'up', 'average', 'paeth']);
/** libdeflate level that ranks the candidates: level 12's ranking at a fraction of its time. */
const SCREEN_LEVEL = 3;
/** A larger filtered raster is ranked on bands of its rows: the ranking holds, the time does not grow with the image. */
const SCREEN_SAMPLE_BYTES = 64 * 1024;
const SCREEN_BAND_ROWS = 16;
/** Up to this size the strongest level ranks too: it costs little, and a fast level's block choices are noise on tiny data. */
const SMALL_SAMPLE_BYTES = 4096;
const FINALISTS = 2;
/** Chunks whose meaning depends on the colour type or the palette, which the encoder chooses. */
const UNCARRIABLE = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'bKGD', 'hIST', 'sBIT', 'acTL', 'fcTL', 'fdAT']);

/**
 * @param {number} r @param {number} g @param {number} b @param {number} a
 * @returns {number} the pixel word of that colour
 */
export function wordOf(r, g, b, a) {
  return ((r << R_SHIFT) | (g << G_SHIFT) | (b << B_SHIFT) | (a << A_SHIFT)) >>> 0;
}

/** @param {number} word @returns {[number, number, number, number]} r, g, b, a */
export function channelsOf(word) {
  return [(word >>> R_SHIFT) & 0xff, (word >>> G_SHIFT) & 0xff, (word >>> B_SHIFT) & 0xff, (word >>> A_SHIFT) & 0xff];
}

/** @param {number} word */
export function alphaOf(word) {
  return (word >>> A_SHIFT) & 0xff;
}

/** @param {number} rgba 0xRRGGBBAA */
function wordOfHex(rgba) {
  return wordOf((rgba >>> 24) & 0xff, (rgba >>> 16) & 0xff, (rgba >>> 8) & 0xff, rgba & 0xff);
}

/**
 * @param {Uint8Array} rgba
 * @returns {Uint32Array} one word per pixel; a view when the bytes are aligned, else a copy
 */
export function pixelWords(rgba) {
  if (rgba.length % 4 !== 0) throw new Error(`RGBA data length ${rgba.length} is not a multiple of 4`);
  if (rgba.byteOffset % 4 === 0) return new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length >> 2);
  return new Uint32Array(Uint8Array.from(rgba).buffer);
}

/** @param {RgbaImage} image */
function checkImage({ data, width, height }) {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`Invalid image size ${width}x${height}`);
  }
  if (data.length !== width * height * 4) {
    throw new Error(`RGBA data has ${data.length} bytes, a ${width}x${height} image needs ${width * height * 4}`);
  }
}

// ---------------------------------------------------------------- analysis

/**
 * What one pass over the pixels tells about the formats that can hold them.
 * @typedef {object} ColourStats
 * @property {Map<number, number>} counts pixel word to pixel count, in order of first appearance; partial when overflow
 * @property {boolean} overflow more than 256 distinct colours
 * @property {boolean} allGrey r = g = b everywhere
 * @property {boolean} allOpaque
 * @property {number | undefined} transparentKey the one colour (alpha 0) that all non-opaque pixels have, if so
 * @property {Uint8Array} greysSeen greysSeen[v] = 1 when grey value v occurs (meaningful when allGrey)
 * @property {number} pixels
 */

/** @param {Uint32Array[]} images @returns {ColourStats} */
function scanColours(images) {
  /** @type {Map<number, number>} */
  const counts = new Map();
  const greysSeen = new Uint8Array(256);
  let overflow = false, allGrey = true, allOpaque = true, binaryAlpha = true, keyUnique = true;
  /** @type {number | undefined} */
  let key;
  let pixels = 0;
  for (const words of images) {
    const n = words.length;
    pixels += n;
    // Runs of one colour are common in GIF-like images: each run is examined once.
    for (let i = 0; i < n;) {
      const word = words[i];
      let j = i + 1;
      while (j < n && words[j] === word) j++;
      const run = j - i;
      i = j;
      const count = counts.get(word);
      if (count !== undefined) counts.set(word, count + run);
      else if (counts.size < 256) counts.set(word, run);
      else overflow = true;
      if (allGrey) {
        const r = (word >>> R_SHIFT) & 0xff;
        if (r === ((word >>> G_SHIFT) & 0xff) && r === ((word >>> B_SHIFT) & 0xff)) greysSeen[r] = 1;
        else allGrey = false;
      }
      const alpha = alphaOf(word);
      if (alpha !== 255) {
        allOpaque = false;
        if (alpha !== 0) binaryAlpha = false;
        else if (key === undefined) key = word;
        else if (word !== key) keyUnique = false;
      }
    }
  }
  const keyUsable = key !== undefined && binaryAlpha && keyUnique && !occursOpaque(key, images, overflow ? undefined : counts);
  return { counts, overflow, allGrey, allOpaque, transparentKey: keyUsable ? key : undefined, greysSeen, pixels };
}

/**
 * Whether the colour of a transparent key also occurs opaque, which would make tRNS wrong for those pixels.
 * @param {number} key
 * @param {Uint32Array[]} images
 * @param {Map<number, number>} [counts] every colour, when known
 */
function occursOpaque(key, images, counts) {
  const opaque = (key | ALPHA_MASK) >>> 0;
  if (counts) return counts.has(opaque);
  return images.some((words) => words.includes(opaque));
}

/**
 * Smallest grey bit depth that holds every grey value exactly (a sample of
 * depth d stands for a multiple of 255 / (2^d - 1)).
 * @param {Uint8Array} greysSeen
 * @returns {1 | 2 | 4 | 8}
 */
function greyDepth(greysSeen) {
  for (const depth of /** @type {const} */ ([1, 2, 4])) {
    const step = 255 / ((1 << depth) - 1);
    if (greysSeen.every((seen, value) => !seen || value % step === 0)) return depth;
  }
  return 8;
}

/** @param {number} colours palette entries @returns {1 | 2 | 4 | 8} the smallest bit depth that indexes them */
export function paletteDepth(colours) {
  return colours <= 2 ? 1 : colours <= 4 ? 2 : colours <= 16 ? 4 : 8;
}

/**
 * Palette orders worth measuring. Non-opaque entries come first so that tRNS stays short.
 * @param {Map<number, number>} counts
 * @param {number[] | undefined} hint 0xRRGGBBAA colours in a preferred order
 * @returns {[string, number[]][]} order name and its pixel words
 */
function paletteOrders(counts, hint) {
  const appearance = [...counts.keys()];
  /** @param {number} word */
  const isOpaque = (word) => alphaOf(word) === 255;
  /** @param {number} a @param {number} b */
  const opaqueLast = (a, b) => Number(isOpaque(a)) - Number(isOpaque(b));
  /** @param {number} word */
  const count = (word) => /** @type {number} */ (counts.get(word));
  /** @type {[string, number[]][]} */
  const orders = [];
  if (hint) {
    const hinted = [...new Set(hint.map((rgba) => wordOfHex(rgba >>> 0)))].filter((word) => counts.has(word));
    const hintedSet = new Set(hinted);
    // Colours the hint lacks (a GIF's transparent colour, say) go first if not opaque, to keep tRNS short.
    const missing = appearance.filter((word) => !hintedSet.has(word));
    orders.push(['hint', [...missing.filter((word) => !isOpaque(word)), ...hinted, ...missing.filter(isOpaque)]]);
  }
  orders.push(['appearance', [...appearance].sort(opaqueLast)]);
  orders.push(['frequency', [...appearance].sort((a, b) => opaqueLast(a, b) || count(b) - count(a))]);
  orders.push(['luma', [...appearance].sort((a, b) => opaqueLast(a, b) || luma(a) - luma(b))]);
  return orders;
}

/** @param {number} word */
function luma(word) {
  const [r, g, b] = channelsOf(word);
  return 299 * r + 587 * g + 114 * b;
}

/**
 * The exact formats worth trying for a set of images that are to share one
 * format (the frames of an APNG, or one image).
 * @param {Uint8Array[]} images RGBA data
 * @param {{ paletteOrder?: number[], allowGrey?: boolean }} [options] allowGrey false when an RGB ICC profile is carried
 * @returns {PngFormat[]}
 */
export function analyse(images, options = {}) {
  const stats = scanColours(images.map(pixelWords));
  const { counts, allGrey, allOpaque, transparentKey } = stats;
  const allowGrey = options.allowGrey ?? true;
  /** @type {PngFormat[]} */
  const formats = [];
  if (!stats.overflow) {
    const bitDepth = paletteDepth(counts.size);
    for (const [order, words] of paletteOrders(counts, options.paletteOrder)) {
      formats.push({ name: `palette/${order}`, colorType: 3, bitDepth, palette: Uint32Array.from(words) });
    }
  }
  // A palette nearly always beats direct colour on larger images; on small ones PLTE's cost can decide.
  const small = stats.pixels <= SMALL_IMAGE_PIXELS;
  if (allGrey && allowGrey) {
    if (allOpaque) formats.push({ name: 'grey', colorType: 0, bitDepth: greyDepth(stats.greysSeen) });
    if (transparentKey !== undefined) formats.push({ name: 'grey+trns', colorType: 0, bitDepth: greyDepth(stats.greysSeen), transparentKey });
    // tRNS costs 14 bytes, more than an alpha channel adds to a tiny image.
    if (!allOpaque && (transparentKey === undefined || small)) formats.push({ name: 'grey+alpha', colorType: 4, bitDepth: 8 });
  } else if (stats.overflow || small) {
    if (allOpaque) formats.push({ name: 'truecolour', colorType: 2, bitDepth: 8 });
    if (transparentKey !== undefined) formats.push({ name: 'truecolour+trns', colorType: 2, bitDepth: 8, transparentKey });
    if (!allOpaque && (transparentKey === undefined || small)) formats.push({ name: 'rgba', colorType: 6, bitDepth: 8 });
  }
  return formats;
}

/**
 * PLTE and tRNS for a format.
 * @param {PngFormat} format
 * @returns {Buffer[]} whole chunks, in file order
 */
export function formatChunks(format) {
  if (format.colorType === 3) {
    const palette = /** @type {Uint32Array} */ (format.palette);
    const plte = Buffer.alloc(palette.length * 3);
    const alphas = Buffer.alloc(palette.length);
    let trnsLength = 0;
    palette.forEach((word, index) => {
      const [r, g, b, a] = channelsOf(word);
      plte[index * 3] = r;
      plte[index * 3 + 1] = g;
      plte[index * 3 + 2] = b;
      alphas[index] = a;
      if (a !== 255) trnsLength = index + 1;
    });
    return trnsLength ? [chunk('PLTE', plte), chunk('tRNS', alphas.subarray(0, trnsLength))] : [chunk('PLTE', plte)];
  }
  if (format.transparentKey === undefined) return [];
  const [r, g, b] = channelsOf(format.transparentKey);
  if (format.colorType === 0) {
    const trns = Buffer.alloc(2);
    trns.writeUInt16BE(r / greyStep(format.bitDepth), 0);
    return [chunk('tRNS', trns)];
  }
  const trns = Buffer.alloc(6);
  trns.writeUInt16BE(r, 0);
  trns.writeUInt16BE(g, 2);
  trns.writeUInt16BE(b, 4);
  return [chunk('tRNS', trns)];
}

/** @param {PngFormat} format @returns {number} bytes of PLTE and tRNS */
export function formatOverhead(format) {
  return formatChunks(format).reduce((total, part) => total + part.length, 0);
}

/**
 * A pixel word that the format stores as fully transparent, if it has one.
 * @param {PngFormat} format
 * @returns {number | undefined}
 */
export function transparentWord(format) {
  if (format.colorType === 6 || format.colorType === 4) return wordOf(0, 0, 0, 0);
  if (format.colorType === 3) return /** @type {Uint32Array} */ (format.palette).find((word) => alphaOf(word) === 0);
  return format.transparentKey;
}

/** @param {number} bitDepth grey value represented by one step of a sample */
function greyStep(bitDepth) {
  return 255 / ((1 << bitDepth) - 1);
}

// ---------------------------------------------------------------- packing

/** @param {PngFormat} format */
function bitsPerPixel(format) {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[format.colorType];
  return channels * format.bitDepth;
}

/**
 * Scanlines of the raster in the format, without filter bytes.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @returns {{ raw: Uint8Array, stride: number }}
 */
function packRaster(rgba, width, height, format) {
  switch (format.colorType) {
    case 6: return { raw: rgba, stride: width * 4 };
    case 2: return { raw: pickChannels(rgba, [0, 1, 2]), stride: width * 3 };
    case 4: return { raw: pickChannels(rgba, [0, 3]), stride: width * 2 };
    case 0: return packSamples(greySamples(rgba, format), width, height, format.bitDepth);
    case 3: return packSamples(paletteIndices(rgba, format), width, height, format.bitDepth);
  }
}

/**
 * @param {Uint8Array} rgba
 * @param {number[]} channels which of R, G, B, A to keep
 */
function pickChannels(rgba, channels) {
  const pixels = rgba.length >> 2, n = channels.length;
  const out = new Uint8Array(pixels * n);
  for (let p = 0, o = 0; p < pixels; p++) {
    for (let c = 0; c < n; c++) out[o++] = rgba[p * 4 + channels[c]];
  }
  return out;
}

/** @param {Uint8Array} rgba @param {PngFormat} format @returns {Uint8Array} one sample per pixel */
function greySamples(rgba, format) {
  const pixels = rgba.length >> 2;
  const out = new Uint8Array(pixels);
  const step = greyStep(format.bitDepth);
  for (let p = 0; p < pixels; p++) {
    const value = rgba[p * 4];
    if (value % step !== 0 || rgba[p * 4 + 1] !== value || rgba[p * 4 + 2] !== value) {
      throw new Error(`Pixel ${p} does not fit format ${format.name}`);
    }
    out[p] = value / step;
  }
  return out;
}

/** @param {Uint8Array} rgba @param {PngFormat} format @returns {Uint8Array} one palette index per pixel */
function paletteIndices(rgba, format) {
  const palette = /** @type {Uint32Array} */ (format.palette);
  /** @type {Map<number, number>} */
  const indexOf = new Map();
  palette.forEach((word, index) => indexOf.set(word, index));
  const words = pixelWords(rgba);
  const out = new Uint8Array(words.length);
  let lastWord = -1, lastIndex = 0;
  for (let p = 0; p < words.length; p++) {
    const word = words[p];
    if (word !== lastWord) {
      const index = indexOf.get(word);
      if (index === undefined) throw new Error(`Pixel ${p} has a colour missing from the palette of ${format.name}`);
      lastWord = word;
      lastIndex = index;
    }
    out[p] = lastIndex;
  }
  return out;
}

/**
 * Packs one sample per pixel at the bit depth, rows padded to whole bytes.
 * @param {Uint8Array} samples
 * @param {number} width
 * @param {number} height
 * @param {number} depth
 */
function packSamples(samples, width, height, depth) {
  if (depth === 8) return { raw: samples, stride: width };
  const stride = Math.ceil((width * depth) / 8);
  const raw = new Uint8Array(stride * height);
  const perByte = 8 / depth;
  for (let y = 0; y < height; y++) {
    let o = y * stride, p = y * width;
    for (let x = 0; x < width; x += perByte, o++) {
      let byte = 0;
      for (let k = 0; k < perByte; k++) byte = (byte << depth) | (x + k < width ? samples[p + x + k] : 0);
      raw[o] = byte;
    }
  }
  return { raw, stride };
}

// ---------------------------------------------------------------- filtering

/**
 * Filters every row with one filter type (0 none .. 4 Paeth).
 * @param {Uint8Array} raw
 * @param {number} stride bytes per row
 * @param {number} height
 * @param {number} bpp bytes per complete pixel, at least 1
 * @param {number} type
 * @returns {Uint8Array} rows, each with its filter byte
 */
function filterRows(raw, stride, height, bpp, type) {
  const out = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride, prev = row - stride, o = y * (stride + 1) + 1;
    out[o - 1] = type;
    const hasPrev = y > 0;
    switch (type) {
      case 0:
        out.set(raw.subarray(row, row + stride), o);
        break;
      case 1:
        for (let x = 0; x < stride; x++) out[o + x] = raw[row + x] - (x >= bpp ? raw[row + x - bpp] : 0);
        break;
      case 2:
        for (let x = 0; x < stride; x++) out[o + x] = raw[row + x] - (hasPrev ? raw[prev + x] : 0);
        break;
      case 3:
        for (let x = 0; x < stride; x++) {
          const left = x >= bpp ? raw[row + x - bpp] : 0, up = hasPrev ? raw[prev + x] : 0;
          out[o + x] = raw[row + x] - ((left + up) >> 1);
        }
        break;
      case 4:
        for (let x = 0; x < stride; x++) {
          const left = x >= bpp ? raw[row + x - bpp] : 0, up = hasPrev ? raw[prev + x] : 0;
          const upLeft = x >= bpp && hasPrev ? raw[prev + x - bpp] : 0;
          out[o + x] = raw[row + x] - paeth(left, up, upLeft);
        }
        break;
    }
  }
  return out;
}

/**
 * The Paeth predictor: whichever of left, up, up-left is nearest to left + up - upLeft.
 * @param {number} a left @param {number} b up @param {number} c up-left
 */
export function paeth(a, b, c) {
  const p = a + b - c;
  const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Per row, the filter whose output scores lowest.
 * @param {Uint8Array[]} filtered the five single-filter outputs
 * @param {number} stride
 * @param {number} height
 * @param {(bytes: Uint8Array) => number} score
 */
function adaptiveRows(filtered, stride, height, score) {
  const out = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1), end = start + stride + 1;
    let best = filtered[0], bestScore = Infinity;
    for (const candidate of filtered) {
      const value = score(candidate.subarray(start + 1, end));
      if (value < bestScore) [best, bestScore] = [candidate, value];
    }
    out.set(best.subarray(start, end), start);
  }
  return out;
}

/** libpng's heuristic: the sum of the bytes taken as signed magnitudes. @param {Uint8Array} bytes */
function absoluteSum(bytes) {
  let sum = 0;
  for (let i = 0; i < bytes.length; i++) sum += bytes[i] < 128 ? bytes[i] : 256 - bytes[i];
  return sum;
}

const histogram = new Uint32Array(256);
/** Shannon information of the bytes, in bits; zopflipng's 'entropy' strategy. @param {Uint8Array} bytes */
function information(bytes) {
  histogram.fill(0);
  for (let i = 0; i < bytes.length; i++) histogram[bytes[i]]++;
  let bits = 0;
  for (let v = 0; v < 256; v++) {
    const count = histogram[v];
    if (count) bits -= count * Math.log2(count / bytes.length);
  }
  return bits;
}

/**
 * Every filtering of a raster.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @returns {Map<FilterName, Uint8Array>}
 */
function filterings(rgba, width, height, format) {
  const { raw, stride } = packRaster(rgba, width, height, format);
  const bpp = Math.max(1, bitsPerPixel(format) >> 3);
  const single = UNFILTERED.map((_, type) => filterRows(raw, stride, height, bpp, type));
  /** @type {Map<FilterName, Uint8Array>} */
  const result = new Map(UNFILTERED.map((name, type) => [name, single[type]]));
  result.set('minsum', adaptiveRows(single, stride, height, absoluteSum));
  result.set('entropy', adaptiveRows(single, stride, height, information));
  return result;
}

/**
 * One filtering of a raster, rebuilt for the final compression.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @param {FilterName} filter
 */
export function filterRaster(rgba, width, height, format, filter) {
  const type = UNFILTERED.indexOf(/** @type {any} */ (filter));
  if (type < 0) return /** @type {Uint8Array} */ (filterings(rgba, width, height, format).get(filter));
  const { raw, stride } = packRaster(rgba, width, height, format);
  return filterRows(raw, stride, height, Math.max(1, bitsPerPixel(format) >> 3), type);
}

// ---------------------------------------------------------------- compression

/**
 * Measures every filtering with libdeflate at a fast level, which ranks them
 * almost as its strongest level does. A large raster is measured on evenly
 * spaced bands of rows, so ranking costs the same for every size.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @param {{ quick?: boolean }} [options] quick: only filter none and adaptive minsum, for comparing formats
 * @returns {Promise<Ranking>}
 */
export async function rankRaster(rgba, width, height, format, options = {}) {
  /** @type {Trial[]} */
  const trials = [];
  for (const [filter, bytes] of filterings(rgba, width, height, format)) {
    if (options.quick && filter !== 'none' && filter !== 'minsum') continue;
    const sample = sampleRows(bytes, height);
    trials.push({ filter, size: libdeflate(sample, sample.length <= SMALL_SAMPLE_BYTES ? BEST_LEVEL : SCREEN_LEVEL).length });
  }
  return { trials: trials.sort((a, b) => a.size - b.size) };
}

/**
 * Evenly spaced bands of whole filtered rows, about SCREEN_SAMPLE_BYTES in all; the rows themselves when smaller.
 * @param {Uint8Array} filtered
 * @param {number} height
 */
export function sampleRows(filtered, height) {
  if (filtered.length <= SCREEN_SAMPLE_BYTES) return filtered;
  const rowBytes = filtered.length / height;
  const bandBytes = SCREEN_BAND_ROWS * rowBytes;
  const bands = Math.max(1, Math.floor(SCREEN_SAMPLE_BYTES / bandBytes));
  const bandStep = Math.floor(height / bands / SCREEN_BAND_ROWS) * SCREEN_BAND_ROWS * rowBytes;
  if (bandStep < bandBytes) return filtered;
  const sample = new Uint8Array(bands * bandBytes);
  for (let band = 0; band < bands; band++) sample.set(filtered.subarray(band * bandStep, band * bandStep + bandBytes), band * bandBytes);
  return sample;
}

/**
 * A trial in its format, with the bytes of PLTE and tRNS that the format adds.
 * @typedef {{ format: PngFormat, overhead: number, trial: Trial }} Candidate
 */

/** @param {Candidate} candidate */
function screenedSize({ overhead, trial }) {
  return overhead + trial.size;
}

/**
 * Rankings of one raster in several formats, as candidates smallest first.
 * @param {{ format: PngFormat, ranking: Ranking }[]} ranked
 * @returns {Candidate[]}
 */
function candidatesOf(ranked) {
  return ranked
    .flatMap(({ format, ranking }) => {
      const overhead = formatOverhead(format);
      return ranking.trials.map((trial) => ({ format, overhead, trial }));
    })
    .sort((a, b) => screenedSize(a) - screenedSize(b));
}

/**
 * The smallest of the screening's leaders at libdeflate's strongest level,
 * then zopfli on that one and on the best unfiltered candidate when asked.
 * The fast ranking is a poor guide for unfiltered palette data, where
 * zopfli's optimal parsing often gains 10-20% against a few percent on
 * filtered data.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {Candidate[]} candidates smallest screened size first
 * @param {number} zopfliIterations 0 for libdeflate only
 * @returns {Promise<EncodedRaster & { format: PngFormat }>}
 */
async function finish(rgba, width, height, candidates, zopfliIterations) {
  const finalists = candidates.slice(0, FINALISTS).map((candidate) => {
    const data = libdeflate(filterRaster(rgba, width, height, candidate.format, candidate.trial.filter));
    return { candidate, data, total: candidate.overhead + data.length };
  });
  const winner = finalists.reduce((best, finalist) => (finalist.total < best.total ? finalist : best));
  /** @type {EncodedRaster & { format: PngFormat }} */
  let result = {
    format: winner.candidate.format, data: winner.data, filter: filterLabel(winner.candidate.trial.filter),
    deflate: 'libdeflate', candidates: candidates.length + finalists.length,
  };
  if (zopfliIterations <= 0) return result;
  // Unfiltered is the conventional choice for palette and grey images, rarely for direct colour.
  const unfiltered = candidates.find(({ format, trial }) => trial.filter === 'none' && (format.colorType === 3 || format.colorType === 0));
  const picks = unfiltered && !(unfiltered.format === winner.candidate.format && unfiltered.trial.filter === winner.candidate.trial.filter)
    ? [winner.candidate, unfiltered] : [winner.candidate];
  let smallest = winner.total;
  for (const { format, overhead, trial } of picks) {
    const data = await zopfliDeflate(filterRaster(rgba, width, height, format, trial.filter), zopfliIterations);
    result.candidates++;
    if (overhead + data.length < smallest) {
      smallest = overhead + data.length;
      result = { ...result, format, data, filter: filterLabel(trial.filter), deflate: 'zopfli' };
    }
  }
  return result;
}

/** @param {FilterName} filter */
function filterLabel(filter) {
  return filter === 'minsum' || filter === 'entropy' ? `adaptive-${filter}` : filter;
}

/**
 * The best compression of a raster after ranking, with libdeflate and, when asked, zopfli.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @param {Ranking} ranking
 * @param {number} zopfliIterations 0 for libdeflate only
 * @returns {Promise<EncodedRaster>}
 */
export async function finishRaster(rgba, width, height, format, ranking, zopfliIterations) {
  const { data, filter, deflate: method, candidates } = await finish(rgba, width, height, candidatesOf([{ format, ranking }]), zopfliIterations);
  return { data, filter, deflate: method, candidates };
}

/**
 * The smallest compressed scanlines of one raster in a given format.
 * @param {Uint8Array} rgba width*height*4 bytes
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @param {{ zopfliIterations?: number }} [options]
 * @returns {Promise<EncodedRaster>}
 */
export async function encodeRaster(rgba, width, height, format, options = {}) {
  checkImage({ data: rgba, width, height });
  const ranking = await rankRaster(rgba, width, height, format);
  return finishRaster(rgba, width, height, format, ranking, zopfliIterationsOf(options));
}

/** @param {{ zopfliIterations?: number }} options */
export function zopfliIterationsOf(options) {
  const iterations = options.zopfliIterations ?? DEFAULT_ZOPFLI_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 0) throw new Error(`zopfliIterations must be a whole number ≥ 0, not ${iterations}`);
  return iterations;
}

// ---------------------------------------------------------------- the PNG

/**
 * @typedef {object} EncodePngOptions
 * @property {number} [zopfliIterations] default 0 (libdeflate only); more adds zopfli, slower, sometimes a little smaller
 * @property {number[]} [paletteOrder] colours (RGBA as one 32-bit number, red highest) in a preferred palette order, e.g. the GIF's
 * @property {{ type: string, data: Uint8Array }[]} [chunks] ancillary chunks to carry (gAMA, cHRM, sRGB, iCCP), written before PLTE
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
  const formats = analyse([data], { paletteOrder: options.paletteOrder, allowGrey });

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
