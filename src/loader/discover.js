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

/**
 * @typedef {{ url: URL, kind: import('../site/reference-kinds.js').ReferenceKind }} Subresource
 */

/**
 * Parsed references by body hash and type: a page loaded with four strategies
 * and revalidated is parsed once. Bounded, oldest first out.
 * @type {Map<string, { refs: import('../site/html-refs.js').FoundReference[], baseHref: string | null, resolved: Map<string, Subresource[]> }>}
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
      entry = { refs: stylesheetReferences(new DocumentView(body, charset, bomLength)), baseHref: null, resolved: new Map() };
    } else {
      const { charset, bomLength } = detectHtmlCharset(body);
      const view = new DocumentView(body, charset, bomLength);
      const found = referencesInTree(view, parsePage(view));
      entry = { refs: found.references, baseHref: found.baseHref, resolved: new Map() };
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
  if (!out) entry.resolved.set(href, (out = resolve(entry.refs, entry.baseHref, new URL(href))));
  return out;
}

/**
 * @param {import('../site/html-refs.js').FoundReference[]} found
 * @param {string | null} baseHref
 * @param {URL} url
 */
function resolve(found, baseHref, url) {
  const base = baseHref ? safeUrl(baseHref, url) ?? url : url;
  /** @type {Subresource[]} */
  const out = [];
  const seen = new Set();
  for (const ref of chosenReferences(found)) {
    if (!REFERENCE_KINDS[ref.kind].subresource) continue;
    const target = safeUrl(ref.url.trim(), base);
    if (!target || target.origin !== url.origin) continue;
    target.hash = '';
    if (seen.has(target.href)) continue;
    seen.add(target.href);
    out.push({ url: target, kind: ref.kind });
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
