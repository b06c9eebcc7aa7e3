/**
 * The photo job: a lossy original (JPEG, lossy WebP, AVIF) re-encoded as
 * mozjpeg JPEG, WebP and AVIF, each at the lowest quality whose result
 * SSIMULACRA 2 scores at or above the gate against the original's pixels
 * (docs/photos.md). The original was approximated by its author already; a
 * re-encode that scores as visually identical costs the visitor nothing.
 *
 * Colour and orientation: the pixels compared are what a browser shows, the
 * EXIF orientation applied and the ICC profile converted to sRGB, and every
 * candidate is written upright (no orientation tag to lose) with the
 * original's ICC profile when it has one that is not sRGB, so wide-gamut
 * colours stay. The rest of the metadata (EXIF, XMP, IPTC) is dropped.
 */
import sharp from 'sharp';
import { sniffImageType } from '../../site/sniff.js';
import { ssimulacra2Scorer } from '../ssimulacra2-fast.js';
import { guarded } from './results.js';
import { candidateWidths } from '../responsive.js';
import { jpegQuality } from '../jpeg-quality.js';

/**
 * @typedef {'avif' | 'webp' | 'jpeg'} PhotoFormat
 *
 * @typedef {object} PhotoJobOptions
 * @property {number} score the SSIMULACRA 2 score every result must reach
 * @property {PhotoFormat[]} formats the formats to try
 * @property {number} maxPixels refuse images with more pixels than this
 * @property {import('../responsive.js').SizesEntry[][]} [sizes] the `sizes` of each <img> that draws it, as
 *   measured: smaller widths are made for them (candidateWidths), each scored against the original resized to it
 *
 * @typedef {object} PhotoVariant one re-encoding that passed the gate
 * @property {PhotoFormat} format
 * @property {number} width its size: the original's (upright), or one of the widths asked for
 * @property {number} height
 * @property {Buffer} bytes
 * @property {number} quality the encoder's quality setting
 * @property {number} [effort] AVIF's encoder effort
 * @property {number} score its SSIMULACRA 2 score against the original
 *
 * @typedef {object} PhotoTrial one format tried: its best variant, or why none
 * @property {PhotoFormat} format
 * @property {number | null} bytes the passing variant's size, null when none passed
 * @property {number | null} quality
 * @property {number | null} score the passing variant's score, or the best score seen
 *
 * @typedef {object} PhotoConverted
 * @property {'converted'} status
 * @property {PhotoFormat} originalFormat
 * @property {number} width
 * @property {number} height after orientation
 * @property {PhotoVariant[]} variants at the original's size, those smaller than the original, smallest first
 * @property {PhotoVariant[]} resized at the smaller widths asked for, every format that passed, by width
 * @property {PhotoTrial[]} trials every format tried
 * @property {string[]} warnings
 *
 * @typedef {object} PhotoKept
 * @property {'kept'} status
 * @property {string} reason
 * @property {PhotoTrial[]} [trials]
 * @property {string[]} warnings
 *
 * @typedef {PhotoConverted | PhotoKept | import('./results.js').Failed} PhotoResult
 */

/** Qualities tried, per encoder: the search looks for the lowest that passes. */
export const QUALITY_RANGE = /** @type {Record<PhotoFormat, [number, number]>} */ ({ jpeg: [40, 95], webp: [40, 95], avif: [30, 90] });
/** Where the search starts when the original's quality is unknown (not a JPEG): a quality that often scores near 85 on photographs. */
export const FIRST_GUESS = /** @type {Record<PhotoFormat, number>} */ ({ jpeg: 79, webp: 90, avif: 70 });
/**
 * Where the search starts for a JPEG original: its own quality (jpegQuality) plus this. The lowest passing
 * quality lay at the original's -4 to +1 for mozjpeg and -18 to -4 for AVIF (median -10.5) on the fixtures' photographs
 * (docs/measurements/photos.md); WebP, not a default format, starts from FIRST_GUESS.
 * @type {Partial<Record<PhotoFormat, number>>}
 */
