// Compact references (src/site/reference-table.js) and what the summary lists
// of them: every reference up to SUMMARY_REFERENCE_LIMIT, the unresolved ones beyond.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { ReferenceTable, StringTable, isFoundTable, packFound, unpackFound } from '../src/site/reference-table.js';
import { Site } from '../src/site/site.js';
import { build } from '../src/build/pipeline.js';
import { SUMMARY_REFERENCE_LIMIT } from '../src/build/summary.js';
import { tempDir, writeTree } from './helpers/tmp.js';
const require = createRequire(import.meta.url);

describe('reference table', () => {
  it('gives back each reference exactly, with only the fields it had', () => {
    /** @type {import('../src/site/site.js').Reference[]} */
    const refs = [
      { source: 'a.html', kind: 'img', url: 'x.gif', start: 10, end: 15, element: 'img', attribute: 'src', tagStart: 0, tagEnd: 20, inPicture: false, status: 'ok', target: 'x.gif', via: 'exact' },
      { source: 'a.html', kind: 'img', url: 'y', start: 30, end: 31, element: 'img', attribute: 'src', tagStart: 25, tagEnd: 40, inPicture: true, choice: 21, status: 'ok', target: 'y.png', via: 'extensionless' },
      { source: 'a.html', kind: 'picture-source', url: 'y.avif', start: 24, end: 30, element: 'source', attribute: 'srcset', type: 'image/avif', media: false, choice: 21, status: 'ok', target: 'y.avif', via: 'exact' },
      { source: 'a.html', kind: 'anchor', url: 'http://example.com/', start: 0, end: 19, element: 'a', attribute: 'href', status: 'external' },
      { source: 'a.html', kind: 'background', url: 'gone.gif', start: 2_000_000_000, end: 2_000_000_008, status: 'missing', note: 'did you mean Gone.gif?' },
    ];
    const strings = new StringTable();
    const table = new ReferenceTable(refs, strings);
    expect(table.length).toBe(5);
    for (const [i, ref] of refs.entries()) {
      expect(Object.keys(table.at(i)).sort()).toEqual(Object.keys(ref).sort());
      expect(table.at(i)).toEqual(ref);
    }
    expect(table.toArray()).toEqual(refs);
    expect([0, 1, 2, 3, 4].map((i) => table.targetAt(i))).toEqual(['x.gif', 'y.png', 'y.avif', undefined, undefined]);
    expect([0, 1, 2, 3, 4].map((i) => [table.kindAt(i), table.statusAt(i)])).toEqual([['img', 'ok'], ['img', 'ok'], ['picture-source', 'ok'], ['anchor', 'external'], ['background', 'missing']]);
    // Strings shared between references and tables are kept once.
    const again = new ReferenceTable(refs, strings);
    expect(strings.strings.length).toBe(1 + new Set(refs.flatMap((r) => [r.source, r.kind, r.url, r.element, r.attribute, r.status, r.target, r.via, r.note, r.type]).filter((s) => s !== undefined)).size);
    expect(again.at(4)).toEqual(refs[4]);
    expect(again.at(2)).toEqual(refs[2]);
    // Shared fields are stored once per distinct combination, offsets as 16-bit distances: 19 bytes a reference,
    // and an image choice as a 16-bit distance before the start (0xffff: none).
    expect(table.forms.length / 11).toBe(5);
    expect(table.narrow).toBe(true);
    expect(table.urls.byteLength + table.starts.byteLength + table.form.byteLength + table.offsets.byteLength).toBe(5 * 19);
    expect([...(table.choices ?? [])]).toEqual([0xffff, 30 - 21, 24 - 21, 0xffff, 0xffff]);
    expect(table.fits).toBe(null);
  });

  it('keeps offsets that do not fit 16-bit distances, and more than 256 combinations of shared fields', () => {
    /** @type {import('../src/site/site.js').Reference[]} */
    const refs = [
      // A data: URL of 70,000 bytes: its end is 70,000 after its start.
      { source: 'a.html', kind: 'img', url: 'data:,x', start: 5, end: 70_005, element: 'img', attribute: 'src', tagStart: 0, tagEnd: 70_010, inPicture: false, status: 'ok', target: 'x.gif', via: 'exact' },
      ...Array.from({ length: 300 }, (_, i) => /** @type {import('../src/site/site.js').Reference} */ ({ source: i % 2 ? 'a.html' : 'b.css', kind: 'anchor', url: `p${i}.html`, start: 100 + i, end: 106 + i, status: 'missing', note: `note ${i}` })),
    ];
    const table = new ReferenceTable(refs, new StringTable());
    expect(table.narrow).toBe(false);
    expect(table.form).toBeInstanceOf(Uint16Array);
    expect(table.toArray()).toEqual(refs);
    expect(table.at(0).tagEnd).toBe(70_010);
    expect(table.at(300)).toEqual({ source: 'a.html', kind: 'anchor', url: 'p299.html', start: 399, end: 405, status: 'missing', note: 'note 299' });
  });

  it('keeps image choices too far before their reference (or after it) as they are, and none at all for a document without', () => {
    /** @type {import('../src/site/site.js').Reference[]} */
    const refs = [
      { source: 'a.html', kind: 'img', url: 'a.gif', start: 70_010, end: 70_015, element: 'img', attribute: 'src', choice: 5, status: 'ok', target: 'a.gif', via: 'exact' },
      { source: 'a.html', kind: 'img', url: 'b.gif', start: 80_000, end: 80_005, element: 'img', attribute: 'src', status: 'ok', target: 'b.gif', via: 'exact' },
      { source: 'a.html', kind: 'img', url: 'c.gif', start: 90_000, end: 90_005, element: 'img', attribute: 'src', choice: 90_001, status: 'ok', target: 'c.gif', via: 'exact' },
    ];
    const table = new ReferenceTable(refs, new StringTable());
    expect(table.choices).toEqual(Int32Array.from([5, -1, 90_001]));
    expect(table.toArray()).toEqual(refs);
    const plain = new ReferenceTable(refs.map(({ choice, ...ref }) => ref), new StringTable());
    expect(plain.choices).toBe(null);
    expect(plain.at(0)).not.toHaveProperty('choice');
  });

  it('packs found references compactly, and makes from them the table their resolved objects make (fuzz)', () => {
    const seed = 20261126;
    console.log(`reference-table fuzz seed ${seed}`);
    let state = seed;
    // mulberry32
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = (/** @type {any[]} */ list) => list[Math.floor(random() * list.length)];
    const maybe = (/** @type {number} */ p) => random() < p;
    /** @param {string} kind @param {string} url @returns {import('../src/site/resolve.js').Resolution} */
    const resolve = (kind, url) => (url.startsWith('http') ? { status: 'external' } : url.length % 3 === 0 ? { status: 'missing', note: `no ${url}` } : { status: 'ok', path: `${kind}/${url}`, via: url.length % 2 ? 'exact' : 'extensionless' });
    const v8 = require('node:v8');
    for (let doc = 0; doc < 200; doc++) {
      const wide = maybe(0.2);
      const farChoices = maybe(0.2);
      const n = Math.floor(random() * 60);
      /** @type {import('../src/site/html-refs.js').FoundReference[]} */
      const found = [];
      for (let i = 0; i < n; i++) {
        const start = Math.floor(random() * (wide ? 3_000_000 : 60_000)) + 10;
        /** @type {Record<string, unknown>} */
        const ref = { kind: pick(['img', 'anchor', 'picture-source', 'background', 'stylesheet']), url: pick(['a.gif', 'b', 'http://x/', 'cc.png', 'dddd.html', '']), start, end: start + Math.floor(random() * (wide ? 100_000 : 300)) };
        if (maybe(0.5)) Object.assign(ref, { element: pick(['img', 'source', 'a']), attribute: pick(['src', 'srcset', 'href']) });
        if (maybe(0.3)) Object.assign(ref, { tagStart: start - Math.floor(random() * 9), tagEnd: /** @type {number} */ (ref.end) + Math.floor(random() * 40) });
        if (maybe(0.3)) ref.inPicture = maybe(0.5);
        if (maybe(0.4)) ref.choice = farChoices && maybe(0.5) ? start + Math.floor(random() * 100_000) : start - Math.floor(random() * 500);
        if (maybe(0.2)) ref.type = pick(['', 'image/avif', 'image/webp']);
        if (maybe(0.2)) ref.media = maybe(0.5);
        if (maybe(0.1)) ref.overridden = maybe(0.5);
        if (maybe(0.2)) ref.fit = { width: Math.floor(random() * 2000), wanted: pick([-1, 336, 640.5]) };
        found.push(/** @type {import('../src/site/html-refs.js').FoundReference} */ (ref));
      }
      const packed = packFound(found);
      expect(isFoundTable(packed)).toBe(true);
      const unpacked = unpackFound(packed);
      for (const [i, ref] of found.entries()) expect(Object.keys(unpacked[i]).sort()).toEqual(Object.keys(ref).sort());
      expect(unpacked).toEqual(found);
      const resolved = found.map((ref) => {
        const r = resolve(ref.kind, ref.url);
        /** @type {import('../src/site/site.js').Reference} */
        const full = { source: 'd/a.html', ...ref, status: r.status };
        if (r.path) full.target = r.path;
        if (r.via) full.via = r.via;
        if (r.note) full.note = r.note;
        return full;
      });
      const expected = new ReferenceTable(resolved, new StringTable());
      // As the cache gives it back.
      const table = ReferenceTable.fromFound(v8.deserialize(v8.serialize(packed)), new StringTable(), 'd/a.html', resolve);
      expect(table.toArray()).toEqual(resolved);
      expect([table.narrow, table.choices?.constructor, table.form.constructor, table.forms.length]).toEqual([expected.narrow, expected.choices?.constructor, expected.form.constructor, expected.forms.length]);
    }
    expect(isFoundTable([{ kind: 'img', url: 'a.gif', start: 0, end: 5 }])).toBe(false);
  });

  it('is what a site keeps for each document, and what passes get back', async () => {
    const dir = await writeTree(await tempDir(), { 'index.html': '<picture><img src=a.gif></picture><img src=b><a href=c.html>c</a>', 'a.gif': 'GIF89a', 'b.gif': 'GIF89a' });
    const site = await Site.read(dir);
    const page = site.get('index.html');
    expect(page.referenceTable?.length).toBe(3);
    expect(page.references.map((r) => [r.url, r.status, r.target, r.via, r.inPicture])).toEqual([['a.gif', 'ok', 'a.gif', 'exact', true], ['b', 'ok', 'b.gif', 'extensionless', false], ['c.html', 'missing', undefined, undefined, undefined]]);
    expect([...site.referencedPaths()].sort()).toEqual(['a.gif', 'b.gif']);
    expect([...site.referencesByTarget(new Set(['b.gif']))].map(([t, list]) => [t, list.map((r) => r.url)])).toEqual([['b.gif', ['b']]]);
    expect(site.referencesTo('a.gif').map((r) => r.start)).toEqual([18]);
  });
});

