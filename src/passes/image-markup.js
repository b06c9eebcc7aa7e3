/**
 * <img> markup that lets the browser load images well, from the layout
 * Chromium measures (src/images/layout.js): `width` and `height` where both
 * are missing (from the image's own pixels, so the browser reserves the box
 * before the image arrives and nothing shifts), `decoding="async"`,
 * `loading="lazy"` for an image wholly below the first viewport at every
 * width measured whose width and height are set (its box reserved), and
 * `fetchpriority="high"` for the largest image in the
 * first viewport at the robot's width. Each page is measured again after its
 * markup changed; a page where any box moved keeps its markup, with a
 * warning. Attributes the author wrote are never changed. docs/image-markup.md.
 */
import { applyEdits, startTagEnd } from '../site/edits.js';
import { encodeText } from '../site/charset.js';
import { shownSize } from '../images/size.js';
import { browser, maxPixels } from '../images/options.js';
import { PageFailed } from '../browser/page-failed.js';
import { imagesByKey, layoutDifference, layoutTabs, siteLayouts, sizedTolerance, VIEWPORT_HEIGHT } from '../images/layout.js';
import { ROBOT_VIEWPORT } from '../site/image-choice.js';
import { forEachOrdered } from '../util/ordered.js';

const options = {
  browser,
  maxPixels,
};

/**
 * A page with more <img>s than this is measured at FEW_VIEWPORTS only, not at
 * every media query's sides: each measurement of a page with 20,000 images
 * takes seconds.
 */
const MANY_IMAGES = 1000;
const FEW_VIEWPORTS = [360, 768, 1280, 1920];

/**
 * The loading hints (decoding, lazy loading, priority) go on images of at
 * least this many pixels (stored; for priority, covered in the first view):
 * a smaller one decodes in no time and costs little to fetch, and the
 * attributes would add more bytes than they save (a 1997 page's icons).
 */
const LARGE_IMAGE_PIXELS = 100_000;

/**
 * @typedef {import('../images/layout.js').PageLayout} PageLayout
 * @typedef {import('../site/site.js').Reference} Reference
 */

