/**
 * The report as one self-contained HTML file: inline CSS (report.css) and
 * inline SVG charts drawn here, no scripts, no fonts or anything else to
 * fetch, so it opens from disk and prints. The same input gives the same bytes.
 *
 * It shows, for the first page of the report: a headline per network (first
 * visit), served bytes by file type, bytes by pass (when the report ends a
 * build), load time per network and protocol, a waterfall per protocol on
 * the first network, the passes' decisions, and every number in tables.
 */
import fs from 'node:fs';
import { networkProfile } from '../loader/networks.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('./compare.js').Comparison} Comparison
 * @typedef {import('./compare.js').Change} Change
 * @typedef {import('../loader/load.js').Run} Run
 * @typedef {import('../loader/model.js').RequestTiming} RequestTiming
 * @typedef {import('../summary.js').BuildSummary} BuildSummary
 *
 * @typedef {object} Focus what the charts show: one page, one visit
 * @property {string} page the first page of the report
 * @property {string[]} pages every page, in order
 * @property {string[]} networks in the runs' order
 * @property {string[]} protocols in the runs' order
 * @property {string} visit 'first' when the report has first visits
 * @property {string} headlineProtocol HTTP/2 when it was run, else the first
 */

/** A waterfall draws at most this many requests; the caption says how many it left out. */
export const WATERFALL_ROWS = 100;

/** Connections cycle through this many colours in a waterfall. */
const CONNECTION_COLOURS = 8;

