/**
 * What the image passes share: finding the site's images by their content,
 * running an image job on each (in the pool, through the cache), and putting
 * a converted image in place of the original, with every reference to it
 * rewritten and the original kept unless --prune.
 */
import path from 'node:path';
import fs from 'node:fs/promises';
import { sniffImageType } from '../site/sniff.js';
import { applyEdits, encodePath } from '../site/edits.js';
import { encodeText } from '../site/charset.js';
import { forEachOrdered } from '../util/ordered.js';

/** Bytes enough to tell GIF, PNG, JPEG and WebP apart. */
const SNIFF_BYTES = 12;

/**
 * The options every image job takes (IMAGE_JOB_OPTIONS), from a pass's resolved options.
 * @param {{ lossy: boolean, quality: [number, number], zopfliIterations: number, maxPixels: number }} options
 */
export function imageJobOptions({ lossy, quality, zopfliIterations, maxPixels }) {
  return { lossy, quality, zopfliIterations, maxPixels };
}

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../build/pipeline.js').PassContext} PassContext
 * @typedef {import('./jobs/results.js').ImageResult} ImageResult
 */

/**
 * The site's files whose bytes are an image of a type, whatever their names.
 * @param {Site} site
 * @param {import('../site/sniff.js').ImageType} type
 * @returns {Promise<SiteFile[]>}
 */
export async function imagesOfType(site, type) {
  const found = [];
  for (const file of [...site.files.values()]) {
    if (file.role !== 'asset') continue;
    try {
      // Only the first bytes of each file: every image pass looks at every asset.
      if (sniffImageType(await headOf(site, file)) === type) found.push(file);
    } catch {
      continue; // unreadable: the site model has warned, and the file is copied as it is
    }
  }
  return found;
}

/**
 * The first bytes of a file as it stands: what a pass wrote, or the input's.
 * @param {Site} site
 * @param {SiteFile} file
 */
