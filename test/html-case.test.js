// The html-case pass: names lowered byte for byte, checked against htmlparser2
// (an independent parser: the site model uses parse5), and the compressed
// sizes it reports, measured again here.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { gzipAsync } from '@gfx/zopfli';
import { Tokenizer, parseDocument } from 'htmlparser2';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { formatBuildSummary } from '../src/report/build-text.js';
import { DocumentView } from '../src/site/document-view.js';
import { detectHtmlCharset } from '../src/site/charset.js';
import { nameRanges, recase } from '../src/markup/names.js';
import { applyEdits } from '../src/site/edits.js';
import { tempDir, writeTree } from './helpers/tmp.js';

const MARKUP = path.resolve('fixtures/markup');
const MICROSCAPE = path.resolve('fixtures/microscape');
const LOWERED_PAGES = ['mixed-case.html', 'upper-case.html', 'inline-svg.html', 'latin1.html', 'bom.html'];

/**
 * Name tokens of a page, by htmlparser2's tokenizer, each with whether it is
 * in HTML or in foreign (SVG, MathML) content. Foreign content is tracked here
 * the way the HTML standard describes it: <svg> and <math> open it; SVG's
 * foreignObject, desc and title and MathML's text elements open HTML again.
 * @param {string} text the page as latin1 (one character per byte)
 * @returns {{ start: number, end: number, name: string, foreign: boolean, kind: 'open' | 'close' | 'attribute' }[]}
 */
function nameTokens(text) {
  /** @type {{ start: number, end: number, name: string, foreign: boolean, kind: 'open' | 'close' | 'attribute' }[]} */
  const tokens = [];
  /** @type {{ name: string, foreign: boolean }[]} open elements that change the content kind */
  const stack = [];
  const foreign = () => stack.length > 0 && stack[stack.length - 1].foreign;
  let openName = '';
  let openForeign = false;
  const HTML_IN_SVG = new Set(['foreignobject', 'desc', 'title']);
  const HTML_IN_MATH = new Set(['mi', 'mo', 'mn', 'ms', 'mtext']);
  const noop = () => {};
  const tokenizer = new Tokenizer({ decodeEntities: true }, {
    onopentagname(start, end) {
      const name = text.slice(start, end);
      openName = name.toLowerCase();
      // <svg> and <math> are themselves SVG and MathML elements.
      openForeign = foreign() || openName === 'svg' || openName === 'math';
      tokens.push({ start, end, name, foreign: openForeign, kind: 'open' });
    },
    onattribname(start, end) {
      tokens.push({ start, end, name: text.slice(start, end), foreign: openForeign, kind: 'attribute' });
    },
    onopentagend() {
      const inForeign = foreign();
      if (!inForeign && (openName === 'svg' || openName === 'math')) stack.push({ name: openName, foreign: true });
      else if (inForeign && (HTML_IN_SVG.has(openName) || HTML_IN_MATH.has(openName))) stack.push({ name: openName, foreign: false });
    },
    onselfclosingtag() {},
    onclosetag(start, end) {
      const name = text.slice(start, end);
      const lower = name.toLowerCase();
      const top = stack[stack.length - 1];
      // The end tag of an element on the stack (svg, math, foreignObject, mi...) is an SVG or MathML tag.
      const closesTop = top?.name === lower;
      tokens.push({ start, end, name, foreign: closesTop || foreign(), kind: 'close' });
      if (closesTop) stack.pop();
    },
    isInForeignContext: () => foreign(),
    onattribdata: noop, onattribentity: noop, onattribend: noop, oncdata: noop, oncomment: noop, ondeclaration: noop,
    onend: noop, onprocessinginstruction: noop, ontext: noop, ontextentity: noop,
  });
  tokenizer.write(text);
  tokenizer.end();
  return tokens;
}

/**
 * A canonical form of the tree htmlparser2 builds (names lower-cased, as it
 * reads HTML): every node's type, name, attributes in order, and data.
 * @param {string} text
 */
function canonicalTree(text) {
  /** @param {any} node @returns {unknown} */
  const walk = (node) => ({
    type: node.type,
    ...(node.name !== undefined && { name: node.name }),
    ...(node.attribs && { attribs: Object.entries(node.attribs) }),
    ...(node.data !== undefined && { data: node.data }),
    ...(node.children && { children: node.children.map(walk) }),
  });
  return walk(parseDocument(text));
}