const FROM_ORIGINAL_QUALITY = { jpeg: -1, avif: -10 };
/** Score points per step of quality near the gate, measured on photographs: the search's first estimate of the slope. */
const SLOPE = /** @type {Record<PhotoFormat, number>} */ ({ jpeg: 1, webp: 0.5, avif: 0.6 });
/** The slopes the search extrapolates with, from two of its own measurements, are held to this range (scores are noisy). */
const SLOPE_LIMITS = [0.2, 3];
/**
 * AVIF is searched at effort 3. Up to this many pixels (the widths most visitors are served), effort 4 is then
 * tried one quantizer level below the quality found (avifQualityLevels), and taken when it passes and is
 * smaller.
 * At the gate effort 4 is 0-11% smaller than effort 3 (median 5%; its lowest passing quality lay 0-5 below
 * effort 3's) and each encoding takes six times as long: a second or two at these widths, 25 s at 2400x1600
 * (docs/measurements/photos.md).
 */
const AVIF_EFFORT_4_PIXELS = 500_000;
/** AVIF's encoder effort while searching. */
export const AVIF_SEARCH_EFFORT = 3;
/**
 * A passing score less than this above the gate ends the search: the quality below it is not encoded. Near the gate
 * a step down costs about 0.6 points (AVIF, a quantizer level) and 1 to 1.4 (mozjpeg), so such a neighbour seldom
 * passes: on the fixtures' 38 JPEGs, 3 times in 89. The searches took 11-21% fewer encodings for 0.08-0.25% more
 * bytes (docs/measurements/photos.md).
 */
const PROOF_MARGIN = 0.5;

/**
 * The encoders, as the search runs them and as the result is written: what
 * is scored is what is served. EFFORT is AVIF's (the others have one setting).
 * @type {Record<PhotoFormat, (image: import('sharp').Sharp, quality: number, effort: number) => import('sharp').Sharp>}
 */
export const ENCODE = {
  jpeg: (image, quality) => image.jpeg({ quality, mozjpeg: true }),
  webp: (image, quality) => image.webp({ quality, effort: 4, smartSubsample: true }),
  avif: (image, quality, effort) => image.avif({ quality, effort }),
};

/**
 * Which AVIF qualities give the same encoding. sharp maps a quality to one of
 * the encoder's 64 quantizer levels, so some neighbouring qualities share one
 * (76 and 77, 80 and 81, ...): the search measures each level once, and the
 * effort-4 finish counts levels, not qualities.
 * Found once per thread, by encoding a small noise image, which any change of
 * quantizer changes, at every quality of the range (about 0.3 s).
 * @type {Promise<Map<number, number>> | undefined}
 */
let qualityLevels;

