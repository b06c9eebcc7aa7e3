/**
 * What a browser fetches after a response: the subresources of a page or a
 * style sheet, found with the same extractors as the site model, resolved as
 * URLs against the response's URL (and <base href>), same origin only.
 */
import { DocumentView } from '../site/document-view.js';
import { detectCssCharset, detectHtmlCharset } from '../site/charset.js';
import { htmlReferences } from '../site/html-refs.js';
import { stylesheetReferences } from '../site/css-refs.js';
import { REFERENCE_KINDS } from '../site/reference-kinds.js';
import crypto from 'node:crypto';

/**
 * Parsed references by body hash and type: a page loaded with four strategies
 * and revalidated is parsed once. Bounded, oldest first out.
 * @type {Map<string, { refs: import('../site/html-refs.js').FoundReference[], baseHref: string | null }>}
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
      entry = { refs: stylesheetReferences(new DocumentView(body, charset, bomLength)), baseHref: null };
    } else {
      const { charset, bomLength } = detectHtmlCharset(body);
      const found = htmlReferences(new DocumentView(body, charset, bomLength));
      entry = { refs: found.references, baseHref: found.baseHref };
    }
    if (parsed.size >= PARSED_LIMIT) parsed.delete(/** @type {string} */ (parsed.keys().next().value));
    parsed.set(key, entry);
  }
  return entry;
}

/**
 * @param {Buffer} body the decoded body
 * @param {string} contentType
 * @param {URL} url where it was fetched from
 * @returns {{ url: URL, kind: import('../site/reference-kinds.js').ReferenceKind }[]} same-origin subresources, in document order, without duplicates
 */
export function discoverSubresources(body, contentType, url) {
  const type = contentType.split(';')[0].trim().toLowerCase();
  let base = url;
  if (type !== 'text/html' && type !== 'application/xhtml+xml' && type !== 'text/css') return [];
  const { refs: found, baseHref } = references(body, type === 'text/css' ? 'css' : 'html');
  if (baseHref) base = safeUrl(baseHref, url) ?? url;
  /** @type {{ url: URL, kind: import('../site/reference-kinds.js').ReferenceKind }[]} */
  const out = [];
  const seen = new Set();
  for (const ref of found) {
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
