// Benchmark: pagediet against the chain of tools a user would pick instead,
// on the same input in the same run. For each site (a generated 1990s site of
// at least 100 pages and 300 images, and the fixtures microscape, ricochet
// and h2-sample) it alternates builds, each in its own child process measured
// by GNU time:
//   pagediet (cold: empty cache), peers, peers with lossless WebP,
//   pagediet (warm: the same cache), peers, peers with lossless WebP
// (the peers have no cache: their second run is the same work again), then
// runs Debian's encoders as limit references (bench/peers/limits.js), and
// loads every page of the input and of each output with pagediet's robot
// (bench/peers/visit.js). It prints a table per site, and writes the figures
// as JSON to os.tmpdir()/pagediet-bench-peers.json (or --json <file>).
// pagediet runs with its defaults plus --minify-html, since the peers minify.
// Run: npm run bench:peers
//   [--pages 100] [--images 300] [--sites generated,microscape,ricochet,h2-sample,modern] [--json file] [--keep] [--no-record]
// The site "modern" is today's: fixtures/modern's SVG, scripts and fonts beside jampack's (bench/peers/today.js).
// The tables are prepended to docs/measurements/peers-benchmark.md (--no-record: printed only).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { generateSite } from './generate-site.js';
import { measure } from './peers/measure.js';
import { listFiles } from './peers/chain.js';
import { ensureDebianTools } from './peers/limits.js';
import { VISIT_PROFILE, pagesOf, visit } from './peers/visit.js';
import { besideJampack } from './peers/today.js';
import { machineLine } from './machine.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();

/** @param {string} name @param {string} fallback */
const flag = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
};
const PAGES = Number(flag('pages', '100'));
const IMAGES = Number(flag('images', '300'));
const SITES = flag('sites', 'generated,microscape,ricochet,h2-sample,modern').split(',');
const JSON_OUT = path.resolve(flag('json', path.join(os.tmpdir(), 'pagediet-bench-peers.json')));
const KEEP = process.argv.includes('--keep');
/** pagediet's passes that turn an input image into a smaller one, losslessly by default. */
const IMAGE_PASSES = ['gif-to-png', 'animations', 'png'];

/**
 * @typedef {import('./peers/measure.js').Usage} Usage
 * @typedef {import('./peers/visit.js').VisitFigures} VisitFigures
 * @typedef {import('./peers/limits.js').ImageLimits} ImageLimits
 * @typedef {import('./peers/limits.js').TextLimits} TextLimits
 * @typedef {{ tools: Record<string, boolean>, images: Record<string, ImageLimits>, text: Record<string, TextLimits> }} Limits
 * @typedef {{ name: string, description: string, files: { path: string, before: number, after: number }[], decisions: { file: string, action: string, reason: string }[], ms: number }} PassSummary
 * @typedef {{ passes: PassSummary[], work: { jobs: number, cacheHits: number, passesReplayed: number } }} Summary
 */

const tools = ensureDebianTools();
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-peers-'));
console.log(`pagediet against its peers: ${machineLine()}`);
console.log(`limit tools: ${Object.entries(tools).map(([t, ok]) => `${t} ${ok ? 'present' : 'MISSING'}`).join(', ')}`);
console.log(`work directory ${work}\n`);

/** @type {Record<string, unknown>} */
const results = {
  date: new Date().toISOString(), node: process.versions.node, cores: os.availableParallelism(), tools,
  visitProfile: VISIT_PROFILE, pagedietFlags: ['--minify-html'], sites: {},
};

