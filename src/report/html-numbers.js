/**
 * The report's all-numbers section: totals by visit, network and strategy,
 * and every run of each page, folded when there are many pages.
 */
import { formatDuration } from '../util/duration.js';
import { filterBox } from './html-filter.js';
import { betweenVisitsOf } from './html-focus.js';
import { cachedNote, delta, escapeHtml as esc, INT, label, num, percentCell, plural, secs3, SECONDS3, short, sumChange, unique, visitLabel } from './html-format.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('../loader/load.js').Run} Run
 * @typedef {import('./html-focus.js').Focus} Focus
 */

/** Up to this many pages, each page's runs are shown open; more, and each page is folded in a <details>. */
export const PAGES_OPEN = 3;

/** @param {ReportData} report @param {Focus} focus */
export function numbersSection(report, focus) {
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
