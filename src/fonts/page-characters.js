/**
 * What pages show with a web font, asked of Chromium. Each page is opened
 * from the site model's current bytes (served by request interception, as
 * src/images/layout.js does: nothing written to disk, nothing fetched from
 * the network), and every element says which font families its text is set
 * in (its computed font-family) and what that text is: its own text nodes as
 * text-transform and small caps draw them, its ::before, ::after, ::marker
 * and ::placeholder content, and the values and labels of form controls.
 * Text is counted for every family of the list that a face of the page
 * defines, not only the first: the browser falls back along the list per
 * character. Hidden elements count too (a script may show them).
 *
 * Then, with the rewritten style sheets and the new fonts served from an
 * overlay, which font files each page fetches: the proof that a page is
 * drawn with the subset alone.
 */
import { PAGE_TIMEOUT_MS, PageFailed, firstLine, withPageTimeout, withinPageTime } from '../browser/page-failed.js';
import { ORIGIN, routeSite } from '../browser/site-route.js';

/** Widths pages are read at: a phone and a desktop screen, for families that media queries switch. */
const WIDTHS = [360, 1280];

/**
 * @typedef {object} ShownText what a page shows in one family
 * @property {Set<number>} codes the code points
 * @property {Set<string>} words its words (for the drawing proof: ligatures and kerning happen inside words)
 * @property {Set<number>} sizes the font sizes it is set in, CSS px
 *
 * @typedef {object} FontPages
 * @property {(page: string, families: string[]) => Promise<Map<string, ShownText>>} characters what a page shows in
 *   each of these families (lower case), by family
 * @property {(page: string, overlay: Map<string, Buffer>) => Promise<Set<string>>} fetched the site paths a page
 *   requests while it loads and its fonts settle, with the overlay's files served in place of (or besides) the site's
 * @property {() => Promise<void>} close
 */

/**
 * Opens the site in a browser. Close it when done.
 * @param {import('playwright-core').Browser} browser
 * @param {import('../site/site.js').Site} site
 * @returns {Promise<FontPages>}
 */
export async function fontPages(browser, site) {
  /**
   * A context serving the site and an overlay, recording what is requested.
   * @param {Map<string, Buffer>} overlay
   * @param {Set<string>} requested
   */
  const open = async (overlay, requested) => {
    const context = withPageTimeout(await browser.newContext({ serviceWorkers: 'block', viewport: { width: WIDTHS[WIDTHS.length - 1], height: 800 }, deviceScaleFactor: 1, reducedMotion: 'reduce' }));
    await routeSite(context, site, { instead: (path) => overlay.get(path), served: (path) => requested.add(path) });
    return context;
  };
  const reading = await open(new Map(), new Set());
  const tab = await reading.newPage();
  return {
    async characters(page, families) {
      /** @type {Map<string, ShownText>} */
      const found = new Map();
      try {
        await tab.setViewportSize({ width: WIDTHS[0], height: 800 });
        await tab.goto(`${ORIGIN}/${encodeURI(page)}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
      } catch (error) {
        throw new PageFailed(`Chromium could not load it: ${firstLine(error)}`);
      }
      for (const width of WIDTHS) {
        /** @type {Record<string, { text: string, words: string[], sizes: number[] }>} */
        let shown;
        try {
          await withinPageTime(tab, tab.setViewportSize({ width, height: 800 }), `setting its viewport to ${width} px`);
          if (!await withinPageTime(tab, tab.evaluate(settle, PAGE_TIMEOUT_MS - 5_000), `its fonts settling at ${width} px wide`)) {
            throw new PageFailed(`its fonts had not all loaded after ${PAGE_TIMEOUT_MS / 1000} s at ${width} px wide`);
          }
          shown = await withinPageTime(tab, tab.evaluate(shownText, families), 'reading its text');
        } catch (error) {
          throw error instanceof PageFailed ? error : new PageFailed(`Chromium could not read it: ${firstLine(error)}`);
        }
        for (const [family, { text, words, sizes }] of Object.entries(shown)) {
          const entry = found.get(family) ?? { codes: new Set(), words: new Set(), sizes: new Set() };
          for (const c of text) entry.codes.add(/** @type {number} */ (c.codePointAt(0)));
          for (const w of words) entry.words.add(w);
          for (const size of sizes) entry.sizes.add(size);
          found.set(family, entry);
        }
      }
      return found;
    },
    async fetched(page, overlay) {
      /** @type {Set<string>} */
      const requested = new Set();
      // A context of its own: nothing cached from another page hides a request.
      let context;
      try {
        context = await open(overlay, requested);
        const tab = await context.newPage();
        await tab.goto(`${ORIGIN}/${encodeURI(page)}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
        if (!await withinPageTime(tab, tab.evaluate(settle, PAGE_TIMEOUT_MS - 5_000), 'its fonts settling')) throw new PageFailed(`its fonts had not all loaded after ${PAGE_TIMEOUT_MS / 1000} s`);
        return requested;
      } catch (error) {
        throw error instanceof PageFailed ? error : new PageFailed(`Chromium could not load it: ${firstLine(error)}`);
      } finally {
        await context?.close().catch(() => {});
      }
    },
    close: () => reading.close().catch(() => {}),
  };
}

/* c8 ignore start: runs in the browser */
/**
 * In the page: waits for its fonts to load and two frames to be drawn (a
 * layout can start a font load, so the fonts are waited for twice).
 * @param {number} timeout
 * @returns {Promise<boolean>} whether the fonts had loaded before the timeout
 */
async function settle(timeout) {
  const until = Date.now() + timeout;
  const fontsReady = () => Promise.race([document.fonts.ready.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), Math.max(0, until - Date.now())))]);
  if (!await fontsReady()) return false;
  for (let frame = 0; frame < 2; frame++) await new Promise((resolve) => requestAnimationFrame(resolve));
  return fontsReady();
}

