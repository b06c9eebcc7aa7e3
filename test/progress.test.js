// Progress: a bar on a terminal, plain periodic lines in a CI log, nothing when
// piped or quiet; sub-phases labelled, the time left from the rate so far
// (with an injected clock). The last tests run the real CLI on a
// pseudo-terminal (util-linux `script`), through a pipe and in a CI log.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createProgress, timeLeft } from '../src/build/progress.js';
import { tempDir } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** @param {boolean} isTTY @param {number} [columns] */
function recorder(isTTY, columns = 60) {
  /** @type {string[]} */
  const writes = [];
  return { stream: { write: (/** @type {string} */ s) => { writes.push(s); }, isTTY, columns }, writes };
}

/** A bar of 20 with `filled` done. @param {number} filled */
const bar = (filled) => `${'█'.repeat(filled)}${'░'.repeat(20 - filled)}`;

const READING = { n: 1, of: 2, label: 'reading' };
const CHECKING = { n: 2, of: 2, label: 'checking' };

/**
 * A pass with two sub-phases of 100 items, and when each event comes (ms).
 * @type {[number, import('../src/build/progress.js').ProgressEvent][]}
 */
const TIMED = [
  [0, { phase: 'text-images', message: 'images of text' }],
  [1000, { phase: 'text-images', message: 'a.gif', done: 1, total: 100, step: READING }],
  [2000, { phase: 'text-images', message: 'b.gif', done: 4, total: 100, step: READING }], // 4 done, but 2 s only: no estimate
  [4000, { phase: 'text-images', message: 'c.gif', done: 5, total: 100, step: READING }], // 800 ms an item: 95 left, 76 s
  [7000, { phase: 'text-images', message: 'd.gif', done: 20, total: 100, step: READING }], // 350 ms an item: 80 left, 28 s
  [9400, { phase: 'text-images', message: 'e.gif', done: 100, total: 100, step: READING }],
  [10000, { phase: 'text-images', message: 'a.gif', done: 1, total: 100, step: CHECKING }], // a new count, from 9.4 s
  [11400, { phase: 'text-images', message: 'b.gif', done: 3, total: 100, step: CHECKING }], // 2 s only: no estimate
  [16000, { phase: 'text-images', message: 'c.gif', done: 50, total: 100, step: CHECKING }], // 132 ms an item: 50 left, 6.6 s
  [17000, { phase: 'text-images', message: 'd.gif', done: 60, total: 100, step: CHECKING }], // 7.6 s / 60: 40 left, 5.07 s
  [18000, { phase: 'write', message: 'writing out' }],
];

