/**
 * What a report is about, worked out once from its runs: the pages,
 * networks, strategies and visits the sections walk through, in the runs'
 * order, and the time between the first and the repeat visit.
 */
import { DEFAULT_BETWEEN_VISITS } from '../loader/client.js';
import { inReportOrder } from './compare.js';
import { unique } from './html-format.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 *
 * @typedef {object} Focus what the report is about
 * @property {string} page the first page of the report: its waterfalls
 * @property {string[]} pages every page loaded, in order
 * @property {string[]} networks in the runs' order
 * @property {string[]} protocols in the runs' order
 * @property {string[]} visits in the runs' order
 * @property {string} visit 'first' when the report has first visits: the charts'
 * @property {string} headlineProtocol the headline's strategy
 */

/** @param {ReportData} report @returns {Focus} */
export function focusOf(report) {
  const runs = [...report.before.runs, ...report.after.runs];
  const pages = unique(runs.map((r) => r.page));
  const protocols = unique(runs.map((r) => r.protocol));
  const visits = inReportOrder(unique(runs.map((r) => r.visit)));
  return {
    page: pages[0] ?? '',
    pages,
    networks: unique(runs.map((r) => r.network)),
    protocols,
    visits,
    visit: visits.includes('first') ? 'first' : visits[0] ?? 'first',
    headlineProtocol: report.headline?.protocol ?? (protocols.includes('h2') ? 'h2' : protocols[0] ?? 'h2'),
  };
}

/** The seconds between the first and the repeat visit of a report (a day in one made before they were recorded). @param {ReportData} report */
export function betweenVisitsOf(report) {
  return report.headline?.betweenVisits ?? report.betweenVisits ?? DEFAULT_BETWEEN_VISITS;
}
