import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ARENA_LIMIT, MMAP_THRESHOLD, runningGlibc, wantsArenaLimit } from '../src/util/arena-limit.js';
import { needed } from './helpers/needed.js';

const CHILD = fileURLToPath(new URL('./helpers/arena-child.js', import.meta.url));
const HOLES = fileURLToPath(new URL('./helpers/heap-holes.js', import.meta.url));
const glibc = runningGlibc() !== undefined;
// The memory check is glibc's: CI (Debian) must run it.
const notGlibc = needed(glibc ? null : 'not running on glibc', 'test/arena-limit.test.js: the freed-memory check');

describe('arena limit', () => {
  it('is wanted on glibc when the user set none, and never overrides theirs', () => {
    expect(wantsArenaLimit({}, () => '2.36')).toBe(true);
    expect(wantsArenaLimit({ MALLOC_ARENA_MAX: '8' }, () => '2.36')).toBe(false);
    expect(wantsArenaLimit({ MALLOC_ARENA_MAX: '' }, () => '2.36')).toBe(false);
    expect(wantsArenaLimit({}, () => undefined)).toBe(false);
  });

  it('restarts the command with the limit and the mmap threshold, its arguments and its exit code', () => {
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_MMAP_THRESHOLD_;
    const run = spawnSync(process.execPath, [CHILD, 'build', 'a b'], { env, encoding: 'utf8' });
    expect(run.stdout).toBe(glibc ? `${ARENA_LIMIT} ${MMAP_THRESHOLD} build a b\n` : 'unset unset build a b\n');
    expect(run.status).toBe(3);
    // A threshold of the user's is kept.
    const theirs = spawnSync(process.execPath, [CHILD, 'x'], { env: { ...env, MALLOC_MMAP_THRESHOLD_: '65536' }, encoding: 'utf8' });
    expect(theirs.stdout).toBe(glibc ? `${ARENA_LIMIT} 65536 x\n` : 'unset 65536 x\n');
  });

  it('keeps a limit the user set', () => {
    const env = { ...process.env, MALLOC_ARENA_MAX: '4' };
    delete env.MALLOC_MMAP_THRESHOLD_;
    const run = spawnSync(process.execPath, [CHILD, 'x'], { env, encoding: 'utf8' });
    expect(run.stdout).toBe('4 unset x\n');
    expect(run.status).toBe(3);
  });

  it.skipIf(notGlibc)('gives freed 40 KiB buffers back to the system with the threshold, and strands them without', () => {
    /** @param {Record<string, string>} vars */
    const holes = (vars) => {
      const env = { ...process.env, ...vars };
      if (!vars.MALLOC_MMAP_THRESHOLD_) delete env.MALLOC_MMAP_THRESHOLD_;
      const run = spawnSync(process.execPath, ['--expose-gc', HOLES], { env, encoding: 'utf8' });
      return /** @type {{ peak: number, after: number }} */ (JSON.parse(run.stdout));
    };
    // 1,500 x 40 KiB is 61 MB.
    const withThreshold = holes({ MALLOC_ARENA_MAX: ARENA_LIMIT, MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD });
    // Most of it given back (55 MB in a run beside other work, more on a quiet machine), against under 10 MB without.
    expect(withThreshold.peak - withThreshold.after).toBeGreaterThan(40);
    const without = holes({ MALLOC_ARENA_MAX: ARENA_LIMIT });
    expect(without.peak - without.after).toBeLessThan(10);
  });
});
