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
 * docs/svg.md.
 */
import { NoBrowserError } from '../browser/launch.js';
import crypto from 'node:crypto';
import { browser } from '../images/options.js';
import { ORIGIN } from '../images/layout.js';
import { wholeNumber } from '../options/kinds.js';
import { option } from '../options/table.js';
import { DocumentView } from '../site/document-view.js';
import { applyEdits, encodePath } from '../site/edits.js';
import { extensionOf } from '../site/mime.js';
import { decodeExact, encodeExact } from '../markup/codec.js';
import { xmlReason } from '../markup/names.js';
import { declaredIds, refersOutside, svgFileText, svgRefusal } from '../svg/checks.js';
import { inlineSvgs } from '../svg/inline.js';
import { SiteNames } from '../svg/references.js';
import { NOT_DRAWN, SvgProof, slots } from '../svg/proof.js';

const options = {
  browser,
  // 8, not svgo's 3: Chromium's antialiasing moves with a change of 0.0001 px, so rounded drawings seldom prove identical
  // (on 582 SVGs: 3 digits saved 19%, 8 digits 27%, in about half the time; docs/svg.md).
  svgPrecision: option(wholeNumber({ max: 12, argument: '<digits>' }), 8, 'digits svgo keeps after the point in SVG coordinates and numbers (fewer: smaller files, but fewer prove pixel-identical in Chromium and are kept)'),
};

/** SVG files larger than this are copied as they are. */
const MAX_SVG_BYTES = 8 * 1024 * 1024;
/** SVG files optimized and proven together, and pages whose inline <svg>s are. */
const FILES_PER_BATCH = 64;
const PAGES_PER_BATCH = 16;
/** The box a probe of a clip path, mask, filter or paint server is drawn in, and the largest a <use> of an element is. */
const PROBE_SIZE = 96;
const MAX_PROBE_SIDE = 512;
/**
 * Heights an SVG file is also drawn at as an image, CSS px: pages scale icons and illustrations to such sizes
 * (Bootstrap's 1rem, 1.5rem, 3rem), where a change that draws the same at the natural size may antialias differently
 * (merged paths, moved numbers).
 */
const SCALED_HEIGHTS = [16, 24, 48];

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pipeline.js').PassContext} PassContext
 * @typedef {import('../svg/optimize.js').SvgJobOptions} SvgJobOptions
 * @typedef {import('../svg/optimize.js').SvgJobResult} SvgJobResult
 * @typedef {import('../svg/optimize.js').SvgShape} SvgShape
 * @typedef {import('../svg/proof.js').ProofGroup} ProofGroup
 * @typedef {import('../svg/proof.js').ProofOutcome} ProofOutcome
 * @typedef {import('../svg/checks.js').Refusal} Refusal
 *
 * @typedef {object} Unit one drawing that may change: an SVG file or an inline <svg>
 * @property {string} text the original
 * @property {number} size its bytes
 * @property {(text: string) => number} sizeOf the bytes a version takes where it goes
 * @property {SvgJobOptions} job
 * @property {string | null} current the version being proven; null: the original stays
 * @property {string} first the first version svgo gave
 * @property {boolean} exactTried
 * @property {string[]} failed how each version that was given up drew
 * @property {string | null} unproven why it could not be proven at all
 * @property {SvgShape} shape
 *
 * @typedef {object} Group drawings proven together
 * @property {Unit[]} units
 * @property {(Unit | null)[]} owners per slot, the unit whose drawing it shows (null: a drawing that does not change)
 * @property {Unit[][]} providers per slot, the units of the other drawings whose ids it uses
 * @property {boolean} cacheable whether its drawings depend on nothing but their own text (no other file of the site)
 * @property {() => string} key what the proof depends on, hashed
 * @property {(proof: SvgProof) => ProofGroup} build
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

/**
 * A unit for an original and svgo's first result, or null when the result is no smaller.
 * @param {string} text
 * @param {number} size
 * @param {(text: string) => number} sizeOf
 * @param {SvgJobOptions} job
 * @param {{ text: string, shape: SvgShape }} result
 * @returns {Unit | null}
 */
function unitOf(text, size, sizeOf, job, result) {
  if (sizeOf(result.text) >= size) return null;
  return { text, size, sizeOf, job, current: result.text, first: result.text, exactTried: false, failed: [], unproven: null, shape: result.shape };
}

