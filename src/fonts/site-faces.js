/**
 * The @font-face rules of a site: in its style sheets and in the <style>
 * elements of its pages, each with its offsets in the document (byte
 * offsets but for UTF-16 documents, where they are DocumentView offsets)
 * and each url() of its src matched to the site model's reference for it,
 * which says where it leads (a file of the site, another origin, nowhere).
 */
import { DocumentView } from '../site/document-view.js';
import { innerRange } from '../site/html-refs.js';
import { isElement, isHtmlElement, nodes, parsePage } from '../site/html-tree.js';
import { xmlReason } from '../markup/names.js';
import { fontFaceRules } from './font-faces.js';

/**
 * @typedef {import('./font-faces.js').FontFaceRule} FontFaceRule
 * @typedef {import('./font-faces.js').SourceEntry} SourceEntry
 * @typedef {import('../site/site.js').Reference} Reference
 *
 * @typedef {object} SiteFace one font-face rule of a document
 * @property {string} document site path of the style sheet or page it is in
 * @property {number} index its place among the document's font-face rules
 * @property {FontFaceRule} rule offsets into the document's view
 * @property {{ entry: SourceEntry, reference: Reference | null }[]} urls its src's url() entries, in order, with their references
 *
 * @typedef {object} DocumentFaces the font-face rules of one document, and how to read and write it
 * @property {string} document
 * @property {DocumentView} view of its current bytes
 * @property {SiteFace[]} faces
 */

/** Reference kinds of url()s in style sheets and <style> elements. */
const CSS_URL_KINDS = new Set(['css-url', 'style-element-url']);

/**
 * Every document of the site with @font-face rules, in site order.
 * @param {import('../site/site.js').Site} site
 * @returns {Promise<DocumentFaces[]>}
 */
export async function siteFaces(site) {
  /** @type {DocumentFaces[]} */
  const found = [];
  for (const file of [...site.files.values()]) {
    if (file.role !== 'stylesheet' && file.role !== 'page') continue;
    const faces = await documentFaces(site, file.path);
    if (faces && faces.faces.length) found.push(faces);
  }
  return found;
}

/**
 * The @font-face rules of one style sheet or page as its bytes are now, or
 * null for a page read as XML (its <style> holds markup, not raw CSS).
 * @param {import('../site/site.js').Site} site
 * @param {string} document
 * @returns {Promise<DocumentFaces | null>}
 */
export async function documentFaces(site, document) {
  const file = site.get(document);
  const bytes = await site.read(document);
  const view = new DocumentView(bytes, /** @type {string} */ (file.charset ?? 'utf-8'), file.bomLength);
  /** @type {{ start: number, end: number }[]} pieces of CSS, view offsets */
  const pieces = [];
  if (file.role === 'stylesheet') pieces.push({ start: 0, end: view.text.length });
  else {
    if (xmlReason(view, file.mime)) return null;
    // Cheap test first: most pages define no font.
    if (!/@font-face/i.test(view.text)) return { document, view, faces: [] };
    for (const node of nodes(parsePage(view))) {
      if (!isElement(node) || node.name !== 'style' || !isHtmlElement(node) || !isCssType(node.attribs.type)) continue;
      const range = innerRange(node);
      if (range) pieces.push(range);
    }
  }
  const references = file.references.filter((r) => CSS_URL_KINDS.has(r.kind));
  /** @type {SiteFace[]} */
  const faces = [];
  for (const piece of pieces) {
    const css = view.text.slice(piece.start, piece.end);
    if (!/@font-face/i.test(css)) continue;
    for (const rule of fontFaceRules(css, (s, e) => view.decode(piece.start + s, piece.start + e))) {
      const shifted = shiftRule(rule, piece.start);
      const urls = shifted.sources.filter((entry) => entry.kind === 'url').map((entry) => {
        const start = view.byteOffset(entry.urlStart);
        const end = view.byteOffset(entry.urlEnd);
        return { entry, reference: references.find((r) => r.start === start && r.end === end) ?? null };
      });
      faces.push({ document, index: faces.length, rule: shifted, urls });
    }
  }
  return { document, view, faces };
}

/**
 * A rule found in a piece of CSS, with offsets into the whole document.
 * @param {FontFaceRule} rule
 * @param {number} by
 * @returns {FontFaceRule}
 */
function shiftRule(rule, by) {
  const descriptor = (/** @type {import('./font-faces.js').Descriptor} */ d) => ({ ...d, start: d.start + by, end: d.end + by, valueStart: d.valueStart + by, valueEnd: d.valueEnd + by });
  const descriptors = rule.descriptors.map(descriptor);
  const same = (/** @type {import('./font-faces.js').Descriptor | null} */ d) => (d ? descriptors[rule.descriptors.indexOf(d)] : null);
  return {
    ...rule,
    start: rule.start + by,
    end: rule.end + by,
    descriptors,
    src: same(rule.src),
    unicodeRange: same(rule.unicodeRange),
    sources: rule.sources.map((s) => ({ ...s, start: s.start + by, end: s.end + by, urlStart: s.urlStart < 0 ? -1 : s.urlStart + by, urlEnd: s.urlEnd < 0 ? -1 : s.urlEnd + by })),
  };
}

/** A <style> whose type is CSS (none, empty or text/css). @param {string | undefined} type */
function isCssType(type) {
  return type === undefined || /^[\t\n\f\r ]*(text\/css)?[\t\n\f\r ]*$/i.test(type);
}
