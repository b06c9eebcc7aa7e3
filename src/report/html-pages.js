/**
 * The report's pages section: the pages that saved most and those that
 * still cost most, by the bytes each loads.
 */
import { changeOf, delta, escapeHtml as esc, INT, label, num, plural, visitLabel } from './html-format.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('./compare.js').Change} Change
 * @typedef {import('../build/summary.js').BuildSummary} BuildSummary
 * @typedef {import('./html-focus.js').Focus} Focus
 */

/** The pages with the largest savings and remaining costs: this many of each. */
export const TOP_PAGES = 10;

/**
 * @typedef {object} PageRow
 * @property {string} page
 * @property {Change} bytes
 * @property {Change} requests
 */

/** @param {ReportData} report @param {Focus} focus @param {BuildSummary} [build] */
export function pagesSection(report, focus, build) {
  /** @type {PageRow[]} */
  let rows;
  let what;
  if (build) {
    rows = build.pages.map((p) => ({ page: `/${p.path}`, bytes: changeOf(p.loadBytesBefore, p.loadBytesAfter), requests: changeOf(p.requestsBefore, p.requestsAfter) }));
    what = `what each of the ${plural(rows.length, 'page')} of the build loads, each file once, uncompressed`;
  } else {
    const network = focus.networks[0];
    rows = report.savings
      .filter((c) => c.visit === focus.visit && c.protocol === focus.headlineProtocol && c.network === network)
      .map((c) => ({ page: c.page, bytes: c.wireBytes, requests: c.requests }));
    what = `the ${visitLabel(focus.visit).toLowerCase()}'s bytes on the wire of each of the ${plural(rows.length, 'page')} loaded, over ${label(focus.headlineProtocol)}`;
  }
  const byPath = (/** @type {PageRow} */ a, /** @type {PageRow} */ b) => (a.page < b.page ? -1 : a.page > b.page ? 1 : 0);
  const savers = rows.filter((r) => r.bytes.saved > 0).sort((a, b) => b.bytes.saved - a.bytes.saved || byPath(a, b)).slice(0, TOP_PAGES);
  const costs = [...rows].sort((a, b) => b.bytes.after - a.bytes.after || byPath(a, b)).slice(0, TOP_PAGES);
  const out = [`<section id="pages" aria-labelledby="pages-h">`, `<h2 id="pages-h">Pages</h2>`, `<p>Ranked by ${esc(what)}.</p>`];
  const table = (/** @type {string} */ id, /** @type {string} */ title, /** @type {PageRow[]} */ list, /** @type {string} */ empty) => {
    if (!list.length) return `<h3 id="${id}-h">${esc(title)}</h3>\n<p class="empty">${esc(empty)}</p>`;
    return `<h3 id="${id}-h">${esc(title)}</h3>
<div class="table"><table id="${id}" class="pages" aria-labelledby="${id}-h">
<thead><tr><th scope="col" class="l">Page</th><th scope="col">Bytes before</th><th scope="col">Bytes after</th><th scope="col">Change</th><th scope="col">Requests before</th><th scope="col">Requests after</th></tr></thead>
<tbody>
${list.map((r) => `<tr data-page="${esc(r.page)}"><th scope="row" class="l path"><code>${esc(r.page)}</code></th><td>${num(r.bytes.before)}</td><td>${num(r.bytes.after)}</td><td>${delta(r.bytes, (n) => num(n), false, true)}</td><td>${num(r.requests.before)}</td><td>${num(r.requests.after)}</td></tr>`).join('\n')}
</tbody>
</table></div>`;
  };
  out.push(table('table-top-savings', `Pages with the largest savings${savers.length < rows.length ? `: the top ${INT.format(savers.length)}` : ''}`, savers, 'No page loads fewer bytes.'));
  out.push(table('table-top-costs', `Pages with the largest remaining costs${costs.length < rows.length ? `: the top ${INT.format(costs.length)}` : ''}`, costs, 'No pages.'));
  out.push('</section>');
  return out.join('\n');
}
