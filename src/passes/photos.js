/**
 * Photographs, smaller and visually identical: each lossy original (JPEG,
 * lossy WebP, AVIF) that a page or style sheet draws is re-encoded as AVIF,
 * WebP and mozjpeg JPEG at the lowest quality whose result SSIMULACRA 2
 * scores at or above the gate (src/images/jobs/photo.js). An <img> gets a
 * <picture> with a typed <source> for each new format smaller than its
 * fallback; the fallback is the re-encoded file of the original's own format
 * when that passed and is smaller, else the original. Links to the photo
 * (<a href>, <link>) keep pointing at the original, which stays in the output
 * unless --prune. docs/photos.md.
 */
import { REFERENCE_KINDS } from '../site/reference-kinds.js';
import { addReplacement, eachImageResult, imagesOfType, wrapInPicture } from '../images/replace.js';
import { offerInCss } from '../images/image-set.js';
import { maxPixels, prune } from '../images/options.js';
import { boolean, someOf, wholeNumber } from '../options/kinds.js';
import { option } from '../options/table.js';

/** @typedef {import('../images/jobs/photo.js').PhotoFormat} PhotoFormat */

const options = {
  lossless: option(boolean, false, 'keep every lossy original (JPEG, lossy WebP, AVIF) as it is: no re-encoding, not even a visually identical one'),
  photoScore: option(wholeNumber({ min: 50, max: 100, argument: '<score>' }), 85, 'the SSIMULACRA 2 score a re-encoded photograph must reach against its original (85: indistinguishable in a flip test at 1:1; 90: in a flicker test)'),
  photoFormats: option(someOf(/** @type {const} */ (['avif', 'webp', 'jpeg'])), /** @type {PhotoFormat[]} */ (['avif', 'webp', 'jpeg']), 'the formats photographs may be re-encoded as'),
  maxPixels,
  prune,
};

