/**
 * What replaces an image: the CSS declarations that draw its content (the
 * box, colours, font and the text's offset in the box), those that keep its
 * place in the layout (ALIGN, HSPACE, VSPACE), and the element that carries
 * them, written for the page's charset.
 */
import { cssColour } from './pixels.js';
import { FALLBACK_FAMILIES } from './estimate.js';
import { encodeText } from '../site/charset.js';

/**
 * @typedef {import('./plan.js').Plan} Plan
 * @typedef {import('./estimate.js').StyleEstimate} StyleEstimate
 * @typedef {[string, string]} Declaration
 *
 * @typedef {object} Placement where the text sits in its box, found by rendering
 * @property {number} indent text-indent, px
 * @property {number} lineHeight px
 * @property {number} [letterSpacing] px, when the browser's advances differ from the image's
 */

/**
 * The declarations that draw a replacement of a given size.
 * @param {Plan} plan a spacer, rule, text or symbol plan
 * @param {number} width displayed width, px
 * @param {number} height displayed height, px
 * @param {StyleEstimate | null} style for text and symbols
 * @param {Placement | null} placement for text and symbols
 * @param {'span' | 'button'} [element] what carries them: a <button> (for an image button) needs its UA styles reset
 * @returns {Declaration[]}
 */
export function contentDeclarations(plan, width, height, style, placement, element = 'span') {
  /** @type {Declaration[]} */
  const out = [['display', 'inline-block']];
  if (plan.status === 'spacer') {
    out.push(['width', `${width}px`], ['height', `${height}px`]);
    if (plan.colour) out.push(['background', cssColour(plan.colour)]);
    return out;
  }
  if (plan.status === 'rule') return out.concat(ruleDeclarations(plan, width, height));
  if ((plan.status !== 'text' && plan.status !== 'symbol') || !style || !placement) throw new Error(`no content for a ${plan.status} plan`);
  // text-align is inherited (a centred table cell would move the text inside the box); the rest is set or not inherited.
  out.push(['width', `${width}px`], ['height', `${height}px`], ['overflow', 'hidden'], ['white-space', 'nowrap'], ['text-align', 'left'], ['color', cssColour(plan.fg)]);
  if (!plan.transparent) out.push(['background', cssColour(plan.bg)]);
  const font = [style.style === 'italic' ? 'italic' : '', style.weight === 'bold' ? 'bold' : '', `${style.size}px/${placement.lineHeight}px`, [style.name, ...(FALLBACK_FAMILIES[style.name] ?? []), style.family].join()].filter(Boolean).join(' ');
  out.push(['font', font]);
  if (placement.indent) out.push(['text-indent', `${placement.indent}px`]);
  if (placement.letterSpacing) out.push(['letter-spacing', `${placement.letterSpacing}px`]);
  if (element === 'button') {
    // Chromium centres a button's content vertically when it is shorter than the box (and tops it when it
    // overflows): a bottom padding that fills the box below the line puts the text where the span's would be.
    const below = Math.max(0, height - placement.lineHeight);
    out.push(['border', '0'], ['padding', below ? `0 0 ${below}px` : '0']);
    if (plan.transparent) out.push(['background', 'none']);
  }
  return out;
}

/**
 * A rule's bands as a box with borders: the outer bands are borders, a
 * middle band (or a single one) the box's background. Borders add to the
 * box, so its own thickness is the inner band's.
 * @param {import('./plan.js').RulePlan} plan
 * @param {number} width displayed
 * @param {number} height displayed
 * @returns {Declaration[]}
 */
function ruleDeclarations(plan, width, height) {
  const horizontal = plan.direction === 'horizontal';
  const natural = plan.bands.reduce((sum, b) => sum + b.size, 0);
  if ((horizontal ? height : width) !== natural) throw new Error('a rule stretched across its bands');
  const [first, ...rest] = plan.bands;
  const single = plan.bands.length === 1;
  const middle = rest.length === 2 ? rest[0] : null;
  const last = rest.length ? rest[rest.length - 1] : null;
  const inner = single ? first.size : middle ? middle.size : 0;
  /** @type {Declaration[]} */
  const out = horizontal ? [['width', `${width}px`], ['height', `${inner}px`]] : [['width', `${inner}px`], ['height', `${height}px`]];
  const [start, end] = horizontal ? ['border-top', 'border-bottom'] : ['border-left', 'border-right'];
  if (single) return out.concat([['background', cssColour(first.colour)]]);
  out.push([start, `${first.size}px solid ${cssColour(first.colour)}`]);
  if (middle) out.push(['background', cssColour(middle.colour)]);
  if (last) out.push([end, `${last.size}px solid ${cssColour(last.colour)}`]);
  return out;
}

/**
 * The layout an <img>'s presentational attributes give it, as Chromium maps
 * them (HTMLElement::ApplyAlignmentAttributeToStyle and the image's own
 * hspace, vspace and border), or why they cannot be carried over.
 * @param {Record<string, string>} attrs lower-case names, decoded values
 * @returns {{ declarations: Declaration[] } | { reason: string }}
 */
