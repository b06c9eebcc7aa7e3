/**
 * Finds the URLs in CSS text with their exact offsets, using css-tree's
 * tokenizer, so comments, strings and escapes are read as a browser reads them.
 * Found: url(...) in any form, the targets of import rules (a string or a
 * url), and the bare strings of image-set(); not those of an @supports
 * condition, which a browser tests and never fetches.
 */
import { tokenize, tokenTypes as T, string as cssString } from 'css-tree';
import { mediaHolds } from './image-choice.js';

/** The custom properties pagediet writes (src/images/image-set.js): set wherever their fallback would be drawn. */
const PAGEDIET_PROPERTY = /^--pagediet-bg-\d+$/;

/**
 * @typedef {object} CssUrl
 * @property {'url' | 'import'} kind
 * @property {number} start offset of the URL's first character (inside quotes or url())
 * @property {number} end offset after its last character
 * @property {boolean} escaped whether the raw text holds CSS escapes (backslashes)
 * @property {number} [choice] for an image-set() entry, and for the url() of the declaration just before one of
 *   the same property (its fallback): the image-set()'s offset, the same for all of them (a browser fetches one)
 * @property {string} [type] for an image-set() entry: its type(), lower case ('' when it has none)
 * @property {boolean} [overridden] for that fallback url(): a browser that reads the image-set() does not fetch it; also
 *   for the url()s of a declaration followed by one of the same property through a pagediet custom property
 *   (src/images/image-set.js, offerWidthsInStyleAttributes), and for that custom property's own fallback: a browser
 *   that reads custom properties draws what pagediet set the property to
 * @property {boolean} [media] inside an @media block whose condition does not hold at the robot's viewport
 */

const WS = /^[ \t\n\r\f]*/;
/** css-tree's Colon token type (its typings leave it out). */
const COLON = /** @type {Record<string, number>} */ (/** @type {unknown} */ (T)).Colon;

/**
 * @param {string} css
 * @returns {CssUrl[]}
 */
export function cssUrls(css) {
  /** @type {{ type: number, start: number, end: number }[]} */
  const tokens = [];
  tokenize(css, (type, start, end) => {
    if (type !== T.WhiteSpace && type !== T.Comment) tokens.push({ type, start, end });
  });

  /** @type {CssUrl[]} */
  const found = [];
  /** @param {'url' | 'import'} kind @param {number} start @param {number} end */
  const add = (kind, start, end) => {
    if (!supportsPrelude) found.push({ kind, start, end, escaped: css.slice(start, end).includes('\\'), ...(imageSetDepth > 0 ? { type: '' } : {}), ...(blocks.includes(false) ? { media: true } : {}), ...(propertyDepth > 0 ? { overridden: true } : {}) });
  };
  /** The blocks open: false for an @media block whose condition does not hold at the robot's viewport. @type {boolean[]} */
  const blocks = [];
  /** Where the prelude of an @media rule starts, until its block opens. */
  let mediaPrelude = -1;
  /** Inside an @supports rule's condition, whose url()s are tested, never fetched. */
  let supportsPrelude = false;
  /** Inner range of a string token, without its quotes. @param {{ start: number, end: number }} t */
  const stringInner = (t) => /** @type {[number, number]} */ (stringInnerRange(t));
  /** @param {{ start: number, end: number }} t */
  const stringInnerRange = (t) => {
    const quote = css[t.start];
    const closed = t.end - t.start >= 2 && css[t.end - 1] === quote;
    return [t.start + 1, closed ? t.end - 1 : t.end];
  };
  /** Inner range of an unquoted url-token `url(  x  )`. @param {{ start: number, end: number }} t */
  const urlTokenInner = (t) => /** @type {[number, number]} */ (urlTokenInnerRange(t));
  /** @param {{ start: number, end: number }} t */
  const urlTokenInnerRange = (t) => {
    let start = css.indexOf('(', t.start) + 1;
    start += WS.exec(css.slice(start))?.[0].length ?? 0;
    let end = css[t.end - 1] === ')' ? t.end - 1 : t.end;
    while (end > start && /[ \t\n\r\f]/.test(css[end - 1])) end--;
    return [start, end];
  };

  /** image-set() nesting: strings directly inside it are URLs. */
  let imageSetDepth = 0;
  /** The open image-set()'s token index, and the index in `found` of its first entry. */
  let imageSetToken = -1;
  let imageSetFirst = 0;
  /** The depth inside var(--pagediet-bg-N, ...), whose fallback url() is overridden. */
  let propertyDepth = 0;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const text = css.slice(t.start, t.end);
    if (t.type === T.AtKeyword && text.toLowerCase() === '@media') {
      mediaPrelude = t.end;
    } else if (t.type === T.AtKeyword && text.toLowerCase() === '@supports') {
      supportsPrelude = true;
    } else if (t.type === T.LeftCurlyBracket) {
      blocks.push(mediaPrelude < 0 || mediaHolds(css.slice(mediaPrelude, t.start)));
      mediaPrelude = -1;
      supportsPrelude = false;
    } else if (t.type === T.RightCurlyBracket) {
      blocks.pop();
    } else if (t.type === T.Semicolon) {
      mediaPrelude = -1;
      supportsPrelude = false;
    } else if (t.type === T.Url) {
      const [s, e] = urlTokenInner(t);
      add(isImport(tokens, i, css) ? 'import' : 'url', s, e);
    } else if (t.type === T.Function) {
      depth++;
      const name = text.slice(0, -1).toLowerCase();
      if (name === 'url' || name === 'src') {
        const next = tokens[i + 1];
        if (next && next.type === T.String) add(isImport(tokens, i, css) ? 'import' : 'url', ...stringInner(next));
      } else if ((name === 'image-set' || name === '-webkit-image-set') && imageSetDepth === 0 && !supportsPrelude) {
        imageSetDepth = depth;
        imageSetToken = i;
        imageSetFirst = found.length;
      } else if (name === 'var' && propertyDepth === 0 && tokens[i + 1]?.type === T.Ident && PAGEDIET_PROPERTY.test(css.slice(tokens[i + 1].start, tokens[i + 1].end))) {
        propertyDepth = depth;
        markPreviousDeclaration(tokens, i, found, css, { overridden: true });
      } else if (name === 'type' && imageSetDepth > 0 && depth === imageSetDepth + 1 && found.length > imageSetFirst) {
        const next = tokens[i + 1];
        const entry = found[found.length - 1];
        if (next && next.type === T.String && entry.type === '') entry.type = cssString.decode(css.slice(next.start, next.end)).trim().toLowerCase();
      }
    } else if (t.type === T.LeftParenthesis) {
      depth++;
    } else if (t.type === T.RightParenthesis) {
      if (depth === imageSetDepth) {
        imageSetDepth = 0;
        markImageSetChoice(tokens, imageSetToken, found, imageSetFirst, css);
      }
      if (depth === propertyDepth) propertyDepth = 0;
      depth = Math.max(0, depth - 1);
    } else if (t.type === T.String) {
      const prev = tokens[i - 1];
      if (prev && prev.type === T.AtKeyword && css.slice(prev.start, prev.end).toLowerCase() === '@import') {
        add('import', ...stringInner(t));
      } else if (imageSetDepth > 0 && depth === imageSetDepth && !isUrlFunction(prev, css)) {
        add('url', ...stringInner(t));
      }
    }
  }
  return found;
}

