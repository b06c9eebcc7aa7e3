/**
 * The scripts of a page, read off the tree the site model parses: the inline
 * <script> blocks a browser runs as JavaScript, with the byte range of their
 * text, and the script files the page loads (<script src>, <link
 * rel=modulepreload>), each as a classic script or a module. Also what pins
 * a script's bytes: an integrity attribute on an element that loads a file
 * (Subresource Integrity), and a Content-Security-Policy <meta> that allows
 * inline scripts by their hash.
 */
import { attributeValueRange, innerRange } from '../site/html-refs.js';
import { isElement, isHtmlElement, location, nodes, parsePage } from '../site/html-tree.js';
import { scriptType } from './script-type.js';
import { HASH_SOURCE, isCspMeta } from '../site/csp.js';

/**
 * @typedef {import('../site/document-view.js').DocumentView} DocumentView
 * @typedef {import('domhandler').Element} Element
 *
 * @typedef {object} InlineScript
 * @property {number} start byte offset of its text in the page
 * @property {number} end byte offset after it
 * @property {boolean} module
 * @property {number} line where its text starts in the page (1-based)
 * @property {number} column
 *
 * @typedef {object} ScriptUse a page loading a script file
 * @property {string} target the file's site path
 * @property {boolean} module
 * @property {string} charset what a browser reads it in when no byte order mark and no server says otherwise: UTF-8 for
 *   a module; for a classic script, its element's charset attribute, else the page's charset
 */

/**
 * @typedef {object} PageScripts
 * @property {InlineScript[]} inline
 * @property {ScriptUse[]} uses
 * @property {string[]} pinned files an element with an integrity attribute loads: their bytes must not change
 * @property {boolean} hashPolicy the page's Content-Security-Policy allows scripts by hash: an inline script that changes would not run
 */

/**
 * @param {DocumentView} view
 * @param {import('../site/site.js').Reference[]} references the page's references, as the site model resolved them
 * @returns {PageScripts}
 */
export function pageScripts(view, references) {
  /** @type {Map<number, string>} targets of references that resolve, by the byte offset of their URL */
  const targets = new Map();
  for (const ref of references) if (ref.status === 'ok' && ref.target) targets.set(ref.start, ref.target);
  const targetOf = (/** @type {Element} */ el, /** @type {string} */ attribute) => {
    const range = attributeValueRange(view, el, attribute);
    return range ? targets.get(view.byteOffset(range.start)) : undefined;
  };
  /** @type {InlineScript[]} */
  const inline = [];
  /** @type {ScriptUse[]} */
  const uses = [];
  /** @type {string[]} */
  const pinned = [];
  let hashPolicy = false;
  // Most pages of an old site have no script: nothing to parse for.
  if (!/<script|modulepreload|integrity/i.test(view.text)) return { inline, uses, pinned, hashPolicy };
  for (const node of nodes(parsePage(view))) {
    if (!isElement(node) || !isHtmlElement(node)) continue;
    if ((node.name === 'script' || node.name === 'link') && 'integrity' in node.attribs) {
      const target = targetOf(node, node.name === 'script' ? 'src' : 'href');
      if (target) pinned.push(target);
    }
    if (isCspMeta(node) && HASH_SOURCE.test(node.attribs.content ?? '')) {
      hashPolicy = true;
    }
    if (node.name === 'link' && /(^|[\t\n\f\r ])modulepreload([\t\n\f\r ]|$)/i.test(node.attribs.rel ?? '')) {
      const target = targetOf(node, 'href');
      if (target) uses.push({ target, module: true, charset: 'utf-8' });
      continue;
    }
    if (node.name !== 'script') continue;
    const type = scriptType(node.attribs);
    if (!type) continue;
    // With a src, the element's text is not run (a script may still read it as data).
    if ('src' in node.attribs) {
      const target = targetOf(node, 'src');
      if (target) uses.push({ target, module: type === 'module', charset: type === 'module' ? 'utf-8' : (encodingOf(node.attribs.charset) ?? view.charset) });
      continue;
    }
    const loc = location(node);
    const range = innerRange(node);
    // A <script> the file ends inside is never run: the parser marks it as already started.
    if (!loc?.endTag || !loc.startTag || !range) continue;
    const tag = /** @type {{ endLine?: number, endCol?: number }} */ (loc.startTag);
    inline.push({ start: view.byteOffset(range.start), end: view.byteOffset(range.end), module: type === 'module', line: tag.endLine ?? 0, column: tag.endCol ?? 0 });
  }
  return { inline, uses, pinned, hashPolicy };
}

/**
 * Every HTML <script> element of a page, as the byte offset of its text and
 * the text's bytes, in document order: a rewritten page must have the same
 * elements, each with the text meant for it.
 * @param {DocumentView} view
 * @returns {{ start: number, bytes: Buffer }[]}
 */
export function scriptTexts(view) {
  const bytes = Buffer.from(view.bytes.buffer, view.bytes.byteOffset, view.bytes.byteLength);
  /** @type {{ start: number, bytes: Buffer }[]} */
  const texts = [];
  for (const node of nodes(parsePage(view))) {
    if (!isElement(node) || !isHtmlElement(node) || node.name !== 'script') continue;
    const range = innerRange(node);
    const start = range ? view.byteOffset(range.start) : -1;
    texts.push({ start, bytes: range ? bytes.subarray(start, view.byteOffset(range.end)) : Buffer.alloc(0) });
  }
  return texts;
}

/**
 * The encoding a charset attribute names, or null when it names none.
 * @param {string | undefined} label
 */
function encodingOf(label) {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}