async function headOf(site, file) {
  const key = site.contentKey(file);
  if (key) return (await site.bytes.get(key)).subarray(0, SNIFF_BYTES);
  if (!file.absPath) return Buffer.alloc(0);
  const handle = await fs.open(file.absPath, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Runs a job on each image, a window of images at a time (ordered.js), the
 * largest files first, each image's bytes read only while its job runs, and
 * hands the results over in file order. `check` looks at an image's bytes first: null runs the job,
 * false leaves the image alone, a string leaves it alone with that warning.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {SiteFile[]} files
 * @param {string} job
 * @param {object | ((file: SiteFile) => object)} options the job's options, or each file's
 * @param {((bytes: Buffer, file: SiteFile) => string | false | null) | null} check
 * @param {(file: SiteFile, result: ImageResult) => void | Promise<void>} handle
 */
export async function eachImageResult(site, ctx, files, job, options, check, handle) {
  let done = 0;
  await forEachOrdered(files, async (file) => {
    let bytes;
    try {
      bytes = await site.read(file.path);
    } catch {
      return { skipped: /** @type {string | false} */ (false), result: null };
    }
    const verdict = check ? check(bytes, file) : null;
    if (verdict !== null) return { skipped: verdict, result: null };
    return { skipped: false, result: /** @type {ImageResult} */ (await ctx.compute(job, bytes, typeof options === 'function' ? options(file) : options)) };
  }, async (outcome, file) => {
    ctx.progress(file.path, { done: ++done, total: files.length });
    if (outcome.result) await handle(file, outcome.result);
    else if (outcome.skipped !== false) ctx.warn(file.path, 'image-unreadable', `left as it is: ${outcome.skipped}`);
  }, undefined, (file) => file.size);
}

/** Why an image a script names keeps its name (src/site/script-names.js). */
export const NAMED_IN_SCRIPT = 'named in a script: under a new name, the page would load it by both';

/**
 * A free site path for a converted file: the original's name with the new
 * extension (`a.gif` → `a.png`, extensionless `bullet` → `bullet.png`),
 * numbered when that name is taken.
 * @param {Site} site
 * @param {string} original
 * @param {string} extension without the dot
 * @param {string} [suffix] added to the name, e.g. '-480w' for a smaller width
 */
export function convertedPath(site, original, extension, suffix = '') {
  const dir = path.posix.dirname(original);
  const base = path.posix.basename(original).replace(/\.(gif|png|apng|jpe?g|webp|avif)$/i, '') + suffix;
  const at = (/** @type {string} */ name) => (dir === '.' ? name : `${dir}/${name}`);
  let candidate = at(`${base}.${extension}`);
  for (let n = 2; site.files.has(candidate) || site.directories.has(candidate); n++) candidate = at(`${base}-${n}.${extension}`);
  return candidate;
}

/**
 * @typedef {object} Replacement a converted image added beside its original
 * @property {SiteFile} original
 * @property {string} target the new file's site path
 * @property {number} size its bytes
 */

/**
 * Adds a converted image beside its original, under a free name.
 * @param {Site} site
 * @param {SiteFile} original
 * @param {Buffer} bytes
 * @param {string} extension
 * @param {string} [suffix] added to the name (convertedPath)
 * @returns {Promise<Replacement>}
 */
export async function addReplacement(site, original, bytes, extension, suffix) {
  const target = convertedPath(site, original.path, extension, suffix);
  await site.add(target, bytes, original.mtimeMs);
  await site.bytes.settle();
  return { original, target, size: bytes.length };
}

/**
 * Points every reference to each original at its replacement; with prune,
 * removes an original once nothing points at it. All at once: every page is
 * edited (and parsed again) once, however many of its images changed.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {Replacement[]} replacements
 * @param {{ prune: boolean }} options prune: remove each original nothing refers to any more
 */
export async function pointAtReplacements(site, ctx, replacements, { prune }) {
  const rewritten = await site.retargetAll(new Map(replacements.map(({ original, target }) => [original.path, target])));
  for (const { original, target, size } of replacements) {
    ctx.rewrote(rewritten.get(original.path) ?? 0);
    ctx.touched(target, original.outputSize, size);
  }
  if (prune) {
    const after = site.referencedPaths();
    for (const { original } of replacements) if (!after.has(original.path)) site.remove(original.path);
  }
}

/**
 * Wraps each <img> that shows the original in <picture>, with a <source> for
 * the converted image (added by addReplacement); the <img> keeps the original
 * as the fallback for browsers without the format. References that are not
 * an <img> outside a <picture> (CSS backgrounds, links) are pointed at the
 * converted image.
 * @param {Site} site
 * @param {PassContext} ctx
 * @param {Replacement} replacement
 * @param {string} mime
 */
export async function offerImage(site, ctx, { original, target, size }, mime) {
  const refs = site.referencesTo(original.path);
  const wrappable = await wrappableImages(site, refs);
  const others = refs.filter((r) => !wrappable.includes(r));
  const wrapped = await wrapInPicture(site, original.path, [{ target, mime }]);
  // The pages were parsed again: find the other references anew.
  const rest = site.referencesTo(original.path).filter((r) => others.some((o) => o.source === r.source && o.kind === r.kind && o.url === r.url));
  await site.retarget(rest.map((ref) => ({ ref, target })));
  ctx.rewrote(wrapped + rest.length);
  ctx.touched(target, original.outputSize, size);
}

/**
 * Wraps each <img src> that shows an image, outside a <picture> and without
 * a srcset of its own, in a <picture> whose <source>s offer other formats of
 * it, in order of preference; browsers take the first type they support and
 * the <img> (its attributes, its src) otherwise.
 * @param {Site} site
 * @param {string} shown site path of the image the <img> elements show
 * @param {{ target: string, mime: string }[]} sources
 * @returns {Promise<number>} how many <img> elements were wrapped
 */
export async function wrapInPicture(site, shown, sources) {
  /** @type {Map<string, import('../site/edits.js').Edit[]>} */
  const bySource = new Map();
  const wrappable = await wrappableImages(site, site.referencesTo(shown));
  for (const ref of wrappable) {
    const page = site.get(ref.source);
    const tagStart = /** @type {number} */ (ref.tagStart), tagEnd = /** @type {number} */ (ref.tagEnd);
    const charset = /** @type {string} */ (page.charset);
    const dir = path.posix.dirname(ref.source);
    const offered = sources.map(({ target, mime }) => `<source srcset="${encodePath(path.posix.relative(dir === '.' ? '' : dir, target))}" type="${mime}">`).join('');
    const edits = bySource.get(ref.source) ?? [];
    edits.push({ start: tagStart, end: tagStart, bytes: encodeText(`<picture>${offered}`, charset) });
    edits.push({ start: tagEnd, end: tagEnd, bytes: encodeText('</picture>', charset) });
    bySource.set(ref.source, edits);
  }
  for (const [source, edits] of bySource) await site.write(source, applyEdits(await site.read(source), edits));
  return wrappable.length;
}

/**
 * Of an image's references, the <img src> that wrapInPicture wraps: outside
 * a <picture>, and without a srcset (an <img srcset> chooses among sizes
 * itself: a <source> would override its choice).
 * @param {Site} site
 * @param {import('../site/site.js').Reference[]} refs
 */
async function wrappableImages(site, refs) {
  /** @type {Map<string, Buffer>} each page read once */
  const pages = new Map();
  const found = [];
  for (const ref of refs) {
    if (ref.element !== 'img' || ref.attribute !== 'src' || ref.inPicture || ref.tagStart === undefined || ref.tagEnd === undefined) continue;
    let bytes = pages.get(ref.source);
    if (!bytes) pages.set(ref.source, (bytes = await site.read(ref.source)));
    if (!/\ssrcset\s*=/i.test(bytes.toString('latin1', ref.tagStart, ref.tagEnd))) found.push(ref);
  }
  return found;
}

/**
 * Records what a job decided for a file: its warnings, a failure as a
 * warning, and the decision with its reason.
 * @param {PassContext} ctx
 * @param {SiteFile} file
 * @param {ImageResult} result
 */
export function recordResult(ctx, file, result) {
  if (result.status === 'failed') {
    ctx.warn(file.path, 'jobFailed' in result ? 'job-failed' : 'image-unreadable', `left as it is: ${result.reason}`);
    ctx.decide({ file: file.path, action: 'skipped', reason: result.reason });
    return;
  }
  for (const warning of result.warnings) ctx.warn(file.path, 'image-repaired', warning);
  if (result.status === 'kept') ctx.decide({ file: file.path, action: 'kept', reason: result.reason });
}
