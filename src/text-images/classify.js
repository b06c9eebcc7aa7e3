/**
 * What an image's pixels are, before anything is rendered: a spacer (fully
 * transparent, or one colour), a rule (bands of colour across its length), or
 * ink of one colour on one background with only the anti-aliasing ramp
 * between them (a symbol when small, text otherwise). Anything else (more
 * colours, gradients, outlines, shadows, photographs) is a picture and stays.
 */
import { colourDistance, coverageOf, inkBox } from './pixels.js';

/**
 * @typedef {import('./pixels.js').Rgb} Rgb
 * @typedef {import('./pixels.js').Rgba} Rgba
 * @typedef {import('./pixels.js').Box} Box
 *
 * @typedef {{ kind: 'spacer', colour: Rgb | null }} Spacer colour null: transparent
 * @typedef {{ kind: 'rule', direction: 'horizontal' | 'vertical', bands: { colour: Rgb, size: number }[] }} Rule bands top to bottom or left to right
 * @typedef {object} Ink
 * @property {'symbol' | 'text'} kind
 * @property {Rgb} bg the background, or the matte the edges were blended with when it is transparent
 * @property {boolean} transparent whether the background is transparent
 * @property {Rgb} fg
 * @property {Box} ink
 * @property {number} residual largest distance of a pixel from the bg-fg ramp (RGB units)
 * @typedef {Spacer | Rule | Ink | { kind: 'picture', reason: string }} Classification
 */

/** Images up to this size on both sides are symbols (bullets, arrows), larger ones text. */
export const SYMBOL_MAX_SIDE = 16;
/** A pixel further than this from the ramp (RGB units, 0-441) is not anti-aliasing. */
export const RAMP_TOLERANCE = 28;
/** Share of pixels that may be off the ramp (stray dithering). */
const OFF_RAMP_SHARE = 0.005;
/** Rules are at most this thick. */
const RULE_MAX_THICKNESS = 4;

/**
 * @param {Rgba} img
 * @returns {Classification}
 */
