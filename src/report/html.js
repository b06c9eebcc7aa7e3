/**
 * The report as one self-contained HTML file: inline CSS (report.css), bar
 * charts in HTML and CSS, waterfalls in inline SVG, and one small inline
 * script that only filters long lists (without it every list is still there,
 * in full). No fonts or anything else to fetch, so it opens from disk and
 * prints. The same input gives the same bytes.
 *
 * Its first screen is what visitors load: the first visit, the repeat visit
 * (the time between visits later, with the browser's cache) and the
 * revalidation of every page loaded, before and after (bytes on the wire,
 * requests, objects from the cache, modelled seconds on each network), and
 * how both sides were served; then the output
 * on disk, with the files no page loads and the server configs apart (they
 * are no visitor's cost). Then the pages that saved most and cost most, bytes
 * by file type, what each pass did, load time, waterfalls of the first page,
 * the passes' decisions and the build's messages grouped (when the report
 * ends a build), and every figure in tables: totals by network and strategy,
 * and each page's runs, folded away when there are many pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { networkProfile } from '../loader/networks.js';
import { ON_THE_FLY } from '../loader/on-the-fly.js';
import { DEFAULT_BETWEEN_VISITS } from '../loader/client.js';
import { formatDuration } from '../util/duration.js';
import { inReportOrder } from './compare.js';
import { groupDecisions, groupMessages } from './groups.js';
import { FILTER_SCRIPT } from './html-filter.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('./compare.js').Comparison} Comparison
 * @typedef {import('./compare.js').Change} Change
 * @typedef {import('./compare.js').VisitTotals} VisitTotals
 * @typedef {import('../loader/load.js').Run} Run
 * @typedef {import('../build/summary.js').BuildSummary} BuildSummary
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

/** A waterfall draws at most this many requests; the caption says how many it left out. */
export const WATERFALL_ROWS = 100;

/** Up to this many pages, each page's runs are shown open; more, and each page is folded in a <details>. */
export const PAGES_OPEN = 3;

/** The pages with the largest savings and remaining costs: this many of each. */
export const TOP_PAGES = 10;

/** A change is drawn red (worse) only when it is worse by at least this many percent; a smaller one is grey. */
export const WORSE_PERCENT = 1;

/** Examples a group's summary line names. */
const EXAMPLES = 3;

/** Connections cycle through this many colours in a waterfall. */
const CONNECTION_COLOURS = 8;

const LABELS = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'HTTP/1.1 pipelined', h2: 'HTTP/2' });
/** Shorter names for charts and table cells. */
const SHORT = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'pipelined', h2: 'HTTP/2' });
const SEVERITY_TITLES = /** @type {Record<string, string>} */ ({ error: 'Errors', warning: 'Warnings', info: 'Information' });
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const SECONDS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const SECONDS3 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const ESCAPES = /** @type {Record<string, string>} */ ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' });

/**
 * Escapes text for HTML content and double- or single-quoted attribute values (and SVG, which is parsed as HTML here).
 * @param {unknown} value
 * @returns {string}
 */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const esc = escapeHtml;

/**
 * @param {ReportData} report
 * @param {BuildSummary} [build] the build the report ends, if any
 * @returns {string} a complete HTML document
 */
