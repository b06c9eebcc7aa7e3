/**
 * Requests a browser makes to show each page, counted on the reference graph:
 * the page, then every distinct subresource it loads, following style sheets
 * (their url() and imports) and frames (their own subresources), once each.
 * The loader measures the real exchange; this count is the model's prediction.
 */
import { REFERENCE_KINDS } from './site/reference-kinds.js';
import { chosenReferences } from './site/image-choice.js';

/**
 * @param {import('./site/site.js').Site} site
 * @param {string} pagePath
 * @returns {string[]} site paths fetched, the page first
 */
export function pageRequests(site, pagePath) {
  const fetched = [pagePath];
  const seen = new Set(fetched);
  for (let i = 0; i < fetched.length; i++) {
    const file = site.files.get(fetched[i]);
    if (!file) continue;
    for (const ref of chosenReferences(file.references)) {
      if (ref.status !== 'ok' || !ref.target || !REFERENCE_KINDS[ref.kind].subresource || seen.has(ref.target)) continue;
      seen.add(ref.target);
      fetched.push(ref.target);
    }
  }
  return fetched;
}

/**
 * What showing each page costs: how many requests (the page and every
 * subresource it loads, each once) and how many bytes they carry (output
 * bytes: what a pass wrote, or the input's). One walk of the graph gives both.
 * @param {import('./site/site.js').Site} site
 * @returns {{ requests: Record<string, number>, bytes: Record<string, number> }} by page
 */
export function pageWeights(site) {
  /** @type {Record<string, number>} */
  const requests = {};
  /** @type {Record<string, number>} */
  const bytes = {};
  for (const page of site.pages) {
    const fetched = pageRequests(site, page.path);
    requests[page.path] = fetched.length;
    bytes[page.path] = fetched.reduce((sum, p) => sum + (site.files.get(p)?.outputSize ?? 0), 0);
  }
  return { requests, bytes };
}
