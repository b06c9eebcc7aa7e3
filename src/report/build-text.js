/**
 * The build summary for a terminal: what visitors load, the output on disk,
 * what each pass did with why it kept files (grouped by reason), and the
 * messages (grouped by code). It fits one screen, about 30 lines, on any
 * site: information is counted, not listed; --verbose lists every message
 * and every decision, and --json and the HTML report have everything.
 */
import path from 'node:path';
import { formatHeadline, MIN_COLUMNS, wrapWords } from './table.js';
import { groupDecisions, groupMessages } from './groups.js';

const number = new Intl.NumberFormat('en-US');

/** The summary's length on a terminal, for any site. */
export const SUMMARY_LINES = 30;

/** Examples a group shows. */
const EXAMPLES = 3;

/** @param {number} n */
export function formatBytes(n) {
  return `${number.format(n)} B`;
}

/**
 * @param {number} before
 * @param {number} after
 */
function saving(before, after) {
  const pct = before > 0 ? ((before - after) / before) * 100 : 0;
  const shown = Math.abs(pct).toFixed(1);
  return `${shown === '0.0' ? '' : pct > 0 ? '-' : '+'}${shown}%`;
}

/** @param {number} ms */
function duration(ms) {
  return ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** @param {number} n @param {string} one @param {string} [many] */
function plural(n, one, many = `${one}s`) {
  return `${number.format(n)} ${n === 1 ? one : many}`;
}

/**
 * @typedef {object} SummaryTextOptions
 * @property {import('./compare.js').ReportData} [report] the loader's comparison, when it ran: the headline
 * @property {number} [columns] the terminal's width (at least 80 is used); without it (a pipe, a file, a CI log: no
 *   width) lines are laid out for 80 columns but never cut
 * @property {boolean} [verbose] list every message and every decision that was not 'changed'
 */

/**
 * @param {import('../build/summary.js').BuildSummary} s
 * @param {SummaryTextOptions} [options]
 * @returns {string}
 */
export function formatBuildSummary(s, options = {}) {
  const width = Math.max(MIN_COLUMNS, options.columns ?? MIN_COLUMNS);
  const t = s.totals;
  const o = s.outputFiles;
  const head = [`pagediet ${s.version}: ${s.input} -> ${s.output} (${duration(s.ms)})`];
  // The report's headline, when it ran; else what the site model counts.
  if (options.report) head.push(...formatHeadline(options.report.headline, width));
  else {
    head.push(`Pages load     ${formatBytes(t.pageBytesBefore)} -> ${formatBytes(t.pageBytesAfter)} (${saving(t.pageBytesBefore, t.pageBytesAfter)}), ${number.format(t.requestsBefore)} -> ${number.format(t.requestsAfter)} requests`);
    head.push(`               ${plural(t.pages, 'page')}, each with what it loads, uncompressed`);
  }
  head.push(`On disk        ${plural(o.loaded.files + o.notLoaded.files, 'file')}, ${formatBytes(o.loaded.bytes + o.notLoaded.bytes)}; pages and what they load: ${formatBytes(o.loaded.bytes)}`);
  if (o.notLoaded.files) head.push(`  not loaded   ${plural(o.notLoaded.files, 'file')}, ${formatBytes(o.notLoaded.bytes)} (originals kept, downloads, unreferenced)`);
  if (o.configs.files) head.push(`  configs      ${plural(o.configs.files, 'server config')}, ${formatBytes(o.configs.bytes)}, in ${[...new Set(o.configs.paths.map((p) => path.dirname(p)))].join(', ')} (not served)`);
  if (s.work.passesReplayed || s.work.cacheHits) head.push(`Work           ${plural(s.work.jobs, 'job')} run, ${number.format(s.work.cacheHits)} results from the cache${s.work.passesReplayed ? `, ${plural(s.work.passesReplayed, 'pass', 'passes')} replayed` : ''}`);

  const paths = new Set([...s.pages.map((p) => p.path), ...s.assets.map((a) => a.path)]);
  /** @type {{ line: string, metrics: string[], groups: { count: number, lines: string[] }[] }[]} */
  const passes = [];
  const idle = [];
  for (const p of s.passes) {
    const changed = p.decisions.filter((d) => d.action === 'changed').length;
    const groups = groupDecisions(p.decisions, paths);
    const others = groups.reduce((n, g) => n + g.members.length, 0);
    if (p.files.length === 0 && others === 0 && changed === 0) {
      idle.push(p.name);
      continue;
    }
    const counts = [`${number.format(changed)} changed`, ...(others ? [`${number.format(others)} kept`] : [])].join(', ');
    // Files changed in place, before and after; files the pass created (a replacement beside its original) apart.
    const inPlace = p.files.filter((f) => f.before > 0);
    const created = p.files.filter((f) => f.before === 0);
    const sum = (/** @type {typeof p.files} */ list, /** @type {'before' | 'after'} */ key) => list.reduce((n, f) => n + f[key], 0);
    const bytes = (inPlace.length ? `, ${formatBytes(sum(inPlace, 'before'))} -> ${formatBytes(sum(inPlace, 'after'))}` : '')
      + (created.length ? `, ${plural(created.length, 'new file')} ${formatBytes(sum(created, 'after'))}` : '');
    const extra = p.requestsRemoved ? `, -${number.format(p.requestsRemoved)} requests` : '';
    passes.push({
      line: `  ${p.name.padEnd(13)}${duration(p.ms).padStart(8)}  ${counts}${bytes}${extra}`,
      metrics: p.metrics?.length && options.verbose ? [`    compressed ${metricTotals(p.metrics)}`] : [],
      groups: groups.map((g) => ({ count: g.members.length, lines: groupLines(`${g.action} ${number.format(g.members.length)}: ${g.label}`, g.members.map((d) => ({ name: d.file, text: d.reason })), width - 4, options.verbose) })),
    });
  }
  const counts = { error: t.errors, warning: t.warnings, info: t.info };
  const messageGroups = groupMessages(s.warnings).filter((g) => options.verbose || g.severity !== 'info');
  const tail = [`Messages       ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${number.format(counts.info)} information${counts.info && !options.verbose ? ' (--verbose lists them)' : ''}`];
  const messageLines = messageGroups.map((g) => groupLines(options.verbose ? `  ${g.severity} ${number.format(g.members.length)} ${g.code}: ${g.about}` : `  ${g.severity} ${number.format(g.members.length)}: ${g.about}`, g.members.map((m) => ({ name: m.file, text: m.message })), width, options.verbose, true));

  const fixed = head.length + 1 + passes.reduce((n, p) => n + 1 + p.metrics.length, 0) + (idle.length ? 1 : 0) + (s.passes.length ? 0 : 1) + tail.length;
  let budget = options.verbose ? Infinity : Math.max(0, SUMMARY_LINES - fixed);
  // Errors and warnings first, then why passes kept files, largest groups first.
  const shownMessages = [];
  for (const lines of messageLines) {
    if (lines.length > budget) break;
    shownMessages.push(lines);
    budget -= lines.length;
  }
  if (shownMessages.length < messageLines.length) {
    tail.push(`  ... ${plural(messageLines.length - shownMessages.length, 'group')} more (--verbose)`);
    budget = 0;
  }
  const byCount = passes.flatMap((p) => p.groups).sort((a, b) => b.count - a.count);
  /** @type {Set<{ count: number, lines: string[] }>} */
  const shownKept = new Set();
  for (const g of byCount) {
    if (g.lines.length > budget) continue;
    shownKept.add(g);
    budget -= g.lines.length;
  }

  const lines = [...head, 'Passes'];
  if (s.passes.length === 0) lines.push('  none ran');
  for (const p of passes) {
    lines.push(p.line, ...p.metrics);
    for (const g of p.groups) if (shownKept.has(g)) lines.push(...g.lines.map((l) => `    ${l}`));
  }
  if (idle.length) lines.push(`  no change:    ${idle.join(', ')}`);
  lines.push(tail[0], ...shownMessages.flat(), ...tail.slice(1));
  // Only a terminal has a width to cut to: a log keeps every line whole.
  return `${(options.columns === undefined ? lines : lines.map((l) => fit(l, width))).join('\n')}\n`;
}

/**
 * Figures a pass measured (html-case: compressed sizes), summed over its
 * files: "gzip 9,890 B -> 9,712 B (-1.8%), brotli ...". --json has each file's.
 * @param {import('../build/pipeline.js').Metric[]} metrics
 */
function metricTotals(metrics) {
  /** @type {Map<string, { before: number, after: number }>} */
  const sums = new Map();
  for (const m of metrics) {
    const sum = sums.get(m.name) ?? { before: 0, after: 0 };
    sum.before += m.before;
    sum.after += m.after;
    sums.set(m.name, sum);
  }
  return [...sums].map(([name, { before, after }]) => `${name} ${formatBytes(before)} -> ${formatBytes(after)} (${saving(before, after)})`).join(', ');
}

/**
 * A group as lines: its label with up to three examples on one line, or,
 * verbose, the label and every member on a line of its own.
 * @param {string} label
 * @param {{ name: string, text: string }[]} members the file each is about ('' for the whole site), and what it says
 * @param {number} width the columns the line may take
 * @param {boolean} [verbose]
 * @param {boolean} [whole] a lone member is shown whole, on lines of its own when it does not fit (a warning that
 *   says what to do must reach the user)
 * @returns {string[]}
 */
function groupLines(label, members, width, verbose, whole = false) {
  /** @param {{ name: string, text: string }} m */
  const entire = (m) => (m.name ? `${m.name}: ${m.text}` : m.text);
  if (verbose) return [label, ...members.map((m) => `    ${entire(m)}`)];
  // A lone member shows what it says beyond the label (its figures), when it says more.
  const lone = members.length === 1 ? members[0] : null;
  const rest = lone ? beyond(label, lone.text) : '';
  const shown = lone && rest ? (lone.name ? `${lone.name}: ${rest}` : rest) : '';
  if (shown && `${label} (${shown})`.length <= width) return [`${label} (${shown})`];
  if (shown && whole) return [label, ...wrapWords(shown.split(' '), '    ', width)];
  const names = [...new Set(members.map((m) => m.name).filter(Boolean))];
  // As many of three examples as the line holds.
  for (let n = Math.min(EXAMPLES, names.length); n > 0; n--) {
    const line = `${label} (${names.slice(0, n).join(', ')}${names.length > n ? ', …' : ''})`;
    if (line.length <= width) return [line];
  }
  return [label];
}

/**
 * What a text says beyond the end of a label it starts with ("larger than 32
 * KB (40708 B)" beyond "kept 1: larger than 32 KB" is "40708 B"); the whole
 * text when it does not start so.
 * @param {string} label
 * @param {string} text
 */
function beyond(label, text) {
  // The label's own words: a prefix of whole words, longer than a word or two, that ends the label.
  for (let k = text.length; k > 8; k--) {
    if (k < text.length && !/[\s(:;,]/.test(text[k])) continue;
    if (label.endsWith(text.slice(0, k))) return text.slice(k).trim().replace(/^[:;,]\s*/, '').replace(/^\((.*)\)$/, '$1');
  }
  return text;
}

/**
 * A line cut to the width, with '…' where it was cut.
 * @param {string} line
 * @param {number} width
 */
function fit(line, width) {
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}
