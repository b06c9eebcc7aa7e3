// Benchmark: load and model 100 pages x 4 strategies x 8 networks, and report
// the CPU time it takes (the robot, the server and the model all run in this
// process). Run: npm run bench (or node bench/loader.js).
// With --breakdown, it then measures where the time goes, each part alone on
// the same 100 pages: discovery (parsing each page once), each strategy's 100
// loads (pages already parsed), and the 3,200 model runs.
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
import { jsonBlock, recordMeasurement } from './record.js';

const NETWORKS = ['lan-1997', 'wan-1997', 'modem-28.8k', 'ricochet-1999', '3g', 'slow-4g', 'cable', 'fiber'];
const PAGES = 100;

/** A site of 100 pages like microscape's, sharing its 42 images. */
async function makeSite() {
  const fixture = fileURLToPath(new URL('../fixtures/microscape', import.meta.url));
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-'));
  await fs.cp(fixture, root, { recursive: true });
  const page = await fs.readFile(path.join(fixture, 'index.html'));
  // Each page differs (a comment with its number), so no page's parse can serve another.
  for (let i = 0; i < PAGES; i++) await fs.writeFile(path.join(root, pageName(i)), Buffer.concat([page, Buffer.from(`<!-- page ${i} -->\n`)]));
  return root;
}

/** @param {number} i */
const pageName = (i) => `page-${String(i).padStart(3, '0')}.html`;

/** CPU seconds (user + system, every thread) since a process.cpuUsage() mark. @param {NodeJS.CpuUsage} mark */
const cpuSince = (mark) => {
  const cpu = process.cpuUsage(mark);
  return Math.round(((cpu.user + cpu.system) / 1e6) * 100) / 100;
};

const root = await makeSite();
const pages = Array.from({ length: PAGES }, (_, i) => `/${pageName(i)}`);
// A short warm-up so the first hashing of each file by the server is not counted.
await loadSite({ root, pages: pages.slice(0, 1), networks: ['wan-1997'], visits: ['first'] });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = await loadSite({ root, pages, protocols: [...STRATEGIES], networks: NETWORKS, visits: ['first'] });
const wall = (performance.now() - t0) / 1000;
const cpuSeconds = cpuSince(cpu0);
const requests = result.traces.reduce((n, t) => n + t.requests.length, 0);
/** @type {Record<string, unknown>} */
const report = {
  pages: PAGES, strategies: STRATEGIES.length, networks: NETWORKS.length, loads: result.traces.length, modelRuns: result.runs.length, requests,
  wallSeconds: Math.round(wall * 100) / 100, cpuSeconds,
};
if (process.argv.includes('--breakdown')) report.breakdown = await breakdown();
await fs.rm(root, { recursive: true });
console.log(JSON.stringify(report, null, 2));
await recordMeasurement('loader-benchmark.md', `${PAGES} pages × ${STRATEGIES.length} strategies × ${NETWORKS.length} networks`, jsonBlock(report));

/** CPU seconds of each part alone, on a fresh copy of the pages (so discovery parses them again). */
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
    let mark = process.cpuUsage();
    for (let i = 0; i < PAGES; i++) {
      const body = await fs.readFile(path.join(copy, pageName(i)));
      discoverSubresources(body, 'text/html', `${http1.url}${pages[i]}`);
    }
    parts.discovery = cpuSince(mark);
    /** @type {import('../src/loader/client.js').Trace[]} */
    const traces = [];
    for (const protocol of STRATEGIES) {
      const origin = protocol === 'h2' ? h2.url : http1.url;
      await loadPage({ origin, page: pages[0], protocol });
      mark = process.cpuUsage();
      for (const page of pages) traces.push(await loadPage({ origin, page, protocol }));
      parts[protocol] = cpuSince(mark);
    }
    const profiles = NETWORKS.map((n) => networkProfile(n));
    mark = process.cpuUsage();
    for (const trace of traces) {
      const plan = planFromTrace(trace);
      for (const profile of profiles) model(plan, trace.protocol, profile);
    }
    parts.model = cpuSince(mark);
    return parts;
  } finally {
    await Promise.all([http1.close(), h2.close()]);
    await fs.rm(copy, { recursive: true });
  }
}
