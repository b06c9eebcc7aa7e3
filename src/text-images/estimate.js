/**
 * Style estimation by rendering: the text (or each candidate symbol) is drawn
 * with sharp (Pango and FreeType, through fontconfig's generic families, as
 * the browser's are) in every candidate face and size near the one the ink's
 * height suggests, and the candidate whose ink matches the image's best wins.
 */
import sharp from 'sharp';
import { inkBox, inkSimilarity } from './pixels.js';

/**
 * @typedef {import('./pixels.js').Coverage} Coverage
 * @typedef {import('./pixels.js').Box} Box
 *
 * @typedef {object} Face
 * @property {string} name the font family the text was matched in
 * @property {'sans-serif' | 'serif' | 'monospace'} family its CSS generic family, the fallback
 * @property {'normal' | 'bold'} weight
 * @property {'normal' | 'italic'} style italic also selects an oblique face (DejaVu Sans has only that)
 *
 * @typedef {Face & { size: number, text: string, score: number }} StyleEstimate size in CSS px; score: ink similarity 0-1
 */

/**
 * The families text images are matched against, with their generic family.
 * Named, not generic: Chromium maps sans-serif to its own choice (Liberation
 * Sans here, Arial elsewhere), not to fontconfig's, so the replacement names
 * the family that matched and falls back to the generic one. DejaVu is what
 * Linux desktops (and Pango) draw with; Liberation has Arial's, Times' and
 * Courier's metrics, the faces of most text images of the 1990s.
 */
export const FAMILIES = /** @type {const} */ ([
  ['DejaVu Sans', 'sans-serif'], ['DejaVu Serif', 'serif'], ['DejaVu Sans Mono', 'monospace'],
  ['Liberation Sans', 'sans-serif'], ['Liberation Serif', 'serif'], ['Liberation Mono', 'monospace'],
]);

/**
 * What a replacement's font names after the family it matched, for visitors
 * without that family: Liberation's are metric-compatible with Arial, Times
 * New Roman and Courier New (Windows and macOS have them; Linux maps those
 * names back to Liberation), Menlo is DejaVu Sans Mono's metrics under another
 * name (macOS), and Verdana is the nearest to DejaVu Sans that Windows and
 * macOS have (Bitstream Vera, DejaVu's base, was drawn to its proportions; not
 * metric-identical). DejaVu Serif has no such peer: its visitors elsewhere get
 * the generic serif. The replacement's box keeps the image's size whatever
 * font draws it, so the page's layout does not depend on the font.
 * @type {Record<string, string[]>}
 */
export const FALLBACK_FAMILIES = {
  'DejaVu Sans': ['Verdana'],
  'DejaVu Serif': [],
  'DejaVu Sans Mono': ['Menlo'],
  'Liberation Sans': ['Arial'],
  'Liberation Serif': ['Times New Roman'],
  'Liberation Mono': ['Courier New'],
};

/** Every face a text image is tried in. */
export const TEXT_FACES = /** @type {Face[]} */ (FAMILIES.flatMap(([name, family]) => ['normal', 'bold'].flatMap((weight) => ['normal', 'italic'].map((style) => ({ name, family, weight, style })))));

/** Faces a symbol is tried in: symbols rarely differ by slant, and DejaVu has the glyphs other fonts borrow. */
const SYMBOL_FACES = /** @type {Face[]} */ ([
  { name: 'DejaVu Sans', family: 'sans-serif', weight: 'normal', style: 'normal' },
  { name: 'DejaVu Sans', family: 'sans-serif', weight: 'bold', style: 'normal' },
  { name: 'DejaVu Serif', family: 'serif', weight: 'normal', style: 'normal' },
]);

/** The characters a symbol image may be: bullets, squares, arrows, check marks, stars. */
export const SYMBOLS = ['\u25cf', '\u2022', '\u25a0', '\u25aa', '\u25ba', '\u25b6', '\u2192', '\u2713', '\u2714', '\u25b2', '\u25bc', '\u25c4', '\u2190', '\u25c6', '\u2605', '\u25cb', '\u25a1', '\u00bb', '\u203a', '\u2717', '\u21d2', '+', '\u00d7'];

