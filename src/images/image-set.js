/**
 * CSS backgrounds that offer an image in other formats: each `background` or
 * `background-image` declaration that draws the image is followed by a copy
 * whose url() is an image-set() with a typed entry per format, the image
 * itself last:
 *
 *   background-image:url(a.jpg);
 *   background-image:image-set(url(a.avif) type("image/avif"), url(a.jpg) type("image/jpeg"))
 *
 * A browser that cannot read image-set() with type() drops the second
 * declaration as invalid and keeps the first; one that can takes the first
 * type it shows. Style sheets, <style> elements and style attributes alike.
 *
 * Written by hand on the bytes around each reference the site model found
 * (its URL's exact range): a CSS parser would rewrite the rest of the file,
 * and the edit must touch nothing but the declaration. A declaration the scan
 * cannot delimit safely (inside another function, an unquoted attribute,
 * another property) is left as it is.
 */
import path from 'node:path';
import { applyEdits, encodePath } from '../site/edits.js';
import { encodeText } from '../site/charset.js';

/** Properties whose url() may become an image-set(). */
const PROPERTIES = new Set(['background', 'background-image']);
const CSS_KINDS = new Set(['css-url', 'style-element-url', 'style-attribute-url']);
/** Where media queries can go: style sheets and <style> elements. */
const STYLE_SHEET_KINDS = new Set(['css-url', 'style-element-url']);
const STYLE_ATTRIBUTE_KINDS = new Set(['style-attribute-url']);
/** The custom properties pagediet writes start so (src/site/css-refs.js knows them). */
export const CUSTOM_PROPERTY_PREFIX = '--pagediet-bg-';
/** A condition that holds where image-set() takes type(): the browsers its offers are written for. */
const IMAGE_SET_TYPES = '@supports (background-image:image-set(url("") type("image/jpeg")))';

/**
 * @typedef {{ target: string, mime: string }} OfferedFormat
 * @typedef {{ start: number, end: number, quote: string | null }} Declaration byte range; quote: the style attribute's
 *   delimiter, null in a style sheet or <style>
 */

/**
 * Adds the image-set() copy after every declaration that draws SHOWN.
 * @param {import('../site/site.js').Site} site
 * @param {string} shown site path of the image the declarations draw
 * @param {OfferedFormat[]} sources preferred formats, in order
 * @param {string} shownMime the type of SHOWN itself, its image-set() entry (last)
 * @returns {Promise<number>} declarations given an image-set()
 */
export async function offerInCss(site, shown, sources, shownMime) {
  return editDrawingDeclarations(site, shown, CSS_KINDS, ({ text, call, declaration, relative }) => {
    const q = declaration.quote === '"' ? "'" : '"';
    const fallback = text.slice(call.start, call.end);
    const entries = [...sources.map(({ target, mime }) => `url(${relative(target)}) type(${q}${mime}${q})`), `${fallback} type(${q}${shownMime}${q})`];
    const copy = text.slice(declaration.start, call.start) + `image-set(${entries.join(', ')})` + text.slice(call.end, declaration.end);
    return { at: declaration.end, text: `;${copy.trim()}` };
  }, false);
}

/**
 * @typedef {object} DrawingDeclaration a `background` or `background-image` declaration that draws an image with a
 *   plain url(), found by editDrawingDeclarations
 * @property {string} text its file's text, one char a byte (offsets are byte offsets; the scan looks at ASCII only)
 * @property {{ start: number, end: number }} call the url( ... ) call
 * @property {Declaration} declaration
 * @property {(target: string) => string} relative a site path as a URL relative to the file
 */

/**
 * Finds every declaration that draws SHOWN with a plain url() (no image-set()
 * yet) in the files holding references of these kinds, once each, and
 * inserts what `edit` returns for it; each file is read and written once.
 * @param {import('../site/site.js').Site} site
 * @param {string} shown
 * @param {Set<string>} kinds reference kinds to look at
 * @param {(found: DrawingDeclaration) => { at: number, text: string }[] | { at: number, text: string } | null} edit
 *   what to insert where; null: leave it
 * @param {boolean} overridden whether to look at declarations an image-set() or a pagediet custom property after
 *   them overrides (false: their choice is offered already)
 * @returns {Promise<number>} declarations edited
 */
