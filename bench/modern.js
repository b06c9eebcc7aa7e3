// Benchmark: pagediet against jampack (@divriots/jampack, a post-processor
// for static-site output) on fixtures/modern, the site people ship today.
// Each tool builds a copy with its defaults, cold; then every page of the
// input and of each output is visited once in Chromium (1280x800 and
// 360x740, device pixel ratio 1, an empty cache each page; lazy images load
// as Chromium loads them; text served gzipped on the fly, or from a build's
// .br sidecars) and the bytes and requests it fetched are summed;
// and every image each tool wrote from a photograph is scored with
// SSIMULACRA 2 against the original (resized to the same size with lanczos3
// where the tool resized). jampack is installed from the registry on first
// use into os.tmpdir()/pagediet-bench-jampack (it is no dependency of pagediet).
// Then it prints the speed issue's goals for this kind of site: pagediet's
// build time over jampack's (at most 10), its first-visit bytes over
// jampack's (at most 1), and its photos pass over the final encodes alone
// (at most 2): each file the pass wrote encoded once more from its original
// at the width, format, quality and effort the pass chose (from its
// decisions), as many at once as the pass runs jobs, one libvips thread each.
// Run: npm run bench:modern   [--site DIR] [--keep] [--no-record]
// --site: another site of the kind (a photo blog); every page of it visited.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { build } from '../src/build/pipeline.js';
import { ssimulacra2 } from '../src/images/ssimulacra2.js';
import { AVIF_SEARCH_EFFORT, ENCODE } from '../src/images/jobs/photo.js';
import { installJampack, runJampack, sitePages, visit as visitPages, walk } from './peers/chromium-visit.js';
import { machineLine } from './machine.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SITE_FLAG = process.argv.indexOf('--site');
const INPUT = SITE_FLAG > 0 ? path.resolve(process.argv[SITE_FLAG + 1]) : path.join(ROOT, 'fixtures/modern');
const SITE_NAME = SITE_FLAG > 0 ? path.basename(INPUT) : 'fixtures/modern';
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 360, height: 740 }];
const KEEP = process.argv.includes('--keep');
const PAGES = sitePages(INPUT);
/** @param {string} root */
const visit = (root) => visitPages(root, PAGES, VIEWPORTS);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-bench-modern-'));
console.log(`pagediet against jampack on ${SITE_NAME}: ${machineLine()}`);

/**
 * What a browser shows of an image, optionally resized, as the metric takes it.
 * @param {Buffer} bytes
 * @param {{ width: number, height: number }} [size]
 */
async function shown(bytes, size) {
  let image = sharp(bytes).autoOrient().toColourspace('srgb').removeAlpha();
  // As the photos pass makes its reference for a smaller width: by width, the height following the aspect ratio
  // (to the written height where a tool rounded it otherwise).
  if (size) {
    const byWidth = await image.clone().resize({ width: size.width, kernel: 'lanczos3' }).raw().toBuffer({ resolveWithObject: true });
    if (byWidth.info.height === size.height) return { data: byWidth.data, width: byWidth.info.width, height: byWidth.info.height, channels: /** @type {3} */ (3) };
    image = image.resize(size.width, size.height, { kernel: 'lanczos3', fit: 'fill' });
  }
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: /** @type {3} */ (3) };
}

/**
 * SSIMULACRA 2 of every image a tool wrote from one of the input's photographs.
 * @param {string} out
 */
async function scores(out) {
  const originals = walk(INPUT).filter((f) => /\.(jpe?g|webp)$/i.test(f));
  /** @type {number[]} */
  const all = [];
  for (const file of walk(out).filter((f) => /\.(jpe?g|webp|avif)$/i.test(f))) {
    const rel = path.relative(out, file);
    // A width (-640w, @640w) or a copy's number (-2), then a content hash (hash-names: .3f9a0c1d), then the type.
    const stem = rel.replace(/(-\d+w|-\d+)?(@\d+w)?(\.[0-9a-f]{8,64})?\.(jpe?g|webp|avif)$/i, '');
    const original = originals.find((o) => path.relative(INPUT, o).replace(/\.(jpe?g|webp)$/i, '') === stem);
    if (!original) continue;
    const bytes = fs.readFileSync(file);
    const originalBytes = fs.readFileSync(original);
    // The original itself, under its own or its hashed name: not a re-encoding. (A tool that re-encodes in place,
    // as jampack does, writes other bytes under the original's name: scored.)
    if (bytes.equals(originalBytes)) continue;
    const written = await shown(bytes);
    all.push(ssimulacra2(await shown(originalBytes, written), written));
  }
  all.sort((a, b) => a - b);
  const at = (/** @type {number} */ q) => all[Math.min(all.length - 1, Math.floor(q * all.length))];
  return { images: all.length, min: all[0], median: at(0.5), max: all[all.length - 1] };
}

/** @param {string} dir */
const bytesOf = (dir) => walk(dir).reduce((sum, f) => sum + fs.statSync(f).size, 0);

/**
 * The photos pass's time, and the time of encoding once more each file it
 * wrote, from its original, as the pass's decisions describe it
 * ("target (AVIF q72 effort 4, SSIMULACRA 2 85.3, 12345 B)"; a smaller
 * width's target ends in -<width>w), as many at once as the build ran jobs.
 * @param {Awaited<ReturnType<typeof build>>} built
 */
