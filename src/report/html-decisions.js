/**
 * The report's decisions and messages section: why each pass changed, kept
 * or skipped a file, and every message of the build, in groups that fold.
 */
import { groupDecisions, groupMessages } from './groups.js';
import { filterBox } from './html-filter.js';
import { DECIMAL, escapeHtml as esc, EXAMPLES, examplesOf, INT, plural, unique } from './html-format.js';

/** @typedef {import('../build/summary.js').BuildSummary} BuildSummary */

const SEVERITY_TITLES = /** @type {Record<string, string>} */ ({ error: 'Errors', warning: 'Warnings', info: 'Information' });

/** @param {BuildSummary} build */
export function decisionsSection(build) {
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
