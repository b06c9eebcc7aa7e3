// Benchmark: pagediet on a corpus of real public sites (issue 43, item 5).
// Each folder named on the command line is built with the defaults, in a
// child process measured by GNU time:
//   node bin/pagediet.js build DIR --out <tmp> --no-cache --json --no-report
// (PAGEDIET_DEBUG=1, so an internal error comes with its stack). Then a sample
// of its pages (index.html and pages spread over the site, as the build's
// report picks them: --sample, default 10) is visited in Chromium, the input
// and the output each served by pagediet's own server on 127.0.0.1 (the
// output's .br/.gz sidecars where there are some, every other compressible
// file gzipped on the fly, as the report's baseline), every other host
// unreachable (external fonts and scripts fail fast on both sides alike).
// A visit is a first visit at 1280x800, device pixel ratio 1, with the cache
// disabled: the bytes Chromium received (CDP Network.loadingFinished
// encodedDataLength: bodies as sent plus headers) and the responses, counted
// from navigation until the network is idle, before anything scrolls. Then
// the page is readied for a screenshot: animations and transitions off (CSS
// and Playwright's animations: 'disabled', jQuery.fx.off), lazy images made eager and the
// page scrolled to its end and back (each frame), every image complete,
// fonts ready, two animation frames, animated images held at their first
// frame (Blink's imageAnimationPolicy); a full-page screenshot (at most
// --max-height px tall) and the border box of every element in the body
// (each frame's, in document order, rounded to 1/64 px; <picture>, <source>,
// <script>, <style>, <link>, <meta>, <template> and <noscript> left out, as
// passes add or move them without changing what is drawn). Screenshots
// before and after are compared pixel by pixel; those that differ are saved
// with a diff image under os.tmpdir()/pagediet-corpus/<site>/ (or --shots).
// It prints a table and prepends a dated entry to
// docs/measurements/corpus.md, and writes every figure as JSON to
// os.tmpdir()/pagediet-bench-corpus.json (or --json <file>).
//
// Run: npm run bench:corpus -- DIR... [--sample 10] [--sources file.json]
//   [--skip <passes>] [--pages /a.html,/b.html] [--timeout <minutes>] [--stall <minutes>] [--max-height 16384]
//   [--shots dir] [--json file] [--keep] [--no-record]
// --sources: a JSON object keyed by each DIR's base name with { kind,
// repository, commit, licence, folder } (default: sources.json beside the
// DIRs, when there is one), for the table's first column. --skip passes the
// build a --skip (to find which pass makes a difference); --pages visits
// those pages instead of the sample. With CI set, the build's progress lines
// are passed on as they come. A build whose processes use less than a second
// of CPU in --stall minutes (default 10), or a visit that has not ended in
// that time, is stopped and reported as stalled, with the build's last
// progress line; a build is stopped after --timeout minutes (default 90).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { launchBrowser } from '../src/browser/launch.js';
import { startServer } from '../src/loader/server.js';
import { samplePages, sitePages } from '../src/report/compare.js';
import { GNU_TIME } from './peers/measure.js';
import { recordMeasurement } from './record.js';
import { BROTLI_FIGURE_TEXT, brotliFigureMs } from './machine.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin/pagediet.js');
const VIEWPORT = { width: 1280, height: 800 };
/** Injected in every frame before the screenshot, as well as Playwright's animations: 'disabled'. */
const STILL_CSS = '*,*::before,*::after,*::placeholder{animation:none!important;transition:none!important;caret-color:transparent!important}';
/** Elements whose boxes the layout comparison leaves out: passes add or move them without changing what is drawn. */
const UNDRAWN = ['picture', 'source', 'script', 'style', 'link', 'meta', 'template', 'noscript'];