export function classifyPixels(img) {
  const { width, height, data } = img;
  const n = width * height;
  /** @type {Map<number, number>} opaque colour → count */
  const counts = new Map();
  let transparent = 0;
  for (let i = 0; i < n; i++) {
    if (data[i * 4 + 3] < 128) { transparent++; continue; }
    const key = (data[i * 4] << 16) | (data[i * 4 + 1] << 8) | data[i * 4 + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (transparent === n) return { kind: 'spacer', colour: null };
  if (counts.size === 1 && transparent === 0) return { kind: 'spacer', colour: rgbOf([...counts.keys()][0]) };
  if (transparent > 0 && hasPartialAlpha(img)) return { kind: 'picture', reason: 'partly transparent pixels (alpha blending)' };
  if (transparent === 0) {
    const rule = ruleOf(img);
    if (rule) return rule;
  }
  // A cheap early out: anti-aliased truecolour text has at most a few hundred colours on its ramp.
  if (counts.size > 512) return { kind: 'picture', reason: `${counts.size} colours` };

  const colours = [...counts.entries()].map(([key, count]) => ({ rgb: rgbOf(key), count })).sort((a, b) => b.count - a.count);
  /** @type {Rgb} */
  let bg;
  /** @type {Rgb} */
  let fg;
  if (transparent > 0) {
    // Transparent background: the ink colour is the commonest, and the matte is where the ramp points.
    fg = colours[0].rgb;
    bg = matteOf(fg, colours.map((c) => c.rgb));
  } else {
    const border = borderColour(img);
    if (!border) return { kind: 'picture', reason: 'no single background colour at the edges' };
    bg = border;
    const others = colours.filter((c) => colourDistance(c.rgb, bg) > 0);
    if (!others.length) return { kind: 'spacer', colour: bg };
    const commonest = Math.max(...others.map((c) => c.count));
    // The foreground: the colour furthest from the background among those common enough not to be strays
    // (the ramp's mid-tones lie between the two, and with few levels they can outnumber the ink itself).
    const common = others.filter((c) => c.count >= Math.max(2, commonest * 0.2));
    fg = (common.length ? common : others).sort((a, b) => colourDistance(b.rgb, bg) - colourDistance(a.rgb, bg))[0].rgb;
  }
  const { coverage, residuals } = coverageOf(img, bg, fg);
  let off = 0;
  let residual = 0;
  for (let i = 0; i < n; i++) {
    if (residuals[i] > RAMP_TOLERANCE) off++;
    residual = Math.max(residual, residuals[i]);
  }
  if (off > n * OFF_RAMP_SHARE) return { kind: 'picture', reason: `${off} of ${n} pixels are neither background, ink nor between them` };
  const ink = inkBox(coverage);
  if (!ink) return { kind: 'spacer', colour: transparent ? null : bg };
  return { kind: width <= SYMBOL_MAX_SIDE && height <= SYMBOL_MAX_SIDE ? 'symbol' : 'text', bg, fg, transparent: transparent > 0, ink, residual: Math.round(residual) };
}

/** @param {number} key @returns {Rgb} */
function rgbOf(key) {
  return [(key >> 16) & 255, (key >> 8) & 255, key & 255];
}

/** @param {Rgba} img */
function hasPartialAlpha(img) {
  for (let i = 3; i < img.data.length; i += 4) if (img.data[i] !== 0 && img.data[i] !== 255) return true;
  return false;
}

/**
 * The colour most of the edge pixels have, when at least 90% do.
 * @param {Rgba} img
 * @returns {Rgb | null}
 */
function borderColour(img) {
  /** @type {Map<number, number>} */
  const counts = new Map();
  let total = 0;
  const add = (/** @type {number} */ x, /** @type {number} */ y) => {
    const i = (y * img.width + x) * 4;
    const key = (img.data[i] << 16) | (img.data[i + 1] << 8) | img.data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
    total++;
  };
  for (let x = 0; x < img.width; x++) { add(x, 0); add(x, img.height - 1); }
  for (let y = 1; y < img.height - 1; y++) { add(0, y); add(img.width - 1, y); }
  const [key, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  return count >= total * 0.9 ? rgbOf(key) : null;
}

/**
 * The colour a transparent image's edges were blended with: the partly
 * covered pixels lie between the ink and the matte, so the matte is found by
 * following the palest of them away from the ink to the edge of the RGB cube.
 * With no mid-tones there is nothing to blend: white.
 * @param {Rgb} fg
 * @param {Rgb[]} colours
 * @returns {Rgb}
 */
export function matteOf(fg, colours) {
  let palest = null;
  let distance = 0;
  for (const c of colours) {
    const d = colourDistance(c, fg);
    if (d > distance) { distance = d; palest = c; }
  }
  if (!palest) return [255, 255, 255];
  const dir = [palest[0] - fg[0], palest[1] - fg[1], palest[2] - fg[2]];
  let scale = Infinity;
  for (let c = 0; c < 3; c++) {
    if (dir[c] > 0) scale = Math.min(scale, (255 - fg[c]) / dir[c]);
    if (dir[c] < 0) scale = Math.min(scale, -fg[c] / dir[c]);
  }
  // Extrapolation is off by a unit or two: snap to the web-safe value (a multiple of 51) when that near.
  return /** @type {Rgb} */ (fg.map((v, c) => {
    const value = Math.max(0, Math.min(255, Math.round(v + dir[c] * scale)));
    const safe = Math.round(value / 51) * 51;
    return Math.abs(safe - value) <= 3 ? safe : value;
  }));
}

/**
 * A rule: a thin image whose rows (or columns) are each one colour.
 * @param {Rgba} img
 * @returns {Rule | null}
 */
function ruleOf(img) {
  const horizontal = img.height <= RULE_MAX_THICKNESS && img.width >= 4 * img.height;
  const vertical = img.width <= RULE_MAX_THICKNESS && img.height >= 4 * img.width;
  if (!horizontal && !vertical) return null;
  const lines = horizontal ? img.height : img.width;
  const length = horizontal ? img.width : img.height;
  /** @type {{ colour: Rgb, size: number }[]} */
  const bands = [];
  for (let l = 0; l < lines; l++) {
    const at = (/** @type {number} */ k) => (horizontal ? (l * img.width + k) : (k * img.width + l)) * 4;
    const first = at(0);
    for (let k = 1; k < length; k++) {
      const i = at(k);
      if (img.data[i] !== img.data[first] || img.data[i + 1] !== img.data[first + 1] || img.data[i + 2] !== img.data[first + 2]) return null;
    }
    /** @type {Rgb} */
    const colour = [img.data[first], img.data[first + 1], img.data[first + 2]];
    const last = bands[bands.length - 1];
    if (last && colourDistance(last.colour, colour) === 0) last.size++;
    else bands.push({ colour, size: 1 });
  }
  return bands.length <= 3 ? { kind: 'rule', direction: horizontal ? 'horizontal' : 'vertical', bands } : null;
}