/** The printed table of each site, recorded at the end. @type {string[]} */
const tables = [];
for (const site of SITES) {
  if (site === 'modern') {
    // Today's site has other peers: jampack, on its SVG, scripts and fonts.
    const dir = path.join(work, 'modern-out');
    await fs.mkdir(dir);
    const { figures, table } = await besideJampack(dir);
    /** @type {Record<string, unknown>} */ (results.sites).modern = figures;
    console.log(`modern: fixtures/modern's SVG, scripts and fonts beside jampack\n${table}\n`);
    tables.push(`### modern: SVG, scripts and fonts beside jampack\n\n${table}`);
    continue;
  }
  const t0 = performance.now();
  let input = path.join(ROOT, 'fixtures', site);
  let description = `fixtures/${site}`;
  if (site === 'generated') {
    input = path.join(work, 'generated');
    const made = await generateSite(input, { pages: PAGES, images: IMAGES });
    description = `bench/generate-site.js: ${made.pages} pages (${made.pageBytes} B), ${made.images} GIFs (${made.imageBytes} B), plus microscape's images/`;
  }
  const dir = path.join(work, `${site}-out`);
  await fs.mkdir(dir);
  const cacheDir = path.join(dir, 'cache');
  /** @param {string} out @param {string[]} [flags] */
  const pagediet = async (out, flags = []) => {
    const m = await measure(process.execPath, [path.join(ROOT, 'bin/pagediet.js'), 'build', input, '-o', out, '--cache-dir', cacheDir, '--no-report', '--json', '--minify-html', ...flags]);
    const summary = /** @type {Summary} */ (JSON.parse(m.stdout));
    return { usage: usage(m), summary };
  };
  /** @param {string} out @param {boolean} lossless */
  const peers = async (out, lossless) => {
    const m = await measure(process.execPath, [path.join(ROOT, 'bench/peers/chain.js'), input, out, ...(lossless ? ['--webp-lossless'] : [])]);
    return { usage: usage(m), counts: JSON.parse(m.stdout) };
  };
  console.log(`${site}: ${description}`);
  const out = {
    pagedietCold: path.join(dir, 'pagediet-cold'), pagedietWarm: path.join(dir, 'pagediet-warm'), pagedietLossy: path.join(dir, 'pagediet-lossy'),
    peers1: path.join(dir, 'peers-1'), peers2: path.join(dir, 'peers-2'),
    lossless1: path.join(dir, 'peers-lossless-1'), lossless2: path.join(dir, 'peers-lossless-2'),
  };
  const cold = await pagediet(out.pagedietCold);
  log('pagediet, cold', cold.usage, `${cold.summary.work.jobs} jobs`);
  const peers1 = await peers(out.peers1, false);
  log('peers', peers1.usage);
  const lossless1 = await peers(out.lossless1, true);
  log('peers, lossless WebP', lossless1.usage);
  const warm = await pagediet(out.pagedietWarm);
  log('pagediet, warm', warm.usage, `${warm.summary.work.jobs} jobs, ${warm.summary.work.cacheHits} cache hits, ${warm.summary.work.passesReplayed} passes replayed`);
  // Lossy, like the peers' default WebP: the same cache, so only the image work that --lossy changes is done again.
  const lossy = await pagediet(out.pagedietLossy, ['--lossy']);
  log('pagediet --lossy (warm cache)', lossy.usage, `${lossy.summary.work.jobs} jobs`);
  const peers2 = await peers(out.peers2, false);
  log('peers, again', peers2.usage);
  const lossless2 = await peers(out.lossless2, true);
  log('peers, lossless WebP, again', lossless2.usage);

  // The limit tools get the images pagediet converted or kept, not those the text-images pass took away.
  const imageList = path.join(dir, 'images.json');
  await fs.writeFile(imageList, JSON.stringify([...new Set(IMAGE_PASSES.flatMap((name) => [...replacements(cold.summary.passes.find((p) => p.name === name)).keys()]))]));
  const limitRun = await measure(process.execPath, [path.join(ROOT, 'bench/peers/limits.js'), input, out.pagedietCold, path.join(dir, 'limits'), imageList]);
  const limits = /** @type {Limits} */ (JSON.parse(limitRun.stdout));
  log('limit references', usage(limitRun));

  const pages = await pagesOf(input);
  /** @type {Record<string, VisitFigures>} */
  const visits = {};
  for (const [name, root] of /** @type {const} */ ([['input', input], ['pagediet', out.pagedietCold], ['pagedietLossy', out.pagedietLossy], ['peers', out.peers1], ['peersLossless', out.lossless1]])) {
    visits[name] = await visit(root, pages);
  }
  const images = await imageFigures(input, out.pagedietCold, out.peers1, out.lossless1, cold.summary, limits);
  const text = textFigures(limits, await sizes(out.pagedietCold));
  const siteResult = {
    description, pages: pages.length,
    builds: {
      pagediet: { cold: cold.usage, warm: warm.usage, work: { cold: cold.summary.work, warm: warm.summary.work }, passMs: passTimes(cold.summary, warm.summary) },
      pagedietLossy: { usage: lossy.usage, work: lossy.summary.work, lossyImages: lossyImages(lossy.summary) },
      peers: { run1: peers1.usage, run2: peers2.usage, counts: peers1.counts },
      peersLossless: { run1: lossless1.usage, run2: lossless2.usage, counts: lossless1.counts },
      limits: usage(limitRun),
    },
    sameOutput: {
      pagediet: await sameFiles(out.pagedietCold, out.pagedietWarm),
      peers: await sameFiles(out.peers1, out.peers2),
      peersLossless: await sameFiles(out.lossless1, out.lossless2),
    },
    visits, images, text,
    seconds: round((performance.now() - t0) / 1000, 1),
  };
  /** @type {Record<string, unknown>} */ (results.sites)[site] = siteResult;
  tables.push(table(site, siteResult));
  console.log(`\n${tables[tables.length - 1]}\n`);
  if (!KEEP) await fs.rm(dir, { recursive: true, force: true });
}

