/**
 * Layout as Chromium measures it. A site's pages are opened from the site
 * model's current bytes (served to the browser by request interception:
 * nothing is written to disk, nothing is fetched from the network) at every
 * viewport width where the pages' media queries change the layout, and the
 * box of every element is read. Photographs get sizes that fit the boxes they
 * are drawn in (src/passes/photos.js) and image markup its loading hints
 * (src/passes/image-markup.js) from these measurements, and both prove with
 * them that no box moved.
 */
import { ORIGIN, routeSite } from '../browser/site-route.js';
import { PAGE_TIMEOUT_MS, PageFailed, firstLine, pageUsable, withPageTimeout, withinPageTime } from '../browser/page-failed.js';
import { firstViewFonts } from './first-view-fonts.js';

/** The origin the site is served from inside the browser; .invalid never resolves. */
/** The narrowest and widest viewports measured: a small phone and a full-HD screen. */
export const MIN_VIEWPORT = 360;
export const MAX_VIEWPORT = 1920;
/**
 * Viewport widths always measured besides the media queries' (common phone,
 * tablet and screen widths): between two measured widths a fluid box is
 * taken at the larger one's size, so closer widths waste fewer pixels.
 */
export const COMMON_VIEWPORTS = [MIN_VIEWPORT, 414, 768, 1024, 1280, 1366, 1440, 1536, 1680, MAX_VIEWPORT];
/** Every viewport is this tall: the first view a visitor sees (and what loading hints call "above the fold"). */
export const VIEWPORT_HEIGHT = 800;

/**
 * @typedef {object} ImageBox one <img> as drawn
 * @property {string} path the site path its src resolves to ('' when outside the site or none)
 * @property {number} occurrence how many <img>s before it in the page resolve to the same path
 * @property {number} x document coordinates, CSS px
 * @property {number} y
 * @property {number} width
 * @property {number} height
 * @property {boolean} inPicture its parent is a <picture>
 * @property {boolean} srcset it has a srcset
 *
 * @typedef {object} BackgroundBox one CSS background image layer of an element, as drawn
 * @property {string} path the site path of its url()
 * @property {number} width the element's background positioning area (its padding box), CSS px
 * @property {number} height
 * @property {string} size the layer's computed background-size ('cover', 'contain', 'auto', '50% auto'...)
 *
 * @typedef {object} PageLayout one page at one viewport width
 * @property {number} viewport
 * @property {number} scrollHeight
 * @property {number[]} boxes x, y, width and height (in 1/64 px, the unit of layout) of every element
 *   in the body but <picture> and <source>, in document order: markup that wraps an <img> in a
 *   <picture> leaves this list alone unless it moves something
 * @property {ImageBox[]} images
 * @property {BackgroundBox[]} backgrounds every element's background images (pseudo-elements' too) from the site,
 *   when measured with them (else none)
 * @property {string[]} watched the computed `background-image` of each element measured with `watch`, in its order
 *
 * @typedef {object} LargestPaint the element Chromium names the page's largest contentful paint, once it has settled
 * @property {number} element its index among all the document's elements (`document.querySelectorAll('*')`)
 * @property {number} image its index among the page's <img>s (`document.images`, the order of PageLayout's images), -1 for another element
 * @property {string} url the image painted (absolute), '' for text
 * @property {string} background the element's computed `background-image` ('none' when it has none)
 *
 * @typedef {object} FirstView what a page shows first, loaded at one viewport width
 * @property {LargestPaint | null} paint its largest contentful paint, null when Chromium names none
 * @property {string[]} fonts the web font files (absolute URLs) that draw text in the viewport (src/images/first-view-fonts.js)
 *
 * @typedef {object} SiteLayouts
 * @property {(page: string, viewports?: number[] | null, options?: { backgrounds?: boolean, bytes?: Buffer, watch?: number[] }) => Promise<PageLayout[]>} measure
 *   a page at its breakpoints (or at the viewports given); its CSS background images only when asked (they cost a
 *   computed style of every element and its pseudo-elements); with BYTES, the page as those bytes, not the site's
 *   (a change measured before it is written); with WATCH (indexes among all the document's elements), those
 *   elements' computed `background-image` at each width
 * @property {(page: string, viewports: number[] | null, viewAt: number, options?: { watch?: number[] }) => Promise<{ view: FirstView, layouts: PageLayout[] }>} measureWithFirstView
 *   measure, with the page loaded at VIEWAT wide and its first view read there first; the paint's element is watched
 *   after those asked for (its computed background is each layout's last `watched`)
 * @property {(page: string, viewport: number) => Promise<FirstView>} firstView
 *   the page's first view, loaded at that viewport width (the largest paint is chosen at load: a later resize does
 *   not choose again)
 * @property {() => Promise<void>} close
 */


