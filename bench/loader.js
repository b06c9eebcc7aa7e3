// Benchmark: load and model 100 pages x 4 strategies x 8 networks, and report
// the CPU time it takes (the robot, the server and the model all run in this
// process). Run: npm run bench (or node bench/loader.js).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadSite } from '../src/loader/load.js';
import { STRATEGIES } from '../src/loader/client.js';

const NETWORKS = ['lan-1997', 'wan-1997', 'modem-28.8k', 'ricochet-1999', '3g', 'slow-4g', 'cable', 'fiber'];
const PAGES = 100;

/** A site of 100 pages like microscape's, sharing its 42 images. */
async function makeSite() {
  const fixture = fileURLToPath(new URL('../fixtures/microscape', import.meta.url));
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-'));
  await fs.cp(fixture, root, { recursive: true });
  const page = await fs.readFile(path.join(fixture, 'index.html'));
  // Each page differs (a comment with its number), so no page's parse can serve another.
  for (let i = 0; i < PAGES; i++) await fs.writeFile(path.join(root, `page-${String(i).padStart(3, '0')}.html`), Buffer.concat([page, Buffer.from(`<!-- page ${i} -->\n`)]));
  return root;
}

const root = await makeSite();
const pages = Array.from({ length: PAGES }, (_, i) => `/page-${String(i).padStart(3, '0')}.html`);
// A short warm-up so the first hashing of each file by the server is not counted.
await loadSite({ root, pages: pages.slice(0, 1), networks: ['wan-1997'], visits: ['first'] });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = await loadSite({ root, pages, protocols: [...STRATEGIES], networks: NETWORKS, visits: ['first'] });
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const requests = result.traces.reduce((n, t) => n + t.requests.length, 0);
await fs.rm(root, { recursive: true });
const report = {
  pages: PAGES, strategies: STRATEGIES.length, networks: NETWORKS.length, loads: result.traces.length, modelRuns: result.runs.length, requests,
  wallSeconds: Math.round(wall * 100) / 100, cpuSeconds: Math.round(((cpu.user + cpu.system) / 1e6) * 100) / 100,
};
console.log(JSON.stringify(report, null, 2));
