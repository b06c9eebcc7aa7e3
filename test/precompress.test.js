import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { MARKER } from '../src/build/output.js';
import { isCompressible } from '../src/compress/encodings.js';
import { gzip } from '../src/compress/gzip.js';
import { zstdAvailable } from '../src/compress/zstd.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';
import { needed } from './helpers/needed.js';

const FIXTURES = ['microscape', 'h2-sample'];
const has = (/** @type {string} */ command) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);

/**
 * Bytes by encoding from the pass's metrics.
 * @param {import('../src/build/pipeline.js').PassReport} report
 */
function byEncoding(report) {
  /** @type {Record<string, { files: number, before: number, after: number }>} */
  const totals = {};
  for (const m of report.metrics ?? []) {
    const t = (totals[m.name] ??= { files: 0, before: 0, after: 0 });
    t.files++;
    t.before += m.before;
    t.after += m.after;
  }
  return totals;
}

/** @param {import('../src/build/summary.js').BuildSummary} summary */
const precompressReport = (summary) => /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'precompress'));

describe.each(FIXTURES)('precompress on fixtures/%s', (name) => {
  const input = path.resolve('fixtures', name);
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** @type {string} */
  let out;
  /** @type {string} */
  let cacheDir;
  /** @type {Map<string, Buffer>} */
  let tree;
  /** @type {string[]} text files of the fixture that should get sidecars */
  let texts;

  beforeAll(async () => {
    out = path.join(await tempDir(), 'out');
    cacheDir = await tempDir('pagediet-cache-');
    summary = await build({ input, output: out, only: ['precompress'], cacheDir });
    tree = await readTree(out);
    const source = await readTree(input);
    texts = [...source.keys()].filter((f) => isCompressible(f) && /** @type {Buffer} */ (source.get(f)).length >= 256).sort();
  }, 240_000);

  it('writes a .br and a .gz beside every text file of 256 B or more, each decoding to its source', () => {
    expect(texts.length).toBeGreaterThan(0);
    const sidecars = [...tree.keys()].filter((f) => f.endsWith('.br') || f.endsWith('.gz')).sort();
    expect(sidecars).toEqual(texts.flatMap((f) => [`${f}.br`, `${f}.gz`]).sort());
    for (const f of texts) {
      const source = /** @type {Buffer} */ (tree.get(f));
      expect(zlib.brotliDecompressSync(/** @type {Buffer} */ (tree.get(`${f}.br`))).equals(source)).toBe(true);
      expect(zlib.gunzipSync(/** @type {Buffer} */ (tree.get(`${f}.gz`))).equals(source)).toBe(true);
      // No name, no timestamp: the same bytes on every machine and every day.
      expect(/** @type {Buffer} */ (tree.get(`${f}.gz`)).subarray(0, 10)).toEqual(GZIP_HEADER);
    }
  });

  it('gives each sidecar its source\'s modification time', async () => {
    for (const f of texts) {
      const source = await fs.stat(path.join(out, f));
      for (const ext of ['.br', '.gz']) expect((await fs.stat(path.join(out, f + ext))).mtimeMs).toBe(source.mtimeMs);
    }
  });

  it('reports the bytes saved per encoding, matching the files written', () => {
    const report = precompressReport(summary);
    const totals = byEncoding(report);
    const sum = (/** @type {string} */ ext) => texts.reduce((n, f) => n + /** @type {Buffer} */ (tree.get(f + ext)).length, 0);
    const sources = texts.reduce((n, f) => n + /** @type {Buffer} */ (tree.get(f)).length, 0);
    expect(totals).toEqual({
      br: { files: texts.length, before: sources, after: sum('.br') },
      gzip: { files: texts.length, before: sources, after: sum('.gz') },
    });
    expect(report.files.map((f) => f.path).sort()).toEqual(texts.flatMap((f) => [`${f}.br`, `${f}.gz`]).sort());
  });

  it.skipIf(needed(has('gzip') ? null : 'the gzip command is not installed', 'test/precompress.test.js: the gzip -9 reference check'))('makes .gz files with libdeflate, smaller than gzip -9', () => {
    for (const f of texts) {
      const reference = execFileSync('gzip', ['-c', '-9', '-n', path.join(input, f)]);
      expect(/** @type {Buffer} */ (tree.get(`${f}.gz`)).length, f).toBeLessThan(reference.length);
    }
    expect(precompressReport(summary).decisions.filter((d) => d.action === 'changed').every((d) => d.reason.includes('libdeflate level 12'))).toBe(true);
  });

  it.skipIf(needed(has('brotli') ? null : 'the brotli command is not installed', 'test/precompress.test.js: the brotli reference check'))('makes .br files no larger than brotli -q 11', () => {
    for (const f of texts) {
      const reference = execFileSync('brotli', ['-c', '-q', '11', path.join(input, f)]);
      expect(/** @type {Buffer} */ (tree.get(`${f}.br`)).length, f).toBeLessThanOrEqual(reference.length);
    }
  });

  it('replays the pass from the cache on a second build, with identical output', async () => {
    const again = path.join(await tempDir(), 'out');
    const second = await build({ input, output: again, only: ['precompress'], cacheDir });
    expect(second.work).toEqual({ jobs: 0, cacheHits: 0, passesReplayed: 1 });
    expect(summary.work.jobs).toBe(texts.length * 2);
    const next = await readTree(again);
    const first = new Map(tree);
    first.delete(MARKER);
    next.delete(MARKER);
    // Byte-identical (the server configs are beside each output, in <output>-configs/, not in it).
    expect([...next.keys()].some((f) => f.includes('configs') || f.endsWith('.conf'))).toBe(false);
    expect(next).toEqual(first);
  });
});

