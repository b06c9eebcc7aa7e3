/**
 * Finds every reference of an HTML page, with the exact range of its URL in the
 * page's bytes, by walking the tree parse5 builds from a DocumentView
 * (parsePage, html-tree.js).
 */
import { decodeHTMLAttribute } from 'entities';
import { string as cssString } from 'css-tree';
import { cssUrls, withChoice } from './css-refs.js';
import { srcsetUrls } from './srcset.js';
import { IMAGE_TYPES, mediaHolds, sizesWidth } from './image-choice.js';
import { linkKind } from './reference-kinds.js';
import { parsePage } from './html-tree.js';

/**
 * @typedef {import('./reference-kinds.js').ReferenceKind} ReferenceKind
 * @typedef {import('./document-view.js').DocumentView} DocumentView
 * @typedef {import('domhandler').Element} Element
 * @typedef {import('domhandler').AnyNode} AnyNode
 *
 * @typedef {object} FoundReference a reference as found in a document, before resolution
 * @property {ReferenceKind} kind
 * @property {string} url the URL as the browser reads it (charset, entities and CSS escapes decoded)
 * @property {number} start byte offset of the URL's first byte in the document
 * @property {number} end byte offset after its last byte
 * @property {string} [element] the element's name, lower case
 * @property {string} [attribute] the attribute's name, lower case
 * @property {number} [tagStart] for an <img src>: byte offset of the element's start tag
 * @property {number} [tagEnd] for an <img src>: byte offset after its start tag
 * @property {boolean} [inPicture] for an <img src>: whether its parent is a <picture>
 * @property {number} [choice] for an image a browser chooses (an <img>'s src and srcset, and a <picture>'s
 *   sources with its <img>): the same number for every reference of one choice, of which a browser fetches one
 * @property {string} [type] for a <picture>'s <source>: its type attribute; for an image-set() entry, its type(); lower case ('' when none)
 * @property {boolean} [media] for a <picture>'s <source>: whether it has a media condition; for a url() in CSS, whether it is
 *   in a media query block that does not hold at the robot's viewport (css-refs.js); for a preload, whether the robot's
 *   browser passes it over (its media does not hold at the robot's viewport, or it is an image of a type not shown)
 * @property {boolean} [overridden] for the url() of a declaration that an image-set() after it overrides (css-refs.js)
 * @property {{ width: number, wanted: number }} [fit] for a srcset candidate with a width descriptor: its width,
 *   and the width the element's `sizes` asks for at the robot's viewport (image-choice.js; -1 when it cannot tell)
 *
 * @typedef {{ startOffset: number, endOffset: number }} Span
 */

/** Element → attribute → kind, for the attributes that hold one URL. */
const URL_ATTRIBUTES = /** @type {Record<string, Record<string, ReferenceKind>>} */ ({
  img: { src: 'img', lowsrc: 'img' },
  script: { src: 'script' },
  body: { background: 'background' },
  table: { background: 'background' },
  tr: { background: 'background' },
  td: { background: 'background' },
  th: { background: 'background' },
  video: { poster: 'poster', src: 'media' },
  audio: { src: 'media' },
  track: { src: 'media' },
  object: { data: 'object' },
  embed: { src: 'embed' },
  iframe: { src: 'iframe' },
  frame: { src: 'frame' },
  a: { href: 'anchor' },
  area: { href: 'anchor' },
  // Inline SVG: a symbol or drawing of another file, fetched with the page.
  use: { href: 'svg-href' },
  image: { href: 'svg-href' },
});

/**
 * @param {DocumentView} view
 * @returns {{ references: FoundReference[], baseHref: string | null, root: AnyNode, parseErrors: { code: string, startOffset: number }[] }}
 *   root and parseErrors: the tree and parse5's syntax errors, for the site's warnings (checks.js)
 */
export function htmlReferences(view) {
  /** @type {{ code: string, startOffset: number }[]} */
  const parseErrors = [];
  const root = parsePage(view, (e) => parseErrors.push({ code: e.code, startOffset: e.startOffset }));
  return { ...referencesInTree(view, root), root, parseErrors };
}

/**
 * The references of a page, from the tree parse5 built of its view with source
 * locations. Only elements' type, name, attribs, parent, children and
 * sourceCodeLocation are read; the robot's discovery walks the same parse
 * (parsePage, src/site/html-tree.js) with this same walk.
 * @param {DocumentView} view
 * @param {AnyNode} root
 * @returns {{ references: FoundReference[], baseHref: string | null }}
 */
