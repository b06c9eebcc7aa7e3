// The bad-input corpus (fixtures/bad, issue 9 point 1) built with every pass:
// the build finishes, every file is optimized or copied byte for byte, and the
// summary warns about each item, naming the file and the reason. Also the
// per-job time limit (point 6). docs/reliability.md lists what a user sees.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { decodeGif } from '../src/images/gif/decode.js';
import { MARKER } from '../src/build/output.js';
import { textImagePlan } from '../src/text-images/plan.js';
import { imageErrorReason } from '../src/util/image-error.js';
import { hashPrefix } from '../src/passes/hash-names.js';
import { badCorpus, stripesGif } from '../scripts/fixtures/bad.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';

const CORPUS = path.resolve('fixtures/bad');
const GIF = stripesGif();
/** @type {import('../src/text-images/plan.js').PlanOptions} */
const PLAN_OPTIONS = { texts: [], ocr: false, agreement: 0.9, minOcrConfidence: 80 };
/** The input files the passes rewrite: every other input file must be copied byte for byte. */
const CHANGED_IN_PLACE = ['import-a.css', 'import-b.css', 'index.html', 'loop-a.html', 'loop-b.html', 'loop-self.html', 'names.html', 'unclosed.html', 'unquoted.html', 'unterminated.css', 'x.html/page.html'];

/** @type {import('../src/build/summary.js').BuildSummary} */
let summary;
/** @type {Map<string, Buffer>} */
let input;
/** @type {Map<string, Buffer>} */
let output;

/** The warnings about one file, as "code: message". @param {string} file */
const warningsOf = (file) => summary.warnings.filter((w) => w.file === file).map((w) => `${w.code}: ${w.message}`);
/** @param {string} name */
const out = (name) => /** @type {Buffer} */ (output.get(name));
/** Whether a file of the input is in the output byte for byte. @param {string} name */
const copied = (name) => output.has(name) && out(name).equals(/** @type {Buffer} */ (input.get(name)));
/**
 * The name a file the build made has in the output: hash-names names it `name.<hash>.ext` by its bytes, and as no
 * one outside the build can know `name.ext`, keeps no other.
 * @param {string} name
 */
const hashedName = (name) => {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = [name.slice(0, dot), name.slice(dot)];
  const found = [...output.keys()].filter((p) => p.startsWith(`${stem}.`) && p.endsWith(ext) && /^[0-9a-f]{8,64}$/.test(p.slice(stem.length + 1, p.length - ext.length)));
  expect(found, name).toHaveLength(1);
  expect(found[0]).toBe(`${stem}.${hashPrefix(crypto.createHash('sha256').update(out(found[0])).digest('hex'))}${ext}`);
  expect(output.has(name), name).toBe(false);
  return found[0];
};
/** RGBA of an image as sharp decodes it. @param {Buffer} bytes */
const rgba = (bytes) => sharp(bytes).ensureAlpha().raw().toBuffer();
/** @param {string} pass @param {string} file */
const decision = (pass, file) => summary.passes.find((p) => p.name === pass)?.decisions.find((d) => d.file === file);

beforeAll(async () => {
  input = await readTree(CORPUS);
  const dir = path.join(await tempDir(), 'out');
  // Every pass, with its defaults (minify-html too); no cache, so every job runs.
  summary = await build({ input: CORPUS, output: dir, cache: false, minifyHtml: true });
  output = await readTree(dir);
}, 120_000);

