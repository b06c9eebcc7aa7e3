/**
 * Terminal tables in the shape of the 1997 paper's: a row per strategy, and
 * for each visit the packets (Pa), bytes on the wire, seconds and TCP/IP
 * overhead (%ov). Every table fits the terminal it prints to (80 columns at
 * least): a table too wide for it is cut into one table per visit. --json and
 * the HTML report have every figure.
 */
import { networkProfile } from '../loader/networks.js';
import { ON_THE_FLY } from '../loader/on-the-fly.js';
import { DEFAULT_BETWEEN_VISITS } from '../loader/client.js';
import { formatDuration } from '../util/duration.js';
import { inReportOrder } from './compare.js';

const LABELS = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'HTTP/1.1 pipelined', h2: 'HTTP/2' });
/** Strategies in the report's summed tables, where columns are scarce. */
const SHORT_LABELS = /** @type {Record<string, string>} */ ({ ...LABELS, pipelined: 'pipelined' });
const int = new Intl.NumberFormat('en-US');

/** The narrowest terminal tables are made for. */
export const MIN_COLUMNS = 80;

/**
 * @typedef {object} TableOptions
 * @property {number} [columns] the terminal's width (at least MIN_COLUMNS is used)
 */

/** @param {TableOptions} options */
function widthOf(options) {
  return Math.max(MIN_COLUMNS, options.columns ?? MIN_COLUMNS);
}

/**
 * One table per page and network.
 * @param {import('../loader/load.js').Run[]} runs
 * @param {TableOptions} [options]
 * @returns {string}
 */
export function formatRuns(runs, options = {}) {
  const out = [];
  for (const [page, network, group] of groups(runs)) {
    out.push(heading(page, network));
    const visits = [...new Set(group.map((r) => r.visit))];
    const protocols = [...new Set(group.map((r) => r.protocol))];
    out.push(...fitted(visits, widthOf(options), (shown) => {
      // The repeat visit also counts the objects it took from the cache (Cache).
      const rows = [['', ...shown.flatMap((v) => [`${visitLabel(v)}: Pa`, 'Bytes', 'Sec', '%ov', 'Req', 'Conn', ...(v === 'repeat' ? ['Cache'] : [])])]];
      for (const protocol of protocols) {
        const row = [LABELS[protocol] ?? protocol];
        for (const visit of shown) {
          const r = group.find((x) => x.protocol === protocol && x.visit === visit);
          const cache = visit === 'repeat' ? [r ? String(r.fromCache) : ''] : [];
          row.push(...(r ? [int.format(r.packets), int.format(r.wireBytes), r.seconds.toFixed(2), r.overheadPercent.toFixed(1), String(r.requests), String(r.connections)] : ['', '', '', '', '', '']), ...cache);
        }
        rows.push(row);
      }
      return rows;
    }), '');
  }
  return out.join('\n');
}

/**
 * The report for a terminal: what visitors load (the headline), then for each
 * visit one table of every network and strategy, summed over the pages
 * loaded; with `pages`, a table per page and network too.
 * @param {import('./compare.js').ReportData} report
 * @param {TableOptions & { pages?: boolean }} [options]
 * @returns {string}
 */
