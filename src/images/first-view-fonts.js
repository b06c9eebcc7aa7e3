/**
 * The web font files the text of a page's first view is drawn with, read in
 * Chromium (src/images/layout.js evaluates firstViewFonts in the page once
 * it has settled): image-markup preloads them, so that the text of the
 * first view is drawn with its font from the first paint and does not move
 * when a swapped font arrives.
 *
 * Chromium says which files it fetched but not which @font-face each one
 * is, nor which face draws which text: the faces are matched here as CSS
 * Fonts 4 matches them (family by family down each font-family list, then
 * style, then weight), and a face counts when one of its src files was
 * fetched.
 */

/**
 * In the page: the absolute URLs of the web font files that draw text in
 * the viewport, in the order first met.
 * @returns {string[]}
 */
/* c8 ignore start: runs in the browser */
export function firstViewFonts() {
  /** @typedef {{ family: string, style: string, weights: [number, number], urls: string[] }} Face */
  /** @type {Face[]} */
  const faces = [];
  /** @param {string} family */
  const familyKey = (family) => family.trim().replace(/^(["'])(.*)\1$/, '$2').toLowerCase();
  /** @param {CSSRuleList} rules @param {string} base */
  const walk = (rules, base) => {
    for (const rule of rules) {
      if (rule instanceof CSSFontFaceRule) {
        const style = rule.style;
        const weights = (style.getPropertyValue('font-weight') || 'normal').trim().split(/\s+/).map((w) => (w === 'bold' ? 700 : w === 'normal' ? 400 : Number(w)));
        /** @type {string[]} */
        const urls = [];
        for (const m of style.getPropertyValue('src').matchAll(/url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)\s]*))\s*\)/g)) {
          try {
            urls.push(new URL((m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, '$1'), base).href);
          } catch {
            // a URL no browser resolves
          }
        }
        faces.push({ family: familyKey(style.getPropertyValue('font-family')), style: (style.getPropertyValue('font-style') || 'normal').trim().split(/\s+/)[0], weights: [weights[0], weights[1] ?? weights[0]], urls });
      } else if (rule instanceof CSSImportRule) {
        try {
          if (rule.styleSheet) walk(rule.styleSheet.cssRules, rule.styleSheet.href ?? base);
        } catch {
          // a style sheet the page cannot read
        }
      } else if ('cssRules' in rule && rule.cssRules) walk(/** @type {CSSRuleList} */ (rule.cssRules), base);
    }
  };
  for (const sheet of document.styleSheets) {
    try {
      walk(sheet.cssRules, sheet.href ?? document.baseURI);
    } catch {
      // a style sheet the page cannot read
    }
  }
  if (!faces.length) return [];
  const fetched = new Set(performance.getEntriesByType('resource').map((e) => e.name));
  /**
   * The face CSS Fonts 4 matches for a style and weight among a family's faces.
   * @param {Face[]} family
   * @param {string} style
   * @param {number} weight
   */
  const match = (family, style, weight) => {
    const styles = style === 'normal' ? ['normal', 'oblique', 'italic'] : ['italic', 'oblique', 'normal'];
    const sameStyle = styles.map((s) => family.filter((f) => f.style === s)).find((list) => list.length) ?? family;
    const within = sameStyle.find((f) => f.weights[0] <= weight && weight <= f.weights[1]);
    if (within) return within;
    // Past the desired weight: 400 looks up to 500 first, lighter for below 400, heavier for above 500.
    const distance = (/** @type {Face} */ f) => {
      const [lo, hi] = f.weights;
      const heavier = weight >= 400 && weight <= 500 ? (lo > weight && lo <= 500) : weight > 500;
      if (hi < weight) return heavier ? 2000 + (weight - hi) : weight - hi;
      return heavier ? lo - weight : 1000 + (lo - weight);
    };
    return [...sameStyle].sort((a, b) => distance(a) - distance(b))[0];
  };
  /** @type {string[]} */
  const found = [];
  /** @type {Set<string>} */
  const asked = new Set();
  const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.nodeValue?.trim()) continue;
    const el = node.parentElement;
    if (!el || el.closest('script, style, template, noscript, title')) continue;
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    const computed = getComputedStyle(el);
    if (computed.visibility !== 'visible') continue;
    const key = `${computed.fontFamily}\n${computed.fontStyle}\n${computed.fontWeight}`;
    if (asked.has(key)) continue;
    asked.add(key);
    for (const name of computed.fontFamily.split(',')) {
      const family = faces.filter((f) => f.family === familyKey(name));
      if (!family.length) {
        // A generic or local family: the text is drawn with it when it is installed, and no file is fetched.
        if (!/^(?:serif|sans-serif|monospace|cursive|fantasy|system-ui|ui-\w+|math|emoji|fangsong)$/.test(familyKey(name))) continue;
        break;
      }
      const face = match(family, computed.fontStyle.split(/\s+/)[0], Number(computed.fontWeight));
      // Faces of one style and weight split by unicode-range (a web font service's latin and latin-ext) each
      // have a file; those fetched are the ones the page's characters needed.
      for (const twin of family.filter((f) => f.style === face.style && f.weights[0] === face.weights[0] && f.weights[1] === face.weights[1])) {
        const url = twin.urls.find((u) => fetched.has(u));
        if (url && !found.includes(url)) found.push(url);
      }
      break;
    }
  }
  return found;
}
/* c8 ignore stop */
