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
// Run: npm run bench:modern   [--keep] [--no-record]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { build } from '../src/pipeline.js';
import { ssimulacra2 } from '../src/images/ssimulacra2.js';
import { installJampack, runJampack, visit as visitPages } from './peers/chromium-visit.js';
import { machineLine } from './machine.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INPUT = path.join(ROOT, 'fixtures/modern');
const PAGES = ['index.html', 'blog/index.html', 'blog/first-post.html', 'about/index.html', 'gallery.html'];
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 360, height: 740 }];
const KEEP = process.argv.includes('--keep');
/** @param {string} root */
const visit = (root) => visitPages(root, PAGES, VIEWPORTS);
/** @param {string} dir @returns {string[]} */
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-bench-modern-'));
console.log(`pagediet against jampack on fixtures/modern: ${machineLine()}`);

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
    if (!original || path.relative(INPUT, original) === rel) continue;
    const bytes = fs.readFileSync(file);
    const originalBytes = fs.readFileSync(original);
    // The original itself, under its hashed name: not a re-encoding.
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
const table = `${rows.join('\n')}\n\npagediet's first visit at 1280 px is ${ratio.toFixed(2)}x jampack's.\n\n${byKind.join('\n')}`;
console.log(`\n${table}`);
await recordMeasurement('modern-benchmark.md', 'pagediet and jampack on fixtures/modern', table);
if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
else console.log(`outputs kept in ${work}`);
