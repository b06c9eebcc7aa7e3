/**
 * Pixel words: the four RGBA bytes of a pixel read as one platform-endian
 * Uint32, so that comparing and hashing a pixel is one operation. Also each
 * raster's distinct colours, found once and shared by the format analysis
 * and the packing of palette indices.
 */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Bit offsets of R, G, B and A inside a pixel word. */
export const [R_SHIFT, G_SHIFT, B_SHIFT, A_SHIFT] = LITTLE_ENDIAN ? [0, 8, 16, 24] : [24, 16, 8, 0];
export const ALPHA_MASK = (0xff << A_SHIFT) >>> 0;

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
export function wordOfHex(rgba) {
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
export function distinctColours(rgba) {
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