const LABELS = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'HTTP/1.1 pipelined', h2: 'HTTP/2' });
/** Shorter names for charts and table cells. */
const SHORT = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'pipelined', h2: 'HTTP/2' });
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
  const sections = [
    headlineSection(report, focus),
    typesSection(report),
    build ? passesSection(build) : '',
    timeSection(report, focus),
    waterfallSection(report, focus),
    decisionsSection(build),
    numbersSection(report),
  ].filter(Boolean);
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
<nav aria-label="Sections"><a href="#headline">Headline</a> <a href="#types">By file type</a>${build ? ' <a href="#passes">By pass</a>' : ''} <a href="#time">Load time</a> <a href="#waterfalls">Waterfalls</a> <a href="#decisions">Decisions</a> <a href="#numbers">All numbers</a></nav>
</header>
<main>
${sections.join('\n')}
</main>
<footer><p>Times, packets and bytes on the wire are modelled: the robot loads each page from a local server, and the network model replays the exchange packet by packet on each network profile. Served bytes are the files at the best encoding a browser accepting br and gzip gets.</p></footer>
</body>
</html>
`;
}

/** @param {ReportData} report @returns {Focus} */
function focusOf(report) {
  const runs = [...report.before.runs, ...report.after.runs];
  const pages = unique(runs.map((r) => r.page));
  const networks = unique(runs.map((r) => r.network));
  const protocols = unique(runs.map((r) => r.protocol));
  const visits = unique(runs.map((r) => r.visit));
  return {
    page: pages[0] ?? '',
    pages,
    networks,
    protocols,
    visit: visits.includes('first') ? 'first' : visits[0] ?? 'first',
    headlineProtocol: protocols.includes('h2') ? 'h2' : protocols[0] ?? 'h2',
  };
}

/** @param {BuildSummary} build */
function buildLine(build) {
  const t = build.totals;
  return `<p class="build">Built with pagediet ${esc(build.version)} in ${INT.format(build.ms)} ms: ${INT.format(t.pages)} page${t.pages === 1 ? '' : 's'}, ${INT.format(t.files)} files, ${INT.format(t.bytesIn)} → ${INT.format(t.bytesOut)} bytes, ${INT.format(t.requestsBefore)} → ${INT.format(t.requestsAfter)} requests on the reference graph, ${INT.format(build.passes.length)} pass${build.passes.length === 1 ? '' : 'es'}${build.warnings.length ? `, ${INT.format(build.warnings.length)} warning${build.warnings.length === 1 ? '' : 's'}` : ''}.</p>`;
}

// ---------------------------------------------------------------- sections

/** @param {ReportData} report @param {Focus} focus */
function headlineSection(report, focus) {
  const out = [`<section id="headline" aria-labelledby="headline-h">`, `<h2 id="headline-h">Headline</h2>`];
  const first = focus.visit === 'first' ? 'first visit' : visitLabel(focus.visit).toLowerCase();
  const served = totalsOf(report);
  out.push(`<p class="lede">Served bytes of the whole site: <strong>${num(served.before)} → ${num(served.after)} B</strong> ${delta(served, (n) => `${INT.format(n)} B`)}. Below: ${esc(first)} of <code>${esc(focus.page)}</code>${focus.pages.length > 1 ? ` (the first of ${focus.pages.length} pages; the others are in the tables)` : ''}, bytes on the wire and load time with ${esc(label(focus.headlineProtocol))}.</p>`);
  if (!focus.networks.length) {
    out.push('<p class="empty">No runs: nothing was loaded.</p></section>');
    return out.join('\n');
  }
  out.push('<div class="cards">');
  for (const network of focus.networks) {
    const pick = (/** @type {string} */ protocol) => report.savings.find((c) => c.page === focus.page && c.network === network && c.visit === focus.visit && c.protocol === protocol);
    const c = pick(focus.headlineProtocol);
    out.push(`<section class="card" data-network="${esc(network)}" aria-label="${esc(network)}">`);
    out.push(`<h3>${esc(network)}</h3><p class="muted">${esc(describeNetwork(network))}</p>`);
    if (!c) {
      out.push('<p class="empty">No comparison on this network.</p></section>');
      continue;
    }
    out.push('<dl class="metrics">');
    out.push(metric('wireBytes', 'Bytes on the wire', c.wireBytes, (n) => INT.format(n), ' B'));
    out.push(metric('requests', 'Requests', c.requests, (n) => INT.format(n), ''));
    out.push(metric('seconds', 'Load time', c.seconds, (n) => SECONDS.format(n), ' s'));
    out.push('</dl>');
    const saved = focus.protocols.map((p) => {
      const x = pick(p);
      return x ? `<li data-protocol="${esc(p)}">${esc(short(p))}: ${timeDelta(x.seconds)}</li>` : '';
    }).join('');
    out.push(`<p class="muted small">Time saved, by protocol:</p><ul class="inline small">${saved}</ul>`);
    out.push('</section>');
  }
  out.push('</div>', '</section>');
  return out.join('\n');
}

/**
 * A headline number: before → after, and the change.
 * @param {string} name @param {string} title @param {Change} c
 * @param {(n: number) => string} format a number, without its unit @param {string} unit
 */
function metric(name, title, c, format, unit) {
  return `<div data-metric="${name}"><dt>${esc(title)}</dt><dd class="big"><data class="before" value="${c.before}">${esc(format(c.before))}</data> → <data class="after" value="${c.after}">${esc(format(c.after))}</data>${unit}</dd><dd>${delta(c, (n) => `${format(n)}${unit}`)}</dd></div>`;
}

/** @param {ReportData} report */
function typesSection(report) {
  const types = unique([...Object.keys(report.before.files), ...Object.keys(report.after.files)]).sort();
  const zero = { files: 0, bytes: 0, served: 0 };
  const rows = types.map((type) => ({ type, before: report.before.files[type] ?? zero, after: report.after.files[type] ?? zero }));
  const out = [`<section id="types" aria-labelledby="types-h">`, `<h2 id="types-h">Bytes by file type</h2>`];
  if (!rows.length) return `${out.join('\n')}\n<p class="empty">No files.</p>\n</section>`;
  out.push(figure(pairedBars({
    id: 'chart-types',
    title: 'Served bytes by file type, before and after',
    rows: rows.map((r) => ({ label: r.type, before: r.before.served, after: r.after.served, note: percentNote(r.before.served, r.after.served) })),
    value: (n) => `${INT.format(n)} B`,
    tick: bytesTick,
  }), 'Served bytes: each file at the best encoding offered to a browser that accepts br and gzip (a precompressed sidecar counts instead of its file).'));
  const total = rows.reduce((t, r) => ({
    before: { files: t.before.files + r.before.files, bytes: t.before.bytes + r.before.bytes, served: t.before.served + r.before.served },
    after: { files: t.after.files + r.after.files, bytes: t.after.bytes + r.after.bytes, served: t.after.served + r.after.served },
  }), { before: zero, after: zero });
  const line = (/** @type {string} */ name, /** @type {typeof rows[number]} */ r) => `<tr><th scope="row" class="l">${name}</th><td>${num(r.before.files)}</td><td>${num(r.after.files)}</td><td>${num(r.before.bytes)}</td><td>${num(r.after.bytes)}</td><td>${num(r.before.served)}</td><td>${num(r.after.served)}</td><td>${savedCell(r.before.served, r.after.served)}</td></tr>`;
  out.push(`<div class="table"><table id="table-types">
