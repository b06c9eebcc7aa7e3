/**
 * The report's charts: paired before/after bars in HTML and CSS, and
 * request waterfalls in inline SVG, both on round axis ticks.
 */
import { DECIMAL, escapeHtml as esc, INT, label, round1, round2 } from './html-format.js';

/** @typedef {import('../loader/load.js').Run} Run */

/** A waterfall draws at most this many requests; the caption says how many it left out. */
export const WATERFALL_ROWS = 100;

/** Connections cycle through this many colours in a waterfall. */
export const CONNECTION_COLOURS = 8;

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
export function pairedBars(chart) {
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
export function waterfall(id, protocol, side, run, maxMs, heightRows) {
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
export function figure(content, caption) {
  return `<figure>${content}<figcaption>${caption}</figcaption></figure>`;
}

export const LEGEND_BEFORE_AFTER = '<p class="legend small"><span><i class="sw before"></i>before</span> <span><i class="sw after"></i>after</span></p>';

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
