/**
 * The build summary as a few lines for a terminal.
 */

const number = new Intl.NumberFormat('en-US');

/** @param {number} n */
export function formatBytes(n) {
  return `${number.format(n)} B`;
}

/**
 * @param {number} before
 * @param {number} after
 */
function saving(before, after) {
  const pct = before > 0 ? ((before - after) / before) * 100 : 0;
  return `${number.format(before - after)} (${pct.toFixed(1)}%)`;
}

/**
 * @param {import('../summary.js').BuildSummary} s
 * @returns {string}
 */
export function formatBuildSummary(s) {
  const t = s.totals;
  const kinds = Object.entries(s.referencesByKind).map(([k, n]) => `${k} ${n}`).join(', ');
  const lines = [
    `pagediet ${s.version}: ${s.input} -> ${s.output}`,
    `  files      ${t.pages} pages, ${t.stylesheets} style sheets, ${t.assets} other files`,
    `  references ${t.references}${kinds ? ` (${kinds})` : ''}`,
    `  page bytes ${formatBytes(t.pageBytesBefore)} -> ${formatBytes(t.pageBytesAfter)} loaded by ${t.pages} page${t.pages === 1 ? '' : 's'}, saved ${saving(t.pageBytesBefore, t.pageBytesAfter)}`,
    `  files      ${formatBytes(t.bytesIn)} -> ${formatBytes(t.bytesOut)} in all${t.bytesOut > t.bytesIn ? ' (originals stay beside their replacements; --prune removes them)' : `, saved ${saving(t.bytesIn, t.bytesOut)}`}`,
    `  requests   ${t.requestsBefore} -> ${t.requestsAfter} for ${t.pages} page${t.pages === 1 ? '' : 's'}, saved ${t.requestsBefore - t.requestsAfter}`,
  ];
  if (s.passes.length === 0) lines.push('  passes     none ran');
  for (const p of s.passes) {
    const kept = p.decisions.filter((d) => d.action !== 'changed').length;
    lines.push(`  ${p.name.padEnd(12)} ${p.files.length} files, ${formatBytes(p.bytesBefore)} -> ${formatBytes(p.bytesAfter)}, ${p.referencesRewritten} references rewritten, ${p.requestsRemoved} requests removed, ${kept} kept (${p.ms} ms)`);
    for (const [reason, n] of keptReasons(p.decisions)) lines.push(`  ${''.padEnd(12)}   ${n} kept: ${reason}`);
    if (p.metrics?.length) lines.push(...metricLines(p.metrics));
  }
  if (s.artifacts.length) lines.push(`  configs    ${s.artifacts.join(', ')} (server configs that serve the precompressed files; not part of the site)`);
  if (s.work.jobs || s.work.cacheHits || s.work.passesReplayed) {
    const replayed = s.work.passesReplayed ? `, ${s.work.passesReplayed} passes replayed (they met the same site as an earlier build)` : '';
    lines.push(`  work       ${s.work.jobs} jobs run, ${s.work.cacheHits} results from the cache${replayed}`);
  }
  if (s.warnings.length) {
    lines.push(`  warnings   ${s.warnings.length}`);
    for (const w of s.warnings.slice(0, 20)) lines.push(`    ${w.file || '(build)'}: ${w.message}`);
    if (s.warnings.length > 20) lines.push(`    ... and ${s.warnings.length - 20} more (see --json)`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Figures a pass measured (html-case: compressed sizes), in total and, for a
 * few files, per file; --json has every file's.
 * @param {import('../pipeline.js').Metric[]} metrics
 */
function metricLines(metrics) {
  /** @param {import('../pipeline.js').Metric[]} list */
  const line = (list) => {
    /** @type {Map<string, { before: number, after: number }>} */
    const sums = new Map();
    for (const m of list) {
      const sum = sums.get(m.name) ?? { before: 0, after: 0 };
      sum.before += m.before;
      sum.after += m.after;
      sums.set(m.name, sum);
    }
    return [...sums].map(([name, { before, after }]) => `${name} ${formatBytes(before)} -> ${formatBytes(after)} (${after <= before ? '-' : '+'}${(before > 0 ? (Math.abs(before - after) / before) * 100 : 0).toFixed(1)}%)`).join(', ');
  };
  const files = [...new Set(metrics.map((m) => m.file))];
  const lines = [`  ${''.padEnd(12)}   compressed ${line(metrics)}${files.length > 1 ? ` in ${files.length} files` : ''}`];
  if (files.length > 1 && files.length <= 5) for (const file of files) lines.push(`  ${''.padEnd(12)}     ${file}: ${line(metrics.filter((m) => m.file === file))}`);
  return lines;
}

/**
 * Why files were kept, grouped: the reason without its figures.
 * @param {import('../pipeline.js').Decision[]} decisions
 * @returns {[string, number][]}
 */
function keptReasons(decisions) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const d of decisions) {
    if (d.action === 'changed') continue;
    const reason = d.reason.replace(/\s*\(.*$/, '');
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}