/** Each AVIF quality of QUALITY_RANGE.avif, mapped to the lowest quality of its level. */
function avifQualityLevels() {
  qualityLevels ??= (async () => {
    const side = 64;
    const noise = Buffer.alloc(side * side * 3);
    for (let i = 0, x = 1; i < noise.length; i++) noise[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
    /** @type {Map<number, number>} */
    const levels = new Map();
    let previous = Buffer.alloc(0);
    let lowest = 0;
    const [min, max] = QUALITY_RANGE.avif;
    for (let quality = min; quality <= max; quality++) {
      const encoded = await sharp(noise, { raw: { width: side, height: side, channels: 3 } }).avif({ quality, effort: 0 }).toBuffer();
      if (!encoded.equals(previous)) lowest = quality;
      levels.set(quality, lowest);
      previous = encoded;
    }
    return levels;
  })();
  return qualityLevels;
}

/**
 * @param {{ bytes: Uint8Array, options: PhotoJobOptions }} input
 * @returns {Promise<PhotoResult>}
 */
export async function photo({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return guarded(async () => {
    const type = sniffImageType(bytes);
    if (type !== 'jpeg' && type !== 'webp' && type !== 'avif') return { status: 'kept', reason: `not a lossy photograph (${type ?? 'no image'})`, warnings: [] };
    if (type === 'jpeg' && hasMark(bytes)) return { status: 'kept', reason: 're-encoded by pagediet already', warnings: [] };
    if (type === 'webp') {
      const kind = webpKind(bytes);
      if (kind !== 'lossy') return { status: 'kept', reason: kind === 'lossless' ? 'a lossless WebP: kept pixel-exact' : `an ${kind} WebP: kept as it is`, warnings: [] };
    }
    const meta = await sharp(bytes, { limitInputPixels: options.maxPixels }).metadata();
    if ((meta.pages ?? 1) > 1) return { status: 'kept', reason: `animated (${meta.pages} frames): kept as it is`, warnings: [] };
    const original = await shown(bytes, options.maxPixels);
    if (original.width < 8 || original.height < 8) return { status: 'kept', reason: `too small to measure (${original.width}x${original.height}; the metric needs 8x8)`, warnings: [] };
    const keepProfile = meta.icc !== undefined && !isSrgbProfile(meta.icc);
    const originalQuality = type === 'jpeg' ? jpegQuality(bytes) : null;
    /** @type {PhotoTrial[]} */
    const trials = [];
    /** @type {PhotoVariant[]} */
    const variants = [];
    /** The quality each format passed at, at full size: where the search for the widest smaller size starts. @type {Map<PhotoFormat, number>} */
    const fullSizeQuality = new Map();
    // JPEG has no alpha: a photo with transparency has no JPEG variant; and only a JPEG becomes a JPEG
    // (a WebP or AVIF original stays the fallback of its own sources).
    const jpegAllowed = original.channels !== 4 && type === 'jpeg';
    const fullSizeFormats = options.formats.filter((format) => format !== 'jpeg' || jpegAllowed);
    // Each width in the original's own format too (the fallback's widths), WebP otherwise only where AVIF is not
    // offered: a browser without AVIF takes the fallback's widths.
    const resizedFormats = [...new Set([...options.formats, type])].filter((format) => (format !== 'jpeg' || jpegAllowed) && (format !== 'webp' || type === 'webp' || !options.formats.includes('avif')));
    // The original's half of the metric is computed once for every candidate of every format. The formats are
    // searched together: while one encodes (in libvips' thread), another is scored (in this one).
    // A plain sRGB JPEG's pixels, as the encoder is given them, are decoded (and resized) once for all the candidates
    // of a size: the encodings are the same bytes as from the file, and a JPEG candidate costs a third as much.
    const decodeOnce = type === 'jpeg' && meta.space === 'srgb' && meta.channels === 3 && !keepProfile;
    const target = fullSizeFormats.length ? { scorer: ssimulacra2Scorer(original), width: null, pixelCount: original.width * original.height, source: encoderSource(bytes, null, keepProfile, options.maxPixels, decodeOnce) } : null;
    const found = target ? await Promise.all(fullSizeFormats.map((format) => lowestPassing(target, format, options, firstGuess(format, originalQuality)))) : [];
    for (const [i, format] of fullSizeFormats.entries()) {
      const { trial, variant } = found[i];
      if (trial.quality !== null) fullSizeQuality.set(format, trial.quality);
      trials.push(trial);
      if (variant && variant.bytes.length < bytes.length) variants.push(variant);
    }
    variants.sort((a, b) => a.bytes.length - b.bytes.length);
    /** @type {PhotoVariant[]} */
    const resized = [];
    // Widest first, each size's search starting where the next wider one's ended: neighbouring sizes need
    // nearby qualities more often than the full size and a thumbnail do.
    const widths = candidateWidths(options.sizes ?? [], original.width, original.height).filter((width) => width >= 8 && (original.height * width) / original.width >= 8);
    const nearestWider = new Map(fullSizeQuality);
    for (const width of widths.reverse()) {
      const reference = await shown(bytes, options.maxPixels, width);
      const target = { scorer: ssimulacra2Scorer(reference), width, pixelCount: reference.width * reference.height, source: encoderSource(bytes, width, keepProfile, options.maxPixels, decodeOnce) };
      const found = await Promise.all(resizedFormats.map((format) => lowestPassing(target, format, options, nearestWider.get(format))));
      for (const [i, { trial, variant }] of found.entries()) {
        if (trial.quality !== null) nearestWider.set(resizedFormats[i], trial.quality);
        if (variant) resized.push(variant);
      }
    }
    resized.sort((a, b) => a.width - b.width);
    if (variants.length === 0 && resized.length === 0) {
      const tried = trials.map((t) => (t.bytes === null ? `${t.format} below ${options.score} (best ${t.score?.toFixed(1)})` : `${t.format} ${t.bytes} B`)).join(', ');
      return { status: 'kept', reason: `no re-encoding smaller at SSIMULACRA 2 >= ${options.score} (${bytes.length} B; ${tried})`, trials, warnings: [] };
    }
    return { status: 'converted', originalFormat: type, width: original.width, height: original.height, variants, resized, trials, warnings: [] };
  });
}

/**
 * What every candidate of one size is encoded from: the original upright,
 * resized to WIDTH, with its ICC profile when KEEPPROFILE. With DECODEONCE,
 * those pixels are decoded once, on the first call, and each call gives an
 * image of them; else each call decodes the file again.
 * @param {Buffer} bytes
 * @param {number | null} width
 * @param {boolean} keepProfile
 * @param {number} maxPixels
 * @param {boolean} decodeOnce only where the encoder gets the same pixels either way (an sRGB image, no profile kept)
 * @returns {() => Promise<import('sharp').Sharp>}
 */
function encoderSource(bytes, width, keepProfile, maxPixels, decodeOnce) {
  const fromFile = () => {
    let image = sharp(bytes, { limitInputPixels: maxPixels }).autoOrient();
    if (width) image = image.resize({ width, kernel: 'lanczos3' });
    return keepProfile ? image.keepIccProfile() : image;
  };
  if (!decodeOnce) return async () => fromFile();
  /** @type {Promise<{ data: Buffer, info: import('sharp').OutputInfo }> | undefined} */
  let decoded;
  return async () => {
    decoded ??= fromFile().raw().toBuffer({ resolveWithObject: true });
    const { data, info } = await decoded;
    return sharp(data, { raw: { width: info.width, height: info.height, channels: /** @type {3} */ (info.channels) } });
  };
}

/**
 * The pixels a browser shows: EXIF orientation applied, converted to sRGB
 * through the embedded profile (CMYK through sharp's built-in profile), alpha
 * kept only where some pixel is not opaque.
 * @param {Buffer} bytes
 * @param {number} maxPixels
 * @param {number} [width] resized to this width (lanczos3), as a smaller variant is
 * @returns {Promise<import('../ssimulacra2.js').Ssimulacra2Image>}
 */
async function shown(bytes, maxPixels, width) {
  let image = sharp(bytes, { limitInputPixels: maxPixels }).autoOrient();
  if (width) image = image.resize({ width, kernel: 'lanczos3' });
  const { data, info } = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels === 4) {
    let opaque = true;
    for (let i = 3; i < data.length && opaque; i += 4) opaque = data[i] === 255;
    if (opaque) return shown3(data, info.width, info.height);
  }
  if (info.channels !== 3 && info.channels !== 4) {
    // Grey (1) or grey + alpha (2): as RGB(A), which the metric takes.
    const rgb = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    return { data: rgb.data, width: info.width, height: info.height, channels: /** @type {3 | 4} */ (rgb.info.channels) };
  }
  return { data, width: info.width, height: info.height, channels: /** @type {3 | 4} */ (info.channels) };
}

/**
 * RGBA with every alpha 255, as RGB.
 * @param {Buffer} rgba
 * @param {number} width
 * @param {number} height
 */
function shown3(rgba, width, height) {
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4, o += 3) {
    rgb[o] = rgba[i];
    rgb[o + 1] = rgba[i + 1];
    rgb[o + 2] = rgba[i + 2];
  }
  return { data: rgb, width, height, channels: /** @type {3} */ (3) };
}

