/**
 * Images of words, symbols, spacers and rules rebuilt as real text and CSS,
 * as the 1997 CSS1 study proposed for its "solutions" banner: each candidate
 * is classified from its pixels, its text taken from ALT/TITLE (or read by
 * OCR when they do not match), its style estimated by rendering, and the
 * replacement drawn in Chromium and compared with the image. Only what is
 * proven similar, and smaller than the image and its request, is replaced;
 * every other image stays, with the reason in the summary.
 */
import path from 'node:path';
import { minify } from 'csso';
import { applyEdits, encodePath } from '../site/edits.js';
import { prune } from '../images/options.js';
import { boolean, fraction, oneOf, text } from '../options/kinds.js';
import { option, optional } from '../options/table.js';
import { sniffImageType } from '../images/gif.js';
import { pageImages } from '../text-images/elements.js';
import { NoBrowserError, RenderSessions } from '../text-images/browser.js';
import { findBrowsers, howToGetABrowser } from '../text-images/browser-discovery.js';
import { fitReplacement } from '../text-images/verify.js';
import { cssRule, encodeMarkup, htmlAttribute, htmlText, imageButtonMarkup, layoutDeclarations, pixels } from '../text-images/markup.js';
import { ownString } from '../site/reference-table.js';
import { UseList } from '../text-images/uses.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../pass.js').PassContext<import('../pass.js').ResolvedOptions<typeof options>>} PassContext
 * @typedef {import('../text-images/plan.js').Plan} Plan
 * @typedef {import('../text-images/elements.js').ImageElement} ImageElement
 * @typedef {import('../text-images/markup.js').Declaration} Declaration
 * @typedef {import('../text-images/verify.js').Fitted} Fitted
 * @typedef {import('../text-images/uses.js').Use} Use
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
 *
 * @typedef {object} Written the replacement of one shape: its class, and its markup as text and in each charset of its pages
 * @property {string} className
 * @property {Map<string, { markup: string, bytes: Buffer }>} byCharset
 *
 * @typedef {object} Replacement
 * @property {SiteFile} image
 * @property {UseList} uses
 * @property {Map<Shape, { declarations: Declaration[], text: string }>} content
 * @property {Exclude<Plan, import('../text-images/plan.js').KeptPlan>} plan
 * @property {number} score the lowest similarity of its uses
 * @property {number} bytes the image's
 */

const options = {
  /** Calibrated on the fixtures (docs/text-images.md, "The similarity measure"). */
  textImagesThreshold: option(fraction, 0.8, 'the similarity (0-1) a text image\'s replacement must reach against the image in Chromium'),
  textImagesCss: option(oneOf(/** @type {const} */ (['inline', 'file'])), 'inline', 'where text-image replacements\' CSS goes: a <style> in each page (inline), or one shared pagediet.css (file)'),
  ocr: option(boolean, true, 'read text images whose ALT and TITLE are missing or wrong with OCR (tesseract.js)'),
  browser: optional(text('<path>', { path: true }), 'a Chromium, Chrome or Edge executable to prove text-image replacements in, tried before the browsers pagediet finds (see pagediet doctor)'),
  prune,
};

/** Only images up to this many bytes are looked at: text images are small. */
const MAX_BYTES = 32 * 1024;
/** Ink similarity a rendered ALT (or OCR) text needs to count as what the image shows (in the estimate, before Chromium). */
const TEXT_AGREEMENT = 0.6;
/** OCR results below this confidence are not used. */
const MIN_OCR_CONFIDENCE = 30;
/**
 * What a request costs beyond the image's bytes: a small GET and its 200
 * response headers over HTTP/1.1 (the loader records 250 to 350 bytes for the
 * fixtures' images; the lower figure is used).
 */
export const REQUEST_BYTES = 250;
/** Attributes that scripts, style sheets or image maps may depend on: an element with them stays an image. */
const BLOCKING_ATTRIBUTES = /^(id|name|class|style|usemap|ismap|srcset|sizes|lowsrc|on.*)$/;
/** The same for an image button, whose NAME goes into the form data (its replacement carries it) and which is only replaced on pages without scripts. */
const BLOCKING_BUTTON_ATTRIBUTES = /^(id|class|style|usemap|ismap|srcset|sizes|lowsrc|on.*)$/;
/** The name of the shared style sheet in --text-images-css file mode. */
const SHARED_CSS = 'pagediet.css';
const MIME = /** @type {Record<string, string>} */ ({ gif: 'image/gif', png: 'image/png', jpeg: 'image/jpeg' });

