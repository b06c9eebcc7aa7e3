/**
 * Work on many files with a bounded number in flight, its effects in order.
 * A pass that read every page, started every job and then wrote every result
 * would hold the whole site in memory at once (two copies of each page, and
 * each page's compressed sidecars); here at most `window` items are between
 * being started and being consumed, and `consume` sees them in input order,
 * so decisions, writes and warnings come out as a sequential loop makes them.
 */

/** Items in flight by default: enough to keep a worker pool of a few threads busy. */
export const DEFAULT_WINDOW = 32;

/**
 * @template T, R
 * @param {T[]} items
 * @param {(item: T, index: number) => Promise<R>} produce runs with up to `window` others
 * @param {(result: R, item: T, index: number) => Promise<void> | void} consume runs one at a time, in input order
 * @param {number} [window]
 * @param {(item: T) => number} [cost] where every item fits in the window, they are started costliest first (a
 *   pool that takes jobs in the order they come then ends with short ones, not with one long job on one thread);
 *   they are consumed in input order all the same
 */
export async function forEachOrdered(items, produce, consume, window = DEFAULT_WINDOW, cost) {
  /** @type {Promise<R>[]} */
  const running = [];
  const start = (/** @type {number} */ i) => {
    const promise = produce(items[i], i);
    // Consumed in order later; a rejection before then is not unhandled.
    promise.catch(() => {});
    running[i] = promise;
  };
  const first = [...Array(Math.min(window, items.length)).keys()];
  if (cost && items.length <= window) {
    const costs = items.map(cost);
    first.sort((a, b) => costs[b] - costs[a] || a - b);
  }
  for (const i of first) start(i);
  for (let i = 0; i < items.length; i++) {
    const result = await running[i];
    delete running[i];
    await consume(result, items[i], i);
    if (i + window < items.length) start(i + window);
  }
}

/**
 * A gate that lets `size` tasks run at once, the others waiting their turn in
 * the order they came: for work started all together whose results are held
 * while it runs (text-images' fits hold their drawn pictures between renders),
 * and the worker pool's one job per thread.
 * @param {number} size
 * @returns {<R>(task: () => Promise<R>) => Promise<R>}
 */
export function limiter(size) {
  let running = 0;
  /** @type {(() => void)[]} */
  const waiting = [];
  return async (task) => {
    if (running >= size) await new Promise((resolve) => waiting.push(() => resolve(undefined)));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      // The place passes to the next task: running stays the same.
      if (next) next();
      else running--;
    }
  };
}
