import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTree } from './helpers/tmp.js';
import { PASSES } from '../src/passes/index.js';

const run = promisify(execFile);
const BIN = path.resolve('bin/pagediet.js');

/** Runs the CLI; resolves with code, stdout and stderr whatever the exit code. */
async function cli(args, options = {}) {
  try {
    // CI cleared: these runs are piped, not a CI log, so they print no progress lines.
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { ...options, env: { ...process.env, PAGEDIET_DEBUG: '', CI: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

// Each test runs the CLI several times, builds included: 25 to 60 s and more beside a busy test run, so a wide limit.
describe('command line', { timeout: 600_000 }, () => {
  it('lists every command in --help and prints the version', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['build', 'demo', 'load', 'report', 'configs', 'serve']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const pkg = JSON.parse(await fs.readFile('package.json', 'utf8'));
    expect((await cli(['--version'])).stdout).toBe(`${pkg.version}\n`);
    for (const command of ['build', 'demo', 'load', 'report', 'configs', 'serve']) {
      const sub = await cli([command, '--help']);
      expect([sub.code, sub.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(new RegExp(`^Usage: pagediet ${command} `))]);
    }
  });

  it('answers user mistakes with one line and exit code 1, never a stack trace', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<p>x</p>' });
    const cases = [
      [['build', '/no/such/dir', '--out', path.join(await tempDir(), 'o')], 'pagediet: input /no/such/dir does not exist\n'],
      [['build', input, '--out', path.join(input, 'o')], `pagediet: output ${path.join(input, 'o')} is inside the input ${input}\n`],
      [['build', input], 'pagediet: build needs an output directory: --out <dir>\n'],
      [['build', input, '--out', path.join(await tempDir(), 'o'), '--only', 'nope'], `pagediet: build: unknown pass 'nope' in --only; available: ${PASSES.map((p) => p.name).join(', ')}\n`],
      [['configs', '/no/such/dir', '--server', 'nginx'], 'pagediet: directory /no/such/dir does not exist\n'],
      [['load', '/no/such/site'], 'pagediet: site /no/such/site does not exist\n'],
      [['load', input, '--protocol', 'http3'], "pagediet: unknown protocol 'http3' (known: http1.0, http1.1, pipelined, h2)\n"],
      [['load', input, '--network', 'custom', '--rtt', 'fast'], "pagediet: --rtt must be a number, not 'fast'\n"],
      [['report', input, '/no/such/after'], 'pagediet: after /no/such/after does not exist\n'],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect([result.code, result.stderr]).toEqual([1, message]);
    }
    const unknown = await cli(['build', input, '--frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("pagediet: unknown option '--frobnicate' (see pagediet --help)\n");
  });

  it('prints the JSON summary on stdout with --json and no progress when piped', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<img src="a.gif">', 'a.gif': 'GIF89a' });
    const out = path.join(await tempDir(), 'o');
    const result = await cli(['build', input, '--out', out, '--json', '--no-report']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const summary = JSON.parse(result.stdout);
    // The page, the image, and the image under its content-hashed name (hash-names: sha256('GIF89a') = 610f5ae4...).
    expect(summary.totals).toMatchObject({ files: 3, pages: 1, references: 1, requestsBefore: 2 });
    expect(summary.referencesByKind).toEqual({ img: 1 });
  });

  it('takes options from pagediet.config.js and from package.json, with flags winning', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<img src="https://www.example.com/a.gif">', 'a.gif': 'GIF89a' });
    const project = await writeTree(await tempDir(), {
      'pagediet.config.js': `export default { out: 'from-config', origins: ['https://www.example.com'] };\n`,
    });
    const first = await cli(['build', input, '--json', '--no-report'], { cwd: project });
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary.output).toBe(path.join(project, 'from-config'));
    // Resolved to the local file, then pointed at its content-hashed name (hash-names), the origin kept.
    expect(summary.references[0]).toMatchObject({ url: 'https://www.example.com/a.610f5ae4.gif', status: 'ok', target: 'a.610f5ae4.gif' });

    const other = await writeTree(await tempDir(), { 'package.json': JSON.stringify({ name: 'site', pagediet: { out: 'pkg-out' } }) });
    const second = await cli(['build', input, '--json', '--no-report', '--out', 'flag-out'], { cwd: other });
    expect(JSON.parse(second.stdout).output).toBe(path.join(other, 'flag-out'));
    const bad = await writeTree(await tempDir(), { 'package.json': JSON.stringify({ pagediet: { colour: 'red' } }) });
    expect((await cli(['build', input], { cwd: bad })).stderr).toBe('pagediet: package.json "pagediet": unknown option \'colour\'\n');
    const typo = await writeTree(await tempDir(), { 'package.json': JSON.stringify({ pagediet: { qualty: [1, 2] } }) });
    expect((await cli(['build', input], { cwd: typo })).stderr).toBe('pagediet: package.json "pagediet": unknown option \'qualty\' (did you mean \'quality\'?)\n');
  });

  it('load --json reports every run with the fields the issue names', async () => {
    const result = await cli(['load', 'fixtures/ricochet', '--json', '--network', 'ricochet-1999,custom', '--rtt', '40', '--bandwidth', '2000']);
    expect(result.code).toBe(0);
    const { runs } = JSON.parse(result.stdout);
    // 4 strategies, 2 networks, 3 visits (first, revalidate, repeat).
    expect(runs).toHaveLength(4 * 2 * 3);
    expect([...new Set(runs.map((r) => r.visit))]).toEqual(['first', 'revalidate', 'repeat']);
    for (const run of runs) {
      expect(Object.keys(run)).toEqual(expect.arrayContaining(['page', 'protocol', 'network', 'visit', 'requests', 'fromCache', 'connections', 'packets', 'wireBytes', 'payloadBytes', 'seconds']));
      // A day later, served with the configs' policy: the page no-cache, the images (no fingerprinted names) an hour.
      expect([run.requests, run.fromCache]).toEqual([31, 0]);
      expect(run.connections).toBe(run.protocol === 'http1.0' ? 31 : 1);
    }
    expect(new Set(runs.map((r) => r.network))).toEqual(new Set(['ricochet-1999', 'custom']));
  });

  it('build ends with the report of input and output, which report --json also gives', async () => {
    const out = path.join(await tempDir(), 'o');
    const built = await cli(['build', 'fixtures/ricochet', '--out', out, '--json', '--network', 'wan-1997', '--no-cache']);
    expect(built.code).toBe(0);
    const { report, passes, totals } = JSON.parse(built.stdout);
    expect(report.savings).toHaveLength(4 * 3);
    expect(report.betweenVisits).toBe(86_400);
    const imageBytesSaved = passes.reduce((n, p) => n + p.bytesBefore - p.bytesAfter, 0);
    expect(imageBytesSaved).toBeGreaterThan(0);
    // The report counts the requests the build's summary counts (what the passes decided is their tests' business).
    for (const s of report.savings) {
      if (s.visit === 'repeat') {
        // Each object is asked for or taken from the cache, whichever each side's cache headers decide.
        expect([s.requests.before + s.fromCache.before, s.requests.after + s.fromCache.after]).toEqual([totals.requestsBefore, totals.requestsAfter]);
        continue;
      }
      expect([s.requests.before, s.requests.saved, s.fromCache.before, s.fromCache.after]).toEqual([totals.requestsBefore, totals.requestsBefore - totals.requestsAfter, 0, 0]);
      if (s.visit === 'first') expect(s.wireBytes.saved).toBeGreaterThan(0);
    }
    const direct = JSON.parse((await cli(['report', 'fixtures/ricochet', out, '--json', '--network', 'wan-1997', '--protocol', 'h2', '--visit', 'first'])).stdout);
    expect(direct.savings.map((s) => [s.protocol, s.visit, s.requests.before, s.requests.after])).toEqual([['h2', 'first', totals.requestsBefore, totals.requestsAfter]]);
  }, 600_000); // a build of ricochet with its report: under a minute alone, over a minute beside a busy test run

  it('report --visit repeat --between-visits: only the repeat visit, that long after the first', async () => {
    const result = await cli(['report', 'fixtures/ricochet', 'fixtures/ricochet', '--json', '--network', 'cable', '--protocol', 'h2', '--visit', 'repeat', '--between-visits', '30m']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect([report.betweenVisits, report.headline.betweenVisits, Object.keys(report.headline.visits)]).toEqual([1800, 1800, ['repeat']]);
    expect(report.savings.map((s) => s.visit)).toEqual(['repeat']);
    // The after side has the configs' headers: the page (no-cache) is revalidated, the 30 images' hour is not over.
    expect([report.savings[0].requests.after, report.savings[0].fromCache.after]).toEqual([1, 30]);
    const text = await cli(['report', 'fixtures/ricochet', 'fixtures/ricochet', '--network', 'cable', '--protocol', 'h2', '--visit', 'repeat', '--between-visits', '2h']);
    expect(text.stdout).toContain("  repeat visit 2 hours later; Cache-Control: none before, the configs' after\n");
  });

  it('report on microscape before and after a build prints the table and writes the HTML report', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'out');
    const built = await cli(['build', 'fixtures/microscape', '--out', out, '--no-report', '--json']);
    expect(built.code).toBe(0);
    const { totals } = JSON.parse(built.stdout);
    const file = path.join(dir, 'report.html');
    const result = await cli(['report', 'fixtures/microscape', out, '--html', file, '--network', 'wan-1997']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual(['pagediet report', `  before  ${path.resolve('fixtures/microscape')}`, `  after   ${out}`]);
    expect(lines[3]).toBe('What visitors load (1 page over HTTP/2):');
    expect(lines[4]).toMatch(new RegExp(`^  first visit   [\\d,]+ B -> [\\d,]+ B \\(-\\d+%\\), ${totals.requestsBefore} -> ${totals.requestsAfter} requests$`));
    expect(lines[5]).toMatch(/^  repeat visit  [\d,]+ B -> [\d,]+ B \([-+]?\d+%\), \d+ -> \d+ requests,/);
    expect(lines).toContain("  repeat visit 1 day later; Cache-Control: none before, the configs' after");
    expect(lines.some((l) => l.startsWith('Repeat visit, 1 day after the first of 1 page, summed'))).toBe(true);
    expect(lines).toContain('  both sides served as ordinary servers do: gzip level 6 on the fly');
    for (const label of ['HTTP/1.0', 'HTTP/1.1', 'pipelined', 'HTTP/2']) expect(lines.some((l) => l.startsWith(`wan-1997  ${label} `))).toBe(true);
    for (const line of lines.slice(3)) expect(line.length).toBeLessThanOrEqual(80);
    const verbose = await cli(['report', 'fixtures/microscape', out, '--network', 'wan-1997', '--verbose']);
    const percent = Math.round(((totals.requestsAfter - totals.requestsBefore) / totals.requestsBefore) * 100);
    expect(verbose.stdout).toContain('/index.html on wan-1997: ');
    expect(verbose.stdout).toContain(`${totals.requestsBefore} -> ${totals.requestsAfter}`);
    expect(percent).toBeLessThan(0);
    const html = await fs.readFile(file, 'utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script[^>]*\ssrc|<link|https?:\/\//i);
  });
});
