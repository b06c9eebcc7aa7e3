/**
 * What a page's first render waits for, and the image it names as its
 * largest paint, read from its markup as the robot reads it (a screen
 * ROBOT_VIEWPORT wide): the byte ranges of the elements whose references
 * are render-blocking, and of those that ask for an image with
 * `fetchpriority="high"`. discover.js marks each subresource found in them.
 *
 * Render-blocking, as browsers treat them (HTML's "script-blocking" and
 * "render-blocking" style sheets): a `<link rel="stylesheet">` that is not
 * an alternate, not disabled, and whose `media` holds; a classic `<script
 * src>` in `<head>` without `async` or `defer`. A module script is
 * deferred; a script in `<body>` holds only what comes after it, not what
 * the page drew before. An `@import` blocks when what imports it (the
 * page's `<style>`, a style sheet) does: the robot decides that as it
 * fetches.
 */
import { mediaHolds } from '../site/image-choice.js';
import { linkKind } from '../site/reference-kinds.js';
import { isElement, location, nodes } from '../site/html-tree.js';

/**
 * @typedef {[start: number, end: number]} ByteRange
 * @typedef {object} FirstRenderRanges
 * @property {ByteRange[]} blocking elements whose references the first render waits for
 * @property {ByteRange[]} paint elements that name the page's largest paint: an `<img>` (its `<picture>`, sources
 *   and all) or an image preload, with `fetchpriority="high"`
 */

/** The MIME types of a classic script (HTML: "a JavaScript MIME type essence match"); no type is one too. */
const CLASSIC_SCRIPT_TYPES = new Set(['', 'text/javascript', 'application/javascript', 'application/ecmascript', 'application/x-javascript', 'text/ecmascript', 'text/jscript', 'text/livescript', 'text/x-javascript', 'text/x-ecmascript', 'text/javascript1.0', 'text/javascript1.1', 'text/javascript1.2', 'text/javascript1.3', 'text/javascript1.4', 'text/javascript1.5']);

/**
 * @param {import('../site/document-view.js').DocumentView} view
 * @param {import('domhandler').AnyNode} root the page's tree (parsePage)
 * @returns {FirstRenderRanges}
 */
export function firstRenderRanges(view, root) {
  /** @type {ByteRange[]} */
  const blocking = [];
  /** @type {ByteRange[]} */
  const paint = [];
  /** @param {import('domhandler').Element} el @param {boolean} whole the element's whole extent, else its start tag */
  const range = (el, whole) => {
    const at = location(el);
    if (!at) return null;
    const tag = whole ? at : at.startTag ?? at;
    return /** @type {ByteRange} */ ([view.byteOffset(tag.startOffset), view.byteOffset(tag.endOffset)]);
  };
  /** @param {ByteRange[]} list @param {ByteRange | null} r */
  const add = (list, r) => {
    if (r) list.push(r);
  };
  for (const node of nodes(root)) {
    if (!isElement(node)) continue;
    const attribs = node.attribs;
    const kind = node.name === 'link' ? linkKind(attribs.rel ?? '') : null;
    const high = (attribs.fetchpriority ?? '').trim().toLowerCase() === 'high';
    if (kind === 'stylesheet' && !('disabled' in attribs) && (!(attribs.media ?? '').trim() || mediaHolds(attribs.media))) add(blocking, range(node, false));
    else if (node.name === 'script' && 'src' in attribs && !('async' in attribs) && !('defer' in attribs) && CLASSIC_SCRIPT_TYPES.has((attribs.type ?? '').trim().toLowerCase()) && inHead(node)) add(blocking, range(node, false));
    else if (node.name === 'img' && high) {
      const parent = /** @type {import('domhandler').Element | null} */ (node.parent);
      add(paint, parent && isElement(parent) && parent.name === 'picture' ? range(parent, true) : range(node, false));
    } else if (kind === 'preload' && high && (attribs.as ?? '').trim().toLowerCase() === 'image') add(paint, range(node, false));
  }
  return { blocking, paint };
}

/**
 * Whether the first render waits for a reference of the page.
 * @param {import('../site/html-refs.js').FoundReference} ref
 * @param {FirstRenderRanges} ranges
 */
export function blocksFirstRender(ref, ranges) {
  return (ref.kind === 'stylesheet' || ref.kind === 'script') && within(ranges.blocking, ref.start);
}

/**
 * Whether a reference of the page is the image it names as its largest paint.
 * @param {import('../site/html-refs.js').FoundReference} ref
 * @param {FirstRenderRanges} ranges
 */
export function namesLargestPaint(ref, ranges) {
  return within(ranges.paint, ref.start);
}

/** @param {ByteRange[]} ranges @param {number} at */
function within(ranges, at) {
  return ranges.some(([start, end]) => at >= start && at < end);
}

/** @param {import('domhandler').Element} el */
function inHead(el) {
  for (let p = el.parent; p; p = p.parent) if (isElement(p) && p.name === 'head') return true;
  return false;
}
