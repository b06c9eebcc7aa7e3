/**
 * The element tree of a page, as the site model reads it: parse5 with
 * source locations and the htmlparser2 tree adapter (domhandler nodes), over
 * a DocumentView, so every location is an offset in the view's text
 * (view.byteOffset turns it into a byte offset).
 */
import * as parse5 from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';

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
  return /** @type {import('domhandler').Document} */ (/** @type {unknown} */ (parse5.parse(view.text, { sourceCodeLocationInfo: true, scriptingEnabled: true, treeAdapter: adapter, onParseError: onParseError ? (e) => onParseError(e) : null })));
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

/**
 * The byte offset where content may be added at the end of a page's head:
 * before </head> when it is written; else after the head's last element
 * written in the source; else before <body>; null when none is in the source.
 * @param {AnyNode} root the page's document node (parsePage)
 * @param {import('./document-view.js').DocumentView} view
 * @returns {number | null}
 */
export function headEnd(root, view) {
  /** @type {Element | undefined} */
  let head;
  /** @type {Element | undefined} */
  let body;
  for (const node of nodes(root)) {
    if (!isElement(node)) continue;
    if (node.name === 'head' && !head) head = node;
    else if (node.name === 'body') {
      body = node;
      break;
    }
  }
  const end = head && location(head)?.endTag;
  if (end) return view.byteOffset(end.startOffset);
  const last = head?.children.filter((c) => c.type !== 'text' && location(c)).pop();
  const lastLoc = last && location(last);
  if (lastLoc) return view.byteOffset(lastLoc.endOffset);
  const bodyTag = body && location(body)?.startTag;
  return bodyTag ? view.byteOffset(bodyTag.startOffset) : null;
}