results.totalSeconds = round((performance.now() - started) / 1000, 1);
await fs.writeFile(JSON_OUT, `${JSON.stringify(results, null, 2)}\n`);
if (!KEEP) await fs.rm(work, { recursive: true, force: true });
console.log(`whole benchmark: ${results.totalSeconds} s wall; figures in ${JSON_OUT}`);
await recordMeasurement('peers-benchmark.md', `${SITES.join(', ')}`, `The whole benchmark: ${results.totalSeconds} s wall. Limit tools: ${Object.entries(tools).map(([t, ok]) => `${t} ${ok ? 'present' : 'MISSING'}`).join(', ')}.\n\n${tables.join('\n\n')}`);

/**
 * The images a --lossy build encoded lossily, from its decisions ("..., quality NN, ...").
 * @param {Summary} summary
 */
function lossyImages(summary) {
  const qualities = summary.passes.flatMap((p) => p.decisions ?? []).filter((d) => d.action === 'changed' && /\blossy\b/.test(d.reason)).map((d) => Number(/quality (\d+)/.exec(d.reason)?.[1] ?? NaN)).filter((q) => !Number.isNaN(q));
  return { count: qualities.length, lowestQuality: qualities.length ? Math.min(...qualities) : null };
}

/** @param {import('./peers/measure.js').Measured} m @returns {Usage} */
function usage(m) {
  return { wallSeconds: round(m.wallSeconds, 2), cpuSeconds: m.cpuSeconds === null ? null : round(m.cpuSeconds, 2), peakRssMB: m.peakRssMB === null ? null : Math.round(m.peakRssMB) };
}

/** @param {string} what @param {Usage} u @param {string} [extra] */
function log(what, u, extra = '') {
  console.log(`  ${what.padEnd(28)} ${u.wallSeconds.toFixed(1).padStart(6)} s wall, ${String(u.cpuSeconds ?? '?').padStart(6)} s CPU, ${String(u.peakRssMB ?? '?').padStart(5)} MB${extra ? `; ${extra}` : ''}`);
}

/** @param {number} n @param {number} digits */
function round(n, digits) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** @param {string} root @returns {Promise<Map<string, number>>} path → size */
async function sizes(root) {
  const files = await listFiles(root);
  return new Map(await Promise.all(files.map(async (f) => /** @type {[string, number]} */ ([f, (await fs.stat(path.join(root, f))).size]))));
}

/**
 * Whether two outputs hold the same files with the same sizes (the server
 * configs, which name their directory, aside).
 * @param {string} a @param {string} b
 */
async function sameFiles(a, b) {
  const [x, y] = [await sizes(a), await sizes(b)];
  const keys = (/** @type {Map<string, number>} */ m) => [...m.keys()].filter((k) => !k.startsWith('pagediet-configs/') && !k.startsWith('.pagediet-output'));
  return keys(x).length === keys(y).length && keys(x).every((k) => x.get(k) === y.get(k));
}

/**
 * Each pass's time in the cold and the warm build.
 * @param {Summary} cold @param {Summary} warm
 */
function passTimes(cold, warm) {
  return Object.fromEntries(cold.passes.map((p) => [p.name, { cold: p.ms, warm: warm.passes.find((q) => q.name === p.name)?.ms ?? null }]));
}

/**
 * The file the output serves in place of an input image, for each image a
 * pass converted or kept: the file its decision names (`→ target: ...`), the
 * image's own path when the pass rewrote it in place (png), or null when the
 * image was kept as it was.
 * @param {PassSummary | undefined} pass
 */
