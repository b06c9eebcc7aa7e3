/**
 * Photographs, smaller and visually identical: each lossy original (JPEG,
 * lossy WebP, AVIF) that a page or style sheet draws is re-encoded as AVIF,
 * WebP and mozjpeg JPEG at the lowest quality whose result SSIMULACRA 2
 * scores at or above the gate (src/images/jobs/photo.js). An <img> gets a
 * <picture> with a typed <source> for each new format smaller than its
 * fallback; the fallback is the re-encoded file of the original's own format
 * when that passed and is smaller, else the original. Where Chromium draws an
 * <img> smaller than its photo, smaller widths are made too and offered with
 * srcset and a `sizes` from the measured boxes; every page whose markup
 * changed is measured again, and a page where any box moved keeps the markup
 * it had. Links to the photo
 * (<a href>, <link>) keep pointing at the original, which stays in the output
 * unless --prune. docs/photos.md.
 */
import { REFERENCE_KINDS } from '../site/reference-kinds.js';
import { applyEdits, startTagEnd } from '../site/edits.js';
import { encodeText } from '../site/charset.js';
import { NAMED_IN_SCRIPT, addReplacement, eachImageResult, imagesOfType, wrapInPicture } from '../images/replace.js';
import { namedInScripts } from '../site/script-names.js';
import { offerInCss, offerWidthsInCss, offerWidthsInStyleAttributes } from '../images/image-set.js';
import { shownSize } from '../images/size.js';
import { pageRequests } from '../site/page-requests.js';
import { browser, maxPixels, prune } from '../images/options.js';
import { PageFailed } from '../browser/page-failed.js';
import { imagesByKey, layoutDifference, layoutTabs, siteLayouts } from '../images/layout.js';
import { sizesAttribute, sizesEntries, srcsetAttribute } from '../images/responsive.js';
import { boolean, someOf, wholeNumber } from '../options/kinds.js';
import { option } from '../options/table.js';

/** @typedef {import('../images/jobs/photo.js').PhotoFormat} PhotoFormat */

const options = {
  lossless: option(boolean, false, 'keep every lossy original (JPEG, lossy WebP, AVIF) as it is: no re-encoding, not even a visually identical one'),
  photoScore: option(wholeNumber({ min: 50, max: 100, argument: '<score>' }), 85, 'the SSIMULACRA 2 score a re-encoded photograph must reach against its original (85: indistinguishable in a flip test at 1:1; 90: in a flicker test)'),
  /** WebP is not tried by default: at the gate it was never smaller than the mozjpeg fallback on the fixtures' photographs (lossy WebP is 4:2:0 only). */
  photoFormats: option(someOf(/** @type {const} */ (['avif', 'webp', 'jpeg'])), /** @type {PhotoFormat[]} */ (['avif', 'jpeg']), 'the formats photographs may be re-encoded as (a photo\'s smaller widths are made in its own format too, as their fallback)'),
  responsive: option(boolean, true, 'give photographs drawn smaller than they are stored smaller widths too (srcset and sizes from the layout Chromium measures)'),
  maxPixels,
  prune,
  browser,
};

