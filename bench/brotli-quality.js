// Benchmark: brotli's quality against bytes and time, on one thread, as the
// precompress pass encodes (src/compress/brotli.js: size hint, fitted
// window): 200 generated pages of about 42 KB (bench/generate-site.js) and
// the text files of fixtures/microscape, h2-sample and modern.
// Run: node bench/brotli-quality.js   [--no-record]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotli } from '../src/compress/brotli.js';
import { isCompressible } from '../src/compress/encodings.js';
import { generateSite } from './generate-site.js';
import { recordMeasurement } from './record.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUALITIES = [11, 10, 9, 5];
/** Files under this are not compressed by the pass (precompressMinBytes). */
const MIN_BYTES = 256;

/** @param {string} dir @returns {string[]} */
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

const generated = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-brotli-'));
try {
  await generateSite(generated, { pages: 200, images: 200 });
  const sets = {
    '200 generated pages': walk(generated).filter((f) => f.endsWith('.html')),
    "the fixtures' text files": ['microscape', 'h2-sample', 'modern'].flatMap((name) => walk(path.join(ROOT, 'fixtures', name))).filter(isCompressible),
  };
  const rows = [`| files | ${QUALITIES.map((q) => `quality ${q}`).join(' | ')} |`, `| --- |${' ---: |'.repeat(QUALITIES.length)}`];
  for (const [name, files] of Object.entries(sets)) {
    const texts = files.map((f) => fs.readFileSync(f)).filter((b) => b.length >= MIN_BYTES);
    const total = texts.reduce((sum, b) => sum + b.length, 0);
    /** @type {{ bytes: number, seconds: number }[]} */
    const results = [];
    for (const quality of QUALITIES) {
      const start = performance.now();
      let bytes = 0;
      for (const text of texts) bytes += brotli(text, quality).bytes.length;
      results.push({ bytes, seconds: (performance.now() - start) / 1000 });
    }
    const [best] = results;
    const cells = results.map((r, i) => (i === 0
      ? `${r.bytes.toLocaleString('en-US')} B, ${r.seconds.toFixed(1)} s`
      : `+${((r.bytes / best.bytes - 1) * 100).toFixed(2)}%, ${r.seconds.toFixed(1)} s`));
    rows.push(`| ${name} (${texts.length}, ${total.toLocaleString('en-US')} B) | ${cells.join(' | ')} |`);
  }
  const table = rows.join('\n');
  console.log(table);
  await recordMeasurement('brotli-quality.md', 'brotli quality against bytes and time', table);
} finally {
  fs.rmSync(generated, { recursive: true, force: true });
}
