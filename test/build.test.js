import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { PASSES } from '../src/passes/index.js';
import { Site } from '../src/site/site.js';
import { MARKER } from '../src/build/output.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';

const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');

/** A Latin-1 page in 1997 style, with bytes above 0x7F around its references. */
const LATIN1 = Buffer.from(
  '<HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1"></HEAD>\r\n' +
    '<BODY>Caf\xe9 \xa9 1997 <IMG SRC="caf\xe9.gif" ALT="d\xe9j\xe0"> na\xefve <IMG SRC=b.gif></BODY></HTML>\r\n',
  'latin1',
);

describe('build', () => {
  it('writes a complete, byte-identical copy when no pass changes anything, and never touches the input', async () => {
    const input = await writeTree(await tempDir(), {
      'index.html': LATIN1,
      'caf\u00e9.gif': GIF,
      'b.gif': GIF,
      'unreferenced/data.bin': Buffer.from([0, 1, 2, 255]),
      'robots.txt': 'User-agent: *\n',
    });
    const before = await readTree(input);
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, passes: [] });
    const after = await readTree(input);
    expect(after).toEqual(before);
    const written = await readTree(out);
    written.delete(MARKER);
    expect(written).toEqual(before);
    expect(summary.totals).toMatchObject({ files: 5, pages: 1, assets: 4, bytesIn: summary.totals.bytesOut, bytesSaved: 0, references: 2, requestsBefore: 3, requestsAfter: 3 });
    expect(summary.pages).toEqual([{ path: 'index.html', charset: 'windows-1252', bytes: LATIN1.length, references: 2, requestsBefore: 3, requestsAfter: 3, loadBytesBefore: LATIN1.length + 2 * GIF.length, loadBytesAfter: LATIN1.length + 2 * GIF.length }]);
    expect(summary.references.map((r) => [r.url, r.target])).toEqual([['caf\u00e9.gif', 'caf\u00e9.gif'], ['b.gif', 'b.gif']]);
  });

  it('refuses an output inside the input, equal to it, or containing it', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<p>x</p>' });
    await expect(build({ input, output: path.join(input, 'out'), passes: [] })).rejects.toThrow(`output ${path.join(input, 'out')} is inside the input`);
    await expect(build({ input, output: input, passes: [] })).rejects.toThrow('is the input itself');
    await expect(build({ input, output: path.dirname(input), passes: [] })).rejects.toThrow('contains the input');
    await expect(fs.readdir(input)).resolves.toEqual(['index.html']);
  });

  it('writes into a non-empty directory only with force or its own marker, and removes only files it wrote', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<p>x</p>', 'old.gif': GIF });
    const out = await writeTree(await tempDir(), { 'precious.txt': 'keep me' });
    await expect(build({ input, output: out, passes: [] })).rejects.toThrow('is not empty and was not written by pagediet');
    await build({ input, output: out, passes: [], force: true });
    expect([...(await readTree(out)).keys()].sort()).toEqual([MARKER, 'index.html', 'old.gif', 'precious.txt']);
    // A second build (marker present) needs no force; a file gone from the input goes from the output.
    await fs.rm(path.join(input, 'old.gif'));
    const second = await build({ input, output: out, passes: [] });
    expect(second.written.removed).toBe(1);
    expect([...(await readTree(out)).keys()].sort()).toEqual([MARKER, 'index.html', 'precious.txt']);
  });

  it('reports references that leave the site root and never reads or copies what they point at', async () => {
    const outside = await writeTree(await tempDir(), { 'secret.txt': 'TOP-SECRET-BYTES' });
    const input = await writeTree(await tempDir(), {
      'index.html': '<img src="../../etc/passwd"><img src="file:///etc/passwd"><img src="C:\\Windows\\win.ini"><img src="link.txt"><img src="..%2f..%2fetc/passwd"><img src="%2e%2e/%2e%2e/x">',
    });
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(input, 'link.txt'));
    await fs.symlink(outside, path.join(input, 'linkdir'));
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, passes: [] });
    expect(summary.references.map((r) => [r.status, r.note])).toEqual([
      ['escapes', 'climbs above the site root'],
      ['escapes', 'a file: URL outside the site'],
      ['escapes', 'an absolute file-system path'],
      ['escapes', 'a symlink that points outside the site root'],
      ['invalid', 'an encoded slash, backslash or NUL in the path'],
      ['escapes', 'climbs above the site root'],
    ]);
    expect(summary.warnings.map((w) => w.code).sort()).toEqual([
      'reference-escapes', 'reference-escapes', 'reference-escapes', 'reference-escapes', 'reference-escapes', 'reference-invalid',
      'skipped-outside-root', 'skipped-outside-root',
    ]);
    const written = await readTree(out);
    expect([...written.keys()].sort()).toEqual([MARKER, 'index.html']);
    for (const bytes of written.values()) expect(bytes.includes('TOP-SECRET-BYTES')).toBe(false);
  });

  it('runs passes in order, honours only and skip, and records what each did', async () => {
    const input = await writeTree(await tempDir(), { 'index.html': '<img src="a.gif">', 'a.gif': GIF });
    const ran = [];
    const pass = (name) => ({ name, description: `test pass ${name}`, run: async (_site, ctx) => { ran.push(name); ctx.decide({ file: 'a.gif', action: 'kept', reason: `${name} had nothing to do` }); } });
    const passes = [pass('first'), pass('second'), pass('third')];
    const out = path.join(await tempDir(), 'out');
    let summary = await build({ input, output: out, passes, skip: ['second'] });
    expect(ran).toEqual(['first', 'third']);
    expect(summary.passes.map((p) => [p.name, p.decisions])).toEqual([
      ['first', [{ file: 'a.gif', action: 'kept', reason: 'first had nothing to do' }]],
      ['third', [{ file: 'a.gif', action: 'kept', reason: 'third had nothing to do' }]],
    ]);
    ran.length = 0;
    summary = await build({ input, output: out, passes, only: ['third', 'first'] });
    expect(ran).toEqual(['first', 'third']);
    await expect(build({ input, output: out, passes, only: ['fourth'] })).rejects.toThrow("build options: unknown pass 'fourth' in 'only'; available: first, second, third");
    await expect(build({ input, output: out, skip: ['csso'] })).rejects.toThrow(`unknown pass 'csso' in 'skip'; available: ${PASSES.map((p) => p.name).join(', ')}`);
  });

  it('lets a pass convert a file and retarget its references by editing only their bytes', async () => {
    const input = await writeTree(await tempDir(), {
      'index.html': LATIN1,
      'caf\u00e9.gif': GIF,
      'b.gif': GIF,
      'css/s.css': '@charset "utf-8";\n/* caf\u00e9 */ p { background: url("../b.gif?v=2") }',
    });
    const convert = {
      name: 'b-to-png',
      description: 'renames b.gif to b.png everywhere',
      run: async (site, ctx) => {
        await site.add('b.png', Buffer.from('PNG'));
        const refs = site.referencesTo('b.gif');
        await site.retarget(refs.map((ref) => ({ ref, target: 'b.png' })));
        ctx.rewrote(refs.length);
        ctx.touched('b.png', GIF.length, 3);
      },
    };
    const out = path.join(await tempDir(), 'out');
    const summary = await build({ input, output: out, passes: [convert] });
    const page = await fs.readFile(path.join(out, 'index.html'));
    expect(page).toEqual(Buffer.from(LATIN1.toString('latin1').replace('SRC=b.gif', 'SRC=b.png'), 'latin1'));
    const css = await fs.readFile(path.join(out, 'css/s.css'), 'utf8');
    expect(css).toBe('@charset "utf-8";\n/* caf\u00e9 */ p { background: url("../b.png?v=2") }');
    expect(summary.passes[0]).toMatchObject({ name: 'b-to-png', referencesRewritten: 2, files: [{ path: 'b.png', before: GIF.length, after: 3 }] });
    // The original stays in the output: scripts may load it by name.
    expect(await fs.readFile(path.join(out, 'b.gif'))).toEqual(GIF);
  });
});

