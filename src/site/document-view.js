/**
 * A parseable text view of a document's bytes in which every offset maps back
 * to an exact byte offset, so that passes can edit bytes in place.
 *
 * For ASCII-compatible charsets the view is the bytes read as latin1: one
 * character per byte, markup and CSS syntax are ASCII, so parsers see the same
 * structure, and offsets are byte offsets. Only the pieces a pass needs to
 * understand (URLs, text) are decoded with the real charset. UTF-16 documents
 * are decoded for real and offsets are doubled.
 */
import { decodeBytes } from './charset.js';

export class DocumentView {
  /**
   * @param {Uint8Array} bytes
   * @param {string} charset
   * @param {number} [bomLength]
   */
  constructor(bytes, charset, bomLength = 0) {
    this.bytes = bytes;
    this.charset = charset;
    this.bomLength = bomLength;
    this.wide = charset === 'utf-16le' || charset === 'utf-16be';
    const latin1 = () => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    /**
     * The text parsers read. A UTF-8 BOM is three latin1 characters here: as text it would start
     * the body before <html> (and move <head> into it); as spaces, which parsers skip, offsets stay.
     */
    this.text = this.wide
      ? decodeBytes(bytes.subarray(bomLength), charset)
      : bomLength ? ' '.repeat(bomLength) + latin1().slice(bomLength) : latin1();
  }

  /** Whether the document opens with an XML declaration (after a BOM and white space): then it is XML, not HTML. */
  hasXmlDeclaration() {
    return /^[\t\n\f\r ]*<\?xml[\t\n\f\r ?]/i.test(this.text.slice(0, 256));
  }

  /**
   * The byte offset of a text offset.
   * @param {number} offset
   */
  byteOffset(offset) {
    return this.wide ? this.bomLength + offset * 2 : offset;
  }

  /**
   * The real text of the view range [start, end), decoded with the document's charset.
   * @param {number} start
   * @param {number} end
   */
  decode(start, end) {
    if (this.wide) return this.text.slice(start, end);
    return decodeBytes(this.bytes.subarray(start, end), this.charset);
  }
}
