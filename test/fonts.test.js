// The fonts pass: a lossless WOFF2 first in each @font-face src (the rest of
// the CSS byte for byte, the WOFF2's tables the font's, its glyphs drawn alike
// in Chromium), faces it leaves alone (already WOFF2, other origins, files that
// are not fonts), and with --subset-fonts a subset of the pages' characters
// in a rule after the full font's, which still draws what a script adds.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import fontverter from 'fontverter';
import subsetFont from 'subset-font';
import * as hb from 'harfbuzzjs';
import { build } from '../src/build/pipeline.js';
import { Site } from '../src/site/site.js';
import { readTables } from '../src/fonts/sfnt.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { allReferences } from './helpers/references.js';
import { chromiumTest, launchChromium } from './helpers/chromium.js';

const DEJAVU = '/usr/share/fonts/truetype/dejavu';
const ORIGIN = 'http://fonts.test';

/** @param {import('../src/build/summary.js').BuildSummary} summary */
const fontsReport = (summary) => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'fonts'));

const CSS = `@charset "utf-8";
/* The test site's fonts. Café: a non-ASCII byte in a comment stays as it is. */
@font-face {
  font-family: "Test Sans";
  src: url("../fonts/sans.ttf") format("truetype");
}
@font-face {
  font-family: 'Test Serif';
  font-weight: 700;
  src: local("Test Serif Bold"),
       url(../fonts/serif-bold.woff) format("woff"),
       url(../fonts/serif-bold.ttf) format("truetype");
}
@font-face{font-family:Ready;src:url(../fonts/ready.woff2) format("woff2"),url(../fonts/ready.ttf) format("truetype")}
@font-face { font-family: Remote; src: url(https://fonts.example.com/remote.ttf) format("truetype"); }
@font-face { font-family: Broken; src: url(../fonts/error-page.woff) format("woff"); }
@font-face { font-family: Fallback; src: url(../fonts/error-page.woff) format("woff"), url(../fonts/sans.ttf) format("truetype"); }
body { font: 16px/1.3 "Test Sans", monospace; margin: 8px; }
h1 { font: 700 32px 'Test Serif', monospace; }
`;

const ERROR_PAGE = '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n';

/**
 * A page of characters of a font at several sizes, in its family.
 * @param {string} family
 * @param {string} characters
 */
function glyphPage(family, characters) {
  const sizes = [12, 16, 32, 64];
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="css/site.css"><style>p{margin:0;word-break:break-all;font-family:"${family}",monospace}</style></head><body>${sizes.map((s) => `<p style="font-size:${s}px">${characters}</p>`).join('')}</body></html>`;
}

/**
 * The characters of a font's cmap in a few blocks (Latin, Greek, Cyrillic, punctuation, arrows), HTML-escaped.
 * @param {Buffer} font
 */
function sampleCharacters(font) {
  const face = new hb.Face(new hb.Blob(font));
  const codes = [...face.collectUnicodes()].filter((c) => (c >= 0x21 && c < 0x250) || (c >= 0x370 && c < 0x460) || (c >= 0x2010 && c < 0x2200));
  return codes.map((c) => `&#x${c.toString(16)};`).join('');
}

/**
 * The tables of a font file (a WOFF or WOFF2 decoded).
 * @param {Buffer} bytes
 */
async function tablesOf(bytes) {
  return readTables(await fontverter.convert(bytes, 'sfnt'));
}

/**
 * Every glyph's outline and advance, as harfbuzz reads them (an implementation apart from the pass's own check).
 * @param {Buffer} sfnt
 */
function outlines(sfnt) {
  const face = new hb.Face(new hb.Blob(sfnt));
  const font = new hb.Font(face);
  const out = [];
  const count = Buffer.from(/** @type {Uint8Array} */ (face.referenceTable('maxp'))).readUInt16BE(4);
  for (let glyph = 0; glyph < count; glyph++) out.push(`${font.glyphHAdvance(glyph)} ${font.glyphToPath(glyph)}`);
  return out;
}