describe('charsets', () => {
  it('reads a Latin-1 page by its meta charset and keeps its bytes exactly', async () => {
    const dir = await writeTree(await tempDir(), { 'index.html': LATIN1, 'caf\u00e9.gif': GIF, 'b.gif': GIF });
    const site = await Site.read(dir);
    const page = site.get('index.html');
    expect(page.charset).toBe('windows-1252');
    expect(page.references[0]).toMatchObject({ url: 'caf\u00e9.gif', target: 'caf\u00e9.gif', start: LATIN1.indexOf(Buffer.from('caf\xe9.gif', 'latin1')), end: LATIN1.indexOf(Buffer.from('caf\xe9.gif', 'latin1')) + 8 });
    expect(page.references[0].start).toBe(121);
    expect(await site.read('index.html')).toEqual(LATIN1);
  });

  it('reads UTF-8 pages with and without a BOM, and UTF-16 pages with byte offsets', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>\u00e9</p><img src="\u00e9.gif">', 'utf16le')]);
    const dir = await writeTree(await tempDir(), {
      'bom.html': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<img src="\u00e9.gif">')]),
      'plain.html': '<p>\u00e9</p><img src="\u00e9.gif">',
      'wide.html': utf16,
      '\u00e9.gif': GIF,
    });
    const site = await Site.read(dir);
    const refOf = (p) => site.get(p).references[0];
    expect([site.get('bom.html').charset, refOf('bom.html').target, refOf('bom.html').start]).toEqual(['utf-8', '\u00e9.gif', 13]);
    expect([site.get('plain.html').charset, refOf('plain.html').target]).toEqual(['utf-8', '\u00e9.gif']);
    const wide = refOf('wide.html');
    expect([site.get('wide.html').charset, wide.target]).toEqual(['utf-16le', '\u00e9.gif']);
    expect(utf16.subarray(wide.start, wide.end).toString('utf16le')).toBe('\u00e9.gif');
  });
});