/**
 * Gives the entries of a closed image-set() (found[first..]) its choice, and
 * so the url() of the declaration just before, when that declaration sets the
 * same property: `background-image:url(a.jpg);background-image:image-set(...)`
 * is one choice, of which a browser that reads image-set() fetches one entry.
 * @param {{ type: number, start: number, end: number }[]} tokens
 * @param {number} at the image-set( token
 * @param {CssUrl[]} found
 * @param {number} first
 * @param {string} css
 */
function markImageSetChoice(tokens, at, found, first, css) {
  const choice = tokens[at].start;
  for (let k = first; k < found.length; k++) found[k].choice = choice;
  markPreviousDeclaration(tokens, at, found, css, { choice, overridden: true });
}

/**
 * Gives the url()s of the declaration before the one holding token `at`
 * these fields, when both set the same property.
 * @param {{ type: number, start: number, end: number }[]} tokens
 * @param {number} at
 * @param {CssUrl[]} found
 * @param {string} css
 * @param {{ choice?: number, overridden: true }} fields
 */
function markPreviousDeclaration(tokens, at, found, css, fields) {
  // Back to this declaration's property, then the declaration before it.
  const property = (/** @type {number} */ from) => {
    let i = from;
    while (i >= 0 && tokens[i].type !== T.Semicolon && tokens[i].type !== T.LeftCurlyBracket) i--;
    const ident = tokens[i + 1];
    const colon = tokens[i + 2];
    if (!ident || ident.type !== T.Ident || !colon || colon.type !== COLON) return null;
    return { name: css.slice(ident.start, ident.end).toLowerCase(), boundary: i };
  };
  const own = property(at);
  if (!own || own.boundary < 0 || tokens[own.boundary].type !== T.Semicolon) return;
  const before = property(own.boundary - 1);
  if (!before || before.name !== own.name) return;
  const from = tokens[before.boundary + 1].start;
  const to = tokens[own.boundary].start;
  for (const u of found) if (u.start >= from && u.end <= to && u.choice === undefined && u.kind === 'url') Object.assign(u, fields);
}

/**
 * Whether a token opens url( or src(, whose string argument was already taken.
 * @param {{ type: number, start: number, end: number } | undefined} token
 * @param {string} css
 */
function isUrlFunction(token, css) {
  if (!token || token.type !== T.Function) return false;
  const name = css.slice(token.start, token.end - 1).toLowerCase();
  return name === 'url' || name === 'src';
}

/**
 * Whether the url at token i is the target of an import rule.
 * @param {{ type: number, start: number, end: number }[]} tokens
 * @param {number} i
 * @param {string} css
 */
function isImport(tokens, i, css) {
  const prev = tokens[i - 1];
  return !!prev && prev.type === T.AtKeyword && css.slice(prev.start, prev.end).toLowerCase() === '@import';
}

/**
 * The references of a style sheet: kinds, decoded URLs and byte ranges.
 * @param {import('./document-view.js').DocumentView} view
 * @returns {import('./html-refs.js').FoundReference[]}
 */
export function stylesheetReferences(view) {
  return cssUrls(view.text).map((u) => {
    let url = view.decode(u.start, u.end);
    if (u.escaped) url = cssString.decode(`"${url}"`);
    /** @type {import('./html-refs.js').FoundReference} */
    const ref = { kind: u.kind === 'import' ? 'css-import' : 'css-url', url, start: view.byteOffset(u.start), end: view.byteOffset(u.end) };
    return withChoice(ref, u, 0);
  });
}

/**
 * A reference with its image-set() choice, if it has one.
 * @param {import('./html-refs.js').FoundReference} ref
 * @param {CssUrl} u
 * @param {number} offset where the CSS text starts in its document (choices are document offsets)
 */
export function withChoice(ref, u, offset) {
  if (u.choice !== undefined) ref.choice = offset + u.choice;
  if (u.type !== undefined) ref.type = u.type;
  if (u.overridden) ref.overridden = true;
  if (u.media) ref.media = true;
  return ref;
}
