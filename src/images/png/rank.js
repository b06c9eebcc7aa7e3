/**
 * Choosing the smallest compression of a raster: each candidate (format and
 * filter) is deflated at a screening level, on bands of rows when the raster
 * is large, and ranked; the leader, and unfiltered contenders that came
 * close, are then deflated at libdeflate's strongest level and, when asked,
 * with zopfli.
 */
import { BEST_LEVEL, libdeflate, zopfliDeflate } from '../deflate.js';
import { filterRows } from './filters.js';
import { formatOverhead } from './formats.js';
import { bitsPerPixel, packRaster } from './pack.js';

/** @typedef {import('./formats.js').PngFormat} PngFormat */
/** @typedef {import('./filters.js').FilterName} FilterName */

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

/** zopfli is off by default: libdeflate comes within a percent of it at a few percent of its time. */
export const DEFAULT_ZOPFLI_ITERATIONS = 0;

/** @type {FilterName[]} */
const ALL_FILTERS = ['none', 'sub', 'up', 'average', 'paeth', 'minsum', 'entropy'];
/** @type {FilterName[]} */
const QUICK_FILTERS = ['none', 'minsum'];

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
export function candidatesOf(ranked) {
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
export async function finish(rgba, width, height, candidates, zopfliIterations) {
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