/**
 * How many pages a pass measures at a time: a measurement mostly waits for
 * Chromium's frames, so two per thread keep the threads busy (a generated
 * 100-page site with --lossy: docs/measurements/photos.md).
 * @param {number} threads
 */
export function layoutTabs(threads) {
  return 2 * threads;
}

/**
 * Opens browser pages that serve the site, up to TABS of them measuring at
 * once, each in a context of its own (the pages of one context share a
 * renderer process, whose one thread draws them in turn): a measurement
 * mostly waits for frames (two after every viewport change), so pages
 * measured side by side take little more CPU than one after another and a
 * fraction of the time. Close it when done. A measurement that fails
 * throws PageFailed; a tab whose browser went is dropped, and the next
 * measurement opens one in the browser started again.
 * @param {{ get(): Promise<import('../browser/launch.js').LaunchedBrowser> }} browsers the build's browser
 * @param {import('../site/site.js').Site} site
 * @param {{ tabs?: number }} [options]
 * @returns {Promise<SiteLayouts>}
 */
export async function siteLayouts(browsers, site, { tabs = 1 } = {}) {
  if (!Number.isInteger(tabs) || tabs < 1) throw new Error(`siteLayouts: tabs must be a whole number of at least 1, not ${tabs}`);
  /** @type {import('playwright-core').BrowserContext[]} */
  const contexts = [];
  /** The bytes each tab serves for its page in place of the site's, while it measures them. @type {WeakMap<import('playwright-core').Page, { path: string, bytes: Buffer }>} */
  const served = new WeakMap();
  /** The URL of the page each tab measures: its top frame goes nowhere else. @type {WeakMap<import('playwright-core').Page, string>} */
  const visiting = new WeakMap();
  const open = async () => {
    const { browser } = await browsers.get();
    const context = withPageTimeout(await browser.newContext({ serviceWorkers: 'block', viewport: { width: MAX_VIEWPORT, height: VIEWPORT_HEIGHT }, deviceScaleFactor: 1, reducedMotion: 'reduce' }));
    contexts.push(context);
    await context.addInitScript(observeLargestPaint);
    const tab = await context.newPage();
    // A page that sends its window elsewhere once loaded (an old frameset's page calling for its frameset) is
    // measured as itself: that navigation is not followed.
    const stays = (/** @type {import('playwright-core').Request} */ request, /** @type {URL} */ url) => !(request.isNavigationRequest() && request.frame() === tab.mainFrame() && visiting.has(tab) && url.href.split('#')[0] !== visiting.get(tab));
    await routeSite(context, site, { stays, instead: (path) => { const instead = served.get(tab); return instead?.path === path ? instead.bytes : undefined; } });
    return tab;
  };
  /** @type {import('playwright-core').Page[]} */
  const idle = [];
  /** @type {{ resolve: (tab: import('playwright-core').Page) => void, reject: (error: unknown) => void }[]} */
  const waiting = [];
  let opened = 0;
  const openCounted = async () => {
    opened++;
    try {
      return await open();
    } catch (error) {
      opened--;
      throw error;
    }
  };
  /** @returns {Promise<import('playwright-core').Page>} */
  const take = async () => {
    const free = idle.pop();
    if (free) return free;
    if (opened < tabs) return openCounted();
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
  const give = (/** @type {import('playwright-core').Page} */ tab) => {
    const next = waiting.shift();
    if (next) next.resolve(tab);
    else idle.push(tab);
  };
  // A tab whose browser went: its place goes to a new tab, in the browser started again, for whoever waits.
  const drop = () => {
    opened--;
    const next = waiting.shift();
    if (next) openCounted().then(next.resolve, next.reject);
  };
  /**
   * A tab with the page loaded at a viewport width, given to USE; the tab is given back (or dropped, when its browser went) after.
   * @template T
   * @param {string} page
   * @param {number} width
   * @param {Buffer | undefined} bytes
   * @param {(tab: import('playwright-core').Page) => Promise<T>} use
   * @returns {Promise<T>}
   */
  const withPage = async (page, width, bytes, use) => {
    let tab;
    try {
      tab = await take();
    } catch (error) {
      throw new PageFailed(`Chromium could not open a page to measure it: ${firstLine(error)}`);
    }
    if (bytes) served.set(tab, { path: page, bytes });
    try {
      const used = /** @type {import('playwright-core').Page} */ (tab);
      await withinPageTime(used, used.setViewportSize({ width, height: VIEWPORT_HEIGHT }), 'setting its viewport');
      const url = `${ORIGIN}/${encodeURI(page)}`;
      visiting.set(used, new URL(url).href);
      const loaded = await used.goto(url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS }).then(() => true, (/** @type {unknown} */ error) => {
        if (!pageUsable(used)) throw error;
        return false;
      });
      if (!loaded) throw new PageFailed(`it did not load in ${PAGE_TIMEOUT_MS / 1000} s`);
      return await use(used);
    } catch (error) {
      if (error instanceof PageFailed) throw error;
      throw new PageFailed(`Chromium could not measure it: ${firstLine(error)}`);
    } finally {
      served.delete(tab);
      visiting.delete(tab);
      // A tab whose browser went is dropped: its place opens a new one in the browser started again.
      if (!pageUsable(tab)) drop();
      else give(tab);
    }
  };
  /**
   * Waits in the page until its images and fonts have loaded (see settle).
   * @param {import('playwright-core').Page} tab
   * @param {number} width
   */
  const settled = async (tab, width) => {
    // The page's own limit ends the wait inside it; the call's limit, a little later, ends a page whose script never yields.
    if (!await withinPageTime(tab, tab.evaluate(settle, PAGE_TIMEOUT_MS - 5_000), `its images and fonts settling at ${width} px wide`)) {
      throw new PageFailed(`its images and fonts had not all loaded after ${PAGE_TIMEOUT_MS / 1000} s at ${width} px wide`);
    }
  };
  /**
   * Measures the loaded page at each width.
   * @param {import('playwright-core').Page} tab
   * @param {number[] | null | undefined} viewports
   * @param {{ backgrounds: boolean, watch: number[] }} what
   */
  const measureAt = async (tab, viewports, { backgrounds, watch }) => {
    const widths = viewports ?? viewportsOf(await withinPageTime(tab, tab.evaluate(mediaWidths), 'reading its media queries'));
    /** @type {PageLayout[]} */
    const layouts = [];
    for (const width of widths) {
      await withinPageTime(tab, tab.setViewportSize({ width, height: VIEWPORT_HEIGHT }), `setting its viewport to ${width} px`);
      await settled(tab, width);
      layouts.push({ viewport: width, ...withOccurrences(await withinPageTime(tab, tab.evaluate(measureBoxes, { origin: ORIGIN, backgrounds, watch }), `measuring its boxes at ${width} px wide`)) });
    }
    return layouts;
  };
  /**
   * @param {import('playwright-core').Page} tab
   * @param {number} width
   */
  const readFirstView = async (tab, width) => {
    await settled(tab, width);
    const paint = /** @type {LargestPaint | null} */ (await withinPageTime(tab, tab.evaluate(readLargestPaint), 'reading its largest contentful paint'));
    return { paint, fonts: await withinPageTime(tab, tab.evaluate(firstViewFonts), 'reading the fonts of its first view') };
  };
  return {
    measure(page, viewports, { backgrounds = false, bytes, watch = [] } = {}) {
      return withPage(page, viewports?.[0] ?? MAX_VIEWPORT, bytes, (tab) => measureAt(tab, viewports, { backgrounds, watch }));
    },
    measureWithFirstView(page, viewports, viewAt, { watch = [] } = {}) {
      return withPage(page, viewAt, undefined, async (tab) => {
        const view = await readFirstView(tab, viewAt);
        const layouts = await measureAt(tab, viewports, { backgrounds: false, watch: view.paint ? [...watch, view.paint.element] : watch });
        return { view, layouts };
      });
    },
    firstView(page, viewport) {
      return withPage(page, viewport, undefined, (tab) => readFirstView(tab, viewport));
    },
    close: async () => {
      await Promise.all(contexts.map((context) => context.close().catch(() => {})));
    },
  };
}

