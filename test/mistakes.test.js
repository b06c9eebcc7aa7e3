// A user's mistakes, through the command line and the API: each is one line
// (exit 1) or a thrown UserError naming the API's option, before any work:
// nothing is written and no pass runs. Exit 2 is kept for pagediet's defects.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { UserError, load, optimize, report } from '../src/index.js';
import { optionTable, flagName } from '../src/options/table.js';
import { boolean } from '../src/options/kinds.js';
import { PASSES } from '../src/passes/index.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const SITE = path.resolve('fixtures/microscape');

/** @type {string} a folder the runs work in: it must stay as it is */
let cwd;
/** @type {string} */
let empty;

beforeAll(async () => {
  cwd = await tempDir();
  empty = await tempDir();
  await writeTree(cwd, { 'keep.txt': 'the user\'s file' });
});

/** Runs the CLI in-process in `cwd`; what it wrote to each stream. @param {string[]} argv */
async function cli(argv) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => { out += s; }, err: (s) => { err += s; }, isTTY: false, cwd, columns: 80 });
  return { code, out, err };
}

/** Every file under a folder, by relative path. @param {string} dir */
async function listing(dir) {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.sort();
}

/** The mistakes of the issue, and what the one line says. */
const CLI_MISTAKES = /** @type {[string, string[], RegExp][]} */ ([
  ['an unknown network', ['build', SITE, '--out', 'o', '--network', 'nosuch'], /^pagediet: --network: unknown network 'nosuch' \(known: lan-1997, .*custom\)$/],
  ['a report file in a folder that does not exist', ['build', SITE, '--out', 'o', '--html', 'nosuchdir/r.html'], /^pagediet: --html nosuchdir\/r\.html: its folder .*nosuchdir does not exist$/],
  ['report --html in a folder that does not exist', ['report', SITE, SITE, '--html', 'nosuchdir/r.html'], /^pagediet: --html nosuchdir\/r\.html: its folder .*nosuchdir does not exist$/],
  ['configs --out in a folder that does not exist', ['configs', SITE, '--server', 'nginx', '--out', 'nosuchdir/x'], /^pagediet: --out nosuchdir\/x: its folder .*nosuchdir does not exist$/],
  ['a page that is not there', ['load', SITE, '--page', '/nosuch.html'], /^pagediet: --page \/nosuch\.html: no such page in .*microscape$/],
  ['a report against a folder without the pages', ['report', SITE, '@empty'], /^pagediet: \/index\.html is a page of .*microscape but not of .*$/],
  ['an output in /sys', ['build', SITE, '--out', '/sys/x'], /^pagediet: --out \/sys\/x: \/sys is on sysfs, the kernel's own filesystem, not a place for files$/],
  ['an output in /proc', ['build', SITE, '--out', '/proc/x'], /^pagediet: --out \/proc\/x: \/proc is on proc, the kernel's own filesystem, not a place for files$/],
  ['no output', ['build', SITE], /^pagediet: build needs an output directory: --out <dir>$/],
  ['an output inside the input', ['build', SITE, '--out', path.join(SITE, 'out')], /^pagediet: output .* is inside the input .*$/],
  ['load of a folder without pages', ['load', '@empty'], /^pagediet: no page \(\.html or \.htm\) in .*: nothing to load$/],
  ['an unknown option', ['build', SITE, '--out', 'o', '--qualty', '1-2'], /^pagediet: unknown option '--qualty'.*\(see pagediet --help\)$/],
  ['a bad value', ['build', SITE, '--out', 'o', '--quality', 'banana'], /^pagediet: option '--quality <min-max>' argument 'banana' is invalid\. .*$/],
  ['an unknown command', ['biuld', SITE], /^pagediet: unknown command 'biuld'.*$/],
  ['an unknown visit', ['load', SITE, '--visit', 'first,second'], /^pagediet: unknown visit 'second' \(known: first, revalidate, repeat\)$/],
  ['a time between visits that is no duration', ['report', SITE, SITE, '--between-visits', 'soon'], /^pagediet: --between-visits must be a duration \(30s, 10m, 2h, 1d, 1w, or seconds\), not 'soon'$/],
  ['a build\'s time between visits that is no duration', ['build', SITE, '--out', 'o', '--between-visits', '1 fortnight'], /^pagediet: option '--between-visits <duration>' argument '1 fortnight' is invalid\. .*$/],
]);

describe('mistakes on the command line', () => {
  for (const [what, argv, line] of CLI_MISTAKES) {
    it(`${what}: exit 1, one line, nothing written`, async () => {
      const result = await cli(argv.map((a) => (a === '@empty' ? empty : a)));
      expect(result.code).toBe(1);
      expect(result.out).toBe('');
      expect(result.err.endsWith('\n') && result.err.split('\n').length === 2).toBe(true);
      expect(result.err.trimEnd()).toMatch(line);
      expect(await listing(cwd)).toEqual(['keep.txt']);
      expect(await listing(empty)).toEqual([]);
    });
  }

  it('an input without pages builds with one warning and exit 0, and no report', async () => {
    const out = path.join(await tempDir(), 'o');
    const result = await cli(['build', empty, '--out', out, '-q']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('\n  warning 1: no page in the input\n');
    expect(result.out).not.toContain('What visitors load');
  });

  it('-v prints the version', async () => {
    const pkg = JSON.parse(await fs.readFile('package.json', 'utf8'));
    expect((await cli(['-v'])).out).toBe(`${pkg.version}\n`);
  });
});

/** Bad values for an option's kind, on the command line: the first its parser refuses. */
const BAD_TEXT = ['banana', '-1', '1.5', '999999999999999', 'a,b,nosuch', ''];

describe('a bad value of each option of the table', () => {
  const table = [...optionTable(PASSES)];
  it('covers every option', () => {
    expect(table.length).toBeGreaterThan(30);
  });
  for (const [key, { definition }] of table) {
    it(`${key}: refused by the API with its name, before any work`, async () => {
      /** @type {string[]} */
      const phases = [];
      const output = path.join(cwd, 'api-out');
      const error = await optimize({ input: SITE, output, [key]: Symbol('not a value'), onProgress: (e) => phases.push(e.phase) }).catch((e) => e);
      expect(error).toBeInstanceOf(UserError);
      expect(error.message).toBe(`build options: option '${key}' must be ${definition.kind.expected}, not Symbol(not a value)`);
      expect(error.message).not.toMatch(/--/);
      expect(phases).toEqual([]);
      expect(await listing(cwd)).toEqual(['keep.txt']);
    });
    const bad = definition.kind.argument ? BAD_TEXT.find((text) => { try { definition.kind.parse(text); return false; } catch { return true; } }) : undefined;
    if (definition.kind.argument && bad !== undefined) {
      it(`${key}: refused on the command line (${flagName(key, definition)} '${bad}')`, async () => {
        const result = await cli(['build', SITE, '--out', 'o', flagName(key, definition), bad]);
        expect(result.code).toBe(1);
        expect(result.err.split('\n')).toHaveLength(2);
        expect(result.err).toContain(`'${bad}' is invalid`);
        expect(await listing(cwd)).toEqual(['keep.txt']);
      });
    }
  }
});

describe('mistakes through the API', () => {
  /** @type {[string, () => Promise<unknown>, () => string][]} */
  const cases = [
    ['a misspelt option', () => optimize(/** @type {any} */ ({ inptu: SITE, output: path.join(cwd, 'x') })), () => "build options: unknown option 'inptu' (did you mean 'input'?)"],
    ['a bad quality', () => optimize({ input: SITE, output: path.join(cwd, 'x'), quality: /** @type {any} */ ('banana') }), () => "build options: option 'quality' must be a [min, max] pair of whole numbers, 0 <= min <= max <= 100, not 'banana'"],
    ['a pass without run', () => optimize({ input: SITE, output: path.join(cwd, 'x'), passes: /** @type {any} */ ([{ name: 'x', description: 'y' }]) }), () => "pass 'x' has no run(site, ctx) function (src/build/pass.js)"],
    ['an output in /proc', () => optimize({ input: SITE, output: '/proc/x' }), () => "build options: output /proc/x: /proc is on proc, the kernel's own filesystem, not a place for files"],
    ['a folder not written by pagediet', () => optimize({ input: SITE, output: cwd }), () => `output ${cwd} is not empty and was not written by pagediet: choose another folder, or set force: true`],
    ['an unknown network', () => report({ before: SITE, after: SITE, networks: ['nosuch'] }), () => "report options: unknown network 'nosuch' in networks (known: lan-1997, wan-1997, modem-28.8k, ethernet-1999, ricochet-1999, satellite, 3g, slow-4g, fast-4g, cable, fiber, custom)"],
    ['a page that is not there', () => load({ root: SITE, pages: ['/nosuch.html'] }), () => `load options: /nosuch.html in pages is no page of ${SITE}`],
    ['a report of a folder without pages', () => report({ before: empty, after: SITE }), () => `report options: before ${empty} has no page (.html or .htm) to load`],
  ];
  for (const [what, run, message] of cases) {
    it(`${what}: a UserError that names the API's option`, async () => {
      const error = await run().catch((e) => e);
      expect(error).toBeInstanceOf(UserError);
      expect(error.message).toBe(message());
      expect(await listing(cwd)).toEqual(['keep.txt']);
    });
  }
});
