// The programmatic API: optimize() returns what `build --json` prints, and the
// declarations tsc generates at pack time give TypeScript users checked types.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { optimize, defineConfig, load, PASSES } from '../src/index.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

describe('API', () => {
  it('optimize() returns the summary `pagediet build --json --no-report` prints', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<p>Hi <img src="a.gif"></p>', 'a.gif': Buffer.from('GIF89a') });
    const viaApi = await optimize({ input, output: path.join(await tempDir(), 'out'), cache: false, threads: 1 });
    const cliOut = path.join(await tempDir(), 'out');
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin/pagediet.js'), 'build', input, '--out', cliOut, '--json', '--no-report', '--no-cache'], { cwd: ROOT });
    const viaCli = JSON.parse(stdout);
    /** @param {any} s */
    const comparable = (s) => {
      // The server configs are written beside each output: their names, not their folders, must agree.
      const names = (/** @type {string[]} */ paths) => paths.map((p) => path.basename(p));
      const configs = { ...s.outputFiles.configs, paths: names(s.outputFiles.configs.paths) };
      return { ...s, output: '', ms: 0, artifacts: names(s.artifacts), outputFiles: { ...s.outputFiles, configs }, passes: s.passes.map((/** @type {any} */ p) => ({ ...p, ms: 0 })) };
    };
    expect(comparable(viaCli)).toEqual(comparable(viaApi));
    expect(viaApi.passes.map((p) => p.name)).toEqual(PASSES.filter((p) => p.enabledByDefault !== false).map((p) => p.name));
    expect(defineConfig({ lossy: true })).toEqual({ lossy: true });
  }, 60_000);

  it('load() returns the robot\'s runs, one per strategy and visit (first, revalidate, repeat)', async () => {
    const root = await writeTree(await tempDir(), { 'index.html': '<img src="a.png">', 'a.png': Buffer.alloc(3000, 1) });
    const { runs } = await load({ root, networks: ['cable'], protocols: ['http1.1', 'h2'] });
    expect(runs.map((r) => [r.protocol, r.visit, r.requests, r.measured.status])).toEqual([
      ['http1.1', 'first', 2, { 200: 2 }],
      ['http1.1', 'revalidate', 2, { 304: 2 }],
      // A day later: the page is no-cache and the image's hour is over (its name has no fingerprint): both revalidated.
      ['http1.1', 'repeat', 2, { 304: 2 }],
      ['h2', 'first', 2, { 200: 2 }],
      ['h2', 'revalidate', 2, { 304: 2 }],
      ['h2', 'repeat', 2, { 304: 2 }],
    ]);
  }, 60_000);

  it('ships declarations that type-check a consumer and reject a wrong option', async () => {
    const dir = await tempDir('pagediet-types-');
    await run(process.execPath, [TSC, '-p', path.join(ROOT, 'tsconfig.types.json'), '--outDir', path.join(dir, 'types')], { cwd: ROOT });
    for (const file of ['index.d.ts', 'plugins/vite.d.ts', 'build/summary.d.ts']) await fs.access(path.join(dir, 'types', file));
    // As in the published package, whose package.json says the modules are ES modules.
    await fs.writeFile(path.join(dir, 'package.json'), '{ "type": "module" }');
    const check = async (/** @type {string} */ source) => {
      await fs.writeFile(path.join(dir, 'consumer.mts'), source);
      try {
        await run(process.execPath, [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types'), '--skipLibCheck', 'consumer.mts'], { cwd: dir });
        return '';
      } catch (error) {
        return /** @type {{ stdout: string }} */ (error).stdout;
      }
    };
    const good = await check([
      "import { optimize } from './types/index.js';",
      "import pagediet from './types/plugins/vite.js';",
      "const summary = await optimize({ input: 'site', output: 'dist', lossy: true, quality: [60, 80] });",
      'const saved: number = summary.totals.bytesSaved;',
      "const plugin = pagediet({ quiet: true });",
      'export { saved, plugin };',
    ].join('\n'));
    expect(good).toBe('');
    const bad = await check("import { optimize } from './types/index.js';\nawait optimize({ input: 'site', output: 'dist', lossy: 'yes' });\nexport {};\n");
    expect(bad).toMatch(/consumer\.mts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean/);
  }, 120_000);
});
