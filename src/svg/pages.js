/**
 * The inline <svg>s of pages through the svg pass: each page's checked and
 * optimized by svgo, proven in groups (src/svg/page-groups.js), and the page
 * rewritten in those byte ranges only, or each kept with the reason why.
 */
import { DocumentView } from '../site/document-view.js';
import { applyEdits } from '../site/edits.js';
import { decodeExact, encodeExact } from '../markup/codec.js';
import { xmlReason } from '../markup/names.js';
import { svgRefusal } from './checks.js';
import { inlineSvgs } from './inline.js';
import { pageGroups } from './page-groups.js';
import { NOT_DRAWN } from './proof.js';
import { proveGroups } from './prove-groups.js';
import { unitOf } from './units.js';

/**
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('./optimize.js').SvgJobOptions} SvgJobOptions
 * @typedef {import('./units.js').Unit} Unit
 * @typedef {import('./units.js').Group} Group
 * @typedef {import('./units.js').SvgPassState} SvgPassState
 */

/**
 * @typedef {object} PageSvg an inline <svg> of a page
 * @property {import('./inline.js').InlineSvg} found
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
export async function optimizeInline(state, pages, count) {
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
 * @param {import('./inline.js').InlineSvg} found
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
