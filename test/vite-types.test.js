// The plugin's declarations, as the package ships them (tsc at pack time):
// a TypeScript vite.config gets its options checked, and the plugin is a
// Vite Plugin that defineConfig() takes.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/tmp.js';
import { ensureTypes } from './helpers/types.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** @type {string} */
let dir;

/**
 * Type-checks a vite.config.mts; its errors, or ''.
 * @param {string} source
 */
async function check(source) {
  await fs.writeFile(path.join(dir, 'vite.config.mts'), source);
  try {
    await run(process.execPath, [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types'), '--skipLibCheck', 'vite.config.mts'], { cwd: dir });
    return '';
  } catch (error) {
    return /** @type {{ stdout: string }} */ (error).stdout;
  }
}

describe('pagediet/vite types', () => {
  beforeAll(async () => {
    dir = await tempDir('pagediet-vite-types-');
    await fs.symlink(await ensureTypes(), path.join(dir, 'types'), 'dir');
    await fs.writeFile(path.join(dir, 'package.json'), '{ "type": "module" }');
    await fs.mkdir(path.join(dir, 'node_modules'));
    await fs.symlink(path.join(ROOT, 'node_modules/vite'), path.join(dir, 'node_modules/vite'), 'dir');
  }, 120_000);

  it('a vite.config.ts with the plugin and its options type-checks', async () => {
    expect(await check([
      "import { defineConfig, type Plugin } from 'vite';",
      "import pagediet, { type PagedietPluginOptions } from './types/plugins/vite.js';",
      "const options: PagedietPluginOptions = { verbose: true, inlineImages: false, quiet: false, lossy: true, skip: ['scripts'] };",
      'const plugin: Plugin = pagediet(options);',
      "export default defineConfig({ build: { assetsInlineLimit: 1024 }, plugins: [pagediet(), plugin, pagediet({ inlineImages: true, textImagesCss: 'file' })] });",
    ].join('\n'))).toBe('');
  }, 60_000);

  it('a wrong option is an error', async () => {
    expect(await check("import pagediet from './types/plugins/vite.js';\nexport default { plugins: [pagediet({ inlineImages: 'yes' })] };\n"))
      .toMatch(/vite\.config\.mts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean/);
    expect(await check("import pagediet from './types/plugins/vite.js';\nexport default { plugins: [pagediet({ verbos: true })] };\n"))
      .toMatch(/vite\.config\.mts\(2,\d+\): error TS2561: Object literal may only specify known properties, but 'verbos' does not exist in type 'PagedietPluginOptions'/);
  }, 60_000);
});
