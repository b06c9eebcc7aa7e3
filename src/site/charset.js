/**
 * Character encodings of pages and style sheets.
 *
 * pagediet never re-encodes a document: it parses a "binary" view of the bytes
 * (each byte one latin1 character, so string offsets are byte offsets) and only
 * decodes the small pieces it needs to understand, such as URLs, with the
 * document's real charset. This module finds that charset.
 */

import sniffHtmlEncoding from 'html-encoding-sniffer';

/** Labels we decode ourselves; anything else TextDecoder knows is accepted too. */
const ALIASES = /** @type {Record<string, string>} */ ({
  'iso-8859-1': 'windows-1252', // as browsers do (WHATWG Encoding)
  'latin1': 'windows-1252',
  'us-ascii': 'windows-1252',
  'ascii': 'windows-1252',
  'utf8': 'utf-8',
});

/**
 * @param {string} label
 * @returns {string | null} a canonical charset name TextDecoder accepts, or null
 */
export function normalizeCharset(label) {
  const name = label.trim().toLowerCase();
  const alias = ALIASES[name] ?? name;
  try {
    return new TextDecoder(alias).encoding;
  } catch {
    return null;
  }
}

/**
 * @param {Uint8Array} bytes
 * @returns {{ charset: string, bomLength: number } | null}
 */
export function sniffBom(bytes) {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', bomLength: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: 'utf-16le', bomLength: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: 'utf-16be', bomLength: 2 };
  return null;
}

/** @param {Uint8Array} bytes */
export function isValidUtf8(bytes) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The charset of an HTML page, by the order browsers use: byte order mark, then a
 * `<meta charset>` or `<meta http-equiv=Content-Type>` found by the HTML
 * standard's prescan of the first 1024 bytes (html-encoding-sniffer: comments,
 * other metas' content and attribute values are not declarations), then UTF-8
 * when the bytes are valid UTF-8, else windows-1252.
 * @param {Uint8Array} bytes
 * @returns {{ charset: string, source: 'bom' | 'meta' | 'sniffed', bomLength: number }}
 */
export function detectHtmlCharset(bytes) {
  const bom = sniffBom(bytes);
  if (bom) return { ...bom, source: 'bom' };
  // The prescan gives its default when it finds no declaration: with two defaults, a declaration gives the same answer twice.
  const declared = sniffHtmlEncoding(bytes, { defaultEncoding: 'windows-1252' });
  if (declared === sniffHtmlEncoding(bytes, { defaultEncoding: 'UTF-8' })) {
    const charset = normalizeCharset(declared);
    if (charset) return { charset, source: 'meta', bomLength: 0 };
  }
  return { charset: isValidUtf8(bytes) ? 'utf-8' : 'windows-1252', source: 'sniffed', bomLength: 0 };
}

/**
 * The charset of a style sheet: BOM, then `@charset "x";` at the very start, then
 * the charset of the page that links it, then UTF-8 or windows-1252 by validity.
 * @param {Uint8Array} bytes
 * @param {string} [fallback] the referring page's charset
 * @returns {{ charset: string, bomLength: number }}
 */
export function detectCssCharset(bytes, fallback) {
  const bom = sniffBom(bytes);
  if (bom) return bom;
  const start = Buffer.from(bytes.subarray(0, 128)).toString('latin1');
  const declared = /^@charset "([^"]+)";/.exec(start);
  const charset = declared ? normalizeCharset(declared[1]) : null;
  if (charset) return { charset, bomLength: 0 };
  if (fallback && !isValidUtf8(bytes)) return { charset: fallback, bomLength: 0 };
  return { charset: isValidUtf8(bytes) ? 'utf-8' : 'windows-1252', bomLength: 0 };
}

/**
 * Decodes a byte range of a document with its charset.
 * @param {Uint8Array} bytes
 * @param {string} charset
 */
export function decodeBytes(bytes, charset) {
  return new TextDecoder(charset).decode(bytes);
}

/**
 * Encodes text for insertion into a document of the given charset. Characters the
 * charset cannot hold are not expected here: URLs pagediet writes are ASCII
 * (non-ASCII characters are percent-encoded before they reach this function).
 * @param {string} text
 * @param {string} charset
 * @returns {Buffer}
 */
export function encodeText(text, charset) {
  if (charset === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (charset === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
  if (charset === 'utf-8') return Buffer.from(text, 'utf8');
  // Every other charset pagediet reads is ASCII-compatible.
  if (/^[\x00-\x7f]*$/.test(text)) return Buffer.from(text, 'latin1');
  throw new Error(`cannot encode non-ASCII text in ${charset}`);
}
