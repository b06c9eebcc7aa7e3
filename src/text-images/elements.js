/**
 * The <img> and <input type=image> elements of a page with their start
 * tag's byte range and decoded attributes, and where a <style> or <link> can
 * go in the page's head: what the text-images pass needs to rewrite one tag.
 */
import * as cheerio from 'cheerio';
import { decodeHTMLAttribute } from 'entities';
import { DocumentView } from '../site/document-view.js';
import { attributeValueRange } from '../site/html-refs.js';

/**
 * @typedef {import('domhandler').Element} Element
 * @typedef {import('domhandler').AnyNode} AnyNode
 * @typedef {{ startOffset: number, endOffset: number }} Span
 *
 * @typedef {object} ImageElement
 * @property {'img' | 'input'} name
 * @property {number} tagStart byte offset of the start tag
 * @property {number} tagEnd byte offset after it
 * @property {number} srcStart byte offset of the src value
 * @property {Record<string, string>} attrs lower-case names, values decoded with the page's charset
 * @property {boolean} inPicture
 */

/**
 * @param {Uint8Array} bytes
 * @param {string} charset
 * @param {number} bomLength
 * @returns {{ images: ImageElement[], headEnd: number | null }} headEnd: byte offset where head content may be added
 */
export function pageImages(bytes, charset, bomLength) {
  const view = new DocumentView(bytes, charset, bomLength);
  const $ = cheerio.load(view.text, { sourceCodeLocationInfo: true });
  /** @type {ImageElement[]} */
  const images = [];
  for (const node of $('img, input').toArray()) {
    const el = /** @type {Element} */ (node);
    if (el.name === 'input' && (el.attribs.type ?? '').trim().toLowerCase() !== 'image') continue;
    const tag = /** @type {{ startTag?: Span } | null | undefined} */ (el.sourceCodeLocation)?.startTag;
    const src = attributeValueRange(view, el, 'src');
    if (!tag || !src) continue;
    /** @type {Record<string, string>} */
    const attrs = {};
    for (const name of Object.keys(el.attribs)) {
      const range = attributeValueRange(view, el, name);
      attrs[name] = range ? decodeHTMLAttribute(view.decode(range.start, range.end)) : '';
    }
    images.push({
      name: /** @type {'img' | 'input'} */ (el.name),
      tagStart: view.byteOffset(tag.startOffset),
      tagEnd: view.byteOffset(tag.endOffset),
      srcStart: view.byteOffset(src.start),
      attrs,
      inPicture: /** @type {Element | null} */ (el.parent)?.name === 'picture',
    });
  }
  return { images, headEnd: headEnd($, view) };
}

/**
 * Before </head> when it is written; else after the head's last element
 * written in the source; else before <body>; null when none is in the source.
 * @param {cheerio.CheerioAPI} $
 * @param {DocumentView} view
 */
function headEnd($, view) {
  const head = /** @type {Element | undefined} */ ($('head').toArray()[0]);
  const loc = /** @type {{ endTag?: Span } | null | undefined} */ (head?.sourceCodeLocation);
  if (loc?.endTag) return view.byteOffset(loc.endTag.startOffset);
  const last = head?.children.filter((c) => c.type !== 'text' && /** @type {{ sourceCodeLocation?: Span | null }} */ (c).sourceCodeLocation).pop();
  const lastLoc = /** @type {{ sourceCodeLocation?: Span | null } | undefined} */ (last)?.sourceCodeLocation;
  if (lastLoc) return view.byteOffset(lastLoc.endOffset);
  const body = /** @type {Element | undefined} */ ($('body').toArray()[0]);
  const bodyTag = /** @type {{ startTag?: Span } | null | undefined} */ (body?.sourceCodeLocation)?.startTag;
  return bodyTag ? view.byteOffset(bodyTag.startOffset) : null;
}