describe('the bad-input corpus', () => {
  it('is what scripts/fixtures/bad.js writes, and the build leaves it unchanged', async () => {
    const expected = badCorpus();
    expect([...input.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [name, bytes] of Object.entries(expected)) expect(input.get(name)?.equals(bytes), name).toBe(true);
    expect(await readTree(CORPUS)).toEqual(input);
  });

  it('loses no file: every input file is in the output, and all but the pages and style sheets the passes edit are byte for byte the input', () => {
    for (const name of input.keys()) expect(output.has(name), name).toBe(true);
    expect([...input.keys()].filter((name) => !copied(name)).sort()).toEqual(CHANGED_IN_PLACE);
    expect(output.has(MARKER)).toBe(true);
  });

  it('unclosed and misnested tags: warned with the first of each, and the page edited only where a URL changed and in the <img> tag', async () => {
    expect(warningsOf('unclosed.html')).toEqual(['markup-repaired: markup browsers repair: 4 elements never closed (first <div> at byte 60), 1 misnested (first <i> at byte 32); read as browsers read it, copied or edited in place']);
    const png = hashedName('unclosed.png');
    expect(out('unclosed.html').toString()).toBe(input.get('unclosed.html')?.toString().replace('unclosed.gif" alt="stripes">', `${png}" alt="stripes" width="40" height="20">`));
    expect((await rgba(out(png))).equals(decodeGif(GIF).frames[0].data)).toBe(true);
    expect(copied('unclosed.gif')).toBe(true);
  });

  it('attributes without quotes: rewritten inside the unquoted value, and the quote browsers keep in one is warned about', () => {
    expect(warningsOf('unquoted.html')).toEqual(['markup-repaired: markup browsers repair: 1 syntax error (first unexpected-character-in-unquoted-attribute-value at byte 78); read as browsers read it, copied or edited in place']);
    expect(out('unquoted.html').toString()).toBe(`<html><head><title>Unquoted</title></head><body>\n<img src=${hashedName('unquoted.png')} alt=it's width=40 height=20 border=0><a href=index.html title=home>home</a>\n</body></html>\n`);
  });

  it('a page that is not HTML at all: not parsed, so no pass edits it, and copied', () => {
    expect(warningsOf('not-html.html')).toEqual(['not-html: named as a page but is binary data (byte 0x00 at 3): not parsed as HTML, copied as it is']);
    expect(copied('not-html.html')).toBe(true);
    expect(summary.pages.map((p) => p.path)).not.toContain('not-html.html');
    expect(summary.assets.find((a) => a.path === 'not-html.html')).toMatchObject({ role: 'asset', bytesIn: 512, bytesOut: 512 });
  });

  it('an empty page and a 0-byte image: warned and copied as 0 bytes', () => {
    expect(warningsOf('empty.html')).toEqual(['empty-file: an empty page (0 bytes): copied as it is']);
    expect(warningsOf('empty.gif')).toEqual(['empty-file: an empty image (0 bytes): browsers show a broken image; copied as it is']);
    expect([out('empty.html').length, out('empty.gif').length]).toEqual([0, 0]);
  });

  it('a truncated GIF: left as it is with the reason', () => {
    expect(warningsOf('truncated.gif')).toEqual(['image-unreadable: gif-to-png: left as it is: truncated GIF: the data ends inside frame 0 (image at offset 25)']);
    expect(copied('truncated.gif')).toBe(true);
    expect(output.has('truncated.png')).toBe(false);
  });

  it('a truncated GIF: text-images gives the same reason however many decodes run at once', async () => {
    // sharp's text for it was "Input buffer has corrupt header: " and libvips' shared buffer, whole or cleared.
    expect(decision('text-images', 'truncated.gif')).toEqual({ file: 'truncated.gif', action: 'kept', reason: 'unreadable: damaged image data' });
    const bytes = /** @type {Buffer} */ (input.get('truncated.gif'));
    const plans = await Promise.all(Array.from({ length: 24 }, () => textImagePlan({ bytes, options: PLAN_OPTIONS })));
    expect(new Set(plans.map((p) => p.status === 'kept' && p.reason))).toEqual(new Set(['unreadable: damaged image data']));
  });

  it('a GIF with trailing garbage: converted from its frames, the garbage named in the warning', async () => {
    expect(warningsOf('trailing-garbage.gif')).toEqual(['image-repaired: gif-to-png: 23 bytes after the GIF trailer ignored']);
    const png = hashedName('trailing-garbage.png');
    expect((await rgba(out(png))).equals(decodeGif(GIF).frames[0].data)).toBe(true);
    expect(out('index.html').includes(`<img src="${png}" width="40" height="20">`)).toBe(true);
    expect(copied('trailing-garbage.gif')).toBe(true);
  });

  it('a GIF whose logical screen is larger than its frame: warned; copied, or converted to exactly what browsers show', async () => {
    expect(warningsOf('small-frame.gif')).toEqual(['gif-frame-smaller: its first frame covers 20x10 at (10, 10) of its 40x30 logical screen: browsers show the rest transparent']);
    expect(copied('small-frame.gif')).toBe(true);
    const shown = decodeGif(/** @type {Buffer} */ (input.get('small-frame.gif')));
    expect([shown.width, shown.height]).toEqual([40, 30]);
    const png = [...output.keys()].find((p) => /^small-frame\.[0-9a-f]{8,64}\.png$/.test(p));
    expect(output.has('small-frame.png')).toBe(false);
    if (png) expect((await rgba(out(hashedName('small-frame.png')))).equals(shown.frames[0].data)).toBe(true);
    else expect(decision('gif-to-png', 'small-frame.gif')).toEqual({ file: 'small-frame.gif', action: 'kept', reason: 'decoders disagree on its pixels' });
  });

  it('a PNG with a bad CRC: left as it is with the chunk named', () => {
    expect(warningsOf('bad-crc.png')).toEqual(['image-unreadable: png: left as it is: Corrupt PNG: CRC mismatch in IDAT chunk at byte 33']);
    expect(copied('bad-crc.png')).toBe(true);
  });

  it('a PNG with a bad CRC: text-images gives the same reason however many decodes run at once', async () => {
    // libvips' error buffer is shared by its threads: sharp's message for this file varies with what else is decoding.
    expect(decision('text-images', 'bad-crc.png')).toEqual({ file: 'bad-crc.png', action: 'kept', reason: 'unreadable: damaged image data' });
    const bytes = /** @type {Buffer} */ (input.get('bad-crc.png'));
    const plans = await Promise.all(Array.from({ length: 24 }, () => textImagePlan({ bytes, options: PLAN_OPTIONS })));
    expect(new Set(plans.map((p) => p.status === 'kept' && p.reason))).toEqual(new Set(['unreadable: damaged image data']));
    expect(imageErrorReason(new Error('Warning treated as error due to failOn setting'))).toBe('damaged image data');
    expect(imageErrorReason(new Error('vipspng: libpng read error\nvipspng: libpng read error'))).toBe('damaged image data');
    expect(imageErrorReason(new Error('gifload: truncated GIF'))).toBe('damaged image data');
    expect(imageErrorReason(new Error('Input image exceeds pixel limit'))).toBe('Input image exceeds pixel limit');
    // sharp's own words before the buffer: its text, or nothing when another thread has just cleared it.
    expect(imageErrorReason(new Error('Input buffer has corrupt header: gifload_buffer: Unexpected end of GIF source data'))).toBe('damaged image data');
    expect(imageErrorReason(new Error('Input buffer has corrupt header: '))).toBe('damaged image data');
    expect(imageErrorReason(new Error('Input file has corrupt header: VipsForeignLoad: "x.png" is not a known file format'))).toBe('damaged image data');
  });

  it('a .gif that is a JPEG: warned, handled by its bytes, and kept under its name', () => {
    expect(warningsOf('jpeg.gif')).toEqual(['image-mislabelled: a JPEG named .gif: browsers go by its bytes, and so does pagediet; its name stays']);
    expect(copied('jpeg.gif')).toBe(true);
    // No image pass took it for a GIF.
    expect(decision('gif-to-png', 'jpeg.gif')).toBeUndefined();
  });

  it('an SVG with a script: warned, copied byte for byte, never rendered', () => {
    expect(warningsOf('script.svg')).toEqual(['svg-script: an SVG with a script or event handler: copied as it is, never rendered by pagediet; it runs when opened directly or embedded with <object> or <iframe>']);
    expect(copied('script.svg')).toBe(true);
  });

  it('an image declaring 100000×100000 pixels: refused before decoding, with the limit', () => {
    expect(warningsOf('huge.png')).toEqual(['image-unreadable: png: left as it is: 100000×100000 is over the pixel limit (100000000)']);
    expect(copied('huge.png')).toBe(true);
  });

  it('a CSS file with an unterminated comment: warned with where it opens, minified as browsers read it', () => {
    expect(warningsOf('unterminated.css')).toEqual(['css-unterminated-comment: a comment opened at byte 22 is never closed: browsers read the rest of the file (73 bytes) as a comment']);
    expect(out('unterminated.css').toString()).toBe('body{color:#000}');
  });

  it('pages that frame each other or themselves, and style sheets that import each other: each loop warned once, requests counted once', () => {
    expect(warningsOf('loop-a.html')).toEqual(['frame-loop: frames that contain each other: loop-a.html → loop-b.html → loop-a.html; browsers stop nesting them, pagediet counts each page once']);
    expect(warningsOf('loop-b.html')).toEqual([]);
    expect(warningsOf('loop-self.html')).toEqual(['frame-loop: frames that contain each other: loop-self.html → loop-self.html; browsers stop nesting them, pagediet counts each page once']);
    expect(warningsOf('import-a.css')).toEqual(['import-cycle: @import cycle: import-a.css → import-b.css → import-a.css; browsers load each style sheet once']);
    const requests = Object.fromEntries(summary.pages.map((p) => [p.path, p.requestsBefore]));
    expect([requests['loop-a.html'], requests['loop-b.html'], requests['loop-self.html']]).toEqual([2, 2, 1 + requests['index.html']]);
    expect(out('import-b.css').toString()).toBe('@import "import-a.css";h2{margin:0}');
  });

  it('file names with spaces, #, ?, %, non-ASCII and upper-case extensions: converted, and every reference percent-encoded; raw # and ? warned with the fix', async () => {
    // Each PNG under its content hash (hash-names): the same stripes in each, so the same hash.
    const hash = hashedName('names/UPPER.png').slice('names/UPPER.'.length, -'.png'.length);
    expect(out('names.html').toString()).toBe([
      '<html><head><title>Names</title></head><body>',
      '<meta charset="utf-8">',
      // image-markup: the size of each image it finds (a URL with a raw # or ? finds none); they are too small for decoding="async".
      ['a%20b', 'a%231', 'what%3F', '100%25', 'caf%C3%A9', 'UPPER'].map((name) => `<img src="names/${name}.${hash}.png" width="40" height="20">`).join(''),
      '<img src="names/a#1.gif"><img src="names/what?.gif">',
      '</body></html>',
      '',
    ].join('\n'));
    const pixels = decodeGif(GIF).frames[0].data;
    for (const name of ['a b', 'a#1', 'what?', '100%', 'caf\u00e9', 'UPPER']) {
      expect(hashedName(`names/${name}.png`)).toBe(`names/${name}.${hash}.png`);
      expect((await rgba(out(`names/${name}.${hash}.png`))).equals(pixels), name).toBe(true);
      expect(copied(`names/${name}.${name === 'UPPER' ? 'GIF' : 'gif'}`), name).toBe(true);
    }
    expect(warningsOf('names.html')).toEqual([
      'reference-missing: img "names/a#1.gif" points at a file that does not exist (names/a#1.gif exists: a # or ? in a file name must be written %23 or %3F)',
      'reference-missing: img "names/what?.gif" points at a file that does not exist (names/what?.gif exists: a # or ? in a file name must be written %23 or %3F)',
    ]);
  });

  it('a directory named x.html: walked as a directory, its page built, the frame that names it warned', () => {
    expect(warningsOf('index.html')).toEqual(['reference-missing: iframe "x.html" points at a file that does not exist (a directory without index.html)']);
    expect(out('x.html/page.html').toString()).toBe('<html><head><title>Inside x.html</title></head><body><p>A page in a directory named x.html.</p>\n</body></html>\n');
  });

  it('warns about nothing else', () => {
    const covered = ['unclosed.html', 'unquoted.html', 'not-html.html', 'empty.html', 'empty.gif', 'truncated.gif', 'trailing-garbage.gif', 'small-frame.gif', 'bad-crc.png', 'jpeg.gif', 'script.svg', 'huge.png', 'unterminated.css', 'loop-a.html', 'loop-self.html', 'import-a.css', 'names.html', 'index.html'];
    expect(summary.warnings.filter((w) => !covered.includes(w.file))).toEqual([]);
    // What a user should act on is a warning; what pagediet noticed about the input, information (src/build/messages.js).
    expect(summary.warnings.map((w) => `${w.severity} ${w.code} ${w.file}`).sort()).toEqual([
      'info css-unterminated-comment unterminated.css', 'info frame-loop loop-a.html', 'info frame-loop loop-self.html',
      'info gif-frame-smaller small-frame.gif', 'info image-mislabelled jpeg.gif', 'info image-repaired trailing-garbage.gif',
      'info import-cycle import-a.css', 'info markup-repaired unclosed.html', 'info markup-repaired unquoted.html', 'info svg-script script.svg',
      'warning empty-file empty.gif', 'warning empty-file empty.html', 'warning image-unreadable bad-crc.png', 'warning image-unreadable huge.png',
      'warning image-unreadable truncated.gif', 'warning not-html not-html.html', 'warning reference-missing index.html',
      'warning reference-missing names.html', 'warning reference-missing names.html',
    ]);
    expect(summary.totals).toMatchObject({ errors: 0, warnings: 9, info: 10 });
  });
});

describe('the per-job time limit', () => {
  it('stops a job that runs too long, terminates its worker, and leaves the file as it is with a warning', async () => {
    // 20,000 varied lines (about 490 kB): zopfli with a million iterations would run for hours.
    const lines = [];
    let x = 1;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      lines.push(`<p>line ${i} ${x.toString(36)}</p>\n`);
    }
    const page = Buffer.from(lines.join(''));
    const dir = await writeTree(await tempDir(), { 'index.html': page });
    const outDir = path.join(await tempDir(), 'out');
    const result = await build({ input: dir, output: outDir, only: ['precompress'], gzip: 'zopfli', gzipIterations: 1_000_000, jobTimeout: 2, cache: false, configs: false });
    // One warning for the file, naming each coding that failed. Brotli usually finishes within the limit; on a machine
    // too busy for that, it is stopped the same way, and named first.
    const written = await readTree(outDir);
    const brotliStopped = !written.has('index.html.br');
    const stopped = (/** @type {string} */ coding) => `${coding}: compressText stopped after the 2 s time limit`;
    expect(result.warnings.filter((w) => w.code === 'compress-failed')).toEqual([{ file: 'index.html', code: 'compress-failed', severity: 'error', message: `precompress: ${[...(brotliStopped ? [stopped('br')] : []), stopped('gzip')].join('; ')}` }]);
    expect(written.get('index.html')?.equals(page)).toBe(true);
    expect(written.has('index.html.gz')).toBe(false);
  }, 300_000);
});