const MIME = /** @type {Record<PhotoFormat, string>} */ ({ avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' });
const EXTENSION = /** @type {Record<PhotoFormat, string>} */ ({ avif: 'avif', webp: 'webp', jpeg: 'jpg' });
const NAME = /** @type {Record<PhotoFormat, string>} */ ({ avif: 'AVIF', webp: 'WebP', jpeg: 'JPEG' });

/** @type {import('../pass.js').Pass<typeof options>} */
export default {
  name: 'photos',
  description: 'JPEG, lossy WebP and AVIF photographs re-encoded as AVIF, WebP and mozjpeg where SSIMULACRA 2 scores them visually identical, offered through <picture>',
  options,
  async run(site, ctx) {
    if (ctx.options.lossless) return;
    const drawn = drawnImages(site);
    /** @type {import('../site/site.js').SiteFile[]} */
    const photos = [];
    for (const type of /** @type {const} */ (['jpeg', 'webp', 'avif'])) photos.push(...(await imagesOfType(site, type)).filter((file) => drawn.has(file.path)));
    photos.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const jobOptions = { score: ctx.options.photoScore, formats: ctx.options.photoFormats, maxPixels: ctx.options.maxPixels };
    /** @type {{ file: import('../site/site.js').SiteFile, result: import('../images/jobs/photo.js').PhotoConverted }[]} */
    const converted = [];
    await eachImageResult(site, ctx, photos, 'photo', jobOptions, null, async (file, result) => {
      const photo = /** @type {import('../images/jobs/photo.js').PhotoResult} */ (/** @type {unknown} */ (result));
      if (photo.status === 'failed') {
        ctx.warn(file.path, 'image-unreadable', `left as it is: ${photo.reason}`);
        ctx.decide({ file: file.path, action: 'skipped', reason: photo.reason });
      } else if (photo.status === 'kept') {
        ctx.decide({ file: file.path, action: 'kept', reason: photo.reason });
      } else {
        converted.push({ file, result: photo });
      }
    });
    for (const { file, result } of converted) await offerPhoto(site, ctx, file, result);
    if (ctx.options.prune) {
      const after = site.referencedPaths();
      for (const { file } of converted) if (!after.has(file.path)) site.remove(file.path);
    }
  },
};

/**
 * Site paths that a page or style sheet draws (an <img>, a srcset, a CSS
 * background...) where no choice of formats is offered yet: an image that
 * is only a <picture>'s source or fallback, or an image-set() entry, or the
 * declaration an image-set() overrides, was given its formats already (by
 * its author, or by pagediet when its output is built again) and is left
 * as it is, so a second build changes nothing and re-encodes no re-encoding.
 * @param {import('../site/site.js').Site} site
 */
function drawnImages(site) {
  /** @type {Set<string>} */
  const drawn = new Set();
  /** @param {import('../site/site.js').Reference} ref */
  const offeredAlready = (ref) => ref.kind === 'picture-source' || ref.inPicture === true || ref.overridden === true || (ref.type !== undefined && ref.element !== 'source');
  for (const target of site.referencedPaths()) {
    if (site.referencesTo(target).some((ref) => REFERENCE_KINDS[ref.kind].subresource && ref.kind !== 'preload' && !offeredAlready(ref))) drawn.add(target);
  }
  return drawn;
}

/**
 * Puts a photo's variants in the output and offers them: every reference that
 * draws the photo points at the fallback, and each <img> gets the smaller
 * formats as <source>s.
 * @param {import('../site/site.js').Site} site
 * @param {import('../pass.js').PassContext} ctx
 * @param {import('../site/site.js').SiteFile} original
 * @param {import('../images/jobs/photo.js').PhotoConverted} result
 */
async function offerPhoto(site, ctx, original, result) {
  const before = original.outputSize;
  const own = result.variants.find((v) => v.format === result.originalFormat) ?? null;
  const fallbackSize = own ? own.bytes.length : before;
  const sources = result.variants.filter((v) => v.format !== result.originalFormat && v.bytes.length < fallbackSize);
  let fallback = original.path;
  /** @type {string[]} */
  const described = [];
  if (own) {
    const added = await addReplacement(site, original, own.bytes, EXTENSION[own.format]);
    fallback = added.target;
    const drawing = site.referencesTo(original.path).filter((ref) => REFERENCE_KINDS[ref.kind].subresource);
    await site.retarget(drawing.map((ref) => ({ ref, target: fallback })));
    ctx.rewrote(drawing.length);
    ctx.touched(fallback, before, own.bytes.length);
    described.push(`${fallback} (${NAME[own.format]} q${own.quality}, SSIMULACRA 2 ${own.score.toFixed(1)}, ${own.bytes.length} B)`);
  }
  /** @type {{ target: string, mime: string }[]} */
  const offered = [];
  for (const variant of sources) {
    const added = await addReplacement(site, original, variant.bytes, EXTENSION[variant.format]);
    offered.push({ target: added.target, mime: MIME[variant.format] });
    ctx.touched(added.target, 0, variant.bytes.length);
    described.push(`${added.target} (${NAME[variant.format]} q${variant.quality}, SSIMULACRA 2 ${variant.score.toFixed(1)}, ${variant.bytes.length} B)`);
  }
  const wrapped = offered.length > 0 ? await wrapInPicture(site, fallback, offered) : 0;
  const backgrounds = offered.length > 0 ? await offerInCss(site, fallback, offered, MIME[result.originalFormat]) : 0;
  ctx.rewrote(wrapped + backgrounds);
  const served = [own, ...sources].filter((v) => v !== null);
  const score = Math.min(...served.map((v) => /** @type {import('../images/jobs/photo.js').PhotoVariant} */ (v).score));
  const pictures = offered.length > 0 ? `; ${wrapped} <img> in <picture>, ${backgrounds} CSS background${backgrounds === 1 ? '' : 's'} with image-set()` : '';
  ctx.decide({ file: original.path, action: 'changed', score, reason: `${before} B → ${described.join(', ')}${pictures}` });
}
