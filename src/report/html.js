/**
 * The report as one self-contained HTML file: a header with links to the
 * sections, the sections in order (what visitors load, the output on disk,
 * pages, file types, passes, load time, waterfalls, decisions and messages,
 * all numbers), a footer, inline CSS (report.css) and, when a list has a
 * filter box, its one small script. No fonts or anything else to fetch, so it
 * opens from disk and prints; the same input gives the same bytes.
 */
import fs from 'node:fs';
import { formatDuration } from '../util/duration.js';
import { decisionsSection } from './html-decisions.js';
import { FILTER_SCRIPT } from './html-filter.js';
import { betweenVisitsOf, focusOf } from './html-focus.js';
import { duration, escapeHtml as esc, INT, plural, WORSE_PERCENT } from './html-format.js';
import { baselineSentence, diskSection, headlineSection } from './html-headline.js';
import { numbersSection } from './html-numbers.js';
import { pagesSection } from './html-pages.js';
import { timeSection, waterfallSection } from './html-time.js';
import { passesSection, typesSection } from './html-types-passes.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('../build/summary.js').BuildSummary} BuildSummary
 * @typedef {import('./html-focus.js').Focus} Focus
 */

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

/** What the repeat visit's cache holds, and which cache headers each side was served with. @param {number} between */
function cacheSentence(between) {
  return `The repeat visit comes ${formatDuration(between)} after the first: what the browser's cache still holds fresh is not asked for, the rest is revalidated. The input is served as a stock server serves it (no Cache-Control, so browsers' heuristic freshness), the output with the Cache-Control of pagediet's server configs.`;
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
