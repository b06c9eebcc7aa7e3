// Benchmark of the loader, with issue 25's two goals:
// (a) the network model: the 3,200 model runs of 100 pages x 4 strategies x
//     8 networks under 0.3 s of CPU. The pages are loaded first (the robot and
//     the server in this process, timed apart and reported, with no goal: node's
//     own sockets set their floor), then the runs are timed alone with
//     process.cpuUsage(): a first pass, while V8 compiles the model (on its
//     background threads, which process CPU counts), then three passes; the
//     goal is checked on their median.
// (b) `pagediet report <input> <output>` of a 1,000-page site under 60 s of
//     wall time. The site comes from bench/generate-site.js, is built once
//     (`--only html-case,css,precompress --no-report --no-cache`, which takes
//     minutes and is not timed against the goal), and the report, with --html,
//     runs in a child process measured like the other benchmarks (wall; CPU
//     from GNU time when it is there).
//   node bench/loader.js [--model-only] [--breakdown] [--no-record]
// --model-only: goal (a) only (no site of 1,000 pages to generate and build).
// --breakdown: then the loads' CPU part by part, each alone on the same 100
// pages: discovery (parsing each page once) and each strategy's 100 loads.
// The figures are prepended to docs/measurements/loader-benchmark.md (--no-record: printed only).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadSite } from '../src/loader/load.js';
import { loadPage, STRATEGIES } from '../src/loader/client.js';
import { discoverSubresources } from '../src/loader/discover.js';
import { model, planFromTrace } from '../src/loader/model.js';
import { networkProfile } from '../src/loader/networks.js';
import { startServer } from '../src/loader/server.js';
import { generateSite } from './generate-site.js';
import { measure } from './peers/measure.js';
import { jsonBlock, recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NETWORKS = ['lan-1997', 'wan-1997', 'modem-28.8k', 'ricochet-1999', '3g', 'slow-4g', 'cable', 'fiber'];
const PAGES = 100;
/** Issue 25's goals. */
const GOAL = { modelCpuSeconds: 0.3, reportPages: 1000, reportWallSeconds: 60 };
/** The build whose output the report compares with its input: a few passes only, still an output with changed pages and precompressed files. */
const REPORT_BUILD = ['--only', 'html-case,css,precompress', '--no-report', '--no-cache', '-q'];
const MODEL_PASSES = 3;

/** A site of 100 pages like microscape's, sharing its 42 images. */
async function makeSite() {
  const fixture = path.join(ROOT, 'fixtures/microscape');
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-'));
  await fs.cp(fixture, root, { recursive: true });
  const page = await fs.readFile(path.join(fixture, 'index.html'));
  // Each page differs (a comment with its number), so no page's parse can serve another.
  for (let i = 0; i < PAGES; i++) await fs.writeFile(path.join(root, pageName(i)), Buffer.concat([page, Buffer.from(`<!-- page ${i} -->\n`)]));
  return root;
}

/** @param {number} i */
const pageName = (i) => `page-${String(i).padStart(3, '0')}.html`;

/** @param {number} n @param {number} [digits] */
const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** CPU seconds (user + system, every thread) since a process.cpuUsage() mark. @param {NodeJS.CpuUsage} mark @param {number} [digits] */
const cpuSince = (mark, digits = 2) => {
  const cpu = process.cpuUsage(mark);
  return round((cpu.user + cpu.system) / 1e6, digits);
};

/** @param {boolean | null} met */
const verdict = (met) => (met === null ? 'not measured' : met ? 'pass' : '**miss**');

const root = await makeSite();
const pages = Array.from({ length: PAGES }, (_, i) => `/${pageName(i)}`);

// The loads: no network, so nothing is modelled here.
// A short warm-up so the first hashing of each file by the server is not counted.
await loadSite({ root, pages: pages.slice(0, 1), networks: [], visits: ['first'] });
const mark = process.cpuUsage();
const t0 = performance.now();
const { traces } = await loadSite({ root, pages, protocols: [...STRATEGIES], networks: [], visits: ['first'] });
const loads = {
  loads: traces.length, requests: traces.reduce((n, t) => n + t.requests.length, 0),
  wallSeconds: round((performance.now() - t0) / 1000), cpuSeconds: cpuSince(mark),
};

// The model runs, alone.
const profiles = NETWORKS.map((n) => networkProfile(n));
const runs = traces.length * profiles.length;
/** CPU seconds of every model run: each load planned once and modelled on each network. */
function modelRuns() {
  const start = process.cpuUsage();
  for (const trace of traces) {
    const plan = planFromTrace(trace);
    for (const profile of profiles) model(plan, trace.protocol, profile);
  }
  return cpuSince(start, 3);
}
const firstPass = modelRuns();
const passes = Array.from({ length: MODEL_PASSES }, modelRuns);
const modelSeconds = [...passes].sort((a, b) => a - b)[Math.floor(MODEL_PASSES / 2)];

const breakdownParts = process.argv.includes('--breakdown') ? await breakdown() : null;
await fs.rm(root, { recursive: true });

const report = process.argv.includes('--model-only') ? null : await timeReport();

const goals = [
  {
    goal: `${runs.toLocaleString('en')} model runs (${PAGES} pages × ${STRATEGIES.length} strategies × ${NETWORKS.length} networks) under ${GOAL.modelCpuSeconds} s of CPU (median of ${MODEL_PASSES} passes after a first)`,
    actual: `${modelSeconds} s (passes ${passes.join(', ')} s; the first, V8 compiling the model meanwhile, ${firstPass} s)`,
    met: modelSeconds < GOAL.modelCpuSeconds,
  },
  {
    goal: `\`pagediet report\` of a ${GOAL.reportPages.toLocaleString('en')}-page site under ${GOAL.reportWallSeconds} s wall`,
    actual: report ? `${report.wallSeconds} s wall, ${report.cpuSeconds ?? '?'} s CPU` : 'not measured (--model-only)',
    met: report ? report.wallSeconds < GOAL.reportWallSeconds : null,
  },
];
const result = {
  pages: PAGES, strategies: STRATEGIES.length, networks: NETWORKS.length,
  loads,
  model: { runs, firstPassCpuSeconds: firstPass, passesCpuSeconds: passes, medianCpuSeconds: modelSeconds },
  ...(breakdownParts ? { breakdown: breakdownParts } : {}),
  report,
  goalsMet: { model: goals[0].met, report: goals[1].met },
};
const lines = goals.map((g) => `- ${verdict(g.met)}: ${g.goal}: ${g.actual}`).join('\n');
console.log(`${lines}\n`);
console.log(JSON.stringify(result, null, 2));
await recordMeasurement('loader-benchmark.md', `the model's ${runs.toLocaleString('en')} runs${report ? ` and a report of ${GOAL.reportPages.toLocaleString('en')} pages` : ''}`, `${lines}\n\n${jsonBlock(result)}`);

/** Generates and builds a site of GOAL.reportPages pages, then times `pagediet report` of it. */
async function timeReport() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-report-'));
  try {
    const site = path.join(dir, 'site');
    const out = path.join(dir, 'out');
    const size = await generateSite(site, { pages: GOAL.reportPages, images: 300 });
    const bin = path.join(ROOT, 'bin/pagediet.js');
    console.error(`bench/loader: building ${GOAL.reportPages} pages (${REPORT_BUILD.join(' ')}) for the report; this takes minutes`);
    const build = await measure(process.execPath, [bin, 'build', site, '-o', out, ...REPORT_BUILD]);
    const m = await measure(process.execPath, [bin, 'report', site, out, '--html', path.join(dir, 'report.html')]);
    return {
      site: size, build: REPORT_BUILD.join(' '), buildWallSeconds: round(build.wallSeconds),
      wallSeconds: round(m.wallSeconds), cpuSeconds: m.cpuSeconds === null ? null : round(m.cpuSeconds), peakRssMB: m.peakRssMB === null ? null : round(m.peakRssMB),
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** CPU seconds of each part of the loads alone, on a fresh copy of the pages (so discovery parses them again). */
async function breakdown() {
  const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-'));
  await fs.cp(root, copy, { recursive: true });
  // A byte more per page: the parses of the run above do not serve these.
  for (let i = 0; i < PAGES; i++) await fs.appendFile(path.join(copy, pageName(i)), '\n');
  const http1 = await startServer({ root: copy, protocol: 'http1', snapshot: true });
  const h2 = await startServer({ root: copy, protocol: 'h2c', snapshot: true });
  try {
    /** @type {Record<string, number>} */
    const parts = {};
    let start = process.cpuUsage();
    for (let i = 0; i < PAGES; i++) {
      const body = await fs.readFile(path.join(copy, pageName(i)));
      discoverSubresources(body, 'text/html', `${http1.url}${pages[i]}`);
    }
    parts.discovery = cpuSince(start);
    for (const protocol of STRATEGIES) {
      const origin = protocol === 'h2' ? h2.url : http1.url;
      await loadPage({ origin, page: pages[0], protocol });
      start = process.cpuUsage();
      for (const page of pages) await loadPage({ origin, page, protocol });
      parts[protocol] = cpuSince(start);
    }
    return parts;
  } finally {
    await Promise.all([http1.close(), h2.close()]);
    await fs.rm(copy, { recursive: true });
  }
}
