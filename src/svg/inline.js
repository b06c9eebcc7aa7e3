/**
 * The <svg> elements written inside a page, as the HTML parser builds them
 * (src/site/html-tree.js): the outermost ones only, each with the exact
 * byte range of its markup from `<svg` to the end of `</svg>`, so it can be
 * replaced without touching another byte of the page. An <svg> the parser
 * closed by itself (HTML content inside it ends the drawing) has no end tag
 * of its own and is left out.
 */
import { isElement, location, nodes, parsePage } from '../site/html-tree.js';

export const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/**
 * @typedef {object} InlineSvg
 * @property {number} start byte offset of `<svg`
 * @property {number} end byte offset after `</svg>`
 * @property {number} line where it starts, for messages
 * @property {{ id: string, name: string }[]} elements its elements with an id, in document order
 */

/**
 * @param {import('../site/document-view.js').DocumentView} view
 * @returns {InlineSvg[]}
 */
export function inlineSvgs(view) {
  /** @type {InlineSvg[]} */
  const found = [];
  const root = parsePage(view);
  /** @type {import('domhandler').AnyNode[]} */
  const stack = [root];
  while (stack.length) {
    const node = /** @type {import('domhandler').AnyNode} */ (stack.pop());
    if (isElement(node) && node.name === 'svg' && node.namespace === SVG_NAMESPACE) {
      const loc = location(node);
      if (loc?.startTag && loc.endTag && /^<\/svg[\t\n\f\r />]/i.test(view.text.slice(loc.endTag.startOffset, loc.endTag.startOffset + 6))) {
        /** @type {{ id: string, name: string }[]} */
        const elements = [];
        for (const inner of nodes(node)) if (isElement(inner) && inner.attribs.id !== undefined) elements.push({ id: inner.attribs.id, name: inner.name });
        found.push({ start: view.byteOffset(loc.startOffset), end: view.byteOffset(loc.endOffset), line: /** @type {{ startLine?: number }} */ (loc).startLine ?? 0, elements });
      }
      continue;
    }
    const children = /** @type {{ children?: import('domhandler').AnyNode[] }} */ (node).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return found;
}
