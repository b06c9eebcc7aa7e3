/**
 * The text-images pass: pictures are never replaced, a second build reads
 * its OCR and renderings from the cache, the CSS goes inline or in one shared
 * file, and the markup helpers write what Chromium maps images' attributes to.
 */
import path from 'node:path';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { layoutDeclarations, htmlText, contentDeclarations } from '../src/text-images/markup.js';
import { classifyPixels } from '../src/text-images/classify.js';
import { FAMILIES } from '../src/text-images/estimate.js';
import { chromiumTest } from './helpers/chromium.js';
import { readTree, tempDir, writeTree } from './helpers/tmp.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const images = path.join(root, 'fixtures', 'microscape', 'images');

/** The microscape stills that are pictures, buttons with effects and logos with stylised lettering. */
const PICTURES = ['ad_static.gif', 'btn_download.gif', 'btn_navigator.gif', 'btn_searchweb.gif', 'btn_subscribe.gif', 'emblem.gif', 'logo.gif', 'nav/tile.gif', 'news/feature.gif', 'news/photo1.gif', 'news/photo2.gif', 'news/thumb1.gif', 'news/thumb2.gif', 'news/thumb3.gif', 'products/box1.gif', 'products/box2.gif'];

/** Icons drawn here: shapes with no text, and lettering filled with a gradient. */
const ICONS = /** @type {Record<string, [string, string]>} */ ({
  'house.png': ['Home', '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" fill="#fff"/><path d="M4 16 L16 4 L28 16 L24 16 L24 28 L8 28 L8 16 Z" fill="#036"/></svg>'],
  'help.png': ['Help', '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24" fill="#fff"/><circle cx="12" cy="12" r="10" fill="#c00"/><rect x="10" y="5" width="4" height="14" fill="#fff"/><rect x="5" y="10" width="14" height="4" fill="#fff"/></svg>'],
  'sale.png': ['SALE', '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fd3"/><stop offset="1" stop-color="#d30"/></linearGradient></defs><rect width="120" height="40" fill="#fff"/><text x="8" y="32" font-family="DejaVu Sans" font-weight="bold" font-size="30" fill="url(#g)" stroke="#026" stroke-width="1.5">SALE</text></svg>'],
});

