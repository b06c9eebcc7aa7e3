/**
 * Which image of a choice a browser fetches: a <picture>'s sources and its
 * <img>, an <img>'s src and srcset, a CSS image-set()'s entries. The robot (src/loader/discover.js) and
 * the summary's request count (src/requests.js) both go by it.
 */

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
 * an image-set(), the first entry whose type it shows (the url() of the
 * declaration before it, which it overrides, only when none is shown).
 * A <source> with a media condition is passed over (the robot evaluates no
 * media queries). Other references are all kept.
 * @template {import('./html-refs.js').FoundReference} R
 * @param {R[]} found
 * @returns {R[]}
 */
export function chosenReferences(found) {
  /** @type {Map<number, R>} */
  const chosen = new Map();
  /** @param {R} ref */
  const rank = (ref) => {
    if (ref.overridden) return 3;
    if (ref.type !== undefined) return ref.media || !SHOWN_TYPES.has(ref.type) ? Infinity : 0;
    return ref.attribute === 'src' ? 1 : 2;
  };
  for (const ref of found) {
    if (ref.choice === undefined || rank(ref) === Infinity) continue;
    const current = chosen.get(ref.choice);
    if (!current || rank(ref) < rank(current)) chosen.set(ref.choice, ref);
  }
  return found.filter((ref) => ref.choice === undefined || chosen.get(ref.choice) === ref);
}
