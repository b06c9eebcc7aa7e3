/**
 * What a browser fetches after a response: the subresources of a page or a
 * style sheet, found with the same extractors as the site model (for a page:
 * the same parse and walk), resolved
 * as URLs against the response's URL (and <base href>), same origin only.
 */
import { DocumentView } from '../site/document-view.js';
import { detectCssCharset, detectHtmlCharset } from '../site/charset.js';
import { referencesInTree } from '../site/html-refs.js';
import { stylesheetReferences } from '../site/css-refs.js';
import { REFERENCE_KINDS } from '../site/reference-kinds.js';
import { parsePage } from '../site/html-tree.js';
import crypto from 'node:crypto';
import { chosenReferences } from '../site/image-choice.js';
import { blocksFirstRender, firstRenderRanges, namesLargestPaint } from './first-render.js';

/**
 * @typedef {object} Subresource
 * @property {URL} url
 * @property {import('../site/reference-kinds.js').ReferenceKind} kind
 * @property {boolean} blocking the page's first render waits for it (first-render.js); no `@import` is marked:
 *   one blocks when what imports it does, as the robot fetches it
 * @property {boolean} paint the image the page names as its largest paint (`fetchpriority="high"`)
 */

/**
 * Parsed references by body hash and type: a page loaded with four strategies
 * and revalidated is parsed once. Bounded, oldest first out.
 * @type {Map<string, { refs: import('../site/html-refs.js').FoundReference[], baseHref: string | null, ranges: import('./first-render.js').FirstRenderRanges | null, resolved: Map<string, Subresource[]> }>}
 */
const parsed = new Map();
const PARSED_LIMIT = 512;

/**
 * @param {Buffer} body
 * @param {string} type
 */
function references(body, type) {
  const key = `${type} ${crypto.createHash('sha1').update(body).digest('base64')}`;
  let entry = parsed.get(key);
  if (!entry) {
    if (type === 'css') {
      const { charset, bomLength } = detectCssCharset(body);
      entry = { refs: stylesheetReferences(new DocumentView(body, charset, bomLength)), baseHref: null, ranges: null, resolved: new Map() };
    } else {
      const { charset, bomLength } = detectHtmlCharset(body);
      const view = new DocumentView(body, charset, bomLength);
      const root = parsePage(view);
      const found = referencesInTree(view, root);
      entry = { refs: found.references, baseHref: found.baseHref, ranges: firstRenderRanges(view, root), resolved: new Map() };
    }
    if (parsed.size >= PARSED_LIMIT) parsed.delete(/** @type {string} */ (parsed.keys().next().value));
    parsed.set(key, entry);
  }
  return entry;
}

/**
 * @param {Buffer} body the decoded body
 * @param {string} contentType
 * @param {string} href where it was fetched from (an absolute URL)
 * @returns {readonly Subresource[]} same-origin subresources, in document order, without duplicates (shared: do not change)
 */
export function discoverSubresources(body, contentType, href) {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type !== 'text/html' && type !== 'application/xhtml+xml' && type !== 'text/css') return [];
  const entry = references(body, type === 'text/css' ? 'css' : 'html');
  // The same body at the same URL (each strategy's load of a page) resolves to the same list.
  let out = entry.resolved.get(href);
  if (!out) entry.resolved.set(href, (out = resolve(entry.refs, entry.baseHref, entry.ranges, new URL(href))));
  return out;
}

/**
 * @param {import('../site/html-refs.js').FoundReference[]} found
 * @param {string | null} baseHref
 * @param {import('./first-render.js').FirstRenderRanges | null} ranges a page's; null for a style sheet
 * @param {URL} url
 */
function resolve(found, baseHref, ranges, url) {
  const base = baseHref ? safeUrl(baseHref, url) ?? url : url;
  /** @type {Subresource[]} */
  const out = [];
  /** @type {Map<string, Subresource>} */
  const seen = new Map();
  for (const ref of chosenReferences(found)) {
    if (!REFERENCE_KINDS[ref.kind].subresource) continue;
    const target = safeUrl(ref.url.trim(), base);
    if (!target || target.origin !== url.origin) continue;
    target.hash = '';
    const blocking = ranges !== null && blocksFirstRender(ref, ranges);
    const paint = ranges !== null && namesLargestPaint(ref, ranges);
    // One request for all references of a file (a preload and its style sheet): blocking or named if any of them is.
    const known = seen.get(target.href);
    if (known) {
      known.blocking ||= blocking;
      known.paint ||= paint;
      continue;
    }
    const subresource = { url: target, kind: ref.kind, blocking, paint };
    seen.set(target.href, subresource);
    out.push(subresource);
  }
  return out;
}

/**
 * @param {string} text
 * @param {URL} base
 */
function safeUrl(text, base) {
  if (!text || text.startsWith('#') || /^(data|javascript|about|blob|mailto):/i.test(text)) return null;
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}
