/**
 * Requests a browser makes to show each page, counted on the reference graph:
 * the page, then every distinct subresource it loads, following style sheets
 * (their url() and imports) and frames (their own subresources), once each.
 * The loader measures the real exchange; this count is the model's prediction.
 */
import { REFERENCE_KINDS } from './reference-kinds.js';
import { chosenReferences } from './image-choice.js';

/**
 * @param {import('./site.js').Site} site
 * @param {string} pagePath
 * @param {Map<string, string[]>} [loadsOf] each file's subresources, kept between calls on the same site model
 * @returns {string[]} site paths fetched, the page first
 */
export function pageRequests(site, pagePath, loadsOf = new Map()) {
  const fetched = [pagePath];
  const seen = new Set(fetched);
  for (let i = 0; i < fetched.length; i++) {
    let loads = loadsOf.get(fetched[i]);
    if (!loads) loadsOf.set(fetched[i], (loads = subresources(site.files.get(fetched[i]))));
    for (const target of loads) {
      if (seen.has(target)) continue;
      seen.add(target);
      fetched.push(target);
    }
  }
  return fetched;
}

/**
 * The files a document loads itself (not those its style sheets or frames load), in byte order.
 * @param {import('./site.js').SiteFile | undefined} file
 * @returns {string[]}
 */
function subresources(file) {
  /** @type {string[]} */
  const loads = [];
  const table = file?.referenceTable;
  if (!table) return loads;
  // Only references of kinds a browser loads with the page are made into objects (links are most of a page's):
  // every reference of an image choice is of such a kind, so the choices come out the same.
  /** @type {import('./site.js').Reference[]} */
  const loaded = [];
  for (let i = 0; i < table.length; i++) if (REFERENCE_KINDS[table.kindAt(i)].subresource) loaded.push(table.at(i));
  for (const ref of chosenReferences(loaded)) {
    if (ref.status === 'ok' && ref.target) loads.push(ref.target);
  }
  return loads;
}

/**
 * What showing each page costs: how many requests (the page and every
 * subresource it loads, each once) and how many bytes they carry (output
 * bytes: what a pass wrote, or the input's). One walk of the graph gives both.
 * @param {import('./site.js').Site} site
 * @returns {{ requests: Record<string, number>, bytes: Record<string, number> }} by page
 */
export function pageWeights(site) {
  /** @type {Record<string, number>} */
  const requests = {};
  /** @type {Record<string, number>} */
  const bytes = {};
  /** @type {Map<string, string[]>} a style sheet many pages link is read once */
  const loadsOf = new Map();
  for (const page of site.pages) {
    const fetched = pageRequests(site, page.path, loadsOf);
    requests[page.path] = fetched.length;
    bytes[page.path] = fetched.reduce((sum, p) => sum + (site.files.get(p)?.outputSize ?? 0), 0);
  }
  return { requests, bytes };
}
