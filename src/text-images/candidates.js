/**
 * The text-images pass's candidates: the images an <img src> or an
 * <input type=image> shows that are worth looking at (small, GIF, PNG or
 * JPEG, used no other way), each with every element that shows it, grouped
 * into shapes by tag name and attributes; or, for each image that stays, the
 * reason. Once an image is planned, whyNot() says why one of its uses keeps
 * it (its size, an image button that is no text).
 */
import { sniffImageType } from '../site/sniff.js';
import { ownString } from '../site/reference-table.js';
import { findPageImages, imageOfTag } from './elements.js';
import { forEachOrdered } from '../util/ordered.js';
import { layoutDeclarations, pixels } from './markup.js';
import { UseList } from './uses.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pass.js').PassContext} PassContext
 * @typedef {import('./plan.js').Plan} Plan
 * @typedef {import('./elements.js').ImageElement} ImageElement
 * @typedef {import('./markup.js').Declaration} Declaration
 * @typedef {import('./uses.js').Use} Use
 *
 * @typedef {object} Shape how elements show a candidate image: one object for
 *   every element that shows it with the same tag name and attributes (a site
 *   of 10,000 pages showing the same bullet has one shape and 10,000 uses)
 * @property {'img' | 'input'} name
 * @property {Record<string, string>} attrs
 * @property {number} width displayed; -1 when the element has no WIDTH (whyNot fills it in from the image)
 * @property {number} height the same for HEIGHT
 * @property {Declaration[]} layout
 *
 * @typedef {object} Candidate an image worth looking at
 * @property {SiteFile} image
 * @property {Buffer} bytes
 * @property {string} type
 * @property {UseList} uses
 * @property {Map<string, Shape>} shapes its uses' shapes, by tag name and attributes, in order of first use
 */

/** Only images up to this many bytes are looked at: text images are small. */
const MAX_BYTES = 32 * 1024;
/** Attributes that scripts, style sheets or image maps may depend on: an element with them stays an image. */
const BLOCKING_ATTRIBUTES = /^(id|name|class|style|usemap|ismap|srcset|sizes|lowsrc|on.*)$/;
/** The same for an image button, whose NAME goes into the form data (its replacement carries it) and which is only replaced on pages without scripts. */
const BLOCKING_BUTTON_ATTRIBUTES = /^(id|class|style|usemap|ismap|srcset|sizes|lowsrc|on.*)$/;
/** The image types a candidate may be, with the MIME type its replacement is proven against. */
export const MIME = /** @type {Record<string, string>} */ ({ gif: 'image/gif', png: 'image/png', jpeg: 'image/jpeg' });

/**
 * The images worth looking at, each with every element that shows it, or a
 * decision saying why it stays.
 * @param {Site} site
 * @param {PassContext} ctx
 * @returns {Promise<Candidate[]>}
 */
export async function findCandidates(site, ctx) {
  /** @type {Map<string, Candidate>} */
  const byImage = new Map();
  /** @type {Set<string>} */
  const rejected = new Set();
  const pages = site.pages;
  for (const page of pages) {
    for (const ref of page.references) {
      if ((ref.kind !== 'img' && ref.kind !== 'input-image') || ref.status !== 'ok' || !ref.target || rejected.has(ref.target)) continue;
      const image = site.get(ref.target);
      if (image.role !== 'asset' || byImage.has(image.path)) continue;
      if (image.outputSize > MAX_BYTES) {
        rejected.add(image.path);
        ctx.decide({ file: image.path, action: 'kept', reason: `larger than ${MAX_BYTES / 1024} KB, the most a text image may be (${image.outputSize} B)` });
        continue;
      }
      let bytes;
      try {
        bytes = await site.read(image.path);
      } catch {
        rejected.add(image.path);
        continue;
      }
      const type = sniffImageType(bytes.subarray(0, 12)) ?? (bytes[0] === 0xff && bytes[1] === 0xd8 ? 'jpeg' : null);
      if (!type || !MIME[type]) { rejected.add(image.path); continue; }
      byImage.set(image.path, { image, bytes, type, uses: new UseList(pages), shapes: new Map() });
    }
  }
  /** @type {Map<string, string>} why a candidate stays an image: the first reason, in file then byte order */
  const reasons = new Map();
  const referenced = site.referencesByTarget(new Set(byImage.keys()));
  for (const candidate of byImage.values()) {
    const other = (referenced.get(candidate.image.path) ?? []).find((r) => !((r.kind === 'img' && r.attribute === 'src') || r.kind === 'input-image'));
    if (other) reasons.set(candidate.image.path, `also used as ${other.kind} in ${other.source}`);
  }
  referenced.clear();
  // Page by page, a window at a time: the elements that show a candidate. An <img> is read from
  // its start tag, which its reference locates; a page with an image button is parsed (in the worker pool when the
  // site's pages are worth it), as its form decides. A page whose candidates all stay is not read.
  const showsCandidate = (/** @type {import('../site/site.js').Reference} */ r) => r.target !== undefined && byImage.has(r.target) && !reasons.has(r.target);
  await forEachOrdered(pages, async (page) => {
    const refs = page.references.filter(showsCandidate);
    if (!refs.length) return null;
    const bytes = await site.read(page.path);
    const charset = /** @type {string} */ (page.charset);
    if (!/^utf-16/.test(charset) && refs.every((r) => r.kind === 'img')) {
      const images = refs.map((r) => (r.tagStart === undefined || r.tagEnd === undefined ? null : imageOfTag(bytes, charset, { ...r, tagStart: r.tagStart, tagEnd: r.tagEnd })));
      if (images.every((image) => image !== null)) return { refs, found: { images } };
    }
    const options = { charset, bomLength: page.bomLength };
    /** @type {import('./elements.js').PageImages | { status: 'failed', reason: string }} */
    const found = site.pagesWorthThePool ? await ctx.compute('findPageImages', bytes, options) : findPageImages({ bytes, options });
    return { refs, found };
  }, (looked, page, pageIndex) => {
    // Candidates a page before this one ruled out are not looked for here.
    const refs = looked?.refs.filter(showsCandidate);
    if (!looked || !refs?.length) return;
    const { found } = looked;
    if ('status' in found) {
      ctx.warn(page.path, 'job-failed', `its text images kept as they are: ${found.reason}`);
      for (const ref of refs) reasons.set(/** @type {string} */ (ref.target), `its element in ${page.path} could not be located: ${found.reason}`);
      return;
    }
    for (const ref of refs) {
      const target = /** @type {string} */ (ref.target);
      if (reasons.has(target)) continue;
      const candidate = /** @type {Candidate} */ (byImage.get(target));
      const use = elementUse(page, ref, found.images, candidate.shapes);
      if ('reason' in use) reasons.set(target, use.reason);
      else candidate.uses.push(pageIndex, use.tagStart, use.tagEnd, use.shape);
    }
  });
  const out = [];
  for (const candidate of byImage.values()) {
    const reason = reasons.get(candidate.image.path);
    if (reason) ctx.decide({ file: candidate.image.path, action: 'kept', reason });
    else {
      candidate.uses.trim();
      out.push(candidate);
    }
  }
  return out;
}

