/**
 * Lossless PNG encoder that looks for the smallest exact file, as optipng and
 * zopflipng do: the colour types that hold the pixels exactly (palette in
 * several orders, packed or one byte per index, grey, truecolour, with tRNS
 * where one colour is transparent), each with the filter strategies that win
 * on such data, ranked by libdeflate on a sample of rows; the leader (and the
 * best unfiltered candidate, when it came close) is compressed with
 * libdeflate's strongest level, and, when asked, zopfli recompresses it.
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
 * @property {FilterName[]} [screen] the filters worth ranking in this format; all when absent
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
 * @property {Buffer} [data] the zlib stream itself, when it is final: every row, at the strongest level
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
/** @type {FilterName[]} */
const ALL_FILTERS = ['none', 'sub', 'up', 'average', 'paeth', 'minsum', 'entropy'];
/** @type {FilterName[]} */
const QUICK_FILTERS = ['none', 'minsum'];
/** @type {FilterName[]} */
const ADAPTIVE_FILTERS = ['minsum', 'entropy'];
/** The filters that win on GIF-like images: unfiltered, or adaptive by either heuristic (sub, up, average and Paeth alone rarely do). */
const LIKELY_FILTERS = /** @type {FilterName[]} */ (['none', ...ADAPTIVE_FILTERS]);
/** An image where at least this share of pixels repeat the one before is drawn, not photographed: it is ranked unfiltered only. */
const DRAWN_REPEATS = 0.5;
/** libdeflate level that ranks the candidates: close to level 12's ranking at a fraction of its time. */
const SCREEN_LEVEL = 9;
/** The level of quick rankings (an animation's many comparisons of formats, blends and disposals). */
const QUICK_LEVEL = 3;
/** A larger filtered raster is ranked on bands of its rows: the ranking holds, the time does not grow with the image. */
const SCREEN_SAMPLE_BYTES = 64 * 1024;
const SCREEN_BAND_ROWS = 16;
/** Up to this size the strongest level ranks too: it costs little, and a fast level's block choices are noise on tiny data. */
const SMALL_SAMPLE_BYTES = 4096;
/** The best unfiltered candidate is compressed beside a filtered leader when it ranked within this fraction of it. */
const UNFILTERED_MARGIN = 0.1;
/** An unfiltered runner-up ranked on a sample is compressed beside an unfiltered leader when within this fraction of it. */
const SAMPLED_RUNNER_UP_MARGIN = 0.01;
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
 * @property {number} repeats pixels equal to the one before them, in scan order
 */