async function finalEncodes(built) {
  const pass = built.passes.find((p) => p.name === 'photos');
  /** @type {{ original: string, width: number | null, format: import('../src/images/jobs/photo.js').PhotoFormat, quality: number, effort: number }[]} */
  const encodes = [];
  const formats = /** @type {Record<string, import('../src/images/jobs/photo.js').PhotoFormat>} */ ({ AVIF: 'avif', WebP: 'webp', JPEG: 'jpeg' });
  for (const decision of pass?.decisions ?? []) {
    if (decision.action !== 'changed') continue;
    for (const m of decision.reason.matchAll(/([^\s,;]+) \((AVIF|WebP|JPEG) q(\d+)(?: effort (\d+))?, SSIMULACRA 2/g)) {
      const width = /-(\d+)w\.\w+$/.exec(m[1]);
      encodes.push({ original: path.join(INPUT, decision.file), width: width ? Number(width[1]) : null, format: formats[m[2]], quality: Number(m[3]), effort: Number(m[4] ?? AVIF_SEARCH_EFFORT) });
    }
  }
  const threads = os.availableParallelism();
  const concurrency = sharp.concurrency();
  sharp.concurrency(1);
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: threads }, async () => {
    while (next < encodes.length) {
      const { original, width, format, quality, effort } = encodes[next++];
      let image = sharp(fs.readFileSync(original)).autoOrient();
      if (width) image = image.resize({ width, kernel: 'lanczos3' });
      await ENCODE[format](image, quality, effort).toBuffer();
    }
  }));
  sharp.concurrency(concurrency);
  return { files: encodes.length, seconds: (performance.now() - started) / 1000, passSeconds: (pass?.ms ?? 0) / 1000, threads };
}

const results = /** @type {Record<string, { seconds: number | null, files: number, visit: Awaited<ReturnType<typeof visit>>, scores: Awaited<ReturnType<typeof scores>> | null }>} */ ({});
results.input = { seconds: null, files: bytesOf(INPUT), visit: await visit(INPUT), scores: null };

const pagedietOut = path.join(work, 'pagediet');
let t = performance.now();
const summary = await build({ input: INPUT, output: pagedietOut, cacheDir: path.join(work, 'cache') });
// A warning explains a run that saved less than the last (a page put back where a box moved, say).
for (const w of summary.warnings) console.log(`pagediet: ${w.file}: ${w.code}: ${w.message}`);
results.pagediet = { seconds: (performance.now() - t) / 1000, files: bytesOf(pagedietOut), visit: await visit(pagedietOut), scores: await scores(pagedietOut) };

const jampackOut = path.join(work, 'jampack');
fs.cpSync(INPUT, jampackOut, { recursive: true });
installJampack();
t = performance.now();
runJampack(jampackOut);
results.jampack = { seconds: (performance.now() - t) / 1000, files: bytesOf(jampackOut), visit: await visit(jampackOut), scores: await scores(jampackOut) };

const kb = (/** @type {number} */ n) => `${(n / 1e6).toFixed(2)} MB`;
const rows = ['| | build | first visit, 1280 px | requests | first visit, 360 px | SSIMULACRA 2 of re-encoded images (min / median / max) |', '| --- | ---: | ---: | ---: | ---: | --- |'];
for (const [name, r] of Object.entries(results)) {
  const wide = r.visit['1280px'], narrow = r.visit['360px'];
  const s = r.scores?.images === 0 ? 'none found' : r.scores ? `${r.scores.images} images: ${r.scores.min.toFixed(1)} / ${r.scores.median.toFixed(1)} / ${r.scores.max.toFixed(1)}` : '';
  rows.push(`| ${name} | ${r.seconds === null ? '' : `${r.seconds.toFixed(1)} s`} | ${kb(wide.bytes)} | ${wide.requests} | ${kb(narrow.bytes)} | ${s} |`);
}
const ratio = results.pagediet.visit['1280px'].bytes / results.jampack.visit['1280px'].bytes;
const kinds = ['svg', 'scripts', 'fonts', 'styles', 'pages'];
const byKind = ['| first visit, 1280 px, by kind | ' + kinds.join(' | ') + ' |', `| --- |${' ---: |'.repeat(kinds.length)}`,
  ...Object.entries(results).map(([name, r]) => `| ${name} | ${kinds.map((k) => `${r.visit['1280px'].byKind[k].bytes.toLocaleString('en-US')} B`).join(' | ')} |`)];
const photos = await finalEncodes(summary);
const timeRatio = /** @type {number} */ (results.pagediet.seconds) / /** @type {number} */ (results.jampack.seconds);
const goal = (/** @type {string} */ what, /** @type {number} */ value, /** @type {number} */ limit) => `- ${value <= limit ? 'met' : '**missed**'}: ${what} ${value.toFixed(2)} (goal: at most ${limit})`;
const goals = [
  goal('build time, pagediet over jampack:', timeRatio, 10),
  `${goal('first visit at 1280 px, pagediet over jampack:', ratio, 1)}; the photographs each re-encoded score at least ${results.pagediet.scores?.min?.toFixed(1) ?? '–'} (pagediet) and ${results.jampack.scores?.min?.toFixed(1) ?? '–'} (jampack) in SSIMULACRA 2, where 90 is visually lossless and 85 pagediet's gate`,
  photos.files ? goal(`photos pass (${photos.passSeconds.toFixed(1)} s) over the final encodes alone (${photos.files} files, ${photos.seconds.toFixed(1)} s, ${photos.threads} at once):`, photos.passSeconds / photos.seconds, 2) : '- photos pass: no photograph re-encoded',
].join('\n');
const table = `${rows.join('\n')}\n\npagediet's first visit at 1280 px is ${ratio.toFixed(2)}x jampack's.\n\n${byKind.join('\n')}\n\n${goals}`;
console.log(`\n${table}`);
await recordMeasurement('modern-benchmark.md', `pagediet and jampack on ${SITE_NAME}`, table);
if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
else console.log(`outputs kept in ${work}`);
