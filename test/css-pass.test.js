// The css pass: style sheets, <style> blocks and style attributes through csso,
// what it keeps and reports, charsets and byte order marks, and url()
// references that stay consistent with the image passes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { Site } from '../src/site/site.js';
import { tempDir, writeTree } from './helpers/tmp.js';
import { allReferences } from './helpers/references.js';

const CSS_SITE = path.resolve('fixtures/markup/css-site');
const MARKUP = path.resolve('fixtures/markup');

/** @param {import('../src/build/summary.js').BuildSummary} summary @param {string} name */
const passReport = (summary, name) => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === name));

/**
 * References of a site as kind, URL, status and target, by source.
 * @param {Site} site
 */
function referenceGraph(site) {
  return allReferences(site).map((r) => `${r.source} ${r.kind} ${r.url} ${r.status} ${r.target ?? ''}`).sort();
}

describe('css on fixtures/markup/css-site', () => {
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** @type {string} */
  let out;
  beforeAll(async () => {
    out = path.join(await tempDir(), 'out');
    summary = await build({ input: CSS_SITE, output: out, only: ['css'], cache: false });
  }, 60_000);
  const read = (/** @type {string} */ root, /** @type {string} */ file) => fs.readFile(path.join(root, file));
  const decision = (/** @type {string} */ file) => passReport(summary, 'css').decisions.find((d) => d.file === file);
  const warnings = (/** @type {string} */ file) => summary.warnings.filter((w) => w.file === file).map((w) => [w.code, w.message]);

  it('minifies a style sheet with structural optimisations, keeping @charset, the /*! */ comment and its url()s', async () => {
    const css = (await read(out, 'style.css')).toString('utf8');
    expect(css).toBe('@charset "utf-8";\n/*! style.css: licence comment that must stay */\n'
      + 'BODY{margin:0;background-color:#fff}UL.Bullets LI{list-style-image:url(img/ball.gif);color:red}'
      + '.Title{color:red;font-weight:700;font-size:20px}DIV.Rule{height:8px;background:url(img/rainbow.gif)repeat-x}');
    expect(decision('style.css')).toEqual({ file: 'style.css', action: 'changed', reason: `341 → ${Buffer.byteLength(css)} B` });
  });

  it('keeps a style sheet csso cannot parse, byte for byte, and reports it', async () => {
    expect((await read(out, 'invalid.css')).equals(await read(CSS_SITE, 'invalid.css'))).toBe(true);
    expect(decision('invalid.css')).toEqual({ file: 'invalid.css', action: 'kept', reason: 'csso cannot parse it (line 3, column 1: Unexpected input)' });
    expect(warnings('invalid.css')).toEqual([['css-invalid', 'css: csso cannot parse it (line 3, column 1: Unexpected input): kept as it is']]);
  });

  it('keeps a style sheet csso throws on (css/csso#479), byte for byte, and reports it', async () => {
    expect((await read(out, 'csso-crash.css')).equals(await read(CSS_SITE, 'csso-crash.css'))).toBe(true);
    expect(decision('csso-crash.css')?.action).toBe('kept');
    expect(warnings('csso-crash.css')).toEqual([['css-csso-failed', "css: csso failed: Cannot read properties of null (reading 'first'): kept as it is"]]);
  });

  it('keeps a style sheet whose /*! */ comment csso would drop (inside a rule), and reports it', async () => {
    expect((await read(out, 'inner-comment.css')).equals(await read(CSS_SITE, 'inner-comment.css'))).toBe(true);
    expect(warnings('inner-comment.css')).toEqual([['css-would-lose', 'css: csso would drop the comment "/*! this comment is inside a rule: csso ": kept as it is']]);
  });

  it('keeps a style sheet\'s byte order mark in front of the minified CSS, and says so', async () => {
    const bytes = await read(out, 'bom.css');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    // The em dash stays three UTF-8 bytes; the comment and spaces go.
    expect(bytes.subarray(3).toString('utf8')).toBe('.Bom{color:#0f0;background:url(img/ball.gif)no-repeat}.Bom:after{content:"\u2014"}');
    expect(decision('bom.css')).toEqual({ file: 'bom.css', action: 'changed', reason: `154 → ${bytes.length} B, byte order mark kept` });
    expect(warnings('bom.css')).toEqual([]);
  });

  it('minifies <style> blocks and style attributes in place, keeps an invalid style attribute and reports it', async () => {
    const before = (await read(CSS_SITE, 'index.html')).toString('utf8');
    const after = (await read(out, 'index.html')).toString('utf8');
    const expected = before
      .replace(/<style>[\s\S]*?<\/style>/, '<style>.Block{background-image:url(img/ball.gif);color:#000;padding:0}</style>')
      .replace('style="COLOR: #FF0000 ; MARGIN: 0px 0px 0px 0px"', 'style="color:red;margin:0"')
      .replace(`style='background: url("img/ball.gif") no-repeat ; font-family : "DejaVu Sans" , sans-serif'`, `style='background:url(img/ball.gif)no-repeat;font-family:"DejaVu Sans",sans-serif'`)
      .replace('style=COLOR:#FF0000>', 'style=color:red>')
      .replace(`style="height: 8px ; background: url( 'img/rainbow.gif' ) repeat-x"`, 'style="height:8px;background:url(img/rainbow.gif)repeat-x"');
    expect(after).toBe(expected);
    expect(after).toContain('<p style="color: red; {{ not css">Invalid style attribute</p>');
    expect(warnings('index.html')).toEqual([['css-invalid', 'css: style attribute of <p> at line 21: csso cannot parse it (line 1, column 13: Identifier is expected): kept as it is']]);
    expect(decision('index.html')?.reason).toMatch(/^1 <style> blocks and 4 style attributes minified; 1 kept, /);
  });

  it('leaves every reference resolving to the same file', async () => {
    expect(referenceGraph(await Site.read(out))).toEqual(referenceGraph(await Site.read(CSS_SITE)));
  });
});

