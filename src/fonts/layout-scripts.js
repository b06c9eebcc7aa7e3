/**
 * The scripts a font's glyph substitutions (its GSUB table) are written for:
 * the tags of its script list ('latn', 'cyrl', 'grek', 'DFLT'...). FreeType's
 * auto-hinter gives a glyph that no character maps to (a ligature, a small
 * capital) the style of the first script, in its own order, whose
 * substitutions produce it: hinting-characters.js keeps those scripts'
 * reference letters.
 */
import { tableReader } from './sfnt.js';

/**
 * @param {Map<string, Uint8Array>} tables
 * @returns {string[]} script tags, as written (four characters, padded with spaces)
 */
export function layoutScripts(tables) {
  const gsub = tables.get('GSUB');
  if (!gsub) return [];
  const r = tableReader(gsub, 'GSUB');
  const list = r.u16(4);
  const count = r.u16(list);
  const tags = [];
  for (let i = 0; i < count; i++) tags.push(Buffer.from(r.bytes(list + 2 + 6 * i, 4)).toString('latin1'));
  return tags;
}
