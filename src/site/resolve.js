/**
 * Resolves the URL text of a reference to a file of the site, the way a static
 * server would map it, without ever leaving the site root.
 *
 * Paths are resolved by segments rather than with WHATWG URL resolution because
 * URL resolution silently clamps `../` at the root: a reference that climbs out
 * of the site must be reported, not turned into another file.
 */
import path from 'node:path';

/**
 * @typedef {'ok' | 'missing' | 'external' | 'escapes' | 'inline' | 'fragment' | 'empty' | 'invalid' | 'ambiguous'} ResolveStatus
 *
 * @typedef {object} Resolution
 * @property {ResolveStatus} status
 * @property {string} [path] the site path it resolves to (status ok)
 * @property {'exact' | 'index' | 'extensionless'} [via] how it was found
 * @property {string} [note] why it did not resolve, or a hint
 *
 * @typedef {object} SiteIndex what resolution needs to know of the site's files
 * @property {(p: string) => boolean} isFile
 * @property {(p: string) => boolean} isDirectory
 * @property {(dir: string) => Iterable<string>} filesIn names of the files directly in dir ('' is the root)
 * @property {(p: string) => boolean} isOutside a symlink in the site that points outside its root
 *
 * @typedef {object} ResolveOptions
 * @property {string[]} [origins] absolute origins that are this site (https://example.com)
 * @property {string} [preferExtensions] order for extensionless matches, e.g. ['gif','png']
 */

const NOT_FILES = new Set(['data', 'javascript', 'mailto', 'tel', 'about', 'blob', 'cid', 'sms', 'news']);

/**
 * @param {string} text the reference's URL, decoded
 * @param {string} baseDir the site directory it is relative to ('' for the root)
 * @param {SiteIndex} index
 * @param {ResolveOptions & { prefer?: string[] }} [options]
 * @returns {Resolution}
 */