describe('css after the image passes', () => {
  it('minifies style sheets whose url()s gif-to-png retargeted, and every image reference in the output resolves to the PNG', async () => {
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input: CSS_SITE, output: out, only: ['gif-to-png', 'css'], cache: false });
    const converted = passReport(summary, 'gif-to-png').decisions.filter((d) => d.action === 'changed').map((d) => d.file);
    expect(converted).toEqual(['img/rainbow.gif']);
    const site = await Site.read(out);
    const toRainbow = allReferences(site).filter((r) => /rainbow/.test(r.url));
    expect(toRainbow.map((r) => [r.source, r.kind, r.url, r.status, r.target])).toEqual([
      ['index.html', 'style-attribute-url', 'img/rainbow.png', 'ok', 'img/rainbow.png'],
      ['invalid.css', 'css-url', 'img/rainbow.png', 'ok', 'img/rainbow.png'],
      ['style.css', 'css-url', 'img/rainbow.png', 'ok', 'img/rainbow.png'],
    ]);
    expect(allReferences(site).filter((r) => r.status !== 'ok')).toEqual([]);
    expect((await fs.readFile(path.join(out, 'style.css'), 'utf8')).endsWith('DIV.Rule{height:8px;background:url(img/rainbow.png)repeat-x}')).toBe(true);
  }, 60_000);
});

