/**
 * The one option table: the worked example of docs/architecture.md added to
 * a copy of pagediet as the page says (one file, one line), every option of
 * every pass refused before any work when its value is wrong, the generated
 * README table and API type up to date, and job cache keys that follow the
 * code that computes them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { PASSES } from '../src/passes/index.js';
import { BUILD_OPTIONS, optionTable } from '../src/options/table.js';
import { buildOptionsModule, withOptionRows } from '../src/options/reference.js';
import { COMMAND_LINE_ONLY, COMMAND_OPTIONS } from '../src/cli/config-file.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const run = promisify(execFile);

/**
 * A copy of pagediet's sources (node_modules linked), to change as a contributor would.
 * @returns {Promise<string>}
 */
async function copyOfPagediet() {
  const root = await tempDir('pagediet-copy-');
  for (const entry of ['src', 'bin', 'scripts', 'types', 'README.md', 'package.json', 'tsconfig.json']) await fs.cp(entry, path.join(root, entry), { recursive: true });
  await fs.symlink(path.resolve('node_modules'), path.join(root, 'node_modules'));
  return root;
}

/** The code blocks of docs/architecture.md's "Adding a pass". */
async function workedExample() {
  const doc = await fs.readFile('docs/architecture.md', 'utf8');
  const start = doc.indexOf('### Adding a pass');
  expect(start).toBeGreaterThan(0);
  const section = doc.slice(start);
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks).toHaveLength(2);
  return { file: blocks[0], line: blocks[1].trimEnd() };
}

/** A value each kind refuses. @type {Record<string, unknown>} */
const WRONG = { boolean: 'yes', 'whole number': -1, fraction: 2, choice: 'nope', range: [90, 10], text: '', 'folder or false': 3, list: 'a,b', choices: ['gif'], shard: { index: 3, count: 2 } };

