/**
 * PNG's scanline filters (none, sub, up, average, Paeth) and the adaptive
 * strategies that choose one per row (libpng's minimum sum of magnitudes,
 * zopflipng's entropy), applied to packed rasters.
 */

/** @typedef {import('./pack.js').PackedRaster} PackedRaster */

/**
 * @typedef {'none' | 'sub' | 'up' | 'average' | 'paeth' | 'minsum' | 'entropy'} FilterName
 * 'minsum' and 'entropy' choose a filter per row (adaptive); the others use one for all rows.
 */

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
export function filterRows(raster, filters, rows) {
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