/**
 * Where the search for FORMAT starts at the original's size: from the
 * original's own quality when it is a JPEG whose quality is known.
 * @param {PhotoFormat} format
 * @param {number | null} originalQuality
 */
function firstGuess(format, originalQuality) {
  const offset = FROM_ORIGINAL_QUALITY[format];
  if (originalQuality === null || offset === undefined) return FIRST_GUESS[format];
  const [min, max] = QUALITY_RANGE[format];
  return Math.min(max, Math.max(min, originalQuality + offset));
}

/**
 * A low quality of one format whose encoding passes the gate, in as few
 * encodings as the scores allow. Scores rise with quality almost everywhere:
 * from a first guess (the original's own quality, or the quality found at
 * full size), a failing quality is followed by one a step past the gate
 * along the slope of the last two scores; from the lowest passing quality,
 * the search goes down only while the slope predicts the next quality down
 * still passes, and stops at the first that fails, that is predicted to
 * fail, or that passes by less than PROOF_MARGIN. A guess near the gate is
 * one encoding, usually two. What is written was encoded as written and
 * scored. An AVIF of up to AVIF_EFFORT_4_PIXELS is then tried once at
 * effort 4, one level below (see there), which also stands for effort 3's
 * neighbour there.
 * @param {{ scorer: import('../ssimulacra2.js').Ssimulacra2Scorer, pixelCount: number, source: () => Promise<import('sharp').Sharp> }} target
 *   the original's pixels as scored at one size, their count, and what a candidate is encoded from (encoderSource)
 * @param {PhotoFormat} format
 * @param {PhotoJobOptions} options
 * @param {number} [start] the quality to try first (else FIRST_GUESS)
 * @returns {Promise<{ trial: PhotoTrial, variant: PhotoVariant | null }>}
 */