const MIME = /** @type {Record<PhotoFormat, string>} */ ({ avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' });
const EXTENSION = /** @type {Record<PhotoFormat, string>} */ ({ avif: 'avif', webp: 'webp', jpeg: 'jpg' });
/** @typedef {import('../images/jobs/photo.js').PhotoVariant} PhotoVariant */
/** @typedef {import('../images/layout.js').PageLayout} PageLayout */
/** @typedef {import('../images/responsive.js').SizesEntry} SizesEntry */

const NAME = /** @type {Record<PhotoFormat, string>} */ ({ avif: 'AVIF', webp: 'WebP', jpeg: 'JPEG' });

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'photos',
  description: 'JPEG, lossy WebP and AVIF photographs re-encoded as AVIF, WebP and mozjpeg where SSIMULACRA 2 scores them visually identical, in the widths the layout draws them at, offered through <picture> and srcset',
  options,
  async run(site, ctx) {
    if (ctx.options.lossless) return;
    /** @type {import('../site/site.js').SiteFile[]} */
    const lossy = [];
    for (const type of /** @type {const} */ (['jpeg', 'webp', 'avif'])) lossy.push(...(await imagesOfType(site, type)));
    if (!lossy.length) return;
    const drawn = drawnImages(site, new Set(lossy.map((file) => file.path)));
    let photos = lossy.filter((file) => drawn.has(file.path));
    photos.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    // A script that asks for a photo by name would load it again beside its new name, and a srcset or <picture>
    // would win over the src it sets.
    const named = await namedInScripts(site, photos.map((file) => file.path));
    photos = photos.filter((file) => {
      if (!named.has(file.path)) return true;
      ctx.decide({ file: file.path, action: 'skipped', reason: NAMED_IN_SCRIPT });
      return false;
    });
    if (!photos.length) return;
    const layouts = ctx.options.responsive ? await openLayouts(site, ctx, photos) : null;
    try {
      if (layouts?.failed.size) photos = withoutUnmeasured(site, ctx, photos, layouts.failed);
      /** @type {Map<string, SizesEntry[]>} the sizes CSS backgrounds draw each photo at, where all of them scale it (cover, contain) */
      const cssSizes = new Map();
      if (layouts) {
        for (const file of photos) {
          const size = await shownSize(await site.read(file.path), ctx.options.maxPixels);
          const entries = size && backgroundSizes(layouts.measured, file.path, size);
          if (entries) cssSizes.set(file.path, entries);
        }
      }
      const jobOptions = (/** @type {import('../site/site.js').SiteFile} */ file) => ({
        score: ctx.options.photoScore,
        formats: ctx.options.photoFormats,
        maxPixels: ctx.options.maxPixels,
        sizes: layouts ? [...elementsDrawing(layouts.measured, file.path).map((e) => e.entries), ...(cssSizes.has(file.path) ? [/** @type {SizesEntry[]} */ (cssSizes.get(file.path))] : [])] : [],
      });
      /** @type {{ file: import('../site/site.js').SiteFile, result: import('../images/jobs/photo.js').PhotoConverted }[]} */
      const converted = [];
      await eachImageResult(site, ctx, photos, 'photo', jobOptions, null, async (file, result) => {
        const photo = /** @type {import('../images/jobs/photo.js').PhotoResult} */ (/** @type {unknown} */ (result));
        if (photo.status === 'failed') {
          ctx.warn(file.path, 'jobFailed' in photo ? 'job-failed' : 'image-unreadable', `left as it is: ${photo.reason}`);
          ctx.decide({ file: file.path, action: 'skipped', reason: photo.reason });
        } else if (photo.status === 'kept') {
          ctx.decide({ file: file.path, action: 'kept', reason: photo.reason });
        } else {
          converted.push({ file, result: photo });
        }
      });
      const placed = [];
      for (const { file, result } of converted) placed.push(await placeVariants(site, ctx, file, result));
      /** Each measured page as it was before its markup changed, put back where a box moved. @type {Map<string, Buffer>} */
      const before = new Map();
      if (layouts) for (const page of layouts.measured.keys()) before.set(page, await site.read(page));
      for (const photo of placed) {
        const entries = cssSizes.get(photo.original.path);
        const tiers = entries ? widthTiers(photo, entries, false) : [];
        // Style attributes first: their declarations, overridden then, are passed over by offerInCss.
        if (tiers.length > 0) await offerWidthsInStyleAttributes(site, photo.fallback, widthTiers(photo, /** @type {SizesEntry[]} */ (entries), true));
        await offerChoices(site, photo, layouts?.measured ?? null, null, 'formats');
        if (tiers.length > 0) await offerWidthsInCss(site, photo.fallback, tiers);
      }
      if (layouts) {
        // Where a box moved (a style that selects the <img> as a child, which a <picture> no longer is),
        // the page is put back and offered the widths alone, in the <img>'s own srcset; where that moves one too, nothing.
        // A page Chromium could not measure again is put back, and stays as it was.
        const moved = await movedPages(site, layouts, before);
        for (const page of moved.keys()) await site.write(page, /** @type {Buffer} */ (before.get(page)));
        const unproven = new Set([...moved.keys()].filter((page) => layouts.failed.has(page)));
        for (const page of unproven) {
          moved.delete(page);
          ctx.warn(page, 'layout-failed', `photographs offered no other formats nor widths here: ${layouts.failed.get(page)}`);
        }
        for (const photo of placed) await offerChoices(site, photo, layouts.measured, new Set(moved.keys()), 'widths');
        const still = await movedPages(site, layouts, new Map([...before].filter(([page]) => moved.has(page))));
        for (const [page, width] of moved) {
          if (still.has(page)) await site.write(page, /** @type {Buffer} */ (before.get(page)));
          if (layouts.failed.has(page)) {
            ctx.warn(page, 'layout-failed', `photographs offered no other formats nor widths here: ${layouts.failed.get(page)}`);
            continue;
          }
          ctx.warn(page, 'layout-changed', still.has(page) ? `photographs offered no other formats nor widths here: a box moved at ${width} px wide with <picture>, and at ${still.get(page)} px with srcset alone` : `photographs offered in their widths only (no <picture>): with <picture> a box moved at ${width} px wide`);
        }
      }
      for (const photo of placed) {
        // What each photo is offered through, counted in the pages as they end.
        const refs = site.referencesTo(photo.fallback);
        const sized = refs.filter((r) => r.element === 'img' && r.attribute === 'srcset').length;
        const inPicture = refs.filter((r) => r.element === 'img' && r.attribute === 'src' && r.inPicture).length;
        // A style attribute's declaration given a custom property overrides two url()s: its own and the property's fallback.
        const backgrounds = refs.filter((r) => r.overridden && r.choice !== undefined).length + Math.ceil(refs.filter((r) => r.overridden && r.choice === undefined).length / 2);
        ctx.rewrote(sized + inPicture + backgrounds);
        const offers = [sized ? `${sized} <img> with srcset and sizes` : '', inPicture ? `${inPicture} <img> in <picture>` : '', backgrounds ? `${backgrounds} CSS background${backgrounds === 1 ? '' : 's'} with image-set()` : ''].filter(Boolean);
        ctx.decide({ file: photo.original.path, action: 'changed', score: photo.score, reason: `${photo.original.outputSize} B → ${photo.described.join(', ')}${offers.length ? `; ${offers.join(', ')}` : ''}` });
      }
      const after = site.referencedPaths();
      for (const photo of placed) {
        for (const added of photo.added) if (!after.has(added)) site.remove(added);
        if (ctx.options.prune && !after.has(photo.original.path)) site.remove(photo.original.path);
      }
    } finally {
      await layouts?.close();
    }
  },
};


/**
 * Which of some site paths a page or style sheet draws (an <img>, a srcset, a CSS
 * background...) where no choice of formats is offered yet: an image that
 * is only a <picture>'s source or fallback, or an image-set() entry, or the
 * declaration an image-set() overrides, was given its formats already (by
 * its author, or by pagediet when its output is built again) and is left
 * as it is, so a second build changes nothing and re-encodes no re-encoding.
 * @param {import('../site/site.js').Site} site
 * @param {Set<string>} paths
 */
function drawnImages(site, paths) {
  /** @type {Set<string>} */
  const drawn = new Set();
  /** @param {import('../site/site.js').Reference} ref */
  const offeredAlready = (ref) => ref.kind === 'picture-source' || ref.inPicture === true || ref.overridden === true || (ref.type !== undefined && ref.element !== 'source');
  for (const [target, refs] of site.referencesByTarget(paths)) {
    if (refs.some((ref) => REFERENCE_KINDS[ref.kind].subresource && ref.kind !== 'preload' && !offeredAlready(ref))) drawn.add(target);
  }
  return drawn;
}


/**
 * @typedef {object} Layouts the pages that draw photographs in <img>s, measured
 * @property {import('../images/layout.js').SiteLayouts} session
 * @property {Map<string, string>} failed the pages Chromium could not measure, and why: the photographs they draw are kept
 * @property {Map<string, PageLayout[]>} measured each page at its breakpoints, before any change
 * @property {() => Promise<void>} close
 *
 * @typedef {object} PlacedPhoto a photo's variants in the site, its drawing references pointing at the fallback
 * @property {import('../site/site.js').SiteFile} original
 * @property {string} fallback site path of what <img src> and url() now show
 * @property {{ target: string, mime: string, variant: PhotoVariant }[]} full the other formats at full size
 *   worth offering (smaller than the fallback), best first
 * @property {Map<string, { target: string, width: number }[]>} resized by MIME type, the smaller widths
 * @property {string} fallbackMime
 * @property {number} width the original's, upright
 * @property {string[]} added every file added
 * @property {string[]} described one phrase per file, for the decision
 * @property {number} score the lowest score of what it serves
 */

/**
 * Starts a browser and measures every page that draws one of the photos in
 * an <img>; null, with a warning, when no browser starts.
 * @param {import('../site/site.js').Site} site
 * @param {import('../build/pass.js').PassContext<any>} ctx
 * @param {import('../site/site.js').SiteFile[]} photos
 * @returns {Promise<Layouts | null>}
 */
async function openLayouts(site, ctx, photos) {
  // Every page that shows one of the photos: in an <img>, or in a CSS background of its style sheets or its own.
  const paths = new Set(photos.map((photo) => photo.path));
  const loadsOf = new Map();
  const pages = new Set(site.pages.map((page) => page.path).filter((page) => pageRequests(site, page, loadsOf).some((p) => paths.has(p))));
  if (!pages.size) return null;
  try {
    await ctx.browser.get();
  } catch (error) {
    ctx.decide({ file: '', action: 'skipped', reason: `no smaller widths: no browser to measure the layout (${/** @type {Error} */ (error).message.split(':')[0]})` });
    return null;
  }
  const session = await siteLayouts(ctx.browser, site, { tabs: layoutTabs(ctx.threads) });
  const order = [...pages].sort();
  let done = 0;
  const layouts = await Promise.all(order.map(async (page) => {
    try {
      return await session.measure(page, null, { backgrounds: true });
    } catch (error) {
      if (error instanceof PageFailed) return error;
      throw error;
    } finally {
      ctx.progress(`layout of ${page}`, { done: ++done, total: pages.size });
    }
  }));
  /** @type {Map<string, PageLayout[]>} in the pages' order */
  const measured = new Map();
  /** @type {Map<string, string>} */
  const failed = new Map();
  order.forEach((page, i) => {
    const layout = layouts[i];
    if (layout instanceof PageFailed) failed.set(page, layout.message);
    else measured.set(page, layout);
  });
  return { session, measured, failed, close: () => session.close() };
}

/**
 * The photos no page Chromium could not measure draws: the others are kept
 * as they are (their sizes and the proof that no box moved need every page
 * that draws them), with a warning for each such page.
 * @param {import('../site/site.js').Site} site
 * @param {import('../build/pass.js').PassContext<any>} ctx
 * @param {import('../site/site.js').SiteFile[]} photos
 * @param {Map<string, string>} failed page → why it could not be measured
 */
function withoutUnmeasured(site, ctx, photos, failed) {
  const loadsOf = new Map();
  /** @type {Map<string, string>} photo → the first page that draws it and could not be measured */
  const unmeasured = new Map();
  for (const [page, reason] of failed) {
    ctx.warn(page, 'layout-failed', `the photographs it draws left as they are: ${reason}`);
    for (const loaded of pageRequests(site, page, loadsOf)) if (!unmeasured.has(loaded)) unmeasured.set(loaded, `${page} could not be measured: ${reason}`);
  }
  return photos.filter((photo) => {
    const why = unmeasured.get(photo.path);
    if (why) ctx.decide({ file: photo.path, action: 'kept', reason: why });
    return !why;
  });
}

/**
 * The <img>s that draw a photo, as measured: those outside a <picture> and
 * without a srcset (the author chose their sizes), drawn at some viewport.
 * @param {Map<string, PageLayout[]>} measured
 * @param {string} photo site path
 */
function elementsDrawing(measured, photo) {
  const found = [];
  for (const [page, layouts] of measured) {
    const indexed = layouts.map((l) => ({ viewport: l.viewport, images: imagesByKey(l) }));
    for (const image of layouts[0].images) {
      if (image.path !== photo || image.inPicture || image.srcset) continue;
      const drawn = indexed.map((l) => ({ viewport: l.viewport, width: l.images.get(`${photo}\n${image.occurrence}`)?.width ?? Infinity }));
      if (drawn.some((d) => d.width === Infinity) || drawn.every((d) => d.width === 0)) continue;
      found.push({ page, occurrence: image.occurrence, entries: sizesEntries(drawn) });
    }
  }
  return found;
}

/**
 * Adds a photo's variants to the site and points every reference that
 * draws it at the fallback.
 * @param {import('../site/site.js').Site} site
 * @param {import('../build/pass.js').PassContext<any>} ctx
 * @param {import('../site/site.js').SiteFile} original
 * @param {import('../images/jobs/photo.js').PhotoConverted} result
 * @returns {Promise<PlacedPhoto>}
 */
async function placeVariants(site, ctx, original, result) {
  const before = original.outputSize;
  const own = result.variants.find((v) => v.format === result.originalFormat) ?? null;
  const fallbackSize = own ? own.bytes.length : before;
  /** @type {PlacedPhoto} */
  const placed = { original, fallback: original.path, full: [], resized: new Map(), fallbackMime: MIME[result.originalFormat], width: result.width, added: [], described: [], score: Infinity };
  /** @param {PhotoVariant} variant @param {string} [suffix] */
  const add = async (variant, suffix) => {
    const { target } = await addReplacement(site, original, variant.bytes, EXTENSION[variant.format], suffix);
    placed.added.push(target);
    placed.described.push(`${target} (${NAME[variant.format]} q${variant.quality}${variant.effort ? ` effort ${variant.effort}` : ''}, SSIMULACRA 2 ${variant.score.toFixed(1)}, ${variant.bytes.length} B)`);
    placed.score = Math.min(placed.score, variant.score);
    return target;
  };
  if (own) {
    placed.fallback = await add(own);
    const drawing = site.referencesTo(original.path).filter((ref) => REFERENCE_KINDS[ref.kind].subresource);
    await site.retarget(drawing.map((ref) => ({ ref, target: placed.fallback })));
    ctx.rewrote(drawing.length);
    ctx.touched(placed.fallback, before, own.bytes.length);
  }
  for (const variant of result.variants) {
    if (variant.format === result.originalFormat || variant.bytes.length >= fallbackSize) continue;
    const target = await add(variant);
    placed.full.push({ target, mime: MIME[variant.format], variant });
    ctx.touched(target, 0, variant.bytes.length);
  }
  // Smaller widths of the fallback's format, and of each format offered at full size.
  const offered = new Set([result.originalFormat, ...placed.full.map((f) => f.variant.format)]);
  for (const variant of result.resized) {
    if (!offered.has(variant.format)) continue;
    const target = await add(variant, `-${variant.width}w`);
    const list = placed.resized.get(MIME[variant.format]) ?? [];
    list.push({ target, width: variant.width });
    placed.resized.set(MIME[variant.format], list);
    ctx.touched(target, 0, variant.bytes.length);
  }
  return placed;
}

/**
 * Offers a photo's formats and widths: each measured <img> gets srcset and
 * sizes (in a <picture> with a typed <source> per format when there are
 * other formats), every other <img> a <picture> of its formats, CSS
 * backgrounds an image-set(). With 'widths', only the srcset and sizes of
 * measured <img>s, in the fallback's format.
 * @param {import('../site/site.js').Site} site
 * @param {PlacedPhoto} photo
 * @param {Map<string, PageLayout[]> | null} measured
 * @param {Set<string> | null} pages only these pages (null: all)
 * @param {'formats' | 'widths'} offer
 */
async function offerChoices(site, photo, measured, pages, offer) {
  const full = offer === 'formats' ? photo.full : [];
  if (measured && photo.resized.has(photo.fallbackMime)) {
    /** @type {Map<string, import('../site/edits.js').Edit[]>} */
    const bySource = new Map();
    const refs = site.referencesTo(photo.fallback).filter((r) => r.element === 'img' && r.attribute === 'src' && r.tagStart !== undefined).sort((a, b) => /** @type {number} */ (a.tagStart) - /** @type {number} */ (b.tagStart));
    for (const element of elementsDrawing(measured, photo.original.path)) {
      if (pages && !pages.has(element.page)) continue;
      const ref = refs.filter((r) => r.source === element.page)[element.occurrence];
      if (!ref) continue;
      const charset = /** @type {string} */ (site.get(ref.source).charset);
      const sizes = sizesAttribute(element.entries);
      /** @param {string} mime @param {string} fullSize */
      const srcset = (mime, fullSize) => srcsetAttribute(ref.source, [...(photo.resized.get(mime) ?? []), { target: fullSize, width: photo.width }]);
      // Formats offered at the full size only are left out: a browser that takes one would get no smaller width.
      const sources = full.filter((f) => photo.resized.has(f.mime)).map((f) => `<source type="${f.mime}" srcset="${srcset(f.mime, f.target)}" sizes="${sizes}">`).join('');
      const tagStart = /** @type {number} */ (ref.tagStart), tagEnd = /** @type {number} */ (ref.tagEnd);
      const bytes = await site.read(ref.source);
      const closing = startTagEnd(bytes, tagEnd);
      const edits = bySource.get(ref.source) ?? [];
      if (sources) edits.push({ start: tagStart, end: tagStart, bytes: encodeText(`<picture>${sources}`, charset) });
      edits.push({ start: closing, end: closing, bytes: encodeText(` srcset="${srcset(photo.fallbackMime, photo.fallback)}" sizes="${sizes}"`, charset) });
      if (sources) edits.push({ start: tagEnd, end: tagEnd, bytes: encodeText('</picture>', charset) });
      bySource.set(ref.source, edits);
    }
    for (const [source, edits] of bySource) await site.write(source, applyEdits(await site.read(source), edits));
  }
  if (full.length > 0) {
    await wrapInPicture(site, photo.fallback, full);
    await offerInCss(site, photo.fallback, full, photo.fallbackMime);
  }
}

/**
 * The pages whose markup changed since `before` where a box moved, each with
 * the first viewport width it moved at.
 * @param {import('../site/site.js').Site} site
 * @param {Layouts} layouts
 * @param {Map<string, Buffer>} before
 * @returns {Promise<Map<string, number>>}
 */
async function movedPages(site, layouts, before) {
  const found = await Promise.all([...before].map(async ([page, bytes]) => {
    const measuredBefore = layouts.measured.get(page);
    if (!measuredBefore || bytes.equals(await site.read(page))) return null;
    try {
      return layoutDifference(measuredBefore, await layouts.session.measure(page, measuredBefore.map((l) => l.viewport)));
    } catch (error) {
      if (!(error instanceof PageFailed)) throw error;
      layouts.failed.set(page, error.message);
      return 0;
    }
  }));
  /** @type {Map<string, number>} in the order of BEFORE */
  const moved = new Map();
  [...before.keys()].forEach((page, i) => {
    const at = found[i];
    if (at !== null) moved.set(page, at);
  });
  return moved;
}


/**
 * The `sizes` entries a photo's CSS backgrounds call for: at each viewport
 * measured, the widest it is drawn at by any element (background-size cover
 * or contain, scaled to the element's padding box); null when some element
 * draws it at another size (its resolution would change the drawing), a
 * pseudo-element draws it (no box measured), or pages were measured at
 * different viewports.
 * @param {Map<string, PageLayout[]>} measured
 * @param {string} photo site path
 * @param {{ width: number, height: number }} size the photo's, upright
 * @returns {SizesEntry[] | null}
 */
function backgroundSizes(measured, photo, size) {
  /** @type {Map<number, number>} viewport → widest drawn */
  const widest = new Map();
  let viewports = '';
  for (const layouts of measured.values()) {
    if (!layouts.some((l) => l.backgrounds.some((b) => b.path === photo))) continue;
    const these = layouts.map((l) => l.viewport).join();
    if (viewports && these !== viewports) return null;
    viewports = these;
    for (const layout of layouts) {
      for (const b of layout.backgrounds) {
        if (b.path !== photo) continue;
        if (b.width < 0 || (b.size !== 'cover' && b.size !== 'contain')) return null;
        const scale = (b.size === 'cover' ? Math.max : Math.min)(b.width / size.width, b.height / size.height);
        widest.set(layout.viewport, Math.max(widest.get(layout.viewport) ?? 0, size.width * scale));
      }
    }
  }
  if (!widest.size) return null;
  return sizesEntries([...widest].map(([viewport, width]) => ({ viewport, width })));
}

/**
 * The media-query tiers of a CSS background: for each range of viewport
 * widths, the narrowest width made (or the full size) that covers what it is
 * drawn at on ordinary screens (1x) and on high-density ones (2x), in each
 * format offered. Unless `everyRange`, ranges that would get the full size in
 * every entry are left to the author's declaration; with it, the tiers cover
 * every width (a single range has no media condition).
 * @param {PlacedPhoto} photo
 * @param {SizesEntry[]} entries
 * @param {boolean} everyRange
 * @returns {import('../images/image-set.js').WidthTier[]}
 */
function widthTiers(photo, entries, everyRange) {
  /** @param {string} mime @param {string} full @param {number} wanted */
  const pick = (mime, full, wanted) => [...(photo.resized.get(mime) ?? [])].sort((a, b) => a.width - b.width).find((c) => c.width >= wanted) ?? { target: full, width: photo.width };
  const formats = [...photo.full.filter((f) => photo.resized.has(f.mime)).map((f) => ({ mime: f.mime, full: f.target })), { mime: photo.fallbackMime, full: photo.fallback }];
  /** @type {{ from: number, to: number | null, key: string, chosen: { mime: string, x1: { target: string, width: number }, x2: { target: string, width: number } }[] }[]} */
  const ranges = [];
  let from = 0;
  for (const entry of entries) {
    const wanted = entry.width ?? photo.width;
    const chosen = formats.map((f) => ({ mime: f.mime, x1: pick(f.mime, f.full, wanted), x2: pick(f.mime, f.full, 2 * wanted) }));
    const key = chosen.map((c) => `${c.x1.target} ${c.x2.target}`).join();
    const last = ranges[ranges.length - 1];
    if (last && last.key === key) last.to = entry.maxViewport;
    else ranges.push({ from, to: entry.maxViewport, key, chosen });
    from = entry.maxViewport === null ? 0 : entry.maxViewport + 1;
  }
  return ranges
    .filter((r) => everyRange || r.chosen.some((c) => c.x1.width < photo.width || c.x2.width < photo.width))
    .map((r) => ({
      media: [r.from > 0 ? `(min-width: ${r.from}px)` : '', r.to !== null ? `(max-width: ${r.to}px)` : ''].filter(Boolean).join(' and '),
      plain: r.chosen[r.chosen.length - 1].x1.target,
      entries: r.chosen.flatMap((c) => (c.x1.target === c.x2.target ? [{ target: c.x1.target, density: 1, mime: c.mime }] : [{ target: c.x1.target, density: 1, mime: c.mime }, { target: c.x2.target, density: 2, mime: c.mime }])),
    }))
    .filter((t) => everyRange || t.media !== '');
}