/** @type {import('../pass.js').Pass<typeof options>} */
export default {
  name: 'image-markup',
  description: '<img> width and height, decoding, lazy loading below the first view and fetchpriority for the largest image in it, from the layout Chromium measures',
  options,
  async run(site, ctx) {
    /** @type {Map<string, Reference[]>} each page's <img src> references, in document order */
    const images = new Map();
    for (const file of site.files.values()) {
      if (file.role !== 'page') continue;
      const refs = (file.referenceTable?.toArray() ?? []).filter((r) => r.element === 'img' && r.attribute === 'src' && r.tagStart !== undefined && r.tagEnd !== undefined);
      if (refs.length) images.set(file.path, refs.sort((a, b) => /** @type {number} */ (a.tagStart) - /** @type {number} */ (b.tagStart)));
    }
    if (!images.size) return;
    try {
      await ctx.browser.get();
    } catch (error) {
      // The text-images pass has said how to get a browser; here the pages are only counted.
      ctx.decide({ file: '', action: 'skipped', reason: `${images.size} page${images.size === 1 ? '' : 's'} left as they are: no browser to measure the layout (${/** @type {Error} */ (error).message.split(':')[0]})` });
      return;
    }
    const session = await siteLayouts(ctx.browser, site, { tabs: layoutTabs(ctx.threads) });
    /** @type {Map<string, { width: number, height: number } | null>} */
    const sizes = new Map();
    /** Each image's size as it is read, once however many pages measured side by side ask for it. @type {Map<string, Promise<{ width: number, height: number } | null>>} */
    const sizing = new Map();
    const sizeOf = (/** @type {string} */ target) => {
      let size = sizing.get(target);
      if (!size) sizing.set(target, (size = (async () => (site.files.has(target) ? shownSize(await site.read(target), ctx.options.maxPixels) : null))()));
      return size;
    };
    try {
      let done = 0;
      // Pages are measured, changed and measured again several at a time (a measurement waits for Chromium's
      // frames); the changes are written and decided on in the pages' order.
      await forEachOrdered([...images].sort(([a], [b]) => (a < b ? -1 : 1)), async ([page, refs]) => {
        const bytes = await site.read(page);
        for (const ref of refs) {
          const target = ref.status === 'ok' ? /** @type {string} */ (ref.target) : '';
          if (target && !sizes.has(target)) sizes.set(target, await sizeOf(target));
        }
        // Measured only when the markup may change: an <img> without width and height, or a large image (the
        // hints go on those alone). A page of small, sized images costs no layout.
        if (!refs.some((ref) => {
          const size = ref.status === 'ok' ? sizes.get(/** @type {string} */ (ref.target)) : null;
          const tag = startTag(bytes, ref);
          return size && (isLarge(size) || (!hasAttribute(tag, 'width') && !hasAttribute(tag, 'height')));
        })) return null;
        /** @type {PageLayout[]} */
        let before;
        try {
          before = await session.measure(page, refs.length > MANY_IMAGES ? FEW_VIEWPORTS : null);
        } catch (error) {
          if (error instanceof PageFailed) return { bytes, chosen: null, firstMoved: null, failed: error.message };
          throw error;
        }
        const charset = /** @type {string} */ (site.get(page).charset);
        const authorPriority = refs.some((ref) => hasAttribute(startTag(bytes, ref), 'fetchpriority'));
        const priority = authorPriority ? null : largestInFirstView(before, refs, (path) => isLarge(sizes.get(path)));
        const indexed = before.map(imagesByKey);
        /**
         * The page's new markup, and what it adds.
         * @param {boolean} withSizes whether to add width and height
         */
        const markup = async (withSizes) => {
          /** @type {import('../site/edits.js').Edit[]} */
          const edits = [];
          const counts = { sized: 0, lazy: 0, priority: 0, decoding: 0 };
          /** The images given width and height. @type {{ width: number, height: number }[]} */
          const sized = [];
          /** @type {Map<string, number>} */
          const seen = new Map();
          for (const ref of refs) {
            const target = ref.status === 'ok' ? /** @type {string} */ (ref.target) : '';
            const occurrence = seen.get(target) ?? 0;
            seen.set(target, occurrence + 1);
            const tag = startTag(bytes, ref);
            const has = (/** @type {string} */ name) => hasAttribute(tag, name);
            /** @type {string[]} */
            const added = [];
            const size = target ? sizes.get(target) : null;
            let reserved = has('width') && has('height');
            if (withSizes && !has('width') && !has('height') && size) {
              added.push(`width="${size.width}" height="${size.height}"`);
              sized.push(size);
              counts.sized++;
              reserved = true;
            }
            const large = isLarge(size);
            if (!has('decoding') && large) {
              added.push('decoding="async"');
              counts.decoding++;
            }
            const boxes = indexed.map((images) => images.get(`${target}\n${occurrence}`));
            // Lazy only where the box is reserved: a lazy image without its size would move what follows it when
            // it arrives, as the visitor scrolls to it.
            if (!has('loading') && large && reserved && boxes.every((b) => b && b.width > 0 && b.y >= VIEWPORT_HEIGHT)) {
              added.push('loading="lazy"');
              counts.lazy++;
            }
            if (ref === priority && !has('fetchpriority')) {
              added.push('fetchpriority="high"');
              counts.priority++;
            }
            if (!added.length) continue;
            const tagEnd = /** @type {number} */ (ref.tagEnd);
            const closing = startTagEnd(bytes, tagEnd);
            edits.push({ start: closing, end: closing, bytes: encodeText(` ${added.join(' ')}`, charset) });
          }
          return { edits, counts, sized };
        };
        // With width and height first; where those move a box (a style that sizes one side only), without them.
        // Each change is measured before it is written: the tab serves the changed page in place of the site's.
        /** @type {{ counts: { sized: number, lazy: number, priority: number, decoding: number }, bytes: Buffer } | null} */
        let chosen = null;
        /** The viewport width at which the first attempt moved a box. @type {number | null} */
        let firstMoved = null;
        for (const withSizes of [true, false]) {
          const attempt = await markup(withSizes);
          if (!attempt.edits.length || (!withSizes && attempt.counts.decoding + attempt.counts.lazy + attempt.counts.priority === 0)) break;
          const changed = applyEdits(bytes, attempt.edits);
          let after;
          try {
            after = await session.measure(page, before.map((l) => l.viewport), { bytes: changed });
          } catch (error) {
            if (error instanceof PageFailed) return { bytes, chosen: null, firstMoved: null, failed: error.message };
            throw error;
          }
          const moved = layoutDifference(before, after, sizedTolerance(attempt.sized));
          firstMoved ??= moved;
          if (moved === null) {
            chosen = { counts: attempt.counts, bytes: changed };
            break;
          }
          if (attempt.counts.sized === 0) break;
        }
        return { bytes, chosen, firstMoved, failed: null };
      }, async (measured, [page]) => {
        ctx.progress(page, { done: done++, total: images.size });
        if (!measured) return;
        const { bytes, chosen, firstMoved, failed } = measured;
        if (failed) {
          ctx.warn(page, 'layout-failed', `image markup left as it is: ${failed}`);
          ctx.decide({ file: page, action: 'kept', reason: `its layout could not be measured: ${failed}` });
          return;
        }
        if (firstMoved !== null) ctx.warn(page, 'layout-changed', chosen ? `<img>s left without width and height: with them a box moved at ${firstMoved} px wide` : `image markup left as it is: with it a box moved at ${firstMoved} px wide`);
        if (!chosen) return;
        await site.write(page, chosen.bytes);
        ctx.touched(page, bytes.length, chosen.bytes.length);
        const { counts } = chosen;
        const said = [counts.sized && `${counts.sized} width and height`, counts.decoding && `${counts.decoding} decoding=async`, counts.lazy && `${counts.lazy} loading=lazy`, counts.priority && 'fetchpriority=high on the largest image in the first view'].filter(Boolean);
        ctx.decide({ file: page, action: 'changed', reason: said.join(', ') });
      }, layoutTabs(ctx.threads));
    } finally {
      await session.close();
    }
  },
};