describe('the option table', () => {
  it('takes the worked example of "Adding a pass" with one new file and one line, and shows it everywhere', async () => {
    const root = await copyOfPagediet();
    const { file, line } = await workedExample();
    await fs.writeFile(path.join(root, 'src/passes/size-budget.js'), file);
    const index = path.join(root, 'src/passes/index.js');
    const list = await fs.readFile(index, 'utf8');
    expect(list).toContain("  'precompress',\n");
    await fs.writeFile(index, list.replace("  'precompress',\n", `${line}\n  'precompress',\n`));

    // A command-line flag, with its argument and its documentation.
    const help = await run(process.execPath, [path.join(root, 'bin/pagediet.js'), 'build', '--help']);
    expect(help.stdout).toMatch(/--size-budget <KiB> +warn about pages larger than this many KiB/);

    // A config key: taken, and refused with one line when wrong.
    const site = await writeTree(await tempDir(), { 'index.html': `<p>${'x'.repeat(3000)}</p>` });
    const project = await writeTree(await tempDir(), { 'pagediet.config.js': 'export default { sizeBudget: 2 };\n' });
    const built = await run(process.execPath, [path.join(root, 'bin/pagediet.js'), 'build', site, '--out', path.join(project, 'out'), '--json', '--no-report', '--no-cache', '--quiet'], { cwd: project });
    const summary = JSON.parse(built.stdout);
    expect(summary.warnings).toContainEqual({ file: 'index.html', code: 'over-budget', severity: 'warning', message: 'size-budget: 3007 B, over the budget of 2 KiB' });
    await fs.writeFile(path.join(project, 'pagediet.config.js'), "export default { sizeBudget: 'big' };\n");
    const refused = await run(process.execPath, [path.join(root, 'bin/pagediet.js'), 'build', site, '--out', path.join(project, 'out2')], { cwd: project }).catch((e) => e);
    expect([refused.code, refused.stderr]).toEqual([1, `pagediet: ${path.join(project, 'pagediet.config.js')}: option 'sizeBudget' must be a whole number, 0 or more, not 'big'\n`]);

    // The README's row and the API's type, from `npm run options`.
    await run(process.execPath, [path.join(root, 'scripts/options.js')]);
    expect(await fs.readFile(path.join(root, 'README.md'), 'utf8')).toContain('| `--size-budget <KiB>` | warn about pages larger than this many KiB | `500` | size-budget |');
    expect(await fs.readFile(path.join(root, 'src/options/build-options.js'), 'utf8')).toContain(' * @property {number} [sizeBudget] size-budget: warn about pages larger than this many KiB (default 500)');
    // The type holds: a consumer's right value type-checks, a wrong one does not.
    await writeTree(root, {
      'consumer/right.js': "import { optimize } from '../src/index.js';\nawait optimize({ input: 'a', output: 'b', sizeBudget: 5 });\n",
      'consumer/wrong.js': "import { optimize } from '../src/index.js';\nawait optimize({ input: 'a', output: 'b', sizeBudget: 'big' });\n",
      'consumer/tsconfig.json': JSON.stringify({ extends: '../tsconfig.json', include: ['right.js', '../types/**/*.d.ts'] }),
    });
    const tsc = path.resolve('node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', path.join(root, 'consumer/tsconfig.json')]);
    await fs.writeFile(path.join(root, 'consumer/tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['wrong.js', '../types/**/*.d.ts'] }));
    const wrong = await run(process.execPath, [tsc, '-p', path.join(root, 'consumer/tsconfig.json')]).catch((e) => e);
    expect(wrong.stdout).toMatch(/wrong\.js\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 120_000);

  it('refuses a wrong value of every option of every pass before any work, in one line', async () => {
    const site = await writeTree(await tempDir(), { 'index.html': '<p>x</p>' });
    const table = optionTable(PASSES);
    expect(table.size).toBeGreaterThan(Object.keys(BUILD_OPTIONS).length);
    for (const pass of PASSES) {
      const keys = [...table].filter(([, entry]) => entry.readers.includes(pass.name)).map(([key]) => key);
      if (pass.options) expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const { kind } = /** @type {import('../src/options/table.js').TableEntry} */ (table.get(key)).definition;
        expect(Object.hasOwn(WRONG, kind.name), `a wrong value for the kind ${kind.name}`).toBe(true);
        const out = path.join(await tempDir(), 'out');
        const error = await build({ input: site, output: out, [key]: WRONG[kind.name] }).catch((e) => e);
        expect(error.name, `${pass.name}: ${key}`).toBe('UserError');
        expect(error.message).toBe(`build options: option '${key}' must be ${kind.expected}, not ${JSON.stringify(WRONG[kind.name]).replace(/^"(.*)"$/, "'$1'")}`);
        await expect(fs.stat(out)).rejects.toThrow(/ENOENT/);
      }
    }
  });

  it('refuses an unknown option, naming the nearest, and a pass object that breaks the contract', async () => {
    const site = await writeTree(await tempDir(), { 'index.html': '<p>x</p>' });
    const out = path.join(await tempDir(), 'out');
    await expect(build(/** @type {any} */ ({ inptu: site, output: out }))).rejects.toThrow("build options: unknown option 'inptu' (did you mean 'input'?)");
    await expect(build(/** @type {any} */ ({ input: site, output: out, passes: [{ name: 'broken', description: 'no run' }] }))).rejects.toThrow("pass 'broken' has no run(site, ctx) function (src/build/pass.js)");
    await expect(build(/** @type {any} */ ({ input: site, output: out, passes: [{ name: 'bad-option', description: 'x', run: async () => {}, options: { level: { type: 'number' } } }] }))).rejects.toThrow("pass 'bad-option': option 'level' is not an option definition");
    await expect(fs.stat(out)).rejects.toThrow(/ENOENT/);
  });

  it('keeps the README\'s option table and the API\'s BuildOptions type as the table gives them (npm run options)', async () => {
    expect(await fs.readFile('src/options/build-options.js', 'utf8')).toBe(buildOptionsModule(PASSES));
    const readme = await fs.readFile('README.md', 'utf8');
    expect(readme).toBe(withOptionRows(readme, PASSES, { ...COMMAND_OPTIONS, ...COMMAND_LINE_ONLY }));
  });
});

describe('job cache keys', () => {
  /**
   * The fingerprint of every job's code in a copy of pagediet, read in a process of its own.
   * @param {string} root
   */
  async function fingerprints(root) {
    const script = `import { jobFingerprint } from ${JSON.stringify(path.join(root, 'src/util/code-fingerprint.js'))};
const jobs = ['gifToPng', 'animation', 'recompressPng', 'compressText', 'textImagePlan', 'lowerPage', 'pageCss'];
const out = {};
for (const job of jobs) out[job] = await jobFingerprint(job, ${JSON.stringify(path.join(root, 'src/build/jobs.js'))});
console.log(JSON.stringify(out));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    return /** @type {Record<string, string>} */ (JSON.parse(stdout));
  }

  it('change with the code of their job and no other: an encoder change invalidates exactly its jobs', async () => {
    const root = await copyOfPagediet();
    const before = await fingerprints(root);
    expect(new Set(Object.values(before)).size).toBe(Object.keys(before).length);
    expect(await fingerprints(root)).toEqual(before);

    const changed = (/** @type {Record<string, string>} */ a, /** @type {Record<string, string>} */ b) => Object.keys(a).filter((job) => a[job] !== b[job]).sort();
    // The PNG encoder, each of its files: the three image jobs use it, nothing else does; the APNG writer
    // (the animation job) uses all of it but encode.js, the still PNG's entry point.
    const encoder = path.join(root, 'src/images/png');
    const encoderFiles = (await fs.readdir(encoder)).filter((file) => file.endsWith('.js')).sort();
    expect(encoderFiles).toContain('encode.js');
    let afterPng = before;
    for (const file of encoderFiles) {
      await fs.appendFile(path.join(encoder, file), '\nexport const CHANGED = 1;\n');
      const after = await fingerprints(root);
      expect(changed(afterPng, after), file).toEqual(file === 'encode.js' ? ['gifToPng', 'recompressPng'] : ['animation', 'gifToPng', 'recompressPng']);
      afterPng = after;
    }

    // The gzip encoder: text compression only (html-case measures its sizes with node's zlib).
    await fs.appendFile(path.join(root, 'src/compress/gzip.js'), '\nexport const CHANGED = 1;\n');
    const afterGzip = await fingerprints(root);
    expect(changed(afterPng, afterGzip)).toEqual(['compressText']);

    // The OCR reader: only the text-image plans.
    await fs.appendFile(path.join(root, 'src/text-images/ocr.js'), '\n// a comment\n');
    expect(changed(afterGzip, await fingerprints(root))).toEqual(['textImagePlan']);

    // The PNG/APNG reader that proves what the image jobs write (fast-png, composited by apng-frames.js): all three;
    // the APNG writer, which holds no decoder: the animation job alone.
    const beforeReader = await fingerprints(root);
    await fs.appendFile(path.join(root, 'src/images/apng-frames.js'), '\nexport const CHANGED = 1;\n');
    const afterReader = await fingerprints(root);
    expect(changed(beforeReader, afterReader)).toEqual(['animation', 'gifToPng', 'recompressPng']);
    await fs.appendFile(path.join(root, 'src/images/apng.js'), '\nexport const CHANGED = 1;\n');
    expect(changed(afterReader, await fingerprints(root))).toEqual(['animation']);
  }, 60_000);
});