export function formatReport(report, options = {}) {
  const width = widthOf(options);
  // Paths are never cut: a longer one wraps as the terminal wraps it.
  const out = ['pagediet report', `  before  ${report.before.site}`, `  after   ${report.after.site}`, ...formatHeadline(report.headline, width), ''];
  const visits = inReportOrder([...new Set(report.savings.map((c) => c.visit))]);
  for (const visit of visits) {
    const of = report.savings.filter((c) => c.visit === visit);
    const pages = new Set(of.map((c) => c.page)).size;
    /** @param {import('./compare.js').Comparison[]} list @param {boolean} withNetwork */
    const rowsOf = (list, withNetwork) => {
      const rows = [[...(withNetwork ? ['Network'] : []), 'Strategy', 'Requests', 'Bytes on the wire', 'Seconds']];
      for (const [network, group] of byKey(list, (c) => c.network)) {
        for (const [protocol, same] of byKey(group, (c) => c.protocol)) {
          /** @param {'requests' | 'wireBytes' | 'seconds'} key */
          const sum = (key) => ({ before: same.reduce((n, c) => n + c[key].before, 0), after: same.reduce((n, c) => n + c[key].after, 0) });
          rows.push([...(withNetwork ? [network] : []), SHORT_LABELS[protocol] ?? protocol, arrow(sum('requests'), String, false), arrow(sum('wireBytes'), int.format), arrow(sum('seconds'), (n) => n.toFixed(2))]);
        }
      }
      return rows;
    };
    const later = visit === 'repeat' ? `, ${formatDuration(report.headline.betweenVisits ?? DEFAULT_BETWEEN_VISITS)} after the first` : '';
    const title = `${visitLabel(visit)}${later} of ${pages} page${pages === 1 ? '' : 's'}, summed`;
    const whole = align(rowsOf(of, true), 2);
    if (Math.max(...whole.split('\n').map((l) => l.length)) <= width) out.push(`${title}:`, whole, '');
    else for (const [network, group] of byKey(of, (c) => c.network)) out.push(`${title}, on ${network}:`, align(rowsOf(group, false)), '');
  }
  if (options.pages) {
    for (const [page, network, group] of groups(report.savings)) {
      out.push(heading(page, network));
      const pageVisits = inReportOrder([...new Set(group.map((r) => r.visit))]);
      const protocols = [...new Set(group.map((r) => r.protocol))];
      out.push(...fitted(pageVisits, width, (shown) => {
        const rows = [['', ...shown.flatMap((v) => [`${visitLabel(v)}: Pa`, 'Bytes', 'Sec', 'Req'])]];
        for (const protocol of protocols) {
          const row = [LABELS[protocol] ?? protocol];
          for (const visit of shown) {
            const c = group.find((x) => x.protocol === protocol && x.visit === visit);
            row.push(...(c ? [arrow(c.packets, int.format), arrow(c.wireBytes, int.format), arrow(c.seconds, (n) => n.toFixed(2)), arrow(c.requests, String, false)] : ['', '', '', '']));
          }
          rows.push(row);
        }
        return rows;
      }), '');
    }
  }
  return out.join('\n');
}

/** The headline's name of each visit. */
const HEADLINE_NAMES = /** @type {Record<string, string>} */ ({ first: 'first visit', repeat: 'repeat visit', revalidate: 'revalidation' });

/**
 * What visitors load, before and after: bytes on the wire and requests of
 * each visit (and the repeat visit's objects from the cache), then its
 * seconds on each network, wrapped to the width; then how long after the
 * first the repeat visit came, and how both sides were served.
 * @param {import('./compare.js').Headline} headline
 * @param {number} width
 * @returns {string[]}
 */
export function formatHeadline(headline, width) {
  const of = headline.pages === headline.sitePages ? `${headline.pages} page${headline.pages === 1 ? '' : 's'}` : `${headline.pages} of ${headline.sitePages} pages`;
  const lines = [`What visitors load (${of} over ${LABELS[headline.protocol] ?? headline.protocol}):`];
  const visits = Object.entries(headline.visits).flatMap(([visit, totals]) => (totals ? [{ visit, name: HEADLINE_NAMES[visit] ?? visit, totals }] : []));
  for (const { visit, name, totals } of visits) {
    const items = [arrow(totals.wireBytes, (n) => `${int.format(n)} B`), `${arrow(totals.requests, String, false)} requests`];
    if (visit === 'repeat' && totals.fromCache) items.push(`${arrow(totals.fromCache, String, false)} from the cache`);
    lines.push(...wrap(items, ''.padEnd(16), width).map((line, i) => (i === 0 ? `${`  ${name}`.padEnd(16)}${line.slice(16)}` : line)));
  }
  // Seconds as a table, a column per network; wrapped per visit when the columns do not fit.
  const networks = Object.keys(visits[0]?.totals.seconds ?? {});
  // The first visit's first render under its load time.
  /** @type {{ label: string, times: Record<string, import('./compare.js').Change> }[]} */
  const timed = visits.flatMap(({ visit, name, totals }) => [
    { label: name.replace(/ visit$/, ''), times: totals.seconds },
    ...(visit === 'first' ? [{ label: 'first render', times: totals.firstRender }] : []),
  ]);
  const rows = [['  seconds', ...networks], ...timed.map(({ label, times }) => [`    ${label}`, ...networks.map((n) => arrow(times[n], seconds, false))])];
  const table = align(rows.map((r) => [r[0].padEnd(14), ...r.slice(1)]), 1).split('\n');
  if (Math.max(...table.map((l) => l.length)) <= width) lines.push(...table);
  else {
    for (const { label, times } of timed) {
      const items = networks.map((network) => `${network} ${arrow(times[network], seconds, false)}`);
      lines.push(...wrap(items, ''.padEnd(16), width).map((line, i) => (i === 0 ? `${`  ${label} (s)`.padEnd(16)}${line.slice(16)}` : line)));
    }
  }
  if (headline.visits.repeat) {
    const later = formatDuration(headline.betweenVisits ?? DEFAULT_BETWEEN_VISITS);
    lines.push(...wrapWords(`repeat visit ${later} later; Cache-Control: none before, the configs' after`.split(' '), '  ', width));
  }
  lines.push(headline.baseline === 'gzip'
    ? `  both sides served as ordinary servers do: gzip level ${ON_THE_FLY.level} on the fly`
    : '  both sides served without compression on the fly (--baseline raw)');
  return lines;
}

