// The hash-names pass: every file pages and style sheets load gets a name with
// its content hash, every kind of reference that loads it follows, style sheets
// are hashed bottom-up, and builds are deterministic and idempotent.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { MARKER } from '../src/build/output.js';
import { PASS_ORDER } from '../src/passes/index.js';
import { hashPrefix, hashedPath, skipReason } from '../src/passes/hash-names.js';
import { cachePolicy, isFingerprinted } from '../src/configs/shared.js';
import { readTree, tempDir, writeTree } from './helpers/tmp.js';
import { mimeType } from '../src/site/mime.js';
import { chromiumTest, launchChromium } from './helpers/chromium.js';

/** @param {import('../src/build/summary.js').BuildSummary} summary */
const passReport = (summary) => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'hash-names'));

/** Each decision as one line, sorted. @param {import('../src/build/summary.js').BuildSummary} summary */
const decisions = (summary) => passReport(summary).decisions.map((d) => `${d.action} ${d.file}: ${d.reason}`).sort();

/**
 * The hashed name the naming rule gives, computed here without the pass's code: the
 * shortest prefix of the SHA-256, 8 hex digits or more, with a digit and a letter.
 * @param {string} sitePath
 * @param {string | Buffer} bytes
 */
function named(sitePath, bytes) {
  const hex = crypto.createHash('sha256').update(bytes).digest('hex');
  let n = 8;
  while (!/[0-9]/.test(hex.slice(0, n)) || !/[a-f]/.test(hex.slice(0, n))) n++;
  const dot = sitePath.lastIndexOf('.');
  return `${sitePath.slice(0, dot)}.${hex.slice(0, n)}${sitePath.slice(dot)}`;
}

/** The file name of a site path. @param {string} sitePath */
const base = (sitePath) => path.posix.basename(sitePath);

/** A tree without pagediet's marker, as name → bytes in hex. @param {string} root */
async function files(root) {
  const tree = await readTree(root);
  tree.delete(MARKER);
  return Object.fromEntries([...tree].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, bytes]) => [name, bytes.toString('hex')]));
}

const INDEX = `<!doctype html>
<html><head>
<meta charset="utf-8">
<title>Every kind</title>
<link rel="stylesheet" href="css/main.css">
<link rel="stylesheet" href="css/a.css">
<link rel="preload" href="fonts/face.woff2" as="font" type="font/woff2" crossorigin>
<link rel="modulepreload" href="js/lib.js">
<link rel="icon" href="/favicon.ico">
<style>@import url(css/print.css); .hero{background:url("img/hero.png")}</style>
<script src="js/app.js" defer></script>
</head>
<body>
<img src="img/logo.png" srcset="img/logo.png 1x, img/logo-2x.png 2x" alt="logo">
<picture><source srcset="img/photo.webp" type="image/webp"><img src="img/photo.jpg" alt="photo"></picture>
<div class="hero" style="background-image: url(img/tile.png)"></div>
<svg width="16" height="16"><use href="img/sprite.svg#icon"></use><image href="img/mark.png" width="4" height="4"/></svg>
<input type="image" src="img/go.png" alt="go">
<table background="img/table.png"><tr><td>cell</td></tr></table>
<object data="img/drawing.svg" type="image/svg+xml"></object><embed src="img/chart.svg">
<video poster="img/poster.jpg" controls><source src="media/clip.mp4" type="video/mp4"><track src="media/clip.vtt" kind="captions"></video>
<img src="img/app.3f9a1c2b.png" alt="">
<img src="img/blob" alt="">
<a href="img/logo.png">the logo</a> <a href="about.html">about</a>
<iframe src="frame.html"></iframe>
</body></html>
`;