/** Plays TIMED on a progress at its times. @param {(options: { now: () => number }) => import('../src/build/progress.js').Progress} make */
function play(make) {
  let clock = 0;
  const progress = make({ now: () => clock });
  for (const [t, event] of TIMED) {
    clock = t;
    progress.onProgress(event);
  }
  progress.end();
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
      // The phase ended short of its total (a pass that counts an item as it starts it): its bar is drawn full.
      `\r\x1b[K${`pagediet write ${'█'.repeat(20)} 2/2 ${long}`.slice(0, 58)}…`,
      '\n',
    ]);
  });

  it('labels sub-phases and shows the time left on a terminal, from the rate so far', () => {
    const { stream, writes } = recorder(true, 100);
    play(({ now }) => createProgress({ stream, ci: false, now }));
    expect(writes).toEqual([
      '\r\x1b[Kpagediet text-images: images of text',
      `\r\x1b[Kpagediet text-images (1/2 reading) ${bar(0)} 1/100 a.gif`,
      `\r\x1b[Kpagediet text-images (1/2 reading) ${bar(1)} 4/100 b.gif`,
      `\r\x1b[Kpagediet text-images (1/2 reading) ${bar(1)} 5/100 (~1 min 20 s left) c.gif`,
      `\r\x1b[Kpagediet text-images (1/2 reading) ${bar(4)} 20/100 (~30 s left) d.gif`,
      `\r\x1b[Kpagediet text-images (1/2 reading) ${bar(20)} 100/100 e.gif`,
      `\r\x1b[Kpagediet text-images (2/2 checking) ${bar(0)} 1/100 a.gif`,
      `\r\x1b[Kpagediet text-images (2/2 checking) ${bar(1)} 3/100 b.gif`,
      `\r\x1b[Kpagediet text-images (2/2 checking) ${bar(10)} 50/100 (~7 s left) c.gif`,
      `\r\x1b[Kpagediet text-images (2/2 checking) ${bar(12)} 60/100 (~5 s left) d.gif`,
      `\r\x1b[Kpagediet text-images (2/2 checking) ${bar(20)} 100/100 d.gif`, // the pass ended: full, no estimate
      '\n',
      '\r\x1b[Kpagediet write: writing out',
      '\n',
    ]);
  });

  it('keeps the line within the terminal\'s columns: the message is cut first, then the bar narrows or goes, then the line is cut', () => {
    const draw = (/** @type {number} */ columns, /** @type {import('../src/build/progress.js').ProgressEvent} */ event) => {
      const { stream, writes } = recorder(true, columns);
      createProgress({ stream, ci: false }).onProgress(event);
      return writes;
    };
    const svg = { phase: 'svg', message: 'a-longer-name.svg', done: 1, total: 2 };
    expect([
      ...draw(50, svg),
      ...draw(30, svg),
      ...draw(30, { phase: 'text-images', message: 'a.gif', done: 5, total: 100, step: READING }),
      ...draw(20, svg),
    ]).toEqual([
      `\r\x1b[Kpagediet svg ${bar(10)} 1/2 a-longer-n…`, // 49 columns
      `\r\x1b[Kpagediet svg ${'█'.repeat(6)}${'░'.repeat(6)} 1/2`, // 29: the bar narrowed, no room for the message
      '\r\x1b[Kpagediet text-images (1/2 re…', // 29: no room for a bar
      '\r\x1b[Kpagediet svg 1/2', // 19
    ]);
  });

  it('counts columns as a terminal draws them, and shows control characters in names as ?', () => {
    const { stream, writes } = recorder(true, 60);
    const progress = createProgress({ stream, ci: false });
    progress.onProgress({ phase: 'svg', message: `\x1b]0;x\x07${'ファイル'.repeat(3)}.svg`, done: 1, total: 2 });
    progress.onProgress({ phase: 'svg', message: 'a\nb.svg', done: 2, total: 2 });
    // 59 columns: 'pagediet svg', the bar, '1/2' take 37 and a space, the message 21: 6 narrow, 7 wide, '…'.
    expect(writes).toEqual([
      `\r\x1b[Kpagediet svg ${bar(10)} 1/2 ?]0;x?${'ファイル'.repeat(3).slice(0, 7)}…`,
      `\r\x1b[Kpagediet svg ${bar(20)} 2/2 a?b.svg`,
    ]);
  });

  it('says the time left in steps that do not flicker', () => {
    const cases = [[400, '~1 s left'], [6600, '~7 s left'], [9400, '~9 s left'], [9600, '~10 s left'], [28_000, '~30 s left'], [57_000, '~55 s left'],
      [58_000, '~1 min left'], [76_000, '~1 min 20 s left'], [125_000, '~2 min 10 s left'], [3_594_000, '~59 min 50 s left'], [3_600_000, '~1 h left'], [7_500_000, '~2 h 5 min left']];
    expect(cases.map(([ms]) => timeLeft(/** @type {number} */ (ms)))).toEqual(cases.map(([, text]) => text));
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
      'pagediet: gif-to-png: 3/4 (~2 s left) c.gif\n', // 6 s for 3: 2 s for the last
      'pagediet: gif-to-png: 4/4 d.gif\n',
      'pagediet: write: writing out\n',
    ]);
  });

  it('logs sub-phases as phases in a CI log, with the time left on the lines between the first and the last', () => {
    const { stream, writes } = recorder(false);
    play(({ now }) => createProgress({ stream, ci: true, now, intervalMs: 5000 }));
    expect(writes).toEqual([
      'pagediet: text-images: images of text\n',
      'pagediet: text-images (1/2 reading): 1/100 a.gif\n', // a sub-phase's first
      'pagediet: text-images (1/2 reading): 20/100 (~30 s left) d.gif\n', // 6 s after the line before
      'pagediet: text-images (1/2 reading): 100/100 e.gif\n',
      'pagediet: text-images (2/2 checking): 1/100 a.gif\n',
      'pagediet: text-images (2/2 checking): 50/100 (~7 s left) c.gif\n',
      'pagediet: text-images (2/2 checking): 60/100 (~5 s left) d.gif\n', // the last count before the next phase
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
    // The passes whose bars the test reads; the others draw the same way.
    const cli = [process.execPath, path.join(ROOT, 'bin/pagediet.js'), 'build', path.join(ROOT, 'fixtures/microscape'), '--only', 'text-images,gif-to-png,html-case', '--no-report'];
    const env = { ...process.env };
    delete env.CI;
    const quote = (/** @type {string} */ s) => `'${s.replaceAll("'", "'\\''")}'`;
    // No cache for the terminal's run: a pass replayed from an earlier build draws no bar.
    const command = `stty cols 200; ${[...cli, '--no-cache', '--out', path.join(out, 'pty')].map(quote).join(' ')}`;
    const onPty = await run('script', ['-qfec', command, '/dev/null'], { env, cwd: ROOT, maxBuffer: 1 << 24 });
    // On a busy machine the pass runs long enough for its bar to say the time left: "12/40 (3 s left) images/...".
    expect(onPty.stdout).toMatch(/\r\x1b\[Kpagediet gif-to-png [█░]{20} \d+\/\d+ (?:\([^)]* left\) )?images\//);
    expect(onPty.stdout).toMatch(/\r\x1b\[Kpagediet gif-to-png █{20} (\d+)\/\1 /);
    expect(onPty.stdout).toMatch(/\r\x1b\[Kpagediet text-images \(2\/2 checking\) █{20} (\d+)\/\1 /);
    // Before the summary, nothing but the bars (the pseudo-terminal turns \n into \r\n), each within the 200 columns.
    const bars = onPty.stdout.slice(0, onPty.stdout.indexOf('pagediet 0.'));
    expect(bars).toMatch(/^(\r\x1b\[Kpagediet [^\r\n\x1b]*|\r\n)+$/);
    for (const frame of bars.split(/\r\x1b\[K|\r\n/)) expect([...frame].length).toBeLessThan(200);
    const piped = await run(cli[0], [...cli.slice(1), '--out', path.join(out, 'piped')], { env, cwd: ROOT, maxBuffer: 1 << 24 });
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toMatch(/^pagediet \d+\.\d+\.\d+: .*fixtures\/microscape -> /);
    expect(piped.stdout).not.toMatch(/[█\r]/);
  }, 120_000);

  it('counts every text image in each sub-phase of text-images, to its total, in a CI log (the real CLI)', async () => {
    const out = await tempDir();
    const env = { ...process.env, CI: '1' };
    const { stderr } = await run(process.execPath, [path.join(ROOT, 'bin/pagediet.js'), 'build', path.join(ROOT, 'fixtures/microscape'), '--only', 'text-images', '--no-report', '--no-cache', '--out', out], { env, cwd: ROOT, maxBuffer: 1 << 24 });
    const counts = [...stderr.matchAll(/^pagediet: text-images \((\d)\/2 (\w+)\): (\d+)\/(\d+) /gm)].map((m) => ({ step: `${m[1]} ${m[2]}`, done: Number(m[3]), total: Number(m[4]) }));
    const last = (/** @type {string} */ step) => counts.filter((c) => c.step === step).at(-1);
    expect(last('1 reading')?.done).toBeGreaterThan(10);
    expect(last('1 reading')?.done).toBe(last('1 reading')?.total);
    // Most candidates are kept before Chromium: the count went on for them too (it stopped at 24/40 here, 11/172 on a larger site).
    expect(last('2 checking')?.done).toBe(last('1 reading')?.total);
    expect(last('2 checking')?.total).toBe(last('1 reading')?.total);
    expect(stderr).not.toMatch(/Image too small|Line cannot be recognized|Invalid resolution/);
  }, 120_000);
});
