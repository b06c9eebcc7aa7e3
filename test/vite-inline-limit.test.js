// Which assets Vite inlines with pagediet's plugin: never the images pagediet
// may replace (they are emitted as files), every other asset as the user's
// own build.assetsInlineLimit says (a number, a function, an environment's
// own setting, or Vite's default of 4 KiB), and images too with
// `inlineImages: true`, which the log then says. Vite's output is read as
// build() returns it, before pagediet; the pass run is a quick one.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as viteBuild } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import pagediet from '../src/plugins/vite.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGES = path.join(ROOT, 'fixtures/microscape/images');

/** @type {string} */
let dir;

beforeAll(async () => {
  dir = await tempDir('pagediet-vite-inline-');
  await writeTree(dir, {
    'package.json': JSON.stringify({ name: 'vite-inline', private: true, type: 'module' }),
    'index.html': [
      '<!doctype html>',
      '<html lang="en"><head><meta charset="utf-8"><title>Inline</title><link rel="stylesheet" href="./style.css"></head>',
      '<body><img src="./emblem.gif" alt="Microscape Communicator" width="184" height="35"><img src="./ad.gif" alt="Advertisement">',
      '<script type="module" src="./main.js"></script>',
      '</body></html>',
    ].join('\n'),
    'style.css': 'h1 { background: url(./rule.svg) repeat-x; }\n',
    'main.js': [
      "import small from './small.txt?url';",
      "import note from './note.txt?url';",
      "import big from './big.txt?url';",
      "document.body.dataset.urls = [small, note, big].join(' ');",
    ].join('\n'),
    'emblem.gif': await fs.readFile(path.join(IMAGES, 'emblem.gif')), // 2,339 B
    'ad.gif': await fs.readFile(path.join(IMAGES, 'ad_static.gif')), // 6,503 B
    'rule.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="2"><rect width="8" height="1" fill="#036"/></svg>',
    'small.txt': 'a'.repeat(100),
    'note.txt': 'b'.repeat(6000),
    'big.txt': 'c'.repeat(12000),
  });
});

/**
 * Builds the project with the plugin (and a pass that needs no browser) and
 * says what Vite inlined and what it emitted.
 * @param {string} name the output directory's
 * @param {import('vite').InlineConfig} config
 * @param {import('../src/plugins/vite.js').PagedietPluginOptions} [options]
 */
async function inlined(name, config, options = {}) {
  /** @type {string[]} */
  const info = [];
  /** @type {import('vite').Logger} */
  const customLogger = {
    info(text) { info.push(text); },
    warn() {},
    warnOnce() {},
    error() {},
    clearScreen() {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  const result = await viteBuild({
    root: dir, configFile: false, logLevel: 'info', customLogger, ...config,
    build: { outDir: `dist-${name}`, ...config.build },
    plugins: [pagediet({ only: ['html-case'], cache: false, threads: 1, ...options })],
  });
  const output = /** @type {import('vite').Rollup.RollupOutput} */ (Array.isArray(result) ? result[0] : result).output;
  const text = output.map((o) => (o.type === 'chunk' ? o.code : String(o.source))).join('\n');
  const emitted = output.filter((o) => o.type === 'asset').map((o) => o.fileName.replace(/^assets\/(.+)-[\w-]{8}(\.\w+)$/, '$1$2')).filter((f) => f !== 'index.html' && !f.endsWith('.css'));
  return {
    emitted: emitted.sort(),
    /** data: URIs by type */
    data: (text.match(/data:[\w/+]+/g) ?? []).sort(),
    info: info.filter((l) => /^(?:✓ )?pagediet: /.test(l)),
  };
}

describe('pagediet/vite and build.assetsInlineLimit', () => {
  it('without a setting of the user\'s: images are files, other assets follow Vite\'s 4 KiB default', async () => {
    const r = await inlined('default', {});
    expect(r.emitted).toEqual(['ad.gif', 'big.txt', 'emblem.gif', 'note.txt', 'rule.svg']);
    expect(r.data).toEqual(['data:text/plain']); // small.txt
    expect(r.info.join('\n')).not.toMatch(/inlined/);
  });

  it('a number of the user\'s still applies to every asset but images', async () => {
    const r = await inlined('number', { build: { assetsInlineLimit: 10_000 } });
    // small.txt and note.txt (6,000 B: over Vite's default, under the user's); the GIFs and the SVG are under it too, but files.
    expect(r.data).toEqual(['data:text/plain', 'data:text/plain']);
    expect(r.emitted).toEqual(['ad.gif', 'big.txt', 'emblem.gif', 'rule.svg']);
    const none = await inlined('zero', { build: { assetsInlineLimit: 0 } });
    expect(none.data).toEqual([]);
    expect(none.emitted).toEqual(['ad.gif', 'big.txt', 'emblem.gif', 'note.txt', 'rule.svg', 'small.txt']);
  });

  it('a function of the user\'s decides every asset but images, and Vite\'s default where it says nothing', async () => {
    /** @type {string[]} */
    const asked = [];
    const r = await inlined('function', {
      build: {
        assetsInlineLimit: (file) => {
          asked.push(path.basename(file));
          return file.endsWith('note.txt') ? true : undefined;
        },
      },
    });
    expect(r.data).toEqual(['data:text/plain', 'data:text/plain']); // note.txt by the function, small.txt by the default
    expect(r.emitted).toEqual(['ad.gif', 'big.txt', 'emblem.gif', 'rule.svg']);
    expect(asked.sort()).toEqual(['big.txt', 'note.txt', 'small.txt']); // never asked about the images
  });

  it('an environment\'s own setting (Vite 6 and later) is wrapped the same way', async () => {
    const r = await inlined('environment', { environments: { client: { build: { assetsInlineLimit: 10_000 } } } });
    expect(r.data).toEqual(['data:text/plain', 'data:text/plain']);
    expect(r.emitted).toEqual(['ad.gif', 'big.txt', 'emblem.gif', 'rule.svg']);
  });

  it('inlineImages: true restores Vite\'s inlining of images, and the log says which pagediet cannot touch', async () => {
    const r = await inlined('images', {}, { inlineImages: true });
    expect(r.data).toEqual(['data:image/gif', 'data:image/svg+xml', 'data:text/plain']); // emblem.gif, rule.svg, small.txt
    expect(r.emitted).toEqual(['ad.gif', 'big.txt', 'note.txt']); // ad.gif: 6,503 B, over 4 KiB
    expect(r.info).toContain('pagediet: Vite inlined 2 images as data: URIs (inlineImages: true), which pagediet leaves as they are (emblem.gif, rule.svg)');
    const limited = await inlined('images-number', { build: { assetsInlineLimit: 10_000 } }, { inlineImages: true });
    expect(limited.emitted).toEqual(['big.txt']);
    expect(limited.info).toContain('pagediet: Vite inlined 3 images as data: URIs (inlineImages: true), which pagediet leaves as they are (ad.gif, emblem.gif, rule.svg)');
  });
});
