/**
 * A page's image and font preloads as `Link` response headers: the `<link
 * rel="preload" as="image">` and `as="font"` elements of its head
 * (image-markup writes them for a largest contentful paint drawn as a CSS
 * background and for the web fonts of the first view), with their
 * `imagesrcset`, `imagesizes`, `type`, `media`, `fetchpriority` and
 * `crossorigin`, and their URLs made absolute paths. Sent with the page,
 * the header lets the browser ask for them before the page's markup has
 * arrived, and a host that turns `Link` headers into 103 Early Hints
 * (Cloudflare Pages) before the page's response itself.
 */
import path from 'node:path';
import { DocumentView } from '../site/document-view.js';
import { detectHtmlCharset } from '../site/charset.js';
import { isElement, nodes, parsePage } from '../site/html-tree.js';
import { srcsetUrls } from '../site/srcset.js';

/** The link attributes a header carries, as parameters of the same name. */
const PARAMETERS = ['imagesrcset', 'imagesizes', 'type', 'media', 'fetchpriority', 'crossorigin'];
/** The destinations whose preloads are sent as headers. */
const DESTINATIONS = new Set(['image', 'font']);

/**
 * @param {Uint8Array} bytes the page
 * @param {string} page its site path
 * @returns {string[]} one `Link` header value per image or font preload, in document order
 */
export function preloadHeaders(bytes, page) {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Only a page that may hold one is parsed.
  if (!/rel\s*=\s*["']?preload/i.test(text.toString('latin1'))) return [];
  const { charset, bomLength } = detectHtmlCharset(bytes);
  const root = parsePage(new DocumentView(text, charset, bomLength));
  /** @type {string[]} */
  const headers = [];
  for (const node of nodes(root)) {
    if (!isElement(node)) continue;
    // A <base href> moves every relative URL: such a page's preloads are not sent as headers.
    if (node.name === 'base' && node.attribs.href !== undefined) return [];
    if (node.name === 'body') break;
    const a = node.attribs;
    const as = (a.as ?? '').trim().toLowerCase();
    if (node.name !== 'link' || !(a.rel ?? '').toLowerCase().split(/\s+/).includes('preload') || !DESTINATIONS.has(as) || !a.href) continue;
    const href = absolutePath(a.href, page);
    if (href === null) continue;
    let value = `<${href}>; rel=preload; as=${as}`;
    for (const name of PARAMETERS) {
      let v = a[name];
      if (v === undefined) continue;
      if (name === 'imagesrcset') {
        const candidates = srcsetUrls(v).map(({ start, end, descriptor }) => ({ absolute: absolutePath(/** @type {string} */ (v).slice(start, end), page), descriptor }));
        if (candidates.some((c) => c.absolute === null)) {
          value = '';
          break;
        }
        v = candidates.map((c) => (c.descriptor ? `${c.absolute} ${c.descriptor}` : `${c.absolute}`)).join(', ');
      }
      // An empty crossorigin is anonymous, which the parameter's bare name says.
      value += name === 'crossorigin' && (v === '' || v.toLowerCase() === 'anonymous') ? '; crossorigin' : `; ${name}="${v.replace(/["\\]/g, '\\$&')}"`;
    }
    if (value) headers.push(value);
  }
  return headers;
}

/**
 * A URL in a page as an absolute path on the site's origin, or null when it
 * is another origin's or not one a header can carry.
 * @param {string} url
 * @param {string} page
 */
function absolutePath(url, page) {
  const trimmed = url.trim();
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(trimmed)) return null;
  let resolved;
  try {
    resolved = new URL(trimmed, `http://site.invalid/${path.posix.dirname(page) === '.' ? '' : `${path.posix.dirname(page)}/`}`);
  } catch {
    return null;
  }
  if (resolved.origin !== 'http://site.invalid') return null;
  const value = `${resolved.pathname}${resolved.search}`;
  return /[\s<>"]/.test(value) ? null : value;
}