/**
 * The viewport widths to measure a page at: COMMON_VIEWPORTS, and both
 * sides of every width at which one of its media queries switches
 * (a max-width of 767.98px holds at 767 and not at 768; a min-width of 768px
 * the other way), so that between two neighbours no media query changes.
 * @param {{ min: number[], max: number[] }} found the widths in min-width and max-width conditions, in CSS px
 * @returns {number[]}
 */
export function viewportsOf({ min, max }) {
  const widths = new Set(COMMON_VIEWPORTS);
  for (const m of min) for (const w of [Math.ceil(m) - 1, Math.ceil(m)]) widths.add(w);
  for (const m of max) for (const w of [Math.floor(m), Math.floor(m) + 1]) widths.add(w);
  return [...widths].filter((w) => w >= MIN_VIEWPORT && w <= MAX_VIEWPORT).sort((a, b) => a - b);
}

/**
 * In the page: the widths in its media queries (style sheets it can read,
 * <link media>, <source media>), in CSS px (em and rem as 16px, as media
 * queries count them). `width >= 576px` counts as a min-width.
 * @returns {{ min: number[], max: number[] }}
 */
/* c8 ignore start: runs in the browser */
function mediaWidths() {
  /** @type {{ min: number[], max: number[] }} */
  const found = { min: [], max: [] };
  /** @param {string} text */
  const read = (text) => {
    for (const m of text.matchAll(/(min|max)-width\s*:\s*([\d.]+)(px|r?em)/g)) found[/** @type {'min' | 'max'} */ (m[1])].push(Number(m[2]) * (m[3] === 'px' ? 1 : 16));
    for (const m of text.matchAll(/width\s*(>=|<=|>|<)\s*([\d.]+)(px|r?em)/g)) found[m[1].startsWith('>') ? 'min' : 'max'].push(Number(m[2]) * (m[3] === 'px' ? 1 : 16));
  };
  /** @param {CSSRuleList} rules */
  const walk = (rules) => {
    for (const rule of rules) {
      if (rule instanceof CSSMediaRule) read(rule.media.mediaText);
      if ('cssRules' in rule && rule.cssRules) walk(/** @type {CSSRuleList} */ (rule.cssRules));
    }
  };
  for (const sheet of document.styleSheets) {
    try {
      if (sheet.media.mediaText) read(sheet.media.mediaText);
      walk(sheet.cssRules);
    } catch {
      // a style sheet the page cannot read
    }
  }
  for (const el of document.querySelectorAll('[media]')) read(el.getAttribute('media') ?? '');
  return found;
}

