/**
 * The kinds of reference the site model finds, and what each means to the
 * loader (is it fetched when the page loads?) and to passes.
 *
 * @typedef {'img' | 'srcset' | 'picture-source' | 'input-image' | 'stylesheet' | 'icon'
 *   | 'preload' | 'script' | 'style-attribute-url' | 'style-element-url' | 'css-url'
 *   | 'css-import' | 'background' | 'poster' | 'media' | 'object' | 'embed' | 'iframe'
 *   | 'frame' | 'svg-href' | 'anchor' | 'link'} ReferenceKind
 */

/** @type {Record<ReferenceKind, { subresource: boolean, page?: boolean, description: string }>} */
export const REFERENCE_KINDS = {
  'img': { subresource: true, description: '<img src> (and Netscape lowsrc)' },
  'srcset': { subresource: true, description: 'a candidate of <img srcset>' },
  'picture-source': { subresource: true, description: 'a candidate of <picture><source srcset>' },
  'input-image': { subresource: true, description: '<input type=image src>' },
  'stylesheet': { subresource: true, description: '<link rel=stylesheet href>' },
  'icon': { subresource: true, description: '<link rel=icon|apple-touch-icon|mask-icon href>' },
  'preload': { subresource: true, description: '<link rel=preload|modulepreload href>, and a preload\'s imagesrcset candidates' },
  'script': { subresource: true, description: '<script src>' },
  'style-attribute-url': { subresource: true, description: 'url() in a style attribute' },
  'style-element-url': { subresource: true, description: 'url() in a <style> element' },
  'css-url': { subresource: true, description: 'url() or image-set() string in a style sheet' },
  'css-import': { subresource: true, description: '@import in a style sheet or <style> element' },
  'background': { subresource: true, description: 'legacy background= on body, table, tr, td, th' },
  'poster': { subresource: true, description: '<video poster>' },
  'media': { subresource: false, description: '<video|audio|source|track src> (loaded on play, not with the page)' },
  'object': { subresource: true, description: '<object data>' },
  'embed': { subresource: true, description: '<embed src>' },
  'iframe': { subresource: true, page: true, description: '<iframe src>: a page inside the page' },
  'frame': { subresource: true, page: true, description: '<frame src>: a page inside a frameset' },
  'svg-href': { subresource: true, description: '<use href> and <image href> (or xlink:href) in inline SVG' },
  'anchor': { subresource: false, description: '<a href>, <area href>: a link, not loaded with the page' },
  'link': { subresource: false, description: 'other <link href> (prefetch, manifest, alternate, ...)' },
};

/** Link relations whose target the browser loads with the page. */
const LINK_REL_KINDS = /** @type {Record<string, ReferenceKind>} */ ({
  'stylesheet': 'stylesheet',
  'icon': 'icon',
  'apple-touch-icon': 'icon',
  'apple-touch-icon-precomposed': 'icon',
  'mask-icon': 'icon',
  'preload': 'preload',
  'modulepreload': 'preload',
});

/**
 * The kind of a `<link>` by its rel list; an alternate style sheet is not loaded.
 * @param {string} rel
 * @returns {ReferenceKind}
 */
export function linkKind(rel) {
  const rels = rel.toLowerCase().split(/\s+/).filter(Boolean);
  if (rels.includes('alternate')) return 'link';
  // "preload stylesheet" (Hugo's themes) is a style sheet: the relations are taken in the table's order, not the attribute's.
  for (const [r, kind] of Object.entries(LINK_REL_KINDS)) if (rels.includes(r)) return kind;
  return 'link';
}
