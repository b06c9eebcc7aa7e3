// Issue 28: the README's one-line setup on a fresh Vite project whose page
// shows small text GIFs (microscape's navigation buttons and a heading, all
// under Vite's 4 KiB assetsInlineLimit, and its emblem, a logo that is not
// text). Without pagediet Vite inlines every one as a data: URI; with it they
// are emitted as files, and the text-images pass replaces the text ones with
// HTML and CSS. What pagediet did reaches Vite's log (a custom logger here):
// the savings line, why the emblem was kept, errors and warnings grouped by
// code, information counted; `verbose: true` and `vite build --debug` list
// everything.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build as viteBuild } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import pagediet from '../src/plugins/vite.js';
import { chromiumMissing } from './helpers/chromium.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITE = path.join(ROOT, 'node_modules/vite/bin/vite.js');
const IMAGES = path.join(ROOT, 'fixtures/microscape/images');

/** Microscape's text images (fixtures/microscape/README.md: "replaceable", ALT = words), with their size in the page. */
const TEXT_GIFS = [
  { file: 'nav/home.gif', alt: 'Home', width: 50, height: 20 },
  { file: 'nav/news.gif', alt: 'News', width: 60, height: 20 },
  { file: 'nav/products.gif', alt: 'Products', width: 71, height: 20 },
  { file: 'nav/support.gif', alt: 'Support', width: 66, height: 20 },
  { file: 'nav/download.gif', alt: 'Download', width: 76, height: 20 },
  { file: 'hdr_stories.gif', alt: "Today's Top Stories", width: 269, height: 32 },
];
/** A logo with stylised lettering: not text, kept (and converted to PNG). */
const EMBLEM = { file: 'emblem.gif', alt: 'Microscape Communicator', width: 184, height: 35 };

/** The README's setup, word for word. */
const ONE_LINE_CONFIG = "import pagediet from 'pagediet/vite';\nexport default { plugins: [pagediet()] };\n";

/**
 * A Vite logger that keeps every line (Vite's `customLogger` receives them
 * whatever the log level).
 */