/**
 * The most pixels a drawing may have along either side. cairo refuses a
 * surface over 32,767 px ("invalid value (typically too big) for the size of
 * the input"), and libvips asks for one as large as the whole text: 64 lines
 * of 300 px titles, three sizes apart, are 60,000 px tall. Half that keeps a
 * margin for the estimates of a line's extent, and a drawing's memory small
 * (a worker holds a few of them, 4 bytes a pixel).
 */
const MAX_DRAWING_PX = 16_384;

/** The widest advance of these faces' glyphs, in em, with a margin (W, M and dashes in bold are about 1.2). */
const WIDEST_ADVANCE = 1.25;

/** Size used to learn each face's ink height for a text. */
const REFERENCE_SIZE = 40;

/** Texts longer than this (an ALT that describes, not transcribes) are not what a text image shows: not drawn. */
const MAX_TEXT_CHARACTERS = 500;

/**
 * The reference size for a text: REFERENCE_SIZE, or smaller for a text so
 * long (an ALT of a few hundred characters) that it would not fit in a
 * drawing at that size; its width at the guessed size then rules it out.
 * @param {string} text
 */
function referenceSize(text) {
  const characters = [...text].length;
  return Math.max(4, Math.min(REFERENCE_SIZE, Math.floor((MAX_DRAWING_PX - 2 * REFERENCE_SIZE) / (WIDEST_ADVANCE * characters + 1))));
}

/**
 * Renders kept in this thread, newest last, up to this many bytes (a byte a
 * pixel). Sites repeat their words and symbols (every bullet image tries the
 * same 23 symbols in the same faces and sizes; every symbol in every size
 * tried takes 0.13 MB), and a render is the plan's largest cost: libvips
 * draws one text at a time per process, under a lock, so two pool threads
 * rendering wait on each other. 8 MB was too few for the generated 300-page site's words (plans
 * 45 s against 19 s).
 */
const RENDER_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * The renders are forgotten once the thread has drawn nothing for this long:
 * plans come in one batch, and a pool thread lives on through the fits that
 * follow, beside Chromium (docs/scaling.md).
 */
const RENDER_CACHE_IDLE_MS = 2000;
/**
 * Kept as bytes, a quarter of the coverage's size: every coverage drawn is a
 * byte over 255, which the Float32 made from it again gives back exactly.
 * Sites cycle through their images, so their drawings come back in the same
 * cycle: a cache smaller than the cycle's drawings finds none of them
 * (fixtures/microscape's take 37.6 MB as coverage, 9.4 MB as bytes).
 * @type {Map<string, { width: number, height: number, data: Uint8Array }>}
 */
const rendered = new Map();
let renderedBytes = 0;
/** @type {NodeJS.Timeout | undefined} */
let forgetTimer;

function forgetRenders() {
  rendered.clear();
  renderedBytes = 0;
}

/**
 * @typedef {{ text: string, face: Face, size: number, letterSpacing?: number }} RenderRequest size in CSS px, letter spacing in px
 */

/** At most this many texts are drawn in one call. */
const LINES_PER_DRAW = 64;


/**
 * A text that cannot be drawn: larger than a drawing may be, or refused by
 * Pango or cairo. The plan keeps its image, with a warning.
 */
export class TextDrawError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'TextDrawError';
  }
}

/**
 * Draws many texts, each in its face, size and spacing: coverage 0-1 per
 * pixel. A result is shared with later calls for the same text, face, size
 * and spacing: read it, do not change it. The thread's renders are taken
 * where it has them, and the rest drawn a few dozen lines per call: a call
 * costs about 4 ms however little it draws, and a text image's estimate
 * draws up to 170 texts. Each line of a call is the same pixels as the text
 * drawn alone (Pango lays out every line from the left edge, at whole
 * pixels), cut out at its ink; where the lines cannot be told apart (a text
 * that draws no ink), each text of that call is drawn alone.
 * @param {RenderRequest[]} requests
 * @returns {Promise<Readonly<Coverage>[]>} in the requests' order
 */