async function editDrawingDeclarations(site, shown, kinds, edit, overridden) {
  /** @type {Map<string, import('../site/site.js').Reference[]>} */
  const bySource = new Map();
  for (const ref of site.referencesTo(shown)) {
    if (!kinds.has(ref.kind)) continue;
    const list = bySource.get(ref.source) ?? [];
    list.push(ref);
    bySource.set(ref.source, list);
  }
  let edited = 0;
  for (const [source, refs] of bySource) {
    const file = site.get(source);
    const bytes = await site.read(source);
    const text = bytes.toString('latin1');
    const fromDir = path.posix.dirname(source) === '.' ? '' : path.posix.dirname(source);
    const relative = (/** @type {string} */ target) => encodePath(path.posix.relative(fromDir, target));
    /** @type {import('../site/edits.js').Edit[]} */
    const edits = [];
    /** @type {Set<number>} */
    const done = new Set();
    for (const ref of refs) {
      if (ref.overridden && !overridden) continue;
      const call = urlCall(text, ref.start, ref.end);
      if (!call) continue;
      // In a style attribute, its delimiter ends the declaration where no `;` does.
      const quote = ref.kind === 'style-attribute-url' ? attributeQuote(text, call.start) : null;
      if (ref.kind === 'style-attribute-url' && quote === null) continue;
      const declaration = declarationAround(text, call.start, call.end, quote);
      if (!declaration || done.has(declaration.start)) continue;
      const body = text.slice(declaration.start, declaration.end);
      const property = body.slice(0, body.indexOf(':')).trim().toLowerCase();
      if (!PROPERTIES.has(property) || /image-set\(/i.test(body)) continue;
      done.add(declaration.start);
      const inserts = edit({ text, call, declaration, relative });
      if (!inserts) continue;
      for (const insert of Array.isArray(inserts) ? inserts : [inserts]) {
        edits.push({ start: insert.at, end: insert.at, bytes: encodeText(insert.text, /** @type {string} */ (file.charset ?? 'utf-8')) });
      }
      edited++;
    }
    if (edits.length > 0) await site.write(source, applyEdits(bytes, edits));
  }
  return edited;
}

/**
 * The url( ... ) call around a URL's range, or null when the URL is not
 * written in one (an import rule's string, an image-set() string).
 * @param {string} text
 * @param {number} urlStart
 * @param {number} urlEnd
 * @returns {{ start: number, end: number } | null}
 */
export function urlCall(text, urlStart, urlEnd) {
  let i = urlStart - 1;
  if (text[i] === '"' || text[i] === "'") i--;
  while (i >= 0 && /\s/.test(text[i])) i--;
  if (text[i] !== '(' || text.slice(i - 3, i).toLowerCase() !== 'url') return null;
  const start = i - 3;
  let j = urlEnd;
  if (text[j] === '"' || text[j] === "'") j++;
  while (j < text.length && /\s/.test(text[j])) j++;
  if (text[j] !== ')') return null;
  return { start, end: j + 1 };
}

/**
 * The quote that delimits the style attribute an offset is in, or null when
 * it cannot tell (or the attribute has none): the last `style=` before it in
 * the same tag.
 * @param {string} text
 * @param {number} at
 * @returns {string | null}
 */
function attributeQuote(text, at) {
  const tagStart = text.lastIndexOf('<', at);
  if (tagStart < 0 || text.lastIndexOf('>', at) > tagStart) return null;
  let quote = null;
  for (const m of text.slice(tagStart, at).matchAll(/[\s"']style[ \t\n\r\f]*=[ \t\n\r\f]*(["'])/gi)) quote = m[1];
  return quote;
}

/**
 * The declaration (property: value) around a range, without its `;`, or null
 * when it cannot be delimited: inside another function's parentheses, or in
 * a style attribute without quotes.
 * @param {string} text
 * @param {number} from
 * @param {number} to
 * @param {string | null} [attributeQuote] the delimiter of the style attribute the range is in, when known
 * @returns {Declaration | null}
 */
export function declarationAround(text, from, to, attributeQuote = null) {
  let start = from - 1;
  let depth = 0;
  /** @type {string | null} */
  let quote = attributeQuote;
  for (; start >= 0; start--) {
    const c = text[start];
    if (c === ')') depth++;
    else if (c === '(') {
      if (depth === 0) return null;
      depth--;
    } else if (depth === 0 && (c === ';' || c === '{')) break;
    else if (depth === 0 && (c === '"' || c === "'")) {
      if (attributeQuote !== null && c !== attributeQuote) return null;
      // A quote outside parentheses before the property: a style attribute's delimiter.
      quote = c;
      break;
    } else if (depth === 0 && (c === '=' || c === '<' || c === '>' || c === '}')) return null;
  }
  if (start < 0) return null;
  let end = to;
  depth = 0;
  for (; end < text.length; end++) {
    const c = text[end];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '"' || c === "'") {
      if (c === quote && depth === 0) break;
      const close = text.indexOf(c, end + 1);
      if (close === -1) return null;
      end = close;
    } else if (depth === 0 && (c === ';' || c === '}')) break;
    else if (c === '<') return null;
  }
  if (end >= text.length && quote !== null) return null;
  // Keep any space before the end out of the declaration, so the copy follows it directly.
  let declEnd = end;
  while (declEnd > to && /\s/.test(text[declEnd - 1])) declEnd--;
  if (!text.slice(start + 1, from).includes(':')) return null;
  return { start: start + 1, end: declEnd, quote };
}

/**
 * @typedef {object} WidthTier the image a range of viewport widths draws a CSS background with
 * @property {string} media a media condition, e.g. '(min-width: 768px) and (max-width: 1199px)'
 * @property {string} plain the site path of the image for browsers without image-set() types
 * @property {{ target: string, density: number, mime: string }[]} entries the image-set() entries, preferred type first
 */

/**
 * Offers a CSS background in smaller widths: after each style rule (in a
 * style sheet or <style>) whose `background` or `background-image` draws
 * SHOWN with a plain url(), one @media block per tier repeats the rule's
 * selector with that declaration, its url() swapped for the tier's image and
 * followed by the tier's image-set(). Only the image changes: the repeated
 * declaration is the author's, and it comes right after the author's rule, so
 * everything later in the cascade still overrides it. Callers offer this only
 * for images every element draws with background-size cover or contain, where
 * an image's resolution does not change what is drawn. Style attributes
 * cannot hold media queries and are left as they are.
 * @param {import('../site/site.js').Site} site
 * @param {string} shown site path of the image the declarations draw
 * @param {WidthTier[]} tiers
 * @returns {Promise<number>} rules given tiers
 */
export async function offerWidthsInCss(site, shown, tiers) {
  /** Rules given their blocks already, by file text and end (one rule may draw the image twice). */
  const done = new Map();
  return editDrawingDeclarations(site, shown, STYLE_SHEET_KINDS, ({ text, call, declaration, relative }) => {
    if (declaration.quote !== null) return null;
    const rule = ruleAround(text, declaration.start, declaration.end);
    const ends = done.get(text) ?? new Set();
    done.set(text, ends);
    if (!rule || ends.has(rule.end)) return null;
    ends.add(rule.end);
    const before = text.slice(declaration.start, call.start), after = text.slice(call.end, declaration.end);
    return {
      at: rule.end,
      text: tiers.map((tier) => {
        return `@media ${tier.media}{${rule.selector}{${before}url(${relative(tier.plain)})${after};${before}${tierImageSet(tier, relative, ', ')}${after}}}`;
      }).join(''),
    };
  }, true);
}

/**
 * A tier's image-set(): each entry with its density and type.
 * @param {WidthTier} tier
 * @param {(target: string) => string} relative
 * @param {string} separator between entries
 */
function tierImageSet(tier, relative, separator) {
  return `image-set(${tier.entries.map((e) => `url(${relative(e.target)}) ${e.density}x type("${e.mime}")`).join(separator)})`;
}

/**
 * The style rule a declaration is in: its selector, and the offset after its
 * closing brace; null when the declaration is not directly in a style rule
 * (an at-rule's block) or the selector names a pseudo-element, whose box the
 * layout does not measure.
 * @param {string} text
 * @param {number} from the declaration's start
 * @param {number} to its end
 * @returns {{ selector: string, end: number } | null}
 */
export function ruleAround(text, from, to) {
  let open = from - 1;
  while (open >= 0 && text[open] !== '{' && text[open] !== '}') open--;
  if (open < 0 || text[open] !== '{') return null;
  let start = open - 1;
  while (start >= 0 && text[start] !== '}' && text[start] !== '{' && text[start] !== ';') start--;
  const selector = text.slice(start + 1, open).replace(/\/\*[\s\S]*?\*\//g, '').trim();
  if (!selector || selector.startsWith('@') || /::|:(before|after|first-line|first-letter)\b/i.test(selector) || selector.includes('}')) return null;
  let end = to;
  for (; end < text.length; end++) {
    const c = text[end];
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, end + 1);
      if (close === -1) return null;
      end = close;
    } else if (c === '{') return null;
    else if (c === '}') break;
  }
  if (end >= text.length) return null;
  return { selector, end: end + 1 };
}

/**
 * Offers a CSS background that style attributes draw in smaller widths and
 * other formats. A style attribute cannot hold a media query, so the
 * declaration is followed by a copy whose url() is a custom property of the
 * page's own, with the url() as its fallback:
 *
 *   style="background-image: url(a.jpg);background-image: var(--pagediet-bg-1,url(a.jpg))"
 *
 * and a <style> at the end of the page's <head> sets that property, per range
 * of viewport widths, to an image-set() of the range's widths (1x, 2x) and
 * formats, only where image-set() takes type():
 *
 *   @supports (...) {@media (max-width: 575px){:root{--pagediet-bg-1:image-set(...)}} ...}
 *
 * Elsewhere the property is not set and the copy draws its fallback, the
 * same image as before; a browser without custom properties drops the copy
 * and keeps the author's declaration. The tiers must cover every width (the
 * ranges of widthTiers, full size included), so a browser that sets the
 * property never draws the fallback. The property's name is not used by the
 * page already (numbered past any it has).
 * @param {import('../site/site.js').Site} site
 * @param {string} shown site path of the image the declarations draw
 * @param {WidthTier[]} tiers
 * @returns {Promise<number>} declarations given the property
 */
export async function offerWidthsInStyleAttributes(site, shown, tiers) {
  /** The last property number used, by page text. @type {Map<string, number>} */
  const used = new Map();
  return editDrawingDeclarations(site, shown, STYLE_ATTRIBUTE_KINDS, ({ text, call, declaration, relative }) => {
    if (declaration.quote === null) return null;
    const head = text.toLowerCase().lastIndexOf('</head', call.start);
    if (head < 0) return null;
    let last = used.get(text);
    if (last === undefined) {
      last = 0;
      for (const m of text.matchAll(new RegExp(`${CUSTOM_PROPERTY_PREFIX}(\\d+)`, 'g'))) last = Math.max(last, Number(m[1]));
    }
    const name = `${CUSTOM_PROPERTY_PREFIX}${++last}`;
    used.set(text, last);
    const rules = tiers.map((tier) => {
      const rule = `:root{${name}:${tierImageSet(tier, relative, ',')}}`;
      return tier.media ? `@media ${tier.media}{${rule}}` : rule;
    }).join('');
    const before = text.slice(declaration.start, call.start), after = text.slice(call.end, declaration.end);
    return [
      { at: head, text: `<style>${IMAGE_SET_TYPES}{${rules}}</style>` },
      { at: declaration.end, text: `;${before.trimStart()}var(${name},${text.slice(call.start, call.end)})${after}` },
    ];
  }, false);
}
