// forEachOrdered (src/util/ordered.js): bounded work in flight, effects in order.
import { describe, expect, it } from 'vitest';
import { forEachOrdered } from '../src/util/ordered.js';

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

  it('does nothing for no items', async () => {
    let calls = 0;
    await forEachOrdered([], async () => { calls++; }, () => { calls++; });
    expect(calls).toBe(0);
  });
});
