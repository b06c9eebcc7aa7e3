import { describe, expect, it } from 'vitest';
import { Rng } from '../scripts/fixtures/random.js';
import { inkBox, inkSimilarity } from '../src/text-images/pixels.js';

/** @typedef {import('../src/text-images/pixels.js').Coverage} Coverage */

/** The fuzz's seed, printed so that a failure can be run again. */
const SEED = 20261127;

/** @param {number} seed numbers in [0, 1), the same on every machine (the fixtures' mulberry32) */
function random(seed) {
  const rng = new Rng(seed);
  return () => rng.next();
}

/**
 * The definition, over every pixel of a in row order, b shifted by (dx, dy)
 * and 0 where it has no pixel; b's ink that falls outside a counted as
 * difference: what inkSimilarity must equal to the last bit.
 * @param {Coverage} a @param {Coverage} b @param {number} dx @param {number} dy
 */
function reference(a, b, dx, dy) {
  let diff = 0;
  let total = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      const va = a.data[y * a.width + x];
      const bx = x - dx;
      const by = y - dy;
      const vb = bx >= 0 && by >= 0 && bx < b.width && by < b.height ? b.data[by * b.width + bx] : 0;
      diff += Math.abs(va - vb);
      total += va + vb;
    }
  }
  let bAll = 0;
  let bInside = 0;
  for (let y = 0; y < b.height; y++) {
    for (let x = 0; x < b.width; x++) {
      const v = b.data[y * b.width + x];
      bAll += v;
      if (x + dx >= 0 && y + dy >= 0 && x + dx < a.width && y + dy < a.height) bInside += v;
    }
  }
  diff += bAll - bInside;
  total += bAll - bInside;
  return total === 0 ? 1 : 1 - diff / total;
}

/**
 * A coverage with ink in a random rectangle (sometimes none): zeros around, values 0-1 inside, some 0.
 * @param {() => number} next @param {number} width @param {number} height
 */
function coverage(next, width, height) {
  const data = new Float32Array(width * height);
  if (next() < 0.1) return { width, height, data };
  const left = Math.floor(next() * width);
  const top = Math.floor(next() * height);
  const right = left + 1 + Math.floor(next() * (width - left));
  const bottom = top + 1 + Math.floor(next() * (height - top));
  for (let y = top; y < bottom; y++) for (let x = left; x < right; x++) if (next() < 0.7) data[y * width + x] = Math.round(next() * 255) / 255;
  return { width, height, data };
}

describe('ink box', () => {
  it(`is the box of every pixel above the threshold, or null (fuzz, seed ${SEED})`, () => {
    const next = random(SEED + 1);
    let empty = 0;
    for (let i = 0; i < 500; i++) {
      const c = coverage(next, 1 + Math.floor(next() * 30), 1 + Math.floor(next() * 15));
      const threshold = [0, 0.25, 0.5][i % 3];
      let box = null;
      for (let y = 0; y < c.height; y++) {
        for (let x = 0; x < c.width; x++) {
          if (c.data[y * c.width + x] <= threshold) continue;
          box = box ? { left: Math.min(box.left, x), top: Math.min(box.top, y), right: Math.max(box.right, x + 1), bottom: y + 1 } : { left: x, top: y, right: x + 1, bottom: y + 1 };
        }
      }
      expect(inkBox(c, threshold), `case ${i}`).toEqual(box);
      if (!box) empty++;
    }
    expect(empty).toBeGreaterThan(20);
    expect(empty).toBeLessThan(250);
  });
});

describe('ink similarity', () => {
  it(`equals its definition to the last bit, at every offset (fuzz, seed ${SEED})`, () => {
    console.log(`ink similarity fuzz: seed ${SEED}`);
    const next = random(SEED);
    let compared = 0;
    let partial = 0;
    for (let i = 0; i < 400; i++) {
      const a = coverage(next, 1 + Math.floor(next() * 40), 1 + Math.floor(next() * 20));
      // Half the time b is a drawn like another render of it: the same ink, a few pixels changed.
      const b = next() < 0.5 ? coverage(next, 1 + Math.floor(next() * 40), 1 + Math.floor(next() * 20)) : { ...a, data: a.data.map((v) => (next() < 0.2 ? Math.round(next() * 255) / 255 : v)) };
      for (let k = 0; k < 6; k++) {
        // Mostly near offsets (as the fits try), some far ones (b partly or wholly outside a).
        const reach = k < 4 ? 3 : 30;
        const dx = Math.floor(next() * (2 * reach + 1)) - reach;
        const dy = Math.floor(next() * (reach + 1)) - Math.floor(reach / 2);
        const got = inkSimilarity(a, b, dx, dy);
        expect(got, `case ${i}, offset ${dx},${dy}`).toBe(reference(a, b, dx, dy));
        compared++;
        if (got > 0 && got < 1) partial++;
      }
    }
    expect(compared).toBe(2400);
    // A fifth of the cases at least overlap in part (the measure neither 0 nor 1): the sums are exercised, not only the ends.
    expect(partial).toBeGreaterThan(400);
  });

  it('is 1 for a picture against itself, 0 for ink that does not meet, and counts ink moved out of the picture', () => {
    const dot = { width: 3, height: 1, data: new Float32Array([0, 1, 0]) };
    expect(inkSimilarity(dot, dot)).toBe(1);
    expect(inkSimilarity(dot, dot, 1, 0)).toBe(0);
    // Moved out of a entirely: all of b's ink is difference.
    expect(inkSimilarity(dot, dot, 5, 0)).toBe(0);
    const half = { width: 2, height: 1, data: new Float32Array([1, 0.5]) };
    // |1 - 1| + |0.5 - 0.5| against 3: 1; shifted by one, a's 1 and 0.5 unmatched, b's 1 over a's 0.5 and its 0.5 outside.
    expect(inkSimilarity(half, half, 1, 0)).toBeCloseTo(1 - (1 + 0.5 + 0.5) / (1 + 1.5 + 0.5), 12);
  });
});
