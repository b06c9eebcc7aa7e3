/**
 * The @font-face rules of a piece of CSS (a style sheet or a <style>
 * element's text), read with css-tree's tokenizer so that comments, strings
 * and escapes are read as a browser reads them, with the offsets of
 * everything the fonts pass edits: the rule, each descriptor, and each entry
 * of its src with the range of its URL (the range the site model's
 * references have, so an entry is matched to the file it loads).
 */
import { tokenize, tokenTypes as T, string as cssString } from 'css-tree';

/** css-tree's token types, with those its typings leave out (Colon, Comma, brackets). */
const TYPES = /** @type {Record<string, number>} */ (/** @type {unknown} */ (T));
const OPENERS = new Set([TYPES.Function, TYPES.LeftParenthesis, TYPES.LeftSquareBracket, TYPES.LeftCurlyBracket]);
const CLOSERS = new Set([TYPES.RightParenthesis, TYPES.RightSquareBracket, TYPES.RightCurlyBracket]);

/**
 * @typedef {{ type: number, start: number, end: number }} Token
 *
 * @typedef {object} Descriptor one `name: value` of a rule, offsets into the CSS text
 * @property {string} name lower case
 * @property {number} start where its name starts
 * @property {number} end after its value (before the `;` or `}`)
 * @property {number} valueStart
 * @property {number} valueEnd
 *
 * @typedef {object} SourceEntry one comma-separated entry of a src descriptor
 * @property {'url' | 'local' | 'other'} kind
 * @property {number} start
 * @property {number} end
 * @property {number} urlStart for a url(): its URL's range, without quotes or spaces
 * @property {number} urlEnd
 * @property {string[]} formats the format() hints, lower case
 * @property {string} quote the quote its format() string is written with, '' for none
 *
 * @typedef {object} FontFaceRule
 * @property {number} start where the rule starts (its at-keyword)
 * @property {number} end after its closing `}` (the end of the text when it is never closed)
 * @property {boolean} closed
 * @property {Descriptor[]} descriptors in order
 * @property {Descriptor | null} src the src descriptor that counts (the last)
 * @property {SourceEntry[]} sources the entries of that src
 * @property {string | null} family the font-family descriptor's name, as CSS text (quotes and escapes undone)
 * @property {Descriptor | null} unicodeRange
 */

/**
 * @param {string} css the text as parsed (for a page or style sheet, its DocumentView's text: a char per byte)
 * @param {(start: number, end: number) => string} [decode] the real text of a range (the document's charset decoded),
 *   for the family name
 * @returns {FontFaceRule[]}
 */
export function fontFaceRules(css, decode = (start, end) => css.slice(start, end)) {
  /** @type {Token[]} */
  const tokens = [];
  tokenize(css, (type, start, end) => tokens.push({ type, start, end }));
  /** @type {FontFaceRule[]} */
  const rules = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type !== T.AtKeyword || css.slice(t.start, t.end).toLowerCase() !== '@font-face') continue;
    let open = i + 1;
    while (open < tokens.length && tokens[open].type !== T.LeftCurlyBracket && tokens[open].type !== T.Semicolon) open++;
    if (open >= tokens.length || tokens[open].type !== T.LeftCurlyBracket) continue;
    const { lastToken, ...rule } = readRule(css, tokens, i, open, decode);
    rules.push(rule);
    i = lastToken;
  }
  return rules;
}

/**
 * @param {string} css
 * @param {Token[]} tokens
 * @param {number} at the at-keyword token
 * @param {number} open its `{`
 * @param {(start: number, end: number) => string} decode
 * @returns {FontFaceRule & { lastToken: number }}
 */
function readRule(css, tokens, at, open, decode) {
  /** @type {Descriptor[]} */
  const descriptors = [];
  /** @type {Token[]} */
  let current = [];
  let depth = 0;
  let i = open + 1;
  const finish = () => {
    const descriptor = readDescriptor(css, current);
    if (descriptor) descriptors.push(descriptor);
    current = [];
  };
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (depth === 0 && t.type === T.RightCurlyBracket) break;
    if (depth === 0 && t.type === T.Semicolon) {
      finish();
      continue;
    }
    if (OPENERS.has(t.type)) depth++;
    else if (CLOSERS.has(t.type)) depth = Math.max(0, depth - 1);
    current.push(t);
  }
  finish();
  const closed = i < tokens.length;
  const last = (/** @type {string} */ name) => descriptors.filter((d) => d.name === name).pop() ?? null;
  const src = last('src');
  const familyDescriptor = last('font-family');
  return {
    start: tokens[at].start,
    end: closed ? tokens[i].end : css.length,
    closed,
    descriptors,
    src,
    sources: src ? sourceEntries(css, tokens.filter((t) => t.start >= src.valueStart && t.end <= src.valueEnd)) : [],
    family: familyDescriptor ? familyName(decode, tokens.filter((t) => t.start >= familyDescriptor.valueStart && t.end <= familyDescriptor.valueEnd)) : null,
    unicodeRange: last('unicode-range'),
    lastToken: closed ? i : tokens.length - 1,
  };
}