export function renderHtmlReport(report, build) {
  const focus = focusOf(report);
  const parts = [
    { id: 'headline', nav: 'Visitors', html: headlineSection(report, focus) },
    ...(build ? [{ id: 'disk', nav: 'On disk', html: diskSection(build) }] : []),
    ...(pageCount(focus, build) > 1 ? [{ id: 'pages', nav: 'Pages', html: pagesSection(report, focus, build) }] : []),
    { id: 'types', nav: 'File types', html: typesSection(report, build) },
    ...(build ? [{ id: 'passes', nav: 'Passes', html: passesSection(build) }] : []),
    { id: 'time', nav: 'Load time', html: timeSection(report, focus) },
    { id: 'waterfalls', nav: 'Waterfalls', html: waterfallSection(report, focus) },
    ...(build ? [{ id: 'decisions', nav: 'Decisions and messages', html: decisionsSection(build) }] : []),
    { id: 'numbers', nav: 'All numbers', html: numbersSection(report, focus) },
  ];
  const body = parts.map((p) => p.html).join('\n');
  const filters = body.includes('data-filter=');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="pagediet${build ? ` ${esc(build.version)}` : ''}">
<title>pagediet report</title>
<style>\n${reportStyle()}</style>
</head>
<body>
<header>
<h1>pagediet report</h1>
<dl class="sites">
<div><dt>Before</dt><dd><code>${esc(report.before.site)}</code></dd></div>
<div><dt>After</dt><dd><code>${esc(report.after.site)}</code></dd></div>
</dl>
${build ? buildLine(build) : ''}
<nav aria-label="Sections">${parts.map((p) => `<a href="#${p.id}">${esc(p.nav)}</a>`).join(' ')}</nav>
</header>
<main>
${body}
</main>
<footer><p>Times, packets and bytes on the wire are modelled: the robot loads each page from a local server, and the network model replays the exchange packet by packet on each network profile. ${esc(baselineSentence(report.baseline))}${report.headline?.visits.repeat ? ` ${esc(cacheSentence(betweenVisitsOf(report)))}` : ''} Green marks a saving; red marks a change worse by ${WORSE_PERCENT}% or more, grey a smaller one.</p></footer>
${filters ? `<script>${FILTER_SCRIPT}</script>\n` : ''}</body>
</html>
`;
}

/** @param {ReportData} report @returns {Focus} */
function focusOf(report) {
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

/** Pages the "pages" section can rank. @param {Focus} focus @param {BuildSummary} [build] */
function pageCount(focus, build) {
  return build ? build.pages.length : focus.pages.length;
}

/** @param {BuildSummary} build */
function buildLine(build) {
  const t = build.totals;
  const messages = `${plural(t.errors ?? 0, 'error')}, ${plural(t.warnings ?? 0, 'warning')}, ${INT.format(t.info ?? 0)} information`;
  return `<p class="build">Built with pagediet ${esc(build.version)} in ${esc(duration(build.ms))}: ${plural(t.pages, 'page')}, ${plural(t.files, 'file')}, ${plural(build.passes.length, 'pass', 'passes')}; ${messages}.</p>`;
}

/**
 * How both sides were served.
 * @param {import('./compare.js').Baseline} baseline @param {boolean} [brief]
 */
function baselineSentence(baseline, brief = false) {
  if (baseline === 'raw') return `Both sides served without compression on the fly (baseline raw)${brief ? '' : ': only the precompressed files a side has are sent compressed'}.`;
  return `Both sides served as ordinary servers serve them (baseline gzip): ${brief ? 'their own precompressed files, else' : 'a file\'s own precompressed copy when it has one, otherwise'} gzip level ${ON_THE_FLY.level} on the fly.`;
}

// ---------------------------------------------------------------- what visitors load

/** @param {ReportData} report @param {Focus} focus */
function headlineSection(report, focus) {
  const h = report.headline;
  const out = [`<section id="headline" aria-labelledby="headline-h">`, `<h2 id="headline-h">What visitors load</h2>`];
  const visits = /** @type {[string, VisitTotals][]} */ (Object.entries(h?.visits ?? {}).filter(([, v]) => v));
  if (!h || !visits.length) {
    out.push('<p class="empty">No runs: nothing was loaded.</p>', '</section>');
    return out.join('\n');
  }
  const of = h.pages === h.sitePages ? plural(h.pages, 'page') : `${INT.format(h.pages)} of the site's ${plural(h.sitePages, 'page')}`;
  const between = betweenVisitsOf(report);
  const headers = h.visits.repeat ? ' Cache-Control: none before, the server configs\' after.' : '';
  out.push(`<p class="lede" data-baseline="${esc(h.baseline)}">${esc(of)}, each with everything it loads, over ${esc(label(h.protocol))}${h.pages === 1 ? '' : ', summed'}. ${esc(baselineSentence(h.baseline, true))}${esc(headers)}</p>`);
  // A card each for what a visitor meets: the first and the repeat visit. The revalidation (every file asked again,
  // the studies' measure) is a line below them, unless it is all there is.
  const cards = visits.filter(([visit]) => visit !== 'revalidate' || visits.length === 1);
  out.push('<div class="visits">');
  for (const [visit, totals] of cards) {
    out.push(`<section class="card visit" data-visit="${esc(visit)}"${visit === 'repeat' ? ` data-between-visits="${between}"` : ''} aria-labelledby="visit-${esc(visit)}-h">`);
    // The repeat visit's objects from the cache, not asked for, beside its name: the card stays as tall as the first's.
    const c = totals.fromCache;
    const cached = visit === 'repeat' && c ? `; <span data-metric="fromCache" title="objects taken from the browser's cache, not asked for"><data class="before" value="${c.before}">${INT.format(c.before)}</data> → <data class="after" value="${c.after}">${INT.format(c.after)}</data> from the cache</span>` : '';
    out.push(`<h3 id="visit-${esc(visit)}-h">${esc(visitLabel(visit))} <span class="muted small">${esc(visitNote(visit, between))}${cached}</span></h3>`);
    out.push('<dl class="metrics">');
    out.push(metric('wireBytes', 'Bytes on the wire', totals.wireBytes, (n) => INT.format(n), ' B'));
    out.push(metric('requests', 'Requests', totals.requests, (n) => INT.format(n), ''));
    out.push('</dl>');
    const networks = Object.entries(totals.seconds);
    out.push(`<div class="table"><table class="times">
<caption>Modelled load time${networks.length === 1 ? '' : ' on each network'}${h.pages === 1 ? '' : `, the ${INT.format(h.pages)} pages' sum`}</caption>
<thead><tr><th scope="col" class="l">Network</th><th scope="col">Before, s</th><th scope="col">After, s</th><th scope="col">Change, s</th></tr></thead>
<tbody>
${networks.map(([network, c]) => `<tr data-network="${esc(network)}"><th scope="row" class="l" title="${esc(describeNetwork(network))}">${esc(network)}</th><td>${secs(c.before)}</td><td>${secs(c.after)}</td><td>${delta(c, (n) => roughSeconds(n), true)}</td></tr>`).join('\n')}
</tbody>
</table></div>`);
    out.push('</section>');
  }
  out.push('</div>');
  const notes = [];
  const revalidation = cards.length < visits.length ? h.visits.revalidate : undefined;
  if (revalidation) {
    const bytes = revalidation.wireBytes;
    const requests = revalidation.requests;
    notes.push(`<span data-visit="revalidate">Revalidation, every file asked for again: <data class="before" value="${bytes.before}">${INT.format(bytes.before)}</data> → <data class="after" value="${bytes.after}">${INT.format(bytes.after)}</data> B ${delta(bytes, (n) => `${INT.format(n)} B`)}, ${INT.format(requests.before)} → ${INT.format(requests.after)} requests (<a href="#numbers">all numbers</a>).</span>`);
  }
  // The first visit's first render: when the page and the style sheets and scripts it waits for are in.
  const first = h.visits.first;
  if (first) {
    const times = Object.entries(first.firstRender).map(([network, c]) => `<span data-network="${esc(network)}">${esc(network)} ${secs(c.before)} → ${secs(c.after)} s</span>`);
    notes.push(`<span data-visit="first" data-metric="firstRender">First visit's first render, the page and the style sheets and scripts it waits for in${h.pages === 1 ? '' : `, the pages' sum`}: ${times.join(', ')}.</span>`);
  }
  if (notes.length) out.push(`<p class="small visit-notes">${notes.join(' ')}</p>`);
  out.push('</section>');
  return out.join('\n');
}

/** The seconds between the first and the repeat visit of a report (a day in one made before they were recorded). @param {ReportData} report */
function betweenVisitsOf(report) {
  return report.headline?.betweenVisits ?? report.betweenVisits ?? DEFAULT_BETWEEN_VISITS;
}

/** What a visit is, beside its name. @param {string} visit @param {number} between seconds */
function visitNote(visit, between) {
  if (visit === 'first') return 'nothing cached: every file is downloaded';
  if (visit === 'repeat') return `${formatDuration(between)} later`;
  if (visit === 'revalidate') return 'every file cached, and asked for again';
  return '';
}

/** What the repeat visit's cache holds, and which cache headers each side was served with. @param {number} between */
function cacheSentence(between) {
  return `The repeat visit comes ${formatDuration(between)} after the first: what the browser's cache still holds fresh is not asked for, the rest is revalidated. The input is served as a stock server serves it (no Cache-Control, so browsers' heuristic freshness), the output with the Cache-Control of pagediet's server configs.`;
}

/**
 * A headline number: before → after, and the change.
 * @param {string} name @param {string} title @param {Change} c
 * @param {(n: number) => string} format a number, without its unit @param {string} unit
 */
function metric(name, title, c, format, unit) {
  return `<div data-metric="${name}"><dt>${esc(title)}</dt><dd class="big"><data class="before" value="${c.before}">${esc(format(c.before))}</data> → <data class="after" value="${c.after}">${esc(format(c.after))}</data>${unit}</dd><dd>${delta(c, (n) => `${format(n)}${unit}`)}</dd></div>`;
}

