/**
 * The report's load time section (each network's modelled seconds by
 * strategy, before and after) and its waterfalls of the first page.
 */
import { CONNECTION_COLOURS, figure, LEGEND_BEFORE_AFTER, pairedBars, WATERFALL_ROWS, waterfall } from './html-charts.js';
import { DECIMAL, describeNetwork, escapeHtml as esc, INT, label, plural, requestsOn, roughSeconds, SECONDS, short, sumChange, timeNote, visitLabel } from './html-format.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('../loader/load.js').Run} Run
 * @typedef {import('./html-focus.js').Focus} Focus
 */

/** @param {ReportData} report @param {Focus} focus */
export function timeSection(report, focus) {
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
export function waterfallSection(report, focus) {
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
