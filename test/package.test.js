// pagediet as a user's project meets it: installed from a folder, its types
// check without @types/node in the project; run without being installed
// (npx), a config file's `import { defineConfig } from 'pagediet'` works.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from './helpers/tmp.js';
import { ensureTypes } from './helpers/types.js';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const TSC = path.resolve('node_modules/typescript/bin/tsc');

beforeAll(async () => {
  // What `npm install` in this folder runs (prepare): types-dist/ from the source as it is now.
  await ensureTypes();
}, 120_000);

describe('the package', () => {
  it('type-checks in a TypeScript project that installed it from a folder, without @types/node', async () => {
    const project = await writeTree(await tempDir(), {
      'package.json': JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }),
      // types: [] — the project names no type packages; skipLibCheck off, so pagediet's declarations are checked too.
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, types: [] }, include: ['*.ts'] }),
      // The check can fail: a wrong option type is an error, here and nowhere else.
      'wrong.ts': "import { optimize } from 'pagediet';\nawait optimize({ input: 'site', output: 'dist', quality: 'banana' });\n",
      'main.ts': [
        "import { optimize, report, defineConfig, type BuildOptions } from 'pagediet';",
        "import pagediet from 'pagediet/vite';",
        "const options: BuildOptions = { input: 'site', output: 'dist', quality: [60, 80] };",
        'const summary = await optimize(options);',
        'const pages: number = summary.totals.pages;',
        "const saved = (await report({ before: 'site', after: 'dist' })).headline.visits.first?.wireBytes.saved;",
        "export const config = defineConfig({ out: 'dist' });",
        'export const plugin = pagediet();',
        'console.log(pages, saved);',
        '',
      ].join('\n'),
    });
    await run('npm', ['install', '--no-audit', '--no-fund', '--offline', ROOT], { cwd: project });
    expect(await fs.readdir(path.join(project, 'node_modules'))).not.toContain('@types');
    const checked = await run(process.execPath, [TSC, '-p', '.'], { cwd: project }).then(() => '', (e) => `${e.stdout}${e.stderr}`);
    const errors = checked.split('\n').filter(Boolean);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type /);
    // An install and a type check of pagediet's declarations: 37 s on a 2-core machine, over 120 s while a second
    // suite ran beside it. The limit guards against a hang, not a slow machine.
  }, 400_000);

  it('lets a config file import defineConfig from pagediet when its project has no pagediet', async () => {
    const project = await writeTree(await tempDir(), {
      'site/index.html': '<!doctype html><title>x</title><p>Hello</p>\n',
      'pagediet.config.js': "import { defineConfig } from 'pagediet';\nexport default defineConfig({ out: 'built', report: false, quiet: true, only: ['html-case'] });\n",
    });
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin/pagediet.js'), 'build', 'site', '--json'], { cwd: project, env: { ...process.env, CI: '' } });
    expect(JSON.parse(stdout).output).toBe(path.join(project, 'built'));
    expect(await fs.readFile(path.join(project, 'built/index.html'), 'utf8')).toBe('<!doctype html><title>x</title><p>Hello</p>\n');
  }, 60_000);
});