/** @param {BuildSummary} build */
function diskSection(build) {
  const o = build.outputFiles;
  const t = build.totals;
  const out = [`<section id="disk" aria-labelledby="disk-h">`, `<h2 id="disk-h">The output on disk</h2>`];
  if (!o) return `${out.join('\n')}\n<p class="empty">This build summary does not say which files pages load.</p>\n</section>`;
  const all = { files: o.loaded.files + o.notLoaded.files, bytes: o.loaded.bytes + o.notLoaded.bytes };
  out.push('<div class="disk">');
  out.push(`<div class="part" data-kind="loaded"><h3>Loaded by pages</h3><p class="count">${plural(o.loaded.files, 'file')}, ${num(o.loaded.bytes)} B</p><p class="muted small">pages and what they load, with their precompressed copies</p></div>`);
  out.push(diskPart('notLoaded', 'Not loaded by any page', o.notLoaded, 'originals kept beside their replacements, downloads, files nothing refers to: in no page\'s load'));
  out.push(diskPart('configs', 'Server configs', o.configs, 'for the server to read, never served'));
  out.push('</div>');
  out.push(`<p class="after-parts">In all ${plural(all.files, 'file')}, ${num(all.bytes)} B besides the configs (the input had ${num(t.bytesIn)} B). Only what pages load reaches a visitor: the pages, each with what it loads once and uncompressed, load ${num(t.pageBytesBefore)} → ${num(t.pageBytesAfter)} B ${delta(changeOf(t.pageBytesBefore, t.pageBytesAfter), (n) => `${INT.format(n)} B`)}.</p>`);
  out.push('</section>');
  return out.join('\n');
}

/**
 * @param {string} kind @param {string} title @param {{ files: number, bytes: number, paths: string[] }} part
 * @param {string} about
 */
function diskPart(kind, title, part, about) {
  const folder = commonFolder(part.paths);
  const names = part.paths.map((p) => p.slice(folder.length));
  const list = part.paths.length
    ? `${folder ? `<p class="folder small">in <code>${esc(folder)}</code></p>` : ''}<details class="paths"><summary>${examplesOf(names, part.files)} <span class="all">${part.paths.length < part.files ? `the first ${INT.format(part.paths.length)} of ${INT.format(part.files)}` : `all ${INT.format(part.files)}`}</span></summary><ul>${names.map((p) => `<li><code>${esc(p)}</code></li>`).join('')}</ul></details>`
    : '';
  return `<div class="part" data-kind="${kind}"><h3>${esc(title)}</h3><p class="count">${plural(part.files, 'file')}, ${num(part.bytes)} B</p><p class="muted small">${esc(about)}</p>${list}</div>`;
}

/**
 * The folder every path is in, with its final slash ('' when there is none,
 * or only one path that is not absolute): listed once, above the names.
 * @param {string[]} paths
 */
