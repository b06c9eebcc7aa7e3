// The Vite plugin in a real Vite build: a minimal project with GIFs that Vite
// fingerprints (imported from CSS and HTML) and one it copies from public/,
// built by Vite's own CLI in a child process, once without and once with
// pagediet.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { Site } from '../src/site/site.js';
import { MARKER } from '../src/build/output.js';
import { decodeGif } from '../src/images/gif/decode.js';
import { isFingerprinted } from '../src/configs/shared.js';
import { hashPrefix } from '../src/passes/hash-names.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';
import { allReferences } from './helpers/references.js';

const run = promisify(execFile);
/** @param {Buffer} bytes */
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITE = path.join(ROOT, 'node_modules/vite/bin/vite.js');
const IMAGES = path.join(ROOT, 'fixtures/microscape/images');

/**
 * A Vite project that imports pagediet as a user would ('pagediet/vite'),
 * through a node_modules link to this checkout.
 * @param {boolean} withPlugin
 */
async function project(withPlugin) {
  const dir = await tempDir('pagediet-vite-');
  await writeTree(dir, {
    'package.json': JSON.stringify({ name: 'vite-sample', private: true, type: 'module' }),
    'vite.config.js': withPlugin
      ? "import pagediet from 'pagediet/vite';\nexport default { logLevel: 'info', build: { assetsInlineLimit: 0 }, plugins: [pagediet({ cache: false, threads: 1 })] };\n"
      : "export default { logLevel: 'info', build: { assetsInlineLimit: 0 } };\n",
    'index.html': [
      '<!doctype html>',
      '<html><head><meta charset="utf-8"><title>Sample</title><link rel="stylesheet" href="./style.css"></head>',
      '<body><h1>Sample</h1>',
      '<img src="./emblem.gif" alt="emblem" width="100" height="100">',
      '<img src="/ad.gif" alt="advertisement">',
      '<script type="module" src="./main.js"></script>',
      '</body></html>',
    ].join('\n'),
    'style.css': 'body { background: url(./logo.gif) no-repeat; }\n',
    'main.js': "document.body.dataset.ready = 'yes';\n",
    'emblem.gif': await fs.readFile(path.join(IMAGES, 'emblem.gif')),
    'logo.gif': await fs.readFile(path.join(IMAGES, 'logo.gif')),
    'public/ad.gif': await fs.readFile(path.join(IMAGES, 'ad_static.gif')),
  });
  await fs.mkdir(path.join(dir, 'node_modules'));
  await fs.symlink(ROOT, path.join(dir, 'node_modules/pagediet'), 'dir');
  return dir;
}

/** @param {string} dir */
async function viteBuild(dir) {
  return run(process.execPath, [VITE, 'build'], { cwd: dir, env: { ...process.env, NO_COLOR: '1', CI: '1' } });
}

describe('pagediet/vite', () => {
  /** @type {Map<string, Buffer>} */
  let plain;
  /** @type {Map<string, Buffer>} */
  let optimized;
  /** @type {string} */
  let stdout;
  /** @type {string} */
  let dist;

  beforeAll(async () => {
    const [a, b] = [await project(false), await project(true)];
    await viteBuild(a); // rejects on a non-zero exit
    ({ stdout } = await viteBuild(b));
    plain = await readTree(path.join(a, 'dist'));
    dist = path.join(b, 'dist');
    optimized = await readTree(dist);
  }, 120_000);

  it('prints its savings line in Vite\'s log after the build', () => {
    expect(stdout).toMatch(/✓ built in/);
    expect(stdout).toMatch(/✓ pagediet: 1 page load [\d,]+ B → [\d,]+ B \(−\d+\.\d%\); \d+ files? written, in \d+\.\d\ds/);
  });

  /**
   * The PNG made of a GIF: beside a name Vite fingerprinted, under that name; beside public/'s ad.gif, under its
   * content hash (hash-names), the only name pagediet gives a file it made.
   * @param {string} gif
   */
  const pngOf = (gif) => {
    const beside = gif.replace(/\.gif$/, '.png');
    if (isFingerprinted(beside)) return beside;
    const stem = gif.replace(/\.gif$/, '');
    const hashed = [...optimized.keys()].filter((p) => new RegExp(`^${stem}\\.[0-9a-f]{8,64}\\.png$`).test(p));
    expect(hashed).toHaveLength(1);
    expect(hashed[0]).toBe(`${stem}.${hashPrefix(sha256(/** @type {Buffer} */ (optimized.get(hashed[0]))))}.png`);
    expect(optimized.has(beside)).toBe(false);
    return hashed[0];
  };

  it('converts the GIFs Vite fingerprinted and the one it copied, and every reference of the bundle still resolves', async () => {
    const gifs = [...plain.keys()].filter((p) => p.endsWith('.gif')).sort();
    expect(gifs).toHaveLength(3); // assets/emblem-<hash>.gif, assets/logo-<hash>.gif, ad.gif
    const site = await Site.read(dist);
    expect(allReferences(site).filter((r) => r.status !== 'ok' && r.status !== 'external')).toEqual([]);
    const targets = allReferences(site).map((r) => r.target);
    for (const gif of gifs) {
      const png = pngOf(gif);
      expect(targets).toContain(png);
      expect(targets).not.toContain(gif);
      const bytes = /** @type {Buffer} */ (optimized.get(png));
      const pixels = await sharp(bytes).ensureAlpha().raw().toBuffer();
      expect(pixels.equals(Buffer.from(decodeGif(/** @type {Buffer} */ (plain.get(gif))).frames[0].data))).toBe(true);
      expect(bytes.length).toBeLessThan(/** @type {Buffer} */ (plain.get(gif)).length);
    }
  });

  it('leaves the bundle\'s scripts to the bundler, no pagediet marker in the deployed directory, and the configs beside it', async () => {
    const scripts = [...plain.keys()].filter((p) => p.endsWith('.js'));
    expect(scripts).toHaveLength(1);
    for (const js of scripts) expect(optimized.get(js)?.equals(/** @type {Buffer} */ (plain.get(js)))).toBe(true);
    expect(optimized.has(MARKER)).toBe(false);
    // The server configs go beside dist, not into it.
    expect([...optimized.keys()].some((p) => p.startsWith('pagediet-configs/'))).toBe(false);
    expect([...optimized.keys()].some((p) => p.includes('.pagediet-'))).toBe(false);
    expect((await fs.readFile(`${dist}-configs/nginx.conf`, 'utf8'))).toMatch(/^# pagediet \d+\.\d+\.\d+/);
  });
});