/**
 * In the page: waits until every image has loaded (lazy ones too, made
 * eager, so that every box has its final size), every font has loaded and
 * two frames have been drawn. Fonts are asked again after the images: a web
 * font starts loading only when laid-out text needs it, which can be after
 * `document.fonts.ready` first resolved, and its swap moves boxes.
 * @param {number} timeout
 * @returns {Promise<boolean>} whether it settled before the timeout
 */
async function settle(timeout) {
  const until = Date.now() + timeout;
  for (const img of document.images) if (img.loading === 'lazy') img.loading = 'eager';
  const waiting = () => [...document.images].some((img) => !img.complete) || (document.fonts !== undefined && document.fonts.status !== 'loaded');
  // document.fonts.ready stays pending while a font loads: never waited on past the deadline.
  const deadline = new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));
  do {
    await Promise.race([document.fonts?.ready, deadline]);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    if (waiting()) await new Promise((resolve) => setTimeout(resolve, 20));
  } while (waiting() && Date.now() < until);
  if (waiting()) return false;
  for (let frame = 0; frame < 2; frame++) await new Promise((resolve) => requestAnimationFrame(resolve));
  return true;
}

/**
 * In the page, before any of its scripts: keeps the last largest-contentful-paint entry Chromium reports, and counts them.
 */
