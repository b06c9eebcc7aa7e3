/**
 * Text and numbers as the HTML report writes them: escaping, thousands
 * separators, seconds, byte counts, strategy and visit names, and changes
 * before → after with their sign and their colour.
 */
import { networkProfile } from '../loader/networks.js';

/**
 * @typedef {import('./compare.js').Comparison} Comparison
 * @typedef {import('./compare.js').Change} Change
 * @typedef {import('../loader/load.js').Run} Run
 */

/** A change is drawn red (worse) only when it is worse by at least this many percent; a smaller one is grey. */
export const WORSE_PERCENT = 1;

/** Examples a group's summary line names. */
export const EXAMPLES = 3;

const LABELS = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'HTTP/1.1 pipelined', h2: 'HTTP/2' });
/** Shorter names for charts and table cells. */
const SHORT = /** @type {Record<string, string>} */ ({ 'http1.0': 'HTTP/1.0', 'http1.1': 'HTTP/1.1', pipelined: 'pipelined', h2: 'HTTP/2' });
export const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const SECONDS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
export const SECONDS3 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
export const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
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
 * Up to EXAMPLES names, and '…' when there are more.
 * @param {string[]} names @param {number} [count] how many there are in all
 */
export function examplesOf(names, count = names.length) {
  const shown = names.slice(0, EXAMPLES);
  return `${shown.map((n) => `<code>${esc(n)}</code>`).join(', ')}${count > shown.length ? ', …' : ''}`;
}

/** @param {string[]} values */
export function unique(values) {
  return [...new Set(values)];
}

/** @param {string} protocol */
export function label(protocol) {
  return LABELS[protocol] ?? protocol;
}

/** @param {string} protocol */
export function short(protocol) {
  return SHORT[protocol] ?? protocol;
}

/** @param {string} visit */
export function visitLabel(visit) {
  return visit === 'first' ? 'First visit' : visit === 'repeat' ? 'Repeat visit' : visit === 'revalidate' ? 'Revalidation' : visit;
}

/**
 * "; objects from the cache: 0 before, 40 after" for the comparisons of one strategy and network (the same on each).
 * @param {Comparison[]} list
 */
export function cachedNote(list) {
  const before = list.reduce((n, c) => n + (c.fromCache?.before ?? 0), 0);
  const after = list.reduce((n, c) => n + (c.fromCache?.after ?? 0), 0);
  return `; objects from the cache: ${INT.format(before)} before, ${INT.format(after)} after`;
}

/** @param {string} network */
export function describeNetwork(network) {
  try {
    return networkProfile(network).description;
  } catch {
    return 'a custom network';
  }
}

/** @param {number} n @param {string} one @param {string} [many] */
export function plural(n, one, many = `${one}s`) {
  return `${INT.format(n)} ${n === 1 ? one : many}`;
}

/** @param {number} ms */
export function duration(ms) {
  return ms < 1000 ? `${INT.format(ms)} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** @param {number} before @param {number} after */
function saving(before, after) {
  const saved = before - after;
  return { saved, percent: before ? Math.round((saved / before) * 1000) / 10 : 0 };
}

/** @param {number} before @param {number} after @returns {Change} */
export function changeOf(before, after) {
  return { before, after, ...saving(before, after) };
}

/**
 * The sum of one figure over comparisons.
 * @param {Comparison[]} list @param {'requests' | 'packets' | 'wireBytes' | 'seconds'} key
 * @returns {Change}
 */
export function sumChange(list, key) {
  const before = list.reduce((n, c) => n + c[key].before, 0);
  const after = list.reduce((n, c) => n + c[key].after, 0);
  const c = changeOf(Math.round(before * 1000) / 1000, Math.round(after * 1000) / 1000);
  return { ...c, saved: Math.round(c.saved * 1000) / 1000 };
}

/** @param {Run} run */
export function requestsOn(run) {
  return `${plural(run.requests, 'request')} on ${plural(run.connections, 'connection')}`;
}

/** An integer with thousands separators, machine-readable too. @param {number} n */
export function num(n) {
  return `<data value="${n}">${INT.format(n)}</data>`;
}

/** Seconds to three significant figures or two decimals, machine-readable too. @param {number} n */
export function secs(n) {
  return `<data value="${n}">${roughSeconds(n)}</data>`;
}

/** Seconds as the terminal shows them: 1,235 s, 12.3 s, 1.23 s. @param {number} n */
export function roughSeconds(n) {
  const abs = Math.abs(n);
  return abs >= 100 ? INT.format(n) : abs >= 10 ? n.toFixed(1) : SECONDS.format(n);
}

/** @param {number} n */
export function secs3(n) {
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
export function delta(c, format, short = false, html = false) {
  if (c.saved === 0) return '<span class="same">no change</span>';
  const sign = c.saved > 0 ? '−' : '+';
  const amount = html ? format(Math.abs(c.saved)) : esc(format(Math.abs(c.saved)));
  // From nothing, a percentage means nothing.
  const percent = 'before' in c && c.before === 0 ? '' : ` (${sign}${Math.abs(c.percent).toFixed(short ? 0 : 1)}%)`;
  return `<span class="${tone(c)}">${sign}${amount}${percent}</span>`;
}

/** @param {Change} c */
export function timeNote(c) {
  if (c.saved === 0) return '(no change)';
  if (c.before === 0) return `(+${roughSeconds(-c.saved)} s)`;
  return c.saved > 0 ? `(−${roughSeconds(c.saved)} s, −${Math.abs(c.percent).toFixed(0)}%)` : `(+${roughSeconds(-c.saved)} s, +${Math.abs(c.percent).toFixed(0)}%)`;
}

/** @param {number} before @param {number} after */
export function percentNote(before, after) {
  if (before === after) return '(no change)';
  if (!before) return `(+${INT.format(after)} B)`;
  const p = ((before - after) / before) * 100;
  return `(${p > 0 ? '−' : '+'}${Math.abs(p).toFixed(1)}%)`;
}

/** A change on disk, not coloured: a larger output costs no visitor. @param {number} before @param {number} after */
export function changeCell(before, after) {
  const c = changeOf(before, after);
  if (!c.saved) return '<span class="same">no change</span>';
  return `${c.saved > 0 ? '−' : '+'}${num(Math.abs(c.saved))}${before ? ` <span class="muted">(${c.saved > 0 ? '−' : '+'}${Math.abs(c.percent).toFixed(1)}%)</span>` : ''}`;
}

/** A change as a percentage only, coloured. @param {Change} c */
export function percentCell(c) {
  if (c.saved === 0 || !c.before) return '<span class="same">–</span>';
  return `<span class="${tone(c)}">${c.saved > 0 ? '−' : '+'}${Math.abs(c.percent).toFixed(1)}%</span>`;
}

/** Axis labels for byte counts: 0, 50 kB, 1.5 MB. @param {number} n */
export function bytesTick(n) {
  if (n >= 1e6) return `${DECIMAL.format(n / 1e6)} MB`;
  if (n >= 1e3) return `${DECIMAL.format(n / 1e3)} kB`;
  return `${INT.format(n)} B`;
}

/** @param {number} n */
export function round1(n) {
  return Math.round(n * 10) / 10;
}

/** @param {number} n */
export function round2(n) {
  return Math.round(n * 100) / 100;
}
