// Benchmark: pagediet's lossless GIF → PNG against Debian's optipng -o5
// followed by zopflipng, on the GIF corpus (fixtures/gifs) and the fixtures'
// GIFs; and its lossy PNG against pngquant on truecolour PNGs. Both sides run
// two at a time (this machine has two cores). Installs optipng, zopfli and
// pngquant with apt-get when they are missing and it runs as root.
// Run: npm run bench:images (or node bench/images.js [--iterations N]: N zopfli
// iterations on top of libdeflate; default 0, as in a build).
// The figures are prepended to docs/measurements/image-benchmark.md (--no-record: printed only).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { WorkerPool } from '../src/util/pool.js';
import { readGifStructure } from '../src/images/gif/structure.js';
import { lossyPng, meanSquaredError, mseToQuality } from '../src/images/lossy.js';
import { has } from './tools.js';
import { jsonBlock, recordMeasurement } from './record.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PARALLEL = 2;
const iterationsFlag = process.argv.indexOf('--iterations');
const ITERATIONS = iterationsFlag > 0 ? Number(process.argv[iterationsFlag + 1]) : 0;


function ensureTools() {
  const missing = ['optipng', 'zopflipng', 'pngquant'].filter((c) => !has(c));
  if (!missing.length) return true;
  if (process.getuid?.() !== 0) {
    console.error(`missing ${missing.join(', ')}: install optipng, zopfli and pngquant to compare`);
    return false;
  }
  console.error(`installing ${missing.join(', ')} (apt-get)`);
  execFileSync('apt-get', ['update'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', 'optipng', 'zopfli', 'pngquant'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return true;
}

/** @param {string} dir @returns {Promise<string[]>} */
async function gifsIn(dir) {
  const out = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const head = Buffer.alloc(6);
    const handle = await fs.open(file);
    await handle.read(head, 0, 6, 0);
    await handle.close();
    if (head.toString('latin1').startsWith('GIF8')) out.push(file);
  }
  return out.sort();
}

/**
 * Runs tasks with at most `limit` at once; returns the wall time.
 * @template T
 * @param {T[]} items
 * @param {(item: T) => Promise<void>} task
 */
async function timed(items, task, limit = PARALLEL) {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
  return (performance.now() - t0) / 1000;
}

const CORPUS = path.join(ROOT, 'fixtures/gifs');
const corpus = [...await gifsIn(CORPUS), ...await gifsIn(path.join(ROOT, 'fixtures/microscape')), ...await gifsIn(path.join(ROOT, 'fixtures/ricochet'))];
const files = [];
for (const file of corpus) {
  const bytes = await fs.readFile(file);
  let frames = 0;
  try {
    frames = readGifStructure(bytes).frames.length;
  } catch {
    continue;
  }
  files.push({ file, bytes, animated: frames > 1, inCorpus: file.startsWith(CORPUS + path.sep) });
}
const statics = files.filter((f) => !f.animated);
const animated = files.filter((f) => f.animated);
const gifBytes = statics.reduce((n, f) => n + f.bytes.length, 0);

// pagediet, lossless, in its worker pool. The machine's load is reported with the times: they are wall times.
const loadBefore = os.loadavg()[0];
const cpuBefore = process.cpuUsage();
const pool = new WorkerPool({ threads: PARALLEL });
const options = { zopfliIterations: ITERATIONS, maxPixels: 100_000_000 };
/** @type {Map<string, number>} */
const ours = new Map();
let kept = 0;
const oursSeconds = await timed(statics, async (f) => {
  const result = await pool.run('gifToPng', { bytes: f.bytes, options });
  if (result.status === 'converted') ours.set(f.file, result.bytes.length);
  else {
    ours.set(f.file, f.bytes.length);
    kept++;
  }
}, statics.length);
const staticsCpu = process.cpuUsage(cpuBefore);
const animationsSeconds = await timed(animated, async (f) => {
  const result = await pool.run('animation', { bytes: f.bytes, options: { ...options, format: 'auto', lossy: false, quality: [65, 80] } });
  ours.set(f.file, result.status === 'converted' ? result.bytes.length : f.bytes.length);
}, animated.length);
await pool.close();
const oursBytes = statics.reduce((n, f) => n + /** @type {number} */ (ours.get(f.file)), 0);
/** @param {typeof files} set */
const lossless = (set) => {
  const before = set.reduce((n, f) => n + f.bytes.length, 0);
  const after = set.reduce((n, f) => n + /** @type {number} */ (ours.get(f.file)), 0);
  return { images: set.length, animations: set.filter((f) => f.animated).length, gifBytes: before, bytes: after, savedPercent: round((1 - after / before) * 100) };
};

const report = {
  images: files.length,
  static: statics.length,
  animated: animated.length,
  zopfliIterations: ITERATIONS,
  gifBytes,
  loadAverage: round(loadBefore),
  pagediet: {
    bytes: oursBytes, savedPercent: round((1 - oursBytes / gifBytes) * 100), keptAsGif: kept, seconds: round(oursSeconds),
    // Both threads and the main one, workers' start included.
    cpuSeconds: round((staticsCpu.user + staticsCpu.system) / 1e6),
  },
  animations: { ...lossless(animated), seconds: round(animationsSeconds) },
  // The assembled corpus alone (fixtures/gifs), static and animated: the "at least 20%" set.
  corpus: lossless(files.filter((f) => f.inCorpus)),
};

if (ensureTools()) {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-images-'));
  /** @type {Map<string, string>} */
  const optiOut = new Map(statics.map((f, i) => [f.file, path.join(work, `${i}.png`)]));
  const optipngSeconds = await timed(statics, async (f) => {
    await run('optipng', ['-o5', '-quiet', '-out', /** @type {string} */ (optiOut.get(f.file)), f.file]);
  });
  const zopfliSeconds = await timed(statics, async (f) => {
    const out = /** @type {string} */ (optiOut.get(f.file));
    await run('zopflipng', ['-y', '--iterations=15', out, `${out}.z.png`]);
  });
  let best = 0;
  for (const f of statics) {
    const out = /** @type {string} */ (optiOut.get(f.file));
    const size = Math.min((await fs.stat(`${out}.z.png`)).size, (await fs.stat(out)).size);
    best += Math.min(size, f.bytes.length); // like pagediet, a GIF that is smaller stays
  }
  report.reference = {
    tools: 'optipng -o5, then zopflipng --iterations=15; the GIF when smaller',
    bytes: best,
    savedPercent: round((1 - best / gifBytes) * 100),
    optipngSeconds: round(optipngSeconds),
    zopflipngSeconds: round(zopfliSeconds),
  };
  report.comparison = {
    pagedietOverReferencePercent: round((oursBytes / best - 1) * 100),
    pagedietTimeShareOfOptipng: round(oursSeconds / optipngSeconds),
  };
  report.lossy = await lossyComparison(work);
  await fs.rm(work, { recursive: true });
}
console.log(JSON.stringify(report, null, 2));
await recordMeasurement('image-benchmark.md', `${statics.length} static and ${animated.length} animated GIFs against the reference tools`, jsonBlock(report));

/**
 * pagediet's lossy palette (libimagequant through sharp, quality checked)
 * against pngquant --quality=65-80 on truecolour PNGs made from the corpus's
 * photographs, scaled up and smoothed so they hold thousands of colours.
 * @param {string} work
 */
async function lossyComparison(work) {
  const photos = statics.filter((f) => /photo|scan/i.test(path.basename(f.file))).slice(0, 12);
  const rows = [];
  for (const [i, f] of photos.entries()) {
    const { data, info } = await sharp(f.bytes).resize({ width: 800, kernel: 'lanczos3' }).blur(1.2).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const truecolour = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }).png({ compressionLevel: 9 }).toBuffer();
    const input = path.join(work, `true-${i}.png`);
    await fs.writeFile(input, truecolour);
    const ourResult = await lossyPng(data, info.width, info.height, [65, 80]);
    let theirs = null;
    try {
      await run('pngquant', ['--quality=65-80', '--speed', '1', '--force', '--output', `${input}.q.png`, input]);
      const q = await fs.readFile(`${input}.q.png`);
      const back = await sharp(q).ensureAlpha().raw().toBuffer();
      theirs = { bytes: q.length, quality: mseToQuality(meanSquaredError(data, back)) };
    } catch {
      theirs = { bytes: null, quality: null }; // pngquant refused: under its floor
    }
    rows.push({ image: path.basename(f.file), truecolourBytes: truecolour.length, pagediet: { bytes: ourResult.png?.length ?? null, quality: ourResult.quality }, pngquant: theirs });
  }
  return rows;
}

/** @param {number} n */
function round(n) {
  return Math.round(n * 100) / 100;
}
