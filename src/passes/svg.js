/**
 * SVG files and the <svg> elements inside pages through svgo (src/svg/optimize.js
 * has the presets), each result kept only when it is smaller and Chromium
 * draws it exactly as the original, pixel for pixel, at its natural size and
 * at device scale 2 (src/svg/proof.js). Ids something outside refers to are
 * kept (src/svg/references.js); SVG that declares entities or refers to a
 * file: URL is never parsed, SVG with scripts, <foreignObject> or animation
 * is copied as it is (src/svg/checks.js). A result that draws differently is
 * tried again with only the plugins that change no number, then given up
 * with a warning. With no browser to prove them in, no SVG changes.
 * SVG files go through src/svg/files.js, inline <svg>s through src/svg/pages.js.
 * docs/svg.md.
 */
import { NoBrowserError } from '../browser/no-browser-error.js';
import { browser } from '../images/options.js';
import { wholeNumber } from '../options/kinds.js';
import { option } from '../options/table.js';
import { extensionOf } from '../site/mime.js';
import { optimizeFiles } from '../svg/files.js';
import { optimizeInline } from '../svg/pages.js';
import { SiteNames } from '../svg/references.js';
import { NOT_DRAWN, SvgProof } from '../svg/proof.js';

const options = {
  browser,
  // 8, not svgo's 3: Chromium's antialiasing moves with a change of 0.0001 px, so rounded drawings seldom prove identical
  // (on 582 SVGs: 3 digits saved 19%, 8 digits 27%, in about half the time; docs/svg.md).
  svgPrecision: option(wholeNumber({ max: 12, argument: '<digits>' }), 8, 'digits svgo keeps after the point in SVG coordinates and numbers (fewer: smaller files, but fewer prove pixel-identical in Chromium and are kept)'),
};

/** SVG files optimized and proven together, and pages whose inline <svg>s are. */
const FILES_PER_BATCH = 64;
const PAGES_PER_BATCH = 16;

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../build/pipeline.js').PassContext} PassContext
 * @typedef {import('../svg/optimize.js').SvgJobOptions} SvgJobOptions
 * @typedef {import('../svg/optimize.js').SvgJobResult} SvgJobResult
 * @typedef {import('../svg/proof.js').ProofOutcome} ProofOutcome
 * @typedef {import('../svg/units.js').Group} Group
 */

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'svg',
  description: 'SVG files and inline <svg> through svgo, each result proven pixel-identical in Chromium at 1x and 2x',
  options,
  async run(site, ctx) {
    const state = new SvgPassState(site, ctx);
    try {
      const files = [...site.files.values()].filter((f) => f.role === 'asset' && extensionOf(f.path) === 'svg');
      for (let at = 0; at < files.length; at += FILES_PER_BATCH) await optimizeFiles(state, files.slice(at, at + FILES_PER_BATCH), { done: at, total: files.length });
      const pages = site.pages;
      for (let at = 0; at < pages.length; at += PAGES_PER_BATCH) await optimizeInline(state, pages.slice(at, at + PAGES_PER_BATCH), { done: at, total: pages.length });
    } finally {
      await state.close();
    }
    if (state.noBrowser) {
      const n = state.unprovenForNoBrowser;
      ctx.decide({ file: '', action: 'skipped', reason: `${n} SVG drawing${n === 1 ? '' : 's'} svgo makes smaller left as ${n === 1 ? 'it is' : 'they are'}: no browser to prove ${n === 1 ? 'it' : 'them'} in (${state.noBrowser})` });
    }
  },
};

