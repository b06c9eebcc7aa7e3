/**
 * The text-images pass's replacements, written: each accepted replacement's
 * markup and CSS class, worked out per shape and charset; its cost in bytes
 * against the image's bytes and requests (only a replacement that costs less
 * is taken); and the pages rewritten, their tags replaced and the rules added
 * in a <style> of each page or one shared style sheet, the images no page
 * refers to any more removed with --prune.
 */
import path from 'node:path';
import { minifyRules } from './css-job.js';
import { applyEdits, encodePath } from '../site/edits.js';
import { cssRule, encodeMarkup, htmlAttribute, htmlText, imageButtonMarkup } from './markup.js';
import { forEachOrdered } from '../util/ordered.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pass.js').PassContext<{ textImagesCss: 'inline' | 'file', prune: boolean }>} ApplyContext the pass's context; of its options, these
 * @typedef {import('./plan.js').Plan} Plan
 * @typedef {import('./markup.js').Declaration} Declaration
 * @typedef {import('./uses.js').UseList} UseList
 * @typedef {import('./candidates.js').Shape} Shape
 *
 * @typedef {object} Written the replacement of one shape: its class, and its markup as text and in each charset of its pages
 * @property {string} className
 * @property {Map<string, { markup: string, bytes: Buffer }>} byCharset
 *
 * @typedef {object} Replacement
 * @property {SiteFile} image
 * @property {UseList} uses
 * @property {Map<Shape, { declarations: Declaration[], text: string }>} content
 * @property {Exclude<Plan, import('./plan.js').KeptPlan>} plan
 * @property {number} score the lowest similarity of its uses
 * @property {number} bytes the image's
 */

/**
 * What a request costs beyond the image's bytes: a small GET and its 200
 * response headers over HTTP/1.1 (the loader records 250 to 350 bytes for the
 * fixtures' images; the lower figure is used).
 */
export const REQUEST_BYTES = 250;
/** Distinct sets of rules whose minified CSS is kept for the pages after (every page of the generated 1,000-page site has the same). */
const DISTINCT_RULES_KEPT = 1000;
/** The name of the shared style sheet in --text-images-css file mode. */
const SHARED_CSS = 'pagediet.css';

/**
 * Writes the replacements whose markup and CSS cost less than the image and
 * its request: a class per distinct style, each page's tags replaced and its
 * rules added, and the requests counted.
 * @param {Site} site
 * @param {ApplyContext} ctx
 * @param {Replacement[]} accepted
 */
export async function applyReplacements(site, ctx, accepted) {
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
      ctx.decide({ file: r.image.path, action: 'kept', reason: `${what}: replacement costs ${cost} B, not less than the image's ${r.bytes} B and ${pages.size} request(s)`, score: roundScore(r.score) });
      continue;
    }
    taken.push({ uses: r.uses, written });
    replaced.add(r.image.path);
    ctx.removedRequests(pages.size);
    ctx.decide({ file: r.image.path, action: 'changed', reason: `${what}, similarity ${r.score.toFixed(2)}; ${r.bytes} B and ${pages.size} request(s) → ${cost >= 0 ? '+' : ''}${cost} B of HTML and CSS`, score: roundScore(r.score) });
  }
  if (!taken.length) return;

  /** @param {Iterable<string>} names */
  const rulesOf = (names) => [...names].sort(byNumber).map((n) => cssRule(n, /** @type {Declaration[]} */ (rules.get(n)))).join('');
  /** @type {Map<string, Promise<string>>} a page's minified rules by its rules: pages that show the same images share them */
  const cssByRules = new Map();
  /**
   * A page's rules minified, in the worker pool when the site's pages are worth it (csso takes about 10 ms a page),
   * once for the pages with the same rules.
   * @param {Iterable<string>} names
   * @returns {Promise<string>}
   */
  const cssOfPage = (names) => {
    const rules = rulesOf(names);
    let css = cssByRules.get(rules);
    if (!css) {
      css = minifyPageRules(rules);
      if (cssByRules.size < DISTINCT_RULES_KEPT) cssByRules.set(rules, css);
    }
    return css;
  };
  /** @param {string} rules */
  const minifyPageRules = async (rules) => {
    // A job the pool stopped is done here.
    const css = site.pagesWorthThePool ? /** @type {string | { status: 'failed' }} */ (await ctx.compute('minifyReplacementCss', Buffer.from(rules, 'utf8'), {})) : null;
    return typeof css === 'string' ? css : minifyRules(rules);
  };
  /** @type {string | null} */
  let sharedPath = null;
  if (mode === 'file') {
    sharedPath = freePath(site, SHARED_CSS);
    const css = Buffer.from(minifyRules(rulesOf(rules.keys())), 'utf8');
    await site.add(sharedPath, css);
    ctx.touched(sharedPath, 0, css.length);
  }
  // Each page's new bytes are made a window at a time, and written in page order; a page whose images all became
  // <span>s keeps its references, moved (site.writeReplacedImages), others are parsed again (in the worker pool when
  // the site's pages are worth it).
  await forEachOrdered([...usesByPage(taken)], async ({ page, uses }) => {
    const pagePath = page.path;
    const charset = /** @type {string} */ (page.charset);
    const before = await site.read(pagePath);
    /** @type {import('../site/edits.js').Edit[]} */
    const byteEdits = [];
    /** @type {Set<string>} */
    const names = new Set();
    // A <button> may close an open one, and a <link> is a new reference: only <span>s and a <style> keep the tree.
    let keepsTree = !sharedPath;
    for (const [t, i] of uses) {
      const use = taken[t].uses.at(i);
      if (use.shape.name !== 'img') keepsTree = false;
      const entry = /** @type {Written} */ (taken[t].written.get(use.shape));
      byteEdits.push({ start: use.tagStart, end: use.tagEnd, bytes: /** @type {{ bytes: Buffer }} */ (entry.byCharset.get(charset)).bytes });
      if (entry.className) names.add(entry.className);
    }
    if (names.size) {
      const head = sharedPath
        ? `<link rel=stylesheet href="${encodePath(path.posix.relative(path.posix.dirname(pagePath), sharedPath))}">`
        : `<style>${await cssOfPage(names)}</style>`;
      const at = page.headEnd ?? Math.min(...byteEdits.map((e) => e.start));
      byteEdits.push({ start: at, end: at, bytes: encodeMarkup(head, charset) });
    }
    const after = applyEdits(before, byteEdits);
    return { size: before.length, after, byteEdits, found: keepsTree ? null : await site.parsePage(after) };
  }, async ({ size, after, byteEdits, found }, { page }) => {
    if (found) await site.write(page.path, after, found);
    else await site.writeReplacedImages(page.path, after, byteEdits);
    ctx.touched(page.path, size, after.length);
  });
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

/**
 * A similarity as the summary gives it: three decimals.
 * @param {number} score
 */
export function roundScore(score) {
  return Math.round(score * 1000) / 1000;
}