/**
 * Proves groups until every unit is either proven or back at its original:
 * a unit whose drawing differs tries the exact preset, then gives up. A
 * slot that differs sets back first the changing units whose ids its
 * drawing uses (a sprite's symbol), else its own; one that no changing unit
 * can explain sets back every changing unit of the group.
 * @param {SvgPassState} state
 * @param {Group[]} groups
 */
async function proveGroups(state, groups) {
  let pending = groups.filter((g) => g.units.some((u) => u.current !== null));
  while (pending.length) {
    const proof = await state.started();
    if (!proof) {
      for (const g of pending) for (const u of g.units) if (u.current !== null) { u.current = null; state.unprovenForNoBrowser++; }
      return;
    }
    const outcomes = await state.prove(proof, pending);
    /** @type {Group[]} */
    const next = [];
    for (let i = 0; i < pending.length; i++) {
      const group = pending[i];
      const outcome = outcomes[i];
      if (outcome.same === true) continue;
      if (outcome.same === null) {
        for (const u of group.units) if (u.current !== null) { u.current = null; u.unproven = outcome.reason; }
        continue;
      }
      /** @type {Map<Unit, string>} */
      const blamed = new Map();
      let collateral = '';
      for (const d of outcome.differences) {
        const providers = group.providers[d.slot].filter((u) => u.current !== null);
        const owner = group.owners[d.slot];
        if (providers.length) for (const u of providers) { if (!blamed.has(u)) blamed.set(u, `a drawing that uses it: ${d.reason}`); }
        else if (owner && owner.current !== null) { if (!blamed.has(owner)) blamed.set(owner, d.reason); } else collateral ||= d.reason;
      }
      if (collateral) for (const u of group.units) if (u.current !== null && !blamed.has(u)) blamed.set(u, `a drawing that uses it: ${collateral}`);
      for (const [u, reason] of blamed) await retry(state, u, reason);
      if (group.units.some((u) => u.current !== null)) next.push(group);
    }
    pending = next;
  }
}

/**
 * After a version drew differently: the exact preset's result, when it is
 * another and still smaller, else the original.
 * @param {SvgPassState} state
 * @param {Unit} unit
 * @param {string} reason
 */
async function retry(state, unit, reason) {
  unit.failed.push(reason);
  unit.current = null;
  if (unit.exactTried) return;
  unit.exactTried = true;
  const result = await state.optimize(unit.text, { ...unit.job, exact: true });
  if (result.status === 'optimized' && result.text !== unit.first && unit.sizeOf(result.text) < unit.size) unit.current = result.text;
}

/** @param {Unit} unit how a kept or changed unit fared, for its decision */
function triedFirst(unit) {
  return unit.failed.length ? ` (svgo's full preset drew differently: ${unit.failed[0]}; without the plugins that change numbers it draws the same)` : '';
}

/**
 * @param {string} text
 */
