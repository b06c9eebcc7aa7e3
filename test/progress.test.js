// Progress: a bar on a terminal, plain periodic lines in a CI log, nothing when
// piped or quiet. The last test runs the real CLI on a pseudo-terminal
// (util-linux `script`) and through a pipe.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../src/progress.js';
import { tempDir } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** @param {boolean} isTTY */
function recorder(isTTY) {
  /** @type {string[]} */
  const writes = [];
  return { stream: { write: (/** @type {string} */ s) => { writes.push(s); }, isTTY, columns: 60 }, writes };
}

const EVENTS = [
  { phase: 'read', message: 'reading site' },
  { phase: 'gif-to-png', message: 'static GIFs to PNG' },
  { phase: 'gif-to-png', message: 'a.gif', done: 1, total: 4 },
  { phase: 'gif-to-png', message: 'b.gif', done: 2, total: 4 },
  { phase: 'gif-to-png', message: 'c.gif', done: 3, total: 4 },
  { phase: 'gif-to-png', message: 'd.gif', done: 4, total: 4 },
  { phase: 'write', message: 'writing out' },
];

describe('progress', () => {
  it('draws one bar per phase on a terminal, redrawn in place, cut to the width', () => {
    const { stream, writes } = recorder(true);
    const progress = createProgress({ stream, ci: false });
    for (const e of EVENTS) progress.onProgress(e);
    const long = `a/${'very-long-name/'.repeat(8)}file.png`;
    progress.onProgress({ phase: 'write', message: long, done: 1, total: 2 });
    progress.end();
    expect(writes).toEqual([
      '\r\x1b[Kpagediet read: reading site',
      '\n',
      '\r\x1b[Kpagediet gif-to-png: static GIFs to PNG',
      `\r\x1b[Kpagediet gif-to-png ${'█'.repeat(5)}${'░'.repeat(15)} 1/4 a.gif`,
      `\r\x1b[Kpagediet gif-to-png ${'█'.repeat(10)}${'░'.repeat(10)} 2/4 b.gif`,
      `\r\x1b[Kpagediet gif-to-png ${'█'.repeat(15)}${'░'.repeat(5)} 3/4 c.gif`,
      `\r\x1b[Kpagediet gif-to-png ${'█'.repeat(20)} 4/4 d.gif`,
      '\n',
      '\r\x1b[Kpagediet write: writing out',
      `\r\x1b[K${`pagediet write ${'█'.repeat(10)}${'░'.repeat(10)} 1/2 ${long}`.slice(0, 58)}…`,
      '\n',
    ]);
  });

  it('writes plain lines in a CI log: each phase\'s first and last, and counts at most every interval', () => {
    const { stream, writes } = recorder(false);
    let clock = 0;
    const progress = createProgress({ stream, ci: true, now: () => clock, intervalMs: 5000 });
    for (const e of EVENTS.slice(0, 4)) progress.onProgress(e); // all at time 0
    clock = 6000;
    progress.onProgress(EVENTS[4]); // due: printed
    clock = 7000;
    for (const e of EVENTS.slice(5)) progress.onProgress(e);
    progress.end();
    expect(writes).toEqual([
      'pagediet: read: reading site\n',
      'pagediet: gif-to-png: static GIFs to PNG\n',
      'pagediet: gif-to-png: 3/4 c.gif\n',
      'pagediet: gif-to-png: 4/4 d.gif\n',
      'pagediet: write: writing out\n',
    ]);
  });

  it('says nothing when quiet, or when piped outside CI', () => {
    for (const [isTTY, ci, quiet] of [[true, false, true], [false, true, true], [false, false, false]]) {
      const { stream, writes } = recorder(isTTY);
      const progress = createProgress({ stream, ci, quiet });
      for (const e of EVENTS) progress.onProgress(e);
      progress.end();
      expect(writes).toEqual([]);
    }
  });

  it('shows the bar on a pseudo-terminal and nothing on stderr when piped (the real CLI)', async () => {
    const out = await tempDir();
    const cli = [process.execPath, path.join(ROOT, 'bin/pagediet.js'), 'build', path.join(ROOT, 'fixtures/microscape'), '--no-report', '--no-cache'];
    const env = { ...process.env };
    delete env.CI;
    const quote = (/** @type {string} */ s) => `'${s.replaceAll("'", "'\\''")}'`;
    const command = `stty cols 200; ${[...cli, '--out', path.join(out, 'pty')].map(quote).join(' ')}`;
    const onPty = await run('script', ['-qfec', command, '/dev/null'], { env, cwd: ROOT, maxBuffer: 1 << 24 });
    expect(onPty.stdout).toMatch(/\r\x1b\[Kpagediet gif-to-png [█░]{20} \d+\/\d+ images\//);
    expect(onPty.stdout).toMatch(/\r\x1b\[Kpagediet gif-to-png █{20} (\d+)\/\1 /);
    const piped = await run(cli[0], [...cli.slice(1), '--out', path.join(out, 'piped')], { env, cwd: ROOT, maxBuffer: 1 << 24 });
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toMatch(/^pagediet \d+\.\d+\.\d+: .*fixtures\/microscape -> /);
    expect(piped.stdout).not.toMatch(/[█\r]/);
  }, 120_000);
});
