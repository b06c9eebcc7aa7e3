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
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { build } from '../src/pipeline.js';
import { launchBrowser } from '../src/text-images/browser.js';
import { ssimulacra2 } from '../src/images/ssimulacra2.js';
import { mimeType } from '../src/site/mime.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INPUT = path.join(ROOT, 'fixtures/modern');
const JAMPACK_VERSION = '0.34.1';
const PAGES = ['index.html', 'blog/index.html', 'blog/first-post.html', 'about/index.html', 'gallery.html'];
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 360, height: 740 }];
const KEEP = process.argv.includes('--keep');
/** Types an ordinary server compresses. */
const TEXT = /^(text\/|application\/(javascript|json|xml|manifest\+json)|image\/svg\+xml)/;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-bench-modern-'));
console.log(`pagediet against jampack on fixtures/modern: node ${process.versions.node}, ${os.availableParallelism()} cores, load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`);

/** jampack's command, installed once. */
function jampack() {
  const prefix = path.join(os.tmpdir(), 'pagediet-bench-jampack');
  const bin = path.join(prefix, 'node_modules/.bin/jampack');
  if (!fs.existsSync(bin)) {
    console.log(`installing @divriots/jampack@${JAMPACK_VERSION} into ${prefix}`);
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', `@divriots/jampack@${JAMPACK_VERSION}`], { stdio: 'ignore' });
  }
  return bin;
}

/** @param {string} dir @returns {string[]} */
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

/**
 * Every page visited in Chromium, once per viewport.
 * @param {string} root
 */
async function visit(root) {
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const target = fs.existsSync(file) && fs.statSync(file).isDirectory() ? path.join(file, 'index.html') : file;
    if (!target.startsWith(root) || !fs.existsSync(target)) {
      res.writeHead(404).end();
      return;
    }
    // As an ordinary server serves files: text gzipped on the fly, or a precompressed .br sidecar where the build wrote one.
    const type = mimeType(target);
    const accepts = String(req.headers['accept-encoding'] ?? '');
    if (TEXT.test(type) && accepts.includes('br') && fs.existsSync(`${target}.br`)) {
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'br', vary: 'Accept-Encoding' }).end(fs.readFileSync(`${target}.br`));
    } else if (TEXT.test(type) && accepts.includes('gzip')) {
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'gzip', vary: 'Accept-Encoding' }).end(zlib.gzipSync(fs.readFileSync(target)));
    } else {
      res.writeHead(200, { 'content-type': type });
      fs.createReadStream(target).pipe(res);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(null)));
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`;
  const { browser } = await launchBrowser();
  /** @type {Record<string, { bytes: number, requests: number, images: number }>} */
  const figures = {};
  try {
    for (const viewport of VIEWPORTS) {
      let bytes = 0, requests = 0, images = 0;
      for (const page of PAGES) {
        const context = await browser.newContext({ viewport });
        const tab = await context.newPage();
        /** @type {import('playwright-core').Request[]} */
        const finished = [];
        tab.on('requestfinished', (request) => { finished.push(request); });
        await tab.goto(base + page, { waitUntil: 'networkidle' });
        for (const request of finished) {
          const sizes = await request.sizes();
          bytes += sizes.responseBodySize + sizes.responseHeadersSize;
          requests++;
          if (request.resourceType() === 'image') images++;
        }
        await context.close();
      }
      figures[`${viewport.width}px`] = { bytes, requests, images };
    }
  } finally {
    await browser.close();
    server.close();
  }
  return figures;
}

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
    const stem = rel.replace(/(-\d+w|-\d+)?(@\d+w)?\.(jpe?g|webp|avif)$/i, '');
    const original = originals.find((o) => path.relative(INPUT, o).replace(/\.(jpe?g|webp)$/i, '') === stem);
    if (!original || path.relative(INPUT, original) === rel) continue;
    const bytes = fs.readFileSync(file);
    const written = await shown(bytes);
    all.push(ssimulacra2(await shown(fs.readFileSync(original), written), written));
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
const command = jampack();
t = performance.now();
execFileSync(command, [jampackOut], { stdio: 'ignore', cwd: path.dirname(path.dirname(path.dirname(command))) });
results.jampack = { seconds: (performance.now() - t) / 1000, files: bytesOf(jampackOut), visit: await visit(jampackOut), scores: await scores(jampackOut) };

const kb = (/** @type {number} */ n) => `${(n / 1e6).toFixed(2)} MB`;
const rows = ['| | build | first visit, 1280 px | requests | first visit, 360 px | SSIMULACRA 2 of re-encoded images (min / median / max) |', '| --- | ---: | ---: | ---: | ---: | --- |'];
for (const [name, r] of Object.entries(results)) {
  const wide = r.visit['1280px'], narrow = r.visit['360px'];
  const s = r.scores ? `${r.scores.images} images: ${r.scores.min.toFixed(1)} / ${r.scores.median.toFixed(1)} / ${r.scores.max.toFixed(1)}` : '';
  rows.push(`| ${name} | ${r.seconds === null ? '' : `${r.seconds.toFixed(1)} s`} | ${kb(wide.bytes)} | ${wide.requests} | ${kb(narrow.bytes)} | ${s} |`);
}
const ratio = results.pagediet.visit['1280px'].bytes / results.jampack.visit['1280px'].bytes;
const table = `${rows.join('\n')}\n\npagediet's first visit at 1280 px is ${ratio.toFixed(2)}x jampack's.`;
console.log(`\n${table}`);
await recordMeasurement('modern-benchmark.md', 'pagediet and jampack on fixtures/modern', table);
if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
else console.log(`outputs kept in ${work}`);