/** @type {import('../pass.js').Pass<typeof options>} */
export default {
  name: 'text-images',
  description: 'images of text, symbols, spacers and rules rebuilt as HTML and CSS, checked in Chromium',
  options,
  async run(site, ctx) {
    const threshold = ctx.options.textImagesThreshold;
    /** @type {ParsedPages} */
    const parsed = new Map();
    const candidates = await findCandidates(site, ctx, parsed);
    if (!candidates.length) return;
    const choice = { browser: ctx.options.browser };
    /** @param {string} why */
    const keepAll = (why) => {
      ctx.warn('', 'no-browser', `every text image kept: ${why}`);
      for (const c of candidates) ctx.decide({ file: c.image.path, action: 'skipped', reason: 'no browser to prove the replacement' });
    };
    if (!findBrowsers(choice).length) {
      keepAll(`no browser found to prove replacements: ${howToGetABrowser()}`);
      return;
    }
    /** @type {Replacement[]} */
    const accepted = [];
    // Fitting in Chromium runs in one browser per thread at once; decisions are then taken in the candidates' order.
    const sessions = new RenderSessions(ctx.threads, choice);
    try {
      // The plans (classification, style, OCR) all at once: the pool runs one per core.
      let planned = 0;
      const plans = await Promise.all(candidates.map(async ({ image, bytes, shapes }) => {
        const texts = [...new Set([...shapes.values()].flatMap((shape) => [shape.attrs.alt, shape.attrs.title]).filter((t) => t !== undefined))];
        const plan = /** @type {Plan | { status: 'failed', reason: string }} */ (await ctx.compute('textImagePlan', bytes, { texts, ocr: ctx.options.ocr, agreement: TEXT_AGREEMENT, minOcrConfidence: MIN_OCR_CONFIDENCE }));
        ctx.progress(image.path, { done: ++planned, total: candidates.length });
        return plan;
      }));
      let fitted = 0;
      const outcomes = await Promise.all(candidates.map(async ({ image, bytes, uses, shapes, type }, i) => {
        const plan = plans[i];
        if (plan.status === 'failed' || plan.status === 'kept') return { plan };
        for (const use of uses) {
          const unfit = whyNot(plan, use);
          if (unfit) return { plan, unfit };
        }
        /** @type {Map<string, Fitted>} by element and size */
        const fits = new Map();
        for (const shape of shapes.values()) {
          const size = fitKey(shape);
          if (fits.has(size) || shape.width === 0 || shape.height === 0) continue;
          const element = shape.name === 'input' ? 'button' : 'span';
          /** @type {Fitted} */
          let fit;
          try {
            const key = { fit: 'textImageFit', image: bytes, plan, width: shape.width, height: shape.height, ...(element === 'button' ? { element } : {}) };
            fit = await ctx.cached(key, () => sessions.use((session) => fitReplacement(session, plan, { bytes, mime: MIME[type] }, shape.width, shape.height, element)));
          } catch (error) {
            if (error instanceof NoBrowserError) return { plan, noBrowser: error };
            // A fit Chromium could not draw (a timeout on an overloaded machine): this image stays, the others go on.
            const reason = `Chromium could not draw its replacement: ${String(/** @type {Error} */ (error)?.message ?? error).split('\n')[0]}`;
            ctx.warn(image.path, 'render-failed', `kept as it is: ${reason}`);
            return { plan, unfit: reason };
          }
          fits.set(size, fit);
        }
        ctx.progress(image.path, { done: ++fitted, total: candidates.length });
        return { plan, fits };
      }));
      const noBrowser = outcomes.find((o) => 'noBrowser' in o)?.noBrowser;
      if (noBrowser) {
        keepAll(noBrowser.message);
        return;
      }
      const launched = await sessions.launched?.catch(() => null);
      if (launched?.failed.length) ctx.warn('', 'browser-fallback', `replacements proven in ${launched.candidate.name} (${launched.executable}): ${launched.failed.join('; ')}`);
      for (const [i, { image, bytes, uses, shapes }] of candidates.entries()) {
        const { plan, unfit, fits } = /** @type {{ plan: Plan | { status: 'failed', reason: string }, unfit?: string, fits?: Map<string, Fitted> }} */ (outcomes[i]);
        if (plan.status === 'failed') {
          // The job was stopped (time limit, out of memory): the image stays.
          ctx.warn(image.path, 'job-stopped', `kept as it is: ${plan.reason}`);
          ctx.decide({ file: image.path, action: 'kept', reason: plan.reason });
          continue;
        }
        if (plan.status === 'kept') {
          ctx.decide({ file: image.path, action: 'kept', reason: plan.reason, ...(plan.score === undefined ? {} : { score: round(plan.score) }) });
          continue;
        }
        if (!fits) {
          ctx.decide({ file: image.path, action: 'kept', reason: /** @type {string} */ (unfit) });
          continue;
        }
        const worst = Math.min(1, ...[...fits.values()].map((f) => f.score));
        if (worst < threshold) {
          ctx.decide({ file: image.path, action: 'kept', reason: `similarity ${worst.toFixed(2)} below ${threshold}`, score: round(worst) });
          continue;
        }
        /** @type {Replacement['content']} */
        const content = new Map();
        for (const shape of shapes.values()) {
          const fit = fits.get(fitKey(shape));
          content.set(shape, { declarations: fit ? fit.content : [], text: fit ? fit.text : '' });
        }
        accepted.push({ image, uses, content, plan, score: worst, bytes: bytes.length });
      }
    } finally {
      await sessions.close();
    }
    await apply(site, ctx, accepted, parsed);
  },
};

