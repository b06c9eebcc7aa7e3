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
    `  bytes      ${formatBytes(t.bytesIn)} -> ${formatBytes(t.bytesOut)}, saved ${saving(t.bytesIn, t.bytesOut)}`,
    `  requests   ${t.requestsBefore} -> ${t.requestsAfter} for ${t.pages} page${t.pages === 1 ? '' : 's'}, saved ${t.requestsBefore - t.requestsAfter}`,
  ];
  if (s.passes.length === 0) lines.push('  passes     none ran');
  for (const p of s.passes) {
    const kept = p.decisions.filter((d) => d.action !== 'changed').length;
    lines.push(`  ${p.name.padEnd(12)} ${p.files.length} files, ${formatBytes(p.bytesBefore)} -> ${formatBytes(p.bytesAfter)}, ${p.referencesRewritten} references rewritten, ${p.requestsRemoved} requests removed, ${kept} kept (${p.ms} ms)`);
  }
  if (s.warnings.length) {
    lines.push(`  warnings   ${s.warnings.length}`);
    for (const w of s.warnings.slice(0, 20)) lines.push(`    ${w.file || '(build)'}: ${w.message}`);
    if (s.warnings.length > 20) lines.push(`    ... and ${s.warnings.length - 20} more (see --json)`);
  }
  return `${lines.join('\n')}\n`;
}