/** @param {Uint32Array[]} images @returns {ColourStats} */
function scanColours(images) {
  /** @type {Map<number, number>} */
  const counts = new Map();
  const greysSeen = new Uint8Array(256);
  let overflow = false, allGrey = true, allOpaque = true, binaryAlpha = true, keyUnique = true;
  /** @type {number | undefined} */
  let key;
  let pixels = 0, runs = 0;
  for (const words of images) {
    const n = words.length;
    pixels += n;
    // Runs of one colour are common in GIF-like images: each run is examined once.
    for (let i = 0; i < n;) {
      const word = words[i];
      let j = i + 1;
      while (j < n && words[j] === word) j++;
      const run = j - i;
      runs++;
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
  return { counts, overflow, allGrey, allOpaque, transparentKey: keyUsable ? key : undefined, greysSeen, pixels, repeats: pixels - runs };
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
 * @param {number[] | undefined} adjacent the colours in adjacency order, when wanted
 * @returns {[string, number[]][]} order name and its pixel words
 */
function paletteOrders(counts, hint, adjacent) {
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
  if (adjacent) orders.push(['adjacency', [...adjacent].sort(opaqueLast)]);
  return orders;
}

/** @param {number} word */
function luma(word) {
  const [r, g, b] = channelsOf(word);
  return 299 * r + 587 * g + 114 * b;
}

/**
 * The colours of images in an order where colours that touch (side by side
 * or one above the other) get neighbouring indices, so that filtered
 * palette data holds small differences: a chain built greedily from the pair
 * that touches most, each next colour added at whichever end it touches most
 * (after Zeng, Li and Lei's palette reordering for lossless compression).
 * @param {Uint8Array[]} images RGBA data, all of one width
 * @param {number} width
 * @param {number[]} colours every colour of the images, as pixel words
 * @returns {number[]} the same colours, reordered
 */
function adjacencyOrder(images, width, colours) {
  const n = colours.length;
  if (n < 3) return colours;
  /** @type {Map<number, number>} */
  const indexOf = new Map(colours.map((word, index) => [word, index]));
  const touching = new Uint32Array(n * n);
  for (const rgba of images) {
    const distinct = distinctColours(rgba);
    const global = distinct.colours.map((word) => /** @type {number} */ (indexOf.get(word)));
    const indices = distinct.indices;
    const height = indices.length / width;
    for (let y = 0; y < height; y++) {
      const row = y * width, below = y + 1 < height;
      for (let x = 0; x < width; x++) {
        const a = global[indices[row + x]];
        if (x + 1 < width) {
          const b = global[indices[row + x + 1]];
          if (b !== a) touching[a * n + b]++;
        }
        if (below) {
          const b = global[indices[row + width + x]];
          if (b !== a) touching[a * n + b]++;
        }
      }
    }
  }
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) touching[a * n + b] = touching[b * n + a] = touching[a * n + b] + touching[b * n + a];
  }
  let first = 0, second = 1;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) if (touching[a * n + b] > touching[first * n + second]) [first, second] = [a, b];
  }
  const chain = [first, second];
  const placed = new Uint8Array(n);
  placed[first] = placed[second] = 1;
  while (chain.length < n) {
    const left = chain[0], right = chain[chain.length - 1];
    let next = -1, nextScore = -1, atLeft = false;
    for (let c = 0; c < n; c++) {
      if (placed[c]) continue;
      if (touching[c * n + left] > nextScore) [next, nextScore, atLeft] = [c, touching[c * n + left], true];
      if (touching[c * n + right] > nextScore) [next, nextScore, atLeft] = [c, touching[c * n + right], false];
    }
    placed[next] = 1;
    if (atLeft) chain.unshift(next);
    else chain.push(next);
  }
  return chain.map((index) => colours[index]);
}

/**
 * Which filters each palette order is ranked with. The order of the indices
 * matters little to unfiltered data (only to the Huffman tables and block
 * boundaries deflate picks, where the GIF's own order, frequency and first
 * appearance do well) and much to filtered data, where orders that put
 * similar or touching colours side by side do.
 * @type {Record<string, FilterName[]>}
 */
const ORDER_FILTERS = {
  hint: LIKELY_FILTERS, appearance: ['none'], frequency: ['none'], luma: LIKELY_FILTERS, adjacency: ADAPTIVE_FILTERS,
};

/**
 * The exact formats worth trying for a set of images that are to share one
 * format (the frames of an APNG, or one image).
 * @param {Uint8Array[]} images RGBA data
 * @param {{ paletteOrder?: number[], allowGrey?: boolean, width?: number, screen?: boolean }} [options]
 *   allowGrey: false when an RGB ICC profile is carried; width (of every image): also the adjacency palette
 *   order, and one byte per palette index or grey sample where fewer bits would do (byte-aligned pixels
 *   often deflate smaller); screen: each format with the filters worth ranking for it
 * @returns {PngFormat[]}
 */
