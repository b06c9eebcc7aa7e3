/**
 * SVG files through the svg pass: each checked, optimized by svgo, proven
 * drawn the same (as an image, at icon heights, and each element used from
 * outside as it is used) and written, or kept with the reason why.
 */
import { declaredIds, refersOutside, svgFileText, svgRefusal } from './checks.js';
import { naturalBox, probeFor } from './probes.js';
import { NOT_DRAWN, slots } from './proof.js';
import { proveGroups } from './prove-groups.js';
import { sha, unitOf } from './units.js';

/**
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pipeline.js').PassContext} PassContext
 * @typedef {import('./optimize.js').SvgJobOptions} SvgJobOptions
 * @typedef {import('./checks.js').Refusal} Refusal
 * @typedef {import('./units.js').Unit} Unit
 * @typedef {import('./units.js').Group} Group
 * @typedef {import('./units.js').SvgPassState} SvgPassState
 */

/** SVG files larger than this are copied as they are. */
const MAX_SVG_BYTES = 8 * 1024 * 1024;
/**
 * Heights an SVG file is also drawn at as an image, CSS px: pages scale icons and illustrations to such sizes
 * (Bootstrap's 1rem, 1.5rem, 3rem), where a change that draws the same at the natural size may antialias differently
 * (merged paths, moved numbers).
 */
const SCALED_HEIGHTS = [16, 24, 48];

/** @param {Unit} unit how a kept or changed unit fared, for its decision */
function triedFirst(unit) {
  return unit.failed.length ? ` (svgo's full preset drew differently: ${unit.failed[0]}; without the plugins that change numbers it draws the same)` : '';
}

/**
 * SVG files: checked, optimized, proven, written.
 * @param {SvgPassState} state
 * @param {SiteFile[]} files
 * @param {{ done: number, total: number }} count
 */
export async function optimizeFiles(state, files, count) {
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
