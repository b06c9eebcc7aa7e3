/**
 * Which image of a choice a browser fetches: a <picture>'s sources and its
 * <img>, an <img>'s src and srcset, a CSS image-set()'s entries. The robot (src/loader/discover.js) and
 * the summary's request count (src/site/page-requests.js) both go by it.
 */

/** The robot's viewport width in CSS px (a laptop's), at which it reads `sizes`; its device pixel ratio is 1. */
export const ROBOT_VIEWPORT = 1280;

/**
 * Whether a media query list holds for the robot: a screen ROBOT_VIEWPORT
 * wide. Widths (min-width, max-width, and the range forms `(width >= 768px)`
 * and `(width < 1025px)`, in px or em) are evaluated; print and
 * speech do not hold; any other feature counts as holding.
 * @param {string} list the prelude of an @media rule
 * @param {number} [viewport]
 */
export function mediaHolds(list, viewport = ROBOT_VIEWPORT) {
  return list.split(',').some((query) => {
    const q = query.trim().toLowerCase();
    if (/^(only\s+)?(print|speech)\b/.test(q) || /^not\s+(all|screen)\b/.test(q)) return false;
    for (const m of q.matchAll(/\(\s*(min|max)-width\s*:\s*([\d.]+)(px|r?em)\s*\)/g)) {
      const width = Number(m[2]) * (m[3] === 'px' ? 1 : 16);
      if (m[1] === 'min' ? viewport < width : viewport > width) return false;
    }
    for (const m of q.matchAll(/\(\s*width\s*(>=|<=|>|<)\s*([\d.]+)(px|r?em)\s*\)/g)) {
      const width = Number(m[2]) * (m[3] === 'px' ? 1 : 16);
      const holds = { '>=': viewport >= width, '<=': viewport <= width, '>': viewport > width, '<': viewport < width }[m[1]];
      if (!holds) return false;
    }
    return true;
  });
}

/**
 * The width a `sizes` attribute gives at a viewport: its first entry whose
 * condition holds, of the forms `(max-width: 767px) 336px`, `(min-width: 768px) 50vw`
 * and `100vw`; -1 when an entry is of another form (the robot then takes the
 * widest candidate).
 * @param {string} sizes
 * @param {number} [viewport]
 */
export function sizesWidth(sizes, viewport = ROBOT_VIEWPORT) {
  for (const entry of sizes.split(',')) {
    const m = /^\s*(?:\(\s*(min|max)-width\s*:\s*([\d.]+)px\s*\)\s*)?([\d.]+)(px|vw)\s*$/i.exec(entry);
    if (!m) return -1;
    if (m[1] && !(m[1].toLowerCase() === 'max' ? viewport <= Number(m[2]) : viewport >= Number(m[2]))) continue;
    return m[4].toLowerCase() === 'px' ? Number(m[3]) : (Number(m[3]) * viewport) / 100;
  }
  return viewport;
}

/**
 * The image types the robot's browser shows, as its Accept header says
 * (a current Chromium's): a <picture>'s <source> of another type is passed over.
 */
export const IMAGE_TYPES = ['image/avif', 'image/webp', 'image/apng', 'image/svg+xml', 'image/png', 'image/jpeg', 'image/gif'];
const SHOWN_TYPES = new Set(['', ...IMAGE_TYPES]);

/**
 * The one reference of each image choice a browser fetches, at a device
 * pixel ratio of 1: in a <picture>, the first <source> without a media
 * condition whose type it shows (its first srcset candidate), else the <img>;
 * of an <img>, its src (the 1x image), else its first srcset candidate; of
 * candidates with width descriptors (the src is not one of them then), the
 * narrowest at least as wide as `sizes` asks for at ROBOT_VIEWPORT, else the
 * widest; of
 * an image-set(), the first entry whose type it shows (the url() of the
 * declaration before it, which it overrides, only when none is shown).
 * A <source> with a media condition is passed over (the robot evaluates no
 * media attributes), and so is a CSS url() in an @media block that does not
 * hold at the robot's viewport (mediaHolds), and a url() that a pagediet
 * custom property overrides (css-refs.js). Other references are all kept.
 * @template {import('./html-refs.js').FoundReference} R
 * @param {R[]} found
 * @returns {R[]}
 */
export function chosenReferences(found) {
  /** @type {Map<number, R>} */
  const chosen = new Map();
  /** Choices whose <img> has width descriptors: its src is no candidate. */
  const widthDescribed = new Set(found.filter((ref) => ref.fit && ref.element === 'img').map((ref) => ref.choice));
  /** @param {R} ref */
  const rank = (ref) => {
    if (ref.overridden) return 3;
    if (ref.type !== undefined) return ref.media || !SHOWN_TYPES.has(ref.type) ? Infinity : 0;
    if (ref.attribute === 'src') return widthDescribed.has(ref.choice) ? Infinity : 1;
    return 2;
  };
  /** Of two candidates of one element, whether `a` is the one the robot takes. @param {R} a @param {R} b */
  const fitsBetter = (a, b) => {
    if (!a.fit || !b.fit) return false;
    const fits = (/** @type {{ width: number, wanted: number }} */ f) => f.wanted >= 0 && f.width >= f.wanted;
    if (fits(a.fit) !== fits(b.fit)) return fits(a.fit);
    return fits(a.fit) ? a.fit.width < b.fit.width : a.fit.width > b.fit.width;
  };
  for (const ref of found) {
    if (ref.choice === undefined || rank(ref) === Infinity) continue;
    const current = chosen.get(ref.choice);
    if (!current || rank(ref) < rank(current) || (rank(ref) === rank(current) && ref.element === current.element && ref.type === current.type && fitsBetter(ref, current))) chosen.set(ref.choice, ref);
  }
  return found.filter((ref) => ref.media !== true && (ref.choice === undefined ? ref.overridden !== true : chosen.get(ref.choice) === ref));
}