export async function renderTexts(requests) {
  if (forgetTimer) forgetTimer.refresh();
  else forgetTimer = setTimeout(forgetRenders, RENDER_CACHE_IDLE_MS).unref();
  const lines = requests.map(pangoLine);
  /** @type {Map<string, Coverage>} this call's results, whatever the cache forgets meanwhile */
  const found = new Map();
  /** @type {Map<string, PangoLine>} the lines to draw, once each */
  const missing = new Map();
  for (const line of lines) {
    if (found.has(line.key) || missing.has(line.key)) continue;
    const kept = rendered.get(line.key);
    if (kept) {
      rendered.delete(line.key);
      rendered.set(line.key, kept);
      found.set(line.key, fromBytes(kept));
    } else {
      missing.set(line.key, line);
    }
  }
  for (const chunk of drawingChunks([...missing.values()])) {
    const drawn = (chunk.length > 1 && await drawLines(chunk).catch(() => null)) || await Promise.all(chunk.map(drawLine));
    chunk.forEach((line, j) => {
      found.set(line.key, drawn[j]);
      remember(line.key, drawn[j]);
    });
  }
  return lines.map(({ key }) => /** @type {Coverage} */ (found.get(key)));
}

/**
 * @typedef {{ key: string, markup: string, size: number, width: number }} PangoLine a text's Pango markup, the key of its
 *   render, its size, and a generous estimate of its width in px
 */

/**
 * Lines drawn together, in their order: up to LINES_PER_DRAW a call, and no
 * more than fit in a drawing of MAX_DRAWING_PX (drawLines spaces lines by
 * three times the largest size); a line too wide for a drawing of its own
 * makes a call of its own, where drawLine refuses it.
 * @param {PangoLine[]} lines
 * @returns {PangoLine[][]}
 */