export function referencesInTree(view, root) {
  /** @type {FoundReference[]} */
  const references = [];
  /** @type {string | null} */
  let baseHref = null;

  /** @param {FoundReference} ref */
  const push = (ref) => references.push(ref);
  /**
   * The choice an image element belongs to: its <picture>'s, or its own.
   * @param {Element} el
   */
  const choiceOf = (el) => {
    const parent = /** @type {Element | null} */ (el.parent);
    const chooser = parent?.type === 'tag' && parent.name === 'picture' ? parent : el;
    return /** @type {{ startOffset: number } | null | undefined} */ (chooser.sourceCodeLocation)?.startOffset;
  };
  /**
   * What a browser needs to choose among an element's references.
   * @param {Element} el
   * @param {FoundReference} ref
   */
  const markChoice = (el, ref) => {
    if (el.name !== 'img' && el.name !== 'source') return ref;
    const choice = choiceOf(el);
    if (choice === undefined) return ref;
    ref.choice = choice;
    if (el.name === 'source') {
      ref.type = (el.attribs.type ?? '').trim().toLowerCase();
      ref.media = (el.attribs.media ?? '').trim() !== '';
    }
    return ref;
  };

  /** @param {Element} el @param {string} name @param {ReferenceKind} kind */
  const single = (el, name, kind) => {
    const range = attributeValueRange(view, el, name);
    if (!range) return;
    /** @type {FoundReference} */
    const ref = { kind, url: attributeText(view, range.start, range.end), start: view.byteOffset(range.start), end: view.byteOffset(range.end), element: el.name, attribute: name };
    // Where an image pass can wrap the element in <picture>.
    const tag = /** @type {{ startTag?: Span } | null | undefined} */ (el.sourceCodeLocation)?.startTag;
    if (el.name === 'img' && name === 'src' && tag) {
      ref.tagStart = view.byteOffset(tag.startOffset);
      ref.tagEnd = view.byteOffset(tag.endOffset);
      ref.inPicture = /** @type {Element | null} */ (el.parent)?.name === 'picture';
    }
    if (el.name === 'img' && name === 'src') markChoice(el, ref);
    if (kind === 'preload' && !preloadFetched(el.attribs)) ref.media = true;
    push(ref);
  };
  /** @param {Element} el @param {string} name @param {ReferenceKind} kind @param {boolean} [passedOver] the robot does not fetch these candidates */
  const srcset = (el, name, kind, passedOver = false) => {
    const range = attributeValueRange(view, el, name);
    if (!range) return;
    const decoded = decodeEntitiesMapped(view.text.slice(range.start, range.end));
    for (const u of srcsetUrls(decoded.text)) {
      const start = range.start + decoded.offsets[u.start];
      const end = range.start + decoded.offsets[u.end];
      /** @type {FoundReference} */
      const ref = { kind, url: attributeText(view, start, end), start: view.byteOffset(start), end: view.byteOffset(end), element: el.name, attribute: name };
      const width = /^(\d+)w$/.exec(u.descriptor);
      if (width) ref.fit = { width: Number(width[1]), wanted: sizesWidth(el.attribs.sizes ?? '100vw') };
      if (passedOver) ref.media = true;
      push(markChoice(el, ref));
    }
  };
  /**
   * @param {number} from view offset where the CSS starts
   * @param {number} to view offset where it ends
   * @param {ReferenceKind} urlKind
   * @param {boolean} isAttribute whether HTML entities apply (attribute) or not (raw text of <style>)
   * @param {Element} el
   */
  const css = (from, to, urlKind, isAttribute, el) => {
    // In an attribute, character references are decoded before CSS is parsed.
    const source = isAttribute ? decodeEntitiesMapped(view.text.slice(from, to)) : null;
    for (const u of cssUrls(source ? source.text : view.text.slice(from, to))) {
      const start = from + (source ? source.offsets[u.start] : u.start);
      const end = from + (source ? source.offsets[u.end] : u.end);
      let url = isAttribute ? attributeText(view, start, end) : view.decode(start, end);
      if (u.escaped) url = cssString.decode(`"${url}"`);
      const kind = u.kind === 'import' ? 'css-import' : urlKind;
      push(withChoice({ kind, url, start: view.byteOffset(start), end: view.byteOffset(end), element: el.name, attribute: isAttribute ? 'style' : undefined }, u, from));
    }
  };

  /** @param {AnyNode} node */
  const visit = (node) => {
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const el = /** @type {Element} */ (node);
      const name = el.name;
      const attribs = el.attribs;
      const known = URL_ATTRIBUTES[name];
      if (known) for (const attr of Object.keys(known)) if (attr in attribs) single(el, attr, known[attr]);
      if (name === 'img' && 'srcset' in attribs) srcset(el, 'srcset', 'srcset');
      if (name === 'source') {
        const inPicture = el.parent && /** @type {Element} */ (el.parent).name === 'picture';
        if ('srcset' in attribs) srcset(el, 'srcset', inPicture ? 'picture-source' : 'srcset');
        if ('src' in attribs) single(el, 'src', 'media');
      }
      if (name === 'input' && (attribs.type ?? '').trim().toLowerCase() === 'image' && 'src' in attribs) single(el, 'src', 'input-image');
      if (name === 'link' && 'href' in attribs) single(el, 'href', linkKind(attribs.rel ?? ''));
      // A preload's imagesrcset names files too (renamed with them); the robot, at a device pixel ratio of 1, takes its href.
      if (name === 'link' && 'imagesrcset' in attribs && linkKind(attribs.rel ?? '') === 'preload') srcset(el, 'imagesrcset', 'preload', true);
      if (name === 'base' && 'href' in attribs && baseHref === null) {
        const range = attributeValueRange(view, el, 'href');
        if (range) baseHref = attributeText(view, range.start, range.end);
      }
      if ('style' in attribs) {
        const range = attributeValueRange(view, el, 'style');
        if (range) css(range.start, range.end, 'style-attribute-url', true, el);
      }
      if (name === 'style') {
        const inner = innerRange(el);
        if (inner) css(inner.start, inner.end, 'style-element-url', false, el);
      }
    }
    const children = /** @type {{ children?: AnyNode[] }} */ (node).children;
    if (children) for (const child of children) visit(child);
  };
  visit(root);
  references.sort((a, b) => a.start - b.start);
  return { references, baseHref };
}