/** A progress line of the build's CI log ("pagediet: <phase>[ (step n/m)]: ..."), not its messages. */
const PROGRESS_LINE = /^pagediet: (?!internal error)[\w-]+( \(|:)/;

/** Options with a value, and what is left: the sites' folders. */
const VALUED = ['sample', 'sources', 'skip', 'pages', 'timeout', 'stall', 'max-height', 'shots', 'json'];
/** @type {Record<string, string>} */
const opts = {};
/** @type {string[]} */
const dirs = [];
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  const name = arg.startsWith('--') ? arg.slice(2) : null;
  if (name !== null && VALUED.includes(name) && process.argv[i + 1] !== undefined) opts[name] = process.argv[++i];
  else if (name !== null) opts[name] = 'true';
  else dirs.push(path.resolve(arg));
}
if (dirs.length === 0) {
  console.error('usage: npm run bench:corpus -- DIR... [--sample 10] [--sources file.json] [--skip <passes>] [--pages /a.html,...] [--timeout <minutes>] [--stall <minutes>] [--max-height px] [--shots dir] [--json file] [--keep] [--no-record]');
  process.exit(1);
}
const SAMPLE = Number(opts.sample ?? 10);
const TIMEOUT_MS = Number(opts.timeout ?? 90) * 60_000;
const STALL_MS = Number(opts.stall ?? 10) * 60_000;
const MAX_HEIGHT = Number(opts['max-height'] ?? 16384);
const SHOTS = path.resolve(opts.shots ?? path.join(os.tmpdir(), 'pagediet-corpus'));
const JSON_OUT = path.resolve(opts.json ?? path.join(os.tmpdir(), 'pagediet-bench-corpus.json'));
const KEEP = opts.keep === 'true';
const BUILD_FLAGS = opts.skip ? ['--skip', opts.skip] : [];

/**
 * @typedef {{ kind?: string, repository?: string, commit?: string, licence?: string, folder?: string }} Source
 * @typedef {{ exitCode: number | null, signal: string | null, timedOut: boolean, stalled: boolean, wallSeconds: number, cpuSeconds: number | null, peakRssMB: number | null, internalError: string | null, lastProgress: string | null, stderrTail: string }} BuildRun
 * @typedef {{ code: string, severity: string, file: string, message: string }} Warning
 * @typedef {{ severity: string, count: number, examples: { file: string, message: string }[] }} WarningGroup
 * @typedef {{ bytes: number, requests: number, failed: number }} Fetched
 * @typedef {[string, number, number, number, number]} Box tag, x, y, width, height
 * @typedef {{ fetched: Fetched, boxes: Box[], width: number, height: number, truncated: boolean, png: Buffer, stuck: string[], shrunk: boolean }} Seen
 *   shrunk: the page saw a resize event narrower than the viewport (the browser's, not the page's: see `see`)
 * @typedef {{ changed: boolean, elements: [number, number], moved: number, first: string | null }} LayoutChange
 * @typedef {{ page: string, before: Fetched | null, after: Fetched | null, size: string, pixels: number | null, unsteady?: number, layout: LayoutChange | null, shots: string | null, error: string | null, seconds?: number }} PageResult
 *   unsteady: when the screenshots differ, the pixels by which a second visit of the input differs from its first
 */

/** @param {number} n @param {number} digits */
const round = (n, digits) => Math.round(n * 10 ** digits) / 10 ** digits;
/** @param {number} n */
const kB = (n) => `${(n / 1000).toLocaleString('en-US', { maximumFractionDigits: 0 })} kB`;

/**
 * CPU seconds (user + system) of the processes of a process group, read from
 * /proc (Linux); null elsewhere. Chromium, which playwright-core starts in a
 * group of its own, is not in it: this is pagediet's own node processes.
 * @param {number} group
 */