/**
 * The text of an <img src> reference's start tag.
 * @param {Buffer} bytes the page
 * @param {Reference} ref
 */
function startTag(bytes, ref) {
  return bytes.toString('latin1', /** @type {number} */ (ref.tagStart), /** @type {number} */ (ref.tagEnd));
}

/**
 * Whether a start tag has an attribute, whatever its case.
 * @param {string} tag
 * @param {string} name
 */
function hasAttribute(tag, name) {
  return new RegExp(`\\s${name}\\s*=`, 'i').test(tag);
}

/**
 * Whether an image has LARGE_IMAGE_PIXELS stored.
 * @param {{ width: number, height: number } | null | undefined} size
 */
function isLarge(size) {
  return Boolean(size && size.width * size.height >= LARGE_IMAGE_PIXELS);
}

/**
 * The <img> reference whose box covers the most of the first viewport at
 * the robot's width (or the widest measured below it), or null when none
 * covers LARGE_IMAGE_PIXELS of it. Only large images count: a small image
 * drawn larger is no large paint (Chromium's largest contentful paint counts
 * an upscaled image at its own size).
 * @param {PageLayout[]} layouts
 * @param {Reference[]} refs the page's <img src> references, in document order
 * @param {(path: string) => boolean} large whether the image at a site path has LARGE_IMAGE_PIXELS stored
 */
function largestInFirstView(layouts, refs, large) {
  const layout = [...layouts].reverse().find((l) => l.viewport <= ROBOT_VIEWPORT) ?? layouts[0];
  let best = null;
  let bestArea = 0;
  for (let i = 0; i < layout.images.length; i++) {
    const box = layout.images[i];
    if (!large(box.path)) continue;
    const visible = Math.max(0, Math.min(box.y + box.height, VIEWPORT_HEIGHT) - Math.max(box.y, 0)) * Math.max(0, Math.min(box.x + box.width, layout.viewport) - Math.max(box.x, 0));
    if (visible > bestArea) {
      bestArea = visible;
      best = box;
    }
  }
  if (!best || bestArea < LARGE_IMAGE_PIXELS) return null;
  const found = best;
  return refs.filter((r) => (r.status === 'ok' ? r.target : '') === found.path)[found.occurrence] ?? null;
}
