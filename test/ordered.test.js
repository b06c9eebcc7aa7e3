// forEachOrdered and limiter (src/util/ordered.js): bounded work in flight, effects in order.
import { describe, expect, it } from 'vitest';
import { forEachOrdered, limiter } from '../src/util/ordered.js';

describe('forEachOrdered', () => {
  it('keeps at most `window` items between started and consumed, and consumes them in input order', async () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    let open = 0;
    let most = 0;
    const consumed = [];
    // Later items finish first: consume still sees input order.
    await forEachOrdered(items, async (item) => {
      open++;
      most = Math.max(most, open);
      await new Promise((resolve) => setTimeout(resolve, (50 - item) % 7));
      return item * 2;
    }, (result, item, index) => {
      open--;
      consumed.push([result, item, index]);
    }, 4);
    expect(most).toBe(4);
    expect(consumed).toEqual(items.map((i) => [i * 2, i, i]));
  });

  it('rejects with the first failure in input order, and leaves no unhandled rejection', async () => {
    const consumed = [];
    await expect(forEachOrdered([0, 1, 2, 3], async (item) => {
      if (item === 1 || item === 3) throw new Error(`item ${item}`);
      return item;
    }, (result) => { consumed.push(result); }, 4)).rejects.toThrow('item 1');
    expect(consumed).toEqual([0]);
  });

  it('starts the costliest first where every item fits in the window (ties in input order), and consumes in input order', async () => {
    const sizes = [3, 90, 7, 90, 40];
    const started = [];
    const consumed = [];
    await forEachOrdered(sizes, async (size, i) => { started.push(i); return size; }, (result, item, i) => { consumed.push(i); }, 8, (size) => size);
    expect(started).toEqual([1, 3, 4, 2, 0]);
    expect(consumed).toEqual([0, 1, 2, 3, 4]);
    // More items than the window: input order, as without a cost.
    started.length = 0;
    await forEachOrdered(sizes, async (size, i) => { started.push(i); return size; }, () => {}, 2, (size) => size);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('does nothing for no items', async () => {
    let calls = 0;
    await forEachOrdered([], async () => { calls++; }, () => { calls++; });
    expect(calls).toBe(0);
  });
});

describe('limiter', () => {
  it('runs at most its size of tasks at once, the others in the order they came, and passes results and errors through', async () => {
    const gate = limiter(2);
    let running = 0;
    let most = 0;
    /** @type {number[]} */
    const started = [];
    const task = (/** @type {number} */ i) => gate(async () => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5 + (i % 3) * 5));
      running--;
      if (i === 4) throw new Error('task 4');
      return i * 10;
    });
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5, 6].map(task));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual([0, 10, 20, 30, 'Error: task 4', 50, 60]);
    // The gate is free again after a failure: two more run side by side.
    running = 0;
    most = 0;
    await Promise.all([7, 8].map(task));
    expect(most).toBe(2);
  });
});
