// Records a benchmark's latest figures in its file of docs/measurements/: a
// section `## YYYY-MM-DD — <title>` with the machine (its fixed CPU figure
// included, bench/machine.js) and the commit, put
// before the newest dated section (newest first), after the file's method.
// `--no-record` on the benchmark's command line only prints.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine } from './machine.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATED = /^## \d{4}-\d{2}-\d{2}\b/m;

/** The short hash of the checkout's HEAD, with `+` when files differ from it; null outside git. */
function commit() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${head}+` : head;
  } catch {
    return null;
  }
}

/**
 * Prepends a dated section to docs/measurements/<file> and returns the
 * file's path (null with --no-record).
 * @param {string} file e.g. 'build-benchmark.md'
 * @param {string} title what was measured
 * @param {string} body markdown: the figures
 */
export async function recordMeasurement(file, title, body) {
  if (process.argv.includes('--no-record')) return null;
  const target = path.join(ROOT, 'docs/measurements', file);
  const at = commit();
  const machine = machineLine(at);
  const command = ['node', path.relative(ROOT, process.argv[1] ?? ''), ...process.argv.slice(2)].join(' ');
  const section = `## ${new Date().toISOString().slice(0, 10)} — ${title}\n\n\`${command}\`: ${machine}.\n\n${body.trim()}\n\n`;
  const text = await fs.readFile(target, 'utf8').catch(() => `# ${title}\n\n`);
  const match = DATED.exec(text);
  const next = match ? text.slice(0, match.index) + section + text.slice(match.index) : `${text.trimEnd()}\n\n${section}`;
  await fs.writeFile(target, next.replace(/\n+$/, '\n'));
  console.error(`figures recorded in ${path.relative(ROOT, target)}`);
  return target;
}

/**
 * A JSON report as a fenced block.
 * @param {unknown} report
 */
export function jsonBlock(report) {
  return `\`\`\`json\n${JSON.stringify(report, null, 2)}\n\`\`\``;
}
