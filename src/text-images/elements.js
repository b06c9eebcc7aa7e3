/**
 * The <img> and <input type=image> elements of a page with their start
 * tag's byte range and decoded attributes: what the text-images pass needs
 * to rewrite one tag (where its <style> goes comes with the page findings).
 * For an image button, also whether every submission of its form comes from
 * it, the condition for rewriting it as a <button> with the same form data.
 */
import { decodeHTMLAttribute } from 'entities';
import { DocumentView } from '../site/document-view.js';
import { isElement, nodes, parsePage } from '../site/html-tree.js';
import { attributeValueRange } from '../site/html-refs.js';

/**
 * @typedef {import('domhandler').Element} Element
 * @typedef {import('domhandler').AnyNode} AnyNode
 * @typedef {{ startOffset: number, endOffset: number }} Span
 *
 * @typedef {object} ImageElement
 * @property {'img' | 'input'} name
 * @property {number} tagStart byte offset of the start tag
 * @property {number} tagEnd byte offset after it
 * @property {number} srcStart byte offset of the src value
 * @property {Record<string, string>} attrs lower-case names, values decoded with the page's charset
 * @property {boolean} inPicture
 * @property {string | null} [formIssue] for <input type=image>: null when it is the only way its form can be
 *   submitted (the form's one submit control, on a page without scripts), else why it is not
 */

/** @typedef {{ images: ImageElement[] }} PageImages */

/**
 * pageImages as a worker-pool job (src/build/jobs.js): pages are parsed on every core at once.
 * @param {{ bytes: Uint8Array, options: { charset: string, bomLength: number } }} input
 * @returns {PageImages}
 */
export function findPageImages({ bytes, options }) {
  return pageImages(bytes, options.charset, options.bomLength);
}

/**
 * @param {Uint8Array} bytes
 * @param {string} charset
 * @param {number} bomLength
 * @returns {PageImages}
 */
export function pageImages(bytes, charset, bomLength) {
  const view = new DocumentView(bytes, charset, bomLength);
  /** @type {Element[]} every element, in document order (template contents included) */
  const all = [];
  for (const node of nodes(parsePage(view))) if (isElement(node)) all.push(node);
  /** @type {ImageElement[]} */
  const images = [];
  /** @type {string | null | undefined} computed on the first image button */
  let scripts;
  for (const el of all) {
    if (el.name !== 'img' && el.name !== 'input') continue;
    if (el.name === 'input' && (el.attribs.type ?? '').trim().toLowerCase() !== 'image') continue;
    const tag = /** @type {{ startTag?: Span } | null | undefined} */ (el.sourceCodeLocation)?.startTag;
    const src = attributeValueRange(view, el, 'src');
    if (!tag || !src) continue;
    /** @type {ImageElement} */
    const image = {
      name: /** @type {'img' | 'input'} */ (el.name),
      tagStart: view.byteOffset(tag.startOffset),
      tagEnd: view.byteOffset(tag.endOffset),
      srcStart: view.byteOffset(src.start),
      attrs: decodedAttributes(view, el),
      inPicture: /** @type {Element | null} */ (el.parent)?.name === 'picture',
    };
    if (el.name === 'input') {
      if (scripts === undefined) scripts = pageScripts(all);
      image.formIssue = scripts ?? soleSubmitterIssue(all, el);
    }
    images.push(image);
  }
  return { images };
}

/**
 * An <img> from its start tag alone, where the site model's reference to its
 * SRC gives the tag's byte range and whether a <picture> holds it: a start
 * tag is read the same wherever it stands, so the page need not be parsed
 * (10 to 20 ms a page) for an image's attributes. Null when the range holds
 * no <img> whose SRC starts where the reference does.
 * @param {Uint8Array} bytes the page's
 * @param {string} charset the page's, one that extends ASCII (not UTF-16)
 * @param {{ tagStart: number, tagEnd: number, start: number, inPicture?: boolean }} ref
 * @returns {ImageElement | null}
 */
