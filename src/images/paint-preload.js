/**
 * Preloads for a page whose largest contentful paint is a CSS background
 * image. The browser finds such an image only once the style sheet that
 * draws it has arrived and the element is styled; a
 * `<link rel="preload" as="image">` in the head asks for it while the style
 * sheet is on its way. Each preload offers what Chromium computed for that
 * element at each measured width (src/images/layout.js): the same files, at
 * the same resolutions, of the first type its `image-set()` offers, for the
 * range of widths over which that value holds.
 */
import path from 'node:path';
import { encodePath } from '../site/edits.js';

/**
 * At most this many preloads for one element: a background that changes at
 * more widths than this is left to the style sheet.
 */
export const MAX_PRELOADS = 4;

/**
 * @typedef {object} Offer what one layer of a computed background-image asks for
 * @property {string} type the MIME type its image-set() gives, '' for none
 * @property {[string, number][]} candidates absolute URLs and their resolutions (1 for 1x), ascending
 *
 * @typedef {object} PaintPreload
 * @property {Offer} offer
 * @property {number | null} from the narrowest viewport width it is for, CSS px (null: every narrower one too)
 * @property {number | null} below the viewport width it stops at (null: every wider one too)
 */

/**
 * Splits a CSS value at its top-level commas.
 * @param {string} list
 */
export function topLevelList(list) {
  /** @type {string[]} */
  const out = [];
  let depth = 0;
  let from = 0;
  let quote = '';
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(list.slice(from).trim());
  return out;
}

/** @param {string} quoted a CSS string or url() argument as Chromium serialises it */
function unquote(quoted) {
  return quoted.replace(/\\(.)/g, '$1');
}

/**
 * What one layer of a computed `background-image` asks for, or null for a
 * layer that is no image file (a gradient, `none`) or an image-set() this
 * module does not read.
 * @param {string} layer
 * @returns {Offer | null}
 */
export function offerOf(layer) {
  const plain = /^url\("((?:[^"\\]|\\.)*)"\)$/.exec(layer);
  if (plain) return { type: '', candidates: [[unquote(plain[1]), 1]] };
  const set = /^(?:-webkit-)?image-set\((.*)\)$/s.exec(layer);
  if (!set) return null;
  /** @type {Map<string, [string, number][]>} */
  const byType = new Map();
  for (const option of topLevelList(set[1])) {
    const m = /^(?:url\()?"((?:[^"\\]|\\.)*)"\)?(?:\s+(\d*\.?\d+)(x|dppx))?(?:\s+type\("([^"]*)"\))?$/.exec(option);
    if (!m) return null;
    const type = m[4] ?? '';
    const resolution = m[2] === undefined ? 1 : Number(m[2]);
    let candidates = byType.get(type);
    if (!candidates) byType.set(type, (candidates = []));
    if (!candidates.some(([, r]) => r === resolution)) candidates.push([unquote(m[1]), resolution]);
  }
  const [first] = byType;
  if (!first) return null;
  return { type: first[0], candidates: first[1].sort((a, b) => a[1] - b[1]) };
}

/**
 * The preloads for an element whose background is the page's largest
 * contentful paint at the widths in PAINTED.
 * @param {{ viewport: number, background: string }[]} measured the element's computed background-image at each measured width, ascending
 * @param {string} paintedUrl the image Chromium named (absolute)
 * @param {number[]} painted the widths at which Chromium named it
 * @param {{ andWider?: boolean }} [options] andWider: the widest of PAINTED stands for every wider width too (the widest
 *   width probed: a wider screen shows the same first view, larger)
 * @returns {PaintPreload[]} for the widths from the narrowest painted to the widest (every narrower one when the
 *   narrowest is the narrowest measured); none when the paint's layer cannot be read there, or more than MAX_PRELOADS are needed
 */
export function paintPreloads(measured, paintedUrl, painted, { andWider = false } = {}) {
  const at = measured.find((m) => m.viewport === painted[0]);
  if (!at) return [];
  const layerIndex = topLevelList(at.background).findIndex((layer) => offerOf(layer) !== null && layer.includes(JSON.stringify(paintedUrl)));
  if (layerIndex < 0) return [];
  const offers = measured.map((m) => {
    const layers = topLevelList(m.background);
    return layers.length > layerIndex ? offerOf(layers[layerIndex]) : null;
  });
  // Runs of neighbouring widths that ask for the same files.
  /** @type {{ first: number, last: number, offer: Offer | null }[]} */
  const runs = [];
  offers.forEach((offer, i) => {
    const run = runs[runs.length - 1];
    if (run && JSON.stringify(run.offer) === JSON.stringify(offer)) run.last = i;
    else runs.push({ first: i, last: i, offer });
  });
  const widths = measured.map((m) => m.viewport);
  const lowest = Math.min(...painted);
  const highest = andWider ? Infinity : Math.max(...painted);
  const chosen = runs.filter((run) => widths[run.last] >= lowest && widths[run.first] <= highest);
  if (chosen.length > MAX_PRELOADS || chosen.some((run) => !run.offer)) return [];
  return chosen.map((run) => ({
    offer: /** @type {Offer} */ (run.offer),
    from: run.first === 0 ? null : widths[run.first],
    below: run.last === measured.length - 1 ? null : widths[run.last + 1],
  }));
}

/**
 * A `<link rel="preload">` for a page, its URLs relative to the page's
 * folder, or null when an image is not the site's.
 * @param {PaintPreload} preload
 * @param {string} page the page's site path
 * @param {string} origin the origin the site was served from when measured
 * @returns {{ html: string, targets: string[] } | null} the markup and the site paths it asks for
 */
export function preloadLink({ offer, from, below }, page, origin) {
  /** @type {string[]} */
  const targets = [];
  /** @type {string[]} */
  const urls = [];
  for (const [absolute] of offer.candidates) {
    const found = fromPage(absolute, page, origin);
    if (!found) return null;
    targets.push(found.target);
    urls.push(found.url);
  }
  let html = `<link rel="preload" as="image"${attribute('href', urls[0])}`;
  if (urls.length > 1) html += attribute('imagesrcset', urls.map((u, i) => `${u} ${offer.candidates[i][1]}x`).join(', '));
  if (offer.type) html += attribute('type', offer.type);
  const media = [from !== null && `(width >= ${from}px)`, below !== null && `(width < ${below}px)`].filter(Boolean).join(' and ');
  if (media) html += attribute('media', media);
  html += ' fetchpriority="high">';
  return { html, targets };
}

/**
 * An attribute of a start tag, its value escaped.
 * @param {string} name
 * @param {string} value
 */
export function attribute(name, value) {
  return ` ${name}="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`;
}

/**
 * A URL of the site as measured (absolute, on ORIGIN) as the site path it
 * names and a URL relative to the page's folder, or null for another origin.
 * @param {string} absolute
 * @param {string} page the page's site path
 * @param {string} origin the origin the site was served from when measured
 * @returns {{ target: string, url: string } | null}
 */
export function fromPage(absolute, page, origin) {
  const url = new URL(absolute);
  if (url.origin !== origin) return null;
  let target;
  try {
    target = decodeURIComponent(url.pathname).slice(1);
  } catch {
    return null;
  }
  const dir = path.posix.dirname(page);
  return { target, url: encodePath(path.posix.relative(dir === '.' ? '' : dir, target)) + url.search };
}
