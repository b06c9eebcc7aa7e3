/**
 * The boxes the proof draws an SVG file in: its natural box, and a probe for
 * each element with an id that something outside uses, drawn as it is used.
 */
import { slots } from './proof.js';

/** The box a probe of a clip path, mask, filter or paint server is drawn in, and the largest a <use> of an element is. */
export const PROBE_SIZE = 96;
const MAX_PROBE_SIDE = 512;

/**
 * How an element with an id is drawn when something outside uses it; null
 * for elements that draw nothing by themselves (titles, styles, markers).
 * @param {string} name the element's name
 * @param {string} fragment '#id', URL-encoded
 * @param {{ width: number, height: number, viewBox?: string }} natural the drawing's own box
 * @param {string} [viewBox] the element's own viewBox (a symbol's)
 * @returns {((url: string) => string) | null}
 */
export function probeFor(name, fragment, natural, viewBox) {
  const box = { width: PROBE_SIZE, height: PROBE_SIZE };
  switch (name) {
    case 'clipPath': return (url) => slots.css('clip-path', url + fragment, box);
    case 'mask': return (url) => slots.css('mask', url + fragment, box);
    case 'filter': return (url) => slots.css('filter', url + fragment, box);
    case 'linearGradient': case 'radialGradient': case 'pattern': return (url) => slots.paint(url + fragment, box);
    case 'view': return (url) => slots.image(url + fragment);
    case 'title': case 'desc': case 'style': case 'script': case 'metadata': case 'marker': case 'defs': case 'font': case 'font-face': case 'glyph': return null;
    case 'symbol': {
      const own = viewBoxSize(viewBox);
      return (url) => slots.use(url + fragment, own ? { ...fit(own), symbol: true } : natural);
    }
    default: return (url) => slots.use(url + fragment, natural);
  }
}

/**
 * The box an SVG draws in by itself: its width and height in px, else its
 * viewBox's, else 300x150 (CSS's default object size), at most MAX_PROBE_SIDE.
 * @param {{ width?: string, height?: string, viewBox?: string }} root
 * @returns {{ width: number, height: number, viewBox?: string }}
 */
export function naturalBox(root) {
  const px = (/** @type {string | undefined} */ v) => (v && /^\s*[\d.]+(?:px)?\s*$/.test(v) ? Number.parseFloat(v) : NaN);
  const vb = viewBoxSize(root.viewBox);
  let width = px(root.width);
  let height = px(root.height);
  if (!(width > 0) || !(height > 0)) ({ width, height } = vb ?? { width: 300, height: 150 });
  return { ...fit({ width, height }), viewBox: vb ? root.viewBox : undefined };
}

/** @param {string | undefined} viewBox @returns {{ width: number, height: number } | null} */
function viewBoxSize(viewBox) {
  const n = (viewBox ?? '').trim().split(/[\s,]+/).map(Number);
  return n.length === 4 && n[2] > 0 && n[3] > 0 ? { width: n[2], height: n[3] } : null;
}

/** A box scaled down to fit MAX_PROBE_SIDE, in whole px. @param {{ width: number, height: number }} box */
function fit({ width, height }) {
  const scale = Math.min(1, MAX_PROBE_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