function drawingChunks(lines) {
  /** @type {PangoLine[][]} */
  const chunks = [];
  /** @type {PangoLine[]} */
  let chunk = [];
  let largest = 0;
  for (const line of lines) {
    const size = Math.max(largest, line.size);
    const alone = line.width > MAX_DRAWING_PX || lineHeight(line.size) > MAX_DRAWING_PX;
    if (chunk.length && (alone || chunk.length >= LINES_PER_DRAW || (chunk.length + 1) * lineHeight(size) > MAX_DRAWING_PX)) {
      chunks.push(chunk);
      chunk = [];
      largest = 0;
    }
    if (alone) {
      chunks.push([line]);
      continue;
    }
    chunk.push(line);
    largest = Math.max(largest, line.size);
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

/**
 * The height a line takes in drawLines' drawing, with room to spare: its
 * spacing and the line itself (1.17 em in DejaVu, 1.15 in Liberation).
 * @param {number} size
 */
function lineHeight(size) {
  return 3 * size + 8 + 2 * size;
}

/**
 * One text drawn alone, unless it is too large for any drawing.
 * @param {PangoLine} line
 * @returns {Promise<Coverage>}
 */
async function drawLine(line) {
  if (line.width > MAX_DRAWING_PX || lineHeight(line.size) > MAX_DRAWING_PX) {
    throw new TextDrawError(`its text at ${line.size} px would be about ${line.width} px wide, over the ${MAX_DRAWING_PX} px a drawing may be`);
  }
  try {
    return await drawMarkup(line.markup);
  } catch (error) {
    throw new TextDrawError(`Pango could not draw its text at ${line.size} px (${String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0]})`);
  }
}

/**
 * A text's Pango markup, and the key of its render.
 * @param {RenderRequest} request
 * @returns {PangoLine}
 */
function pangoLine({ text, face, size, letterSpacing = 0 }) {
  // Pango's letter spacing is in 1/1024 of a point; a point is a pixel at 72 dpi.
  const spacing = Math.round(letterSpacing * 1024);
  const description = [`${face.name},`, face.weight === 'bold' ? 'Bold' : '', face.style === 'italic' ? 'Italic' : '', `${size}px`].filter(Boolean).join(' ');
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const characters = [...text].length;
  const width = Math.ceil(characters * (WIDEST_ADVANCE * size + Math.max(0, letterSpacing)) + size);
  return { key: `${spacing}\0${description}\0${text}`, markup: `<span font="${description}"${spacing ? ` letter_spacing="${spacing}"` : ''}>${escaped}</span>`, size, width };
}

/** @param {string} key @param {Coverage} coverage */
function remember(key, coverage) {
  const bytes = new Uint8Array(coverage.data.length);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.round(coverage.data[i] * 255);
  rendered.set(key, { width: coverage.width, height: coverage.height, data: bytes });
  renderedBytes += bytes.byteLength;
  for (const [oldest, { data: old }] of rendered) {
    if (renderedBytes <= RENDER_CACHE_BYTES) break;
    rendered.delete(oldest);
    renderedBytes -= old.byteLength;
  }
}

/**
 * A kept drawing as the coverage it was drawn as.
 * @param {{ width: number, height: number, data: Uint8Array }} kept
 * @returns {Coverage}
 */
function fromBytes({ width, height, data }) {
  const coverage = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) coverage[i] = data[i] / 255;
  return { width, height, data: coverage };
}

/**
 * One text drawn alone, by its own call and not kept: what renderTexts'
 * lines must equal.
 * @param {RenderRequest} request
 */
export function drawAlone(request) {
  return drawLine(pangoLine(request));
}

/**
 * Pango markup drawn: libvips crops the picture to its ink on the left and
 * top (sometimes a column or a row wider on the right or bottom).
 * @param {string} markup
 * @returns {Promise<Coverage>}
 */
async function drawMarkup(markup) {
  const { data, info } = await sharp({ text: { text: markup, dpi: 72, rgba: false } }).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const coverage = new Float32Array(info.width * info.height);
  for (let i = 0; i < coverage.length; i++) coverage[i] = data[i] / 255;
  return { width: info.width, height: info.height, data: coverage };
}

/**
 * Texts drawn one per line in one call, cut apart at the blank rows between
 * them (lines far apart: three times the largest size, where a line's own
 * gaps, between an accent and its letter, are under half a size), each cut
 * to its ink. Null when the rows of ink do not make one group per line.
 * @param {PangoLine[]} lines
 * @returns {Promise<Coverage[] | null>}
 */
async function drawLines(lines) {
  const largest = Math.max(...lines.map((l) => l.size));
  const { data, info } = await sharp({ text: { text: lines.map((l) => l.markup).join('\n'), dpi: 72, rgba: false, spacing: 3 * largest + 8 } })
    .extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  /** @type {[number, number][]} rows [top, bottom) of each line's ink */
  const groups = [];
  let lastInk = -Infinity;
  for (let y = 0; y < height; y++) {
    let ink = false;
    for (let i = y * width, end = i + width; i < end; i++) {
      if (data[i] !== 0) {
        ink = true;
        break;
      }
    }
    if (!ink) continue;
    if (groups.length && y - lastInk <= largest + 4) groups[groups.length - 1][1] = y + 1;
    else groups.push([y, y + 1]);
    lastInk = y;
  }
  if (groups.length !== lines.length) return null;
  return groups.map(([top, bottom]) => {
    let left = width;
    let right = 0;
    for (let y = top; y < bottom; y++) {
      for (let x = 0; x < width; x++) {
        if (data[y * width + x] === 0) continue;
        if (x < left) left = x;
        if (x >= right) right = x + 1;
      }
    }
    const w = right - left;
    const h = bottom - top;
    const coverage = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) coverage[y * w + x] = data[(top + y) * width + left + x] / 255;
    return { width: w, height: h, data: coverage };
  });
}

