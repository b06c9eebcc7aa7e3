/**
 * A page's `<meta http-equiv=Content-Security-Policy>`: whether an element is
 * one, its directives, and hash sources ('sha256-…'), which allow an inline
 * script or style only while its text stays byte for byte the same.
 */

/** A hash source in a policy's sources. */
export const HASH_SOURCE = /'sha(256|384|512)-/i;

/**
 * Whether an element is a `<meta http-equiv=Content-Security-Policy>`.
 * @param {import('domhandler').Element} el
 */
export function isCspMeta(el) {
  return el.name === 'meta' && /^[\t\n\f\r ]*content-security-policy[\t\n\f\r ]*$/i.test(el.attribs['http-equiv'] ?? '');
}

/**
 * A policy's directives: name (lower case) → its sources, as written.
 * @param {string} content the meta's content attribute
 * @returns {Map<string, string>}
 */
export function cspDirectives(content) {
  return new Map(content.split(';').map((d) => d.trim().split(/[\t\n\f\r ]+/)).filter((d) => d[0]).map((d) => [d[0].toLowerCase(), d.slice(1).join(' ')]));
}