/** @param {Buffer} a @param {Buffer} b @returns {number[]} */
function differingOffsets(a, b) {
  const out = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

describe('html-case on fixtures/markup', () => {
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** @type {string} */
  let out;
  beforeAll(async () => {
    out = path.join(await tempDir(), 'out');
    summary = await build({ input: MARKUP, output: out, only: ['html-case'], cache: false });
  }, 60_000);
  const read = (/** @type {string} */ root, /** @type {string} */ file) => fs.readFile(path.join(root, file));
  const pass = () => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes[0]);

  it.each(LOWERED_PAGES)('%s: every HTML tag and attribute name is lowered, SVG and MathML names are not, and no other byte changes (htmlparser2\'s tokenizer)', async (page) => {
    const before = await read(MARKUP, page);
    const after = await read(out, page);
    expect(after.length).toBe(before.length);
    const tokensBefore = nameTokens(before.toString('latin1'));
    const tokensAfter = nameTokens(after.toString('latin1'));
    expect(tokensAfter.map((t) => [t.start, t.end, t.kind, t.foreign])).toEqual(tokensBefore.map((t) => [t.start, t.end, t.kind, t.foreign]));
    for (const [i, t] of tokensBefore.entries()) {
      const expected = t.foreign ? t.name : t.name.replace(/[A-Z]/g, (c) => c.toLowerCase());
      expect(tokensAfter[i].name, `${t.kind} ${t.name} at byte ${t.start}`).toBe(expected);
    }
    // The bytes that differ are upper-case letters of names, now lower case.
    const inName = (/** @type {number} */ i) => tokensBefore.some((t) => i >= t.start && i < t.end);
    const changed = differingOffsets(before, after);
    expect(changed.length).toBeGreaterThan(0);
    for (const i of changed) {
      expect(inName(i), `byte ${i} is in a name`).toBe(true);
      expect([before[i] >= 0x41 && before[i] <= 0x5a, after[i]]).toEqual([true, before[i] + 0x20]);
    }
  });

  it.each(LOWERED_PAGES)('%s: htmlparser2 builds the same tree from the output as from the input (names read case-insensitively, everything else exact)', async (page) => {
    const before = (await read(MARKUP, page)).toString('latin1');
    const after = (await read(out, page)).toString('latin1');
    expect(canonicalTree(after)).toEqual(canonicalTree(before));
  });

  it('keeps SVG\'s and MathML\'s case-sensitive names, and lowers the HTML inside foreignObject', async () => {
    const after = (await read(out, 'inline-svg.html')).toString('utf8');
    for (const kept of ['viewBox="0 0 150 60"', 'preserveAspectRatio="xMidYMid meet"', 'xmlns:xlink=', '<foreignObject x="60"', '</foreignObject>', '<linearGradient id="Fade" gradientUnits="objectBoundingBox"', 'clipPathUnits=', 'xlink:href="#Tri"', '<SVG WIDTH="300"', '</SVG>', '<MATH DISPLAY="block">']) {
      expect(after).toContain(kept);
    }
    expect(after).toContain('<div style="WIDTH: 80px; HEIGHT: 40px; BACKGROUND: #FFFFFF; BORDER: 1px solid #000000">');
    expect(after).toContain('<span class="Label">Hi</span>');
  });

  it('leaves script, style, textarea, pre and comment contents, attribute values and entities as they were', async () => {
    const after = (await read(out, 'mixed-case.html')).toString('utf8');
    for (const kept of [
      'var banner = "<DIV CLASS=Ad>Click HERE</DIV>";',
      "document.write('<P ALIGN=CENTER>' + banner + '</P>');",
      'P.Banner { COLOR: White; Background: #FFCC00; FONT: bold oblique 20px sans-serif }',
      '<!-- Comments keep their CASE: <B>not a tag</B> -->',
      '<!--[if IE]><P ID=IeOnly>Internet Explorer</P><![endif]-->',
      '<textarea name=Comments rows=3 cols=40><DIV>not a tag</DIV> &lt;P&gt;</textarea>',
      '<pre>\n  Preformatted <b>Bold</b> text,   SPACES kept\n\tand a TAB\n</pre>',
      '<p class=Banner align=Center>solutions</p>',
      '<td align=CENTER nowrap><font face="Arial,Helvetica" size=-1>Products &AMP; Services&nbsp;&copy; 1997</font></td>',
      '<table width="100%" cellpadding=2 cellspacing=\'0\' border>',
      '<body bgcolor="#FFFFFF" text=#000000 link=\'#003399\' vlink="#663399">',
      '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">',
    ]) expect(after).toContain(kept);
  });

  it('lowers the tags the tree builder drops: a stray </HEAD>, a second <BODY> and its attributes, a stray </P> and </BR>', async () => {
    const page = '<HTML><HEAD><TITLE>t</TITLE></HEAD><P>x</P></HEAD><BODY BGCOLOR=white><BODY TEXT=red><P>y</P></P></BR><svg viewBox="0 0 1 1"><foreignObject><B>z</B></foreignObject></svg></TD></BODY></HTML>';
    const view = new DocumentView(Buffer.from(page, 'latin1'), 'windows-1252', 0);
    const { bytes } = recase(view, await nameRanges(view), 'lower');
    expect(bytes.toString('latin1')).toBe('<html><head><title>t</title></head><p>x</p></head><body bgcolor=white><body text=red><p>y</p></p></br><svg viewBox="0 0 1 1"><foreignObject><b>z</b></foreignObject></svg></td></body></html>');
  });

  it('leaves XML documents alone and says why', async () => {
    for (const page of ['xhtml-as-xml.xhtml', 'xml-declaration.html']) {
      expect((await read(out, page)).equals(await read(MARKUP, page))).toBe(true);
    }
    expect(pass().decisions.filter((d) => d.action === 'skipped')).toEqual([
      { file: 'xhtml-as-xml.xhtml', action: 'skipped', reason: 'XML document (served as XML (application/xhtml+xml))' },
      { file: 'xml-declaration.html', action: 'skipped', reason: 'XML document (has an XML declaration)' },
    ]);
    expect(summary.warnings.filter((w) => w.code === 'html-case-xml').map((w) => w.file)).toEqual(['xhtml-as-xml.xhtml', 'xml-declaration.html']);
  });

  it('keeps a windows-1252 page\'s bytes and charset, and a byte order mark', async () => {
    const latin = await read(out, 'latin1.html');
    expect(detectHtmlCharset(latin).charset).toBe('windows-1252');
    expect(summary.pages.find((p) => p.path === 'latin1.html')?.charset).toBe('windows-1252');
    // Café, “Latin-1”, Résumé, €: single bytes, as written.
    for (const bytes of [[0x43, 0x61, 0x66, 0xe9], [0x93, 0x4c], [0x52, 0xe9, 0x73], [0x80, 0x20, 0x35]]) expect(latin.includes(Buffer.from(bytes))).toBe(true);
    const bom = await read(out, 'bom.html');
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bom.toString('utf8')).toBe((await read(MARKUP, 'bom.html')).toString('utf8').replace(/<\/?[A-Z]+|ALIGN/g, (m) => m.toLowerCase()));
  });
});

