/**
 * Safe HTML minification, as byte-range removals: comments, and whitespace
 * that cannot render. Nothing is reserialized.
 *
 * Comments go, except conditional comments (`<!--[if IE]>`, `<![endif]-->`)
 * and `<!--! ... -->`, which their authors mark as meant to stay. Bogus
 * comments (`<?php ?>`, `<!x>`) stay too.
 *
 * Whitespace goes only where CSS collapses it away: a whitespace-only text
 * node in a block-level parent, between block-level elements (or the
 * parent's start or end), with nothing but comments and hidden elements
 * (script, style, link, meta) beside it. Never inside pre, textarea, listing,
 * xmp or plaintext, nor in SVG or MathML; and not at all on a page whose
 * style sheets, <style> blocks, style attributes or scripts mention
 * white-space or an inline display, which could make it visible.
 */
import { isElement, isHtmlElement, location, nodes, parsePage } from '../site/html-tree.js';

/**
 * @typedef {import('domhandler').AnyNode} AnyNode
 * @typedef {import('domhandler').Element} Element
 * @typedef {import('../site/document-view.js').DocumentView} DocumentView
 * @typedef {import('../site/edits.js').Edit} Edit
 */

/** Elements whose default display is block-level (block, list-item, table parts). */
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'col', 'colgroup', 'dd', 'details', 'dialog',
  'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5',
  'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'legend', 'li', 'listing', 'main', 'menu', 'nav', 'noframes', 'ol',
  'optgroup', 'option', 'p', 'plaintext', 'pre', 'search', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th',
  'thead', 'tr', 'ul', 'xmp',
]);

/** Elements that are never rendered (display: none), so whitespace beside them is beside what is beyond them. */
const HIDDEN = new Set(['script', 'style', 'template', 'link', 'meta', 'base', 'title']);

/** Elements inside which whitespace is preserved. */
const PRESERVING = new Set(['pre', 'textarea', 'listing', 'xmp', 'plaintext']);

/** ASCII whitespace, as CSS and HTML mean it (not U+00A0). */
const WHITESPACE = /^[\t\n\f\r ]+$/;

/** Comments that must stay: conditional comments and their downlevel-revealed forms. */
const CONDITIONAL = /^(?:\[if\b|\[endif\]|<!\[endif\])/i;

/** CSS or script text that could make whitespace between blocks visible. */
export const SHOWS_WHITESPACE = /white-?space|display\s*:\s*(?:inline|-webkit-inline|-moz-inline|contents|ruby|run-in)|\.display\s*=/i;

/**
 * @param {DocumentView} view
 * @param {{ whitespaceShown: string | null }} options why the page's style sheets could show whitespace, if they could
 * @returns {{ edits: Edit[], comments: number, whitespace: number, whitespaceShown: string | null }}
 */
export function minifyHtmlEdits(view, options) {
  const root = parsePage(view);
  const whitespaceShown = options.whitespaceShown ?? whitespaceShownInPage(view, root);
  /** @type {Edit[]} */
  const edits = [];
  let comments = 0;
  let whitespace = 0;
  /** @param {AnyNode} node */
  const remove = (node) => {
    const loc = /** @type {NonNullable<ReturnType<typeof location>>} */ (location(node));
    // parse5 ends a comment left open at the end of the file one past the text: it runs to the end, no further.
    const end = Math.min(loc.endOffset, view.text.length);
    edits.push({ start: view.byteOffset(loc.startOffset), end: view.byteOffset(end), bytes: Buffer.alloc(0) });
  };
  for (const node of nodes(root)) {
    if (node.type === 'comment' && removableComment(view, node)) {
      remove(node);
      comments++;
    }
    if (!whitespaceShown && isElement(node) && isHtmlElement(node) && BLOCK.has(node.name) && !preserves(node)) {
      for (const text of collapsibleWhitespace(view, node)) {
        remove(text);
        whitespace++;
      }
    }
  }
  return { edits, comments, whitespace, whitespaceShown };
}

/**
 * Why the page's own CSS or scripts could make whitespace between blocks
 * visible, or null: its <style> blocks, style attributes and scripts mention
 * white-space or an inline display.
 * @param {DocumentView} view
 * @param {AnyNode} root
 */
function whitespaceShownInPage(view, root) {
  for (const node of nodes(root)) {
    if (!isElement(node)) continue;
    const found = SHOWS_WHITESPACE.exec(node.attribs.style ?? '');
    if (found) return `a style attribute says ${JSON.stringify(found[0])}`;
    if (node.name !== 'style' && node.name !== 'script') continue;
    const loc = location(node);
    const inner = loc?.startTag ? view.text.slice(loc.startTag.endOffset, loc.endTag ? loc.endTag.startOffset : loc.endOffset) : '';
    const inText = SHOWS_WHITESPACE.exec(inner);
    if (inText) return `a <${node.name}> says ${JSON.stringify(inText[0])}`;
  }
  return null;
}

/**
 * @param {DocumentView} view
 * @param {AnyNode} node a comment
 */
function removableComment(view, node) {
  const loc = location(node);
  if (!loc) return false;
  const raw = view.text.slice(loc.startOffset, loc.endOffset);
  if (!raw.startsWith('<!--') || raw.startsWith('<!--!')) return false;
  return !CONDITIONAL.test(/** @type {import('domhandler').Comment} */ (node).data);
}

/** Whether whitespace inside an element is preserved by default. @param {Element} el */
function preserves(el) {
  for (let e = /** @type {Element | null} */ (el); e; e = /** @type {Element | null} */ (e.parent)) {
    if (isElement(e) && PRESERVING.has(e.name)) return true;
  }
  return false;
}

/**
 * The whitespace-only text children of a block-level element that sit in a
 * gap bounded by block-level elements or the parent's edges, with only comments,
 * hidden elements and other whitespace in the gap, and at least one element
 * (block or hidden) beside it.
 * @param {DocumentView} view
 * @param {Element} parent
 * @returns {AnyNode[]}
 */
function collapsibleWhitespace(view, parent) {
  /** @type {AnyNode[]} */
  const found = [];
  /** @type {AnyNode[]} */
  let gap = [];
  let gapHasElement = false;
  let leftIsBlockOrEdge = true;
  const close = (/** @type {boolean} */ rightIsBlockOrEdge) => {
    if (leftIsBlockOrEdge && rightIsBlockOrEdge && gapHasElement) found.push(...gap);
    gap = [];
    gapHasElement = false;
  };
  for (const child of parent.children) {
    if (child.type === 'comment') continue;
    if (child.type === 'text') {
      if (isWhitespaceText(view, child)) {
        gap.push(child);
        continue;
      }
      close(false);
      leftIsBlockOrEdge = false;
      continue;
    }
    if (isElement(child) && isHtmlElement(child) && HIDDEN.has(child.name)) {
      gapHasElement = true;
      continue;
    }
    const block = isElement(child) && isHtmlElement(child) && BLOCK.has(child.name);
    if (block) gapHasElement = true;
    close(block);
    leftIsBlockOrEdge = block;
    gapHasElement = block; // a block also bounds the next gap
  }
  close(true);
  return found;
}

/**
 * A text node that is whitespace in the tree and in its bytes (no character
 * references, no ignored tags inside its source range).
 * @param {DocumentView} view
 * @param {AnyNode} node
 */
function isWhitespaceText(view, node) {
  const loc = location(node);
  return !!loc && WHITESPACE.test(/** @type {import('domhandler').Text} */ (node).data) && WHITESPACE.test(view.text.slice(loc.startOffset, loc.endOffset));
}