async function groupCpuSeconds(group) {
  try {
    let ticks = 0;
    for (const pid of await fs.readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      // Fields after the command's closing parenthesis: state ppid pgrp ... utime (14) stime (15).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks / 100;
  } catch {
    return null;
  }
}

/**
 * Runs the default build of a site in a child process, measured by GNU time; never throws.
 * CI=1 makes its progress a line every few seconds on stderr, so the last
 * line says where a build that hangs stopped; a build whose processes use
 * less than a second of CPU in --stall minutes (10) is stopped as stalled,
 * one that runs longer than --timeout minutes (90) as timed out.
 * @param {string} input
 * @param {string} out
 * @returns {Promise<{ run: BuildRun, stdout: string }>}
 */
async function build(input, out) {
  const timed = existsSync(GNU_TIME);
  const report = path.join(os.tmpdir(), `pagediet-bench-corpus-time-${process.pid}-${Date.now()}`);
  const args = [BIN, 'build', input, '--out', out, '--no-cache', '--json', '--no-report', ...BUILD_FLAGS];
  const t0 = performance.now();
  /** @type {{ code: number | null, signal: NodeJS.Signals | null, timedOut: boolean, stalled: boolean, stdout: string, stderr: string }} */
  const result = await new Promise((resolve) => {
    const child = spawn(timed ? GNU_TIME : process.execPath, timed ? ['-f', '%U %S %M', '-o', report, process.execPath, ...args] : args, {
      cwd: ROOT, env: { ...process.env, PAGEDIET_DEBUG: '1', CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    /** @type {Buffer[]} */
    const stdout = [];
    /** @type {Buffer[]} */
    const stderr = [];
    let timedOut = false;
    let stalled = false;
    // The build is a process group of its own: a timeout ends all of it (its Chromium ends with its pipe).
    const stop = () => { if (child.pid) try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ } };
    const timer = TIMEOUT_MS > 0 ? setTimeout(() => { timedOut = true; stop(); }, TIMEOUT_MS) : null;
    /** @type {{ at: number, cpu: number }[]} */
    const samples = [];
    const watch = STALL_MS > 0 ? setInterval(async () => {
      const cpu = child.pid ? await groupCpuSeconds(child.pid) : null;
      if (cpu === null) return;
      samples.push({ at: performance.now(), cpu });
      const old = samples.find((x) => x.at <= performance.now() - STALL_MS);
      if (old && cpu - old.cpu < 1 && !stalled) { stalled = true; stop(); }
      while (samples.length > 1 && samples[1].at <= performance.now() - STALL_MS) samples.shift();
    }, 15_000) : null;
    child.stdout.on('data', (b) => stdout.push(b));
    // In a CI log (CI set) the build's progress lines are passed on as they come, indented under the site.
    let partial = '';
    child.stderr.on('data', (b) => {
      stderr.push(b);
      if (!process.env.CI) return;
      const text = partial + b.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (PROGRESS_LINE.test(line)) console.log(`  | ${line}`);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (watch) clearInterval(watch);
      resolve({ code, signal, timedOut, stalled, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() });
    });
  });
  const wallSeconds = (performance.now() - t0) / 1000;
  let cpuSeconds = null;
  let peakRssMB = null;
  if (timed && existsSync(report)) {
    // GNU time prints "Command exited with non-zero status N" before its figures when the command fails.
    const line = (await fs.readFile(report, 'utf8')).trim().split('\n').at(-1) ?? '';
    const [user, system, maxRssKB] = line.split(' ').map(Number);
    if (Number.isFinite(user) && Number.isFinite(system)) cpuSeconds = round(user + system, 1);
    if (Number.isFinite(maxRssKB)) peakRssMB = Math.round(maxRssKB / 1024);
    await fs.rm(report, { force: true });
  }
  // GNU time reports a command killed by a signal as exit code 128 + N, and so does the shell.
  const exitCode = result.code;
  const stderr = result.stderr;
  // Progress lines ("pagediet: <pass>: ...") apart, stderr is what the build said.
  const all = stderr.trim().split('\n');
  const progress = all.filter((l) => PROGRESS_LINE.test(l));
  const lines = all.filter((l) => !progress.includes(l));
  const lastProgress = progress.at(-1) ?? null;
  const internal = !result.timedOut && (result.stalled || exitCode === 2 || (exitCode !== 0 && exitCode !== 1) || /internal error/i.test(stderr));
  let internalError = null;
  if (result.stalled) {
    internalError = `stalled: less than 1 s of CPU in ${STALL_MS / 60_000} minutes, stopped after ${round(wallSeconds, 0)} s; last progress: ${lastProgress ?? 'none'}`;
  } else if (internal) {
    const at = lines.findIndex((l) => /internal error|^\S*Error\b|^Error:/.test(l));
    internalError = (at >= 0 ? lines.slice(at, at + 12) : lines.slice(-12)).join('\n') || `exit code ${exitCode}${result.signal ? `, signal ${result.signal}` : ''}`;
  }
  return {
    run: { exitCode, signal: result.signal, timedOut: result.timedOut, stalled: result.stalled, wallSeconds: round(wallSeconds, 1), cpuSeconds, peakRssMB, internalError, lastProgress, stderrTail: lines.slice(-20).join('\n') },
    stdout: result.stdout,
  };
}

/**
 * Warnings grouped by code, most frequent first, with two examples each.
 * @param {Warning[]} warnings
 * @returns {Record<string, WarningGroup>}
 */
function groupWarnings(warnings) {
  /** @type {Map<string, WarningGroup>} */
  const groups = new Map();
  for (const w of warnings) {
    const g = groups.get(w.code) ?? { severity: w.severity, count: 0, examples: [] };
    g.count++;
    if (g.examples.length < 2) g.examples.push({ file: w.file, message: w.message.length > 300 ? `${w.message.slice(0, 300)}…` : w.message });
    groups.set(w.code, g);
  }
  return Object.fromEntries([...groups].sort((a, b) => b[1].count - a[1].count));
}

/** A decision that a change failed its proof, or could not be proven: the change was right to be refused, and something read or encoded wrongly. */
const PROOF_FAILED = /failed its pixel check|decoders disagree|not proven|ruled out|drew other pixels/;
/** Warnings of a proof that could not run. */
const PROOF_CODES = new Set(['job-failed', 'render-failed', 'layout-failed']);

/**
 * Changes a build refused because their proof failed or could not run, by pass, with up to five examples.
 * @param {{ warnings: Warning[], passes: { name: string, decisions?: { file: string, action: string, reason: string }[] }[] } | null} summary
 */
function proofFailures(summary) {
  /** @type {Record<string, number>} */
  const byPass = {};
  /** @type {string[]} */
  const examples = [];
  const count = (/** @type {string} */ pass, /** @type {string} */ example) => {
    byPass[pass] = (byPass[pass] ?? 0) + 1;
    if (examples.length < 5) examples.push(example.length > 240 ? `${example.slice(0, 240)}…` : example);
  };
  for (const pass of summary?.passes ?? []) {
    for (const d of pass.decisions ?? []) if (PROOF_FAILED.test(d.reason)) count(pass.name, `${pass.name} ${d.file}: ${d.reason}`);
  }
  for (const w of summary?.warnings ?? []) if (PROOF_CODES.has(w.code)) count(w.message.split(':')[0], `${w.code} ${w.file}: ${w.message}`);
  return { count: Object.values(byPass).reduce((a, b) => a + b, 0), byPass, examples };
}

/**
 * A page of a site, as a first visit and then as still as it can be made.
 * Now and then headless Chromium gives a page a 1x1 px window for a moment
 * as it loads (on the input as on the output, one visit in five on a busy
 * machine): a `resize` event at 1 px, which a page's script may answer (SB
 * Admin 2 collapses its sidebar under 480 px). Such a visit is made again,
 * at most twice.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @returns {Promise<Seen>}
 */
async function see(browser, url) {
  let seen = await seeOnce(browser, url);
  for (let again = 0; again < 2 && seen.shrunk; again++) seen = await seeOnce(browser, url);
  return seen;
}

/**
 * One visit of `see`.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @returns {Promise<Seen>}
 */
async function seeOnce(browser, url) {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  await context.addInitScript((width) => {
    addEventListener('resize', () => { if (innerWidth < width) /** @type {any} */ (window).__pagedietShrunk = true; });
  }, VIEWPORT.width);
  // A visit that has not ended in --stall minutes closes its context: every call still waiting on the page then fails.
  let stalled = false;
  const guard = STALL_MS > 0 ? setTimeout(() => { stalled = true; context.close().catch(() => {}); }, STALL_MS) : null;
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const origin = new URL(url).origin;
    /** @type {Map<string, string>} requestId → URL */
    const urls = new Map();
    /** @type {Set<string>} */
    const open = new Set();
    /** @type {Fetched} */
    const fetched = { bytes: 0, requests: 0, failed: 0 };
    let counting = true;
    /** @type {string[]} requests still open when a wait for the network ran out */
    const stuck = [];
    let lastEvent = performance.now();
    /** @type {Map<string, number>} requestId → when it was sent */
    const sent = new Map();
    cdp.on('Network.requestWillBeSent', (e) => {
      if (!urls.has(e.requestId)) open.add(e.requestId);
      if (!sent.has(e.requestId)) sent.set(e.requestId, performance.now());
      urls.set(e.requestId, e.request.url);
      lastEvent = performance.now();
    });
    cdp.on('Network.loadingFinished', (e) => {
      open.delete(e.requestId);
      lastEvent = performance.now();
      const u = urls.get(e.requestId) ?? '';
      if (counting && u.startsWith(origin)) {
        fetched.bytes += e.encodedDataLength;
        fetched.requests++;
      }
    });
    cdp.on('Network.loadingFailed', (e) => {
      open.delete(e.requestId);
      lastEvent = performance.now();
      if (counting) fetched.failed++;
    });
    // A request this session sees start but never end (a worker's script, fetched in the worker's own target)
    // stops counting as open after 10 s on the loopback: it is reported, and the wait goes on without it.
    const pending = () => [...open].filter((id) => performance.now() - (sent.get(id) ?? 0) < 10_000).length;
    /** Until no request is open and none has started or ended for `quiet` ms (at most `cap` ms). @param {number} quiet @param {number} cap */
    const networkIdle = async (quiet, cap) => {
      const until = performance.now() + cap;
      while (performance.now() < until && (pending() > 0 || performance.now() - lastEvent < quiet)) await new Promise((r) => setTimeout(r, 50));
      if (open.size > 0) stuck.push(...[...open].map((id) => (urls.get(id) ?? id).slice(0, 100)));
    };
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 }).catch(() => page.waitForLoadState('domcontentloaded').catch(() => {}));
    await networkIdle(500, 30_000);
    counting = false;

    // Still: no animation, every lazy image loaded, fonts ready, two frames drawn.
    for (const frame of page.frames()) {
      await frame.addStyleTag({ content: STILL_CSS }).catch(() => {});
      await frame.evaluate(() => {
        // jQuery's animations (a scroll-to-top button's fadeIn) run on timers CSS cannot stop: they end at once.
        const jquery = /** @type {any} */ (window).jQuery;
        if (jquery?.fx) jquery.fx.off = true;
        for (const img of document.images) if (img.loading === 'lazy') img.loading = 'eager';
        for (const f of document.querySelectorAll('iframe[loading="lazy"]')) /** @type {HTMLIFrameElement} */ (f).loading = 'eager';
      }).catch(() => {});
    }
    await page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
      for (let y = 0, steps = 0; y < document.documentElement.scrollHeight && steps < 200; y += innerHeight, steps++) {
        scrollTo(0, y);
        await frame();
      }
      scrollTo(0, 0);
      await frame();
    }).catch(() => {});
    await networkIdle(300, 20_000);
    for (const frame of page.frames()) {
      await frame.waitForFunction(() => [...document.images].every((i) => i.complete), null, { timeout: 15_000 }).catch(() => {});
      await frame.evaluate(async () => {
        await document.fonts.ready;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
      }).catch(() => {});
    }

    /** @type {Box[]} */
    const boxes = [];
    for (const frame of page.frames()) {
      const found = await frame.evaluate((undrawn) => {
        const q = (/** @type {number} */ v) => Math.round(v * 64) / 64;
        /** @type {[string, number, number, number, number][]} */
        const out = [];
        const body = document.body;
        if (!body) return out;
        for (const el of [body, ...body.querySelectorAll('*')]) {
          if (undrawn.includes(el.localName)) continue;
          const r = el.getBoundingClientRect();
          out.push([el.localName, q(r.x + scrollX), q(r.y + scrollY), q(r.width), q(r.height)]);
        }
        return out;
      }, UNDRAWN).catch(() => []);
      boxes.push(['#frame', 0, 0, 0, 0], ...found);
    }
    const size = await page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0) }));
    const truncated = size.height > MAX_HEIGHT;
    const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', timeout: 120_000, ...(truncated && { clip: { x: 0, y: 0, width: size.width, height: MAX_HEIGHT } }) });
    if (stalled) throw new Error('closed');
    const shrunk = await page.evaluate(() => Boolean(/** @type {any} */ (window).__pagedietShrunk)).catch(() => false);
    return { fetched, boxes, width: size.width, height: size.height, truncated, png, stuck, shrunk };
  } catch (error) {
    if (stalled) throw new Error(`stalled: the visit had not ended after ${STALL_MS / 60_000} minutes`);
    throw error;
  } finally {
    if (guard) clearTimeout(guard);
    await context.close();
  }
}