const MAIN_CSS = '@import "base.css";\n@font-face{font-family:F;src:url(../fonts/face.woff2) format("woff2")}\n.logo{background-image:image-set("../img/logo.png" 1x,url(../img/logo-2x.png) 2x)}\n';
const BASE_CSS = 'body{background:url(../img/bg.png?v=3)}\n';
const PRINT_CSS = '@media print{h1{color:#000}}\n';
const A_CSS = '@import "b.css";\n.a{background:url(../img/tile.png)}\n';
const B_CSS = '@import "a.css";\n';
const SPRITE = '<svg xmlns="http://www.w3.org/2000/svg"><symbol id="icon" viewBox="0 0 16 16"><rect width="16" height="16" fill="#c00"/></symbol></svg>\n';

/**
 * A small site with every kind of reference that loads a file, and some that do not.
 * @param {Buffer} [bg] the bytes of img/bg.png, which only css/base.css uses
 */
async function everyKindSite(bg) {
  const png = (/** @type {number} */ n) => fs.readFile(`fixtures/h2-sample/img/1k-0${n}.png`);
  const jpg = await fs.readFile('fixtures/h2-sample/img/5k-02.jpg');
  return {
    'index.html': INDEX,
    'about.html': '<!doctype html><title>About</title><a href="index.html">home</a>\n',
    'frame.html': '<!doctype html><title>Frame</title><img src="img/logo.png" alt="">\n',
    'css/main.css': MAIN_CSS,
    'css/base.css': BASE_CSS,
    'css/print.css': PRINT_CSS,
    'css/a.css': A_CSS,
    'css/b.css': B_CSS,
    'fonts/face.woff2': 'wOF2: the bytes of a font\n',
    'img/logo.png': await png(1),
    'img/logo-2x.png': await png(2),
    'img/bg.png': bg ?? (await png(3)),
    'img/tile.png': await png(4),
    'img/hero.png': await png(5),
    'img/go.png': await png(6),
    'img/photo.jpg': jpg,
    'img/photo.webp': await fs.readFile('fixtures/modern/img/gallery/deep-field-detail.webp'),
    'img/poster.jpg': await fs.readFile('fixtures/h2-sample/img/5k-10.jpg'),
    'img/sprite.svg': SPRITE,
    'img/mark.png': await fs.readFile('fixtures/h2-sample/img/5k-01.png'),
    'img/table.png': await fs.readFile('fixtures/h2-sample/img/5k-03.png'),
    'img/drawing.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="4"/></svg>\n',
    'img/chart.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="4"/></svg>\n',
    'img/app.3f9a1c2b.png': await png(7),
    'img/blob': await png(8),
    'js/app.js': 'document.title += "!";\n',
    'js/lib.js': 'export const x = 1;\n',
    'media/clip.mp4': 'the bytes of a video\n',
    'media/clip.vtt': 'WEBVTT\n',
    'favicon.ico': await png(9),
    'notes.txt': 'nothing loads this\n',
  };
}

/**
 * The hashed names the site above must get, and the bytes of its style sheets once rewritten.
 * @param {Record<string, string | Buffer>} site
 */
function expectedNames(site) {
  /** @type {Record<string, string>} */
  const n = {};
  for (const p of ['fonts/face.woff2', 'img/logo.png', 'img/logo-2x.png', 'img/bg.png', 'img/tile.png', 'img/hero.png', 'img/go.png',
    'img/photo.jpg', 'img/photo.webp', 'img/poster.jpg', 'img/sprite.svg', 'img/mark.png', 'img/table.png', 'img/drawing.svg', 'img/chart.svg', 'js/app.js', 'media/clip.mp4', 'media/clip.vtt', 'favicon.ico', 'css/print.css']) {
    n[p] = named(p, site[p]);
  }
  const baseCss = `body{background:url(../img/${base(n['img/bg.png'])}?v=3)}\n`;
  n['css/base.css'] = named('css/base.css', baseCss);
  const mainCss = `@import "${base(n['css/base.css'])}";\n@font-face{font-family:F;src:url(../fonts/${base(n['fonts/face.woff2'])}) format("woff2")}\n`
    + `.logo{background-image:image-set("../img/${base(n['img/logo.png'])}" 1x,url(../img/${base(n['img/logo-2x.png'])}) 2x)}\n`;
  n['css/main.css'] = named('css/main.css', mainCss);
  const aCss = `@import "b.css";\n.a{background:url(../img/${base(n['img/tile.png'])})}\n`;
  return { n, css: { 'css/base.css': baseCss, 'css/main.css': mainCss, 'css/a.css': aCss } };
}

