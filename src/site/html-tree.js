/**
 * The element tree of a page, as the site model reads it: parse5 with
 * source locations and cheerio's htmlparser2 tree adapter, over a
 * DocumentView, so every location is an offset in the view's text
 * (view.byteOffset turns it into a byte offset). It is the tree cheerio.load
 * builds, made without cheerio.load, which defines a new Cheerio class on
 * every call: on 2,000 generated pages of 42 KB that doubled the time
 * (22.6 s against 11.9 s) and left old-space garbage that grew the heap to
 * 413 MB between full collections, against 64 MB (2026-11-21).
 */
import { createRequire } from 'node:module';

// parse5 and the adapter as cheerio resolves them: the same packages and versions as cheerio's own parse.
const fromCheerio = createRequire(createRequire(import.meta.url).resolve('cheerio'));
/** @type {{ parse: (html: string, options: { sourceCodeLocationInfo: boolean, scriptingEnabled: boolean, treeAdapter: object, onParseError?: ((error: { code: string, startOffset: number }) => void) | undefined }) => import('domhandler').Document }} */
const parse5 = fromCheerio('parse5');
/** @type {{ adapter: object }} */
const { adapter } = fromCheerio('parse5-htmlparser2-tree-adapter');

/**
 * @typedef {import('domhandler').AnyNode} AnyNode
 * @typedef {import('domhandler').Element} Element
 * @typedef {{ startOffset: number, endOffset: number }} Span
 * @typedef {Span & { attrs?: Record<string, Span> }} TagSpan
 * @typedef {Span & { startTag?: TagSpan, endTag?: Span, attrs?: Record<string, Span> }} ElementSpan
 */

export const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/**
 * Parses a page's view as a browser does (scripting on, so <noscript> is text).
 * @param {import('./document-view.js').DocumentView} view
 * @param {(error: { code: string, startOffset: number }) => void} [onParseError] called with each syntax error parse5 reports
 * @returns {import('domhandler').Document} the document node
 */
export function parsePage(view, onParseError) {
  return parse5.parse(view.text, { sourceCodeLocationInfo: true, scriptingEnabled: true, treeAdapter: adapter, onParseError });
}

/**
 * Every node of the tree in document order, template contents included.
 * @param {AnyNode} root
 * @returns {Generator<AnyNode>}
 */
export function* nodes(root) {
  /** @type {AnyNode[]} */
  const stack = [root];
  while (stack.length) {
    const node = /** @type {AnyNode} */ (stack.pop());
    yield node;
    const children = /** @type {{ children?: AnyNode[] }} */ (node).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** @param {AnyNode} node @returns {node is Element} */
export function isElement(node) {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/** Whether an element is in the HTML namespace (not SVG or MathML). @param {Element} el */
export function isHtmlElement(el) {
  return el.namespace === HTML_NAMESPACE;
}

/** @param {AnyNode} node @returns {ElementSpan | null} */
export function location(node) {
  return /** @type {ElementSpan | null | undefined} */ (node.sourceCodeLocation) ?? null;
}