/** What the pass shares across its batches: the site's names, the browser, proofs already made. */
class SvgPassState {
  /** @param {Site} site @param {PassContext} ctx */
  constructor(site, ctx) {
    this.site = site;
    this.ctx = ctx;
    /** @type {Promise<SiteNames> | null} */
    this.namesRead = null;
    /** @type {SvgProof | null} */
    this.proof = null;
    /** @type {import('playwright-core').Browser | null} */
    this.browser = null;
    this.browserVersion = '';
    /** Why no browser started, once one failed to. @type {string | null} */
    this.noBrowser = null;
    this.unprovenForNoBrowser = 0;
    /** Outcomes of this build's proofs, by key. @type {Map<string, Promise<ProofOutcome>>} */
    this.proven = new Map();
  }

  names() {
    this.namesRead ??= SiteNames.read(this.site);
    return this.namesRead;
  }

  /**
   * The proof, in the build's browser, opened on first use and again when that browser has gone (the proofs it was
   * drawing failed; the next are drawn in the browser started again); null when none starts.
   */
  async started() {
    if (this.proof && !this.browser?.isConnected()) {
      await this.proof.close().catch(() => {});
      this.proof = null;
    }
    if (this.proof || this.noBrowser) return this.proof;
    try {
      const launched = await this.ctx.browser.get();
      this.browser = launched.browser;
      this.browserVersion = launched.browser.version();
      this.proof = await SvgProof.open(launched.browser, this.site);
    } catch (error) {
      // None starts: every later proof is skipped alike. The browser gone while the proof opened: these wait for the next.
      this.browser = null;
      if (error instanceof NoBrowserError) this.noBrowser = error.message.split(':')[0];
    }
    return this.proof;
  }

  /** Closes the proof's contexts (the browser is the build's). */
  async close() {
    await this.proof?.close().catch(() => {});
  }

  /**
   * A job's result for a unit's text.
   * @param {string} text
   * @param {SvgJobOptions} job
   * @returns {Promise<SvgJobResult>}
   */
  optimize(text, job) {
    return this.ctx.compute('optimizeSvg', Buffer.from(text, 'utf8'), job);
  }

  /**
   * Outcomes of groups: from this build's proofs of the same drawings, from
   * the cache (groups that depend on no other file), or drawn now, all
   * missing ones on the same pages.
   * @param {SvgProof} proof
   * @param {Group[]} groups
   * @returns {Promise<ProofOutcome[]>}
   */
  async prove(proof, groups) {
    /** @type {{ group: Group, resolve: (o: ProofOutcome) => void, reject: (o: unknown) => void }[]} */
    const misses = [];
    const entries = groups.map((group) => {
      const key = group.key();
      const known = this.proven.get(key);
      if (known) return { looked: Promise.resolve(), result: known };
      /** @type {() => void} */
      let lookedUp = () => {};
      const looked = new Promise((resolve) => { lookedUp = () => resolve(undefined); });
      const draw = () => new Promise((resolve, reject) => { misses.push({ group, resolve, reject }); lookedUp(); });
      const result = /** @type {Promise<ProofOutcome>} */ (group.cacheable ? this.ctx.cached(['svg-proof', this.browserVersion, key], draw) : draw());
      result.then(lookedUp, lookedUp);
      this.proven.set(key, result);
      return { looked, result };
    });
    await Promise.all(entries.map((e) => e.looked));
    if (misses.length) {
      const outcomes = await proof.prove(misses.map((m) => m.group.build(proof)));
      proof.clearVariants();
      // A page that did not load is not a verdict on the drawing: not kept in the cache.
      misses.forEach((m, i) => (outcomes[i].same === null && outcomes[i].reason.startsWith('not drawn') ? m.reject(outcomes[i]) : m.resolve(outcomes[i])));
    }
    // A page that did not load, or a cache that failed: the drawings stay as they are.
    return Promise.all(entries.map((e) => e.result.catch((/** @type {unknown} */ o) => (o && typeof o === 'object' && 'same' in o ? /** @type {ProofOutcome} */ (o) : { same: null, reason: `${NOT_DRAWN}${String(/** @type {Error} */ (o)?.message ?? o).split('\n')[0]}` }))));
  }
}
