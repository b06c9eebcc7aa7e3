// pagediet/eleventy and pagediet/astro in real builds of small projects, by
// each generator's own CLI in a child process (both are devDependencies):
// the output folder is the optimized site, with .br sidecars, the GIF made a
// PNG that the page draws, no reference broken, the server configs beside the
// folder, and the savings line in the generator's log.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Site } from '../src/site/site.js';
import { MARKER } from '../src/build/output.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { allReferences } from './helpers/references.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GIF = path.join(ROOT, 'fixtures/microscape/images/emblem.gif');
const STYLE = `body { font-family: Georgia, serif; margin: 0 auto; max-width: 40rem; padding: 1rem; color: #222222; }\n${'p { line-height: 1.5; }\n'.repeat(20)}`;
const TEXT = `<p>${'A paragraph of the page, long enough to be worth compressing. '.repeat(12)}</p>`;

/**
 * A project folder with pagediet linked into node_modules as an install
 * puts it, and the generator's package linked beside it.
 * @param {Record<string, string | Buffer>} files
 * @param {string} generator the generator's package name
 */
async function project(files, generator) {
  const dir = await tempDir('pagediet-generator-');
  await writeTree(dir, files);
  await fs.mkdir(path.join(dir, 'node_modules', path.dirname(generator)), { recursive: true });
  await fs.symlink(ROOT, path.join(dir, 'node_modules/pagediet'), 'dir');
  await fs.symlink(path.join(ROOT, 'node_modules', generator), path.join(dir, 'node_modules', generator), 'dir');
  return dir;
}

/**
 * What every optimized output must show.
 * @param {string} out
 * @param {string} log the generator's stdout and stderr
 */
async function expectOptimized(out, log) {
  expect(log).toMatch(/✓ pagediet: 1 page load [\d,]+ B → [\d,]+ B \(−\d+\.\d%\)/);
  const site = await Site.read(out);
  expect(allReferences(site).filter((r) => r.status !== 'ok' && r.status !== 'external')).toEqual([]);
  const page = await fs.readFile(path.join(out, 'index.html'), 'utf8');
  const drawn = /<img src="([^"]+)"/i.exec(page)?.[1] ?? '';
  expect(drawn).toMatch(/emblem[^/]*\.png$/);
  expect((await fs.readFile(path.join(out, drawn.replace(/^\//, '')))).subarray(1, 4).toString('latin1')).toBe('PNG');
  await expect(fs.stat(path.join(out, 'index.html.br'))).resolves.toBeTruthy();
  await expect(fs.stat(path.join(out, MARKER))).rejects.toThrow();
  expect(await fs.readdir(`${out}-configs`)).toContain('nginx.conf');
}

describe('pagediet/eleventy', () => {
  it('optimizes the output folder after `eleventy` builds it', async () => {
    const dir = await project({
      'package.json': JSON.stringify({ name: 'eleventy-site', private: true, type: 'module' }),
      'eleventy.config.js': [
        "import pagediet from 'pagediet/eleventy';",
        'export default function (eleventyConfig) {',
        "  eleventyConfig.addPassthroughCopy('images');",
        "  eleventyConfig.addPassthroughCopy('style.css');",
        '  eleventyConfig.addPlugin(pagediet, { cache: false, threads: 1 });',
        '}',
        '',
      ].join('\n'),
      'index.md': `---\ntitle: Home\n---\n# Home\n\n<img src="/images/emblem.gif" alt="emblem" width="100" height="100">\n\n<link rel="stylesheet" href="/style.css">\n\n${TEXT}\n`,
      'style.css': STYLE,
      'images/emblem.gif': await fs.readFile(GIF),
    }, '@11ty/eleventy');
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs')], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    await expectOptimized(path.join(dir, '_site'), stdout + stderr);
  }, 300_000);
});

describe('pagediet/astro', () => {
  it('optimizes the output folder after `astro build` writes it', async () => {
    const dir = await project({
      'package.json': JSON.stringify({ name: 'astro-site', private: true, type: 'module' }),
      'astro.config.mjs': "import { defineConfig } from 'astro/config';\nimport pagediet from 'pagediet/astro';\nexport default defineConfig({ integrations: [pagediet({ cache: false, threads: 1 })] });\n",
      'src/pages/index.astro': `---\n---\n<html lang="en"><head><meta charset="utf-8"><title>Home</title><link rel="stylesheet" href="/style.css"></head>\n<body><h1>Home</h1><img src="/emblem.gif" alt="emblem" width="100" height="100">${TEXT}</body></html>\n`,
      'public/style.css': STYLE,
      'public/emblem.gif': await fs.readFile(GIF),
    }, 'astro');
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, 'node_modules/astro/astro.js'), 'build'], { cwd: dir, env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' } });
    await expectOptimized(path.join(dir, 'dist'), stdout + stderr);
  }, 300_000);
});