function captureLogger() {
  /** @type {{ level: 'info' | 'warn' | 'error', text: string }[]} */
  const lines = [];
  /** @type {import('vite').Logger} */
  const logger = {
    info(text) { lines.push({ level: 'info', text }); },
    warn(text) { lines.push({ level: 'warn', text }); },
    warnOnce(text) { lines.push({ level: 'warn', text }); },
    error(text) { lines.push({ level: 'error', text }); },
    clearScreen() {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  /** pagediet's lines, at one level. @param {'info' | 'warn' | 'error'} level */
  const of = (level) => lines.filter((l) => l.level === level && /^(?:✓ )?pagediet: /.test(l.text)).map((l) => l.text);
  return { logger, lines, of };
}

/**
 * Vite's output before pagediet saw it (what `build()` returns).
 * @param {Awaited<ReturnType<typeof viteBuild>>} result
 */
function bundle(result) {
  const output = /** @type {import('vite').Rollup.RollupOutput} */ (Array.isArray(result) ? result[0] : result).output;
  const html = output.find((o) => o.fileName === 'index.html');
  return {
    assets: output.filter((o) => o.type === 'asset').map((o) => o.fileName),
    html: html?.type === 'asset' ? String(html.source) : '',
  };
}

/** A fresh Vite project: one page with the GIFs as <img src>, three legacy pages in public/ with a missing image each. */
async function project() {
  const dir = await tempDir('pagediet-vite-text-');
  /** @param {{ file: string, alt: string, width: number, height: number }} g */
  const img = (g) => `<img src="./img/${path.basename(g.file)}" alt="${g.alt}" width="${g.width}" height="${g.height}">`;
  /** @type {Record<string, string | Buffer>} */
  const files = {
    'package.json': JSON.stringify({ name: 'vite-text-images', private: true, type: 'module' }),
    'vite.config.js': ONE_LINE_CONFIG,
    'index.html': [
      '<!doctype html>',
      '<html lang="en"><head><meta charset="utf-8"><title>Microscape</title></head>',
      '<body>',
      `<h1>${img(EMBLEM)}</h1>`,
      `<nav>${TEXT_GIFS.slice(0, 5).map((g) => `<a href="/${g.alt.toLowerCase()}/">${img(g)}</a>`).join('')}</nav>`,
      `<h2>${img(TEXT_GIFS[5])}</h2>`,
      '<p><img src="/missing.gif" alt=""></p>',
      '<script type="module" src="./main.js"></script>',
      '</body></html>',
    ].join('\n'),
    'main.js': "document.body.dataset.ready = 'yes';\n",
  };
  for (const g of [...TEXT_GIFS, EMBLEM]) files[`img/${path.basename(g.file)}`] = await fs.readFile(path.join(IMAGES, g.file));
  for (const name of ['a', 'b', 'c']) files[`public/legacy/${name}.html`] = `<!doctype html><title>${name}</title><img src="/missing-${name}.gif" alt="">\n`;
  await writeTree(dir, files);
  await fs.mkdir(path.join(dir, 'node_modules'));
  await fs.symlink(ROOT, path.join(dir, 'node_modules/pagediet'), 'dir');
  return dir;
}

describe('pagediet/vite with the README\'s one-line setup on small text GIFs (issue 28)', () => {
  /** @type {string} */
  let dir;
  /** Vite's own output without pagediet. @type {ReturnType<typeof bundle>} */
  let plain;
  /** Vite's output with the plugin, before pagediet optimized it. @type {ReturnType<typeof bundle>} */
  let bundled;
  /** @type {string} */
  let html;
  /** @type {ReturnType<typeof captureLogger>} */
  let log;

  beforeAll(async () => {
    dir = await project();
    // Without pagediet, and with Vite's defaults: the control.
    plain = bundle(await viteBuild({ root: dir, configFile: false, logLevel: 'silent', build: { outDir: 'dist-plain' } }));
    // With vite.config.js as the README has it, and a logger that keeps its lines.
    log = captureLogger();
    bundled = bundle(await viteBuild({ root: dir, logLevel: 'info', customLogger: log.logger }));
    html = await fs.readFile(path.join(dir, 'dist/index.html'), 'utf8');
  }, 120_000);

  it('without pagediet Vite inlines every one of the GIFs as a data: URI (they are under its 4 KiB limit)', () => {
    expect(plain.assets.filter((a) => a.endsWith('.gif'))).toEqual([]);
    expect(plain.html.match(/src="data:image\/gif;base64,/g)).toHaveLength(TEXT_GIFS.length + 1);
  });

  it('with it Vite emits them as files', () => {
    for (const g of [...TEXT_GIFS, EMBLEM]) {
      const name = path.basename(g.file, '.gif');
      expect(bundled.assets.some((a) => new RegExp(`^assets/${name}-[\\w-]+\\.gif$`).test(a))).toBe(true);
      expect(bundled.html).toMatch(new RegExp(`<img src="/assets/${name}-[\\w-]+\\.gif" alt="${g.alt}"`));
    }
    expect(bundled.html).not.toMatch(/data:image/);
  });

  it('and pagediet replaces the text GIFs with text and CSS, or says why it could not', () => {
    if (chromiumMissing) {
      // No browser to prove a replacement in (never under CI: helpers/chromium.js fails there).
      expect(log.of('warn').join('\n')).toMatch(/pagediet: warning 1 no-browser: no browser to prove replacements in: text images kept/);
      return;
    }
    for (const g of TEXT_GIFS) {
      expect(html).not.toMatch(new RegExp(`<img src="/assets/${path.basename(g.file, '.gif')}-`));
      expect(html).toMatch(new RegExp(`<span class=pd\\d+>${g.alt}</span>`));
    }
    expect(html).toMatch(/<style>\.pd1\{[^}]*font:/);
    // The emblem is not text: kept, as a PNG (gif-to-png).
    expect(html).toMatch(/<img src="\/assets\/emblem-[\w-]+\.png" alt="Microscape Communicator" width="184" height="35">/);
    expect(html.match(/<img /g)).toHaveLength(2); // the emblem and the missing image
  });

  it('logs the savings at info, why the emblem was kept, and no information line by line', () => {
    const info = log.of('info');
    if (!chromiumMissing) {
      expect(info[0]).toMatch(/^✓ pagediet: 4 pages load [\d,]+ B → [\d,]+ B \(−\d+\.\d%\), 6 requests fewer; \d+ files written, in \d+\.\d\ds$/);
      expect(info).toContainEqual(expect.stringMatching(/^pagediet: text-images kept 1: not text: .+ \(assets\/emblem-[\w-]+\.gif\)$/));
    }
    // One information: the navigation links to pages not in the site; counted, not listed.
    expect(info).toContain('pagediet: 0 errors, 4 warnings, 1 information (verbose: true lists them)');
    expect(log.lines.map((l) => l.text).join('\n')).not.toMatch(/links-missing|point at files not in the site/);
    expect(log.of('error')).toEqual([]);
  });

  it('logs errors and warnings at warn, grouped by code, with the count and up to three files', () => {
    const warnings = log.of('warn').filter((l) => !l.includes('no-browser'));
    expect(warnings).toEqual([
      'pagediet: warning 4 reference-missing: references to files that do not exist (index.html, legacy/a.html, legacy/b.html, …)',
    ]);
  });

  it('with verbose: true lists every decision and every message', async () => {
    const verbose = captureLogger();
    await viteBuild({ root: dir, configFile: false, logLevel: 'info', customLogger: verbose.logger, build: { outDir: 'dist-verbose' }, plugins: [pagediet({ verbose: true })] });
    const text = verbose.of('info').join('\n');
    expect(text).toMatch(/^pagediet: info 1 links-missing: links to pages not in the site\n {2}5 links in 1 page point at files not in the site/m);
    expect(verbose.of('warn').join('\n')).toMatch(/^pagediet: warning 4 reference-missing: references to files that do not exist\n {2}index\.html: img "\/missing\.gif" points at a file that does not exist\n {2}legacy\/a\.html: img "\/missing-a\.gif"/);
    expect(text).toMatch(/^pagediet: precompress skipped 3: under 256 B\n {2}legacy\/a\.html: under 256 B \(\d+ B\)\n {2}legacy\/b\.html: .+\n {2}legacy\/c\.html: /m);
    if (!chromiumMissing) {
      expect(text).toMatch(/^pagediet: text-images kept 1: not text: .+\n {2}assets\/emblem-[\w-]+\.gif: not text: /m);
      for (const g of TEXT_GIFS) expect(text).toMatch(new RegExp(`^ {2}assets/${path.basename(g.file, '.gif')}-[\\w-]+\\.gif: text "${g.alt}" \\(ALT\\)`, 'm'));
    }
  }, 120_000);

  it('with `vite build --debug` lists them too', async () => {
    const { stdout } = await run(process.execPath, [VITE, 'build', '--debug'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 });
    expect(stdout).toMatch(/✓ built in/);
    expect(stdout).toMatch(/^pagediet: info 1 links-missing: links to pages not in the site\n {2}5 links/m);
    expect(stdout).not.toMatch(/verbose: true lists them/);
  }, 120_000);
});