describe('hash-names on a site with every kind of reference', () => {
  /** @type {Record<string, string | Buffer>} */
  let site;
  /** @type {string} */
  let input;
  /** @type {string} */
  let out;
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** @type {ReturnType<typeof expectedNames>} */
  let expected;
  const read = (/** @type {string} */ file) => fs.readFile(path.join(out, file), 'utf8');

  beforeAll(async () => {
    site = await everyKindSite();
    input = await writeTree(await tempDir(), site);
    out = path.join(await tempDir(), 'out');
    summary = await build({ input, output: out, only: ['hash-names'], cache: false });
    expected = expectedNames(site);
  });

  it('runs by default, after css and just before precompress', () => {
    expect(PASS_ORDER.slice(-3)).toEqual(['css', 'hash-names', 'precompress']);
  });

  it('rewrites every kind of reference that loads a file, keeping queries and fragments; anchors, frames and preload-only files keep theirs', async () => {
    const { n } = expected;
    expect(await read('index.html')).toBe(`<!doctype html>
<html><head>
<meta charset="utf-8">
<title>Every kind</title>
<link rel="stylesheet" href="${n['css/main.css']}">
<link rel="stylesheet" href="css/a.css">
<link rel="preload" href="${n['fonts/face.woff2']}" as="font" type="font/woff2" crossorigin>
<link rel="modulepreload" href="js/lib.js">
<link rel="icon" href="/${n['favicon.ico']}">
<style>@import url(${n['css/print.css']}); .hero{background:url("${n['img/hero.png']}")}</style>
<script src="${n['js/app.js']}" defer></script>
</head>
<body>
<img src="${n['img/logo.png']}" srcset="${n['img/logo.png']} 1x, ${n['img/logo-2x.png']} 2x" alt="logo">
<picture><source srcset="${n['img/photo.webp']}" type="image/webp"><img src="${n['img/photo.jpg']}" alt="photo"></picture>
<div class="hero" style="background-image: url(${n['img/tile.png']})"></div>
<svg width="16" height="16"><use href="${n['img/sprite.svg']}#icon"></use><image href="${n['img/mark.png']}" width="4" height="4"/></svg>
<input type="image" src="${n['img/go.png']}" alt="go">
<table background="${n['img/table.png']}"><tr><td>cell</td></tr></table>
<object data="${n['img/drawing.svg']}" type="image/svg+xml"></object><embed src="${n['img/chart.svg']}">
<video poster="${n['img/poster.jpg']}" controls><source src="${n['media/clip.mp4']}" type="video/mp4"><track src="${n['media/clip.vtt']}" kind="captions"></video>
<img src="img/app.3f9a1c2b.png" alt="">
<img src="img/blob" alt="">
<a href="img/logo.png">the logo</a> <a href="about.html">about</a>
<iframe src="frame.html"></iframe>
</body></html>
`);
    // A page in a frame is a page: it keeps its name, and its own references follow.
    expect(await read('frame.html')).toBe(`<!doctype html><title>Frame</title><img src="${n['img/logo.png']}" alt="">\n`);
    expect(await read('about.html')).toBe(site['about.html']);
  });

  it('rewrites url(), image-set() and @import in style sheets bottom-up, and hashes each style sheet after its references changed', async () => {
    const { n, css } = expected;
    expect(await read(n['css/base.css'])).toBe(css['css/base.css']);
    expect(await read(n['css/main.css'])).toBe(css['css/main.css']);
    expect(await read(n['css/print.css'])).toBe(PRINT_CSS);
    // The originals stay, with the same bytes as their hashed copies.
    expect(await read('css/base.css')).toBe(css['css/base.css']);
    expect(await read('css/main.css')).toBe(css['css/main.css']);
    // An @import cycle keeps its names; its other references still follow.
    expect(await read('css/a.css')).toBe(css['css/a.css']);
    expect(await read('css/b.css')).toBe(B_CSS);
  });

  it('writes the hashed copies beside the originals, which stay with their bytes', async () => {
    const { n } = expected;
    const tree = await files(out);
    const hashed = Object.values(n).sort();
    expect(Object.keys(tree).sort()).toEqual([...Object.keys(site), ...hashed].sort());
    for (const [original, copy] of Object.entries(n)) {
      if (original.endsWith('.css')) continue;
      expect(tree[copy], copy).toBe(Buffer.from(site[original]).toString('hex'));
      expect(tree[original], original).toBe(Buffer.from(site[original]).toString('hex'));
    }
    // Every hashed name is one the server configs send as immutable.
    for (const copy of hashed) expect([copy, cachePolicy(copy)]).toEqual([copy, 'immutable']);
  });

  it('decides for every file that is not a page, with reasons that hold no names or figures', () => {
    const { n } = expected;
    const changed = Object.keys(n).map((p) => `changed ${p}: named by its content hash`);
    expect(decisions(summary)).toEqual([
      ...changed,
      'kept css/a.css: in an @import cycle: its name cannot hold the hash of its own content',
      'kept css/b.css: in an @import cycle: its name cannot hold the hash of its own content',
      'skipped img/app.3f9a1c2b.png: name already fingerprinted',
      'skipped img/blob: no extension to put the hash before',
      'skipped js/lib.js: only preloaded: what uses it asks for it by this name',
      'skipped notes.txt: not loaded by any page or style sheet',
    ].sort());
    const report = passReport(summary);
    // index.html: stylesheet, preload, icon, <style> @import and url(), script, src, srcset (2), picture source,
    // the <picture>'s img, style attribute, svg use and image, input, background, object, embed, poster, video source,
    // track; frame.html: one <img>; base.css: url(); main.css: @import, url(), image-set() (2); a.css: url().
    expect(report.referencesRewritten).toBe(21 + 1 + 1 + 4 + 1);
    expect(report.files.map((f) => f.path).sort()).toEqual(Object.values(n).sort());
    // The site model's note on the cycle; the pass warns about nothing.
    expect(summary.warnings.map((w) => w.code)).toEqual(['import-cycle']);
  });

  it('gives the same names and bytes on a second build, and changes nothing when built again over its output', async () => {
    const again = path.join(await tempDir(), 'out');
    await build({ input, output: again, only: ['hash-names'], cache: false });
    expect(await files(again)).toEqual(await files(out));

    const over = path.join(await tempDir(), 'out');
    const second = await build({ input: out, output: over, only: ['hash-names'], cache: false });
    expect(await files(over)).toEqual(await files(out));
    expect(passReport(second).decisions.filter((d) => d.action === 'changed')).toEqual([]);
    expect(passReport(second).referencesRewritten).toBe(0);
    expect(decisions(second).filter((d) => d.startsWith(`skipped ${expected.n['css/main.css']}`))).toEqual([`skipped ${expected.n['css/main.css']}: name already fingerprinted`]);
    expect(decisions(second)).toContain('skipped css/main.css: not loaded by any page or style sheet');
  });

  it('gives a style sheet a new name when only an image it uses changed, and those that import it too', async () => {
    const changedSite = await everyKindSite(await fs.readFile('fixtures/h2-sample/img/1k-10.png'));
    const changedOut = path.join(await tempDir(), 'out');
    await build({ input: await writeTree(await tempDir(), changedSite), output: changedOut, only: ['hash-names'], cache: false });
    const before = expected.n;
    const after = expectedNames(changedSite).n;
    const differ = Object.keys(before).filter((p) => before[p] !== after[p]).sort();
    // The image, the style sheet that uses it, and the one that imports that one; nothing else.
    expect(differ).toEqual(['css/base.css', 'css/main.css', 'img/bg.png']);
    // The output has exactly those names: the others as in the first build, these three new.
    const written = await files(changedOut);
    for (const p of Object.keys(after)) expect(written[after[p]], after[p]).toBeDefined();
    expect(differ.filter((p) => written[before[p]] !== undefined)).toEqual([]);
    const html = await fs.readFile(path.join(changedOut, 'index.html'), 'utf8');
    expect(html).toContain(`<link rel="stylesheet" href="${after['css/main.css']}">`);
    expect(html).not.toContain(before['css/main.css']);
    expect(await fs.readFile(path.join(changedOut, after['css/main.css']), 'utf8')).toContain(`@import "${base(after['css/base.css'])}";`);
    expect(await fs.readFile(path.join(changedOut, after['css/base.css']), 'utf8')).toBe(`body{background:url(../img/${base(after['img/bg.png'])}?v=3)}\n`);
  });

  it('with prune, removes each original nothing refers to any more; a linked one and the root favicon stay', async () => {
    const pruned = path.join(await tempDir(), 'out');
    const result = await build({ input, output: pruned, only: ['hash-names'], cache: false, prune: true });
    const { n } = expected;
    const kept = ['img/logo.png', 'favicon.ico'];
    const removed = Object.keys(n).filter((p) => !kept.includes(p));
    expect(Object.keys(await files(pruned)).sort()).toEqual([...Object.keys(site).filter((p) => !removed.includes(p)), ...Object.values(n)].sort());
    expect(decisions(result).filter((d) => d.startsWith('changed'))).toEqual([
      ...removed.map((p) => `changed ${p}: named by its content hash; the original removed (--prune)`),
      'changed favicon.ico: named by its content hash; the original kept: clients ask for it by this name',
      'changed img/logo.png: named by its content hash; the original kept: something still refers to it',
    ].sort());
    // The anchor still points at the original, which is still there.
    expect(await fs.readFile(path.join(pruned, 'index.html'), 'utf8')).toContain('<a href="img/logo.png">the logo</a>');
  });
});

