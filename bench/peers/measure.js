// Wall time, CPU time and peak memory of a command run as a child process,
// read from GNU time (`/usr/bin/time`, Debian package `time`): its figures
// come from wait4(), so the CPU time includes every process the command
// started and waited for (Chromium's, zopflipng's), and the peak memory is
// the largest resident set of any one process in that tree, not their sum.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export const GNU_TIME = '/usr/bin/time';

/**
 * @typedef {object} Usage
 * @property {number} wallSeconds measured here, from spawn to exit
 * @property {number | null} cpuSeconds user + system, the command and its waited-for children (null without GNU time)
 * @property {number | null} peakRssMB largest resident set of one process (null without GNU time)
 *
 * @typedef {Usage & { stdout: string, stderr: string }} Measured
 */

/**
 * Runs a command to completion and measures it; throws when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<Measured>}
 */
export async function measure(command, args, options = {}) {
  const timed = existsSync(GNU_TIME);
  const report = path.join(os.tmpdir(), `pagediet-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const argv = timed ? ['-f', '%U %S %M', '-o', report, command, ...args] : args;
  const t0 = performance.now();
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const child = spawn(timed ? GNU_TIME : command, argv, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
  const wallSeconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  if (!timed) return { wallSeconds, cpuSeconds: null, peakRssMB: null, stdout, stderr };
  // GNU time may print a status line before its format line: the figures are the last line.
  const line = (await fs.readFile(report, 'utf8')).trim().split('\n').at(-1) ?? '';
  await fs.rm(report, { force: true });
  const [user, system, maxRssKB] = line.split(' ').map(Number);
  return { wallSeconds, cpuSeconds: user + system, peakRssMB: maxRssKB / 1024, stdout, stderr };
}
