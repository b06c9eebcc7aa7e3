/**
 * The characters a subset keeps besides those pages show, so that it is
 * drawn as the full font is. FreeType's auto-hinter, which Chromium uses on
 * Linux, ChromeOS and Android, does not hint a glyph on its own: it measures
 * the font's blue zones (cap height, x-height, baseline, descender) and stem
 * widths on reference letters of each script (T H E Z O C Q S... for Latin,
 * FreeType's src/autofit/afblue.dat), and snaps every glyph of that script
 * to them. A subset without those letters is measured on what it has, and
 * its glyphs land on other pixels. So a subset keeps the basic alphabet of
 * the scripts it draws: the Latin one always (FreeType hints digits,
 * punctuation and symbols, which belong to no script, as Latin) with the
 * Latin ligatures (U+FB00-FB06: a font that maps them has them styled as
 * Latin), the Greek and Cyrillic ones when it has Greek or Cyrillic text,
 * and for letters of other scripts every letter of their 256-character row
 * of Unicode (the block their reference letters are in).
 *
 * A glyph no character maps to (a ligature the font does not map, a small
 * capital) takes the style of the first script, in FreeType's order, whose
 * substitutions produce it, often Cyrillic or Greek for a Latin ligature,
 * since fonts share their lookups between scripts. The wide set adds the
 * alphabets of the scripts that FreeType orders before Latin and the font's
 * substitutions name (layout-scripts.js).
 */

/** Letters of scripts FreeType's auto-hinter styles before Latin, by OpenType script tag: the rows of their reference letters. */
const SCRIPT_LETTERS = /** @type {Record<string, [number, number][]>} */ ({
  arab: [[0x621, 0x64a]],
  armn: [[0x531, 0x556], [0x561, 0x587]],
  beng: [[0x985, 0x9b9]],
  bng2: [[0x985, 0x9b9]],
  cher: [[0x13a0, 0x13f4]],
  cyrl: [[0x410, 0x44f]],
  deva: [[0x904, 0x939]],
  dev2: [[0x904, 0x939]],
  geor: [[0x10a0, 0x10c5], [0x10d0, 0x10fa]],
  grek: [[0x391, 0x3a9], [0x3b1, 0x3c9]],
  gujr: [[0xa85, 0xab9]],
  gjr2: [[0xa85, 0xab9]],
  guru: [[0xa05, 0xa39]],
  gur2: [[0xa05, 0xa39]],
  hebr: [[0x5d0, 0x5ea]],
  khmr: [[0x1780, 0x17b3]],
  knda: [[0xc85, 0xcb9]],
  knd2: [[0xc85, 0xcb9]],
  'lao ': [[0xe81, 0xeae]],
});

const LATIN_ALPHABET = [...range(0x41, 0x5a), ...range(0x61, 0x7a), ...range(0x30, 0x39), ...range(0xfb00, 0xfb06)];
const GREEK = /\p{Script=Greek}/u;
const CYRILLIC = /\p{Script=Cyrillic}/u;
const LATIN = /\p{Script=Latin}/u;
const LETTER = /[\p{L}\p{M}\p{Nd}]/u;

/**
 * The reference letters the auto-hinter measures for the scripts of these characters.
 * @param {Iterable<number>} shown code points
 * @param {string[] | null} [layoutScripts] the wide set: the font's GSUB script tags, whose letters come too
 * @returns {Set<number>}
 */
export function hintingCharacters(shown, layoutScripts = null) {
  const out = new Set(LATIN_ALPHABET);
  const addScript = (/** @type {string} */ tag) => {
    for (const [first, last] of SCRIPT_LETTERS[tag] ?? []) for (const c of range(first, last)) out.add(c);
  };
  /** @type {Set<number>} rows of other scripts already added */
  const rows = new Set();
  for (const code of shown) {
    const c = String.fromCodePoint(code);
    if (GREEK.test(c)) addScript('grek');
    else if (CYRILLIC.test(c)) addScript('cyrl');
    else if (code >= 0x530 && LETTER.test(c) && !LATIN.test(c) && !rows.has(code >> 8)) {
      rows.add(code >> 8);
      for (let k = code & ~0xff; k <= (code | 0xff); k++) if (LETTER.test(String.fromCodePoint(k))) out.add(k);
    }
  }
  for (const tag of layoutScripts ?? []) addScript(tag);
  return out;
}

/**
 * @param {number} first
 * @param {number} last
 */
function range(first, last) {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