/**
 * Pixels that differ between two screenshots (over the larger of the two:
 * what one has and the other lacks differs), and a diff image when any do.
 * @param {Buffer} a @param {Buffer} b
 */
async function pixelDiff(a, b) {
  const [x, y] = await Promise.all([a, b].map((png) => sharp(png, { limitInputPixels: false }).ensureAlpha().raw().toBuffer({ resolveWithObject: true })));
  const width = Math.max(x.info.width, y.info.width);
  const height = Math.max(x.info.height, y.info.height);
  const diff = Buffer.alloc(width * height * 4);
  let pixels = 0;
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const o = (row * width + col) * 4;
      const inX = row < x.info.height && col < x.info.width;
      const inY = row < y.info.height && col < y.info.width;
      const ox = (row * x.info.width + col) * 4;
      const oy = (row * y.info.width + col) * 4;
      const same = inX && inY && x.data[ox] === y.data[oy] && x.data[ox + 1] === y.data[oy + 1] && x.data[ox + 2] === y.data[oy + 2] && x.data[ox + 3] === y.data[oy + 3];
      if (same) {
        // The page, faded, so the differences stand out.
        const grey = Math.round(200 + (x.data[ox] + x.data[ox + 1] + x.data[ox + 2]) / 3 / 255 * 55);
        diff[o] = grey; diff[o + 1] = grey; diff[o + 2] = grey; diff[o + 3] = 255;
      } else {
        pixels++;
        diff[o] = 255; diff[o + 1] = 0; diff[o + 2] = 0; diff[o + 3] = 255;
      }
    }
  }
  return { pixels, diff: pixels ? await sharp(diff, { raw: { width, height, channels: 4 }, limitInputPixels: false }).png().toBuffer() : null };
}