export function layoutDeclarations(attrs) {
  /** @type {Declaration[]} */
  const out = [];
  const align = (attrs.align ?? '').trim().toLowerCase();
  const alignments = /** @type {Record<string, Declaration | null>} */ ({
    '': null, baseline: null, bottom: null,
    absmiddle: ['vertical-align', 'middle'], top: ['vertical-align', 'top'], texttop: ['vertical-align', 'text-top'], absbottom: ['vertical-align', 'bottom'],
    left: ['float', 'left'], right: ['float', 'right'],
  });
  if (!(align in alignments)) return { reason: `ALIGN=${align} has no standard CSS equivalent` };
  const mapped = alignments[align];
  if (mapped) out.push(mapped);
  const hspace = pixels(attrs.hspace);
  const vspace = pixels(attrs.vspace);
  if (hspace === null || vspace === null) return { reason: 'HSPACE or VSPACE is not a number of pixels' };
  if (hspace || vspace) out.push(['margin', vspace === hspace ? `${vspace}px` : `${vspace ? `${vspace}px` : '0'} ${hspace ? `${hspace}px` : '0'}`]);
  const border = pixels(attrs.border);
  if (border === null) return { reason: 'BORDER is not a number of pixels' };
  // A border takes the link's colour, which the image inherits and the replacement (with its own colour) would not.
  if (border > 0) return { reason: `BORDER=${border}: the border's colour comes from the link around it` };
  return { declarations: out };
}

/** Attributes of an image button that its <button> keeps: what it submits, how, and what it says. */
const BUTTON_ATTRIBUTES = ['form', 'formaction', 'formenctype', 'formmethod', 'formnovalidate', 'formtarget', 'disabled', 'title', 'tabindex', 'accesskey', 'autofocus'];

/**
 * What replaces an <input type=image>: a submit <button> named NAME.x with the
 * value 0 and a hidden NAME.y of 0 right after it (x and y when it has no
 * name), which put the same entries at the same place in the form data as
 * the image button does when it submits with the coordinates 0,0.
 * @param {Record<string, string>} attrs the input's, lower-case names, decoded values
 * @param {string} className
 * @param {string} text
 * @param {string} charset
 */
export function imageButtonMarkup(attrs, className, text, charset) {
  const name = attrs.name ?? '';
  const field = (/** @type {string} */ axis) => `"${htmlAttribute(name ? `${name}.${axis}` : axis, charset)}"`;
  const kept = BUTTON_ATTRIBUTES.filter((a) => a in attrs).map((a) => (attrs[a] === '' ? ` ${a}` : ` ${a}="${htmlAttribute(attrs[a], charset)}"`)).join('');
  const form = 'form' in attrs ? ` form="${htmlAttribute(attrs.form, charset)}"` : '';
  const disabled = 'disabled' in attrs ? ' disabled' : '';
  return `<button type=submit class=${className} name=${field('x')} value=0${kept}>${htmlText(text, charset)}</button><input type=hidden name=${field('y')} value=0${form}${disabled}>`;
}

/**
 * A presentational pixel length (absent: 0), or null when it is not one.
 * @param {string | undefined} value
 */
export function pixels(value) {
  if (value === undefined || value.trim() === '') return 0;
  const m = /^\s*(\d+)(?:\.\d*)?(?:px)?\s*$/i.exec(value);
  return m ? Number(m[1]) : null;
}

/**
 * A rule for a class.
 * @param {string} name
 * @param {Declaration[]} declarations
 */
export function cssRule(name, declarations) {
  return `.${name}{${declarations.map(([p, v]) => `${p}:${v}`).join(';')}}`;
}

/**
 * Text for an HTML document: markup characters escaped, and characters its
 * charset cannot hold written as numeric character references.
 * @param {string} text
 * @param {string} charset
 */
export function htmlText(text, charset) {
  const unicode = charset === 'utf-8' || charset.startsWith('utf-16');
  const latin1 = charset === 'windows-1252';
  let out = '';
  for (const ch of text) {
    const code = /** @type {number} */ (ch.codePointAt(0));
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (code < 0x80 || unicode || (latin1 && code >= 0xa0 && code <= 0xff)) out += ch;
    else out += `&#${code};`;
  }
  return out;
}

/**
 * Text for an attribute value in double quotes.
 * @param {string} text
 * @param {string} charset
 */
export function htmlAttribute(text, charset) {
  return htmlText(text, charset).replace(/"/g, '&quot;');
}

/**
 * Bytes of markup made by htmlText/htmlAttribute for a document's charset.
 * @param {string} markup
 * @param {string} charset
 */
export function encodeMarkup(markup, charset) {
  // htmlText leaves only ASCII, or Latin-1 letters in windows-1252, where they are the same bytes.
  if (charset === 'windows-1252') return Buffer.from(markup, 'latin1');
  return encodeText(markup, charset);
}