describe('summary references', () => {
  it(`lists every reference up to ${SUMMARY_REFERENCE_LIMIT}, and only the unresolved ones beyond`, async () => {
    // image-markup left out: it would add attributes to every <img>; the offsets below are the page's with only its URLs changed.
    const small = await writeTree(await tempDir(), { 'index.html': '<img src=a.gif><img src=gone.gif>', 'a.gif': 'GIF89a' });
    const smallSummary = await build({ input: small, output: path.join(await tempDir(), 'out'), skip: ['image-markup'], cache: false });
    expect(smallSummary.referencesListed).toBe('all');
    // hash-names points a.gif's references at its content-hashed name (sha256('GIF89a') = 610f5ae4...).
    expect(smallSummary.references.map((r) => [r.url, r.status])).toEqual([['a.610f5ae4.gif', 'ok'], ['gone.gif', 'missing']]);

    const many = '<img src=a.gif>'.repeat(SUMMARY_REFERENCE_LIMIT);
    const large = await writeTree(await tempDir(), { 'index.html': `${many}<img src=gone.gif>`, 'a.gif': 'GIF89a' });
    const largeSummary = await build({ input: large, output: path.join(await tempDir(), 'out'), skip: ['image-markup'], cache: false });
    expect(largeSummary.totals.references).toBe(SUMMARY_REFERENCE_LIMIT + 1);
    expect(largeSummary.referencesByStatus).toEqual({ missing: 1, ok: SUMMARY_REFERENCE_LIMIT });
    expect(largeSummary.referencesListed).toBe('unresolved');
    // Each <img src=a.gif> is now <img src=a.610f5ae4.gif>, 24 bytes.
    expect(largeSummary.references).toEqual([{ source: 'index.html', kind: 'img', url: 'gone.gif', start: SUMMARY_REFERENCE_LIMIT * 24 + 9, end: SUMMARY_REFERENCE_LIMIT * 24 + 17, status: 'missing' }]);
    expect(largeSummary.warnings.filter((w) => w.code.startsWith('reference-') || w.code === 'links-missing')).toEqual([{ file: 'index.html', code: 'reference-missing', severity: 'warning', message: 'img "gone.gif" points at a file that does not exist' }]);

    // More unresolved references than the limit: the first ones are listed; the warning counts them all.
    const links = await writeTree(await tempDir(), { 'index.html': '<a href=gone.html>x</a>'.repeat(SUMMARY_REFERENCE_LIMIT + 1) });
    const linksSummary = await build({ input: links, output: path.join(await tempDir(), 'out'), skip: ['image-markup'], cache: false });
    expect(linksSummary.referencesByStatus).toEqual({ missing: SUMMARY_REFERENCE_LIMIT + 1 });
    expect(linksSummary.referencesListed).toBe('unresolved');
    expect(linksSummary.references).toHaveLength(SUMMARY_REFERENCE_LIMIT);
    expect(linksSummary.references[SUMMARY_REFERENCE_LIMIT - 1]).toEqual({ source: 'index.html', kind: 'anchor', url: 'gone.html', start: (SUMMARY_REFERENCE_LIMIT - 1) * 23 + 8, end: (SUMMARY_REFERENCE_LIMIT - 1) * 23 + 17, status: 'missing' });
    expect(linksSummary.warnings).toEqual([{ file: '', code: 'links-missing', severity: 'info', message: `${SUMMARY_REFERENCE_LIMIT + 1} links in 1 page point at files not in the site (see references with status "missing")` }]);
  }, 120_000);
});