/**
 * Whether the boxes of the body's elements moved.
 * @param {Box[]} a @param {Box[]} b
 * @returns {LayoutChange}
 */
function layoutChange(a, b) {
  const same = (/** @type {Box} */ p, /** @type {Box} */ q) => p[1] === q[1] && p[2] === q[2] && p[3] === q[3] && p[4] === q[4];
  const describe = (/** @type {Box} */ p) => `${p[0]} ${p[3]}x${p[4]} at ${p[1]},${p[2]}`;
  const count = (/** @type {Box[]} */ boxes) => boxes.filter((box) => box[0] !== '#frame').length;
  let moved = 0;
  /** @type {string | null} */
  let first = null;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (same(a[i], b[i])) continue;
    moved++;
    first ??= `element ${i}: ${describe(a[i])} → ${describe(b[i])}`;
  }
  if (a.length !== b.length) first ??= `element ${n}: ${a[n] ? describe(a[n]) : 'none'} → ${b[n] ? describe(b[n]) : 'none'}`;
  return { changed: moved > 0 || a.length !== b.length, elements: [count(a), count(b)], moved, first };
}

/**
 * Serves a folder on 127.0.0.1 as the report does (sidecars, else gzip on the fly).
 * @param {string} root
 */
const serve = (root) => startServer({ root, compressOnTheFly: 'gzip', snapshot: true, maxRequestsPerSecond: 1_000_000 });

