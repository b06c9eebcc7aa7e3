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

/**
 * @param {Buffer} body the decoded body
 * @param {string} contentType
 * @param {URL} url where it was fetched from
 * @returns {{ url: URL, kind: import('../site/reference-kinds.js').ReferenceKind }[]} same-origin subresources, in document order, without duplicates
 */
export function discoverSubresources(body, contentType, url) {
  const type = contentType.split(';')[0].trim().toLowerCase();
  let found;
  let base = url;
  if (type === 'text/html' || type === 'application/xhtml+xml') {
    const { charset, bomLength } = detectHtmlCharset(body);
    const refs = htmlReferences(new DocumentView(body, charset, bomLength));
    if (refs.baseHref) base = safeUrl(refs.baseHref, url) ?? url;
    found = refs.references;
  } else if (type === 'text/css') {
    const { charset, bomLength } = detectCssCharset(body);
    found = stylesheetReferences(new DocumentView(body, charset, bomLength));
  } else {
    return [];
  }
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
