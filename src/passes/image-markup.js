/**
 * Image markup that lets the browser load images well, from the layout
 * Chromium measures (src/images/layout.js): on <img>s, `width` and `height`
 * where both are missing (from the image's own pixels, so the browser
 * reserves the box before the image arrives and nothing shifts),
 * `decoding="async"`, `loading="lazy"` for an image wholly below the first
 * viewport at every width measured whose width and height are set (its box
 * reserved); for the page's largest contentful paint as Chromium names it
 * at 360 and 1280 px, `fetchpriority="high"` on its <img> (and no
 * `loading="lazy"`), or a preload in the head when it is a CSS background
 * (src/images/paint-preload.js); and a preload of each web font file that
 * draws text in the first view (src/images/first-view-fonts.js). Each page is
 * measured again after its
 * markup changed; a page where any box moved keeps its markup, with a
 * warning. docs/image-markup.md.
 */
import { applyEdits, startTagEnd } from '../site/edits.js';
import { attribute, fromPage, paintPreloads, preloadLink } from '../images/paint-preload.js';
import { encodeText } from '../site/charset.js';
import { shownSize } from '../images/size.js';
import { browser, maxPixels } from '../images/options.js';
import { PageFailed } from '../browser/page-failed.js';
import { imagesByKey, layoutDifference, layoutTabs, MIN_VIEWPORT, siteLayouts, sizedTolerance, VIEWPORT_HEIGHT } from '../images/layout.js';
import { ORIGIN } from '../browser/site-route.js';
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
 * @typedef {import('../images/layout.js').LargestPaint} LargestPaint
 * @typedef {import('../site/site.js').Reference} Reference
 */

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'image-markup',
  description: '<img> width and height, decoding, lazy loading below the first view, and what the first view needs fetched first (fetchpriority on the largest contentful paint, a preload for a CSS background one and for the web fonts of the first view), from the layout Chromium measures',
  options,
  async run(site, ctx) {
    /** @type {Map<string, Reference[]>} each page's <img src> references, in document order */
    const images = new Map();
    /** @type {string[]} */
    const pages = [];
    for (const file of site.files.values()) {
      if (file.role !== 'page') continue;
      pages.push(file.path);
      const refs = (file.referenceTable?.toArray() ?? []).filter((r) => r.element === 'img' && r.attribute === 'src' && r.tagStart !== undefined && r.tagEnd !== undefined);
      images.set(file.path, refs.sort((a, b) => /** @type {number} */ (a.tagStart) - /** @type {number} */ (b.tagStart)));
    }
    /** @type {Map<string, { width: number, height: number } | null>} */
    const sizes = new Map();
    /** Each image's size as it is read, once however many pages measured side by side ask for it. @type {Map<string, Promise<{ width: number, height: number } | null>>} */
    const sizing = new Map();
    const sizeOf = (/** @type {string} */ target) => {
      let size = sizing.get(target);
      if (!size) sizing.set(target, (size = (async () => (site.files.has(target) ? shownSize(await site.read(target), ctx.options.maxPixels) : null))()));
      return size;
    };
    const firstViewHints = await pagesWithFirstViewHints(site, pages, async (target) => isLarge(await sizeOf(target)));
    const measured = [...images].filter(([page, refs]) => refs.length || firstViewHints.has(page));
    if (!measured.length) return;
    try {
      await ctx.browser.get();
    } catch (error) {
      // The text-images pass has said how to get a browser; here the pages are only counted.
      ctx.decide({ file: '', action: 'skipped', reason: `${measured.length} page${measured.length === 1 ? '' : 's'} left as they are: no browser to measure the layout (${/** @type {Error} */ (error).message.split(':')[0]})` });
      return;
    }
    const session = await siteLayouts(ctx.browser, site, { tabs: layoutTabs(ctx.threads) });
    try {
      let done = 0;
      // Pages are measured, changed and measured again several at a time (a measurement waits for Chromium's
      // frames); the changes are written and decided on in the pages' order.
      await forEachOrdered(measured.sort(([a], [b]) => (a < b ? -1 : 1)), async ([page, refs]) => {
        const bytes = await site.read(page);
        for (const ref of refs) {
          const target = ref.status === 'ok' ? /** @type {string} */ (ref.target) : '';
          if (target && !sizes.has(target)) sizes.set(target, await sizeOf(target));
        }
        // Measured only when the markup may change: an <img> without width and height, a large image (the hints
        // go on those alone), a large CSS background or a web font. A page of small, sized images costs no layout.
        const imageWork = refs.some((ref) => {
          const size = ref.status === 'ok' ? sizes.get(/** @type {string} */ (ref.target)) : null;
          const tag = startTag(bytes, ref);
          return size && (isLarge(size) || (!hasAttribute(tag, 'width') && !hasAttribute(tag, 'height')));
        });
        if (!firstViewHints.has(page) && !imageWork) return null;
        const file = site.get(page);
        const charset = /** @type {string} */ (file.charset);
        const preloaded = new Set((file.referenceTable?.toArray() ?? []).filter((r) => r.kind === 'preload' && r.status === 'ok').map((r) => r.target));
        const canPreload = file.baseHref === null && file.headEnd !== null;
        /** Links inserted at the end of the head. @param {string[]} links @returns {import('../site/edits.js').Edit} */
        const inHead = (links) => ({ start: /** @type {number} */ (file.headEnd), end: /** @type {number} */ (file.headEnd), bytes: encodeText(links.join(''), charset) });
        /** @type {PageLayout[]} */
        let before;
        /** The largest contentful paints at MIN_VIEWPORT and ROBOT_VIEWPORT. @type {(LargestPaint | null)[]} */
        let paints;
        /** The web font files that draw text in the first view at either width. @type {string[]} */
        let fonts;
        try {
          const narrow = await session.firstView(page, MIN_VIEWPORT);
          if (!imageWork && !isBackgroundPaint(narrow.paint)) {
            const view = await session.firstView(page, ROBOT_VIEWPORT);
            if (!isBackgroundPaint(view.paint)) {
              // Only the head may change, which is not drawn: no layout to measure or prove.
              const fontPreloads = canPreload ? preloadFonts(site, page, [...new Set([...narrow.fonts, ...view.fonts])], preloaded) : [];
              if (!fontPreloads.length) return null;
              const counts = { sized: 0, lazy: 0, priority: 0, decoding: 0, eager: 0, preload: 0, fontPreload: fontPreloads.length };
              return { bytes, chosen: { counts, bytes: applyEdits(bytes, [inHead(fontPreloads)]) }, firstMoved: null, failed: null };
            }
          }
          const wide = await session.measureWithFirstView(page, refs.length > MANY_IMAGES ? FEW_VIEWPORTS : null, ROBOT_VIEWPORT, { watch: narrow.paint ? [narrow.paint.element] : [] });
          before = wide.layouts;
          paints = [narrow.paint, wide.view.paint];
          fonts = [...new Set([...narrow.fonts, ...wide.view.fonts])];
        } catch (error) {
          if (error instanceof PageFailed) return { bytes, chosen: null, firstMoved: null, failed: error.message };
          throw error;
        }
        const authorPriority = refs.some((ref) => hasAttribute(startTag(bytes, ref), 'fetchpriority'));
        const indexed = before.map(imagesByKey);
        const paintRefs = new Set(authorPriority ? [] : paints.map((paint) => paintedImage(paint, before, refs, (path) => isLarge(sizes.get(path)))).filter((ref) => ref !== null));
        const imagePreloads = authorPriority || !canPreload ? [] : await backgroundPreloads(page, paints, before, refs, async (target) => site.files.has(target) && isLarge(await sizeOf(target)), preloaded);
        const fontPreloads = canPreload ? preloadFonts(site, page, fonts, preloaded) : [];
        const preloads = [...imagePreloads, ...fontPreloads];
        /**
         * The page's new markup, and what it adds.
         * @param {boolean} withSizes whether to add width and height
         */
        const markup = async (withSizes) => {
          /** @type {import('../site/edits.js').Edit[]} */
          const edits = [];
          const counts = { sized: 0, lazy: 0, priority: 0, decoding: 0, eager: 0, preload: imagePreloads.length, fontPreload: fontPreloads.length };
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
            if (paintRefs.has(ref)) {
              added.push('fetchpriority="high"');
              counts.priority++;
              // The largest paint is not left for the visitor's scrolling to start.
              const lazy = /\sloading\s*=\s*(?:"lazy"|'lazy'|lazy(?=[\s/>]))/i.exec(tag);
              if (lazy) {
                const at = /** @type {number} */ (ref.tagStart) + lazy.index;
                edits.push({ start: at, end: at + lazy[0].length, bytes: Buffer.alloc(0) });
                counts.eager++;
              }
            }
            if (!added.length) continue;
            const tagEnd = /** @type {number} */ (ref.tagEnd);
            const closing = startTagEnd(bytes, tagEnd);
            edits.push({ start: closing, end: closing, bytes: encodeText(` ${added.join(' ')}`, charset) });
          }
          if (preloads.length) edits.push(inHead(preloads));
          return { edits: edits.sort((a, b) => a.start - b.start), counts, sized };
        };
        // With width and height first; where those move a box (a style that sizes one side only), without them.
        // Each change is measured before it is written: the tab serves the changed page in place of the site's.
        /** @type {{ counts: { sized: number, lazy: number, priority: number, decoding: number, eager: number, preload: number, fontPreload: number }, bytes: Buffer } | null} */
        let chosen = null;
        /** The viewport width at which the first attempt moved a box. @type {number | null} */
        let firstMoved = null;
        for (const withSizes of [true, false]) {
          const attempt = await markup(withSizes);
          const { counts } = attempt;
          if (!attempt.edits.length || (!withSizes && counts.decoding + counts.lazy + counts.priority + counts.preload + counts.fontPreload === 0)) break;
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
            chosen = { counts, bytes: changed };
            break;
          }
          if (counts.sized === 0) break;
        }
        return { bytes, chosen, firstMoved, failed: null };
      }, async (measuredPage, [page]) => {
        ctx.progress(page, { done: done++, total: measured.length });
        if (!measuredPage) return;
        const { bytes, chosen, firstMoved, failed } = measuredPage;
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
        const said = [
          counts.sized && `${counts.sized} width and height`,
          counts.decoding && `${counts.decoding} decoding=async`,
          counts.lazy && `${counts.lazy} loading=lazy`,
          counts.priority && `fetchpriority=high on the largest contentful paint${counts.priority > 1 ? `s (${counts.priority})` : ''}${counts.eager ? ', its loading=lazy taken off' : ''}`,
          counts.preload && `${counts.preload} preload${counts.preload > 1 ? 's' : ''} of the largest contentful paint's background`,
          counts.fontPreload && `${counts.fontPreload} preload${counts.fontPreload > 1 ? 's' : ''} of the web fonts of the first view`,
        ].filter(Boolean);
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
 * The <img src> reference of a largest contentful paint, or null when the
 * paint is not a large image of the page's markup. A small image never gets
 * the priority: it costs little to fetch, and the attribute would add more
 * bytes than it saves (a 1997 page's icons).
 * @param {LargestPaint | null} paint
 * @param {PageLayout[]} layouts
 * @param {Reference[]} refs the page's <img src> references, in document order
 * @param {(path: string) => boolean} large whether the image at a site path has LARGE_IMAGE_PIXELS stored
 */
function paintedImage(paint, layouts, refs, large) {
  const box = paint && paint.image >= 0 ? layouts[0]?.images[paint.image] : undefined;
  if (!box || !large(box.path)) return null;
  return refs.filter((r) => (r.status === 'ok' ? r.target : '') === box.path)[box.occurrence] ?? null;
}

/**
 * The preload links for the page's largest contentful paints that are CSS
 * backgrounds of large images of the site, none where the page preloads
 * one of them already.
 * @param {string} page
 * @param {(LargestPaint | null)[]} paints at MIN_VIEWPORT and ROBOT_VIEWPORT
 * @param {PageLayout[]} layouts measured with the narrow paint's element watched, then the wide one's
 * @param {Reference[]} refs the page's <img src> references
 * @param {(path: string) => Promise<boolean>} large whether a site path is a large image of the site
 * @param {Set<string | undefined>} preloaded the site paths the page preloads already
 * @returns {Promise<string[]>}
 */
async function backgroundPreloads(page, [narrow, wide], layouts, refs, large, preloaded) {
  /** @type {{ paint: LargestPaint, column: number, widths: number[] }[]} */
  const elements = [];
  if (narrow) elements.push({ paint: narrow, column: 0, widths: [MIN_VIEWPORT] });
  if (wide) {
    const same = elements.find((e) => e.paint.element === wide.element);
    if (same) same.widths.push(ROBOT_VIEWPORT);
    else elements.push({ paint: wide, column: narrow ? 1 : 0, widths: [ROBOT_VIEWPORT] });
  }
  /** @type {string[]} */
  const links = [];
  for (const { paint, column, widths } of elements) {
    if (!isBackgroundPaint(paint) || refs.length > MANY_IMAGES) continue;
    const measured = layouts.map((l) => ({ viewport: l.viewport, background: l.watched[column] ?? 'none' }));
    for (const preload of paintPreloads(measured, paint.url, widths, { andWider: widths.includes(ROBOT_VIEWPORT) })) {
      const link = preloadLink(preload, page, ORIGIN);
      if (!link || link.targets.some((t) => preloaded.has(t))) continue;
      let allLarge = true;
      for (const target of link.targets) allLarge &&= await large(target);
      if (allLarge) links.push(link.html);
    }
  }
  return links;
}

/**
 * Whether a largest contentful paint is a CSS background image.
 * @param {LargestPaint | null} paint
 */
function isBackgroundPaint(paint) {
  return Boolean(paint && paint.image < 0 && paint.url && paint.background !== 'none');
}

/**
 * Preload links for the web font files of the first view that are the
 * site's, but those the page preloads already. A font is fetched in CORS
 * mode, and its preload must be too (`crossorigin`) or it is fetched twice.
 * No `type`: the fonts pass may turn the file into WOFF2 after, and moves
 * the preload with it.
 * @param {import('../site/site.js').Site} site
 * @param {string} page
 * @param {string[]} fonts absolute URLs on ORIGIN
 * @param {Set<string | undefined>} preloaded the site paths the page preloads already
 * @returns {string[]}
 */
function preloadFonts(site, page, fonts, preloaded) {
  /** @type {string[]} */
  const links = [];
  for (const font of fonts) {
    const found = fromPage(font, page, ORIGIN);
    if (!found || !site.files.has(found.target) || preloaded.has(found.target)) continue;
    links.push(`<link rel="preload" as="font"${attribute('href', found.url)} crossorigin>`);
  }
  return links;
}

/** The web font files Chromium reads, by extension. */
const FONT_FILE = /\.(?:woff2?|ttf|otf)$/i;

/**
 * The pages whose first view may need a hint: those that may draw a large
 * image of the site as a CSS background (in a style attribute, a <style>
 * element, a legacy background attribute, or a style sheet they link, and
 * the sheets it imports), or that have web fonts of the site.
 * @param {import('../site/site.js').Site} site
 * @param {string[]} pages
 * @param {(path: string) => Promise<boolean>} large whether a site path is a large image
 * @returns {Promise<Set<string>>}
 */
async function pagesWithFirstViewHints(site, pages, large) {
  /** @type {Map<string, Promise<boolean>>} */
  const sheets = new Map();
  /** @param {string} sheet @param {Set<string>} seen */
  const sheetDraws = (sheet, seen) => {
    let known = sheets.get(sheet);
    if (!known) {
      sheets.set(sheet, (known = (async () => {
        if (seen.has(sheet) || !site.files.has(sheet)) return false;
        seen.add(sheet);
        for (const ref of site.get(sheet).referenceTable?.toArray() ?? []) {
          if (ref.status !== 'ok') continue;
          const target = /** @type {string} */ (ref.target);
          if (ref.kind === 'css-url' && !ref.overridden && (FONT_FILE.test(target) || await large(target))) return true;
          if (ref.kind === 'css-import' && !seen.has(target) && await sheetDraws(target, seen)) return true;
        }
        return false;
      })()));
    }
    return known;
  };
  /** @type {Set<string>} */
  const found = new Set();
  for (const page of pages) {
    for (const ref of site.get(page).referenceTable?.toArray() ?? []) {
      if (ref.status !== 'ok') continue;
      const target = /** @type {string} */ (ref.target);
      const drawn = ref.kind === 'style-element-url' && FONT_FILE.test(target) ? true
        : ['style-attribute-url', 'style-element-url', 'background'].includes(ref.kind) ? !ref.overridden && await large(target)
        : ref.kind === 'stylesheet' || ref.kind === 'css-import' ? await sheetDraws(target, new Set())
          : false;
      if (drawn) {
        found.add(page);
        break;
      }
    }
  }
  return found;
}
