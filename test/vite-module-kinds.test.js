// pagediet/vite in the projects users have, built by the Vite majors they run
// (6, 7 and the latest, each a real install: vite-6 and vite-7 are npm aliases
// among the devDependencies): a project made by `npm init -y` (no "type", so
// Vite bundles vite.config.js as CommonJS and require()s pagediet/vite, which
// Node refuses for a module graph with a top-level await), an ES module
// project, and a vite.config.ts. Each build must end with exit 0, pagediet's
// savings line in Vite's log, and the GIF converted.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTree } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GIF = path.join(ROOT, 'fixtures/microscape/images/emblem.gif');

/** The Vite majors, each by its package in node_modules. */
const VITES = [['6', 'vite-6'], ['7', 'vite-7'], ['latest', 'vite']];

const PLUGIN = "pagediet({ cache: false, threads: 1, only: ['gif-to-png'], configs: false })";

/** Projects by kind: package.json, and the config file with its name. */
const KINDS = {
  // `npm init -y`'s package.json, as it writes it.
  'CommonJS (npm init -y)': {
    packageJson: { name: 'site', version: '1.0.0', main: 'index.js', scripts: { test: 'echo "Error: no test specified" && exit 1' }, keywords: [], author: '', license: 'ISC', description: '' },
    config: ['vite.config.js', `import pagediet from 'pagediet/vite';\nexport default { build: { assetsInlineLimit: 0 }, plugins: [${PLUGIN}] };\n`],
  },
  'ES module ("type": "module")': {
    packageJson: { name: 'site', private: true, type: 'module' },
    config: ['vite.config.js', `import pagediet from 'pagediet/vite';\nexport default { build: { assetsInlineLimit: 0 }, plugins: [${PLUGIN}] };\n`],
  },
  'vite.config.ts in a CommonJS project': {
    packageJson: { name: 'site', version: '1.0.0', license: 'ISC' },
    config: ['vite.config.ts', `import pagediet from 'pagediet/vite';\nimport type { UserConfig } from 'vite';\nconst config: UserConfig = { build: { assetsInlineLimit: 0 }, plugins: [${PLUGIN}] };\nexport default config;\n`],
  },
};

/**
 * A project of KIND, with pagediet and this Vite linked into node_modules as
 * an install would put them.
 * @param {keyof typeof KINDS} kind
 * @param {string} vitePackage
 */
async function project(kind, vitePackage) {
  const dir = await tempDir('pagediet-vite-kind-');
  const { packageJson, config } = KINDS[kind];
  await writeTree(dir, {
    'package.json': JSON.stringify(packageJson, null, 2),
    [config[0]]: config[1],
    'index.html': '<!doctype html>\n<html><head><meta charset="utf-8"><title>Kinds</title></head>\n<body><img src="./emblem.gif" alt="emblem" width="100" height="100"></body></html>\n',
    'emblem.gif': await fs.readFile(GIF),
  });
  await fs.mkdir(path.join(dir, 'node_modules'));
  await fs.symlink(ROOT, path.join(dir, 'node_modules/pagediet'), 'dir');
  // `import type { UserConfig } from 'vite'` and the config's own resolution find this Vite.
  await fs.symlink(path.join(ROOT, 'node_modules', vitePackage), path.join(dir, 'node_modules/vite'), 'dir');
  return dir;
}

describe('pagediet/vite in every kind of project, on Vite 6, 7 and the latest', () => {
  for (const [major, vitePackage] of VITES) {
    for (const kind of /** @type {(keyof typeof KINDS)[]} */ (Object.keys(KINDS))) {
      it(`Vite ${major}, ${kind}: builds, logs the savings and converts the GIF`, async () => {
        const dir = await project(kind, vitePackage);
        const bin = path.join(ROOT, 'node_modules', vitePackage, 'bin/vite.js');
        const { version } = JSON.parse(await fs.readFile(path.join(ROOT, 'node_modules', vitePackage, 'package.json'), 'utf8'));
        if (major !== 'latest') expect(version.split('.')[0]).toBe(major);
        const { stdout } = await run(process.execPath, [bin, 'build'], { cwd: dir, env: { ...process.env, NO_COLOR: '1', CI: '1' } });
        expect(stdout).toMatch(/✓ pagediet: 1 page load [\d,]+ B → [\d,]+ B \(−\d+\.\d%\)/);
        const assets = await fs.readdir(path.join(dir, 'dist/assets'));
        expect(assets.filter((name) => /^emblem-[\w-]+\.png$/.test(name))).toHaveLength(1);
        const html = await fs.readFile(path.join(dir, 'dist/index.html'), 'utf8');
        // The page draws the PNG; the GIF stays beside it, as pagediet keeps originals.
        expect(html).toContain(`<img src="/assets/${assets.find((name) => name.endsWith('.png'))}"`);
      }, 120_000);
    }
  }
});
