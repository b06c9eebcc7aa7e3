/**
 * Responsive sizes from measured layout: the `sizes` attribute of an <img>
 * from the widths Chromium drew it at (src/images/layout.js), the image
 * widths worth making for them, and the markup that offers them. The sizes
 * never say less than the box the image is drawn in at any measured viewport:
 * an image whose intrinsic size comes from its srcset is laid out at its
 * sizes width, and a box that shrank would move the page.
 */
import path from 'node:path';
import { encodePath } from '../site/edits.js';

/** A candidate width serves requests up to this much smaller than itself (10%: at most 21% more pixels than drawn): fewer files against some extra bytes. */
export const WIDTH_SLACK = 1.1;
/** At most this many smaller widths a photo: each costs an encoding search in every format. */
export const MAX_WIDTHS = 5;
/** Widths above this share of the original's are not made: the original serves them. */
export const NEAR_FULL = 0.8;
/** The device pixel ratios each measured width is made for: ordinary screens and high-density ones. */
export const DENSITIES = [1, 2];

/**
 * @typedef {{ viewport: number, width: number }} DrawnWidth an image's box width at a viewport width
 * @typedef {{ maxViewport: number | null, width: number | null }} SizesEntry one entry of `sizes`:
 *   up to a viewport width (null: any wider), the width drawn in CSS px (null: 100vw)
 */

/**
 * The entries of `sizes` for an image drawn at these widths. Between two
 * viewports measured no media query changes (layout.js measures both sides
 * of each), so the larger of the two widths bounds the box there (viewport
 * widths are whole pixels: the sides of a breakpoint have nothing between
 * them); above the
 * widest viewport, the last width if the box had stopped growing, else 100vw.
 * @param {DrawnWidth[]} drawn at least one, any order
 * @returns {SizesEntry[]}
 */
export function sizesEntries(drawn) {
  const sorted = [...drawn].sort((a, b) => a.viewport - b.viewport).map((d) => ({ viewport: d.viewport, width: Math.ceil(d.width) }));
  /** @type {SizesEntry[]} */
  // Two viewports 1 px apart (the sides of a breakpoint) have no whole width between them.
  const entries = sorted.map((d, i) => ({ maxViewport: d.viewport, width: i > 0 && d.viewport - sorted[i - 1].viewport > 1 ? Math.max(d.width, sorted[i - 1].width) : d.width }));
  const last = sorted[sorted.length - 1];
  const before = sorted[sorted.length - 2];
  entries.push({ maxViewport: null, width: before && last.width > before.width ? null : last.width });
  // A condition whose width the next entry repeats says nothing the next one does not.
  return entries.filter((entry, i) => i === entries.length - 1 || entry.width !== entries[i + 1].width);
}

/** @param {SizesEntry[]} entries */
export function sizesAttribute(entries) {
  return entries.map((e) => `${e.maxViewport === null ? '' : `(max-width: ${e.maxViewport}px) `}${e.width === null ? '100vw' : `${e.width}px`}`).join(', ');
}

/**
 * The image widths worth making for these `sizes` entries, below the
 * original's width: each entry's width at each density, grouped so that
 * one file serves every request within WIDTH_SLACK below it, none within
 * NEAR_FULL of the original (the original's own size serves those). Each
 * is a multiple of the smallest width whose height is whole at the
 * original's aspect ratio: a browser lays an image out by the aspect ratio
 * of the file it chose, and a rounded height would move the page by a
 * fraction of a pixel.
 * @param {SizesEntry[][]} entriesOfEachElement
 * @param {number} originalWidth
 * @param {number} originalHeight
 * @returns {number[]} ascending
 */
export function candidateWidths(entriesOfEachElement, originalWidth, originalHeight) {
  const step = originalWidth / gcd(originalWidth, originalHeight);
  const needed = [...new Set(entriesOfEachElement.flat().flatMap((e) => DENSITIES.map((d) => (e.width === null ? originalWidth : Math.min(originalWidth, e.width * d)))))].sort((a, b) => a - b);
  // The slack grows until the widths are few enough to be worth their encodings.
  for (let slack = WIDTH_SLACK; ; slack *= WIDTH_SLACK) {
    /** @type {number[]} */
    const widths = [];
    for (const wanted of needed) {
      if (widths.length && widths[widths.length - 1] >= wanted) continue;
      const serving = Math.ceil(Math.max(...needed.filter((n) => n <= wanted * slack)) / step) * step;
      if (serving >= originalWidth * NEAR_FULL) break;
      widths.push(serving);
    }
    if (widths.length <= MAX_WIDTHS) return widths;
  }
}

/** @param {number} a @param {number} b */
function gcd(a, b) {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * A srcset of width descriptors, each URL relative to the page.
 * @param {string} page site path of the page
 * @param {{ target: string, width: number }[]} candidates
 */
export function srcsetAttribute(page, candidates) {
  const dir = path.posix.dirname(page);
  return [...candidates].sort((a, b) => a.width - b.width).map((c) => `${encodePath(path.posix.relative(dir === '.' ? '' : dir, c.target))} ${c.width}w`).join(', ');
}