describe('text-images pass', () => {
  chromiumTest('keeps every picture, icon and stylised logo', async () => {
    /** @type {Record<string, string | Buffer>} */
    const files = {};
    const tags = [];
    for (const name of PICTURES) {
      files[`images/${name}`] = await fs.readFile(path.join(images, name));
      tags.push(`<img src="images/${name}" alt="${name.replace(/\W.*$/, '')}">`);
    }
    for (const [name, [alt, svg]] of Object.entries(ICONS)) {
      files[`images/${name}`] = await sharp(Buffer.from(svg)).png().toBuffer();
      tags.push(`<img src="images/${name}" alt="${alt}">`);
    }
    files['index.html'] = `<!DOCTYPE html><html><head><title>pictures</title></head><body>${tags.join('\n')}</body></html>`;
    const input = await writeTree(await tempDir(), files);
    const summary = await build({ input, output: await tempDir(), only: ['text-images'], cache: false, threads: 1 });
    const report = summary.passes[0];
    expect(report.decisions.length).toBe(PICTURES.length + Object.keys(ICONS).length);
    expect(report.decisions.filter((d) => d.action !== 'kept')).toEqual([]);
    expect(report.requestsRemoved).toBe(0);
    expect(report.files).toEqual([]);
  }, 120_000);

  chromiumTest('reads OCR and fits from the cache on a second build, and shares CSS in a file when asked', async () => {
    const contact = await fs.readFile(path.join(images, 'nav', 'contact.gif'));
    const page = (/** @type {string} */ title) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><p><img src="../contact.gif" width=83 height=20> and more</p></body></html>`;
    const input = await writeTree(await tempDir(), { 'contact.gif': contact, 'a/one.html': page('one'), 'a/two.html': page('two') });
    const cacheDir = await tempDir();
    const first = await build({ input, output: await tempDir(), only: ['text-images'], cacheDir, threads: 1, textImagesCss: 'file' });
    const decision = first.passes[0].decisions[0];
    expect(decision.action).toBe('changed');
    expect(decision.reason).toMatch(/^text "Contact us" \(OCR, confidence \d+\), DejaVu Sans bold 11px, similarity 0\.\d\d;/);
    expect(first.work.jobs).toBe(1);
    expect(first.passes[0].requestsRemoved).toBe(2);

    const out = await tempDir();
    const second = await build({ input, output: out, only: ['text-images'], cacheDir, threads: 1, textImagesCss: 'file', prune: true });
    // Another option (prune), so the pass runs again: its one job comes from the cache.
    expect(second.work).toEqual({ jobs: 0, cacheHits: 1, passesReplayed: 0 });
    expect(second.passes[0].decisions).toEqual(first.passes[0].decisions);
    const tree = await readTree(out);
    expect(tree.has('contact.gif')).toBe(false);
    const css = tree.get('pagediet.css')?.toString('utf8') ?? '';
    expect(css).toMatch(/^\.pd1\{display:inline-block;width:83px;height:20px;overflow:hidden;white-space:nowrap;text-align:left;color:#fff;background:#000;font:700 11px\/\d+px DejaVu Sans,Verdana,sans-serif;text-indent:\d+px\}$/);
    for (const name of ['a/one.html', 'a/two.html']) {
      expect(tree.get(name)?.toString('latin1')).toMatch(/<link rel=stylesheet href="\.\.\/pagediet\.css"><\/head><body><p><span class=pd1>Contact us<\/span> and more<\/p>/);
    }
  }, 120_000);
});

describe('text-images markup', () => {
  it('maps ALIGN, HSPACE and VSPACE as Chromium does, and refuses what it cannot carry', () => {
    expect(layoutDeclarations({ align: 'ABSMIDDLE' })).toEqual({ declarations: [['vertical-align', 'middle']] });
    expect(layoutDeclarations({ align: 'left', hspace: '6' })).toEqual({ declarations: [['float', 'left'], ['margin', '0 6px']] });
    expect(layoutDeclarations({ vspace: '3', border: '0' })).toEqual({ declarations: [['margin', '3px 0']] });
    expect(layoutDeclarations({ hspace: '4', vspace: '4' })).toEqual({ declarations: [['margin', '4px']] });
    expect(layoutDeclarations({ align: 'middle' })).toEqual({ reason: 'ALIGN=middle has no standard CSS equivalent' });
    expect(layoutDeclarations({ border: '2' })).toEqual({ reason: "BORDER=2: the border's colour comes from the link around it" });
  });

  it('writes text the page charset can hold', () => {
    expect(htmlText('\u25cf Zürich & <b>', 'windows-1252')).toBe('&#9679; Zürich &amp; &lt;b&gt;');
    expect(htmlText('\u25cf Zürich', 'utf-8')).toBe('\u25cf Zürich');
    expect(htmlText('Zürich', 'shift_jis')).toBe('Z&#252;rich');
  });

  it('draws rules with borders and spacers with a box', () => {
    const rule = /** @type {const} */ ({ status: 'rule', width: 400, height: 2, direction: 'horizontal', bands: [{ colour: [153, 153, 153], size: 1 }, { colour: [255, 255, 255], size: 1 }] });
    expect(contentDeclarations(rule, 780, 2, null, null)).toEqual([['display', 'inline-block'], ['width', '780px'], ['height', '0px'], ['border-top', '1px solid #999'], ['border-bottom', '1px solid #fff']]);
    expect(contentDeclarations({ status: 'spacer', width: 1, height: 1, colour: null }, 1, 10, null, null)).toEqual([['display', 'inline-block'], ['width', '1px'], ['height', '10px']]);
  });

  it('names, after the family matched, one visitors of other systems have with its metrics, then the generic family', () => {
    const plan = /** @type {const} */ ({ status: 'text', width: 20, height: 14, bg: [255, 255, 255], fg: [0, 0, 0], transparent: false, ink: { left: 0, top: 0, right: 1, bottom: 1 }, estimates: [], source: 'alt', ocr: null });
    const fonts = FAMILIES.map(([name, family]) => {
      const style = /** @type {const} */ ({ text: 'Go', name, family, weight: 'normal', style: 'normal', size: 12, letterSpacing: 0, score: 1 });
      return contentDeclarations(plan, 20, 14, style, { indent: 0, lineHeight: 14 }).find(([p]) => p === 'font')?.[1];
    });
    expect(fonts).toEqual([
      '12px/14px DejaVu Sans,Verdana,sans-serif',
      '12px/14px DejaVu Serif,serif',
      '12px/14px DejaVu Sans Mono,Menlo,monospace',
      '12px/14px Liberation Sans,Arial,sans-serif',
      '12px/14px Liberation Serif,Times New Roman,serif',
      '12px/14px Liberation Mono,Courier New,monospace',
    ]);
  });

  it('classifies pixels: spacer, rule, ink on a background, picture', () => {
    const image = (/** @type {number} */ w, /** @type {number} */ h, /** @type {(x: number, y: number) => number[]} */ f) => {
      const data = new Uint8Array(w * h * 4);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(f(x, y), (y * w + x) * 4);
      return { width: w, height: h, data };
    };
    expect(classifyPixels(image(1, 1, () => [0, 0, 0, 0]))).toEqual({ kind: 'spacer', colour: null });
    expect(classifyPixels(image(3, 2, () => [0, 51, 102, 255]))).toEqual({ kind: 'spacer', colour: [0, 51, 102] });
    expect(classifyPixels(image(2, 20, (x) => (x ? [0, 0, 0, 255] : [200, 200, 200, 255])))).toEqual({ kind: 'rule', direction: 'vertical', bands: [{ colour: [200, 200, 200], size: 1 }, { colour: [0, 0, 0], size: 1 }] });
    // A 12x12 dot with a one-step ramp: ink on white.
    const dot = classifyPixels(image(12, 12, (x, y) => {
      const d = Math.hypot(x - 5.5, y - 5.5);
      return d < 3 ? [0, 0, 0, 255] : d < 4 ? [128, 128, 128, 255] : [255, 255, 255, 255];
    }));
    expect(dot).toEqual({ kind: 'symbol', bg: [255, 255, 255], fg: [0, 0, 0], transparent: false, ink: { left: 2, top: 2, right: 10, bottom: 10 }, residual: 0 });
    // Red and blue halves inside a white frame: not one ink on one background.
    expect(classifyPixels(image(20, 20, (x, y) => (x === 0 || y === 0 || x === 19 || y === 19 ? [255, 255, 255, 255] : x < 10 ? [255, 0, 0, 255] : [0, 0, 255, 255]))).kind).toBe('picture');
  });
});