/**
 * Why a use of a planned image cannot be replaced, or ''. Fills in a missing
 * WIDTH or HEIGHT from the image, as browsers do.
 * @param {Exclude<Plan, import('./plan.js').KeptPlan>} plan
 * @param {Use} use
 */
export function whyNot(plan, use) {
  const shape = use.shape; // every shape belongs to one image, so it is filled in from that image's plan
  if (shape.width < 0 && shape.height < 0) { shape.width = plan.width; shape.height = plan.height; }
  else if (shape.width < 0) shape.width = Math.round(plan.width * shape.height / plan.height);
  else if (shape.height < 0) shape.height = Math.round(plan.height * shape.width / plan.width);
  if (shape.name === 'input' && plan.status !== 'text') return `a form's image button showing ${plan.status === 'symbol' ? 'a symbol' : `a ${plan.status}`} in ${use.page.path}: only text buttons are rewritten`;
  if ((plan.status === 'text' || plan.status === 'symbol') && (shape.width !== plan.width || shape.height !== plan.height)) {
    return `shown at ${shape.width}x${shape.height}, not its own ${plan.width}x${plan.height}, in ${use.page.path}: scaled text is not replaced`;
  }
  if (plan.status === 'rule') {
    const across = plan.direction === 'horizontal' ? shape.height : shape.width;
    if (across !== plan.bands.reduce((s, b) => s + b.size, 0)) return `rule stretched across its bands in ${use.page.path}`;
  }
  return '';
}

/**
 * How one element shows a candidate image, or why that keeps the image.
 * Elements with the same tag name and attributes share one shape.
 * @param {SiteFile} page
 * @param {import('../site/site.js').Reference} ref
 * @param {ImageElement[]} elements the page's image elements
 * @param {Map<string, Shape>} shapes the image's shapes so far; a new one is added
 * @returns {Omit<Use, 'page'> | { reason: string }}
 */
function elementUse(page, ref, elements, shapes) {
  const element = elements.find((e) => e.srcStart === ref.start);
  if (!element) return { reason: `an element in ${page.path} could not be located` };
  const button = element.name === 'input';
  // As a <button>, an image button sends the same form data only when every submission of its form comes from it (docs/text-images.md).
  if (button && element.formIssue) return { reason: `a form's image button in ${page.path}: ${element.formIssue}, so a <button> could change the form data` };
  if (element.inPicture) return { reason: `inside <picture> in ${page.path}` };
  const key = JSON.stringify([element.name, element.attrs]);
  let shape = shapes.get(key);
  if (!shape) {
    const found = elementShape(element, page);
    if ('reason' in found) return found;
    shape = found;
    shapes.set(key, shape);
  }
  return { tagStart: element.tagStart, tagEnd: element.tagEnd, shape };
}

/**
 * The shape of an element that shows a candidate, or why it keeps the image.
 * @param {ImageElement} element
 * @param {SiteFile} page
 * @returns {Shape | { reason: string }}
 */
function elementShape(element, page) {
  const button = element.name === 'input';
  const blocking = Object.keys(element.attrs).find((a) => (button ? BLOCKING_BUTTON_ATTRIBUTES : BLOCKING_ATTRIBUTES).test(a));
  if (blocking) return { reason: `its ${blocking.toUpperCase()} attribute in ${page.path} may be used by scripts or styles` };
  // Its own strings: slices of the page's text would keep the whole text alive for the rest of the pass.
  const attrs = Object.fromEntries(Object.entries(element.attrs).map(([k, v]) => [ownString(k), ownString(v)]));
  const layout = layoutDeclarations(attrs);
  if ('reason' in layout) return { reason: `${layout.reason} (${page.path})` };
  if (button && !layout.declarations.some(([p]) => p === 'vertical-align' || p === 'float')) {
    return { reason: `a form's image button on the text baseline in ${page.path}: a <button>'s baseline is its text's, not its bottom edge as an image's is` };
  }
  const width = pixels(attrs.width);
  const height = pixels(attrs.height);
  if (width === null || height === null) return { reason: `WIDTH or HEIGHT is not in pixels in ${page.path}` };
  return { name: element.name, attrs, width: 'width' in attrs ? width : -1, height: 'height' in attrs ? height : -1, layout: layout.declarations };
}