function replacements(pass) {
  /** @type {Map<string, string | null>} */
  const map = new Map();
  for (const d of pass?.decisions ?? []) {
    if (d.action === 'skipped') continue;
    const target = d.action === 'changed' ? /^→ (.+?): /.exec(d.reason)?.[1] ?? d.file : null;
    map.set(d.file, target);
  }
  return map;
}

/**
 * Lossless image bytes: the images pagediet converted or kept (not the ones
 * the text-images pass took away), at pagediet's output, the peers' outputs
 * and the limit references; and whether the peers' images keep the GIF's pixels.
 * @param {string} input @param {string} pagedietOut @param {string} peersOut @param {string} losslessOut
 * @param {Summary} summary @param {Limits} limits
 */
async function imageFigures(input, pagedietOut, peersOut, losslessOut, summary, limits) {
  const [ours, theirs, theirsLossless] = [await sizes(pagedietOut), await sizes(peersOut), await sizes(losslessOut)];
  /** What the peers serve for an input image: their PNG or WebP of a GIF, else the file as it was. @param {Map<string, number>} files @param {string} file */
  const peerImage = (files, file) => {
    for (const ext of ['png', 'webp']) {
      const p = file.replace(/\.gif$/i, `.${ext}`);
      if (p !== file && files.has(p)) return /** @type {number} */ (files.get(p));
    }
    return /** @type {number} */ (files.get(file));
  };
  /** @param {string} passName @param {(l: ImageLimits) => Record<string, number | null>} references */
  const figures = (passName, references) => {
    const chosen = replacements(summary.passes.find((p) => p.name === passName));
    /** @type {Record<string, number | null>} */
    const refTotals = {};
    let before = 0;
    let pagediet = 0;
    let peers = 0;
    let peersLossless = 0;
    let images = 0;
    for (const [file, target] of chosen) {
      const l = limits.images[file];
      if (!l) continue;
      images++;
      before += l.bytes;
      pagediet += target ? /** @type {number} */ (ours.get(target)) : l.bytes;
      peers += peerImage(theirs, file);
      peersLossless += peerImage(theirsLossless, file);
      for (const [name, bytes] of Object.entries(references(l))) {
        // A file a tool gave up on (pngquant under its floor) counts as the input, as pagediet keeps
        // an image it cannot shrink; a missing tool nulls the total.
        const tool = name.split(' ')[0];
        refTotals[name] = limits.tools[tool] === false || refTotals[name] === null ? null : (refTotals[name] ?? 0) + Math.min(l.bytes, bytes ?? l.bytes);
      }
    }
    return { images, before, pagediet, peers, peersLossless, references: refTotals };
  };
  const stills = figures('gif-to-png', (l) => ({
    'zopflipng (after optipng -o5)': l.zopflipng, 'gifsicle -O3': l.gifsicle, 'gif2webp lossless': l.gif2webp, 'pngquant 65-80 (lossy)': l.pngquant,
  }));
  const animations = figures('animations', (l) => ({ 'gif2webp lossless': l.gif2webp, 'gifsicle -O3': l.gifsicle }));
  const pngs = figures('png', (l) => ({ 'zopflipng (after optipng -o5)': l.zopflipng, 'pngquant 65-80 (lossy)': l.pngquant }));
  return { stills, animations, pngs, peersPixels: await pixelCheck(input, peersOut), peersLosslessPixels: await pixelCheck(input, losslessOut) };
}

/**
 * How many of the peers' still images show other pixels than their GIF.
 * @param {string} input @param {string} out
 */
async function pixelCheck(input, out) {
  const files = new Set(await listFiles(out));
  let checked = 0;
  let differ = 0;
  let worst = 0;
  for (const f of files) {
    const gif = f.replace(/\.(png|webp)$/i, '.gif');
    if (gif === f || !files.has(gif)) continue;
    const meta = await sharp(path.join(input, gif), { animated: true }).metadata().catch(() => null);
    if (!meta || (meta.pages ?? 1) > 1) continue;
    const [a, b] = await Promise.all([path.join(input, gif), path.join(out, f)].map((p) => sharp(p).ensureAlpha().raw().toBuffer()));
    checked++;
    let max = 0;
    for (let i = 0; i < a.length; i++) {
      // Fully transparent pixels may carry any colour.
      if (i % 4 === 0 && a[i + 3] === 0 && b[i + 3] === 0) {
        i += 3;
        continue;
      }
      max = Math.max(max, Math.abs(a[i] - b[i]));
    }
    if (max > 0 || a.length !== b.length) differ++;
    worst = Math.max(worst, max);
  }
  return { checked, differ, worstChannelDifference: worst };
}