async function lowestPassing({ scorer, pixelCount, source }, format, options, start) {
  const [min, max] = QUALITY_RANGE[format];
  const gate = options.score;
  /** @param {number} quality @param {number} effort AVIF's (ignored by the other encoders) */
  const measure = async (quality, effort) => {
    const encoded = await ENCODE[format](await source(), quality, effort).toBuffer();
    const decoded = await shown(encoded, options.maxPixels);
    return { encoded, score: scorer.score(decoded), width: decoded.width, height: decoded.height };
  };
  /** @typedef {{ encoded: Buffer, score: number, width: number, height: number }} Measured */
  /** AVIF's qualities of one quantizer level give one file: a level measured once serves them all. */
  const levels = format === 'avif' ? await avifQualityLevels() : null;
  const levelOf = (/** @type {number} */ quality) => levels?.get(quality) ?? quality;
  /** The highest quality of the level below QUALITY's (QUALITY - 1 where every quality is a level of its own). */
  const levelBelow = (/** @type {number} */ quality) => levelOf(quality) - 1;
  /** Measured at the search's effort, by level. @type {Map<number, Measured>} */
  const byLevel = new Map();
  /** @param {number} quality */
  const attempt = async (quality) => {
    const level = levelOf(quality);
    const found = byLevel.get(level) ?? (await measure(quality, AVIF_SEARCH_EFFORT));
    byLevel.set(level, found);
    return found.score;
  };
  /** @typedef {{ q: number, score: number }} Point */
  /** The highest quality that failed and the lowest that passed, so far. @type {{ fail: Point | null, pass: Point | null }} */
  const bracket = { fail: null, pass: null };
  /** @param {number} q */
  const tryAt = async (q) => {
    const score = await attempt(q);
    const point = { q, score };
    if (score >= gate) { if (!bracket.pass || q < bracket.pass.q) bracket.pass = point; }
    else if (!bracket.fail || q > bracket.fail.q) bracket.fail = point;
    return point;
  };
  /** The slope between two measurements, held to SLOPE_LIMITS (scores are noisy). @param {Point} a @param {Point} b */
  const slopeOf = (a, b) => Math.min(SLOPE_LIMITS[1], Math.max(SLOPE_LIMITS[0], (b.score - a.score) / (b.q - a.q) || 0));
  let slope = SLOPE[format];
  let last = await tryAt(start ?? FIRST_GUESS[format]);
  // Up, a step past the gate along the slope, until a quality passes or the range ends.
  while (!bracket.pass && last.q < max) {
    const q = Math.min(max, Math.max(last.q + 1, Math.round(last.q + (gate - last.score) / slope) + 1));
    const next = await tryAt(q);
    slope = slopeOf(last, next);
    last = next;
  }
  // An AVIF that gets an effort-4 try has it one level below the lowest passing one: effort 4 scores above effort 3
  // at the same quality (in all 48 pairs measured), so that try also stands for effort 3's failing neighbour.
  const effort4 = format === 'avif' && pixelCount <= AVIF_EFFORT_4_PIXELS;
  // Down, while the slope predicts that the next level down passes too.
  for (let { pass, fail } = bracket; pass; ({ pass, fail } = bracket)) {
    const below = levelBelow(pass.q);
    if (below < min || (fail && below <= fail.q) || pass.score - gate < PROOF_MARGIN) break;
    if (fail) slope = slopeOf(fail, pass);
    const reachable = Math.floor(pass.q - (pass.score - gate) / slope);
    if (reachable > below) break;
    const lowest = Math.max(reachable, fail ? fail.q + 1 : min);
    const q = levelOf(lowest) === levelOf(pass.q) ? below : lowest;
    if (effort4 && levelOf(q) === levelOf(below)) break;
    const next = await tryAt(q);
    if (next.score >= gate) slope = slopeOf(next, pass);
  }
  if (!bracket.pass) {
    const bestScore = Math.max(...[...byLevel.values()].map((t) => t.score));
    return { trial: { format, bytes: null, quality: null, score: round(bestScore) }, variant: null };
  }
  let [q, written] = [bracket.pass.q, AVIF_SEARCH_EFFORT];
  let best = /** @type {Measured} */ (byLevel.get(levelOf(q)));
  if (effort4 && levelBelow(q) >= min) {
    const at = levelBelow(q);
    const measured = await measure(at, 4);
    if (measured.score >= gate && measured.encoded.length < best.encoded.length) [q, written, best] = [at, 4, measured];
  }
  const { encoded: found, score, width: shownWidth, height: shownHeight } = best;
  const encoded = format === 'jpeg' ? withMark(found) : found;
  return { trial: { format, bytes: encoded.length, quality: q, score: round(score) }, variant: { format, width: shownWidth, height: shownHeight, bytes: encoded, quality: q, ...(format === 'avif' && { effort: written }), score: round(score) } };
}