export function analyse(images, options = {}) {
  const stats = scanColours(images.map(pixelWords));
  const { counts, allGrey, allOpaque, transparentKey } = stats;
  const allowGrey = options.allowGrey ?? true;
  const { width, screen: screened = false } = options;
  // Drawn images (text, rules, charts: most pixels repeat the one before) deflate best unfiltered;
  // filters pay on photographs and scans, where neighbours differ a little.
  const drawn = stats.repeats >= stats.pixels * DRAWN_REPEATS;
  /** @type {PngFormat[]} */
  const formats = [];
  /** @param {PngFormat} format @param {FilterName[]} filters */
  const offer = (format, filters) => {
    // Whole bytes per pixel help unfiltered data, where deflate then finds pixel-aligned repeats.
    const byteWide = width && format.bitDepth < 8 ? { ...format, name: `${format.name}/8-bit`, bitDepth: /** @type {8} */ (8) } : undefined;
    if (!screened) {
      formats.push(format);
      if (byteWide) formats.push(byteWide);
      return;
    }
    const screen = drawn ? filters.filter((filter) => filter === 'none') : filters;
    if (screen.length) formats.push({ ...format, screen });
    if (byteWide && screen.includes('none')) formats.push({ ...byteWide, screen: ['none'] });
  };
  if (!stats.overflow) {
    const bitDepth = paletteDepth(counts.size);
    // The adjacency order serves filtered data only, which drawn images do not get when screened.
    const adjacent = width && !(screened && drawn) ? adjacencyOrder(images, width, [...counts.keys()]) : undefined;
    for (const [order, words] of paletteOrders(counts, options.paletteOrder, adjacent)) {
      offer({ name: `palette/${order}`, colorType: 3, bitDepth, palette: Uint32Array.from(words) }, ORDER_FILTERS[order]);
    }
  }
  // A palette nearly always beats direct colour on larger images; on small ones PLTE's cost can decide.
  const small = stats.pixels <= SMALL_IMAGE_PIXELS;
  if (allGrey && allowGrey) {
    if (allOpaque) offer({ name: 'grey', colorType: 0, bitDepth: greyDepth(stats.greysSeen) }, LIKELY_FILTERS);
    if (transparentKey !== undefined) offer({ name: 'grey+trns', colorType: 0, bitDepth: greyDepth(stats.greysSeen), transparentKey }, LIKELY_FILTERS);
    // tRNS costs 14 bytes, more than an alpha channel adds to a tiny image.
    if (!allOpaque && (transparentKey === undefined || small)) offer({ name: 'grey+alpha', colorType: 4, bitDepth: 8 }, LIKELY_FILTERS);
  } else if (stats.overflow || small) {
    if (allOpaque) offer({ name: 'truecolour', colorType: 2, bitDepth: 8 }, LIKELY_FILTERS);
    if (transparentKey !== undefined) offer({ name: 'truecolour+trns', colorType: 2, bitDepth: 8, transparentKey }, LIKELY_FILTERS);
    if (!allOpaque && (transparentKey === undefined || small)) offer({ name: 'rgba', colorType: 6, bitDepth: 8 }, LIKELY_FILTERS);
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
 * Scanlines of a raster in a format, without filter bytes.
 * @typedef {object} PackedRaster
 * @property {Uint8Array} raw
 * @property {number} stride bytes per row
 * @property {number} height
 * @property {number} bpp bytes per complete pixel, at least 1 (the filters' unit)
 */

/**
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @returns {PackedRaster}
 */
function packRaster(rgba, width, height, format) {
  const bpp = Math.max(1, bitsPerPixel(format) >> 3);
  switch (format.colorType) {
    case 6: return { raw: rgba, stride: width * 4, height, bpp };
    case 2: return { raw: pickChannels(rgba, [0, 1, 2]), stride: width * 3, height, bpp };
    case 4: return { raw: pickChannels(rgba, [0, 3]), stride: width * 2, height, bpp };
    case 0: return { ...packSamples(greySamples(rgba, format), width, height, format.bitDepth), height, bpp };
    case 3: return { ...packSamples(paletteIndices(rgba, format), width, height, format.bitDepth), height, bpp };
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

/**
 * The distinct colours of a raster in order of first appearance, and each
 * pixel's index among them: computed once per raster (rasters are never
 * modified once handed to the encoder), then every palette order is a
 * permutation of these indices.
 * @typedef {{ colours: number[], indices: Uint8Array }} Distinct
 * @type {WeakMap<Uint8Array, Distinct>}
 */
const distinctOf = new WeakMap();

/** @param {Uint8Array} rgba @returns {Distinct} */
function distinctColours(rgba) {
  const known = distinctOf.get(rgba);
  if (known) return known;
  const words = pixelWords(rgba);
  /** @type {Map<number, number>} */
  const indexOf = new Map();
  const indices = new Uint8Array(words.length);
  let lastWord = -1, lastIndex = 0;
  for (let p = 0; p < words.length; p++) {
    const word = words[p];
    if (word !== lastWord) {
      let index = indexOf.get(word);
      if (index === undefined) {
        if (indexOf.size === 256) throw new Error(`Pixel ${p} is colour 257: no palette holds it`);
        index = indexOf.size;
        indexOf.set(word, index);
      }
      lastWord = word;
      lastIndex = index;
    }
    indices[p] = lastIndex;
  }
  const distinct = { colours: [...indexOf.keys()], indices };
  distinctOf.set(rgba, distinct);
  return distinct;
}

/** @param {Uint8Array} rgba @param {PngFormat} format @returns {Uint8Array} one palette index per pixel */
function paletteIndices(rgba, format) {
  const palette = /** @type {Uint32Array} */ (format.palette);
  /** @type {Map<number, number>} */
  const indexOf = new Map();
  palette.forEach((word, index) => indexOf.set(word, index));
  const { colours, indices } = distinctColours(rgba);
  const permutation = colours.map((word) => {
    const index = indexOf.get(word);
    if (index === undefined) throw new Error(`A pixel has a colour missing from the palette of ${format.name}`);
    return index;
  });
  const out = new Uint8Array(indices.length);
  for (let p = 0; p < indices.length; p++) out[p] = permutation[indices[p]];
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
 * Filters row y of a raster with one filter type (0 none .. 4 Paeth) into out at o.
 * @param {Uint8Array} out
 * @param {number} o
 * @param {PackedRaster} raster
 * @param {number} y
 * @param {number} type
 */
function filterRow(out, o, { raw, stride, bpp }, y, type) {
  const row = y * stride, prev = row - stride;
  const lead = Math.min(bpp, stride);
  if (type === 0 || (type === 2 && y === 0)) {
    out.set(raw.subarray(row, row + stride), o);
  } else if (type === 1 || (type === 4 && y === 0)) {
    // Paeth with no row above predicts from the left, as sub does.
    for (let x = 0; x < lead; x++) out[o + x] = raw[row + x];
    for (let x = lead; x < stride; x++) out[o + x] = raw[row + x] - raw[row + x - bpp];
  } else if (type === 2) {
    for (let x = 0; x < stride; x++) out[o + x] = raw[row + x] - raw[prev + x];
  } else if (type === 3) {
    if (y === 0) {
      for (let x = 0; x < lead; x++) out[o + x] = raw[row + x];
      for (let x = lead; x < stride; x++) out[o + x] = raw[row + x] - (raw[row + x - bpp] >> 1);
    } else {
      for (let x = 0; x < lead; x++) out[o + x] = raw[row + x] - (raw[prev + x] >> 1);
      for (let x = lead; x < stride; x++) out[o + x] = raw[row + x] - ((raw[row + x - bpp] + raw[prev + x]) >> 1);
    }
  } else {
    for (let x = 0; x < lead; x++) out[o + x] = raw[row + x] - raw[prev + x];
    for (let x = lead; x < stride; x++) {
      const a = raw[row + x - bpp], b = raw[prev + x], c = raw[prev + x - bpp];
      const pa = b > c ? b - c : c - b, pb = a > c ? a - c : c - a, pabc = a + b - c - c, pc = pabc < 0 ? -pabc : pabc;
      out[o + x] = raw[row + x] - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
    }
  }
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

/** libpng's heuristic: the sum of the bytes taken as signed magnitudes. @param {Uint8Array} bytes @param {number} start @param {number} end */
function absoluteSum(bytes, start, end) {
  let sum = 0;
  for (let i = start; i < end; i++) sum += bytes[i] < 128 ? bytes[i] : 256 - bytes[i];
  return sum;
}

/** n·log2(n) for the byte counts of a row, grown as wider rows come. */
let nLogN = new Float64Array(0);
/** @param {number} length */
function nLogNUpTo(length) {
  if (nLogN.length <= length) {
    nLogN = new Float64Array(length + 1);
    for (let n = 1; n <= length; n++) nLogN[n] = n * Math.log2(n);
  }
  return nLogN;
}
const histogram = new Uint32Array(256);

/**
 * Shannon information of the bytes, in bits, less a constant for their
 * length (which all filterings of a row share); zopflipng's 'entropy' strategy.
 * @param {Uint8Array} bytes @param {number} start @param {number} end
 */
function information(bytes, start, end) {
  const table = nLogNUpTo(end - start);
  for (let i = start; i < end; i++) histogram[bytes[i]]++;
  let sum = 0;
  for (let i = start; i < end; i++) {
    const count = histogram[bytes[i]];
    if (count) {
      sum += table[count];
      histogram[bytes[i]] = 0;
    }
  }
  return -sum;
}

/** @type {Record<FilterName, number>} */
const FILTER_TYPES = { none: 0, sub: 1, up: 2, average: 3, paeth: 4, minsum: -1, entropy: -1 };

/**
 * Some rows of a raster (all of them by default) with each of the given
 * filters, each row with its filter byte. The adaptive filters choose per
 * row the type whose output scores lowest, the first on a tie.
 * @param {PackedRaster} raster
 * @param {FilterName[]} filters
 * @param {ArrayLike<number>} [rows] row numbers, ascending
 * @returns {Map<FilterName, Uint8Array>}
 */
function filterRows(raster, filters, rows) {
  const { stride, height } = raster;
  const count = rows ? rows.length : height;
  const line = stride + 1;
  /** @type {Map<FilterName, Uint8Array>} */
  const out = new Map(filters.map((filter) => [filter, new Uint8Array(line * count)]));
  const adaptive = filters.filter((filter) => FILTER_TYPES[filter] < 0);
  const fixed = filters.filter((filter) => FILTER_TYPES[filter] >= 0);
  // Adaptive filters need all five types of each row; fixed ones write straight to their output.
  const scratch = adaptive.length ? new Uint8Array(5 * stride) : null;
  const scores = new Float64Array(5);
  for (let i = 0; i < count; i++) {
    const y = rows ? rows[i] : i, o = i * line;
    if (!scratch) {
      for (const filter of fixed) {
        const target = /** @type {Uint8Array} */ (out.get(filter));
        target[o] = FILTER_TYPES[filter];
        filterRow(target, o + 1, raster, y, FILTER_TYPES[filter]);
      }
      continue;
    }
    for (let type = 0; type < 5; type++) filterRow(scratch, type * stride, raster, y, type);
    for (const filter of fixed) {
      const type = FILTER_TYPES[filter], target = /** @type {Uint8Array} */ (out.get(filter));
      target[o] = type;
      target.set(scratch.subarray(type * stride, (type + 1) * stride), o + 1);
    }
    for (const filter of adaptive) {
      for (let type = 0; type < 5; type++) {
        const start = type * stride, end = start + stride;
        scores[type] = filter === 'minsum' ? absoluteSum(scratch, start, end) : information(scratch, start, end);
      }
      let best = 0;
      for (let type = 1; type < 5; type++) if (scores[type] < scores[best]) best = type;
      const target = /** @type {Uint8Array} */ (out.get(filter));
      target[o] = best;
      target.set(scratch.subarray(best * stride, (best + 1) * stride), o + 1);
    }
  }
  return out;
}

/**
 * One filtering of a whole raster, for the final compression.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @param {FilterName} filter
 */
function filterRaster(rgba, width, height, format, filter) {
  return /** @type {Uint8Array} */ (filterRows(packRaster(rgba, width, height, format), [filter]).get(filter));
}

/**
 * The rows a raster is ranked on: all of a small one; evenly spaced bands of
 * rows of a larger one, about SCREEN_SAMPLE_BYTES in all, so that ranking
 * costs the same for every size.
 * @param {number} rowBytes bytes of a filtered row, filter byte included
 * @param {number} height
 * @returns {number[] | undefined} undefined: every row
 */
function sampledRows(rowBytes, height) {
  if (rowBytes * height <= SCREEN_SAMPLE_BYTES) return undefined;
  const bands = Math.max(1, Math.floor(SCREEN_SAMPLE_BYTES / (SCREEN_BAND_ROWS * rowBytes)));
  const bandStep = Math.floor(height / bands / SCREEN_BAND_ROWS) * SCREEN_BAND_ROWS;
  if (bandStep < SCREEN_BAND_ROWS) return undefined;
  /** @type {number[]} */
  const rows = [];
  for (let band = 0; band < bands; band++) for (let k = 0; k < SCREEN_BAND_ROWS; k++) rows.push(band * bandStep + k);
  return rows;
}

// ---------------------------------------------------------------- compression

/**
 * Measures filterings of a raster with libdeflate: at its strongest level
 * when the (sampled) data are small, else at a middle level, which ranks
 * them almost as the strongest does at a fraction of its time.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {PngFormat} format
 * @param {{ quick?: boolean }} [options] quick: only filter none and adaptive minsum, at a fast level, for comparing formats
 * @returns {Promise<Ranking>}
 */
export async function rankRaster(rgba, width, height, format, options = {}) {
  const filters = options.quick ? QUICK_FILTERS : format.screen ?? ALL_FILTERS;
  const raster = packRaster(rgba, width, height, format);
  /** @type {Trial[]} */
  const trials = [];
  const rows = sampledRows(raster.stride + 1, height);
  for (const [filter, sample] of filterRows(raster, filters, rows)) {
    const final = !rows && sample.length <= SMALL_SAMPLE_BYTES;
    const data = libdeflate(sample, final ? BEST_LEVEL : options.quick ? QUICK_LEVEL : SCREEN_LEVEL);
    trials.push(final ? { filter, size: data.length, data } : { filter, size: data.length });
  }
  return { trials: trials.sort((a, b) => a.size - b.size) };
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
 * The screening's leader compressed at libdeflate's strongest level, with the
 * best unfiltered candidate beside it when that came close (a middle level
 * undervalues unfiltered palette and grey data, which the strongest level's
 * optimal parsing shrinks far more than filtered data), and a close
 * unfiltered runner-up beside an unfiltered leader ranked on a sample. When
 * asked, zopfli then recompresses the winner and the best unfiltered one.
 * @param {Uint8Array} rgba
 * @param {number} width
 * @param {number} height
 * @param {Candidate[]} candidates smallest screened size first
 * @param {number} zopfliIterations 0 for libdeflate only
 * @returns {Promise<EncodedRaster & { format: PngFormat }>}
 */
async function finish(rgba, width, height, candidates, zopfliIterations) {
  const leader = candidates[0];
  const unfiltered = candidates.find(({ format, trial }) => trial.filter === 'none' && (format.colorType === 3 || format.colorType === 0));
  const contenders = unfiltered && unfiltered !== leader && screenedSize(unfiltered) <= screenedSize(leader) * (1 + UNFILTERED_MARGIN)
    ? [leader, unfiltered] : [leader];
  // Ranked on a sample, unfiltered candidates in other palette orders come out misordered when about 2% apart or closer
  // (the strongest level's block boundaries and Huffman tables differ with the order): a close runner-up is compressed too.
  const runnerUp = candidates[1];
  if (runnerUp && leader.trial.filter === 'none' && runnerUp.trial.filter === 'none' && !contenders.includes(runnerUp)
    && (isSampled(leader, width, height) || isSampled(runnerUp, width, height))
    && screenedSize(runnerUp) <= screenedSize(leader) * (1 + SAMPLED_RUNNER_UP_MARGIN)) contenders.push(runnerUp);
  const finalists = contenders.map((candidate) => {
    const data = candidate.trial.data ?? libdeflate(filterRaster(rgba, width, height, candidate.format, candidate.trial.filter));
    return { candidate, data, total: candidate.overhead + data.length };
  });
  const winner = finalists.reduce((best, finalist) => (finalist.total < best.total ? finalist : best));
  /** @type {EncodedRaster & { format: PngFormat }} */
  let result = {
    format: winner.candidate.format, data: winner.data, filter: filterLabel(winner.candidate.trial.filter),
    deflate: 'libdeflate', candidates: candidates.length + finalists.filter(({ candidate }) => !candidate.trial.data).length,
  };
  if (zopfliIterations <= 0) return result;
  const picks = unfiltered && unfiltered !== winner.candidate ? [winner.candidate, unfiltered] : [winner.candidate];
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

/**
 * Whether a candidate was ranked on a sample of its rows.
 * @param {Candidate} candidate @param {number} width @param {number} height
 */
function isSampled({ format }, width, height) {
  return sampledRows(Math.ceil((width * bitsPerPixel(format)) / 8) + 1, height) !== undefined;
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