/**
 * pagediet's .br and .gz against brotli -q 11 and zopfli --i15 on the same
 * (final) text files: the files for which pagediet wrote that sidecar.
 * @param {Limits} limits @param {Map<string, number>} files
 */
function textFigures(limits, files) {
  const totals = { files: 0, bytes: 0, pagedietBr: 0, brotli: /** @type {number | null} */ (0), pagedietGz: 0, zopfli: /** @type {number | null} */ (0) };
  for (const [file, l] of Object.entries(limits.text)) {
    const br = files.get(`${file}.br`);
    const gz = files.get(`${file}.gz`);
    if (br === undefined || gz === undefined) continue;
    totals.files++;
    totals.bytes += l.bytes;
    totals.pagedietBr += br;
    totals.pagedietGz += gz;
    totals.brotli = totals.brotli === null || l.brotli === null ? null : totals.brotli + l.brotli;
    totals.zopfli = totals.zopfli === null || l.zopfli === null ? null : totals.zopfli + l.zopfli;
  }
  return totals;
}

/** @param {number | null | undefined} a @param {number | null | undefined} b */
function ratio(a, b) {
  return a === null || a === undefined || b === null || b === undefined || b === 0 ? 'n/a' : (a / b).toFixed(3);
}

/** @param {number | null | undefined} n */
function fmt(n) {
  if (n === null || n === undefined) return 'missing';
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/**
 * The site's table, in Markdown.
 * @param {string} site
 * @param {any} r
 */
function table(site, r) {
  const v = r.visits;
  const b = r.builds;
  const rows = [
    `### ${site} (${r.description}; ${r.pages} pages)`,
    '',
    `| per page (${VISIT_PROFILE.protocol}, ${VISIT_PROFILE.network}) | input | pagediet | peers | pagediet/peers | pagediet --lossy | that/peers | peers, lossless WebP | pagediet/that |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  /** @param {string} label @param {(x: VisitFigures) => number} f */
  const visitRow = (label, f) => rows.push(`| ${label} | ${fmt(f(v.input))} | ${fmt(f(v.pagediet))} | ${fmt(f(v.peers))} | ${ratio(f(v.pagediet), f(v.peers))} | ${fmt(f(v.pagedietLossy))} | ${ratio(f(v.pagedietLossy), f(v.peers))} | ${fmt(f(v.peersLossless))} | ${ratio(f(v.pagediet), f(v.peersLossless))} |`);
  visitRow('first visit, bytes on the wire', (x) => x.firstWireBytes);
  visitRow('first visit, response bodies', (x) => x.firstBodyBytes);
  visitRow('requests', (x) => x.requests);
  visitRow('revalidation, bytes on the wire', (x) => x.revalidateWireBytes);
  visitRow('first visit, modelled seconds', (x) => x.firstSeconds);
  rows.push('', '| build (child process, GNU time) | pagediet | peers | pagediet/peers | peers, lossless WebP | pagediet/that |', '| --- | ---: | ---: | ---: | ---: | ---: |');
  /** @param {string} label @param {'wallSeconds' | 'cpuSeconds' | 'peakRssMB'} key @param {'cold' | 'warm'} when */
  const buildRow = (label, key, when) => {
    const ours = b.pagediet[when][key];
    const run = when === 'cold' ? 'run1' : 'run2';
    rows.push(`| ${label} | ${fmt(ours)} | ${fmt(b.peers[run][key])} | ${ratio(ours, b.peers[run][key])} | ${fmt(b.peersLossless[run][key])} | ${ratio(ours, b.peersLossless[run][key])} |`);
  };
  buildRow('wall s, cold (peers: first run)', 'wallSeconds', 'cold');
  buildRow('wall s, warm cache (peers: no cache, second run)', 'wallSeconds', 'warm');
  buildRow('CPU s, cold', 'cpuSeconds', 'cold');
  buildRow('CPU s, warm', 'cpuSeconds', 'warm');
  buildRow('peak memory MB, cold', 'peakRssMB', 'cold');
  buildRow('peak memory MB, warm', 'peakRssMB', 'warm');
  rows.push('', '| images and text against the limit references | bytes | pagediet/that |', '| --- | ---: | ---: |');
  for (const [label, set] of /** @type {const} */ ([['still GIFs', r.images.stills], ['animated GIFs', r.images.animations], ['PNGs', r.images.pngs]])) {
    if (!set.images) continue;
    rows.push(`| ${label} pagediet converted or kept (${set.images}), as they were | ${fmt(set.before)} | ${ratio(set.pagediet, set.before)} |`);
    rows.push(`| ${label}: pagediet, lossless | ${fmt(set.pagediet)} | |`);
    for (const [name, bytes] of Object.entries(set.references)) rows.push(`| ${label}: ${name} | ${fmt(/** @type {number | null} */ (bytes))} | ${ratio(set.pagediet, /** @type {number | null} */ (bytes))} |`);
    if (label === 'PNGs') continue; // the peers leave PNGs alone
    rows.push(`| ${label}: peers (sharp PNG or lossy WebP) | ${fmt(set.peers)} | ${ratio(set.pagediet, set.peers)} |`);
    rows.push(`| ${label}: peers, lossless WebP | ${fmt(set.peersLossless)} | ${ratio(set.pagediet, set.peersLossless)} |`);
  }
  const t = r.text;
  if (t.files) {
    rows.push(`| text files with sidecars (${t.files}), as built by pagediet | ${fmt(t.bytes)} | |`);
    rows.push(`| pagediet .br | ${fmt(t.pagedietBr)} | |`, `| brotli -q 11 | ${fmt(t.brotli)} | ${ratio(t.pagedietBr, t.brotli)} |`);
    rows.push(`| pagediet .gz | ${fmt(t.pagedietGz)} | |`, `| zopfli --i15 | ${fmt(t.zopfli)} | ${ratio(t.pagedietGz, t.zopfli)} |`);
  }
  const px = r.images.peersPixels;
  const pxl = r.images.peersLosslessPixels;
  if (px.checked) rows.push('', `Still images the peers made from GIFs (all of them, used or not) that show other pixels than their GIF: ${px.differ} of ${px.checked} (largest channel difference ${px.worstChannelDifference} of 255); with lossless WebP ${pxl.differ} of ${pxl.checked}.`);
  else rows.push('');
  const l = b.pagedietLossy;
  rows.push(`pagediet --lossy (a third build, same cache: ${fmt(l.usage.wallSeconds)} s wall) made ${l.lossyImages.count} images lossy (lowest quality ${fmt(l.lossyImages.lowestQuality)} on libimagequant's scale, floor 65).`);
  rows.push(`Limit references took ${fmt(b.limits.wallSeconds)} s wall, ${fmt(b.limits.cpuSeconds)} s CPU. Same output cold and warm: pagediet ${r.sameOutput.pagediet}, peers ${r.sameOutput.peers}, lossless ${r.sameOutput.peersLossless}. Site measured in ${r.seconds} s.`);
  rows.push(`pagediet pass times, cold/warm ms: ${Object.entries(b.pagediet.passMs).map(([n, t]) => `${n} ${/** @type {any} */ (t).cold}/${/** @type {any} */ (t).warm}`).join(', ')}.`);
  rows.push('', 'The speed issue\'s goals for a site of this kind (ratios of this run):', '');
  /** @param {string} what @param {number | null | undefined} a @param {number | null | undefined} over @param {number} limit @param {boolean} [below] strictly below */
  const goal = (what, a, over, limit, below = false) => {
    if (a === null || a === undefined || !over) return rows.push(`- not measured: ${what}`);
    const value = a / over;
    return rows.push(`- ${(below ? value < limit : value <= limit) ? 'met' : '**missed**'}: ${what} ${value.toFixed(3)} (goal: ${below ? 'below' : 'at most'} ${limit})`);
  };
  goal('cold build wall time, pagediet over the peer chain:', b.pagediet.cold.wallSeconds, b.peers.run1.wallSeconds, 3);
  goal('cold build wall time, pagediet over the lossless chain:', b.pagediet.cold.wallSeconds, b.peersLossless.run1.wallSeconds, 3);
  goal('first visit, bytes on the wire, pagediet over the peer chain (lossy WebP):', v.pagediet.firstWireBytes, v.peers.firstWireBytes, 1, true);
  goal('first visit, bytes on the wire, pagediet over the lossless chain:', v.pagediet.firstWireBytes, v.peersLossless.firstWireBytes, 1, true);
  goal('warm build wall time over the cold one:', b.pagediet.warm.wallSeconds, b.pagediet.cold.wallSeconds, 0.05);
  return rows.join('\n');
}
