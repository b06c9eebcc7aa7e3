/**
 * Which exact formats can hold some pixels, and which are worth trying:
 * palette in several orders (packed, or one byte per index), grey or
 * truecolour, with tRNS where one colour is transparent, each with the
 * filters that win on such data. One pass over the pixels decides.
 */
import { ALPHA_MASK, B_SHIFT, G_SHIFT, R_SHIFT, alphaOf, channelsOf, distinctColours, pixelWords, wordOfHex } from './pixels.js';

/** @typedef {import('./formats.js').PngFormat} PngFormat */
/** @typedef {import('./filters.js').FilterName} FilterName */

/** Below this many pixels, direct colour is tried even when a palette fits: PLTE costs more than the pixels save. */
const SMALL_IMAGE_PIXELS = 16384;

/** @type {FilterName[]} */
const ADAPTIVE_FILTERS = ['minsum', 'entropy'];
/** The filters that win on GIF-like images: unfiltered, or adaptive by either heuristic (sub, up, average and Paeth alone rarely do). */
const LIKELY_FILTERS = /** @type {FilterName[]} */ (['none', ...ADAPTIVE_FILTERS]);
/** An image where at least this share of pixels repeat the one before is drawn, not photographed: it is ranked unfiltered only. */
const DRAWN_REPEATS = 0.5;

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
