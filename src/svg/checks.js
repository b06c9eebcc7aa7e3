/**
 * What keeps an SVG away from svgo and from the browser, read from its text
 * before any parser sees it. svgo's parser (sax 1.6, with svgo's own reading
 * of the DOCTYPE) expands the entities a DOCTYPE declares, recursively: a
 * 100 KB entity used 500 times becomes 50 MB of text. It never reads an
 * external entity (it fails on its reference), but neither it nor the
 * browser is given the chance: an SVG that declares entities, or refers to
 * a file: URL, is kept as it is, unread beyond these checks. SVG with
 * scripts, event handlers or <foreignObject> (HTML inside) is copied as it
 * is; so is animated SVG, which a still picture cannot prove.
 */

/**
 * @typedef {object} Refusal why an SVG is kept as it is
 * @property {string} code
 * @property {string} reason one line
 * @property {boolean} warn whether it is worth a warning (the SVG is broken or unsafe) or only a decision
 */

/** The entity references XML defines, and character references; anything else after '&' is not XML. */
const XML_REFERENCE = /&(?!(?:amp|lt|gt|quot|apos);|#[0-9]+;|#x[0-9a-fA-F]+;)([^\s;<&]{0,20});?/;

/**
 * The text with numeric character references decoded, for the checks only:
 * `&#102;ile:` is a file: URL to a browser.
 * @param {string} text
 */
function withCharacterReferences(text) {
  if (!text.includes('&#')) return text;
  return text.replace(/&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/g, (whole, hex, dec) => {
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * Why an SVG's text must not go through svgo, or null.
 * @param {string} text the SVG (a file's whole text, or an inline <svg> element's markup)
 * @param {{ inline: boolean }} where inline: markup inside a page, read by the HTML parser
 * @returns {Refusal | null}
 */
export function svgRefusal(text, { inline }) {
  if (/<!ENTITY/i.test(text) || /<!DOCTYPE[^>[]*\[/i.test(text)) {
    return { code: 'svg-entities', reason: 'its DOCTYPE declares entities or has an internal subset: never expanded, never read further', warn: true };
  }
  const decoded = withCharacterReferences(text);
  if (/\bfile:/i.test(decoded)) return { code: 'svg-file-reference', reason: 'it refers to a file: URL: never read', warn: true };
  if (/<script[\s>/]|<handler[\s>/]|[\s"'/]on[a-z]+\s*=|javascript:/i.test(decoded)) {
    return { code: 'svg-script', reason: 'it has a script, an event handler or a javascript: URL', warn: false };
  }
  if (/<foreignObject[\s>/]/i.test(text)) return { code: 'svg-foreign-object', reason: 'it has a <foreignObject> (HTML inside the drawing)', warn: false };
  if (/<(?:animate|animateTransform|animateMotion|animateColor|set|discard)[\s>/]/i.test(text) || /@(?:-webkit-)?keyframes/i.test(text)) {
    return { code: 'svg-animated', reason: 'it is animated (SMIL or CSS keyframes): a still picture cannot prove the animation', warn: false };
  }
  const reference = XML_REFERENCE.exec(text);
  if (reference) {
    const what = reference[0].length > 1 ? `'${reference[0]}'` : "a bare '&'";
    return inline
      ? { code: 'svg-html-reference', reason: `${what} is read by HTML's rules, not XML's`, warn: false }
      : { code: 'svg-invalid', reason: `not well-formed XML: ${what} is not a reference XML defines`, warn: true };
  }
  return null;
}

/**
 * The text of an SVG file for svgo, or why it is kept: UTF-8 only (with
 * or without a byte order mark, which is kept), as an XML declaration
 * without an encoding or with UTF-8 says.
 * @param {Buffer} bytes
 * @returns {{ text: string, bom: Buffer } | Refusal}
 */
export function svgFileText(bytes) {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { code: 'svg-encoding', reason: 'UTF-16 text: pagediet rewrites UTF-8 SVG only', warn: false };
  }
  const bomLength = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(bomLength);
  const declared = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']*)["']/.exec(body.toString('latin1', 0, 256))?.[1];
  if (declared && !/^(?:utf-?8|us-ascii|ascii)$/i.test(declared)) {
    return { code: 'svg-encoding', reason: `encoded in ${declared}: pagediet rewrites UTF-8 SVG only`, warn: false };
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { code: 'svg-invalid', reason: 'not well-formed XML: not valid UTF-8', warn: true };
  }
  return { text, bom: Buffer.from(bytes.subarray(0, bomLength)) };
}

/**
 * The ids an SVG's text declares (id and xml:id attributes).
 * @param {string} text
 * @returns {string[]}
 */
export function declaredIds(text) {
  const ids = new Set();
  for (const m of text.matchAll(/[\s"'](?:xml:)?id\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) ids.add(m[1] ?? m[2]);
  return [...ids];
}

/**
 * Whether an SVG refers to anything but its own fragments and data: URLs
 * (an image, another SVG's symbol, a style sheet): its rendering then
 * depends on other files of the site.
 * @param {string} text
 */
export function refersOutside(text) {
  return /(?:href|src)\s*=\s*["']?\s*(?!#|data:)[^"'\s>]|url\(\s*["']?\s*(?!#|data:)[^"'\s)]|@import/i.test(text);
}