export function commonFolder(paths) {
  if (!paths.length || (paths.length === 1 && !paths[0].startsWith('/'))) return '';
  let prefix = paths[0].slice(0, paths[0].lastIndexOf('/') + 1);
  for (const p of paths) while (prefix && !p.startsWith(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf('/', prefix.length - 2) + 1);
  return prefix;
}

/**
 * Up to EXAMPLES names, and '…' when there are more.
 * @param {string[]} names @param {number} [count] how many there are in all
 */
function examplesOf(names, count = names.length) {
  const shown = names.slice(0, EXAMPLES);
  return `${shown.map((n) => `<code>${esc(n)}</code>`).join(', ')}${count > shown.length ? ', …' : ''}`;
}

// ---------------------------------------------------------------- pages

/**
 * @typedef {object} PageRow
 * @property {string} page
 * @property {Change} bytes
 * @property {Change} requests
 */

/** @param {ReportData} report @param {Focus} focus @param {BuildSummary} [build] */
function pagesSection(report, focus, build) {
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

// ---------------------------------------------------------------- file types and passes

/** @param {ReportData} report @param {BuildSummary} [build] */
function typesSection(report, build) {
  const types = unique([...Object.keys(report.before.files), ...Object.keys(report.after.files)]).sort();
  const zero = { files: 0, bytes: 0, served: 0 };
  const rows = types.map((type) => ({ type, before: report.before.files[type] ?? zero, after: report.after.files[type] ?? zero }));
  const out = [`<section id="types" aria-labelledby="types-h">`, `<h2 id="types-h">Every file on disk, by type</h2>`];
  if (!rows.length) return `${out.join('\n')}\n<p class="empty">No files.</p>\n</section>`;
  const configs = build?.outputFiles?.configs;
  // Server configs written into the output are files of its side; those written beside it are not.
  const inside = configs?.paths.some((p) => !path.isAbsolute(p) || !path.relative(report.after.site, p).startsWith('..'));
  out.push(`<p>Every file of each side, whether a page loads it or not${build?.outputFiles ? ' (the output on disk, above, says which)' : ''}: this is not what visitors load. <q>As sent</q> is what each file would cost if a browser asked for it: the smallest of the file, its own precompressed copies${report.baseline === 'gzip' ? ` and gzip level ${ON_THE_FLY.level} on the fly` : ''}.${configs?.files && inside ? ` The after side counts the ${plural(configs.files, 'server config')} too (${INT.format(configs.bytes)} B), which no server sends.` : ''}</p>`);
  out.push(figure(pairedBars({
    id: 'chart-types',
    title: 'Bytes as sent by file type, every file on disk, before and after',
    rows: rows.map((r) => ({ label: r.type, before: r.before.served, after: r.after.served, note: percentNote(r.before.served, r.after.served) })),
    value: (n) => `${INT.format(n)} B`,
    tick: bytesTick,
  }), 'Bytes as sent, summed over every file of the type on disk.'));
  const total = rows.reduce((t, r) => ({
    before: { files: t.before.files + r.before.files, bytes: t.before.bytes + r.before.bytes, served: t.before.served + r.before.served },
    after: { files: t.after.files + r.after.files, bytes: t.after.bytes + r.after.bytes, served: t.after.served + r.after.served },
  }), { before: zero, after: zero });
  const line = (/** @type {string} */ name, /** @type {typeof rows[number]} */ r) => `<tr><th scope="row" class="l">${name}</th><td>${num(r.before.files)}</td><td>${num(r.after.files)}</td><td>${num(r.before.bytes)}</td><td>${num(r.after.bytes)}</td><td>${num(r.before.served)}</td><td>${num(r.after.served)}</td><td>${changeCell(r.before.served, r.after.served)}</td></tr>`;
  out.push(`<div class="table"><table id="table-types">
<caption>Files and bytes on disk by type</caption>
<thead><tr><th scope="col" rowspan="2" class="l">Type</th><th scope="colgroup" colspan="2">Files</th><th scope="colgroup" colspan="2">Bytes on disk</th><th scope="colgroup" colspan="3">Bytes as sent</th></tr>
<tr><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">change</th></tr></thead>
<tbody>
${rows.map((r) => line(`<code>${esc(r.type)}</code>`, r)).join('\n')}
</tbody>
<tfoot>${line('Total', { type: '', ...total })}</tfoot>
</table></div>`);
  out.push('</section>');
  return out.join('\n');
}

/** @param {BuildSummary} build */
function passesSection(build) {
  const out = [`<section id="passes" aria-labelledby="passes-h">`, `<h2 id="passes-h">What each pass did</h2>`];
  if (!build.passes.length) return `${out.join('\n')}\n<p class="empty">No passes ran.</p>\n</section>`;
  const busy = build.passes.filter((p) => p.files.length || p.bytesBefore || p.bytesAfter);
  if (busy.length) {
    out.push(figure(pairedBars({
      id: 'chart-passes',
      title: 'Bytes of the files each pass changed or created, before and after it',
      rows: busy.map((p) => ({
        label: p.name, before: p.bytesBefore, after: p.bytesAfter,
        note: `${percentNote(p.bytesBefore, p.bytesAfter)}${p.requestsRemoved ? `, ${plural(p.requestsRemoved, 'request')} fewer` : ''}`,
      })),
      value: (n) => `${INT.format(n)} B`,
      tick: bytesTick,
    }), `Each pass counts the files it changed or created, in the order the passes ran${busy.length < build.passes.length ? `; the ${plural(build.passes.length - busy.length, 'pass', 'passes')} that changed no file are in the table` : ''}. A file a pass creates (a precompressed copy, a PNG beside its GIF) counts from the size of the file it stands for.`));
  }
  out.push(`<div class="table"><table id="table-passes">
<caption>What each pass did</caption>
<thead><tr><th scope="col" class="l">Pass</th><th scope="col">Files</th><th scope="col">Bytes before</th><th scope="col">Bytes after</th><th scope="col">Change</th><th scope="col">References rewritten</th><th scope="col">Requests removed</th><th scope="col">Decisions</th><th scope="col">Time, ms</th></tr></thead>
<tbody>
${build.passes.map((p) => `<tr data-pass="${esc(p.name)}"><th scope="row" class="l pass"><code>${esc(p.name)}</code><br><span class="muted small">${esc(p.description)}</span></th><td>${num(p.files.length)}</td><td>${num(p.bytesBefore)}</td><td>${num(p.bytesAfter)}</td><td>${changeCell(p.bytesBefore, p.bytesAfter)}</td><td>${num(p.referencesRewritten)}</td><td>${num(p.requestsRemoved)}</td><td>${num(p.decisions.length)}</td><td>${num(p.ms)}</td></tr>`).join('\n')}
</tbody>
</table></div>`);
  out.push('</section>');
  return out.join('\n');
}

// ---------------------------------------------------------------- load time and waterfalls

/** @param {ReportData} report @param {Focus} focus */
function timeSection(report, focus) {
  const out = [`<section id="time" aria-labelledby="time-h">`, `<h2 id="time-h">Load time by network</h2>`];
  if (!focus.networks.length) return `${out.join('\n')}\n<p class="empty">No runs.</p>\n</section>`;
  const of = focus.pages.length === 1 ? `<code>${esc(focus.page)}</code>` : `the ${plural(focus.pages.length, 'page')} loaded, summed`;
  out.push(`<p>${esc(visitLabel(focus.visit))} of ${of}, modelled on each network with each strategy. Each network has its own scale.</p>`);
  out.push(LEGEND_BEFORE_AFTER, '<div class="panels">');
  focus.networks.forEach((network, i) => {
    const rows = focus.protocols.flatMap((protocol) => {
      const list = report.savings.filter((x) => x.network === network && x.visit === focus.visit && x.protocol === protocol);
      if (!list.length) return [];
      const c = sumChange(list, 'seconds');
      return [{ label: short(protocol), before: c.before, after: c.after, note: timeNote(c) }];
    });
    out.push(figure(pairedBars({
      id: `chart-time-${i}`,
      title: `Load time on ${network}, before and after, by strategy`,
      rows,
      value: (n) => `${roughSeconds(n)} s`,
      tick: (n) => `${DECIMAL.format(n)} s`,
    }), `<strong>${esc(network)}</strong>: ${esc(describeNetwork(network))}`));
  });
  out.push('</div>', '</section>');
  return out.join('\n');
}

/** @param {ReportData} report @param {Focus} focus */
function waterfallSection(report, focus) {
  const out = [`<section id="waterfalls" aria-labelledby="waterfalls-h">`, `<h2 id="waterfalls-h">Waterfalls</h2>`];
  const network = focus.networks[0];
  if (network === undefined) return `${out.join('\n')}\n<p class="empty">No runs.</p>\n</section>`;
  out.push(`<p>${esc(visitLabel(focus.visit))} of <code>${esc(focus.page)}</code>${focus.pages.length > 1 ? ` (the first of the ${plural(focus.pages.length, 'page')} loaded)` : ''} on <strong>${esc(network)}</strong> (${esc(describeNetwork(network))}). One row per request in the order the robot issued them, the page first; a bar runs from when the request's first byte leaves the browser to when the last byte of its response arrives. The colour is the connection it used (colours repeat after ${CONNECTION_COLOURS}). Before and after share a time scale.</p>`);
  out.push(`<p class="legend small">${Array.from({ length: CONNECTION_COLOURS }, (_, i) => `<span><i class="sw c${i}"></i>connection ${i + 1}</span>`).join(' ')}</p>`);
  focus.protocols.forEach((protocol, i) => {
    const pick = (/** @type {Run[]} */ runs) => runs.find((r) => r.page === focus.page && r.network === network && r.visit === focus.visit && r.protocol === protocol);
    const before = pick(report.before.runs);
    const after = pick(report.after.runs);
    const maxMs = Math.max(0, ...[before, after].flatMap((r) => (r ? r.timeline.map((t) => Math.max(t.doneMs, t.sentMs)) : [])));
    const rows = Math.min(WATERFALL_ROWS, Math.max(1, ...[before, after].map((r) => (r ? r.timeline.length : 0))));
    out.push(`<h3>${esc(label(protocol))}</h3>`, '<div class="pair">');
    for (const [side, run] of /** @type {const} */ ([['before', before], ['after', after]])) {
      const caption = run
        ? `<strong>${side === 'before' ? 'Before' : 'After'}</strong>: ${requestsOn(run)}, load time ${SECONDS.format(run.seconds)} s${run.timeline.length > WATERFALL_ROWS ? `; <span class="capped">showing the first ${INT.format(WATERFALL_ROWS)} of ${INT.format(run.timeline.length)} requests</span>` : ''}`
        : `<strong>${side === 'before' ? 'Before' : 'After'}</strong>: not run`;
      out.push(figure(run ? waterfall(`wf-${i}-${side}`, protocol, side, run, maxMs, rows) : '', caption));
    }
    out.push('</div>');
  });
  out.push('</section>');
  return out.join('\n');
}

// ---------------------------------------------------------------- decisions and messages

/** @param {BuildSummary} build */
function decisionsSection(build) {
  const out = [`<section id="decisions" aria-labelledby="decisions-h">`, `<h2 id="decisions-h">Pass decisions and messages</h2>`];
  const paths = new Set([...build.pages.map((p) => p.path), ...build.assets.map((a) => a.path)]);
  const passes = build.passes.filter((p) => p.decisions.length);
  const all = groupMessages(build.warnings);
  const items = passes.reduce((n, p) => n + p.decisions.length, 0) + build.warnings.length;
  out.push(`<p>Why each pass changed, kept or skipped a file, grouped by reason, and every message of the build, grouped by severity and code. A group names up to ${EXAMPLES} of its files; open it for all of them.</p>`);
  if (items > 1) out.push(filterBox('decisions-list', 'Filter decisions and messages', 'a file name or a word'));
  out.push('<div id="decisions-list">');
  out.push('<h3>Pass decisions</h3>');
  if (!passes.length) out.push('<p class="empty">No pass decisions.</p>');
  passes.forEach((p) => {
    const changed = p.decisions.filter((d) => d.action === 'changed');
    const groups = groupDecisions(p.decisions, paths);
    const kept = groups.reduce((n, g) => n + g.members.length, 0);
    out.push(`<section class="groups" data-section data-pass="${esc(p.name)}" aria-label="${esc(p.name)}">`);
    out.push(`<h4><code>${esc(p.name)}</code> <span class="muted small">${INT.format(changed.length)} changed${kept ? `, ${INT.format(kept)} kept or skipped` : ''}</span></h4>`);
    if (changed.length) {
      out.push(group('changed', `changed ${INT.format(changed.length)}`, '', changed.map((d) => d.file), changed.map((d) => decisionItem(d))));
    }
    for (const g of groups) {
      out.push(group(g.action, `${g.action} ${INT.format(g.members.length)}`, g.label, g.members.map((d) => d.file), g.members.map((d) => decisionItem(d))));
    }
    out.push('</section>');
  });
  out.push('<h3>Messages</h3>');
  const counts = { error: 0, warning: 0, info: 0 };
  for (const g of all) counts[g.severity] += g.members.length;
  out.push(`<p class="counts">${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${INT.format(counts.info)} information.</p>`);
  for (const severity of /** @type {const} */ (['error', 'warning', 'info'])) {
    const groups = all.filter((g) => g.severity === severity);
    if (!groups.length) continue;
    out.push(`<section class="groups" data-section data-severity="${severity}" aria-label="${esc(SEVERITY_TITLES[severity])}">`, `<h4>${esc(SEVERITY_TITLES[severity])}</h4>`);
    for (const g of groups) {
      out.push(group(severity, INT.format(g.members.length), g.about, g.members.map((m) => m.file), g.members.map((m) => `<li data-item>${m.file ? `<code>${esc(m.file)}</code>: ` : ''}${esc(m.message)}</li>`), g.code));
    }
    out.push('</section>');
  }
  out.push('</div>', '</section>');
  return out.join('\n');
}

/** @param {import('../build/pass.js').Decision} d */
function decisionItem(d) {
  return `<li data-item>${d.file ? `<code>${esc(d.file)}</code>: ` : ''}${esc(d.reason)}${d.score === undefined ? '' : ` <span class="muted">(score <data value="${d.score}">${esc(DECIMAL.format(d.score))}</data>)</span>`}</li>`;
}

/**
 * A group as a <details>: its count, label and examples on the summary line, every member inside.
 * @param {string} kind 'changed', 'kept', 'skipped', 'error', 'warning' or 'info': the summary's colour
 * @param {string} count @param {string} text the label
 * @param {string[]} names the files the members are about, for the examples
 * @param {string[]} items the members, as <li data-item>
 * @param {string} [code] a message code
 */
function group(kind, count, text, names, items, code) {
  const files = unique(names.filter(Boolean));
  const examples = files.length ? ` <span class="examples muted">(${examplesOf(files)})</span>` : '';
  return `<details class="group" data-group data-kind="${esc(kind)}"${code ? ` data-code="${esc(code)}"` : ''}><summary><span class="count ${esc(kind)}">${esc(count)}</span>${code ? ` <code>${esc(code)}</code>` : ''}${text ? `<span class="label">: ${esc(text)}</span>` : ''}${examples}<output class="shown muted small"></output></summary><ul class="members">${items.join('')}</ul></details>`;
}

/**
 * A text box that filters the items of a part of the page; the script shows it.
 * @param {string} target the id of what it filters @param {string} title @param {string} placeholder
 */
function filterBox(target, title, placeholder) {
  return `<p class="filter" data-filter="${esc(target)}" hidden><label>${esc(title)} <input type="search" placeholder="${esc(placeholder)}" autocomplete="off" spellcheck="false"></label> <output class="muted small"></output></p>`;
}

// ---------------------------------------------------------------- every number

/** @param {ReportData} report @param {Focus} focus */
function numbersSection(report, focus) {
  const out = [`<section id="numbers" aria-labelledby="numbers-h">`, `<h2 id="numbers-h">All numbers</h2>`];
  const runs = [...report.before.runs.map((r) => /** @type {const} */ (['before', r])), ...report.after.runs.map((r) => /** @type {const} */ (['after', r]))];
  if (!runs.length) return `${out.join('\n')}\n<p class="empty">No runs.</p>\n</section>`;
  out.push('<h3>Totals by network and strategy</h3>');
  focus.visits.forEach((visit) => {
    const of = report.savings.filter((c) => c.visit === visit);
    const pages = unique(of.map((c) => c.page)).length;
    const rows = [];
    for (const network of focus.networks) {
      for (const protocol of focus.protocols) {
        const list = of.filter((c) => c.network === network && c.protocol === protocol);
        if (!list.length) continue;
        const [requests, packets, wire, seconds] = /** @type {const} */ (['requests', 'packets', 'wireBytes', 'seconds']).map((k) => sumChange(list, k));
        rows.push(`<tr data-network="${esc(network)}" data-protocol="${esc(protocol)}" data-visit="${esc(visit)}"><th scope="row" class="l">${esc(network)}</th><td class="l">${esc(short(protocol))}</td><td>${num(requests.before)}</td><td>${num(requests.after)}</td><td>${num(packets.before)}</td><td>${num(packets.after)}</td><td>${num(wire.before)}</td><td>${num(wire.after)}</td><td>${percentCell(wire)}</td><td>${secs3(seconds.before)}</td><td>${secs3(seconds.after)}</td><td>${percentCell(seconds)}</td></tr>`);
      }
    }
    const cached = visit === 'repeat' ? cachedNote(of.filter((c) => c.protocol === focus.protocols[0] && c.network === focus.networks[0])) : '';
    out.push(`<div class="table"><table id="table-totals-${esc(visit)}" class="totals">
<caption>${esc(visitLabel(visit))} of ${pages === 1 ? `<code>${esc(of[0]?.page ?? '')}</code>` : `${plural(pages, 'page')}, summed`}${visit === 'repeat' ? `, ${esc(formatDuration(betweenVisitsOf(report)))} after the first${cached}` : ''}</caption>
<thead><tr><th scope="col" rowspan="2" class="l">Network</th><th scope="col" rowspan="2" class="l">Strategy</th><th scope="colgroup" colspan="2">Requests</th><th scope="colgroup" colspan="2">Packets</th><th scope="colgroup" colspan="3">Bytes on the wire</th><th scope="colgroup" colspan="3">Load time, s</th></tr>
<tr><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">change</th><th scope="col">before</th><th scope="col">after</th><th scope="col">change</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`);
  });
  const byPage = new Map(focus.pages.map((p) => [p, /** @type {(readonly ['before' | 'after', Run])[]} */ ([])]));
  for (const entry of runs) byPage.get(entry[1].page)?.push(entry);
  const folded = focus.pages.length > PAGES_OPEN;
  out.push(`<h3>Every run of each page</h3>`);
  out.push(`<p>Each page's runs, before and after, on each network with each strategy${folded ? `: ${plural(focus.pages.length, 'page')}, each folded; open one to see its runs. The line of each gives its ${esc(visitLabel(focus.visit).toLowerCase())}'s bytes on the wire over ${esc(label(focus.headlineProtocol))}` : ''}.</p>`);
  if (folded) out.push(filterBox('page-runs', 'Filter pages', 'a part of a path'));
  out.push(folded ? '<div id="page-runs">' : '<div>');
  focus.pages.forEach((page, i) => {
    const table = runsTable(i, page, byPage.get(page) ?? [], focus);
    if (!folded) {
      out.push(table);
      return;
    }
    const c = report.savings.find((x) => x.page === page && x.visit === focus.visit && x.protocol === focus.headlineProtocol && x.network === focus.networks[0]);
    const line = c ? ` <span class="muted small">${INT.format(c.wireBytes.before)} → ${INT.format(c.wireBytes.after)} B ${delta(c.wireBytes, (n) => `${INT.format(n)} B`)}</span>` : '';
    out.push(`<details class="page" data-item><summary><code>${esc(page)}</code>${line}</summary>\n${table}\n</details>`);
  });
  out.push('</div>', '</section>');
  return out.join('\n');
}

/**
 * One page's runs: a row per run, before above after, by visit and network (a <tbody> each) and strategy.
 * The rows are as short as HTML allows (no end tags of rows and cells, no attributes but the side): a site of
 * hundreds of pages has tens of thousands of them.
 * @param {number} i @param {string} page @param {(readonly ['before' | 'after', Run])[]} runs @param {Focus} focus
 */
function runsTable(i, page, runs, focus) {
  const rows = [];
  for (const visit of focus.visits) {
    for (const network of focus.networks) {
      const group = [];
      for (const protocol of focus.protocols) {
        for (const [side, r] of runs.filter(([, x]) => x.visit === visit && x.network === network && x.protocol === protocol)) {
          group.push(`<tr class="${side}"><th>${esc(short(protocol))}, ${side}<td>${INT.format(r.requests)}<td>${INT.format(r.connections)}<td>${INT.format(r.packets)}<td>${INT.format(r.wireBytes)}<td>${INT.format(r.payloadBytes)}<td>${r.overheadPercent.toFixed(1)}<td>${INT.format(r.retransmissions)}<td>${SECONDS3.format(r.seconds)}<td>${SECONDS3.format(r.firstRender)}<td>${r.largestPaint === null ? '–' : SECONDS3.format(r.largestPaint)}`);
        }
      }
      // No white space between rows: without end tags, it would be the last cell's text.
      if (group.length) rows.push(`<tbody data-visit="${esc(visit)}" data-network="${esc(network)}"><tr class="group-head"><th scope="rowgroup" colspan="11">${esc(visitLabel(visit))} on ${esc(network)}${group.join('')}</tbody>`);
    }
  }
  return `<div class="table"><table id="table-runs-${i}" class="runs" data-page="${esc(page)}">
<caption>Every run of <code>${esc(page)}</code></caption>
<thead><tr><th scope="col" class="l">Strategy, site<th scope="col">Requests<th scope="col">Connec&shy;tions<th scope="col">Packets<th scope="col">Wire bytes<th scope="col">Payload bytes<th scope="col">Header overhead, %<th scope="col">Retrans&shy;missions<th scope="col">Load time, s<th scope="col">First render, s<th scope="col" title="when the image the page names as its largest paint (fetchpriority=high) is in; – when it names none">Largest paint, s</thead>
${rows.join('\n')}
</table></div>`;
}

// ---------------------------------------------------------------- charts

/**
 * @typedef {object} PairRow
 * @property {string} label
 * @property {number} before
 * @property {number} after
 * @property {string} [note] after the after bar's value
 *
 * @typedef {object} PairChart
 * @property {string} id unique in the document
 * @property {string} title
 * @property {PairRow[]} rows
 * @property {(n: number) => string} value a bar's label
 * @property {(n: number) => string} tick an axis tick's label
 */

/**
 * Horizontal bars, a before bar above an after bar for each row, on one
 * linear scale from 0, in HTML and CSS: its text is text at its own size
 * whatever the width, and on a narrow screen each row's label goes above its
 * bars (report.css).
 * @param {PairChart} chart
 */
function pairedBars(chart) {
  const ticks = niceTicks(Math.max(0, ...chart.rows.flatMap((r) => [r.before, r.after])));
  const span = /** @type {number} */ (ticks.at(-1)) || 1;
  const pct = (/** @type {number} */ v) => `${round1((Math.max(0, v) / span) * 100)}%`;
  const parts = [];
  for (const r of chart.rows) {
    const tip = esc(`${r.label}: ${chart.value(r.before)} before, ${chart.value(r.after)} after`);
    parts.push(`<div class="bl" title="${tip}">${esc(r.label)}</div>`);
    for (const [side, v] of /** @type {const} */ ([['before', r.before], ['after', r.after]])) {
      parts.push(`<div class="bt ${side}"><i class="bar ${side}" style="width:${v > 0 ? pct(v) : '0'}"></i></div><div class="bv ${side}">${esc(chart.value(v))}${side === 'after' && r.note ? ` <span class="note">${esc(r.note)}</span>` : ''}</div>`);
    }
  }
  const step = ticks.length > 1 ? round1(100 / (ticks.length - 1)) : 100;
  const labels = ticks.map((t, k) => `<span class="tick${k % 2 ? ' odd' : ''}${k === 0 ? ' first' : k === ticks.length - 1 ? ' last' : ''}" style="left:${pct(t)}">${esc(chart.tick(t))}</span>`).join('');
  parts.push(`<div class="ax" aria-hidden="true">${labels}</div>`);
  return `<div id="${esc(chart.id)}" class="chart bars" role="img" aria-label="${esc(chart.title)}" style="--step:${step}%">${parts.join('')}</div>`;
}

/**
 * One waterfall: a row per request, a bar from sentMs to doneMs, coloured by
 * connection. It is drawn in CSS pixels across the width it is given (its
 * positions are percentages of it), so its text keeps its size on any screen.
 * @param {string} id @param {string} protocol @param {'before' | 'after'} side @param {Run} run
 * @param {number} maxMs the time scale's end (shared by before and after)
 * @param {number} heightRows rows of height (shared by before and after, so they line up)
 */
function waterfall(id, protocol, side, run, maxMs, heightRows) {
  const rows = [...run.timeline].sort((a, b) => a.order - b.order).slice(0, WATERFALL_ROWS);
  const top = 24;
  const pitch = 7;
  const barH = 5;
  const height = top + Math.max(heightRows, rows.length) * pitch + 6;
  const ticks = niceTicks(maxMs);
  const span = /** @type {number} */ (ticks.at(-1)) || 1;
  const x = (/** @type {number} */ ms) => round2((ms / span) * 100);
  const bottom = height - 6;
  const inSeconds = span >= 2000;
  const parts = [];
  ticks.forEach((t, k) => {
    const anchor = k === 0 ? 'start' : k === ticks.length - 1 ? 'end' : 'middle';
    parts.push(`<line class="grid" x1="${x(t)}%" x2="${x(t)}%" y1="${top - 4}" y2="${bottom}"/><text class="tick${k % 2 ? ' odd' : ''}" x="${x(t)}%" y="${top - 9}" text-anchor="${anchor}">${esc(inSeconds ? `${DECIMAL.format(t / 1000)} s` : `${INT.format(t)} ms`)}</text>`);
  });
  rows.forEach((t, i) => {
    const y = top + i * pitch + 1;
    if (i % 5 === 0) parts.push(`<text class="rowno" x="-5" y="${y + barH + 1}" text-anchor="end">${i === 0 ? 'page' : INT.format(t.order)}</text>`);
    const path = 'path' in t && typeof t.path === 'string' ? ` ${t.path}` : '';
    const tip = `#${t.order}${path}${t.order === 0 ? ' (page)' : ''}: connection ${t.connection + 1}${t.domain ? `, domain ${t.domain + 1}` : ''}, sent at ${INT.format(t.sentMs)} ms, done at ${INT.format(t.doneMs)} ms (${INT.format(t.doneMs - t.sentMs)} ms)`;
    parts.push(`<rect class="req c${t.connection % CONNECTION_COLOURS}" data-order="${t.order}" x="${x(t.sentMs)}%" y="${y}" width="${Math.max(0.3, x(t.doneMs - t.sentMs))}%" height="${barH}"><title>${esc(tip)}</title></rect>`);
  });
  parts.push(`<line class="axis" x1="0" x2="0" y1="${top - 4}" y2="${bottom}"/>`);
  const title = `Waterfall, ${label(protocol)}, ${side}: ${run.timeline.length} requests on ${run.connections} connection${run.connections === 1 ? '' : 's'}, ${run.network}`;
  return `<div class="wf"><svg id="${esc(id)}" class="chart waterfall" role="img" aria-labelledby="${esc(id)}-t" width="100%" height="${height}" data-protocol="${esc(protocol)}" data-side="${side}" data-requests="${run.timeline.length}"><title id="${esc(id)}-t">${esc(title)}</title>${parts.join('')}</svg></div>`;
}

/** @param {string} content @param {string} caption HTML */
function figure(content, caption) {
  return `<figure>${content}<figcaption>${caption}</figcaption></figure>`;
}

const LEGEND_BEFORE_AFTER = '<p class="legend small"><span><i class="sw before"></i>before</span> <span><i class="sw after"></i>after</span></p>';

/**
 * Ticks from 0 to a round number at or above max, in steps of 1, 2, 2.5 or 5
 * times a power of ten: of the steps giving 4 to 7 ticks, the one whose last
 * tick is closest to max.
 * @param {number} max
 * @returns {number[]}
 */
export function niceTicks(max) {
  if (!(max > 0) || !Number.isFinite(max)) return [0];
  const magnitude = 10 ** Math.floor(Math.log10(max));
  let best = { end: Infinity, step: magnitude };
  for (const m of [0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5]) {
    const step = m * magnitude;
    const count = Math.ceil(max / step - 1e-9);
    if (count < 3 || count > 6) continue;
    if (count * step < best.end) best = { end: count * step, step };
  }
  const ticks = [];
  for (let i = 0; i * best.step < best.end + best.step / 2; i++) ticks.push(Number((i * best.step).toPrecision(12)));
  return ticks;
}

// ---------------------------------------------------------------- formatting

/** @param {string[]} values */
function unique(values) {
  return [...new Set(values)];
}

/** @param {string} protocol */
function label(protocol) {
  return LABELS[protocol] ?? protocol;
}

/** @param {string} protocol */
function short(protocol) {
  return SHORT[protocol] ?? protocol;
}

/** @param {string} visit */
function visitLabel(visit) {
  return visit === 'first' ? 'First visit' : visit === 'repeat' ? 'Repeat visit' : visit === 'revalidate' ? 'Revalidation' : visit;
}

/**
 * "; objects from the cache: 0 before, 40 after" for the comparisons of one strategy and network (the same on each).
 * @param {Comparison[]} list
 */
function cachedNote(list) {
  const before = list.reduce((n, c) => n + (c.fromCache?.before ?? 0), 0);
  const after = list.reduce((n, c) => n + (c.fromCache?.after ?? 0), 0);
  return `; objects from the cache: ${INT.format(before)} before, ${INT.format(after)} after`;
}

/** @param {string} network */
function describeNetwork(network) {
  try {
    return networkProfile(network).description;
  } catch {
    return 'a custom network';
  }
}

/** @param {number} n @param {string} one @param {string} [many] */
function plural(n, one, many = `${one}s`) {
  return `${INT.format(n)} ${n === 1 ? one : many}`;
}

/** @param {number} ms */
function duration(ms) {
  return ms < 1000 ? `${INT.format(ms)} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** @param {number} before @param {number} after */
function saving(before, after) {
  const saved = before - after;
  return { saved, percent: before ? Math.round((saved / before) * 1000) / 10 : 0 };
}

/** @param {number} before @param {number} after @returns {Change} */
function changeOf(before, after) {
  return { before, after, ...saving(before, after) };
}

/**
 * The sum of one figure over comparisons.
 * @param {Comparison[]} list @param {'requests' | 'packets' | 'wireBytes' | 'seconds'} key
 * @returns {Change}
 */
function sumChange(list, key) {
  const before = list.reduce((n, c) => n + c[key].before, 0);
  const after = list.reduce((n, c) => n + c[key].after, 0);
  const c = changeOf(Math.round(before * 1000) / 1000, Math.round(after * 1000) / 1000);
  return { ...c, saved: Math.round(c.saved * 1000) / 1000 };
}

/** @param {Run} run */
function requestsOn(run) {
  return `${plural(run.requests, 'request')} on ${plural(run.connections, 'connection')}`;
}

/** An integer with thousands separators, machine-readable too. @param {number} n */
function num(n) {
  return `<data value="${n}">${INT.format(n)}</data>`;
}

/** Seconds to three significant figures or two decimals, machine-readable too. @param {number} n */
function secs(n) {
  return `<data value="${n}">${roughSeconds(n)}</data>`;
}

/** Seconds as the terminal shows them: 1,235 s, 12.3 s, 1.23 s. @param {number} n */
function roughSeconds(n) {
  const abs = Math.abs(n);
  return abs >= 100 ? INT.format(n) : abs >= 10 ? n.toFixed(1) : SECONDS.format(n);
}

/** @param {number} n */
function secs3(n) {
  return `<data value="${n}">${SECONDS3.format(n)}</data>`;
}

/**
 * The colour of a change in what visitors load: a saving is good, a loss of
 * WORSE_PERCENT or more (or any loss from nothing: a repeat visit that asked
 * for nothing before) is bad, anything else is grey.
 * @param {{ saved: number, percent: number, before?: number }} c
 */
function tone(c) {
  if (c.saved > 0) return 'good';
  if (c.saved < 0 && (Math.abs(c.percent) >= WORSE_PERCENT || c.before === 0)) return 'bad';
  return 'same';
}

/**
 * The change as "−98,590 B (−54.0%)": a minus sign for a saving, a plus for a loss.
 * @param {{ saved: number, percent: number, before?: number }} c @param {(n: number) => string} format
 * @param {boolean} [short] the percentage without decimals
 * @param {boolean} [html] format gives HTML, not text
 */
function delta(c, format, short = false, html = false) {
  if (c.saved === 0) return '<span class="same">no change</span>';
  const sign = c.saved > 0 ? '−' : '+';
  const amount = html ? format(Math.abs(c.saved)) : esc(format(Math.abs(c.saved)));
  // From nothing, a percentage means nothing.
  const percent = 'before' in c && c.before === 0 ? '' : ` (${sign}${Math.abs(c.percent).toFixed(short ? 0 : 1)}%)`;
  return `<span class="${tone(c)}">${sign}${amount}${percent}</span>`;
}

/** @param {Change} c */
function timeNote(c) {
  if (c.saved === 0) return '(no change)';
  if (c.before === 0) return `(+${roughSeconds(-c.saved)} s)`;
  return c.saved > 0 ? `(−${roughSeconds(c.saved)} s, −${Math.abs(c.percent).toFixed(0)}%)` : `(+${roughSeconds(-c.saved)} s, +${Math.abs(c.percent).toFixed(0)}%)`;
}

/** @param {number} before @param {number} after */
function percentNote(before, after) {
  if (before === after) return '(no change)';
  if (!before) return `(+${INT.format(after)} B)`;
  const p = ((before - after) / before) * 100;
  return `(${p > 0 ? '−' : '+'}${Math.abs(p).toFixed(1)}%)`;
}

/** A change on disk, not coloured: a larger output costs no visitor. @param {number} before @param {number} after */
function changeCell(before, after) {
  const c = changeOf(before, after);
  if (!c.saved) return '<span class="same">no change</span>';
  return `${c.saved > 0 ? '−' : '+'}${num(Math.abs(c.saved))}${before ? ` <span class="muted">(${c.saved > 0 ? '−' : '+'}${Math.abs(c.percent).toFixed(1)}%)</span>` : ''}`;
}

/** A change as a percentage only, coloured. @param {Change} c */
function percentCell(c) {
  if (c.saved === 0 || !c.before) return '<span class="same">–</span>';
  return `<span class="${tone(c)}">${c.saved > 0 ? '−' : '+'}${Math.abs(c.percent).toFixed(1)}%</span>`;
}

/** Axis labels for byte counts: 0, 50 kB, 1.5 MB. @param {number} n */
function bytesTick(n) {
  if (n >= 1e6) return `${DECIMAL.format(n / 1e6)} MB`;
  if (n >= 1e3) return `${DECIMAL.format(n / 1e3)} kB`;
  return `${INT.format(n)} B`;
}

/** @param {number} n */
function round1(n) {
  return Math.round(n * 10) / 10;
}

/** @param {number} n */
function round2(n) {
  return Math.round(n * 100) / 100;
}

// ---------------------------------------------------------------- style

/** @type {string | undefined} */
let style;

/**
 * The report's style sheet, report.css beside this module, read once, on
 * first use. Its line ends are LF whatever the checkout gave it, as they were
 * when it was a string in this module.
 */
function reportStyle() {
  style ??= fs.readFileSync(new URL('./report.css', import.meta.url), 'utf8').replace(/\r\n?/g, '\n');
  return style;
}
