// Benchmark: a whole build of a generated site (bench/generate-site.js), cold
// (an empty cache) and again with the cache warm, each in its own child
// process measured with GNU time: wall time, CPU time (user + system of the
// process and everything it waited for, Chromium included) and peak memory
// (the largest resident set of one process: pagediet's, worker threads
// included). The goals: the warm build under 5% of the cold build's
// wall time, and the cold build keeping both cores busy (CPU / wall > 1.6).
//   node bench/build.js [--pages N] [--images N] [--report] [--no-record]
// The figures are prepended to docs/measurements/build-benchmark.md (--no-record: printed only).
// --report: builds end with the loader's report of input and output, as
// `pagediet build` does by default (the benchmark passes --no-report otherwise:
// the report is a measurement of the site, not part of building it, and it
// loads both sites again on every build).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSite } from './generate-site.js';
import { measure } from './peers/measure.js';
import { jsonBlock, recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** @param {string} name @param {number} fallback */
function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const pages = flag('pages', 300);
const images = flag('images', 300);
const withReport = process.argv.includes('--report');
const round = (/** @type {number | null} */ n) => (n === null ? null : Math.round(n * 100) / 100);

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-build-'));
const input = path.join(dir, 'site');
const size = await generateSite(input, { pages, images });
const cacheDir = path.join(dir, 'cache');

/** @param {string} output */
async function buildOnce(output) {
  const args = [path.join(ROOT, 'bin/pagediet.js'), 'build', input, '-o', output, '--cache-dir', cacheDir, '--json', ...(withReport ? [] : ['--no-report'])];
  const m = await measure(process.execPath, args);
  const summary = JSON.parse(m.stdout);
  return {
    wallSeconds: round(m.wallSeconds), cpuSeconds: round(m.cpuSeconds), cpuOverWall: m.cpuSeconds === null ? null : round(m.cpuSeconds / m.wallSeconds), peakRssMB: round(m.peakRssMB),
    work: summary.work, passMs: Object.fromEntries(summary.passes.map((/** @type {{ name: string, ms: number }} */ p) => [p.name, p.ms])),
  };
}

console.error(`bench/build: ${pages} pages (${size.pageBytes} B), ${images} images (${size.imageBytes} B) in ${input}; ${os.cpus().length} cores`);
const cold = await buildOnce(path.join(dir, 'cold'));
console.error(`cold: ${cold.wallSeconds} s wall, ${cold.cpuSeconds} s CPU, ${cold.peakRssMB} MB`);
const warm = await buildOnce(path.join(dir, 'warm'));
console.error(`warm: ${warm.wallSeconds} s wall, ${warm.cpuSeconds} s CPU, ${warm.peakRssMB} MB`);
const sameOutput = await sameTrees(path.join(dir, 'cold'), path.join(dir, 'warm'));
await fs.rm(dir, { recursive: true, force: true });

const result = {
  date: new Date().toISOString().slice(0, 10), cores: os.cpus().length, node: process.version, site: size, report: withReport,
  cold, warm,
  warmOverCold: round((/** @type {number} */ (warm.wallSeconds) / /** @type {number} */ (cold.wallSeconds)) * 100) + '%',
  sameOutput,
};
console.log(JSON.stringify(result, null, 2));
await recordMeasurement('build-benchmark.md', `${pages} pages and ${images} images, cold and warm`, jsonBlock(result));

/**
 * Whether two outputs hold the same files with the same bytes, but for the
 * h2o config, which names its output directory.
 * @param {string} a @param {string} b
 */
async function sameTrees(a, b) {
  const list = async (/** @type {string} */ root) => (await fs.readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name))).filter((p) => p !== 'pagediet-configs/h2o.yaml').sort();
  const [left, right] = [await list(a), await list(b)];
  if (left.join('\n') !== right.join('\n')) return false;
  for (const file of left) if (!(await fs.readFile(path.join(a, file))).equals(await fs.readFile(path.join(b, file)))) return false;
  return true;
}
