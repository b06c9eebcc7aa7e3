/**
 * Every reference of a site's pages and style sheets, in file then byte order,
 * as objects (the site model keeps them compactly, per document).
 * @param {import('../../src/site/site.js').Site} site
 */
export function allReferences(site) {
  return [...site.files.values()].flatMap((f) => f.references);
}
