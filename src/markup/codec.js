/**
 * Decoding and encoding that give back the exact bytes: a pass that rewrites
 * CSS text (which csso reads as characters, escapes and all) must write it in
 * the document's own charset, and must not touch a document whose bytes do not
 * survive a round trip (invalid UTF-8, bytes a charset leaves undefined).
 * UTF-8, UTF-16 and every single-byte charset (windows-1252, ISO-8859-x, KOI8)
 * are handled; multi-byte legacy charsets (Shift_JIS, GBK, Big5) are not.
 */

/** @type {Map<string, Map<string, number> | null>} charset → character → byte, or null when not single-byte */
const singleByteTables = new Map();

/**
 * The text of bytes in a charset, or null when encoding the text again would
 * not give the same bytes.
 * @param {Uint8Array} bytes without a byte order mark
 * @param {string} charset a name TextDecoder accepts
 * @returns {string | null}
 */
export function decodeExact(bytes, charset) {
  // ignoreBOM: a U+FEFF at the start of the range is content here (the caller stripped the real BOM).
  const text = new TextDecoder(charset, { ignoreBOM: true }).decode(bytes);
  const back = encodeExact(text, charset);
  return back && back.equals(bytes) ? text : null;
}

/**
 * Bytes of text in a charset, or null when the charset cannot hold one of its
 * characters or is not one handled here.
 * @param {string} text
 * @param {string} charset
 * @returns {Buffer | null}
 */
export function encodeExact(text, charset) {
  if (charset === 'utf-8') return Buffer.from(text, 'utf8');
  if (charset === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (charset === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
  const table = singleByteTable(charset);
  if (!table) return null;
  const out = Buffer.alloc(text.length);
  for (let i = 0; i < text.length; i++) {
    const byte = table.get(text[i]);
    if (byte === undefined) return null;
    out[i] = byte;
  }
  return out;
}

/**
 * @param {string} charset
 * @returns {Map<string, number> | null}
 */
function singleByteTable(charset) {
  if (singleByteTables.has(charset)) return /** @type {Map<string, number> | null} */ (singleByteTables.get(charset));
  /** @type {Map<string, number> | null} */
  let table = new Map();
  try {
    const decoder = new TextDecoder(charset);
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const whole = decoder.decode(all);
    let joined = '';
    for (let i = 255; i >= 0; i--) {
      const c = decoder.decode(all.subarray(i, i + 1));
      joined = c + joined;
      // Lower bytes win for a character two bytes share; U+FFFD marks an undefined byte.
      if (c.length === 1 && c !== '\uFFFD') table.set(c, i);
    }
    // A multi-byte charset reads some byte pairs as one character.
    if (whole !== joined) table = null;
  } catch {
    table = null;
  }
  singleByteTables.set(charset, table);
  return table;
}
