/**
 * The exact ranges of the tag and attribute names of a page's HTML elements,
 * from the parser's source locations, so their case can be changed without
 * touching any other byte. SVG and MathML elements are left out: their names
 * are case-sensitive (viewBox, foreignObject).
 *
 * The HTML tokenizer lower-cases ASCII letters in every tag and attribute
 * name before the tree is built, so changing the case of these bytes cannot
 * change the tree of an HTML element. Tags the tree builder drops (a stray
 * `</HEAD>`, a second `<BODY>` whose attributes go to the first) have no
 * element in the tree: the tokenizer's own stream of tags (parse5's SAX
 * parser, which follows the tree builder's state changes) finds those.
 */
import { SAXParser } from 'parse5-sax-parser';
import { applyEdits } from '../site/edits.js';
import { encodeText } from '../site/charset.js';
import { isElement, isHtmlElement, location, nodes, parsePage } from '../site/html-tree.js';

/**
 * @typedef {import('../site/document-view.js').DocumentView} DocumentView
 * @typedef {{ start: number, end: number, kind: 'tag' | 'attribute' }} NameRange a name's range in the view's text
 */

/** A tag name: up to whitespace, '/' or '>' (HTML tokenizer, tag name state). */
const TAG_NAME = /[a-zA-Z][^\t\n\f\r />]*/y;
/** An attribute name: its first character may be '=', then up to whitespace, '/', '>' or '='. */
const ATTRIBUTE_NAME = /[^\t\n\f\r />][^\t\n\f\r />=]*/y;

/**
 * Every tag name (start and end tags) and attribute name of the HTML elements
 * of a page, and of the tags the tree builder dropped outside SVG and MathML,
 * in document order, each once.
 * @param {DocumentView} view
 * @returns {Promise<NameRange[]>}
 */
export async function nameRanges(view) {
  const text = view.text;
  /** @type {Map<number, NameRange>} keyed by start: an element the parser re-creates (formatting elements) shares its tag */
  const found = new Map();
  /** @param {RegExp} pattern @param {number} at @param {'tag' | 'attribute'} kind */
  const match = (pattern, at, kind) => {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    return m ? { start: at, end: at + m[0].length, kind } : null;
  };
  /** @type {[number, number][]} the source ranges of SVG and MathML elements */
  const foreign = [];
  // Without SVG or MathML every name is an HTML one, and the tokenizer's stream has every tag the tree has
  // (a tag it reads as text where the tree builder reads a tag, as after <textarea> inside <select>, keeps its
  // case): the tree is not needed, and a parse of the page is saved.
  const treeNeeded = /<(svg|math)/i.test(text);
  for (const node of treeNeeded ? nodes(parsePage(view)) : []) {
    if (!isElement(node)) continue;
    if (!isHtmlElement(node)) {
      const loc = location(node);
      if (loc && (node.name === 'svg' || node.name === 'math')) foreign.push([loc.startOffset, loc.endOffset]);
      continue;
    }
    const loc = location(node);
    if (!loc) continue; // implied by the parser (<tbody>, <head>): no bytes
    const start = loc.startTag && text[loc.startTag.startOffset] === '<' ? match(TAG_NAME, loc.startTag.startOffset + 1, 'tag') : null;
    if (start) found.set(start.start, start);
    const end = loc.endTag && text.startsWith('</', loc.endTag.startOffset) ? match(TAG_NAME, loc.endTag.startOffset + 2, 'tag') : null;
    if (end) found.set(end.start, end);
    for (const [name, span] of Object.entries(loc.startTag?.attrs ?? {})) {
      const attr = match(ATTRIBUTE_NAME, span.startOffset, 'attribute');
      // The location's key is the name as the tokenizer read it; anything else (a NUL made U+FFFD) is left alone.
      if (attr && asciiLower(text.slice(attr.start, attr.end)) === name) found.set(attr.start, attr);
    }
  }
  const inForeign = (/** @type {number} */ at) => foreign.some(([start, end]) => at >= start && at < end);
  for (const token of await tagTokens(text)) {
    const at = token.location.startOffset;
    if (inForeign(at)) continue;
    const name = token.end ? (text.startsWith('</', at) ? match(TAG_NAME, at + 2, 'tag') : null) : (text[at] === '<' ? match(TAG_NAME, at + 1, 'tag') : null);
    if (!name || found.has(name.start)) continue;
    found.set(name.start, name);
    for (const [attrName, span] of Object.entries(token.location.attrs ?? {})) {
      const attr = match(ATTRIBUTE_NAME, span.startOffset, 'attribute');
      if (attr && asciiLower(text.slice(attr.start, attr.end)) === attrName) found.set(attr.start, attr);
    }
  }
  return [...found.values()].sort((a, b) => a.start - b.start);
}

/**
 * parse5's SAX parser without its text events: nothing here listens to them,
 * and gathering them (a new location object for every run of characters) was
 * a third of html-case's time. The tokenizer's states do not depend on them.
 */
class TagParser extends SAXParser {
  onCharacter() {}
  onWhitespaceCharacter() {}
  onNullCharacter() {}
}

/**
 * Every start and end tag the tokenizer reads, with its location.
 * @param {string} text
 * @returns {Promise<{ end: boolean, location: import('../site/html-tree.js').ElementSpan }[]>}
 */
async function tagTokens(text) {
  const parser = new TagParser({ sourceCodeLocationInfo: true });
  /** @type {{ end: boolean, location: import('../site/html-tree.js').ElementSpan }[]} */
  const tokens = [];
  parser.on('startTag', (tag) => { if (tag.sourceCodeLocation) tokens.push({ end: false, location: tag.sourceCodeLocation }); });
  parser.on('endTag', (tag) => { if (tag.sourceCodeLocation) tokens.push({ end: true, location: tag.sourceCodeLocation }); });
  await new Promise((resolve, reject) => {
    parser.once('finish', resolve);
    parser.once('error', reject);
    parser.end(text);
  });
  return tokens;
}

/**
 * The bytes of a document with the given names changed to lower (or upper)
 * case, ASCII letters only; every other byte is the same.
 * @param {DocumentView} view
 * @param {NameRange[]} ranges
 * @param {'lower' | 'upper'} [to]
 * @returns {{ bytes: Buffer, changed: number }} changed: how many names changed
 */
export function recase(view, ranges, to = 'lower') {
  const change = to === 'lower' ? asciiLower : asciiUpper;
  /** @type {import('../site/edits.js').Edit[]} */
  const edits = [];
  for (const r of ranges) {
    const name = view.text.slice(r.start, r.end);
    const next = change(name);
    if (next === name) continue;
    edits.push({ start: view.byteOffset(r.start), end: view.byteOffset(r.end), bytes: view.wide ? encodeText(next, view.charset) : Buffer.from(next, 'latin1') });
  }
  return { bytes: applyEdits(view.bytes, edits), changed: edits.length };
}

/**
 * Why a page is XML and must keep its names' case, or null when it is HTML.
 * @param {DocumentView} view
 * @param {string} mime the type the page is served as
 */
export function xmlReason(view, mime) {
  if (mime === 'application/xhtml+xml') return 'served as XML (application/xhtml+xml)';
  if (view.hasXmlDeclaration()) return 'has an XML declaration';
  return null;
}

/** ASCII letters only: what the HTML tokenizer does. @param {string} s */
export function asciiLower(s) {
  // In an ASCII string toLowerCase() changes A-Z only; elsewhere it would change other letters too.
  return ASCII.test(s) ? s.toLowerCase() : s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
const ASCII = /^[\x00-\x7f]*$/;

/** @param {string} s */
function asciiUpper(s) {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}