function observeLargestPaint() {
  try {
    let reported = 0;
    new PerformanceObserver((list) => {
      const entries = list.getEntries();
      reported += entries.length;
      Object.defineProperty(globalThis, '__pagedietLargestPaint', { value: { entry: entries[entries.length - 1], reported }, configurable: true });
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  } catch {
    // a page that replaced PerformanceObserver: no paint is named
  }
}

/**
 * In the page, once settled: the element of its largest contentful paint.
 * Chromium reports a paint once the frame that drew it has been presented,
 * some frames after it was drawn: frames are waited for until
 * QUIET_FRAMES have passed with no new report (at most MAX_FRAMES).
 * @returns {Promise<LargestPaint | null>}
 */
async function readLargestPaint() {
  const QUIET_FRAMES = 5;
  const MAX_FRAMES = 60;
  // settle waits for <img>s, not for CSS backgrounds: the image each background layer in the viewport draws (the
  // first of an image-set()'s) is loaded and decoded first, so that its paint is among those reported.
  /** @type {Set<string>} */
  const drawn = new Set();
  for (const el of document.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    const layers = getComputedStyle(el).backgroundImage;
    if (layers === 'none') continue;
    let depth = 0;
    let from = 0;
    for (let i = 0; i <= layers.length; i++) {
      const c = layers[i];
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (i === layers.length || (c === ',' && depth === 0)) {
        const first = /url\("((?:[^"\\]|\\.)*)"\)/.exec(layers.slice(from, i));
        if (first) drawn.add(first[1].replace(/\\(.)/g, '$1'));
        from = i + 1;
      }
    }
  }
  await Promise.all([...drawn].map((url) => {
    const image = new Image();
    image.src = url;
    return image.decode().catch(() => {});
  }));
  const seen = () => /** @type {{ entry: { element: Element | null, url: string }, reported: number } | undefined} */ (/** @type {any} */ (globalThis).__pagedietLargestPaint);
  let last = -1;
  for (let frame = 0, quiet = 0; frame < MAX_FRAMES && quiet < QUIET_FRAMES; frame++) {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const reported = seen()?.reported ?? 0;
    quiet = reported > 0 && reported === last ? quiet + 1 : 0;
    last = reported;
  }
  const entry = seen()?.entry;
  const el = entry?.element;
  if (!entry || !el || !el.isConnected) return null;
  return {
    element: [...document.querySelectorAll('*')].indexOf(el),
    image: el instanceof HTMLImageElement ? [...document.images].indexOf(el) : -1,
    url: entry.url,
    background: getComputedStyle(el).backgroundImage,
  };
}

/**
 * In the page: the boxes of its elements and images, its background images when asked, and the watched elements' backgrounds.
 * @param {{ origin: string, backgrounds: boolean, watch: number[] }} what
 */
