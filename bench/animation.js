// Benchmark: the animation job on one long animation, the size of the one
// that took 42 s and 1.19 GB on a real site: 262 frames of 500x485
// (--frames N, --width W, --height H to change it). The GIF is generated
// here, deterministically: a textured background, a striped disc that moves
// across it and turns, with a square of noise at its centre that changes
// every frame; each frame after the first stores only the rectangle that
// changed, as GIF optimisers write them (2.1 MB; the real one was 1.5 MB).
// The job (APNG and lossless WebP, both proven: the build's defaults) runs in
// a child process of its own, in a worker of pagediet's pool and with the
// CLI's malloc settings, as in a build, measured by GNU time
// (bench/peers/measure.js): wall time, CPU time and peak resident set. The
// child also reports its resident set before the job (worker, modules and
// libvips loaded by a first job on a tiny GIF), so that what the job adds
// reads in full sets of the frames' RGBA (width x height x 4 x frames bytes):
// about how many copies of the frames were held at the peak, the encoders'
// working memory and garbage not yet collected included.
// Run: npm run bench:animation (or node bench/animation.js [--frames 262] [--keep] [--no-record];
// --keep leaves the GIF in the temporary directory it names).
// The figures are prepended to docs/measurements/animation-benchmark.md (--no-record: printed only).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { GifWriter } from 'omggif';
import { ARENA_LIMIT, ARENA_VARIABLE, MMAP_THRESHOLD, MMAP_THRESHOLD_VARIABLE } from '../src/util/arena-limit.js';
import { measure } from './peers/measure.js';
import { jsonBlock, recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** @param {string} name @param {string} fallback */
const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
};

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4]);
else await main();

async function main() {
  const frames = Number(flag('frames', '262'));
  const width = Number(flag('width', '500'));
  const height = Number(flag('height', '485'));
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-animation-'));
  const gifPath = path.join(work, 'long.gif');
  const t0 = performance.now();
  const gif = longAnimation(width, height, frames);
  const generateSeconds = (performance.now() - t0) / 1000;
  await fs.writeFile(gifPath, gif);
  const resultPath = path.join(work, 'result.json');
  // With glibc's settings the CLI starts itself with (src/util/arena-limit.js), as a build runs.
  const env = { ...process.env, [ARENA_VARIABLE]: ARENA_LIMIT, [MMAP_THRESHOLD_VARIABLE]: MMAP_THRESHOLD };
  const usage = await measure(process.execPath, [SELF, '--child', gifPath, resultPath], { cwd: ROOT, env });
  const job = JSON.parse(await fs.readFile(resultPath, 'utf8'));
  if (process.argv.includes('--keep')) console.error(`kept ${gifPath}`);
  else await fs.rm(work, { recursive: true });
  const frameSetMB = (width * height * 4 * frames) / 2 ** 20;
  const report = {
    gif: { frames, width, height, bytes: gif.length, generateSeconds: round(generateSeconds) },
    frameSetMB: round(frameSetMB),
    wallSeconds: round(usage.wallSeconds),
    jobSeconds: round(job.jobSeconds),
    cpuSeconds: usage.cpuSeconds === null ? null : round(usage.cpuSeconds),
    peakRssMB: round(usage.peakRssMB ?? job.maxRssMB),
    rssBeforeJobMB: round(job.rssBeforeMB),
    // What the job added at its peak, in full sets of the frames' RGBA.
    frameSetsAtPeak: round(((usage.peakRssMB ?? job.maxRssMB) - job.rssBeforeMB) / frameSetMB),
    result: job.result,
  };
  console.log(JSON.stringify(report, null, 2));
  await recordMeasurement('animation-benchmark.md', `the animation job on a generated ${frames}-frame ${width}x${height} GIF`, jsonBlock(report));
}

/**
 * Runs the job once on the GIF, as a build does (in a worker of the pool,
 * one libvips thread), and writes its result and this process's figures.
 * @param {string} gifPath
 * @param {string} resultPath
 */