describe('precompress on awkward input', () => {
  const PAGE = `<!doctype html><title>x</title>${'<p>Precompressed once, served many times. '.repeat(40)}`;
  const noise = crypto.createHash('sha512');
  const random = Buffer.concat(Array.from({ length: 16 }, (_, i) => noise.copy().update(String(i)).digest()));
  /** @type {string} */
  let input;
  /** @type {string} */
  let out;
  /** @type {import('../src/build/summary.js').BuildSummary} */
  let summary;
  /** @type {Map<string, Buffer>} */
  let tree;
  const STALE_GZ = zlib.gzipSync(Buffer.from('an old page'));

  beforeAll(async () => {
    input = await writeTree(await tempDir(), {
      'x.html': PAGE,
      'x.html.gz': STALE_GZ,
      'empty.css': '',
      'tiny.js': 'console.log(1);\n',
      'random.txt': random,
      'naïve café/über straße.html': PAGE,
      'logo.png': random,
    });
    out = path.join(await tempDir(), 'out');
    summary = await build({ input, output: out, only: ['precompress'], cache: false, zstd: true });
    tree = await readTree(out);
  }, 120_000);

  it('never compresses or overwrites a sidecar already in the input, and says so', () => {
    expect(tree.get('x.html.gz')).toEqual(STALE_GZ);
    expect(zlib.brotliDecompressSync(/** @type {Buffer} */ (tree.get('x.html.br'))).toString()).toBe(PAGE);
    // The other sidecars are written beside it: .br, and .zst where node has zstd (the build asks for it).
    expect([...tree.keys()].filter((f) => f.startsWith('x.html')).sort()).toEqual(['x.html', 'x.html.br', 'x.html.gz', ...(zstdAvailable() ? ['x.html.zst'] : [])]);
    expect(summary.warnings).toContainEqual(expect.objectContaining({ file: 'x.html', code: 'sidecar-exists', message: 'precompress: x.html.gz is already in the input: kept as it is (it may not match x.html)' }));
  });

  it('skips empty and tiny files, files that do not shrink by 5%, and images', () => {
    const decisions = Object.fromEntries(precompressReport(summary).decisions.map((d) => [d.file, [d.action, d.reason.replace(/ \(.*/, '')]]));
    expect(decisions['empty.css']).toEqual(['skipped', 'empty']);
    expect(decisions['tiny.js']).toEqual(['skipped', 'under 256 B']);
    expect(decisions['random.txt']).toEqual(['kept', 'saves under 5%']);
    expect(decisions['logo.png']).toBeUndefined();
    for (const f of ['empty.css', 'tiny.js', 'random.txt', 'logo.png']) {
      expect([...tree.keys()].filter((k) => k.startsWith(`${f}.`))).toEqual([]);
    }
  });

  it('compresses names with spaces and non-ASCII characters', () => {
    const gz = /** @type {Buffer} */ (tree.get('naïve café/über straße.html.gz'));
    expect(zlib.gunzipSync(gz).toString()).toBe(PAGE);
    expect(zlib.brotliDecompressSync(/** @type {Buffer} */ (tree.get('naïve café/über straße.html.br'))).toString()).toBe(PAGE);
  });

  it('writes .zst files with --zstd where node has zstd, and warns where it has not', () => {
    const zst = [...tree.keys()].filter((f) => f.endsWith('.zst')).sort();
    if (zstdAvailable()) {
      expect(zst).toEqual(['naïve café/über straße.html.zst', 'x.html.zst']);
      const { zstdDecompressSync } = /** @type {{ zstdDecompressSync: (b: Buffer) => Buffer }} */ (/** @type {unknown} */ (zlib));
      for (const file of zst) expect(zstdDecompressSync(/** @type {Buffer} */ (tree.get(file))).toString()).toBe(PAGE);
      expect(summary.warnings.filter((w) => w.code === 'zstd-unavailable')).toEqual([]);
    } else {
      expect(zst).toEqual([]);
      expect(summary.warnings).toContainEqual(expect.objectContaining({ file: '', code: 'zstd-unavailable', message: `precompress: node ${process.versions.node} has no zstd encoder (zlib.zstdCompressSync came in node 22.15): no .zst files written` }));
    }
  });

  it('never modifies the input', async () => {
    expect([...(await readTree(input)).keys()].sort()).toEqual(['empty.css', 'logo.png', 'naïve café/über straße.html', 'random.txt', 'tiny.js', 'x.html', 'x.html.gz']);
  });
});

describe('gzip encoders', () => {
  it('with zlib, writes a smaller-than-source, deterministic member that zopfli beats', async () => {
    const text = await fs.readFile('fixtures/microscape/index.html');
    const quick = await gzip(text, { method: 'zlib', iterations: 15 });
    const slow = await gzip(text, { method: 'zopfli', iterations: 15 });
    expect(quick.bytes.subarray(0, 10)).toEqual(GZIP_HEADER);
    expect(zlib.gunzipSync(quick.bytes).equals(text)).toBe(true);
    expect(quick.bytes.equals((await gzip(text, { method: 'zlib', iterations: 15 })).bytes)).toBe(true);
    expect(slow.bytes.length).toBeLessThan(quick.bytes.length);
    expect(quick.bytes.length).toBeLessThan(text.length);
  });

  it.skipIf(needed(has('zopfli') ? null : 'the zopfli command is not installed', 'test/precompress.test.js: the zopfli reference check'))('with zopfli, writes members no larger than the zopfli command at the same iterations', async () => {
    for (const name of ['microscape/index.html', 'h2-sample/index.html']) {
      const file = path.resolve('fixtures', name);
      const text = await fs.readFile(file);
      const reference = execFileSync('zopfli', ['-c', '--i15', file]);
      const ours = await gzip(text, { method: 'zopfli', iterations: 15 });
      expect(zlib.gunzipSync(ours.bytes).equals(text)).toBe(true);
      expect(ours.bytes.length, name).toBeLessThanOrEqual(reference.length);
      expect(ours.bytes.length, name).toBeLessThan((await gzip(text, { method: 'libdeflate', iterations: 15 })).bytes.length);
    }
  });

  it('writes .br files at the brotli quality asked for, each decoding to its source, and says which', async () => {
    const text = await fs.readFile('fixtures/microscape/index.html');
    const input = await writeTree(await tempDir(), { 'index.html': text });
    const build10 = await build({ input, output: path.join(await tempDir(), 'out'), only: ['precompress'], cache: false, brotliQuality: 10 });
    const out10 = await fs.readFile(path.join(/** @type {string} */ (build10.output), 'index.html.br'));
    const params = (/** @type {number} */ quality) => ({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: text.length, [zlib.constants.BROTLI_PARAM_LGWIN]: 16 } });
    expect(zlib.brotliDecompressSync(out10).equals(text)).toBe(true);
    expect(out10.equals(zlib.brotliCompressSync(text, params(10)))).toBe(true);
    expect(out10.length).toBeGreaterThan(zlib.brotliCompressSync(text, params(11)).length);
    expect(JSON.stringify(precompressReport(build10).decisions)).toContain('brotli quality 10, 16-bit window');
    await expect(build({ input, output: path.join(await tempDir(), 'out'), only: ['precompress'], cache: false, brotliQuality: 12 })).rejects.toThrow("option 'brotliQuality' must be a whole number from 0 to 11");
  });

  it('refuses a gzip encoder it does not know', async () => {
    const input = await writeTree(await tempDir(), { 'a.txt': 'x'.repeat(300) });
    await expect(build({ input, output: path.join(await tempDir(), 'out'), only: ['precompress'], cache: false, gzip: /** @type {any} */ ('lzma') })).rejects.toThrow("build options: option 'gzip' must be one of libdeflate, zopfli, zlib, not 'lzma'");
  });
});
