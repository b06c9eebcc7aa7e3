/**
 * The report's first screen: what visitors load (each visit's bytes on the
 * wire, requests and modelled load times, before and after, and how both
 * sides were served), then the output on disk, with the files no page loads
 * and the server configs apart.
 */
import { ON_THE_FLY } from '../loader/on-the-fly.js';
import { formatDuration } from '../util/duration.js';
import { betweenVisitsOf } from './html-focus.js';
import { changeOf, delta, describeNetwork, escapeHtml as esc, examplesOf, INT, label, num, plural, roughSeconds, secs, visitLabel } from './html-format.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('./compare.js').Change} Change
 * @typedef {import('./compare.js').VisitTotals} VisitTotals
 * @typedef {import('../build/summary.js').BuildSummary} BuildSummary
 * @typedef {import('./html-focus.js').Focus} Focus
 */

/**
 * How both sides were served.
 * @param {import('./compare.js').Baseline} baseline @param {boolean} [brief]
 */
export function baselineSentence(baseline, brief = false) {
  if (baseline === 'raw') return `Both sides served without compression on the fly (baseline raw)${brief ? '' : ': only the precompressed files a side has are sent compressed'}.`;
  return `Both sides served as ordinary servers serve them (baseline gzip): ${brief ? 'their own precompressed files, else' : 'a file\'s own precompressed copy when it has one, otherwise'} gzip level ${ON_THE_FLY.level} on the fly.`;
}

// ---------------------------------------------------------------- what visitors load

/** @param {ReportData} report @param {Focus} focus */
export function headlineSection(report, focus) {
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

/** What a visit is, beside its name. @param {string} visit @param {number} between seconds */
function visitNote(visit, between) {
  if (visit === 'first') return 'nothing cached: every file is downloaded';
  if (visit === 'repeat') return `${formatDuration(between)} later`;
  if (visit === 'revalidate') return 'every file cached, and asked for again';
  return '';
}

/**
 * A headline number: before → after, and the change.
 * @param {string} name @param {string} title @param {Change} c
 * @param {(n: number) => string} format a number, without its unit @param {string} unit
 */
function metric(name, title, c, format, unit) {
  return `<div data-metric="${name}"><dt>${esc(title)}</dt><dd class="big"><data class="before" value="${c.before}">${esc(format(c.before))}</data> → <data class="after" value="${c.after}">${esc(format(c.after))}</data>${unit}</dd><dd>${delta(c, (n) => `${format(n)}${unit}`)}</dd></div>`;
}

// ---------------------------------------------------------------- the output on disk

/** @param {BuildSummary} build */
export function diskSection(build) {
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
