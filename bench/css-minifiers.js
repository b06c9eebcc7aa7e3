// Benchmark: the CSS minifiers a pass could use, on Bootstrap's CSS and the
// fixtures' style sheets: csso with its structural optimisations (what the
// css pass runs), csso without them, and lightningcss. For each: bytes, raw
// and brotli-compressed (quality 11, as the precompress pass writes .br),
// and whether every page of fixtures/modern renders the same in Chromium
// with the minified Bootstrap and site.css in place of the originals (full
// page screenshots at 360 and 1280 px, animations and transitions off,
// compared pixel by pixel).
// Run: node bench/css-minifiers.js   [--no-record]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { minify as cssoMinify } from 'csso';
import { transform } from 'lightningcss';
import { launchBrowser } from '../src/browser/launch.js';
import { mimeType } from '../src/site/mime.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const BOOTSTRAP = path.dirname(require.resolve('bootstrap/package.json'));
const SHEETS = {
  'bootstrap.css (5.3.9, as written)': path.join(BOOTSTRAP, 'dist/css/bootstrap.css'),
  'bootstrap.min.css (5.3.9, as shipped)': path.join(BOOTSTRAP, 'dist/css/bootstrap.min.css'),
  'fixtures/modern/css/site.css': path.join(ROOT, 'fixtures/modern/css/site.css'),
  'fixtures/h2-sample/css/style.css': path.join(ROOT, 'fixtures/h2-sample/css/style.css'),
  'fixtures/markup/css-site/style.css': path.join(ROOT, 'fixtures/markup/css-site/style.css'),
};
/** @type {Record<string, (css: string) => string>} */
const MINIFIERS = {
  'csso (restructure)': (css) => cssoMinify(css, { restructure: true, comments: 'exclamation' }).css,
  'csso (no restructure)': (css) => cssoMinify(css, { restructure: false, comments: 'exclamation' }).css,
  lightningcss: (css) => transform({ filename: 'a.css', code: Buffer.from(css), minify: true }).code.toString(),
};
const MODERN = path.join(ROOT, 'fixtures/modern');
const PAGES = ['index.html', 'gallery.html', 'blog/index.html', 'blog/first-post.html', 'about/index.html'];
const WIDTHS = [360, 1280];
const NO_MOTION = '*,*::before,*::after{animation:none!important;transition:none!important;caret-color:transparent!important}';

const br = (/** @type {string} */ s) => zlib.brotliCompressSync(Buffer.from(s), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

const rows = ['| style sheet | original | ' + Object.keys(MINIFIERS).join(' | ') + ' |', `| --- | ---: |${' ---: |'.repeat(Object.keys(MINIFIERS).length)}`];
for (const [name, file] of Object.entries(SHEETS)) {
  const css = fs.readFileSync(file, 'utf8');
  const cells = Object.values(MINIFIERS).map((minify) => {
    const out = minify(css);
    return `${Buffer.byteLength(out).toLocaleString('en-US')} B, br ${br(out).toLocaleString('en-US')} B`;
  });
  rows.push(`| ${name} | ${Buffer.byteLength(css).toLocaleString('en-US')} B, br ${br(css).toLocaleString('en-US')} B | ${cells.join(' | ')} |`);
}

/**
 * Screenshots of every page of fixtures/modern, its style sheets replaced by `override`.
 * @param {import('playwright-core').Browser} browser
 * @param {Record<string, string>} override site path → CSS text
 */
async function screenshots(browser, override) {
  /** @type {Buffer[]} */
  const shots = [];
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    await context.route('http://css.invalid/**', (route) => {
      const sitePath = decodeURIComponent(new URL(route.request().url()).pathname.slice(1));
      if (override[sitePath] !== undefined) return route.fulfill({ contentType: 'text/css', body: override[sitePath] });
      const file = path.join(MODERN, sitePath);
      return fs.existsSync(file) ? route.fulfill({ contentType: mimeType(file), body: fs.readFileSync(file) }) : route.fulfill({ status: 404 });
    });
    const tab = await context.newPage();
    for (const page of PAGES) {
      await tab.goto(`http://css.invalid/${page}`, { waitUntil: 'networkidle' });
      await tab.addStyleTag({ content: NO_MOTION });
      await tab.evaluate(() => document.fonts.ready);
      const png = await tab.screenshot({ fullPage: true, animations: 'disabled' });
      shots.push(await sharp(png).raw().toBuffer());
    }
    await context.close();
  }
  return shots;
}

const { browser } = await launchBrowser();
const sameRendering = [];
try {
  const sheets = ['vendor/bootstrap/css/bootstrap.min.css', 'css/site.css'];
  const reference = await screenshots(browser, {});
  for (const [name, minify] of Object.entries(MINIFIERS)) {
    const override = Object.fromEntries(sheets.map((s) => [s, minify(fs.readFileSync(path.join(MODERN, s), 'utf8'))]));
    const shots = await screenshots(browser, override);
    const differing = shots.filter((shot, i) => !shot.equals(reference[i])).length;
    sameRendering.push(`- ${name}: ${differing === 0 ? 'every page the same' : `${differing} of ${shots.length} screenshots differ`} (${PAGES.length} pages × ${WIDTHS.join(' and ')} px)`);
  }
} finally {
  await browser.close();
}

const table = `${rows.join('\n')}\n\nfixtures/modern with its Bootstrap and site.css minified by each, against the originals in Chromium:\n\n${sameRendering.join('\n')}`;
console.log(table);
await recordMeasurement('css-minifiers.md', 'csso and lightningcss', table);
