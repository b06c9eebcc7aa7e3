// The memory of a whole process tree, sampled from /proc (Linux): the
// proportional set size (PSS) of a process and all its descendants, summed.
// PSS splits each shared page between the processes that map it, so the sum
// counts Chromium's shared libraries and shared memory once, where summing
// resident sets would count them once per process; and it covers every
// process, where GNU time's peak is the largest resident set of one.
// A process that starts and ends between two samples is not seen, and the
// peak may fall between samples: the figure is a lower bound of the true peak.
import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/** Chromium's, Chrome's and Edge's processes, by their comm. */
const BROWSER = /chrom|headless_shell|msedge/i;
/** The build runs on this node (bench/peers/measure.js spawns process.execPath); comm keeps 15 bytes. */
const NODE_COMM = path.basename(process.execPath).slice(0, 15);

/**
 * @typedef {'pagediet' | 'browser' | 'other'} Kind
 *
 * @typedef {object} ProcessMemory
 * @property {number} pid
 * @property {string} name its comm, with Chromium's `--type=` (renderer, gpu-process, ...) when it has one
 * @property {Kind} kind pagediet's node processes, the browser's, or anything else (GNU time, encoders)
 * @property {number} pssKb
 *
 * @typedef {object} Sample
 * @property {number} ms since sampling started
 * @property {number} totalKb PSS of the tree, summed
 * @property {number} processes how many were read
 * @property {Record<Kind, number>} byKindKb the total split by kind
 *
 * @typedef {object} TreeMemory
 * @property {number} peakKb the largest summed PSS of all samples (0 when no sample found a process)
 * @property {number} peakMs when it was sampled, since sampling started
 * @property {ProcessMemory[]} atPeak the processes of that sample, largest first
 * @property {Record<Kind, number>} byKindKb the peak split by kind
 * @property {Sample[]} samples
 */

/**
 * Starts sampling the tree rooted at `pid` now, every `intervalMs` after,
 * and once more on stop().
 * @param {number} pid
 * @param {{ intervalMs?: number, includeRoot?: boolean }} [options]
 *   includeRoot false: the descendants only (the root is the one measuring)
 * @returns {{ stop(): Promise<TreeMemory> }}
 */
export function sampleTree(pid, { intervalMs = 2000, includeRoot = true } = {}) {
  const t0 = performance.now();
  /** @type {Sample[]} */
  const samples = [];
  /** @type {{ totalKb: number, ms: number, processes: ProcessMemory[] }} */
  let peak = { totalKb: 0, ms: 0, processes: [] };
  let stopped = false;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;

  const once = async () => {
    const ms = Math.round(performance.now() - t0);
    const found = await descendants(pid);
    if (includeRoot) found.unshift({ pid, detached: false });
    const processes = (await Promise.all(found.map((p) => readProcess(p.pid, p.detached)))).filter((p) => p !== null);
    const totalKb = processes.reduce((sum, p) => sum + p.pssKb, 0);
    samples.push({ ms, totalKb, processes: processes.length, byKindKb: byKind(processes) });
    if (totalKb > peak.totalKb) peak = { totalKb, ms, processes };
  };
  // Each sample waits for the one before (reading Chromium's smaps can take a while).
  /** @type {Promise<void>} */
  let current = once();
  const next = () => {
    timer = setTimeout(() => {
      current = once().then(() => { if (!stopped) next(); });
    }, intervalMs);
    // The sampler alone does not keep the benchmark alive (a failed build ends it).
    timer.unref();
  };
  current.then(() => { if (!stopped) next(); });

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
      await once();
      return { peakKb: peak.totalKb, peakMs: peak.ms, atPeak: [...peak.processes].sort((a, b) => b.pssKb - a.pssKb), byKindKb: byKind(peak.processes), samples };
    },
  };
}

/**
 * PSS summed by kind.
 * @param {ProcessMemory[]} processes
 */
function byKind(processes) {
  /** @type {Record<Kind, number>} */
  const sums = { pagediet: 0, browser: 0, other: 0 };
  for (const p of processes) sums[p.kind] += p.pssKb;
  return sums;
}

/**
 * Every living descendant of `root`, from the parent pids in /proc/<pid>/stat
 * (/proc/<pid>/task/<tid>/children needs CONFIG_PROC_CHILDREN, which not
 * every kernel has); and Chromium's crash handlers, which leave the tree
 * (crashpad starts them by a double fork into a session of their own, so
 * their parent is init): a handler is counted when it started within a
 * second after a Chromium process of the tree. A Chromium started elsewhere
 * in that second could lend its handlers (about 1.6 MB of PSS each).
 * @param {number} root
 * @returns {Promise<{ pid: number, detached: boolean }[]>}
 */
export async function descendants(root) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  /** @type {{ pid: number, ppid: number, comm: string, start: number }[]} */
  const all = [];
  const entries = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  await Promise.all(entries.map(async (name) => {
    const stat = await fs.readFile(`/proc/${name}/stat`, 'utf8').catch(() => null);
    if (stat === null) return; // ended since the listing
    // `pid (comm) state ppid ... starttime (22nd)`: comm may hold spaces and parentheses, so split after the last one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const entry = { pid: Number(name), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), start: Number(fields[19]) };
    all.push(entry);
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }));
  /** @type {Set<number>} */
  const tree = new Set();
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      tree.add(child);
      queue.push(child);
    }
  }
  // Start times are in clock ticks: USER_HZ, 100 a second on Linux.
  const browserStarts = all.filter((p) => tree.has(p.pid) && BROWSER.test(p.comm)).map((p) => p.start);
  const detached = all.filter((p) => !tree.has(p.pid) && p.pid !== root && /crashpad/.test(p.comm) && browserStarts.some((s) => p.start >= s && p.start - s <= 100));
  return [...[...tree].map((pid) => ({ pid, detached: false })), ...detached.map((p) => ({ pid: p.pid, detached: true }))];
}

/**
 * A process's PSS, name and kind; null when it ended or cannot be read.
 * @param {number} pid
 * @param {boolean} detached a crash handler found outside the tree
 * @returns {Promise<ProcessMemory | null>}
 */
async function readProcess(pid, detached) {
  try {
    const [rollup, comm, cmdline] = await Promise.all([
      fs.readFile(`/proc/${pid}/smaps_rollup`, 'utf8'),
      fs.readFile(`/proc/${pid}/comm`, 'utf8').then((c) => c.trim()),
      fs.readFile(`/proc/${pid}/cmdline`, 'utf8'),
    ]);
    const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
    // A zombie, or a kernel thread, has an empty rollup: nothing to count.
    if (!pss) return null;
    // Chromium rewrites its command line into one string with spaces, so no split on NULs.
    const type = /(?:^|[\0 ])--type=([\w-]+)/.exec(cmdline)?.[1];
    const name = comm + (type ? ` (${type})` : '') + (detached ? ' (detached)' : '');
    /** @type {Kind} */
    const kind = BROWSER.test(comm) ? 'browser'
      // GNU time's command line names pagediet too: only node's processes are pagediet's.
      : comm === NODE_COMM && /(?:^|[\0 /])bin\/pagediet\.js(?:\0|$)/.test(cmdline) ? 'pagediet'
        : 'other';
    return { pid, name, kind, pssKb: Number(pss[1]) };
  } catch {
    return null;
  }
}
