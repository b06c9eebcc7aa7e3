/**
 * How a script file's bytes are read, as a browser reads them: a byte order
 * mark decides; a module is UTF-8; a classic script is read in its
 * element's charset attribute, else the charset of the page that loads it
 * (when the server names none). Bytes that are all ASCII read the same in
 * every such charset; for the others, the pages that load the file must
 * agree, or the file is left as it is.
 */
import { sniffBom } from '../site/charset.js';

/**
 * @typedef {{ charset: string, bomLength: number, asciiOnly: boolean } | { reason: string }} ScriptCharset
 *   asciiOnly: the output must be ASCII (non-ASCII characters as escapes), because the bytes may be read in more than one charset
 */

/**
 * @param {Uint8Array} bytes the whole file
 * @param {{ module: boolean, charset: string }[]} uses how pages load it, and imports
 * @returns {ScriptCharset}
 */
export function scriptCharset(bytes, uses) {
  const bom = sniffBom(bytes);
  if (bom) return { ...bom, asciiOnly: false };
  // ASCII bytes: any ASCII-compatible charset reads them alike, and ASCII output keeps it so.
  if (bytes.every((b) => b < 0x80)) return { charset: 'utf-8', bomLength: 0, asciiOnly: true };
  const charsets = new Set(uses.map((use) => (use.module ? 'utf-8' : use.charset)));
  // Loaded by no page pagediet sees (by a script, by name): read as UTF-8, written as ASCII.
  if (charsets.size === 0) return { charset: 'utf-8', bomLength: 0, asciiOnly: true };
  if (charsets.size > 1) return { reason: `read in different charsets by the pages that load it (${[...charsets].sort().join(', ')})` };
  const [charset] = charsets;
  return { charset, bomLength: 0, asciiOnly: charset !== 'utf-8' };
}
