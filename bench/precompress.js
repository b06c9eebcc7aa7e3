// Benchmark: pagediet's precompression (brotli 11, and libdeflate 12 by
// default or zopfli 15 iterations with --gzip zopfli, in the worker pool)
// against the gzipper npm package (--zopfli --brotli,
// its workers) and Debian's `zopfli --i15` and `brotli -q 11` commands, file
// by file, and `gzip -9`, on the text files of fixtures/microscape and fixtures/h2-sample.
// Every tool compresses every text file (no size threshold), so the bytes
// compare like for like. Times are wall-clock on this machine (2 cores);
// pagediet's build runs without its cache.
// Run: npm run bench:precompress. The table is prepended to
// docs/measurements/precompress-benchmark.md (--no-record: printed only).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from '../src/build/pipeline.js';
import { isCompressible } from '../src/compress/encodings.js';
import { has, twoAtATime } from './tools.js';
import { recordMeasurement } from './record.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = ['microscape', 'h2-sample'];
const GZIPPER = path.join(ROOT, 'node_modules/gzipper/bin/index.js');


/** @param {string} dir @returns {Promise<string[]>} relative paths */
async function textFiles(dir) {
  const out = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const rel = path.relative(dir, path.join(entry.parentPath, entry.name));
    if (isCompressible(rel)) out.push(rel);
  }
  return out.sort();
}

/** @param {string} file */
const sizeOf = async (file) => (await fs.stat(file)).size;

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-precompress-'));
const input = path.join(work, 'input');
/** @type {string[]} */
const files = [];
for (const name of FIXTURES) {
  for (const rel of await textFiles(path.join(ROOT, 'fixtures', name))) {
    await fs.mkdir(path.dirname(path.join(input, name, rel)), { recursive: true });
    await fs.copyFile(path.join(ROOT, 'fixtures', name, rel), path.join(input, name, rel));
    files.push(path.join(name, rel));
  }
}
const original = (await Promise.all(files.map((f) => sizeOf(path.join(input, f))))).reduce((a, b) => a + b, 0);
console.log(`${files.length} text files, ${original} B (fixtures ${FIXTURES.join(', ')}), node ${process.versions.node}, ${os.availableParallelism()} cores`);

/** @type {{ tool: string, gz: number, br: number | null, seconds: number }[]} */
const rows = [];

// pagediet: one build per gzip encoder, only the precompress pass, every file compressed.
for (const [gzip, label] of /** @type {const} */ ([['libdeflate', 'pagediet, default (libdeflate 12, brotli 11)'], ['zopfli', 'pagediet --gzip zopfli (zopfli 15, brotli 11)']])) {
  const out = path.join(work, `pagediet-${gzip}`);
  const t0 = performance.now();
  await build({ input, output: out, only: ['precompress'], cache: false, configs: false, gzip, precompressMinBytes: 0, precompressMinSaving: 0 });
  const seconds = (performance.now() - t0) / 1000;
  const gz = (await Promise.all(files.map((f) => sizeOf(path.join(out, `${f}.gz`))))).reduce((a, b) => a + b, 0);
  const br = (await Promise.all(files.map((f) => sizeOf(path.join(out, `${f}.br`))))).reduce((a, b) => a + b, 0);
  rows.push({ tool: label, gz, br, seconds });
}

// gzipper: one run per coding (it writes one coding per run), its own workers.
{
  const out = path.join(work, 'gzipper');
  const include = [...new Set(files.map((f) => path.extname(f).slice(1)))].join(',');
  const t0 = performance.now();
  await run(process.execPath, [GZIPPER, 'compress', input, out, '--zopfli', '--zopfli-num-iterations', '15', '--zopfli-block-splitting', '--include', include, '--no-color']);
  await run(process.execPath, [GZIPPER, 'compress', input, out, '--brotli', '--brotli-quality', '11', '--include', include, '--no-color']);
  const seconds = (performance.now() - t0) / 1000;
  const gz = (await Promise.all(files.map((f) => sizeOf(path.join(out, `${f}.gz`))))).reduce((a, b) => a + b, 0);
  const br = (await Promise.all(files.map((f) => sizeOf(path.join(out, `${f}.br`))))).reduce((a, b) => a + b, 0);
  rows.push({ tool: 'gzipper 8.2.1 (--zopfli 15, --brotli 11)', gz, br, seconds });
}

// Debian's commands, two files at a time.
if (has('zopfli') && has('brotli')) {
  const t0 = performance.now();
  const sizes = await twoAtATime(files.map((f) => async () => {
    const src = path.join(input, f);
    const gz = (await run('zopfli', ['-c', '--i15', src], { encoding: 'buffer', maxBuffer: 1 << 28 })).stdout.length;
    const br = (await run('brotli', ['-c', '-q', '11', src], { encoding: 'buffer', maxBuffer: 1 << 28 })).stdout.length;
    return { gz, br };
  }));
  const seconds = (performance.now() - t0) / 1000;
  rows.push({ tool: 'Debian zopfli --i15 + brotli -q 11', gz: sizes.reduce((a, s) => a + s.gz, 0), br: sizes.reduce((a, s) => a + s.br, 0), seconds });
}
if (has('gzip')) {
  const t0 = performance.now();
  const sizes = await twoAtATime(files.map((f) => async () => (await run('gzip', ['-c', '-9', '-n', path.join(input, f)], { encoding: 'buffer', maxBuffer: 1 << 28 })).stdout.length));
  rows.push({ tool: 'gzip -9', gz: sizes.reduce((a, n) => a + n, 0), br: null, seconds: (performance.now() - t0) / 1000 });
}
if (!has('zopfli') || !has('brotli')) {
  console.log('zopfli or brotli is not installed (Debian packages zopfli, brotli): their row is left out');
}

const pct = (/** @type {number} */ n) => `${((1 - n / original) * 100).toFixed(2)}%`;
const table = [`| tool | .gz bytes | saved | .br bytes | saved | seconds |\n| --- | ---: | ---: | ---: | ---: | ---: |`, ...rows.map((r) => `| ${r.tool} | ${r.gz} | ${pct(r.gz)} | ${r.br ?? '—'} | ${r.br === null ? '—' : pct(r.br)} | ${r.seconds.toFixed(1)} |`)].join('\n');
console.log(`\n${table}`);
await recordMeasurement('precompress-benchmark.md', `${files.length} text files of ${FIXTURES.join(' and ')}`, `${files.length} text files, ${original} B.\n\n${table}`);
await fs.rm(work, { recursive: true, force: true });