/**
 * A page's name as a file name.
 * @param {string} page
 */
const slug = (page) => decodeURIComponent(page).replace(/^\//, '').replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 120) || 'index';

/**
 * Visits the sampled pages of the input and the output, compares them.
 * @param {string} site
 * @param {string} input
 * @param {string} output
 * @param {string[]} pages URL paths
 * @returns {Promise<PageResult[]>}
 */
async function comparePages(site, input, output, pages) {
  const [before, after] = await Promise.all([serve(input), serve(output)]);
  // Every other host unreachable at once: external fonts and scripts fail alike on both sides. Animated
  // images hold their first frame (Blink's imageAnimationPolicy 2, "no animation"), so an animated GIF and
  // its APNG or WebP are drawn alike whenever the screenshot is taken; the switch repeats the blink settings
  // playwright-core passes, since Chromium takes the last --blink-settings.
  const { browser } = await launchBrowser({ args: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4,imageAnimationPolicy=2'] });
  /** @type {PageResult[]} */
  const results = [];
  try {
    for (const page of pages) {
      /** @type {PageResult} */
      const result = { page, before: null, after: null, size: '', pixels: null, layout: null, shots: null, error: null };
      results.push(result);
      try {
        const t0 = performance.now();
        const a = await see(browser, before.url + page);
        const b = await see(browser, after.url + page);
        const stuck = [...new Set([...a.stuck, ...b.stuck])];
        if (stuck.length) console.log(`  ${page}: requests still open after the waits: ${stuck.slice(0, 4).join(', ')}`);
        result.seconds = round((performance.now() - t0) / 1000, 1);
        result.before = a.fetched;
        result.after = b.fetched;
        result.size = `${a.width}x${a.height}${a.truncated ? ' (cut)' : ''}${a.width !== b.width || a.height !== b.height ? ` → ${b.width}x${b.height}` : ''}`;
        result.layout = layoutChange(a.boxes, b.boxes);
        const { pixels, diff } = await pixelDiff(a.png, b.png);
        result.pixels = pixels;
        if (diff) {
          // The control: the input against itself. A page that differs from itself (a script's timers, a canvas
          // drawn as it animates) says nothing about pagediet by differing from the output too.
          result.unsteady = (await pixelDiff(a.png, (await see(browser, before.url + page)).png)).pixels;
          const dir = path.join(SHOTS, site);
          await fs.mkdir(dir, { recursive: true });
          const base = path.join(dir, slug(page));
          await fs.writeFile(`${base}.before.png`, a.png);
          await fs.writeFile(`${base}.after.png`, b.png);
          await fs.writeFile(`${base}.diff.png`, diff);
          result.shots = base;
        }
        console.log(`  ${page} (${result.seconds} s): ${kB(a.fetched.bytes)} ${a.fetched.requests} req → ${kB(b.fetched.bytes)} ${b.fetched.requests} req; ${pixels} px differ${result.unsteady ? ` (the input against itself: ${result.unsteady} px)` : ''}${result.layout.changed ? `; layout changed (${result.layout.moved} boxes moved, elements ${result.layout.elements.join(' → ')}; ${result.layout.first})` : ''}`);
      } catch (error) {
        result.error = /** @type {Error} */ (error).message.split('\n')[0];
        console.log(`  ${page}: visit failed: ${result.error}`);
      }
    }
  } finally {
    await browser.close();
    await Promise.all([before.close(), after.close()]);
  }
  return results;
}

/** @param {string} file */
async function readSources(file) {
  try {
    return /** @type {Record<string, Source>} */ (JSON.parse(await fs.readFile(file, 'utf8')));
  } catch {
    return {};
  }
}

const brotliMs = brotliFigureMs();
const machine = `node ${process.versions.node}, ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${BROTLI_FIGURE_TEXT}: ${brotliMs} ms`;
console.log(`pagediet on a corpus of ${dirs.length} sites: ${machine}, load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}`);
const sourcesFile = opts.sources ? path.resolve(opts.sources) : path.join(path.dirname(dirs[0]), 'sources.json');
const sources = await readSources(sourcesFile);
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'pagediet-bench-corpus-'));
const started = performance.now();

/** @type {Record<string, unknown>[]} */
const results = [];
/** @type {string[]} */
const rows = [];
for (const dir of dirs) {
  const site = path.basename(dir);
  const source = sources[site] ?? {};
  const all = await sitePages(dir);
  // A site deployed under a path (a project's GitHub Pages) is kept in a folder of that name: its index first.
  const home = all.filter((p) => /\/index\.html?$/.test(p)).sort((a, b) => a.split('/').length - b.split('/').length)[0];
  const pages = opts.pages ? opts.pages.split(',') : samplePages(home ? [home, ...all.filter((p) => p !== home)] : all, SAMPLE);
  console.log(`\n${site}: ${all.length} pages${source.kind ? `, ${source.kind}` : ''}${source.repository ? `, ${source.repository}@${(source.commit ?? '').slice(0, 8)}` : ''}`);
  const out = path.join(work, site);
  const { run, stdout } = await build(dir, out);
  console.log(`  build: exit ${run.exitCode}${run.timedOut ? ' (timed out)' : ''}${run.stalled ? ' (stalled)' : ''}, ${run.wallSeconds} s wall, ${run.cpuSeconds ?? '?'} s CPU, ${run.peakRssMB ?? '?'} MB peak`);
  if (run.exitCode !== 0) console.log(`  last progress: ${run.lastProgress ?? 'none'}`);
  if (run.internalError) console.log(`  INTERNAL ERROR:\n${run.internalError.replace(/^/gm, '    ')}`);
  /** @type {{ warnings: Warning[], passes: { name: string, ms: number, decisions?: { file: string, action: string, reason: string }[] }[], totals: Record<string, number> } | null} */
  let summary = null;
  try {
    summary = JSON.parse(stdout);
  } catch {
    if (run.exitCode === 0) console.log('  the build printed no JSON summary');
  }
  const warnings = groupWarnings(summary?.warnings ?? []);
  for (const [code, g] of Object.entries(warnings)) console.log(`  ${g.severity} ${code}: ${g.count} (e.g. ${g.examples[0].file}: ${g.examples[0].message})`);
  const passMs = Object.fromEntries((summary?.passes ?? []).map((p) => [p.name, p.ms]));
  const proofs = proofFailures(summary);
  for (const example of proofs.examples) console.log(`  proof failure: ${example}`);
  /** @type {PageResult[]} */
  let visited = [];
  if (run.exitCode === 0 && existsSync(out)) visited = await comparePages(site, dir, out, pages);
  const ok = visited.filter((v) => v.before && v.after);
  const sum = (/** @type {'before' | 'after'} */ side, /** @type {'bytes' | 'requests' | 'failed'} */ key) => ok.reduce((n, v) => n + (v[side]?.[key] ?? 0), 0);
  const differing = visited.filter((v) => (v.pixels ?? 0) > 0);
  const moved = visited.filter((v) => v.layout?.changed);
  const result = {
    site, dir, source, pages: all.length, sampled: pages, build: run, totals: summary?.totals ?? null, passMs, warnings, proofFailures: proofs,
    firstVisit: { before: { bytes: sum('before', 'bytes'), requests: sum('before', 'requests'), failed: sum('before', 'failed') }, after: { bytes: sum('after', 'bytes'), requests: sum('after', 'requests'), failed: sum('after', 'failed') } },
    visited,
  };
  results.push(result);

  const topWarnings = Object.entries(warnings).filter(([, g]) => g.severity !== 'info').slice(0, 4).map(([code, g]) => `${code} ${g.count}`).join(', ') || 'none';
  const info = Object.values(warnings).filter((g) => g.severity === 'info').reduce((n, g) => n + g.count, 0);
  const failedVisits = visited.filter((v) => v.error).length;
  const name = `${site}${source.kind ? ` (${source.kind}` : ' ('}${source.repository ? `, ${source.repository}@${(source.commit ?? '').slice(0, 7)}` : ''})`;
  rows.push(`| ${name} | ${all.length.toLocaleString('en-US')} | ${run.timedOut ? `> ${run.wallSeconds}` : run.wallSeconds} s (${run.cpuSeconds ?? '?'} s CPU) | ${ok.length ? `${kB(result.firstVisit.before.bytes)} → ${kB(result.firstVisit.after.bytes)}` : '–'} | ${ok.length ? `${result.firstVisit.before.requests} → ${result.firstVisit.after.requests}` : '–'} | ${topWarnings}${info ? `; info ${info}` : ''} | ${run.internalError ? `**1**: ${run.internalError.split('\n')[0].slice(0, 160)}` : run.exitCode === 0 ? '0' : `exit ${run.exitCode}`} | ${proofs.count ? `${proofs.count} (${Object.entries(proofs.byPass).map(([pass, n]) => `${pass} ${n}`).join(', ')})` : '0'} | ${differing.length ? differing.map((v) => `${decodeURIComponent(v.page)} (${v.pixels} px${v.unsteady ? `; the input against itself: ${v.unsteady}` : ''})`).join(', ') : visited.length ? 'none' : '–'}${failedVisits ? `; ${failedVisits} visits failed` : ''} | ${moved.length ? moved.map((v) => decodeURIComponent(v.page)).join(', ') : visited.length ? 'none' : '–'} |`);
  console.log(`  first visit of ${ok.length} pages: ${kB(result.firstVisit.before.bytes)}, ${result.firstVisit.before.requests} requests → ${kB(result.firstVisit.after.bytes)}, ${result.firstVisit.after.requests} requests; ${differing.length} screenshots differ, ${moved.length} layouts changed`);
  if (!KEEP) await fs.rm(out, { recursive: true, force: true });
  else console.log(`  output kept in ${out}`);
  await fs.writeFile(JSON_OUT, `${JSON.stringify({ date: new Date().toISOString(), machine, brotliMs, buildFlags: BUILD_FLAGS, sites: results }, null, 2)}\n`);
}

const header = ['| site (kind, repository@commit) | pages | build (wall, CPU) | first-visit bytes, sampled pages: before → after | requests: before → after | warnings by code (top 4; info messages) | internal errors | proof failures | pages whose screenshot differs (pixels) | pages whose layout changed |', '| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | --- | --- |'];
const table = [...header, ...rows].join('\n');
console.log(`\n${table}\n`);
const seconds = round((performance.now() - started) / 1000, 0);
console.log(`whole benchmark: ${seconds} s; figures in ${JSON_OUT}; differing screenshots under ${SHOTS}`);
if (!KEEP) await fs.rm(work, { recursive: true, force: true });
const flags = BUILD_FLAGS.length ? ` Build flags besides the defaults: \`${BUILD_FLAGS.join(' ')}\`.` : '';
await recordMeasurement('corpus.md', `${dirs.length} public sites${BUILD_FLAGS.length ? ` (${BUILD_FLAGS.join(' ')})` : ''}`, `Machine: ${machine}. Sample: ${opts.pages ? opts.pages : `index.html and up to ${SAMPLE - 1} pages spread over each site`}; first visit at 1280x800, cache disabled, other hosts unreachable.${flags} The whole benchmark: ${seconds} s.\n\n${table}`);