async function child(gifPath, resultPath) {
  // Imported here so that the parent, which only generates and measures, stays small.
  const { WorkerPool } = await import('../src/util/pool.js');
  const pool = new WorkerPool({ threads: 1, jobTimeoutS: 0 });
  const options = { format: 'auto', lossy: false, quality: [65, 80], zopfliIterations: 0, maxPixels: 100_000_000 };
  // A 2-frame GIF first, so that the worker, its modules and libvips are loaded before the figure the job is measured from.
  await pool.run('animation', { bytes: longAnimation(16, 16, 2), options });
  const bytes = await fs.readFile(gifPath);
  const rssBeforeMB = process.memoryUsage().rss / 2 ** 20;
  const t0 = performance.now();
  const result = await pool.run('animation', { bytes, options });
  const jobSeconds = (performance.now() - t0) / 1000;
  await pool.close();
  const summary = result.status === 'converted'
    ? { status: result.status, format: result.format, bytes: result.bytes.length, detail: result.detail, candidates: result.candidates, ruledOut: result.ruledOut }
    : result;
  await fs.writeFile(resultPath, JSON.stringify({ jobSeconds, rssBeforeMB, maxRssMB: process.resourceUsage().maxRSS / 1024, result: summary }));
}

/**
 * A deterministic animated GIF: a textured background, a striped disc moving
 * across it and turning, a square of noise at its centre changing every
 * frame; frame 0 is the whole picture, each later frame the rectangle that
 * changed (disposal 1).
 * @param {number} width
 * @param {number} height
 * @param {number} count frames
 * @returns {Buffer}
 */
function longAnimation(width, height, count) {
  // 256 colours: 128 of a background ramp, 64 of the disc, 64 greys for the noise.
  const palette = Array.from({ length: 256 }, (_, i) => {
    if (i < 128) return ((40 + i) << 16) | ((60 + i) << 8) | (120 + (i >> 1));
    if (i < 192) return ((255 - (i - 128) * 2) << 16) | ((90 + (i - 128)) << 8) | 30;
    const v = (i - 192) * 4;
    return (v << 16) | (v << 8) | v;
  });
  let state = 12345;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const background = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) background[y * width + x] = (((x >> 3) + (y >> 2) + Math.floor(32 + 31 * Math.sin(x / 37) * Math.cos(y / 23))) & 127);
  }
  const radius = Math.floor(Math.min(width, height) / 8);
  const noise = Math.floor(radius / 3);
  /** @param {number} k @returns {Uint8Array} frame k's indices */
  const draw = (k) => {
    const frame = background.slice();
    const t = k / count;
    const cx = Math.round(radius + (width - 2 * radius - 1) * (0.5 - 0.5 * Math.cos(2 * Math.PI * t)));
    const cy = Math.round(height / 2 + (height / 2 - radius - 1) * Math.sin(4 * Math.PI * t));
    const turn = 2 * Math.PI * t * 3;
    for (let y = cy - radius; y <= cy + radius; y++) {
      for (let x = cx - radius; x <= cx + radius; x++) {
        const dx = x - cx, dy = y - cy;
        if (dx * dx + dy * dy > radius * radius) continue;
        const along = dx * Math.cos(turn) + dy * Math.sin(turn);
        frame[y * width + x] = 128 + ((Math.floor(along / 6) & 1) * 32) + (Math.floor(Math.hypot(dx, dy) / 3) & 31);
      }
    }
    for (let y = cy - noise; y < cy + noise; y++) {
      for (let x = cx - noise; x < cx + noise; x++) frame[y * width + x] = 192 + Math.floor(random() * 64);
    }
    return frame;
  };
  const buffer = Buffer.alloc(width * height * count + (1 << 20));
  const writer = new GifWriter(buffer, width, height, { palette, loop: 0 });
  let previous = draw(0);
  writer.addFrame(0, 0, width, height, previous, { delay: 4, disposal: 1 });
  for (let k = 1; k < count; k++) {
    const current = draw(k);
    let top = height, bottom = -1, left = width, right = -1;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (current[y * width + x] === previous[y * width + x]) continue;
        top = Math.min(top, y), bottom = Math.max(bottom, y), left = Math.min(left, x), right = Math.max(right, x);
      }
    }
    if (bottom < 0) [top, bottom, left, right] = [0, 0, 0, 0];
    const w = right - left + 1, h = bottom - top + 1;
    const rect = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) rect.set(current.subarray((top + y) * width + left, (top + y) * width + left + w), y * w);
    writer.addFrame(left, top, w, h, rect, { delay: 4, disposal: 1 });
    previous = current;
  }
  return Buffer.from(buffer.subarray(0, writer.end()));
}

/** @param {number} n */
function round(n) {
  return Math.round(n * 100) / 100;
}