export function resolveReference(text, baseDir, index, options = {}) {
  const located = locate(text, baseDir, options.origins ?? []);
  if ('status' in located) return located;
  const { target, trailing } = located;
  if (index.isOutside(target)) return { status: 'escapes', note: 'a symlink that points outside the site root' };
  if (!trailing && index.isFile(target)) return { status: 'ok', path: target, via: 'exact' };
  if (target === '' || trailing || index.isDirectory(target)) {
    for (const name of ['index.html', 'index.htm']) {
      const candidate = target ? `${target}/${name}` : name;
      if (index.isFile(candidate)) return { status: 'ok', path: candidate, via: 'index' };
    }
    return { status: 'missing', note: 'a directory without index.html' };
  }
  const found = findByName(target, index, options.prefer ?? []);
  if (found.status === 'missing' && !found.note && /[#?]/.test(text)) {
    // A raw # or ? ends the path: a file whose name holds one can only be reached percent-encoded.
    const literal = locate(text.replace(/#/g, '%23').replace(/\?/g, '%3F'), baseDir, options.origins ?? []);
    if (!('status' in literal) && index.isFile(literal.target)) return { status: 'missing', note: `${literal.target} exists: a # or ? in a file name must be written %23 or %3F` };
  }
  return found;
}

/**
 * The site directory a `<base href>` sets for a page's relative URLs, or null
 * when the base is on another site (then relative URLs are external).
 * @param {string} href
 * @param {string} pageDir
 * @param {string[]} origins
 * @returns {string | null}
 */
export function baseDirectory(href, pageDir, origins) {
  const located = locate(href, pageDir, origins);
  if ('status' in located) return located.status === 'external' ? null : pageDir;
  if (located.trailing) return located.target;
  return located.target.includes('/') ? located.target.slice(0, located.target.lastIndexOf('/')) : '';
}

/**
 * Turns URL text into a normalized site path, or a status saying why it has none.
 * @param {string} text
 * @param {string} baseDir
 * @param {string[]} origins
 * @returns {{ target: string, trailing: boolean } | Resolution}
 */
function locate(text, baseDir, origins) {
  // Browsers strip surrounding ASCII whitespace and drop tabs and newlines inside URLs.
  const url = text.replace(/^[\s\x00-\x1f]+|[\s\x00-\x1f]+$/g, '').replace(/[\t\n\r]/g, '');
  if (url === '') return { status: 'empty' };
  if (url.startsWith('#')) return { status: 'fragment' };

  if (/^[a-zA-Z]:[\\/]/.test(url) || /^\\\\/.test(url)) {
    return { status: 'escapes', note: 'an absolute file-system path' };
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1].toLowerCase();
  let pathPart = url;
  if (scheme === 'file') return { status: 'escapes', note: 'a file: URL outside the site' };
  if (scheme && NOT_FILES.has(scheme)) return { status: 'inline' };
  if (scheme || url.startsWith('//')) {
    if (scheme && scheme !== 'http' && scheme !== 'https') return { status: 'external' };
    let parsed;
    try {
      parsed = new URL(url.startsWith('//') ? `https:${url}` : url);
    } catch {
      return { status: 'invalid', note: 'not a valid URL' };
    }
    if (!origins.some((o) => sameOrigin(o, parsed, !scheme))) return { status: 'external' };
    pathPart = parsed.pathname;
  }

  pathPart = pathPart.split('#')[0].split('?')[0].replace(/\\/g, '/');
  const rooted = pathPart.startsWith('/');
  const stack = rooted || baseDir === '' ? [] : baseDir.split('/');
  const segments = pathPart.split('/');
  const trailing = segments.length > 1 && segments[segments.length - 1] === '';
  for (const raw of segments) {
    let segment = raw;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      // A malformed escape stays as written, as servers do.
    }
    if (segment.includes('/') || segment.includes('\\') || segment.includes('\0')) {
      return { status: 'invalid', note: 'an encoded slash, backslash or NUL in the path' };
    }
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (stack.length === 0) return { status: 'escapes', note: 'climbs above the site root' };
      stack.pop();
      continue;
    }
    stack.push(segment);
  }
  return { target: stack.join('/'), trailing };
}

/**
 * The last resorts: extensionless names served by content negotiation, and a
 * hint for names that differ only in case (they worked on case-insensitive servers).
 * @param {string} target
 * @param {SiteIndex} index
 * @param {string[]} prefer extensions in order of preference
 * @returns {Resolution}
 */
function findByName(target, index, prefer) {
  const dir = path.posix.dirname(target) === '.' ? '' : path.posix.dirname(target);
  const name = path.posix.basename(target);
  const files = index.filesIn(dir);
  const join = (/** @type {string} */ f) => (dir ? `${dir}/${f}` : f);
  if (!name.includes('.')) {
    // In name order: the answer must not depend on the order files joined the site (pass replay rebuilds it otherwise).
    const matches = [];
    for (const f of files) if (f.startsWith(`${name}.`) && !f.slice(name.length + 1).includes('.')) matches.push(f);
    matches.sort();
    if (matches.length === 1) return { status: 'ok', path: join(matches[0]), via: 'extensionless' };
    if (matches.length > 1) {
      for (const ext of prefer) {
        const hit = matches.find((m) => m.slice(name.length + 1).toLowerCase() === ext);
        if (hit) return { status: 'ok', path: join(hit), via: 'extensionless', note: `chose ${hit} of ${matches.join(', ')}` };
      }
      return { status: 'ambiguous', note: `matches ${matches.join(', ')}` };
    }
  }
  const lower = name.toLowerCase();
  /** @type {string | undefined} the first in name order */
  let caseOnly;
  for (const f of files) if (f.toLowerCase() === lower && (caseOnly === undefined || f < caseOnly)) caseOnly = f;
  if (caseOnly) return { status: 'missing', note: `differs only in case from ${join(caseOnly)}` };
  return { status: 'missing' };
}

/**
 * @param {string} origin
 * @param {URL} url
 * @param {boolean} schemeRelative
 */
function sameOrigin(origin, url, schemeRelative) {
  try {
    const o = new URL(origin);
    return o.host === url.host && (schemeRelative || o.protocol === url.protocol);
  } catch {
    return false;
  }
}