describe('hash-names with other passes', () => {
  it('replays from the cache with the same output, the hashed copies parsed as style sheets again', async () => {
    const input = await writeTree(await tempDir(), await everyKindSite());
    const cacheDir = await tempDir('pagediet-memo-');
    const first = path.join(await tempDir(), 'out');
    const second = path.join(await tempDir(), 'out');
    const cold = await build({ input, output: first, only: ['css', 'hash-names'], cacheDir });
    const warm = await build({ input, output: second, only: ['css', 'hash-names'], cacheDir });
    expect(warm.work.passesReplayed).toBe(2);
    expect(await files(second)).toEqual(await files(first));
    const refs = (/** @type {import('../src/build/summary.js').BuildSummary} */ s) => s.references.map((r) => `${r.source} ${r.kind} ${r.url} ${r.status} ${r.target ?? ''}`).sort();
    expect(refs(warm)).toEqual(refs(cold));
    // The hashed style sheet's own references are in the model, pointing at hashed files.
    const main = cold.references.filter((r) => isFingerprinted(r.source) && r.source.startsWith('css/main.'));
    expect(main.map((r) => r.target).every((t) => t !== undefined && isFingerprinted(t))).toBe(true);
    expect(main).toHaveLength(4);
  });

  it('names the files an earlier pass made by their hash only, as nothing outside the build knows their names', async () => {
    // gif-to-png adds img/dot.png and points the page at it; hash-names names it by its hash, and drops dot.png.
    const gif = await fs.readFile('fixtures/gifs/banner-468-photo.gif');
    const input = await writeTree(await tempDir(), { 'index.html': '<!doctype html><img src="img/dot.gif" alt="">\n', 'img/dot.gif': gif });
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, only: ['gif-to-png', 'hash-names'], cache: false });
    const tree = await readTree(out);
    tree.delete(MARKER);
    const png = [...tree.keys()].find((p) => p.startsWith('img/dot.') && p.endsWith('.png'));
    expect(png).toBe(named('img/dot.png', /** @type {Buffer} */ (tree.get(/** @type {string} */ (png)))));
    expect([...tree.keys()].sort()).toEqual(['img/dot.gif', /** @type {string} */ (png), 'index.html'].sort());
    expect(tree.get('index.html')?.toString()).toBe(`<!doctype html><img src="${png}" alt="">\n`);
    expect(decisions(summary)).toEqual([
      'changed img/dot.png: named by its content hash; made by this build, so no other name is kept',
      'skipped img/dot.gif: not loaded by any page or style sheet',
    ]);
  });

  it('leaves the references in a fingerprinted file alone, and what only such files load', async () => {
    const input = await writeTree(await tempDir(), {
      'index.html': '<!doctype html><link rel="stylesheet" href="assets/index-CWg6gKPv.css"><img src="logo.png" alt="">\n',
      'assets/index-CWg6gKPv.css': 'body{background:url(/bg.png)}.l{background:url(/logo.png)}\n',
      'bg.png': await fs.readFile('fixtures/h2-sample/img/1k-01.png'),
      'logo.png': await fs.readFile('fixtures/h2-sample/img/1k-02.png'),
    });
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, only: ['hash-names'], cache: false });
    expect(await fs.readFile(path.join(out, 'assets/index-CWg6gKPv.css'), 'utf8')).toBe('body{background:url(/bg.png)}.l{background:url(/logo.png)}\n');
    expect(decisions(summary)).toEqual([
      'changed logo.png: named by its content hash',
      'skipped assets/index-CWg6gKPv.css: name already fingerprinted',
      'skipped bg.png: loaded only by files with fingerprinted names, which keep their bytes',
    ]);
  });
});