<caption>Files and bytes by type</caption>
<thead><tr><th scope="col" rowspan="2" class="l">Type</th><th scope="colgroup" colspan="2">Files</th><th scope="colgroup" colspan="2">Bytes on disk</th><th scope="colgroup" colspan="3">Bytes served</th></tr>
<tr><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">saved</th></tr></thead>
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
  const out = [`<section id="passes" aria-labelledby="passes-h">`, `<h2 id="passes-h">Bytes by pass</h2>`];
  if (!build.passes.length) return `${out.join('\n')}\n<p class="empty">No passes ran.</p>\n</section>`;
  out.push(figure(pairedBars({
    id: 'chart-passes',
    title: 'Bytes of the files each pass changed, before and after it',
    rows: build.passes.map((p) => ({
      label: p.name, before: p.bytesBefore, after: p.bytesAfter,
      note: `${percentNote(p.bytesBefore, p.bytesAfter)}${p.requestsRemoved ? `, ${INT.format(p.requestsRemoved)} request${p.requestsRemoved === 1 ? '' : 's'} fewer` : ''}`,
    })),
    value: (n) => `${INT.format(n)} B`,
    tick: bytesTick,
  }), 'Each pass counts the files it changed or created, in the order the passes ran.'));
  out.push(`<div class="table"><table id="table-passes">
<caption>What each pass did</caption>
<thead><tr><th scope="col" class="l">Pass</th><th scope="col">Files</th><th scope="col">Bytes before</th><th scope="col">Bytes after</th><th scope="col">Saved</th><th scope="col">References rewritten</th><th scope="col">Requests removed</th><th scope="col">Decisions</th><th scope="col">Time, ms</th></tr></thead>
<tbody>
${build.passes.map((p) => `<tr><th scope="row" class="l"><code>${esc(p.name)}</code><br><span class="muted small">${esc(p.description)}</span></th><td>${num(p.files.length)}</td><td>${num(p.bytesBefore)}</td><td>${num(p.bytesAfter)}</td><td>${savedCell(p.bytesBefore, p.bytesAfter)}</td><td>${num(p.referencesRewritten)}</td><td>${num(p.requestsRemoved)}</td><td>${num(p.decisions.length)}</td><td>${num(p.ms)}</td></tr>`).join('\n')}
</tbody>
</table></div>`);
  out.push('</section>');
  return out.join('\n');
}