function measureBoxes({ origin, backgrounds: withBackgrounds, watch }) {
  const unit = (/** @type {number} */ value) => Math.round(value * 64);
  const boxes = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.tagName === 'PICTURE' || el.tagName === 'SOURCE') continue;
    const r = el.getBoundingClientRect();
    boxes.push(unit(r.x + scrollX), unit(r.y + scrollY), unit(r.width), unit(r.height));
  }
  const images = [...document.images].map((img) => {
    const r = img.getBoundingClientRect();
    const src = img.getAttribute('src');
    let path = '';
    if (src) {
      try {
        const url = new URL(src, document.baseURI);
        if (url.origin === origin) path = decodeURIComponent(url.pathname).slice(1);
      } catch {
        // an src no browser resolves
      }
    }
    return { path, x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height, inPicture: img.parentElement?.tagName === 'PICTURE', srcset: img.hasAttribute('srcset') };
  });
  /** @type {{ path: string, width: number, height: number, size: string }[]} */
  const backgrounds = [];
  /** Splits a computed list at its top-level commas. @param {string} list */
  const layers = (list) => {
    const out = [];
    let depth = 0, from = 0;
    for (let i = 0; i < list.length; i++) {
      if (list[i] === '(') depth++;
      else if (list[i] === ')') depth--;
      else if (list[i] === ',' && depth === 0) {
        out.push(list.slice(from, i).trim());
        from = i + 1;
      }
    }
    out.push(list.slice(from).trim());
    return out;
  };
  for (const el of withBackgrounds ? [document.documentElement, ...document.querySelectorAll('body, body *')] : []) {
    for (const pseudo of [null, '::before', '::after']) {
      const style = getComputedStyle(el, pseudo);
      if (style.backgroundImage === 'none' || (pseudo && style.content === 'none')) continue;
      const sizes = layers(style.backgroundSize);
      layers(style.backgroundImage).forEach((layer, i) => {
        for (const m of layer.matchAll(/url\("((?:[^"\\]|\\.)*)"\)/g)) {
          try {
            const url = new URL(m[1].replace(/\\(.)/g, '$1'), document.baseURI);
            if (url.origin !== origin) continue;
            // A pseudo-element's box is not measured: its size counts as unknown.
            backgrounds.push({ path: decodeURIComponent(url.pathname).slice(1), width: pseudo ? -1 : el.clientWidth, height: pseudo ? -1 : el.clientHeight, size: sizes[i % sizes.length] });
          } catch {
            // a URL no browser resolves
          }
        }
      });
    }
  }
  const all = watch.length ? document.querySelectorAll('*') : [];
  const watched = watch.map((i) => (all[i] ? getComputedStyle(all[i]).backgroundImage : 'none'));
  return { scrollHeight: document.documentElement.scrollHeight, boxes, images, backgrounds, watched };
}
/* c8 ignore stop */

/**
 * @param {{ scrollHeight: number, boxes: number[], images: Omit<ImageBox, 'occurrence'>[], backgrounds: BackgroundBox[], watched: string[] }} measured
 */
function withOccurrences(measured) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  const images = measured.images.map((image) => {
    const occurrence = seen.get(image.path) ?? 0;
    seen.set(image.path, occurrence + 1);
    return { ...image, occurrence };
  });
  return { ...measured, images };
}

/**
 * A layout's images by site path and occurrence (`${path}\n${occurrence}`), for lookups on pages with many.
 * @param {PageLayout} layout
 * @returns {Map<string, ImageBox>}
 */
export function imagesByKey(layout) {
  return new Map(layout.images.map((image) => [`${image.path}\n${image.occurrence}`, image]));
}

/**
 * Layout units (1/64 px) a box edge may differ by and count as unmoved: the
 * rounding of one layout unit, which no screen shows.
 */
export const LAYOUT_TOLERANCE = 1;

/**
 * The tolerance for a page whose <img>s of these sizes got width and height
 * attributes. An image drawn with `max-width: 100%; height: auto` takes its
 * width from the attribute instead of its pixels; Chromium then rounds the
 * height to a layout unit and derives the width from it, so the width can
 * come out up to the aspect ratio's worth of units wider (a 1900x400 image 5
 * units, 3000x200 14; the height the same to the unit), while the painted
 * rectangle, snapped to pixels, stays the same.
 * @param {Iterable<{ width: number, height: number }>} sized
 */
export function sizedTolerance(sized) {
  let tolerance = LAYOUT_TOLERANCE;
  for (const { width, height } of sized) tolerance = Math.max(tolerance, Math.ceil(width / height));
  return tolerance;
}

/**
 * The first viewport (of those measured) at which two measurements of a page
 * differ in any element's box (by more than TOLERANCE) or the page's
 * height, or null when none does.
 * @param {PageLayout[]} before
 * @param {PageLayout[]} after
 * @param {number} [tolerance] layout units (1/64 px) an edge may move: LAYOUT_TOLERANCE, or sizedTolerance's
 * @returns {number | null}
 */
export function layoutDifference(before, after, tolerance = LAYOUT_TOLERANCE) {
  for (const b of before) {
    const a = after.find((l) => l.viewport === b.viewport);
    if (!a || a.scrollHeight !== b.scrollHeight || a.boxes.length !== b.boxes.length || a.boxes.some((v, i) => Math.abs(v - b.boxes[i]) > tolerance)) return b.viewport;
  }
  return null;
}
