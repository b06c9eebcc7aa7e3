/**
 * Terminal tables in the shape of the 1997 paper's: one table per page and
 * network, a row per strategy, and for the first visit and the revalidation
 * the packets (Pa), bytes on the wire, seconds and TCP/IP overhead (%ov).
 */
import { networkProfile } from '../loader/networks.js';

const LABELS = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'HTTP/1.1 pipelined', h2: 'HTTP/2' });
const int = new Intl.NumberFormat('en-US');

/**
 * @param {import('../loader/load.js').Run[]} runs
 * @returns {string}
 */
export function formatRuns(runs) {
  const out = [];
  for (const [page, network, group] of groups(runs)) {
    out.push(heading(page, network));
    const visits = [...new Set(group.map((r) => r.visit))];
    const header = ['', ...visits.flatMap((v) => [`${visitLabel(v)}: Pa`, 'Bytes', 'Sec', '%ov', 'Req', 'Conn'])];
    const rows = [header];
    for (const protocol of [...new Set(group.map((r) => r.protocol))]) {
      const row = [LABELS[protocol] ?? protocol];
      for (const visit of visits) {
        const r = group.find((x) => x.protocol === protocol && x.visit === visit);
        row.push(...(r ? [int.format(r.packets), int.format(r.wireBytes), r.seconds.toFixed(2), r.overheadPercent.toFixed(1), String(r.requests), String(r.connections)] : ['', '', '', '', '', '']));
      }
      rows.push(row);
    }
    out.push(align(rows), '');
  }
  return out.join('\n');
}

/**
 * Before and after, with the saving, in the same shape.
 * @param {import('./compare.js').ReportData} report
 * @returns {string}
 */
export function formatReport(report) {
  const out = [`pagediet report: ${report.before.site} -> ${report.after.site}`, ''];
  for (const [page, network, group] of groups(report.savings)) {
    out.push(heading(page, network));
    const visits = [...new Set(group.map((r) => r.visit))];
    const rows = [['', ...visits.flatMap((v) => [`${visitLabel(v)}: Pa`, 'Bytes', 'Sec', 'Req'])]];
    for (const protocol of [...new Set(group.map((r) => r.protocol))]) {
      const row = [LABELS[protocol] ?? protocol];
      for (const visit of visits) {
        const c = group.find((x) => x.protocol === protocol && x.visit === visit);
        row.push(...(c ? [arrow(c.packets, int.format), arrow(c.wireBytes, int.format), arrow(c.seconds, (n) => n.toFixed(2)), arrow(c.requests, String)] : ['', '', '', '']));
      }
      rows.push(row);
    }
    out.push(align(rows), '');
  }
  return out.join('\n');
}

/**
 * Runs grouped by page and network, in first-seen order.
 * @template {{ page: string, network: string }} T
 * @param {T[]} items
 * @returns {[string, string, T[]][]}
 */
function groups(items) {
  /** @type {Map<string, [string, string, T[]]>} */
  const map = new Map();
  for (const item of items) {
    const key = `${item.page}\n${item.network}`;
    const entry = map.get(key) ?? [item.page, item.network, []];
    entry[2].push(item);
    map.set(key, entry);
  }
  return [...map.values()];
}

/** @param {string} page @param {string} network */
function heading(page, network) {
  let description = network;
  try {
    description = `${network}: ${networkProfile(network).description}`;
  } catch {
    // A custom network has no stored description.
  }
  return `${page} on ${description}`;
}

/** @param {string} visit */
function visitLabel(visit) {
  return visit === 'first' ? 'First visit' : 'Revalidation';
}

/** @param {import('./compare.js').Change} c @param {(n: number) => string} f */
function arrow(c, f) {
  const sign = c.percent > 0 ? '-' : c.percent < 0 ? '+' : '';
  return `${f(c.before)} -> ${f(c.after)} (${sign}${Math.abs(c.percent).toFixed(0)}%)`;
}

/** Left-aligns the first column, right-aligns the rest. @param {string[][]} rows */
function align(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd()).join('\n');
}
