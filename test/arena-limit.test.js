import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ARENA_LIMIT, runningGlibc, wantsArenaLimit } from '../src/util/arena-limit.js';

const CHILD = fileURLToPath(new URL('./helpers/arena-child.js', import.meta.url));

describe('arena limit', () => {
  it('is wanted on glibc when the user set none, and never overrides theirs', () => {
    expect(wantsArenaLimit({}, () => '2.36')).toBe(true);
    expect(wantsArenaLimit({ MALLOC_ARENA_MAX: '8' }, () => '2.36')).toBe(false);
    expect(wantsArenaLimit({ MALLOC_ARENA_MAX: '' }, () => '2.36')).toBe(false);
    expect(wantsArenaLimit({}, () => undefined)).toBe(false);
  });

  it('restarts the command with the limit, its arguments and its exit code', () => {
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    const run = spawnSync(process.execPath, [CHILD, 'build', 'a b'], { env, encoding: 'utf8' });
    expect(run.stdout).toBe(runningGlibc() === undefined ? 'unset build a b\n' : `${ARENA_LIMIT} build a b\n`);
    expect(run.status).toBe(3);
  });

  it('keeps a limit the user set', () => {
    const run = spawnSync(process.execPath, [CHILD, 'x'], { env: { ...process.env, MALLOC_ARENA_MAX: '4' }, encoding: 'utf8' });
    expect(run.stdout).toBe('4 x\n');
    expect(run.status).toBe(3);
  });
});