/**
 * Items joined with commas into lines of at most `width` columns, each line
 * after `indent`.
 * @param {string[]} items
 * @param {string} indent
 * @param {number} width
 */
export function wrap(items, indent, width) {
  return wrapWords(items.map((item, i) => (i < items.length - 1 ? `${item},` : item)), indent, width);
}

/**
 * Words joined with spaces into lines of at most `width` columns after
 * `indent` (a word longer than a line stays whole).
 * @param {string[]} words
 * @param {string} indent
 * @param {number} width
 */
export function wrapWords(words, indent, width) {
  const lines = [];
  let line = '';
  for (const word of words) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

/**
 * Lines of a table with a column group per visit; when they are wider than
 * the terminal, one table per visit instead.
 * @param {string[]} visits
 * @param {number} width
 * @param {(visits: string[]) => string[][]} rowsFor
 * @returns {string[]}
 */
function fitted(visits, width, rowsFor) {
  const whole = align(rowsFor(visits));
  if (visits.length < 2 || Math.max(...whole.split('\n').map((l) => l.length)) <= width) return [whole];
  return visits.map((v) => align(rowsFor([v])));
}

/**
 * Items grouped by a key, in first-seen order.
 * @template T
 * @param {T[]} items
 * @param {(item: T) => string} key
 * @returns {[string, T[]][]}
 */
function byKey(items, key) {
  /** @type {Map<string, T[]>} */
  const map = new Map();
  for (const item of items) map.set(key(item), [...(map.get(key(item)) ?? []), item]);
  return [...map];
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

/** Seconds to three significant figures at most. @param {number} n */
function seconds(n) {
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** @param {string} visit */
function visitLabel(visit) {
  return visit === 'first' ? 'First visit' : visit === 'repeat' ? 'Repeat visit' : 'Revalidation';
}

/**
 * "before -> after (-n%)", or without the percentage.
 * @param {{ before: number, after: number }} c
 * @param {(n: number) => string} f
 * @param {boolean} [percent]
 */
function arrow(c, f, percent = true) {
  // From nothing, a percentage means nothing (a repeat visit that asked for nothing before).
  if (!percent || (c.before === 0 && c.after !== 0)) return `${f(c.before)} -> ${f(c.after)}`;
  const p = c.before ? ((c.before - c.after) / c.before) * 100 : 0;
  const sign = p > 0 ? '-' : p < 0 ? '+' : '';
  return `${f(c.before)} -> ${f(c.after)} (${sign}${Math.abs(p).toFixed(0)}%)`;
}

/**
 * Left-aligns the first `left` columns, right-aligns the rest.
 * @param {string[][]} rows
 * @param {number} [left]
 */
function align(rows, left = 1) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i < left ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd()).join('\n');
}