export function imageOfTag(bytes, charset, { tagStart, tagEnd, start, inPicture }) {
  const view = new DocumentView(bytes.subarray(tagStart, tagEnd), charset);
  let el;
  for (const node of nodes(parsePage(view))) {
    if (isElement(node) && node.name === 'img') {
      el = node;
      break;
    }
  }
  const src = el && attributeValueRange(view, el, 'src');
  if (!el || !src || tagStart + view.byteOffset(src.start) !== start) return null;
  return { name: 'img', tagStart, tagEnd, srcStart: start, attrs: decodedAttributes(view, el), inPicture: inPicture ?? false };
}

/**
 * An element's attributes, names in lower case, values decoded with the page's charset and character references.
 * @param {DocumentView} view
 * @param {Element} el
 */
function decodedAttributes(view, el) {
  /** @type {Record<string, string>} */
  const attrs = {};
  for (const name of Object.keys(el.attribs)) {
    const range = attributeValueRange(view, el, name);
    attrs[name] = range ? decodeHTMLAttribute(view.decode(range.start, range.end)) : '';
  }
  return attrs;
}

/**
 * Why a script may run in the page, or null: a script could submit a form
 * without its submit control (form.submit() sends no coordinates, but would
 * send the replacement's hidden field) or count the form's controls.
 * @param {Element[]} all the page's elements
 */
function pageScripts(all) {
  for (const el of all) {
    if (el.name === 'script') return 'the page has a <script>, which may submit the form or read its controls';
    for (const [name, value] of Object.entries(el.attribs)) {
      if (/^on/.test(name)) return `the page has scripts (${name.toUpperCase()} on <${el.name}>), which may submit the form or read its controls`;
      if (/^\s*javascript:/i.test(value)) return `the page has scripts (a javascript: URL on <${el.name}>), which may submit the form or read its controls`;
    }
  }
  return null;
}

/**
 * Why an image button is not the only control that can submit its form, or
 * null when it is. Its form is the one its FORM attribute names, else its
 * nearest <form> ancestor. Another control counts when it submits (<input
 * type=submit|image>, a <button> whose type is not button or reset) and names
 * the form in its FORM attribute, or has none and lies inside the form, or
 * after the form's start and before the next form's: the parser's form
 * element pointer still ties such controls to the form when a table closed
 * the <form> element early (1990s markup does this).
 * @param {Element[]} all the page's elements in document order
 * @param {Element} input
 */
function soleSubmitterIssue(all, input) {
  const formId = input.attribs.form;
  const owner = formId !== undefined
    ? all.find((e) => formId !== '' && e.attribs.id === formId)
    : closestForm(input);
  if (!owner || owner.name !== 'form') return formId !== undefined ? `its FORM attribute names no <form>` : 'not inside a <form>';
  const forms = all.filter((e) => e.name === 'form');
  const start = offset(owner);
  const next = forms.map(offset).filter((o) => o > start).sort((a, b) => a - b)[0] ?? Infinity;
  for (const control of all) {
    if (control === input || !submits(control)) continue;
    const named = control.attribs.form;
    const tied = named !== undefined
      ? owner.attribs.id !== undefined && named === owner.attribs.id
      : closestForm(control) === owner || (offset(control) > start && offset(control) < next);
    if (tied) return `its form has another submit control (<${control.name}${control.attribs.type ? ` type=${control.attribs.type}` : ''}>)`;
  }
  return null;
}

/**
 * The element itself or its nearest ancestor that is a <form>.
 * @param {Element} el
 * @returns {Element | undefined}
 */
function closestForm(el) {
  for (let node = /** @type {Element | null} */ (el); node; node = /** @type {Element | null} */ (node.parent)) {
    if (isElement(node) && node.name === 'form') return node;
  }
  return undefined;
}

/** Whether an element is a control that submits its form. @param {Element} el */
function submits(el) {
  const type = (el.attribs.type ?? '').trim().toLowerCase();
  if (el.name === 'input') return type === 'submit' || type === 'image';
  return el.name === 'button' && type !== 'button' && type !== 'reset';
}

/** Where an element starts in the source (elements the parser made up sort first). @param {Element} el */
function offset(el) {
  return /** @type {{ startOffset: number } | null | undefined} */ (el.sourceCodeLocation)?.startOffset ?? -1;
}