/**
 * In the page: for each of FAMILIES (lower case) that a face of the page
 * defines, every character the page shows in it (as one string), its words
 * and the font sizes it is set in.
 * @param {string[]} families
 * @returns {Record<string, { text: string, words: string[], sizes: number[] }>}
 */
function shownText(families) {
  /** A font-family list, each name lower case, quotes and escapes undone. @param {string} list */
  const names = (list) => {
    const out = [];
    for (const m of list.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,"']+)/g)) {
      const name = (m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, '$1').trim().replace(/\s+/g, ' ').toLowerCase();
      if (name) out.push(name);
    }
    return out;
  };
  /** Words kept per family and page, for the drawing proof (the characters are all kept). */
  const MAX_WORDS = 5000;
  const defined = new Set([...document.fonts].map((face) => names(face.family)[0]));
  const wanted = new Set(families.filter((f) => defined.has(f)));
  /** @type {Map<string, { chars: Set<string>, words: Set<string>, sizes: Set<number> }>} */
  const shown = new Map();
  if (!wanted.size) return {};
  /**
   * Counts TEXT as drawn in the families of STYLE.
   * @param {CSSStyleDeclaration} style
   * @param {string} text
   * @param {string} [lang]
   */
  const add = (style, text, lang) => {
    if (!text) return;
    const targets = names(style.fontFamily).filter((f) => wanted.has(f));
    if (!targets.length) return;
    let drawn = text;
    const transform = style.textTransform;
    const upper = () => {
      let u = text.toUpperCase();
      try {
        if (lang) u += text.toLocaleUpperCase(lang);
      } catch {
        // a lang that is no locale
      }
      return u;
    };
    if (transform.includes('uppercase')) drawn = upper();
    else if (transform.includes('lowercase')) drawn = text.toLowerCase();
    else if (transform.includes('capitalize')) drawn = text + upper();
    // Synthesized small capitals are capitals drawn smaller.
    if (style.fontVariantCaps && style.fontVariantCaps !== 'normal') drawn += drawn.toUpperCase() + drawn.toLowerCase();
    if (/\S/.test(drawn)) drawn += ' ';
    // A soft hyphen, or automatic hyphenation, draws a hyphen where a line breaks; an ellipsis where text overflows.
    if (drawn.includes('\u00ad') || style.hyphens === 'auto') drawn += '-\u2010';
    if (style.textOverflow === 'ellipsis') drawn += '\u2026.';
    const size = Math.round(parseFloat(style.fontSize) * 100) / 100;
    for (const family of targets) {
      const entry = shown.get(family) ?? { chars: new Set(), words: new Set(), sizes: new Set() };
      for (const c of drawn) if (c >= ' ' && !(c >= '\x7f' && c <= '\x9f')) entry.chars.add(c);
      for (const word of drawn.split(/[\s\x00-\x1f]+/)) if (word && entry.words.size < MAX_WORDS) entry.words.add(word);
      if (size > 0) entry.sizes.add(size);
      shown.set(family, entry);
    }
  };
  /** The text of a `content` value: its strings, attributes, counters and quotes. @param {string} content @param {Element} el @param {CSSStyleDeclaration} style */
  const contentText = (content, el, style) => {
    if (!content || content === 'none' || content === 'normal') return '';
    let text = '';
    for (const m of content.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([^\s),]+)[^)]*\)|(counters?\()|(open-quote|close-quote)/g)) {
      if (m[1] !== undefined || m[2] !== undefined) text += (m[1] ?? m[2]).replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, hex) => String.fromCodePoint(parseInt(hex, 16))).replace(/\\(.)/g, '$1');
      else if (m[3]) text += el.getAttribute(m[3]) ?? '';
      else if (m[4]) text += '0123456789-.' + markerText(style.listStyleType);
      else if (m[5]) text += quoteText(style.quotes);
    }
    return text;
  };
  /** @param {string} quotes */
  const quoteText = (quotes) => {
    if (!quotes || quotes === 'auto') return '\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e\u201a\u2039\u203a"\'';
    if (quotes === 'none') return '';
    return [...quotes.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1] ?? m[2]).join('');
  };
  /** The characters a list marker of this type draws. @param {string} type */
  const markerText = (type) => {
    const string = /^"((?:[^"\\]|\\.)*)"$/.exec(type ?? '');
    if (string) return string[1];
    const alpha = 'abcdefghijklmnopqrstuvwxyz';
    /** @type {Record<string, string>} */
    const markers = {
      disc: '\u2022', circle: '\u25e6', square: '\u25aa', decimal: '0123456789', 'decimal-leading-zero': '0123456789',
      'lower-roman': 'ivxlcdm', 'upper-roman': 'IVXLCDM', 'lower-alpha': alpha, 'lower-latin': alpha,
      'upper-alpha': alpha.toUpperCase(), 'upper-latin': alpha.toUpperCase(), 'lower-greek': '\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6\u03b7\u03b8\u03b9\u03ba\u03bb\u03bc\u03bd\u03be\u03bf\u03c0\u03c1\u03c3\u03c4\u03c5\u03c6\u03c7\u03c8\u03c9',
    };
    if (type === 'none' || !markers[type]) return '';
    // Symbols are followed by a space, numbers and letters by a full stop and a space.
    return /^(disc|circle|square)$/.test(type) ? `${markers[type]} ` : `${markers[type]}. `;
  };
  const SKIPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE', 'HEAD', 'IFRAME', 'OBJECT']);
  /** @param {Element | ShadowRoot} root */
  const visit = (root) => {
    const elements = root instanceof Element ? [root, ...root.querySelectorAll('*')] : [...root.querySelectorAll('*')];
    for (const el of elements) {
      if (SKIPPED.has(el.tagName.toUpperCase()) || el.closest('script, style, template, noscript, title')) continue;
      const style = getComputedStyle(el);
      const lang = /** @type {HTMLElement} */ (el).lang || document.documentElement.lang || undefined;
      let own = '';
      for (const child of el.childNodes) if (child.nodeType === Node.TEXT_NODE) own += child.nodeValue ?? '';
      add(style, own, lang);
      if (own.trim()) {
        // ::first-letter and ::first-line may set the start of the text in other families.
        for (const pseudo of ['::first-letter', '::first-line']) add(getComputedStyle(el, pseudo), own, lang);
      }
      for (const pseudo of ['::before', '::after']) {
        const ps = getComputedStyle(el, pseudo);
        add(ps, contentText(ps.content, el, ps), lang);
      }
      if (style.display.includes('list-item')) {
        const marker = getComputedStyle(el, '::marker');
        const content = contentText(marker.content, el, marker);
        add(marker, content || markerText(style.listStyleType), lang);
      }
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
        const type = el instanceof HTMLInputElement ? el.type : 'textarea';
        if (type === 'password') add(style, el.value ? '\u2022\u25cf' : '', lang);
        else if (type === 'submit' || type === 'reset' || type === 'button') add(style, el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), lang);
        else if (type !== 'hidden') add(style, el.value, lang);
        if (el.placeholder) add(getComputedStyle(el, '::placeholder'), el.placeholder, lang);
      }
      if (el instanceof HTMLSelectElement) for (const option of el.options) add(style, option.label || option.text, lang);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document.body ?? document.documentElement);
  return Object.fromEntries([...shown].map(([family, { chars, words, sizes }]) => [family, { text: [...chars].join(''), words: [...words], sizes: [...sizes] }]));
}
/* c8 ignore stop */