/** @param {number} score */
const round = (score) => Math.round(score * 100) / 100;

/**
 * The comment a re-encoded JPEG carries (a COM segment, 12 bytes), so that
 * building pagediet's output again does not re-encode a re-encoding: the
 * gate compares with the file's own pixels, and losses would add up.
 * AVIF and WebP results are only ever offered beside a fallback, and a
 * choice of formats already offered is left alone (src/passes/photos.js).
 */
const MARK = Buffer.from('pagediet', 'latin1');
const COM_SEGMENT = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, MARK.length + 2]), MARK]);

/** @param {Buffer} jpeg */
function withMark(jpeg) {
  return Buffer.concat([jpeg.subarray(0, 2), COM_SEGMENT, jpeg.subarray(2)]);
}

/**
 * Whether a JPEG carries pagediet's comment, right after its start marker.
 * @param {Buffer} jpeg
 */
export function hasMark(jpeg) {
  return jpeg.length > 2 + COM_SEGMENT.length && jpeg.subarray(2, 2 + COM_SEGMENT.length).equals(COM_SEGMENT);
}

/**
 * Whether a WebP is lossy, lossless or animated, by its chunks (RIFF):
 * 'VP8 ' lossy, 'VP8L' lossless, 'VP8X' an extended file whose chunks tell.
 * @param {Buffer} bytes
 * @returns {'lossy' | 'lossless' | 'animated' | 'unreadable'}
 */
export function webpKind(bytes) {
  for (let at = 12; at + 8 <= bytes.length;) {
    const fourcc = bytes.toString('latin1', at, at + 4);
    if (fourcc === 'VP8 ') return 'lossy';
    if (fourcc === 'VP8L') return 'lossless';
    if (fourcc === 'ANIM' || fourcc === 'ANMF') return 'animated';
    const size = bytes.readUInt32LE(at + 4);
    at += 8 + size + (size & 1);
  }
  return 'unreadable';
}

/**
 * Whether an ICC profile describes sRGB (then browsers show the pixels the
 * same without it): by its description tag, as profiles name themselves.
 * @param {Buffer} icc
 */
function isSrgbProfile(icc) {
  // The 'desc' tag: ASCII in v2 profiles, UTF-16BE in v4's 'mluc' (NULs dropped, the ASCII name remains).
  return /sRGB/i.test(icc.toString('latin1').replace(/\0/g, ''));
}
