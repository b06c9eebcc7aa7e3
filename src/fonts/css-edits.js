/**
 * The text the fonts pass adds to CSS, as insertions at exact offsets so
 * that every other byte stays: a WOFF2 entry in front of a src's first
 * url(), and a whole @font-face rule for a subset after the rule it copies.
 */
import path from 'node:path';
import { encodeText } from '../site/charset.js';
import { encodePath } from '../site/edits.js';

/**
 * @typedef {import('../site/document-view.js').DocumentView} DocumentView
 * @typedef {import('./font-faces.js').FontFaceRule} FontFaceRule
 * @typedef {import('./font-faces.js').SourceEntry} SourceEntry
 * @typedef {{ at: number, text: string }} Insertion at: a view offset
 */

/** A URL's directory part that may stand in an unquoted url() as it is. */
const SAFE_DIRECTORY = /^[A-Za-z0-9\-._~!$*+,;=:@/%]*$/;

/**
 * The URL, written in DOCUMENT, of a new file that lies beside the file an
 * entry loads: the entry's own directory part (relative, rooted or absolute,
 * as written) and the new name, or relative to the document when that part
 * cannot be reused; null when neither works (a page with <base href>).
 * @param {DocumentView} view
 * @param {SourceEntry} entry
 * @param {string} newPath site path, in the directory of the entry's target
 * @param {{ path: string, baseHref: string | null }} document
 * @returns {string | null}
 */
export function urlBeside(view, entry, newPath, document) {
  const raw = view.text.slice(entry.urlStart, entry.urlEnd).split(/[?#]/)[0];
  const directory = raw.slice(0, raw.lastIndexOf('/') + 1);
  const name = encodePath(path.posix.basename(newPath));
  if (SAFE_DIRECTORY.test(directory)) return directory + name;
  if (document.baseHref !== null) return null;
  const from = path.posix.dirname(document.path);
  return encodePath(path.posix.relative(from === '.' ? '' : from, newPath));
}

/**
 * A WOFF2 entry put in front of the src's first url(): after any local()
 * entries (a font the visitor has installed still comes first), before every
 * file a browser would download.
 * @param {DocumentView} view
 * @param {FontFaceRule} rule
 * @param {string} url
 * @returns {Insertion | null} null when the src has no url()
 */
export function woff2Entry(view, rule, url) {
  const first = rule.sources.findIndex((s) => s.kind === 'url');
  if (first < 0) return null;
  const entry = rule.sources[first];
  const next = rule.sources[first + 1];
  // The author's own separator between entries (a comma and a line break and indent, often), else ", ".
  const between = next ? view.text.slice(entry.end, next.start) : '';
  const separator = /^,[ \t\r\n\f]*$/.test(between) ? between : ', ';
  const quote = rule.sources.find((s) => s.quote)?.quote ?? '"';
  // Written as the author wrote the url() it goes before: quoted or not.
  const urlQuote = /["']/.test(view.text[entry.urlStart - 1]) ? view.text[entry.urlStart - 1] : '';
  return { at: entry.start, text: `url(${urlQuote}${url}${urlQuote}) format(${quote}woff2${quote})${separator}` };
}

/**
 * A rule for a subset of a face, put right after the rule it copies: the
 * same descriptors, as written (so it joins the same face: family, weight,
 * style, stretch), but its own src and unicode-range. A browser looks for a
 * character in the faces of one family and style from the last rule defined
 * to the first (CSS Fonts 4, "font matching algorithm"): the subset, defined
 * later, draws the characters of its range, and the full font, earlier, the
 * rest, loaded only when a page shows one of those.
 * @param {DocumentView} view
 * @param {FontFaceRule} rule
 * @param {string} url
 * @param {string} unicodeRange
 * @returns {Insertion}
 */
export function subsetRule(view, rule, url, unicodeRange) {
  const kept = rule.descriptors.filter((d) => d.name !== 'src' && d.name !== 'unicode-range').map((d) => view.text.slice(d.start, d.end));
  // On a line of its own where the rule ends a line; minified CSS stays on one.
  const newline = /^\r?\n/.exec(view.text.slice(rule.end, rule.end + 2))?.[0] ?? '';
  return { at: rule.end, text: `${newline}@font-face{${[...kept, `src:url(${url}) format("woff2")`, `unicode-range:${unicodeRange}`].join(';')}}` };
}

/**
 * The bytes of an insertion in a document: the view's text is a char per
 * byte (but in UTF-16 documents), so copied CSS keeps its bytes.
 * @param {DocumentView} view
 * @param {Insertion} insertion
 * @returns {import('../site/edits.js').Edit}
 */
export function insertionEdit(view, insertion) {
  const at = view.byteOffset(insertion.at);
  return { start: at, end: at, bytes: view.wide ? encodeText(insertion.text, view.charset) : Buffer.from(insertion.text, 'latin1') };
}