describe('css and Content-Security-Policy', () => {
  it('keeps the <style> blocks and style attributes of a page whose policy allows styles by hash, and minifies those of a page whose policy does not', async () => {
    const style = '<style>\n  p {\n    color: red;\n  }\n</style>';
    const hashed = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'self'; style-src 'sha256-4ydsbHkSnBb0KnRW3jTeFP6M4XXWC+shzWnaLz2+Uvs='">${style}</head><body><p style="color : blue">x</p></body></html>`;
    // A hash for scripts only: styles are not pinned.
    const scriptsOnly = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="script-src 'sha256-4ydsbHkSnBb0KnRW3jTeFP6M4XXWC+shzWnaLz2+Uvs='">${style}</head><body><p>x</p></body></html>`;
    const byDefault = `<!DOCTYPE html><html><head><meta http-equiv="content-security-policy" content="default-src 'sha384-AAAA'">${style}</head><body><p>x</p></body></html>`;
    const input = await writeTree(await tempDir(), { 'hashed.html': hashed, 'scripts-only.html': scriptsOnly, 'default.html': byDefault });
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, only: ['css'], cache: false });
    expect(await fs.readFile(path.join(out, 'hashed.html'), 'utf8')).toBe(hashed);
    expect(await fs.readFile(path.join(out, 'default.html'), 'utf8')).toBe(byDefault);
    expect(await fs.readFile(path.join(out, 'scripts-only.html'), 'utf8')).toBe(scriptsOnly.replace(style, '<style>p{color:red}</style>'));
    const reason = 'CSS kept: every <style> and style attribute: its Content-Security-Policy allows styles by hash: a changed one would not apply';
    expect(passReport(summary, 'css').decisions.filter((d) => d.action === 'kept').map((d) => `${d.file}: ${d.reason}`).sort()).toEqual([`default.html: ${reason}`, `hashed.html: ${reason}`]);
    expect(summary.warnings).toEqual([]);
  });
});

describe('css and charsets', () => {
  it('minifies a windows-1252 page\'s <style> in windows-1252, and keeps a style attribute that would not get smaller', async () => {
    const out = path.join(await tempDir(), 'out');
    const input = await writeTree(await tempDir(), { 'latin1.html': await fs.readFile(path.join(MARKUP, 'latin1.html')) });
    const summary = await build({ input, output: out, only: ['css'], cache: false });
    const before = await fs.readFile(path.join(input, 'latin1.html'));
    const after = await fs.readFile(path.join(out, 'latin1.html'));
    const style = (/** @type {Buffer} */ b) => b.subarray(b.indexOf('<STYLE'), b.indexOf('</STYLE>') + 8);
    // "Café" and « stay single bytes (0xE9, 0xAB).
    expect(style(after)).toEqual(Buffer.concat([Buffer.from('<STYLE TYPE="text/css">H1{font-family:"Caf'), Buffer.from([0xe9]), Buffer.from(' Sans",serif;color:red}P.Note:before{content:"'), Buffer.from([0xab]), Buffer.from(' "}</STYLE>')]));
    // Everything outside the <style> block is as it was: the attribute would come out longer with its quotes escaped.
    expect(Buffer.concat([after.subarray(0, after.indexOf('<STYLE')), after.subarray(after.indexOf('</STYLE>'))])).toEqual(Buffer.concat([before.subarray(0, before.indexOf('<STYLE')), before.subarray(before.indexOf('</STYLE>'))]));
    expect(summary.pages[0].charset).toBe('windows-1252');
  });

  it('keeps a <style> block that csso would turn into "</style" and a page whose CSS is not exact UTF-8, and says why', async () => {
    const out = path.join(await tempDir(), 'out');
    const input = await writeTree(await tempDir(), {
      'escape.html': '<!DOCTYPE html><style>.a::after { content: "<\\/style>" }</style><p class=a>x</p>',
      // Invalid UTF-8 (a lone 0xFF) in a page that says it is UTF-8: decoding would not give the bytes back.
      'broken.html': Buffer.concat([Buffer.from('<!DOCTYPE html><meta charset="utf-8"><style>.b { color : #ff0000 } /* '), Buffer.from([0xff]), Buffer.from(' */</style>')]),
    });
    const summary = await build({ input, output: out, only: ['css'], cache: false });
    for (const page of ['escape.html', 'broken.html']) expect((await fs.readFile(path.join(out, page))).equals(await fs.readFile(path.join(input, page)))).toBe(true);
    expect(passReport(summary, 'css').decisions).toEqual([
      { file: 'broken.html', action: 'kept', reason: 'CSS kept: <style> at line 1: its bytes do not round-trip as utf-8 (invalid bytes, or a multi-byte charset pagediet does not re-encode)' },
      { file: 'escape.html', action: 'kept', reason: 'CSS kept: <style> at line 1: csso would write "</style" inside the block' },
    ]);
    expect(summary.warnings.map((w) => [w.file, w.code])).toEqual([['escape.html', 'css-would-lose']]);
  });

  it('escapes what csso writes for the attribute\'s quotes: " becomes &quot; in a double-quoted style, and a value with spaces gets quotes', async () => {
    const out = path.join(await tempDir(), 'out');
    const input = await writeTree(await tempDir(), {
      'quotes.html': '<p style="font-family : &quot;DejaVu Sans&quot; , serif ;   margin : 0px 0px 0px 0px">a</p><p style=margin:0px;padding:0px>b</p><p style=\'font : bold   20px   serif\'>c</p>',
    });
    await build({ input, output: out, only: ['css'], cache: false });
    expect(await fs.readFile(path.join(out, 'quotes.html'), 'utf8')).toBe('<p style="font-family:&quot;DejaVu Sans&quot;,serif;margin:0">a</p><p style=margin:0;padding:0>b</p><p style=\'font:700 20px serif\'>c</p>');
  });
});

describe('css on a site of 1 MB of pages or more', () => {
  it('minifies them in the worker pool, each page as the job does in this thread, and the site model reads the pages it wrote', async () => {
    const { pageCss } = await import('../src/markup/page-css-job.js');
    const dir = await tempDir();
    /** @type {Record<string, string>} */
    const files = { 'a.gif': 'GIF89a' };
    const filler = '<p>Text of the page, long enough to make the site worth the pool.</p>\n'.repeat(600);
    for (let i = 0; i < 30; i++) {
      files[`page-${i}.html`] = `<!DOCTYPE html><html><head><title>${i}</title><style>\n  p  {  color : #ff0000 ;  margin : 0px  }\n</style></head>\n<body><div style="background : url( a.gif ) ;  padding : 0px ${i + 1}px"><a href="page-${(i + 1) % 30}.html">next</a></div>\n${filler}</body></html>\n`;
    }
    await writeTree(path.join(dir, 'in'), files);
    const input = path.join(dir, 'in');
    const out = path.join(dir, 'out');
    const summary = await build({ input, output: out, only: ['css'], cache: false });
    expect(summary.work.jobs).toBe(30);
    for (let i = 0; i < 30; i++) {
      const bytes = await fs.readFile(path.join(input, `page-${i}.html`));
      const expected = pageCss({ bytes, options: { charset: 'utf-8', bomLength: 0, mime: 'text/html' } });
      if (expected.outcome !== 'minified') throw new Error(`page-${i}.html: ${expected.outcome}`);
      const written = await fs.readFile(path.join(out, `page-${i}.html`));
      expect(written.equals(Buffer.from(expected.output))).toBe(true);
      expect(written.toString('utf8')).toContain(`<style>p{color:red;margin:0}</style>`);
      expect(written.toString('utf8')).toContain(`<div style="background:url(a.gif);padding:0 ${i + 1}px">`);
    }
    expect(summary.warnings).toEqual([]);
    // What the model read from the written pages is what parsing them finds.
    const site = await Site.read(out);
    expect(referenceGraph(site)).toHaveLength(60);
    expect(referenceGraph(site).filter((r) => r.includes(' a.gif ok a.gif'))).toHaveLength(30);
  }, 120_000);
});