/**
 * The view range of an attribute's value, inside its quotes if it has them.
 * @param {DocumentView} view
 * @param {Element} el
 * @param {string} name lower-case attribute name
 * @returns {{ start: number, end: number } | null}
 */
export function attributeValueRange(view, el, name) {
  const attrs = /** @type {{ attrs?: Record<string, Span> } | null | undefined} */ (el.sourceCodeLocation)?.attrs;
  // A foreign attribute (SVG's xlink:href) is named without its prefix in attribs, with it in the locations.
  const prefix = /** @type {{ 'x-attribsPrefix'?: Record<string, string> }} */ (el)['x-attribsPrefix']?.[name];
  const loc = attrs?.[name] ?? (prefix ? attrs?.[`${prefix}:${name}`] : undefined);
  if (!loc) return null;
  const raw = view.text.slice(loc.startOffset, loc.endOffset);
  const eq = /^[^\s=]+[ \t\n\r\f]*=[ \t\n\r\f]*/.exec(raw);
  if (!eq) return null; // an attribute without a value
  let start = loc.startOffset + eq[0].length;
  let end = loc.endOffset;
  const quote = view.text[start];
  if (quote === '"' || quote === "'") {
    start += 1;
    if (end > start && view.text[end - 1] === quote) end -= 1;
  }
  return { start, end };
}

/**
 * The view range between an element's start and end tags (raw text of <style>).
 * @param {Element} el
 * @returns {{ start: number, end: number } | null}
 */
export function innerRange(el) {
  const loc = /** @type {{ startTag?: Span, endTag?: Span, endOffset: number } | null | undefined} */ (el.sourceCodeLocation);
  if (!loc?.startTag) return null;
  return { start: loc.startTag.endOffset, end: loc.endTag ? loc.endTag.startOffset : loc.endOffset };
}

/**
 * Decodes the character references of raw attribute text and keeps, for every
 * decoded character, the raw offset where it starts (offsets[text.length] is the
 * raw length), so ranges found in the decoded text map back to exact bytes.
 * @param {string} raw
 * @returns {{ text: string, offsets: number[] }}
 */
export function decodeEntitiesMapped(raw) {
  if (!raw.includes('&')) return { text: raw, offsets: Array.from({ length: raw.length + 1 }, (_, i) => i) };
  let text = '';
  /** @type {number[]} */
  const offsets = [];
  const entity = /&(?:#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[a-zA-Z][a-zA-Z0-9]*;?)/y;
  let i = 0;
  while (i < raw.length) {
    entity.lastIndex = i;
    const match = raw[i] === '&' ? entity.exec(raw) : null;
    const decoded = match ? decodeHTMLAttribute(match[0]) : raw[i];
    const length = match && decoded !== match[0] ? match[0].length : 1;
    const piece = length === 1 ? raw[i] : decoded;
    for (let k = 0; k < piece.length; k++) offsets.push(i);
    text += piece;
    i += length;
  }
  offsets.push(raw.length);
  return { text, offsets };
}

/**
 * The text of an attribute value range: the bytes decoded with the page's
 * charset, then its character references decoded.
 * @param {DocumentView} view
 * @param {number} start
 * @param {number} end
 */
function attributeText(view, start, end) {
  return decodeHTMLAttribute(view.decode(start, end));
}

/**
 * Whether the robot's browser fetches what a `<link rel=preload>` names: its
 * `media` holds at the robot's viewport, and an image's `type` is one it shows.
 * @param {Record<string, string>} attribs
 */
function preloadFetched(attribs) {
  if (attribs.media !== undefined && attribs.media.trim() !== '' && !mediaHolds(attribs.media)) return false;
  const type = (attribs.type ?? '').trim().toLowerCase();
  return !type || (attribs.as ?? '').trim().toLowerCase() !== 'image' || IMAGE_TYPES.includes(type);
}