/**
 * A descriptor from the tokens between two semicolons, or null when they are not `name: value`.
 * @param {string} css
 * @param {Token[]} tokens
 * @returns {Descriptor | null}
 */
function readDescriptor(css, tokens) {
  const significant = tokens.filter((t) => t.type !== T.WhiteSpace && t.type !== T.Comment);
  if (significant.length < 2 || significant[0].type !== T.Ident || significant[1].type !== TYPES.Colon) return null;
  const value = significant.slice(2);
  const colonEnd = significant[1].end;
  return {
    name: css.slice(significant[0].start, significant[0].end).toLowerCase(),
    start: significant[0].start,
    end: value.length ? value[value.length - 1].end : colonEnd,
    valueStart: value.length ? value[0].start : colonEnd,
    valueEnd: value.length ? value[value.length - 1].end : colonEnd,
  };
}

/**
 * The entries of a src value.
 * @param {string} css
 * @param {Token[]} tokens the value's tokens
 * @returns {SourceEntry[]}
 */
function sourceEntries(css, tokens) {
  /** @type {Token[][]} */
  const groups = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (depth === 0 && t.type === TYPES.Comma) {
      groups.push([]);
      continue;
    }
    if (OPENERS.has(t.type)) depth++;
    else if (CLOSERS.has(t.type)) depth = Math.max(0, depth - 1);
    groups[groups.length - 1].push(t);
  }
  return groups.map((group) => {
    const significant = group.filter((t) => t.type !== T.WhiteSpace && t.type !== T.Comment);
    const first = significant[0];
    /** @type {SourceEntry} */
    const entry = { kind: 'other', start: first?.start ?? 0, end: significant.length ? significant[significant.length - 1].end : 0, urlStart: -1, urlEnd: -1, formats: [], quote: '' };
    if (!first) return entry;
    const name = first.type === T.Function ? css.slice(first.start, first.end - 1).toLowerCase() : '';
    if (first.type === T.Url) {
      entry.kind = 'url';
      let s = css.indexOf('(', first.start) + 1;
      while (/[ \t\n\r\f]/.test(css[s])) s++;
      let e = css[first.end - 1] === ')' ? first.end - 1 : first.end;
      while (e > s && /[ \t\n\r\f]/.test(css[e - 1])) e--;
      [entry.urlStart, entry.urlEnd] = [s, e];
    } else if (name === 'url' && significant[1]?.type === T.String) {
      entry.kind = 'url';
      [entry.urlStart, entry.urlEnd] = stringInner(css, significant[1]);
    } else if (name === 'local') {
      entry.kind = 'local';
    }
    for (let k = 1; k < significant.length; k++) {
      const t = significant[k];
      if (t.type !== T.Function || css.slice(t.start, t.end - 1).toLowerCase() !== 'format') continue;
      for (let m = k + 1; m < significant.length && significant[m].type !== T.RightParenthesis; m++) {
        const arg = significant[m];
        if (arg.type === T.String) {
          entry.quote ||= css[arg.start];
          entry.formats.push(cssString.decode(css.slice(arg.start, arg.end)).toLowerCase());
        } else if (arg.type === T.Ident) entry.formats.push(css.slice(arg.start, arg.end).toLowerCase());
      }
    }
    return entry;
  });
}

/**
 * The inner range of a string token, without its quotes.
 * @param {string} css
 * @param {Token} t
 * @returns {[number, number]}
 */
function stringInner(css, t) {
  const quote = css[t.start];
  const closed = t.end - t.start >= 2 && css[t.end - 1] === quote;
  return [t.start + 1, closed ? t.end - 1 : t.end];
}

/**
 * A font-family descriptor's name: one string, or identifiers joined by single spaces.
 * @param {(start: number, end: number) => string} decode
 * @param {Token[]} tokens
 */
function familyName(decode, tokens) {
  const significant = tokens.filter((t) => t.type !== T.WhiteSpace && t.type !== T.Comment);
  if (significant.length === 1 && significant[0].type === T.String) return cssString.decode(decode(significant[0].start, significant[0].end));
  if (!significant.length || significant.some((t) => t.type !== T.Ident)) return null;
  return significant.map((t) => cssString.decode(`"${decode(t.start, t.end)}"`)).join(' ');
}