/**
 * The code points a font maps, as harfbuzz reads them.
 * @param {Buffer} sfnt
 */
function codePoints(sfnt) {
  return [...new hb.Face(new hb.Blob(sfnt)).collectUnicodes()].sort((a, b) => a - b);
}

/** @param {number} first @param {number} last */
const range = (first, last) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

/** @param {string} text */
const codesOf = (text) => [...new Set([...text].map((c) => /** @type {number} */ (c.codePointAt(0))))].sort((a, b) => a - b);

describe('fonts: a WOFF2 first in src', () => {
  /** @type {string} */
  let input;
  /** @type {string} */
  let out;
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  const read = (/** @type {string} */ root, /** @type {string} */ file) => fs.readFile(path.join(root, file));
  beforeAll(async () => {
    const serifBold = await fs.readFile(`${DEJAVU}/DejaVuSerif-Bold.ttf`);
    const sans = await fs.readFile(`${DEJAVU}/DejaVuSans.ttf`);
    input = await writeTree(await tempDir(), {
      'css/site.css': CSS,
      'fonts/sans.ttf': sans,
      'fonts/serif-bold.ttf': serifBold,
      'fonts/serif-bold.woff': await fontverter.convert(serifBold, 'woff'),
      'fonts/ready.woff2': await fs.readFile('node_modules/fontverter/testdata/Roboto-400.woff2'),
      'fonts/ready.ttf': await fs.readFile('node_modules/fontverter/testdata/Roboto-400.ttf'),
      'fonts/error-page.woff': ERROR_PAGE,
      'index.html': '<!doctype html><html><head><meta charset="utf-8">\n'
        + '<link rel="preload" href="fonts/sans.ttf" as="font" type="font/ttf" crossorigin>\n'
        + '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Roboto">\n'
        + '<link rel="stylesheet" href="css/site.css">\n'
        + '<style>@font-face{font-family:Inline;src:url(fonts/sans.ttf)}</style>\n'
        + '</head><body><h1>Bold serif</h1><p>Sans text.</p></body></html>\n',
      'glyphs.html': glyphPage('Test Sans', sampleCharacters(sans)),
      'serif.html': glyphPage('Test Serif', sampleCharacters(serifBold)).replace('font-family:"Test Serif"', 'font-weight:700;font-family:"Test Serif"'),
    });
    out = path.join(await tempDir(), 'out');
    summary = await build({ input, output: out, only: ['fonts'], cache: false });
  }, 120_000);

  it('puts a WOFF2 first among the url()s of TTF and WOFF faces, after local(), and changes no other byte of the CSS', async () => {
    const expected = CSS
      .replace('src: url("../fonts/sans.ttf")', 'src: url("../fonts/sans.woff2") format("woff2"), url("../fonts/sans.ttf")')
      .replace('src: local("Test Serif Bold"),\n       url(../fonts/serif-bold.woff)', 'src: local("Test Serif Bold"),\n       url(../fonts/serif-bold.woff2) format("woff2"),\n       url(../fonts/serif-bold.woff)')
      .replace('src: url(../fonts/error-page.woff) format("woff"), url(../fonts/sans.ttf)', 'src: url(../fonts/sans.woff2) format("woff2"), url(../fonts/error-page.woff) format("woff"), url(../fonts/sans.ttf)');
    expect((await read(out, 'css/site.css')).equals(Buffer.from(expected))).toBe(true);
  });

  it('edits a <style> element\'s face in place, and points the page\'s preload of the TTF at the WOFF2', async () => {
    const before = (await read(input, 'index.html')).toString('utf8');
    const after = (await read(out, 'index.html')).toString('utf8');
    expect(after).toBe(before
      .replace('href="fonts/sans.ttf" as="font"', 'href="fonts/sans.woff2" as="font"')
      .replace('src:url(fonts/sans.ttf)', 'src:url(fonts/sans.woff2) format("woff2"), url(fonts/sans.ttf)'));
    expect(fontsReport(summary).referencesRewritten).toBe(1);
  });

  it('makes WOFF2s that decode to the fonts\' tables: each table byte for byte but those WOFF2 rebuilds, every glyph drawn alike', async () => {
    for (const [woff2, ttf] of [['fonts/sans.woff2', 'fonts/sans.ttf'], ['fonts/serif-bold.woff2', 'fonts/serif-bold.ttf']]) {
      const bytes = await read(out, woff2);
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('wOF2');
      const original = await read(input, ttf);
      const decoded = await fontverter.convert(bytes, 'sfnt');
      const a = readTables(original);
      const b = readTables(decoded);
      expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
      for (const [tag, table] of a) {
        if (tag === 'glyf' || tag === 'loca' || tag === 'head') continue;
        expect(Buffer.from(/** @type {Uint8Array} */ (b.get(tag))).equals(table), `${ttf}: table ${tag}`).toBe(true);
      }
      // head: all but the checksum adjustment and flags bit 11 ("transformed by a lossless encoding").
      const head = (/** @type {Map<string, Uint8Array>} */ t) => {
        const copy = Buffer.from(/** @type {Uint8Array} */ (t.get('head')));
        copy.writeUInt32BE(0, 8);
        copy.writeUInt16BE(copy.readUInt16BE(16) & ~0x0800, 16);
        return copy.toString('hex');
      };
      expect(head(b)).toBe(head(a));
      expect(outlines(decoded)).toEqual(outlines(original));
      expect(bytes.length).toBeLessThan(original.length / 2);
    }
  });

  it('leaves a face that already has a WOFF2 as it is', async () => {
    expect((await read(out, 'css/site.css')).toString('utf8')).toContain('@font-face{font-family:Ready;src:url(../fonts/ready.woff2) format("woff2"),url(../fonts/ready.ttf) format("truetype")}');
    expect(fontsReport(summary).decisions).toContainEqual({ file: 'css/site.css', action: 'kept', reason: 'font-family "Ready": already has a WOFF2' });
    expect(await fs.readdir(path.join(out, 'fonts'))).not.toContain('ready-2.woff2');
  });

  it('lists fonts and font style sheets of other origins, and leaves them alone', async () => {
    const decisions = fontsReport(summary).decisions;
    expect(decisions).toContainEqual({ file: '', action: 'skipped', reason: '2 remote fonts and font style sheets of other origins left alone (never fetched): https://fonts.googleapis.com/css2?family=Roboto, https://fonts.example.com/remote.ttf' });
    expect(decisions).toContainEqual({ file: 'css/site.css', action: 'skipped', reason: 'font-family "Remote": a font of another origin, left alone (https://fonts.example.com/remote.ttf)' });
  });

  it('warns once about a file that is not a font, leaves it as it is and never points a WOFF2 at it', async () => {
    expect(summary.warnings.filter((w) => w.code.startsWith('font'))).toEqual([
      { file: 'fonts/error-page.woff', code: 'font-not-a-font', severity: 'warning', message: 'fonts: not a font (starts with "<!DOCTYPE html>"): left as it is, no WOFF2 made from it' },
    ]);
    expect((await read(out, 'fonts/error-page.woff')).toString('utf8')).toBe(ERROR_PAGE);
    expect((await read(out, 'css/site.css')).toString('utf8')).toContain('@font-face { font-family: Broken; src: url(../fonts/error-page.woff) format("woff"); }');
    expect((await fs.readdir(path.join(out, 'fonts'))).sort()).toEqual(['error-page.woff', 'ready.ttf', 'ready.woff2', 'sans.ttf', 'sans.woff2', 'serif-bold.ttf', 'serif-bold.woff', 'serif-bold.woff2']);
  });

  it('reports each font with its bytes, the style sheets and pages it changed, and every reference resolves', async () => {
    const report = fontsReport(summary);
    const size = async (/** @type {string} */ root, /** @type {string} */ file) => (await fs.stat(path.join(root, file))).size;
    expect(report.files).toEqual([
      { path: 'fonts/sans.woff2', before: await size(input, 'fonts/sans.ttf'), after: await size(out, 'fonts/sans.woff2') },
      { path: 'fonts/serif-bold.woff2', before: await size(input, 'fonts/serif-bold.woff'), after: await size(out, 'fonts/serif-bold.woff2') },
      { path: 'css/site.css', before: await size(input, 'css/site.css'), after: await size(out, 'css/site.css') },
      { path: 'index.html', before: await size(input, 'index.html'), after: await size(out, 'index.html') },
    ]);
    const byFile = (/** @type {string} */ file) => report.decisions.filter((d) => d.file === file).map((d) => d.reason);
    expect(byFile('fonts/sans.ttf')).toEqual([expect.stringMatching(/^WOFF2 fonts\/sans\.woff2 first in src of 3 @font-face rules: 759720 → \d+ B \(-\d+\.\d%\); decoded again, it holds the font's tables$/)]);
    expect(byFile('fonts/serif-bold.woff')).toEqual([expect.stringMatching(/^WOFF2 fonts\/serif-bold\.woff2 first in src of 1 @font-face rule: \d+ → \d+ B/)]);
    expect(byFile('fonts/error-page.woff')).toEqual(['not a font (starts with "<!DOCTYPE html>")']);
    const site = await Site.read(out);
    expect(allReferences(site).filter((r) => r.status !== 'ok' && r.status !== 'external')).toEqual([]);
  });

  chromiumTest('draws every sampled character the same from the WOFF2 as from the font it came from, at 12, 16, 32 and 64 px, and loads the WOFF2', async () => {
    const browser = await launchChromium();
    try {
      for (const [page, family, original, woff2] of [['glyphs.html', 'Test Sans', 'fonts/sans.ttf', 'fonts/sans.woff2'], ['serif.html', 'Test Serif', 'fonts/serif-bold.woff', 'fonts/serif-bold.woff2']]) {
        const before = await render(browser, input, page);
        const after = await render(browser, out, page);
        expect(before.requested).toContain(original);
        expect(after.requested).toContain(woff2);
        expect(after.requested).not.toContain(original);
        expect(after.faces).toContainEqual({ family, status: 'loaded' });
        expect(after.pixels.equals(before.pixels), `${page}: pixels`).toBe(true);
        // The fonts are drawn: without them (the monospace fallback) the page differs.
        const fallback = await render(browser, out, page, { blockFonts: true });
        expect(fallback.pixels.equals(after.pixels)).toBe(false);
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});

const SUBSET_CSS = `@font-face {
  font-family: "Test Sans";
  src: url("../fonts/sans.ttf") format("truetype");
}
body { font: 20px/1.4 "Test Sans", monospace; margin: 8px; }
h1 { text-transform: uppercase; font-size: 40px; }
small { font-size: 11px; }
input { font: inherit; }
code { font-family: monospace; }
.note::before { content: "\\2192  "; }
.hidden { display: none; }
`;

describe('fonts: subsets (--subset-fonts)', () => {
  /** @type {string} */
  let input;
  /** @type {string} */
  let out;
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** What the pages show in "Test Sans": text-transform applied, ::before content, a placeholder, hidden text; not <code>'s monospace. */
  const SHOWN = 'SHOUT IT' + 'Hello, wörld!' + 'Noted' + '\u2192 ' + 'Search\u2026' + '§ hidden' + 'Ωmega 42' + 'fine print';
  /**
   * The letters FreeType's auto-hinter measures, which come along: the Latin alphabet and digits and the Latin
   * ligatures always, the Greek alphabet for Ω (U+03A2 is no character).
   */
  const HINTING = String.fromCodePoint(...range(0x41, 0x5a), ...range(0x61, 0x7a), ...range(0x30, 0x39), ...range(0xfb00, 0xfb06), ...range(0x391, 0x3a9).filter((c) => c !== 0x3a2), ...range(0x3b1, 0x3c9));
  const KEPT = SHOWN + HINTING;
  beforeAll(async () => {
    input = await writeTree(await tempDir(), {
      'css/site.css': SUBSET_CSS,
      'fonts/sans.ttf': await fs.readFile(`${DEJAVU}/DejaVuSans.ttf`),
      'index.html': '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="css/site.css"></head><body>\n'
        + '<h1>Shout it</h1>\n<p>Hello, wörld! <code>#qz</code></p>\n<p class="note">Noted</p>\n<input placeholder="Search…">\n<div class="hidden">§ hidden</div>\n</body></html>\n',
      'about.html': '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="css/site.css"></head><body><p>Ωmega 42 <small>fine print</small></p></body></html>\n',
      'plain.html': '<!doctype html><html><head><meta charset="utf-8"></head><body><p>No web font here: xyzzy</p></body></html>\n',
    });
    out = path.join(await tempDir(), 'out');
    summary = await build({ input, output: out, only: ['fonts'], cache: false, subsetFonts: true });
  }, 120_000);

  /** The subset's site path. */
  const subsetPath = async () => {
    const names = (await fs.readdir(path.join(out, 'fonts'))).filter((n) => /^sans-subset-[0-9a-f]{8}\.woff2$/.test(n));
    expect(names).toHaveLength(1);
    return `fonts/${names[0]}`;
  };

  chromiumTest('cuts the font to exactly the characters the pages show in its family, and the letters the auto-hinter measures', async () => {
    const subset = await fontverter.convert(await fs.readFile(path.join(out, await subsetPath())), 'sfnt');
    expect(codePoints(subset)).toEqual(codesOf(KEPT));
    // Each kept glyph is the full font's, outline and advance.
    const full = await fs.readFile(`${DEJAVU}/DejaVuSans.ttf`);
    const draw = (/** @type {Buffer} */ sfnt, /** @type {number} */ code) => {
      const font = new hb.Font(new hb.Face(new hb.Blob(sfnt)));
      const glyph = /** @type {number} */ (font.nominalGlyph(code));
      return `${font.glyphHAdvance(glyph)} ${font.glyphToPath(glyph)}`;
    };
    for (const code of codesOf(KEPT)) expect(draw(subset, code)).toBe(draw(full, code));
  }, 120_000);

  chromiumTest('adds the subset\'s rule after the full font\'s, with its unicode-range, and keeps the rest of the CSS', async () => {
    const subset = await subsetPath();
    const css = (await fs.readFile(path.join(out, 'css/site.css'), 'utf8'));
    const rule = /\n@font-face\{font-family: "Test Sans";src:url\(([^)]+)\) format\("woff2"\);unicode-range:([^}]+)\}\n/.exec(css);
    expect(rule?.[1]).toBe(`../${subset}`);
    const listed = /** @type {string} */ (rule?.[2]).split(',').flatMap((item) => {
      const [first, last = first] = item.replace('U+', '').split('-').map((h) => parseInt(h, 16));
      return Array.from({ length: last - first + 1 }, (_, i) => first + i);
    });
    expect(listed).toEqual(codesOf(KEPT));
    expect(css.replace(/** @type {string} */ (rule?.[0]), '\n')).toBe(SUBSET_CSS.replace('src: url("../fonts/sans.ttf")', 'src: url("../fonts/sans.woff2") format("woff2"), url("../fonts/sans.ttf")'));
    const decision = fontsReport(summary).decisions.find((d) => d.file === 'fonts/sans.ttf' && d.reason.startsWith('subset'));
    const counts = `${codesOf(KEPT).length} characters of font-family "Test Sans" \\(${codesOf(SHOWN).length} shown, ${codesOf(KEPT).length - codesOf(SHOWN).length} for hinting\\)`;
    expect(decision?.reason).toMatch(new RegExp(`^subset ${subset.replace('.', '\\.')} in a rule after the full font's in css/site.css: ${counts}, \\d+ → \\d+ B, drawn alike in Chromium; fonts loaded by the 2 pages that use it: \\d+ → \\d+ B$`));
  }, 120_000);

  chromiumTest('draws the pages the same with the subset as with the full TTF, and they load the subset alone', async () => {
    const subset = await subsetPath();
    const browser = await launchChromium();
    try {
      for (const page of ['index.html', 'about.html']) {
        const before = await render(browser, input, page);
        const after = await render(browser, out, page);
        expect(before.requested).toContain('fonts/sans.ttf');
        expect(after.requested.filter((r) => r.startsWith('fonts/'))).toEqual([subset]);
        expect(after.faces).toEqual([{ family: 'Test Sans', status: 'unloaded' }, { family: 'Test Sans', status: 'loaded' }]);
        expect(after.pixels.equals(before.pixels), `${page}: pixels`).toBe(true);
        const fallback = await render(browser, out, page, { blockFonts: true });
        expect(fallback.pixels.equals(after.pixels)).toBe(false);
      }
    } finally {
      await browser.close();
    }
  }, 120_000);

  chromiumTest('draws characters a script adds after load with the full font, which then loads', async () => {
    const browser = await launchChromium();
    const added = 'Жжщ';
    const addText = async (/** @type {import('playwright-core').Page} */ page) => {
      await page.evaluate((text) => {
        const p = document.createElement('p');
        p.id = 'added';
        p.textContent = text;
        document.body.append(p);
      }, added);
    };
    try {
      const before = await render(browser, input, 'index.html', { then: addText, shot: '#added' });
      const after = await render(browser, out, 'index.html', { then: addText, shot: '#added' });
      expect(after.requested).toContain('fonts/sans.woff2');
      expect(after.faces).toEqual([{ family: 'Test Sans', status: 'loaded' }, { family: 'Test Sans', status: 'loaded' }]);
      expect(after.pixels.equals(before.pixels)).toBe(true);
      const fallback = await render(browser, out, 'index.html', { then: addText, shot: '#added', blockFonts: true });
      expect(fallback.pixels.equals(after.pixels)).toBe(false);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('leaves alone a page that does not use the family, and every reference resolves', async () => {
    expect((await fs.readFile(path.join(out, 'plain.html'))).equals(await fs.readFile(path.join(input, 'plain.html')))).toBe(true);
    const site = await Site.read(out);
    expect(allReferences(site).filter((r) => r.status !== 'ok')).toEqual([]);
  });
});

describe('fonts: a subset with a ligature no character maps to', () => {
  chromiumTest('keeps the Greek and Cyrillic reference letters the auto-hinter styles the ligature by, and draws "Coffee" alike', async () => {
    // A web font cut down to Latin, Greek and Cyrillic without U+FB00-FB06: its "ff" ligature is reached only through
    // the substitutions, which the font shares between scripts; FreeType styles it as the first of them, Cyrillic.
    const serif = await subsetFont(await fs.readFile(`${DEJAVU}/DejaVuSerif-Bold.ttf`), String.fromCodePoint(...range(0x20, 0x7e), ...range(0x370, 0x3ff), ...range(0x400, 0x4ff)), { targetFormat: 'truetype' });
    const input = await writeTree(await tempDir(), {
      'fonts/serif.ttf': serif,
      'index.html': '<!doctype html><html><head><meta charset="utf-8"><style>@font-face{font-family:Brand;src:url(fonts/serif.ttf)}'
        + 'h1{font:700 28px Brand,monospace}</style></head><body><h1>Deep Field Coffee</h1></body></html>\n',
    });
    const out = path.join(await tempDir(), 'out');
    await build({ input, output: out, only: ['fonts'], cache: false, subsetFonts: true });
    const name = (await fs.readdir(path.join(out, 'fonts'))).find((n) => n.startsWith('serif-subset-'));
    const subset = await fontverter.convert(await fs.readFile(path.join(out, 'fonts', /** @type {string} */ (name))), 'sfnt');
    const has = new Set(codePoints(serif));
    const expected = codesOf('Deep Field Coffee ' + String.fromCodePoint(...range(0x41, 0x5a), ...range(0x61, 0x7a), ...range(0x30, 0x39), ...range(0x391, 0x3a9), ...range(0x3b1, 0x3c9), ...range(0x410, 0x44f))).filter((c) => has.has(c));
    expect(codePoints(subset)).toEqual(expected);
    const browser = await launchChromium();
    try {
      const before = await render(browser, input, 'index.html');
      const after = await render(browser, out, 'index.html');
      expect(after.requested).toEqual(['index.html', `fonts/${name}`]);
      expect(after.pixels.equals(before.pixels)).toBe(true);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('fonts: a page that shows a character the font does not have', () => {
  chromiumTest('is named in the decision, where Chromium loads the full font too, and the subset is kept where it still saves bytes', async () => {
    const input = await writeTree(await tempDir(), {
      'fonts/serif.ttf': await fs.readFile(`${DEJAVU}/DejaVuSerif-Bold.ttf`),
      'css/site.css': '@font-face { font-family: Brand; src: url(../fonts/serif.ttf); }\nbody { font: 20px Brand, monospace; }\n',
      'a.html': '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="css/site.css"></head><body><p>Plain words</p></body></html>\n',
      'b.html': '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="css/site.css"></head><body><p>Smile \u{1F600}</p></body></html>\n',
    });
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, only: ['fonts'], cache: false, subsetFonts: true });
    const decision = fontsReport(summary).decisions.find((d) => d.file === 'fonts/serif.ttf' && /subset/.test(d.reason));
    expect(decision?.action).toBe('changed');
    expect(decision?.reason).toMatch(/; fonts loaded by the 2 pages that use it: (\d+) → \d+ B; the full font still loads on 1 of 2 pages \(b\.html: shows U\+1F600, not in the font\)$/);
  }, 120_000);
});

/**
 * A page of a site directory drawn in Chromium (served from the directory, nothing from the network): its screenshot's
 * pixels, the site files it requested and its font faces' status, once its fonts have loaded.
 * @param {import('playwright-core').Browser} browser
 * @param {string} root
 * @param {string} page
 * @param {{ blockFonts?: boolean, then?: (page: import('playwright-core').Page) => Promise<void>, shot?: string }} [how]
 *   blockFonts: font files are not served; then: runs after load, before the fonts are waited for again; shot: a selector to screenshot
 */
async function render(browser, root, page, how = {}) {
  const context = await browser.newContext({ viewport: { width: 900, height: 700 }, deviceScaleFactor: 1, serviceWorkers: 'block' });
  /** @type {string[]} */
  const requested = [];
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== ORIGIN) return route.abort('blockedbyclient');
    const file = decodeURIComponent(url.pathname).slice(1);
    if (how.blockFonts && /\.(ttf|otf|woff2?)$/.test(file)) return route.abort('blockedbyclient');
    const body = await fs.readFile(path.join(root, file)).catch(() => null);
    if (!body) return route.fulfill({ status: 404, body: '' });
    requested.push(file);
    return route.fulfill({ status: 200, body, contentType: /\.css$/.test(file) ? 'text/css' : /\.html$/.test(file) ? 'text/html' : 'font/woff2' });
  });
  try {
    const tab = await context.newPage();
    await tab.goto(`${ORIGIN}/${page}`, { waitUntil: 'load' });
    const settle = () => tab.evaluate(async () => {
      await document.fonts.ready;
      for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
      await document.fonts.ready;
    });
    await settle();
    if (how.then) {
      await how.then(tab);
      await settle();
    }
    const png = how.shot ? await tab.locator(how.shot).screenshot() : await tab.screenshot({ fullPage: true });
    const pixels = await sharp(png).raw().toBuffer();
    const faces = await tab.evaluate(() => [...document.fonts].map((f) => ({ family: f.family.replace(/^"|"$/g, ''), status: f.status })));
    return { pixels, requested, faces };
  } finally {
    await context.close();
  }
}