function sha(text) {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * SVG files: checked, optimized, proven, written.
 * @param {SvgPassState} state
 * @param {SiteFile[]} files
 * @param {{ done: number, total: number }} count
 */
async function optimizeFiles(state, files, count) {
  const { site, ctx } = state;
  const precision = ctx.options.svgPrecision;
  state.ctx.progress(files[0]?.path ?? '', count);
  const prepared = await Promise.all(files.map(async (file) => {
    /** @type {(refusal: Refusal) => { refusal: Refusal }} */
    const refuse = (refusal) => ({ refusal });
    const bytes = await site.read(file.path).catch(() => null);
    if (!bytes) return null;
    if (bytes.length === 0) return refuse({ code: 'svg-empty', reason: 'empty', warn: false });
    if (bytes.length > MAX_SVG_BYTES) return refuse({ code: 'svg-large', reason: `${bytes.length} B, over the ${MAX_SVG_BYTES / 1024 / 1024} MiB pagediet optimizes`, warn: false });
    const read = svgFileText(bytes);
    if ('code' in read) return refuse(read);
    const refused = svgRefusal(read.text, { inline: false });
    if (refused) return refuse(refused);
    const ids = declaredIds(read.text);
    const names = ids.length ? await state.names() : null;
    const keep = names ? ids.filter((id) => names.referencedFromOutside(id, file.path)) : [];
    /** @type {SvgJobOptions} */
    const job = { preset: keep.length ? 'in-context' : 'document', keep, precision, exact: false };
    const result = await state.optimize(read.text, job);
    if (result.status === 'failed') return refuse('jobFailed' in result ? { code: 'job-failed', reason: result.reason, warn: true } : { code: 'svg-invalid', reason: `not well-formed XML (${result.reason})`, warn: true });
    const sizeOf = (/** @type {string} */ text) => read.bom.length + Buffer.byteLength(text);
    const unit = unitOf(read.text, bytes.length, sizeOf, job, result);
    if (!unit) return refuse({ code: 'svg-not-smaller', reason: `svgo's result is not smaller (${sizeOf(result.text)} B against ${bytes.length} B)`, warn: false });
    return { unit, bom: read.bom, bytes };
  }));
  /** @type {{ file: SiteFile, unit: Unit, bom: Buffer, bytes: Buffer }[]} */
  const changing = [];
  prepared.forEach((p, i) => {
    if (!p) return;
    if ('refusal' in p) return keepFile(ctx, files[i].path, p.refusal);
    changing.push({ file: files[i], ...p });
  });
  await proveGroups(state, changing.map(({ file, unit, bom, bytes }) => fileGroup(file.path, unit, bom, bytes)));
  for (const { file, unit, bom, bytes } of changing) {
    if (unit.current === null) {
      if (state.noBrowser) continue;
      if (unit.unproven) {
        if (unit.unproven.startsWith(NOT_DRAWN)) ctx.warn(file.path, 'render-failed', `kept as it is: Chromium could not draw the proof: ${unit.unproven}`);
        ctx.decide({ file: file.path, action: 'kept', reason: `not proven: ${unit.unproven}` });
      } else {
        ctx.warn(file.path, 'svg-changed-rendering', `svgo's result draws differently in Chromium (${unit.failed.join('; ')}): kept as it is`);
        ctx.decide({ file: file.path, action: 'kept', reason: `svgo's result draws differently (${unit.failed[0]})` });
      }
      continue;
    }
    const output = Buffer.concat([bom, Buffer.from(unit.current, 'utf8')]);
    await site.write(file.path, output);
    ctx.touched(file.path, bytes.length, output.length);
    ctx.decide({ file: file.path, action: 'changed', reason: `${bytes.length} → ${output.length} B, ${unit.job.preset === 'in-context' ? `${unit.job.keep.length} id${unit.job.keep.length === 1 ? '' : 's'} used from outside kept` : 'drawn whole'}${bom.length ? ', byte order mark kept' : ''}${triedFirst(unit)}` });
  }
}

/**
 * @param {PassContext} ctx
 * @param {string} file
 * @param {Refusal} refusal
 */
function keepFile(ctx, file, refusal) {
  if (refusal.warn) ctx.warn(file, refusal.code, `${refusal.reason}: kept as it is`);
  ctx.decide({ file, action: refusal.code === 'svg-empty' ? 'skipped' : 'kept', reason: refusal.reason });
}

/**
 * The proof of an SVG file: drawn as an image, and each element something
 * outside uses drawn as it is used (a <use>, a clip path, mask or filter
 * in CSS, a gradient or pattern as a fill, a view as an image fragment).
 * @param {string} file
 * @param {Unit} unit
 * @param {Buffer} bom
 * @param {Buffer} bytes
 * @returns {Group}
 */
function fileGroup(file, unit, bom, bytes) {
  const natural = naturalBox(unit.shape.root);
  /** @type {((url: string) => string)[]} slot makers, each given the version's URL */
  const makers = [slots.image, ...SCALED_HEIGHTS.filter((h) => h !== natural.height).map((h) => (/** @type {string} */ url) => slots.scaledImage(url, h))];
  for (const [id, target] of Object.entries(unit.shape.targets)) {
    const fragment = `#${encodeURIComponent(id)}`;
    const probe = probeFor(target.name, fragment, natural, target.viewBox);
    if (probe) makers.push(probe);
  }
  const outside = refersOutside(unit.text);
  return {
    units: [unit],
    owners: makers.map(() => unit),
    providers: makers.map(() => []),
    cacheable: !outside,
    key: () => sha(JSON.stringify(['file', outside ? file : '', sha(unit.text), sha(/** @type {string} */ (unit.current)), Object.entries(unit.shape.targets), natural])),
    build: (proof) => {
      const before = proof.variant(file, bytes);
      const after = proof.variant(file, Buffer.concat([bom, Buffer.from(/** @type {string} */ (unit.current), 'utf8')]));
      return { base: '', before: makers.map((m) => m(before)), after: makers.map((m) => m(after)) };
    },
  };
}

/**
 * How an element with an id is drawn when something outside uses it; null
 * for elements that draw nothing by themselves (titles, styles, markers).
 * @param {string} name the element's name
 * @param {string} fragment '#id', URL-encoded
 * @param {{ width: number, height: number, viewBox?: string }} natural the drawing's own box
 * @param {string} [viewBox] the element's own viewBox (a symbol's)
 * @returns {((url: string) => string) | null}
 */
function probeFor(name, fragment, natural, viewBox) {
  const box = { width: PROBE_SIZE, height: PROBE_SIZE };
  switch (name) {
    case 'clipPath': return (url) => slots.css('clip-path', url + fragment, box);
    case 'mask': return (url) => slots.css('mask', url + fragment, box);
    case 'filter': return (url) => slots.css('filter', url + fragment, box);
    case 'linearGradient': case 'radialGradient': case 'pattern': return (url) => slots.paint(url + fragment, box);
    case 'view': return (url) => slots.image(url + fragment);
    case 'title': case 'desc': case 'style': case 'script': case 'metadata': case 'marker': case 'defs': case 'font': case 'font-face': case 'glyph': return null;
    case 'symbol': {
      const own = viewBoxSize(viewBox);
      return (url) => slots.use(url + fragment, own ? { ...fit(own), symbol: true } : natural);
    }
    default: return (url) => slots.use(url + fragment, natural);
  }
}

/**
 * The box an SVG draws in by itself: its width and height in px, else its
 * viewBox's, else 300x150 (CSS's default object size), at most MAX_PROBE_SIDE.
 * @param {{ width?: string, height?: string, viewBox?: string }} root
 * @returns {{ width: number, height: number, viewBox?: string }}
 */
function naturalBox(root) {
  const px = (/** @type {string | undefined} */ v) => (v && /^\s*[\d.]+(?:px)?\s*$/.test(v) ? Number.parseFloat(v) : NaN);
  const vb = viewBoxSize(root.viewBox);
  let width = px(root.width);
  let height = px(root.height);
  if (!(width > 0) || !(height > 0)) ({ width, height } = vb ?? { width: 300, height: 150 });
  return { ...fit({ width, height }), viewBox: vb ? root.viewBox : undefined };
}

/** @param {string | undefined} viewBox @returns {{ width: number, height: number } | null} */
function viewBoxSize(viewBox) {
  const n = (viewBox ?? '').trim().split(/[\s,]+/).map(Number);
  return n.length === 4 && n[2] > 0 && n[3] > 0 ? { width: n[2], height: n[3] } : null;
}

/** A box scaled down to fit MAX_PROBE_SIDE, in whole px. @param {{ width: number, height: number }} box */
function fit({ width, height }) {
  const scale = Math.min(1, MAX_PROBE_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * @typedef {object} PageSvg an inline <svg> of a page
 * @property {import('../svg/inline.js').InlineSvg} found
 * @property {string | null} text its markup, or null when the page's charset does not give it back exactly
 * @property {Unit | null} unit
 * @property {string | null} kept why it stays as it is
 */

/**
 * Inline <svg>s: each page's checked and optimized, proven with the page's
 * others it uses or is used by, the page rewritten in those byte ranges only.
 * @param {SvgPassState} state
 * @param {SiteFile[]} pages
 * @param {{ done: number, total: number }} count
 */
async function optimizeInline(state, pages, count) {
  const { site, ctx } = state;
  /** @type {{ page: SiteFile, bytes: Buffer, svgs: PageSvg[], groups: Group[] }[]} */
  const work = [];
  for (const [index, page] of pages.entries()) {
    ctx.progress(page.path, { done: count.done + index, total: count.total });
    const bytes = await site.read(page.path).catch(() => null);
    if (!bytes || !/<svg/i.test(bytes.toString('latin1'))) continue;
    const charset = /** @type {string} */ (page.charset);
    const view = new DocumentView(bytes, charset, page.bomLength);
    const found = inlineSvgs(view);
    if (!found.length) continue;
    const xml = xmlReason(view, page.mime);
    if (xml) {
      ctx.decide({ file: page.path, action: 'skipped', reason: `XML document (${xml}): its <svg>s are not read as HTML` });
      continue;
    }
    const svgs = await Promise.all(found.map((svg) => prepareInline(state, page, bytes, svg)));
    work.push({ page, bytes, svgs, groups: pageGroups(page, svgs, view) });
  }
  await proveGroups(state, work.flatMap((w) => w.groups));
  for (const { page, bytes, svgs } of work) await writePage(state, page, bytes, svgs);
}

/**
 * @param {SvgPassState} state
 * @param {SiteFile} page
 * @param {Buffer} bytes
 * @param {import('../svg/inline.js').InlineSvg} found
 * @returns {Promise<PageSvg>}
 */
async function prepareInline(state, page, bytes, found) {
  const charset = /** @type {string} */ (page.charset);
  const raw = bytes.subarray(found.start, found.end);
  const text = decodeExact(raw, charset);
  /** @param {string} kept @param {string | null} [warn] */
  const keep = (kept, warn = null) => {
    if (warn) state.ctx.warn(page.path, warn, `inline <svg> at line ${found.line}: ${kept}: kept as it is`);
    return { found, text, unit: null, kept };
  };
  if (text === null) return keep(`not exact ${charset} text`);
  const refused = svgRefusal(text, { inline: true });
  if (refused) return keep(refused.reason, refused.warn ? refused.code : null);
  // The proof draws it inside a <template>: markup that would end one is not drawn there.
  if (/<\/template/i.test(text)) return keep('it holds a </template> end tag');
  /** @type {SvgJobOptions} */
  const job = { preset: 'inline', keep: [], precision: state.ctx.options.svgPrecision, exact: false };
  const result = await state.optimize(text, job);
  if (result.status === 'failed') return 'jobFailed' in result ? keep(result.reason, 'job-failed') : keep(`svgo cannot read it as XML (${result.reason})`);
  const sizeOf = (/** @type {string} */ t) => encodeExact(t, charset)?.length ?? Infinity;
  const unit = unitOf(text, raw.length, sizeOf, job, result);
  if (!unit) return keep(sizeOf(result.text) === Infinity ? `svgo's result has characters ${charset} cannot hold` : 'svgo\'s result is not smaller');
  return { found, text, unit, kept: null };
}

/** Element names a page's CSS draws through, by the property it uses. */
const CSS_PROBES = /** @type {Record<string, 'clip-path' | 'mask' | 'filter'>} */ ({ clipPath: 'clip-path', mask: 'mask', filter: 'filter' });

/**
 * A page's inline <svg>s in groups: those that use each other's ids (a
 * hidden sprite and the drawings that <use> it) together, the rest each by
 * itself. A group is drawn with every member as it is and with the contrast
 * properties, and every clip path, mask or filter the page's CSS refers to
 * is drawn through a box as CSS draws it.
 * @param {SiteFile} page
 * @param {PageSvg[]} svgs
 * @param {DocumentView} view
 * @returns {Group[]}
 */
function pageGroups(page, svgs, view) {
  const defined = svgs.map((s) => new Set(s.found.elements.map((e) => e.id)));
  const used = svgs.map((s) => new Set([...(s.text ?? '').matchAll(/(?:href\s*=\s*["']?\s*|url\(\s*["']?\s*)#([^"'\s)>]+)/gi)].map((m) => safeDecode(m[1]))));
  // Fragments the rest of the page refers to (CSS, links), outside every <svg>.
  let outsideText = '';
  let at = 0;
  for (const s of svgs) {
    outsideText += view.text.slice(at, s.found.start);
    at = s.found.end;
  }
  outsideText += view.text.slice(at);
  const outsideFragments = new Set([...outsideText.matchAll(/#([\w\-.:%\u00B7\u00C0-\uFFFF]+)/g)].map((m) => safeDecode(m[1])));
  // Union-find over the <svg>s that refer to each other's ids.
  const parent = svgs.map((_, i) => i);
  const find = (/** @type {number} */ i) => { while (parent[i] !== i) i = parent[i] = parent[parent[i]]; return i; };
  for (let i = 0; i < svgs.length; i++) {
    for (let j = 0; j < svgs.length; j++) {
      if (i !== j && [...used[i]].some((id) => defined[j].has(id))) parent[find(i)] = find(j);
    }
  }
  /** @type {Map<number, number[]>} */
  const components = new Map();
  svgs.forEach((_, i) => { const r = find(i); components.set(r, [...(components.get(r) ?? []), i]); });
  const base = new URL(page.baseHref ?? '', `${ORIGIN}/${encodePath(page.path)}`).href;
  /** @type {Group[]} */
  const groups = [];
  for (const members of components.values()) {
    const units = /** @type {Unit[]} */ (members.map((i) => svgs[i].unit).filter(Boolean));
    if (!units.length) continue;
    const providersOf = (/** @type {number} */ i) => /** @type {Unit[]} */ (members.filter((j) => j !== i && svgs[j].unit && [...used[i]].some((id) => defined[j].has(id))).map((j) => svgs[j].unit));
    /** @type {{ owner: Unit | null, providers: Unit[], slot: (version: (i: number) => string) => string }[]} */
    const plan = [];
    for (const contrast of [false, true]) for (const i of members) plan.push({ owner: svgs[i].unit, providers: providersOf(i), slot: (version) => slots.markup(version(i), contrast) });
    for (const i of members) {
      for (const e of svgs[i].found.elements) {
        const property = CSS_PROBES[e.name];
        if (property && outsideFragments.has(e.id)) plan.push({ owner: svgs[i].unit, providers: [], slot: () => slots.css(property, `#${encodeURIComponent(e.id)}`, { width: PROBE_SIZE, height: PROBE_SIZE }) });
      }
    }
    const outside = members.some((i) => refersOutside(svgs[i].text ?? ''));
    const original = (/** @type {number} */ i) => /** @type {string} */ (svgs[i].text);
    const changed = (/** @type {number} */ i) => svgs[i].unit?.current ?? original(i);
    const group = () => ({ base: outside ? base : '', before: plan.map((p) => p.slot(original)), after: plan.map((p) => p.slot(changed)) });
    groups.push({
      units,
      owners: plan.map((p) => p.owner),
      providers: plan.map((p) => p.providers),
      cacheable: !outside,
      key: () => sha(JSON.stringify(['inline', group()])),
      build: group,
    });
  }
  return groups;
}

/** @param {string} s */
function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Writes a page with its proven inline <svg>s, keeping the write only when
 * its references still resolve as they did, and reports it.
 * @param {SvgPassState} state
 * @param {SiteFile} page
 * @param {Buffer} bytes
 * @param {PageSvg[]} svgs
 */
async function writePage(state, page, bytes, svgs) {
  const { site, ctx } = state;
  const charset = /** @type {string} */ (page.charset);
  /** @type {import('../site/edits.js').Edit[]} */
  const edits = [];
  /** @type {string[]} */
  const kept = [];
  /** @type {string[]} inline <svg>s whose proof Chromium could not draw */
  const notDrawn = [];
  for (const s of svgs) {
    const unit = s.unit;
    if (unit?.current) {
      edits.push({ start: s.found.start, end: s.found.end, bytes: /** @type {Buffer} */ (encodeExact(unit.current, charset)) });
      continue;
    }
    if (unit && state.noBrowser) continue;
    if (unit?.unproven) {
      kept.push(`line ${s.found.line}: not proven: ${unit.unproven}`);
      if (unit.unproven.startsWith(NOT_DRAWN)) notDrawn.push(`line ${s.found.line}: ${unit.unproven}`);
    }
    else if (unit) {
      ctx.warn(page.path, 'svg-changed-rendering', `inline <svg> at line ${s.found.line}: svgo's result draws differently in Chromium (${unit.failed.join('; ')}): kept as it is`);
      kept.push(`line ${s.found.line}: svgo's result draws differently`);
    } else kept.push(`line ${s.found.line}: ${s.kept}`);
  }
  if (notDrawn.length) ctx.warn(page.path, 'render-failed', `${notDrawn.length} inline <svg> kept as they are: Chromium could not draw the proof (${notDrawn[0]})`);
  const keptNote = kept.length ? `; ${kept.length} kept (${kept.join('; ')})` : '';
  if (!edits.length) {
    if (kept.length) ctx.decide({ file: page.path, action: 'kept', reason: `${kept.length} inline <svg> kept (${kept.join('; ')})` });
    return;
  }
  const output = applyEdits(bytes, edits);
  const resolved = () => new Set(page.references.map((r) => `${r.kind}\n${r.url}\n${r.status}\n${r.target ?? ''}`));
  const old = resolved();
  const written = await site.writeChecked(page.path, output, () => {
    const now = resolved();
    return old.size === now.size && [...old].every((r) => now.has(r));
  });
  if (!written) {
    ctx.warn(page.path, 'svg-would-lose', 'a reference would no longer resolve to the same file after minifying its inline <svg>s: kept as it is');
    ctx.decide({ file: page.path, action: 'kept', reason: 'a reference would no longer resolve to the same file' });
    return;
  }
  ctx.touched(page.path, bytes.length, output.length);
  const exact = svgs.filter((s) => s.unit?.current && s.unit.failed.length).length;
  ctx.decide({ file: page.path, action: 'changed', reason: `${edits.length} inline <svg> minified, ${bytes.length} → ${output.length} B${exact ? ` (${exact} without the plugins that change numbers: the full preset drew differently)` : ''}${keptNote}` });
}

