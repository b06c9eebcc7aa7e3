// Helpers the benchmarks share.
import { execFileSync } from 'node:child_process';

/**
 * Whether a command is on the PATH.
 * @param {string} command
 */
export function has(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs jobs two at a time (this machine has two cores), results in order.
 * @template T
 * @param {(() => Promise<T>)[]} jobs
 * @returns {Promise<T[]>}
 */
export async function twoAtATime(jobs) {
  /** @type {T[]} */
  const results = [];
  let next = 0;
  await Promise.all([0, 1].map(async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  }));
  return results;
}
