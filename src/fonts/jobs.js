/**
 * The font job the worker pool runs (WOFF2 encoding takes seconds on a large
 * font): a TrueType, OpenType or WOFF font made a WOFF2, whole or cut down to
 * some characters, and decoded again and checked against the font it came
 * from (same-font.js) before it is returned.
 */
import fontverter from 'fontverter';
import subsetFont from 'subset-font';
import { unicodeMap } from './cmap.js';
import { layoutScripts } from './layout-scripts.js';
import { losslessDifference, subsetDifference } from './same-font.js';
import { NotAFont, describeStart, fontContainer, readTables } from './sfnt.js';

/**
 * @typedef {{ status: 'encoded', bytes: Buffer, characters: number[] | null, scripts: string[] }
 *   | { status: 'not-a-font', reason: string }
 *   | { status: 'kept', reason: string }
 *   | { status: 'failed', reason: string }} Woff2Result
 *   characters: the code points the written font maps (null: no Unicode cmap); scripts: its GSUB's script tags
 */

/**
 * @param {{ bytes: Uint8Array, options: { subset?: number[] } }} input subset: the code points to keep; none: the whole font
 * @returns {Promise<Woff2Result>}
 */
export async function woff2Font({ bytes: input, options }) {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const container = fontContainer(bytes);
  if (container === null) return { status: 'not-a-font', reason: describeStart(bytes) };
  if (container === 'collection') return { status: 'kept', reason: 'a font collection (TTC): one file for several fonts, which @font-face does not name one of' };
  if (container === 'woff2') return { status: 'kept', reason: 'already WOFF2' };
  /** @type {Buffer} */
  let sfnt;
  /** @type {Map<string, Uint8Array>} */
  let tables;
  try {
    sfnt = container === 'woff' ? await fontverter.convert(bytes, 'sfnt', 'woff') : bytes;
    tables = readTables(sfnt);
    unicodeMap(tables);
  } catch (error) {
    return { status: 'not-a-font', reason: reasonOf(error) };
  }
  try {
    if (options.subset) {
      const woff2 = await subsetFont(sfnt, String.fromCodePoint(...options.subset), { targetFormat: 'woff2' });
      const decoded = readTables(await fontverter.convert(woff2, 'sfnt', 'woff2'));
      const difference = subsetDifference(tables, decoded, options.subset);
      if (difference) return { status: 'failed', reason: `the subset differs from the font: ${difference}` };
      return { status: 'encoded', bytes: woff2, characters: [...(unicodeMap(decoded) ?? new Map()).keys()].sort((a, b) => a - b), scripts: layoutScripts(decoded) };
    }
    const woff2 = await fontverter.convert(sfnt, 'woff2', 'sfnt');
    const difference = losslessDifference(tables, readTables(await fontverter.convert(woff2, 'sfnt', 'woff2')));
    if (difference) return { status: 'failed', reason: `the WOFF2 decodes to a different font: ${difference}` };
    const map = unicodeMap(tables);
    return { status: 'encoded', bytes: woff2, characters: map ? [...map.keys()].sort((a, b) => a - b) : null, scripts: layoutScripts(tables) };
  } catch (error) {
    // The font read well enough to pass the checks above; an encoder that still throws found it damaged.
    return { status: 'not-a-font', reason: reasonOf(error) };
  }
}

/** @param {unknown} error */
function reasonOf(error) {
  if (error instanceof NotAFont) return error.message;
  const message = String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0];
  return message || 'the font decoder failed';
}