/** @typedef {Map<string, number | null>} ParsedPages the byte offset of each page's head end (see pageImages), by site path */

/**
 * The images worth looking at, each with every element that shows it, or a
 * decision saying why it stays.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {ParsedPages} parsed filled with each page looked at, for apply()
 * @returns {Promise<Candidate[]>}
 */
async function findCandidates(site, ctx, parsed) {
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
        ctx.decide({ file: image.path, action: 'kept', reason: `${image.outputSize} B: larger than text images are (${MAX_BYTES} B at most)` });
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
  // Page by page, each parsed once; only its head's end and the elements that show a candidate are kept.
  for (const [pageIndex, page] of pages.entries()) {
    const refs = page.references.filter((r) => r.target !== undefined && byImage.has(r.target) && !reasons.has(r.target));
    if (!refs.length) continue;
    const found = pageImages(await site.read(page.path), /** @type {string} */ (page.charset), page.bomLength);
    parsed.set(page.path, found.headEnd);
    for (const ref of refs) {
      const target = /** @type {string} */ (ref.target);
      if (reasons.has(target)) continue;
      const candidate = /** @type {Candidate} */ (byImage.get(target));
      const use = elementUse(page, ref, found.images, candidate.shapes);
      if ('reason' in use) reasons.set(target, use.reason);
      else candidate.uses.push(pageIndex, use.tagStart, use.tagEnd, use.shape);
    }
  }
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
 * Shapes of one image that share a fitted replacement: the same element and size.
 * @param {Shape} shape
 */
function fitKey(shape) {
  return `${shape.name} ${shape.width}x${shape.height}`;
}

/**
 * Why a use of a planned image cannot be replaced, or ''. Fills in a missing
 * WIDTH or HEIGHT from the image, as browsers do.
 * @param {Exclude<Plan, import('../text-images/plan.js').KeptPlan>} plan
 * @param {Use} use
 */
function whyNot(plan, use) {
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

/**
 * Writes the replacements whose markup and CSS cost less than the image and
 * its request: a class per distinct style, each page's tags replaced and its
 * rules added, and the requests counted.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {Replacement[]} accepted
 * @param {ParsedPages} parsed the pages as findCandidates parsed them (unchanged since)
 */
async function apply(site, ctx, accepted, parsed) {
  if (!accepted.length) return; // nothing to write: no page needs decoding for a free class prefix
  const mode = ctx.options.textImagesCss;
  const prefix = await freePrefix(site);
  /** @type {Map<string, string>} declarations (as a rule body) → class name */
  const classes = new Map();
  /** @type {Map<string, Declaration[]>} class name → declarations */
  const rules = new Map();
  /** @type {Set<string>} images whose every use is replaced */
  const replaced = new Set();
  /**
   * The replacements taken, each with its markup by shape and charset. Their
   * uses are not made edit objects until their page is written: a site of
   * 10,000 pages has more than a million (docs/scaling.md).
   * @type {{ uses: UseList, written: Map<Shape, Written> }[]}
   */
  const taken = [];

  for (const r of accepted) {
    const newClasses = new Set();
    let markupDelta = 0;
    /** The class of a shape's replacement: one per distinct rule body, numbered in order of first use. @param {Shape} shape */
    const classFor = (shape) => {
      const all = [.../** @type {{ declarations: Declaration[] }} */ (r.content.get(shape)).declarations, ...shape.layout];
      const body = cssRule('', all);
      let name = classes.get(body);
      if (!name) {
        name = `${prefix}${classes.size + 1}`;
        classes.set(body, name);
        rules.set(name, all);
        newClasses.add(name);
      }
      return name;
    };
    /** @type {Map<Shape, Written>} worked out once per shape and charset */
    const written = new Map();
    /** @type {Set<string>} */
    const pages = new Set();
    let firstMarkup = '';
    for (const use of r.uses) {
      const shape = use.shape;
      const charset = /** @type {string} */ (use.page.charset);
      let entry = written.get(shape);
      if (!entry) {
        entry = { className: shape.width > 0 && shape.height > 0 ? classFor(shape) : '', byCharset: new Map() };
        written.set(shape, entry);
      }
      let markup = entry.byCharset.get(charset);
      if (!markup) {
        const text = /** @type {{ text: string }} */ (r.content.get(shape)).text;
        const html = !entry.className ? '' : shape.name === 'input'
          ? imageButtonMarkup(shape.attrs, entry.className, text, charset)
          : `<span class=${entry.className}${shape.attrs.title ? ` title="${htmlAttribute(shape.attrs.title, charset)}"` : ''}>${htmlText(text, charset)}</span>`;
        markup = { markup: html, bytes: encodeMarkup(html, charset) };
        entry.byCharset.set(charset, markup);
      }
      if (!pages.size) firstMarkup = markup.markup;
      markupDelta += markup.bytes.length - (use.tagEnd - use.tagStart);
      pages.add(use.page.path);
    }
    const cssBytes = [...newClasses].reduce((sum, name) => sum + cssRule(name, /** @type {Declaration[]} */ (rules.get(name))).length, 0) * (mode === 'inline' ? pages.size : 1);
    const cost = markupDelta + cssBytes;
    const saved = r.bytes + REQUEST_BYTES * pages.size;
    const button = r.uses.shapes.find((shape) => shape.name === 'input');
    const field = button?.attrs.name ? `${button.attrs.name}.` : '';
    const what = `${describe(r.plan, firstMarkup)}${button ? `, image button as a submit <button> (sends ${field}x=0&${field}y=0)` : ''}`;
    if (cost >= saved) {
      for (const name of newClasses) {
        for (const [body, n] of classes) if (n === name) classes.delete(body);
        rules.delete(name);
      }
      ctx.decide({ file: r.image.path, action: 'kept', reason: `${what}: replacement costs ${cost} B, not less than the image's ${r.bytes} B and ${pages.size} request(s)`, score: round(r.score) });
      continue;
    }
    taken.push({ uses: r.uses, written });
    replaced.add(r.image.path);
    ctx.removedRequests(pages.size);
    ctx.decide({ file: r.image.path, action: 'changed', reason: `${what}, similarity ${r.score.toFixed(2)}; ${r.bytes} B and ${pages.size} request(s) → ${cost >= 0 ? '+' : ''}${cost} B of HTML and CSS`, score: round(r.score) });
  }
  if (!taken.length) return;

  /** @param {Iterable<string>} names */
  const cssOf = (names) => minify([...names].sort(byNumber).map((n) => cssRule(n, /** @type {Declaration[]} */ (rules.get(n)))).join('')).css;
  /** @type {string | null} */
  let sharedPath = null;
  if (mode === 'file') {
    sharedPath = freePath(site, SHARED_CSS);
    const css = Buffer.from(cssOf(rules.keys()), 'utf8');
    await site.add(sharedPath, css);
    ctx.touched(sharedPath, 0, css.length);
  }
  for (const { page, uses } of usesByPage(taken)) {
    const pagePath = page.path;
    const charset = /** @type {string} */ (page.charset);
    const before = await site.read(pagePath);
    /** @type {import('../site/edits.js').Edit[]} */
    const byteEdits = [];
    /** @type {Set<string>} */
    const names = new Set();
    for (const [t, i] of uses) {
      const use = taken[t].uses.at(i);
      const entry = /** @type {Written} */ (taken[t].written.get(use.shape));
      byteEdits.push({ start: use.tagStart, end: use.tagEnd, bytes: /** @type {{ bytes: Buffer }} */ (entry.byCharset.get(charset)).bytes });
      if (entry.className) names.add(entry.className);
    }
    if (names.size) {
      const head = sharedPath
        ? `<link rel=stylesheet href="${encodePath(path.posix.relative(path.posix.dirname(pagePath), sharedPath))}">`
        : `<style>${cssOf(names)}</style>`;
      const at = parsed.get(pagePath) ?? Math.min(...byteEdits.map((e) => e.start));
      byteEdits.push({ start: at, end: at, bytes: encodeMarkup(head, charset) });
    }
    const after = applyEdits(before, byteEdits);
    await site.write(pagePath, after);
    ctx.touched(pagePath, before.length, after.length);
  }
  // No page refers to a replaced image any more; like the image passes' originals, it goes only with --prune.
  if (!ctx.options.prune) return;
  const referenced = site.referencedPaths();
  for (const imagePath of replaced) {
    if (referenced.has(imagePath)) continue;
    ctx.touched(imagePath, site.get(imagePath).outputSize, 0);
    site.remove(imagePath);
  }
}

/**
 * The uses of the replacements taken, page by page: pages in the order of
 * their first use, each page's uses in replacement then use order, as
 * [replacement, use] indexes. Packed in typed arrays, one page made objects at a time.
 * @param {{ uses: UseList }[]} taken
 * @returns {Generator<{ page: SiteFile, uses: [number, number][] }>}
 */
function* usesByPage(taken) {
  const pages = taken[0].uses.pages;
  const counts = new Uint32Array(pages.length);
  /** @type {number[]} */
  const order = [];
  for (const { uses } of taken) {
    for (let i = 0; i < uses.length; i++) {
      const p = uses.pageIndexAt(i);
      if (counts[p]++ === 0) order.push(p);
    }
  }
  const starts = new Uint32Array(pages.length);
  let total = 0;
  for (const p of order) {
    starts[p] = total;
    total += counts[p];
  }
  const slots = new Uint32Array(total * 2);
  const next = starts.slice();
  for (const [t, { uses }] of taken.entries()) {
    for (let i = 0; i < uses.length; i++) {
      const o = next[uses.pageIndexAt(i)]++ * 2;
      slots[o] = t;
      slots[o + 1] = i;
    }
  }
  for (const p of order) {
    /** @type {[number, number][]} */
    const list = [];
    for (let k = starts[p]; k < starts[p] + counts[p]; k++) list.push([slots[k * 2], slots[k * 2 + 1]]);
    yield { page: pages[p], uses: list };
  }
}

/**
 * A short account of a replacement for the summary.
 * @param {Plan} plan
 * @param {string} markup
 */
function describe(plan, markup) {
  if (plan.status === 'spacer') return markup ? `spacer${plan.colour ? ' (coloured)' : ''}` : 'spacer with no size, removed';
  if (plan.status === 'rule') return `${plan.direction} rule`;
  if (plan.status === 'text' || plan.status === 'symbol') {
    const e = plan.estimates[0];
    const face = `${e.name}${e.weight === 'bold' ? ' bold' : ''}${e.style === 'italic' ? ' italic' : ''} ${e.size}px`;
    return `${plan.status} ${JSON.stringify(e.text)} (${plan.status === 'symbol' ? 'shape' : plan.source === 'ocr' ? `OCR, confidence ${plan.ocr?.confidence}` : 'ALT'}), ${face}`;
  }
  return plan.status;
}

/**
 * A class prefix no page or style sheet of the site already uses.
 * @param {Site} site
 */
async function freePrefix(site) {
  const documents = [...site.files.values()].filter((f) => f.role !== 'asset');
  // One document at a time, not the whole site's text at once: another prefix is rarely needed.
  for (let n = 0; ; n++) {
    const prefix = n ? `pd${n}-` : 'pd';
    const used = new RegExp(`\\b${prefix}\\d`);
    let taken = false;
    for (const file of documents) {
      const text = (await site.read(file.path).catch(() => Buffer.alloc(0))).toString('latin1');
      if (used.test(text)) {
        taken = true;
        break;
      }
    }
    if (!taken) return prefix;
  }
}

/**
 * A site path not yet taken, from a wanted name.
 * @param {Site} site
 * @param {string} wanted
 */
function freePath(site, wanted) {
  let candidate = wanted;
  for (let n = 2; site.files.has(candidate) || site.directories.has(candidate); n++) candidate = wanted.replace(/\.css$/, `-${n}.css`);
  return candidate;
}

/** @param {string} a @param {string} b */
function byNumber(a, b) {
  return Number(/\d+$/.exec(a)?.[0]) - Number(/\d+$/.exec(b)?.[0]);
}

/** @param {number} score */
function round(score) {
  return Math.round(score * 1000) / 1000;
}
