/**
 * What a plugin (Vite, Eleventy, Astro) logs after it optimized a build, line
 * by line, each with its level: the savings line, why passes kept files
 * grouped by reason, the count of messages by severity, then errors and
 * warnings grouped by code. The plugin hands each line to its host's logger.
 */
import { formatBytes } from '../report/build-text.js';
import { groupDecisions, groupMessages } from '../report/groups.js';

/** The examples a group shows. */
export const EXAMPLES = 3;

/** The groups of kept files logged at `info` when not verbose. */
const KEPT_GROUPS = 10;

const number = new Intl.NumberFormat('en-US');

/**
 * What the plugin logs after a build, line by line: the savings line, why
 * passes kept files (a line per reason, the largest groups first), the count
 * of messages by severity, then errors and warnings grouped by code (at
 * `warn`). Information is counted, not listed, unless verbose; verbose also
 * lists every decision, changed ones too, and every message under its group.
 * @param {import('../build/summary.js').BuildSummary} s
 * @param {{ verbose?: boolean, quiet?: boolean }} [options] quiet: no `info` lines
 * @returns {{ level: 'info' | 'warn', text: string }[]}
 */
export function logLines(s, options = {}) {
  const verbose = Boolean(options.verbose);
  /** @type {{ level: 'info' | 'warn', text: string }[]} */
  const info = [];
  info.push({ level: 'info', text: savingsLine(s) });

  const paths = new Set([...s.pages.map((p) => p.path), ...s.assets.map((a) => a.path)]);
  const kept = s.passes.flatMap((p) => groupDecisions(p.decisions, paths).map((g) => ({ pass: p.name, ...g })))
    .sort((a, b) => b.members.length - a.members.length);
  const shown = verbose ? kept : kept.slice(0, KEPT_GROUPS);
  for (const g of shown) {
    const members = g.members.map((d) => ({ file: d.file, text: d.reason }));
    info.push({ level: 'info', text: groupLine(`pagediet: ${g.pass} ${g.action} ${number.format(g.members.length)}: ${g.label}`, members, verbose) });
  }
  if (shown.length < kept.length) info.push({ level: 'info', text: `pagediet: ${plural(kept.length - shown.length, 'more group')} of files kept or skipped (verbose: true lists every one)` });

  const counts = { error: s.totals.errors, warning: s.totals.warnings, info: s.totals.info };
  if (s.warnings.length) {
    info.push({ level: 'info', text: `pagediet: ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${number.format(counts.info)} information${counts.info && !verbose ? ' (verbose: true lists them)' : ''}` });
  }
  if (verbose) {
    for (const p of s.passes) {
      const changed = p.decisions.filter((d) => d.action === 'changed');
      if (changed.length) info.push({ level: 'info', text: [`pagediet: ${p.name} changed ${number.format(changed.length)}`, ...changed.map((d) => `  ${d.file}: ${d.reason}`)].join('\n') });
    }
  }

  /** @type {{ level: 'info' | 'warn', text: string }[]} */
  const messages = [];
  for (const g of groupMessages(s.warnings)) {
    if (g.severity === 'info' && !verbose) continue;
    const members = g.members.map((m) => ({ file: m.file, text: m.message }));
    messages.push({ level: g.severity === 'info' ? 'info' : 'warn', text: groupLine(`pagediet: ${g.severity} ${number.format(g.members.length)} ${g.code}: ${g.about}`, members, verbose) });
  }
  return [...(options.quiet ? [] : info), ...messages.filter((m) => m.level === 'warn' || !options.quiet)];
}

/**
 * A group as one line: its label with up to three of its files, or, when
 * every member is about one file, that file with up to three of what they
 * say; verbose, the label and every member on a line of its own.
 * @param {string} label
 * @param {{ file: string, text: string }[]} members the file each is about ('' for the whole build), and what it says
 * @param {boolean} verbose
 */
function groupLine(label, members, verbose) {
  /** @param {string} file @param {string} text */
  const whole = (file, text) => (file ? `${file}: ${text}` : text);
  if (verbose) return [label, ...members.map((m) => `  ${whole(m.file, m.text)}`)].join('\n');
  const files = [...new Set(members.map((m) => m.file || '(build)'))];
  if (files.length > 1) return `${label} ${examples(files)}`;
  // What each says, when it says more than the label.
  const said = [...new Set(members.map((m) => m.text))].filter((text) => !label.endsWith(`: ${text}`));
  if (!said.length) return `${label} (${files[0]})`;
  return `${label} (${whole(members[0].file, `${said.slice(0, EXAMPLES).join('; ')}${said.length > EXAMPLES ? '; …' : ''}`)})`;
}

/** Up to three names in parentheses, with '…' when there are more. @param {string[]} names */
export function examples(names) {
  const unique = [...new Set(names)];
  return `(${unique.slice(0, EXAMPLES).join(', ')}${unique.length > EXAMPLES ? ', …' : ''})`;
}

/** @param {number} n @param {string} one */
export function plural(n, one) {
  return `${number.format(n)} ${one}${n === 1 ? '' : 's'}`;
}

/**
 * One line in Vite's style: what the pages load before and after.
 * @param {import('../build/summary.js').BuildSummary} s
 */
export function savingsLine(s) {
  const t = s.totals;
  const saved = t.pageBytesBefore - t.pageBytesAfter;
  const percent = t.pageBytesBefore ? ((saved / t.pageBytesBefore) * 100).toFixed(1) : '0.0';
  const requests = t.requestsBefore - t.requestsAfter;
  const changed = s.passes.reduce((n, p) => n + p.files.length, 0);
  return `${green('✓')} pagediet: ${t.pages} page${t.pages === 1 ? '' : 's'} load ${formatBytes(t.pageBytesBefore)} → ${formatBytes(t.pageBytesAfter)} (−${percent}%)`
    + `${requests > 0 ? `, ${requests} request${requests === 1 ? '' : 's'} fewer` : ''}; ${changed} file${changed === 1 ? '' : 's'} written, in ${(s.ms / 1000).toFixed(2)}s`;
}

/** Whether to colour: a terminal that wants colour. */
function colour() {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}

/** Green as Vite's ✓. @param {string} text */
export function green(text) {
  return colour() ? `\x1b[32m${text}\x1b[39m` : text;
}

/** Yellow as Vite's warnings. @param {string} text */
export function yellow(text) {
  return colour() ? `\x1b[33m${text}\x1b[39m` : text;
}