/** @param {ReportData} report @param {Focus} focus */
function timeSection(report, focus) {
  const out = [`<section id="time" aria-labelledby="time-h">`, `<h2 id="time-h">Load time by network</h2>`];
  if (!focus.networks.length) return `${out.join('\n')}\n<p class="empty">No runs.</p>\n</section>`;
  out.push(`<p>${esc(visitLabel(focus.visit))} of <code>${esc(focus.page)}</code>, modelled on each network with each protocol. Each network has its own scale.</p>`);
  out.push(LEGEND_BEFORE_AFTER, '<div class="panels">');
  focus.networks.forEach((network, i) => {
    const rows = focus.protocols.flatMap((protocol) => {
      const c = report.savings.find((x) => x.page === focus.page && x.network === network && x.visit === focus.visit && x.protocol === protocol);
      return c ? [{ label: short(protocol), before: c.seconds.before, after: c.seconds.after, note: timeNote(c.seconds) }] : [];
    });
    out.push(figure(pairedBars({
      id: `chart-time-${i}`,
      title: `Load time on ${network}, before and after, by protocol`,
      rows,
      value: (n) => `${SECONDS.format(n)} s`,
      tick: (n) => `${DECIMAL.format(n)} s`,
      width: 460,
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
  out.push(`<p>${esc(visitLabel(focus.visit))} of <code>${esc(focus.page)}</code> on <strong>${esc(network)}</strong> (${esc(describeNetwork(network))}). One row per request in the order the robot issued them, the page first; a bar runs from when the request's first byte leaves the browser to when the last byte of its response arrives. The colour is the connection it used (colours repeat after ${CONNECTION_COLOURS}). Before and after share a time scale.</p>`);
  out.push(`<p class="legend small">${Array.from({ length: CONNECTION_COLOURS }, (_, i) => `<span><i class="sw c${i}"></i>connection ${i + 1}</span>`).join(' ')}</p>`);
  focus.protocols.forEach((protocol, i) => {
    const pick = (/** @type {Run[]} */ runs) => runs.find((r) => r.page === focus.page && r.network === network && r.visit === focus.visit && r.protocol === protocol);
    const before = pick(report.before.runs);
    const after = pick(report.after.runs);
    const maxMs = Math.max(0, ...[before, after].flatMap((r) => (r ? r.timeline.map((t) => t.doneMs) : [])));
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

/** @param {BuildSummary | undefined} build */
function decisionsSection(build) {
  const out = [`<section id="decisions" aria-labelledby="decisions-h">`, `<h2 id="decisions-h">Pass decisions</h2>`];
  if (!build) return `${out.join('\n')}\n<p class="empty">No build: this report compares two directories. The passes' decisions are listed when the report ends a build.</p>\n</section>`;
  const rows = build.passes.flatMap((p) => p.decisions.map((d) => ({ pass: p.name, ...d })));
  if (!rows.length) return `${out.join('\n')}\n<p class="empty">No pass decisions.</p>\n</section>`;
  out.push(`<div class="table"><table id="table-decisions">
<caption>${INT.format(rows.length)} decision${rows.length === 1 ? '' : 's'}, in the order the passes made them</caption>
<thead><tr><th scope="col" class="l">Pass</th><th scope="col" class="l">File</th><th scope="col" class="l">Action</th><th scope="col" class="l">Reason</th><th scope="col">Score</th></tr></thead>
<tbody>
${rows.map((d) => `<tr><td class="l"><code>${esc(d.pass)}</code></td><td class="l path"><code>${esc(d.file)}</code></td><td class="l"><span class="action ${d.action === 'changed' ? 'good' : 'muted'}">${esc(d.action)}</span></td><td class="l wrap">${esc(d.reason)}</td><td>${d.score === undefined ? '' : `<data value="${d.score}">${esc(DECIMAL.format(d.score))}</data>`}</td></tr>`).join('\n')}
</tbody>
</table></div>`);
  out.push('</section>');
  return out.join('\n');
}

/** @param {ReportData} report */
function numbersSection(report) {
  const out = [`<section id="numbers" aria-labelledby="numbers-h">`, `<h2 id="numbers-h">All numbers</h2>`];
  const runs = [...report.before.runs.map((r) => /** @type {const} */ (['before', r])), ...report.after.runs.map((r) => /** @type {const} */ (['after', r]))];
  if (!runs.length) return `${out.join('\n')}\n<p class="empty">No runs.</p>\n</section>`;
  const pages = unique(runs.map(([, r]) => r.page));
  const networks = unique(runs.map(([, r]) => r.network));
  pages.forEach((page, i) => {
    if (pages.length > 1) out.push(`<h3><code>${esc(page)}</code></h3>`);
    unique(report.savings.filter((c) => c.page === page).map((c) => c.visit)).forEach((visit, j) => {
      const rows = report.savings.filter((c) => c.page === page && c.visit === visit)
        .sort((x, y) => networks.indexOf(x.network) - networks.indexOf(y.network));
      out.push(`<div class="table"><table id="table-savings-${i}-${j}" class="savings">
<caption>${esc(visitLabel(visit))} of <code>${esc(page)}</code>, before and after</caption>
<thead><tr><th scope="col" rowspan="2" class="l">Network</th><th scope="col" rowspan="2" class="l">Protocol</th><th scope="colgroup" colspan="2">Requests</th><th scope="colgroup" colspan="2">Packets</th><th scope="colgroup" colspan="3">Bytes on the wire</th><th scope="colgroup" colspan="3">Load time, s</th></tr>
<tr><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">before</th><th scope="col">after</th><th scope="col">saved</th><th scope="col">before</th><th scope="col">after</th><th scope="col">saved</th></tr></thead>
<tbody>
${rows.map((c) => `<tr data-network="${esc(c.network)}" data-protocol="${esc(c.protocol)}" data-visit="${esc(c.visit)}"><th scope="row" class="l">${esc(c.network)}</th><td class="l">${esc(short(c.protocol))}</td><td>${num(c.requests.before)}</td><td>${num(c.requests.after)}</td><td>${num(c.packets.before)}</td><td>${num(c.packets.after)}</td><td>${num(c.wireBytes.before)}</td><td>${num(c.wireBytes.after)}</td><td>${savedCell(c.wireBytes.before, c.wireBytes.after)}</td><td>${secs3(c.seconds.before)}</td><td>${secs3(c.seconds.after)}</td><td>${savedSeconds(c.seconds)}</td></tr>`).join('\n')}
</tbody>
</table></div>`);
    });
    out.push(`<div class="table"><table id="table-runs-${i}" class="runs">
<caption>Every run of <code>${esc(page)}</code></caption>
<thead><tr><th scope="col" class="l">Site</th><th scope="col" class="l">Network</th><th scope="col" class="l">Protocol</th><th scope="col" class="l">Visit</th><th scope="col">Requests</th><th scope="col">Connections</th><th scope="col">Packets</th><th scope="col">Wire bytes</th><th scope="col">Payload bytes</th><th scope="col">Header overhead, %</th><th scope="col">Retrans&shy;missions</th><th scope="col">Load time, s</th></tr></thead>
<tbody>
${runs.filter(([, r]) => r.page === page).map(([side, r]) => `<tr><th scope="row" class="l">${side}</th><td class="l">${esc(r.network)}</td><td class="l">${esc(short(r.protocol))}</td><td class="l">${esc(visitLabel(r.visit))}</td><td>${num(r.requests)}</td><td>${num(r.connections)}</td><td>${num(r.packets)}</td><td>${num(r.wireBytes)}</td><td>${num(r.payloadBytes)}</td><td>${esc(r.overheadPercent.toFixed(1))}</td><td>${num(r.retransmissions)}</td><td>${secs3(r.seconds)}</td></tr>`).join('\n')}
</tbody>
</table></div>`);
  });
  out.push('</section>');
  return out.join('\n');
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
 * @property {number} [width] of the drawing, in CSS pixels at full size
 */

/**
 * Horizontal bars, a before bar above an after bar for each row, on one linear scale from 0.
 * @param {PairChart} chart
 */
function pairedBars(chart) {
  const width = chart.width ?? 920;
  const left = Math.round(width * 0.2);
  const right = Math.round(width * 0.26);
  const barH = 11;
  const pitch = 2 * barH + 14;
  const top = 8;
  const axis = 22;
  const height = top + chart.rows.length * pitch + axis;
  const ticks = niceTicks(Math.max(0, ...chart.rows.flatMap((r) => [r.before, r.after])));
  const span = /** @type {number} */ (ticks.at(-1)) || 1;
  const scale = (width - left - right) / span;
  const x = (/** @type {number} */ v) => round1(left + Math.max(0, v) * scale);
  const bottom = top + chart.rows.length * pitch;
  const parts = [];
  for (const t of ticks) parts.push(`<line class="grid" x1="${x(t)}" x2="${x(t)}" y1="${top - 4}" y2="${bottom}"/><text class="tick" x="${x(t)}" y="${bottom + 15}" text-anchor="middle">${esc(chart.tick(t))}</text>`);
  chart.rows.forEach((r, i) => {
    const y = top + i * pitch + 4;
    parts.push(`<g class="row"><title>${esc(`${r.label}: ${chart.value(r.before)} before, ${chart.value(r.after)} after`)}</title>`);
    parts.push(`<text class="label" x="${left - 8}" y="${y + barH + 4}" text-anchor="end">${esc(truncate(r.label, Math.floor(left / 7)))}</text>`);
    for (const [k, side, v] of /** @type {const} */ ([[0, 'before', r.before], [1, 'after', r.after]])) {
      const yb = y + k * (barH + 1);
      const w = v > 0 ? Math.max(1, x(v) - left) : 0;
      parts.push(`<rect class="bar ${side}" x="${left}" y="${yb}" width="${round1(w)}" height="${barH}"/>`);
      parts.push(`<text class="value" x="${round1(left + w + 4)}" y="${yb + barH - 2}">${esc(chart.value(v))}${side === 'after' && r.note ? `<tspan class="note"> ${esc(r.note)}</tspan>` : ''}</text>`);
    }
    parts.push('</g>');
  });
  parts.push(`<line class="axis" x1="${left}" x2="${left}" y1="${top - 4}" y2="${bottom}"/>`);
  return svg(chart.id, chart.title, width, height, parts.join(''), 'chart bars');
}

/**
 * One waterfall: a row per request, a bar from sentMs to doneMs, coloured by connection.
 * @param {string} id @param {string} protocol @param {'before' | 'after'} side @param {Run} run
 * @param {number} maxMs the time scale's end (shared by before and after)
 * @param {number} heightRows rows of height (shared by before and after, so they line up)
 */
function waterfall(id, protocol, side, run, maxMs, heightRows) {
  const rows = [...run.timeline].sort((a, b) => a.order - b.order).slice(0, WATERFALL_ROWS);
  const width = 460;
  const left = 34;
  const right = 12;
  const top = 22;
  const pitch = 7;
  const barH = 5;
  const height = top + Math.max(heightRows, rows.length) * pitch + 6;
  const ticks = niceTicks(maxMs);
  const span = /** @type {number} */ (ticks.at(-1)) || 1;
  const scale = (width - left - right) / span;
  const x = (/** @type {number} */ ms) => round1(left + ms * scale);
  const bottom = height - 6;
  const inSeconds = span >= 2000;
  const parts = [];
  for (const t of ticks) parts.push(`<line class="grid" x1="${x(t)}" x2="${x(t)}" y1="${top - 4}" y2="${bottom}"/><text class="tick" x="${x(t)}" y="${top - 8}" text-anchor="middle">${esc(inSeconds ? `${DECIMAL.format(t / 1000)} s` : `${INT.format(t)} ms`)}</text>`);
  rows.forEach((t, i) => {
    const y = top + i * pitch + 1;
    if (i % 5 === 0) parts.push(`<text class="rowno" x="${left - 5}" y="${y + barH}" text-anchor="end">${i === 0 ? 'page' : INT.format(t.order)}</text>`);
    const path = 'path' in t && typeof t.path === 'string' ? ` ${t.path}` : '';
    const tip = `#${t.order}${path}${t.order === 0 ? ' (page)' : ''}: connection ${t.connection + 1}${t.domain ? `, domain ${t.domain + 1}` : ''}, sent at ${INT.format(t.sentMs)} ms, done at ${INT.format(t.doneMs)} ms (${INT.format(t.doneMs - t.sentMs)} ms)`;
    parts.push(`<rect class="req c${t.connection % CONNECTION_COLOURS}" data-order="${t.order}" x="${x(t.sentMs)}" y="${y}" width="${round1(Math.max(1, (t.doneMs - t.sentMs) * scale))}" height="${barH}"><title>${esc(tip)}</title></rect>`);
  });
  parts.push(`<line class="axis" x1="${left}" x2="${left}" y1="${top - 4}" y2="${bottom}"/>`);
  const title = `Waterfall, ${label(protocol)}, ${side}: ${run.timeline.length} requests on ${run.connections} connection${run.connections === 1 ? '' : 's'}, ${run.network}`;
  return svg(id, title, width, height, parts.join(''), 'chart waterfall', ` data-protocol="${esc(protocol)}" data-side="${side}" data-requests="${run.timeline.length}"`);
}

/**
 * @param {string} id @param {string} title @param {number} width @param {number} height @param {string} content
 * @param {string} className @param {string} [attributes]
 */
function svg(id, title, width, height, content, className, attributes = '') {
  return `<svg id="${esc(id)}" class="${className}" role="img" aria-labelledby="${esc(id)}-t" viewBox="0 0 ${width} ${round1(height)}" width="${width}" height="${round1(height)}" style="max-width:${width}px" preserveAspectRatio="xMinYMin meet"${attributes}><title id="${esc(id)}-t">${esc(title)}</title>${content}</svg>`;
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
  return visit === 'first' ? 'First visit' : visit === 'revalidate' ? 'Revalidation' : visit;
}

/** @param {string} network */
function describeNetwork(network) {
  try {
    return networkProfile(network).description;
  } catch {
    return 'a custom network';
  }
}

/** @param {ReportData} report */
function totalsOf(report) {
  const sum = (/** @type {import('./compare.js').TypeTotals} */ files) => Object.values(files).reduce((n, t) => n + t.served, 0);
  const before = sum(report.before.files);
  const after = sum(report.after.files);
  return { before, after, saved: before - after, percent: before ? Math.round(((before - after) / before) * 1000) / 10 : 0 };
}

/** @param {Run} run */
function requestsOn(run) {
  return `${INT.format(run.requests)} request${run.requests === 1 ? '' : 's'} on ${INT.format(run.connections)} connection${run.connections === 1 ? '' : 's'}`;
}

/** An integer with thousands separators, machine-readable too. @param {number} n */
function num(n) {
  return `<data value="${n}">${INT.format(n)}</data>`;
}

/** @param {number} n */
function secs3(n) {
  return `<data value="${n}">${SECONDS3.format(n)}</data>`;
}

/**
 * The change as "−98,590 B (−54.0%)": a minus sign for a saving, a plus for a loss.
 * @param {{ saved: number, percent: number }} c @param {(n: number) => string} format
 */
function delta(c, format) {
  if (c.saved === 0) return '<span class="same">no change</span>';
  const sign = c.saved > 0 ? '−' : '+';
  return `<span class="${c.saved > 0 ? 'good' : 'bad'}">${sign}${esc(format(Math.abs(c.saved)))} (${sign}${Math.abs(c.percent).toFixed(1)}%)</span>`;
}

/** @param {Change} c */
function timeDelta(c) {
  if (c.saved === 0) return '<span class="same">no change</span>';
  return c.saved > 0 ? `<span class="good">${SECONDS.format(c.saved)} s saved</span>` : `<span class="bad">${SECONDS.format(-c.saved)} s slower</span>`;
}

/** @param {Change} c */
function timeNote(c) {
  if (c.saved === 0) return '(no change)';
  return c.saved > 0 ? `(−${SECONDS.format(c.saved)} s, −${Math.abs(c.percent).toFixed(0)}%)` : `(+${SECONDS.format(-c.saved)} s)`;
}

/** @param {number} before @param {number} after */
function percentNote(before, after) {
  if (before === after) return '(no change)';
  if (!before) return `(+${INT.format(after)} B)`;
  const p = ((before - after) / before) * 100;
  return `(${p > 0 ? '−' : '+'}${Math.abs(p).toFixed(1)}%)`;
}

/** @param {number} before @param {number} after */
function savedCell(before, after) {
  const saved = before - after;
  const p = before ? ` <span class="muted">(${((saved / before) * 100).toFixed(1)}%)</span>` : '';
  return `<span class="${saved > 0 ? 'good' : saved < 0 ? 'bad' : ''}">${num(saved)}</span>${p}`;
}

/** @param {Change} c */
function savedSeconds(c) {
  return `<span class="${c.saved > 0 ? 'good' : c.saved < 0 ? 'bad' : ''}">${secs3(c.saved)}</span> <span class="muted">(${c.percent.toFixed(1)}%)</span>`;
}

/** Axis labels for byte counts: 0, 50 kB, 1.5 MB. @param {number} n */
function bytesTick(n) {
  if (n >= 1e6) return `${DECIMAL.format(n / 1e6)} MB`;
  if (n >= 1e3) return `${DECIMAL.format(n / 1e3)} kB`;
  return `${INT.format(n)} B`;
}

/** @param {string} s @param {number} max */
function truncate(s, max) {
  return s.length <= max ? s : `${s.slice(0, Math.max(1, max - 1))}…`;
}

/** @param {number} n */
function round1(n) {
  return Math.round(n * 10) / 10;
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