describe('html-case on UTF-16 pages', () => {
  it('lowers names in UTF-16LE and UTF-16BE pages, two bytes per character, and keeps their byte order marks and text', async () => {
    const html = '<!DOCTYPE html><HTML><BODY><P CLASS=X ALIGN=CENTER>Caf\u00e9 \u2014 \u4e2d <SVG viewBox="0 0 1 1"></SVG></P></BODY></HTML>';
    const lowered = '<!DOCTYPE html><html><body><p class=X align=CENTER>Caf\u00e9 \u2014 \u4e2d <SVG viewBox="0 0 1 1"></SVG></p></body></html>';
    const le = (/** @type {string} */ s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
    const be = (/** @type {string} */ s) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, 'utf16le').swap16()]);
    const input = await writeTree(await tempDir(), { 'le.html': le(html), 'be.html': be(html) });
    const out = path.join(await tempDir(), 'out');
    await build({ input, output: out, only: ['html-case'], cache: false });
    expect(await fs.readFile(path.join(out, 'le.html'))).toEqual(le(lowered));
    expect(await fs.readFile(path.join(out, 'be.html'))).toEqual(be(lowered));
  });
});

describe('html-case on fixtures/microscape', () => {
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** @type {string} */
  let out;
  beforeAll(async () => {
    out = path.join(await tempDir(), 'out');
    summary = await build({ input: MICROSCAPE, output: out, only: ['html-case'], cache: false });
  }, 60_000);

  it('lowers every name that has an upper-case letter, as htmlparser2\'s tokenizer counts them', async () => {
    const before = await fs.readFile(path.join(MICROSCAPE, 'index.html'));
    const upper = nameTokens(before.toString('latin1')).filter((t) => /[A-Z]/.test(t.name)).length;
    const decision = summary.passes[0].decisions[0];
    expect(decision.action).toBe('changed');
    expect(decision.reason.startsWith(`${upper} names lowered; `)).toBe(true);
  });

  it('reports the page\'s gzip (level 9) size before and after, the sizes of the input and output page; brotli (quality 11) too when asked', async () => {
    const before = await fs.readFile(path.join(MICROSCAPE, 'index.html'));
    const after = await fs.readFile(path.join(out, 'index.html'));
    const gzip = { file: 'index.html', name: 'gzip', before: zlib.gzipSync(before, { level: 9 }).length, after: zlib.gzipSync(after, { level: 9 }).length };
    expect(summary.passes[0].metrics).toEqual([gzip]);
    expect(summary.passes[0].decisions[0].reason).toMatch(new RegExp(`; gzip ${gzip.before} → ${gzip.after} B$`));
    // The compressed sizes are listed with --verbose (the default summary keeps to one screen).
    const n = (/** @type {number} */ x) => x.toLocaleString('en-US');
    const text = formatBuildSummary(summary, { verbose: true });
    expect(text).toContain(`compressed gzip ${n(gzip.before)} B -> ${n(gzip.after)} B (`);
    expect(text).not.toContain('brotli');
    expect(text).not.toContain('zopfli');

    const withBrotli = await build({ input: MICROSCAPE, output: path.join(await tempDir(), 'out'), only: ['html-case'], cache: false, htmlCaseBrotli: true });
    const brotli = (/** @type {Buffer} */ b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
    const br = { file: 'index.html', name: 'brotli', before: brotli(before), after: brotli(after) };
    expect(withBrotli.passes[0].metrics).toEqual([gzip, br]);
    expect(formatBuildSummary(withBrotli, { verbose: true })).toContain(`brotli ${n(br.before)} B -> ${n(br.after)} B (`);
  }, 30_000);
});

/**
 * The 1997 study's measurement (deflate ratio: compressed / original size,
 * zlib's default level) on microscape as it is (mixed case), with every name
 * upper case, and with every name lower case; and on the two small pages.
 * docs/markup.md prints these figures: this test keeps them true.
 */
describe('the study\'s case measurement, as docs/markup.md reports it', () => {
  it('docs/markup.md has the deflate ratios and compressed sizes measured on each variant', async () => {
    /** @param {Buffer} bytes */
    const variants = async (bytes) => {
      const { charset, bomLength } = detectHtmlCharset(bytes);
      const view = new DocumentView(bytes, charset, bomLength);
      const ranges = await nameRanges(view);
      // Names in turn upper case, lower case and capitalized: markup as inconsistent as it gets.
      const cases = [(/** @type {string} */ s) => s.toUpperCase(), (/** @type {string} */ s) => s.toLowerCase(), (/** @type {string} */ s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()];
      const cycled = applyEdits(bytes, ranges.map((r, i) => ({ start: r.start, end: r.end, bytes: Buffer.from(cases[i % 3](view.text.slice(r.start, r.end)), 'latin1') })));
      return { 'as written': bytes, 'cycled case': cycled, 'all upper case': recase(view, ranges, 'upper').bytes, 'all lower case': recase(view, ranges, 'lower').bytes };
    };
    const docs = await fs.readFile(path.resolve('docs/markup.md'), 'utf8');
    for (const [label, file] of [['microscape', path.join(MICROSCAPE, 'index.html')], ['mixed-case.html', path.join(MARKUP, 'mixed-case.html')], ['upper-case.html', path.join(MARKUP, 'upper-case.html')]]) {
      for (const [variant, bytes] of Object.entries(await variants(await fs.readFile(file)))) {
        const deflated = zlib.deflateSync(bytes).length;
        const row = `| ${label} | ${variant} | ${bytes.length.toLocaleString('en-US')} | ${deflated.toLocaleString('en-US')} | ${(deflated / bytes.length).toFixed(3)} | ${zlib.gzipSync(bytes, { level: 9 }).length.toLocaleString('en-US')} | ${(await gzipAsync(bytes, { numiterations: 15 })).length.toLocaleString('en-US')} | ${zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length.toLocaleString('en-US')} |`;
        expect(docs, row).toContain(row);
      }
    }
  }, 60_000);
});
