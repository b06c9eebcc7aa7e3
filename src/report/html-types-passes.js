/**
 * The report's two sections on files on disk: every file of each side by
 * type, as stored and as sent, and what each pass of the build did to the
 * files it changed or created.
 */
import path from 'node:path';
import { ON_THE_FLY } from '../loader/on-the-fly.js';
import { figure, pairedBars } from './html-charts.js';
import { bytesTick, changeCell, escapeHtml as esc, INT, num, percentNote, plural, unique } from './html-format.js';

/**
 * @typedef {import('./compare.js').ReportData} ReportData
 * @typedef {import('../build/summary.js').BuildSummary} BuildSummary
 */

/** @param {ReportData} report @param {BuildSummary} [build] */
export function typesSection(report, build) {
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
export function passesSection(build) {
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