describe('hash-names and the names scripts hold', () => {
  /** A page whose scripts ask for some of its images by name, as a framework's hydration, a rollover or a manifest do. */
  async function scriptedSite() {
    const png = (/** @type {number} */ n) => fs.readFile(`fixtures/h2-sample/img/1k-0${n}.png`);
    return {
      'index.html': `<!doctype html><html><head><meta charset="utf-8"><title>Scripts</title>
<link rel="icon" href="icon.png"><link rel="manifest" href="site.webmanifest">
<script>var over = new Image(); over.src = 'img/over.png';</script>
<script src="js/app.js" defer></script>
</head><body>
<img id="logo" src="img/logo.png" alt="logo">
<img src="img/photo.png" alt="photo">
<img src="img/button.png" alt="go" onmouseover="this.src='img/button%20lit.png'">
<img src="img/button lit.png" alt=""><img src="img/over.png" alt="">
</body></html>
`,
      'js/app.js': 'addEventListener("load", () => { document.getElementById("logo").src = "img/logo.png"; });\n',
      'site.webmanifest': '{"icons":[{"src":"/icon.png","sizes":"16x16"}]}\n',
      'icon.png': await png(1),
      'img/logo.png': await png(2),
      'img/photo.png': await png(3),
      'img/over.png': await png(4),
      'img/button.png': await png(5),
      'img/button lit.png': await png(6),
    };
  }

  it('leaves each file a script names its name, and names the others by their hash', async () => {
    const site = await scriptedSite();
    const input = await writeTree(await tempDir(), site);
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, only: ['hash-names'], cache: false });
    const reason = 'named in a script: the script may ask for it by this name';
    expect(decisions(summary)).toEqual([
      'changed img/button.png: named by its content hash',
      'changed img/photo.png: named by its content hash',
      'changed js/app.js: named by its content hash',
      `skipped icon.png: ${reason}`,
      `skipped img/button lit.png: ${reason}`,
      `skipped img/logo.png: ${reason}`,
      `skipped img/over.png: ${reason}`,
      'skipped site.webmanifest: not loaded by any page or style sheet',
    ]);
    const html = await fs.readFile(path.join(out, 'index.html'), 'utf8');
    expect(html).toContain(`<img src="${named('img/photo.png', site['img/photo.png'])}" alt="photo">`);
    expect(html).toContain('<img id="logo" src="img/logo.png" alt="logo">');
    expect(html).toContain(`<script src="${named('js/app.js', site['js/app.js'])}" defer></script>`);
  });

  chromiumTest('the page fetches each image once, after its script has drawn the logo again by name', async () => {
    const input = await writeTree(await tempDir(), await scriptedSite());
    const out = path.join(await tempDir(), 'out');
    await build({ input, output: out, only: ['hash-names'], cache: false });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 800, height: 600 }, serviceWorkers: 'block' });
      /** @type {string[]} */
      const paths = [];
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.origin !== 'http://scripts.test') return route.abort();
        const sitePath = decodeURIComponent(url.pathname).slice(1);
        paths.push(sitePath);
        const body = await fs.readFile(path.join(out, sitePath)).catch(() => null);
        return body ? route.fulfill({ status: 200, body, headers: { 'content-type': mimeType(sitePath) } }) : route.fulfill({ status: 404, body: '' });
      });
      const tab = await context.newPage();
      await tab.goto('http://scripts.test/index.html', { waitUntil: 'load' });
      await tab.waitForFunction(() => /** @type {HTMLImageElement} */ (document.getElementById('logo')).complete);
      await context.close();
      const images = paths.filter((p) => p.startsWith('img/')).map((p) => p.replace(/\.[0-9a-f]{8,64}(\.[A-Za-z0-9]+)$/, '$1'));
      expect(images.sort()).toEqual(['img/button lit.png', 'img/button.png', 'img/logo.png', 'img/over.png', 'img/photo.png']);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('the naming rule', () => {
  it('takes the shortest prefix of 8 or more hex digits with a digit and a letter', () => {
    expect(hashPrefix('3f9a1c2b77')).toBe('3f9a1c2b');
    expect(hashPrefix('1234567890ab')).toBe('1234567890a');
    expect(hashPrefix('abcdefabcdef7')).toBe('abcdefabcdef7');
    expect(hashPrefix('3f9a1c2b77', 9)).toBe('3f9a1c2b7');
    expect(hashPrefix('12345678901234')).toBe(null);
  });

  it('gives names the server configs read as fingerprinted, for any hash', () => {
    for (let i = 0; i < 5000; i++) {
      const hash = /** @type {string} */ (hashPrefix(crypto.createHash('sha256').update(String(i)).digest('hex')));
      for (const p of ['logo.png', 'img/jquery.min.js', 'my photo.JPEG', 'a.b-c/d_e.woff2', 'v1.2/x.svg']) {
        const name = hashedPath(p, hash);
        if (!isFingerprinted(name) || cachePolicy(name) !== 'immutable') throw new Error(`${name} is not fingerprinted`);
      }
    }
    expect(hashedPath('img/jquery.min.js', '3f9a1c2b')).toBe('img/jquery.min.3f9a1c2b.js');
  });

  it('skips what the rule cannot name', () => {
    const img = new Set(/** @type {const} */ (['img']));
    expect(skipReason('img/logo.png', img)).toBe(null);
    expect(skipReason('.htaccess', img)).toBe('no extension to put the hash before');
    expect(skipReason('img/logo.p_g', img)).toBe('a name the servers\' fingerprint rule cannot read');
    expect(skipReason('assets/index-CWg6gKPv.js', img)).toBe('name already fingerprinted');
    expect(() => hashedPath('img/logo.p_g', '3f9a1c2b')).toThrow(/fingerprint rule/);
  });
});

