/**
 * A machine with every core busy: threads that spin, twice as many as the
 * cores, for as long as a function runs. Builds made this way must write
 * what a quiet build writes (docs/reliability.md, determinism).
 *
 *   const summary = await whileBusy(() => build({ ... }));
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** Spinning threads per core. */
export const BUSY_PER_CORE = 2;

/**
 * Runs FN while BUSY_PER_CORE threads per core spin, and stops them after.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function whileBusy(fn) {
  const spinners = Array.from({ length: BUSY_PER_CORE * os.availableParallelism() }, () => new Worker('for (;;) {}', { eval: true }));
  // Each thread has started spinning before the work starts.
  await Promise.all(spinners.map((worker) => new Promise((resolve) => worker.once('online', resolve))));
  try {
    return await fn();
  } finally {
    await Promise.all(spinners.map((worker) => worker.terminate()));
  }
}