/**
 * The best face and size for a text (or each symbol) over an image's ink.
 * Every face's renders of one size step are drawn together (renderTexts).
 * @param {Coverage} image
 * @param {Box} ink
 * @param {string[]} texts candidates: the text from ALT or OCR, or the symbols
 * @param {{ faces?: Face[], spread?: number }} [options] spread: sizes tried either side of the estimate
 * @returns {Promise<StyleEstimate[]>} best first, one per text and face
 */
export async function estimateStyle(image, ink, texts, options = {}) {
  const faces = options.faces ?? TEXT_FACES;
  const spread = options.spread ?? 1;
  const inkHeight = ink.bottom - ink.top;
  const inkWidth = ink.right - ink.left;
  /** @type {StyleEstimate[]} */
  const results = [];
  for (const text of texts) {
    if (!text.trim() || [...text].length > MAX_TEXT_CHARACTERS) continue;
    const reference = referenceSize(text);
    const references = await renderTexts(faces.map((face) => ({ text, face, size: reference })));
    /**
     * Each face that draws the text, with the sizes tried near its guess (none when its width is far off).
     * @type {{ face: Face, guess: number, trials: { face: Face, size: number, score: number, spaced?: RenderRequest }[] }[]}
     */
    const tried = [];
    faces.forEach((face, i) => {
      const refBox = inkBox(references[i]);
      if (!refBox) return;
      const guess = Math.round(reference * inkHeight / (refBox.bottom - refBox.top));
      // The text's width at that size, from the reference: far off means another text or face.
      const widthAtGuess = (refBox.right - refBox.left) * guess / reference;
      const trials = [];
      if (Math.abs(widthAtGuess - inkWidth) <= Math.max(4, inkWidth * 0.35)) {
        for (let size = Math.max(4, guess - spread); size <= guess + spread; size++) trials.push({ face, size, score: 0 });
      }
      tried.push({ face, guess, trials });
    });
    const trials = tried.flatMap((t) => t.trials);
    const characters = [...text].length;
    const drawn = await renderTexts(trials.map(({ face, size }) => ({ text, face, size })));
    trials.forEach((trial, i) => {
      const box = inkBox(drawn[i]);
      if (!box) return;
      trial.score = bestAlignment(image, drawn[i], ink.left - box.left, ink.top - box.top);
      // Other renderers place glyphs at other (unhinted, fractional) advances: a word drifts by a pixel
      // every few letters. Spacing the letters to the image's ink width takes the drift out.
      if (characters > 1 && Math.abs(box.right - box.left - inkWidth) >= 2) {
        trial.spaced = { text, face: trial.face, size: trial.size, letterSpacing: (inkWidth - (box.right - box.left)) / (characters - 1) };
      }
    });
    const respaced = trials.filter((t) => t.spaced);
    const spacedDrawn = await renderTexts(respaced.map((t) => /** @type {RenderRequest} */ (t.spaced)));
    respaced.forEach((trial, i) => {
      const box = inkBox(spacedDrawn[i]);
      if (box) trial.score = Math.max(trial.score, bestAlignment(image, spacedDrawn[i], ink.left - box.left, ink.top - box.top));
    });
    for (const { face, guess, trials: own } of tried) {
      let best = { ...face, size: guess, text, score: 0 };
      for (const { size, score } of own) if (score > best.score) best = { ...face, size, text, score };
      results.push(best);
    }
  }
  return results.sort((a, b) => b.score - a.score);
}

/**
 * The best symbol character, face and size for a small image.
 * @param {Coverage} image
 * @param {Box} ink
 */
export function estimateSymbol(image, ink) {
  return estimateStyle(image, ink, SYMBOLS, { faces: SYMBOL_FACES, spread: 2 });
}

/**
 * Ink similarity at the best of the offsets within a pixel of (dx, dy).
 * @param {Coverage} image
 * @param {Coverage} drawn
 * @param {number} dx
 * @param {number} dy
 */
function bestAlignment(image, drawn, dx, dy) {
  let best = 0;
  for (let oy = -1; oy <= 1; oy++) for (let ox = -1; ox <= 1; ox++) best = Math.max(best, inkSimilarity(image, drawn, dx + ox, dy + oy));
  return best;
}