describe('hash-names on fixtures/modern', () => {
  /** @type {string} */
  let out;
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  beforeAll(async () => {
    out = path.join(await tempDir(), 'out');
    summary = await build({ input: 'fixtures/modern', output: out, only: ['hash-names'], cache: false });
  });

  it('points every reference that loads a file at a fingerprinted name, and no anchor', async () => {
    const loads = summary.references.filter((r) => r.status === 'ok' && !['anchor', 'iframe', 'frame', 'link'].includes(r.kind) && !r.target?.endsWith('.html'));
    expect(loads).toHaveLength(78);
    expect(loads.filter((r) => !isFingerprinted(/** @type {string} */ (r.target))).map((r) => `${r.source} ${r.kind} ${r.url}`)).toEqual([]);
    const kinds = new Set(loads.map((r) => r.kind));
    expect([...kinds].sort()).toEqual(['css-url', 'img', 'script', 'stylesheet', 'style-attribute-url', 'svg-href'].sort());
    const anchors = summary.references.filter((r) => r.kind === 'anchor' && r.status === 'ok');
    expect(anchors.filter((r) => isFingerprinted(/** @type {string} */ (r.target)))).toEqual([]);
    // The sprite keeps its fragment, a photo its query.
    expect(summary.references.filter((r) => r.kind === 'svg-href' && r.url.includes('#icon-rss')).map((r) => r.url))
      .toContain(`../${named('img/icons/sprite.svg', await fs.readFile('fixtures/modern/img/icons/sprite.svg'))}#icon-rss`);
  });

  chromiumTest('draws every page the same before and after, loading only hashed names', async () => {
    const browser = await launchChromium();
    try {
      for (const page of ['index.html', 'gallery.html', 'about/index.html', 'blog/index.html', 'blog/first-post.html']) {
        /** @type {Buffer[]} */
        const shots = [];
        /** @type {string[][]} */
        const requested = [];
        for (const root of [path.resolve('fixtures/modern'), out]) {
          // Over http (a <use> of a file: URL is refused as cross-origin), from the folder, nothing else.
          const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
          /** @type {string[]} */
          const paths = [];
          /** @type {string[]} */
          const failed = [];
          await context.route('**/*', async (route) => {
            const url = new URL(route.request().url());
            if (url.origin !== 'http://hash.test') return route.abort();
            const sitePath = decodeURIComponent(url.pathname).slice(1);
            paths.push(sitePath);
            const body = await fs.readFile(path.join(root, sitePath)).catch(() => null);
            if (!body) {
              failed.push(sitePath);
              return route.fulfill({ status: 404, body: '' });
            }
            return route.fulfill({ status: 200, body, headers: { 'content-type': mimeType(sitePath) } });
          });
          const tab = await context.newPage();
          /** @type {string[]} */
          const errors = [];
          tab.on('pageerror', (error) => errors.push(error.message));
          await tab.goto(`http://hash.test/${page}`, { waitUntil: 'load' });
          await tab.evaluate(() => document.fonts.ready);
          shots.push(await tab.screenshot({ animations: 'disabled' }));
          await context.close();
          expect([failed, errors], page).toEqual([[], []]);
          requested.push(paths);
        }
        expect(shots[1].equals(shots[0]), page).toBe(true);
        // The same requests, one for one, each file under its hashed name.
        const unhashed = requested[1].map((p) => p.replace(/\.[0-9a-f]{8,64}(\.[A-Za-z0-9]+)$/, '$1'));
        expect(unhashed.sort(), page).toEqual([...requested[0]].sort());
        expect(requested[1].filter((p) => !p.endsWith('.html') && !isFingerprinted(p)), page).toEqual([]);
        expect(requested[1].filter((p) => isFingerprinted(p)).length, page).toBeGreaterThan(4);
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
