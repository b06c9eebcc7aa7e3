// Fuzzing (issue 9, point 5) with fast-check: mutated HTML through whole
// builds, and mutated GIF and PNG bytes through the image jobs in the worker
// pool. No crash, no hang (each case has a time limit; image jobs run under
// the pool's per-job time limit), nothing written outside the output, and the
// files no pass touches copied exactly. The seed is fixed, and printed, so a
// run is the same every time; PAGEDIET_FUZZ_SEED=<n> runs another (a failure
// prints fast-check's seed and path: `fc.assert(..., { seed, path })` replays it).
//
// Cost: a whole build per HTML case (the markup passes only, so no worker
// pool starts: about 8 ms each; html-case in one case of 8, because it
// measures compressed sizes of each page it changes, about 70 ms), plus
// html-case's edit itself (nameRanges, recase) on 1,000 more mutated pages;
// the image cases call the jobs directly in one shared pool, because
// starting a pool per build (sharp, workers) would cost more than the job. What a build does with a failed job (copy
// the file, warn) is tested on real broken files in test/bad-input.test.js.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { MARKER } from '../src/build/output.js';
import { WorkerPool } from '../src/util/pool.js';
import { decodeGif } from '../src/images/gif/decode.js';
import { decodeApng } from '../src/images/apng-frames.js';
import { DocumentView } from '../src/site/document-view.js';
import { nameRanges, recase } from '../src/markup/names.js';
import { stripesGif, storedPng } from '../scripts/fixtures/bad.js';
import { PNG_SIGNATURE, chunk } from '../src/images/png-chunks.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';

/** The fuzz seed: fixed, so CI runs the same cases every time; PAGEDIET_FUZZ_SEED chooses another. */
const SEED = Number(process.env.PAGEDIET_FUZZ_SEED ?? 20261124);
if (!Number.isInteger(SEED)) throw new Error(`PAGEDIET_FUZZ_SEED must be a whole number, not '${process.env.PAGEDIET_FUZZ_SEED}'`);
console.log(`test/fuzz.test.js: fast-check seed ${SEED} (set PAGEDIET_FUZZ_SEED to run another)`);
fc.configureGlobal({ seed: SEED });

/** Cases per run: 800 HTML builds, 1,000 pages through html-case's edit, 700 GIFs, 500 mutated and 500 generated PNGs. */
const RUNS = { html: 800, htmlCase: 1000, gif: 700, png: 500, pngGenerated: 500 };
/** One HTML build in this many runs html-case too: it measures the compressed sizes of the page in the worker pool, which the build then starts: about 40 ms a case. */
const HTML_CASE_EVERY = 8;
/** No case may take longer (a build of a tiny site, or one image job). */
const CASE_LIMIT_MS = 10_000;
/** Per-job time limit of the pool the image cases use, in seconds. */
const JOB_TIMEOUT_S = 10;

/**
 * Byte-level mutations: insert a token or random bytes, delete a range, overwrite a byte,
 * or copy a slice elsewhere. Positions are fractions, so they fit any length.
 */
/** A position as a fraction of the length, uniform (fast-check's default bias would put most at 0, the signature). */
const position = fc.noBias(fc.integer({ min: 0, max: 1_000_000 })).map((n) => n / 1_000_000);
const mutation = (/** @type {fc.Arbitrary<Uint8Array>} */ insertions) => fc.oneof(
  fc.record({ op: fc.constant('insert'), at: position, bytes: insertions }),
  fc.record({ op: fc.constant('delete'), at: position, length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ op: fc.constant('set'), at: position, byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant('copy'), at: position, from: position, length: fc.integer({ min: 1, max: 128 }) }),
);

/**
 * @param {Buffer} seed
 * @param {{ op: string, at: number, bytes?: Uint8Array, length?: number, byte?: number, from?: number }[]} mutations
 * @param {number} [headBias] when set, positions fall in the first headBias bytes half of the time (headers)
 */
function mutate(seed, mutations, headBias) {
  let b = Buffer.from(seed);
  for (const [i, m] of mutations.entries()) {
    const span = headBias && i % 2 === 0 ? Math.min(headBias, b.length) : b.length;
    const at = Math.min(b.length, Math.floor(m.at * span));
    if (m.op === 'insert') b = Buffer.concat([b.subarray(0, at), /** @type {Uint8Array} */ (m.bytes), b.subarray(at)]);
    else if (m.op === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + /** @type {number} */ (m.length))]);
    else if (m.op === 'set' && at < b.length) b[at] = /** @type {number} */ (m.byte);
    else if (m.op === 'copy') {
      const from = Math.floor(/** @type {number} */ (m.from) * b.length);
      b = Buffer.concat([b.subarray(0, at), b.subarray(from, from + /** @type {number} */ (m.length)), b.subarray(at)]);
    }
  }
  return b;
}

/** Pieces of HTML and CSS that parsers and passes treat specially, and hostile URLs. */
const HTML_TOKENS = [
  '<', '>', '</', '/>', '<!--', '-->', '<![CDATA[', ']]>', '<!DOCTYPE html>', '<?xml version="1.0"?>', '"', "'", '=', '&amp;', '&#x0;', '&#', '\u0000', '\r\n',
  '<IMG SRC=a.gif>', '<img src="a.gif" srcset="a.gif 1x, b.gif 2x">', '<SCRIPT>', '</script>', '<STYLE>', '</style>', '<textarea>', '<pre>', '<svg>', '<math>', '<table>', '<tr>', '<td>',
  '<base href="../">', '<base href="http://example.com/">', '<iframe src="index.html">', '<link rel=stylesheet href="style.css">', '<meta charset="utf-16">', '<meta charset="windows-1252">',
  'style="background:url(a.gif)"', '@import "style.css";', 'url(', ')', '/*', '*/', '\\', 'background: url("../outside.txt")',
  '../outside.txt', '../../etc/passwd', '%2e%2e/outside.txt', '..%2foutside.txt', '/..', 'file:///etc/passwd', 'C:\\Windows\\win.ini', '\\\\server\\share', 'data:,x', 'javascript:alert(1)',
  '\u00e9', '\ufeff', '\xff\xfe',
].map((t) => Buffer.from(t, 'utf8'));

/** Seed pages: the kinds of markup the passes edit. */
const HTML_SEEDS = [
  '<!DOCTYPE html><HTML><HEAD><TITLE>T</TITLE><LINK REL=stylesheet HREF="style.css"><STYLE>p { color: red; background: url(a.gif) }</STYLE></HEAD>\n<BODY BGCOLOR=white><P CLASS=x>Text <B>bold</B> <IMG SRC="a.gif" ALT="a" WIDTH=40 HEIGHT=20></P>\n<!-- comment --><TABLE><TR><TD>cell</TD></TR></TABLE></BODY></HTML>\n',
  '<html><body><p>Some <b>bold and <i>both</b> italic</i><div style="margin: 0 ; color : #ff0000"><pre>  keep   this  </pre><script>var s = "</div>";</script><textarea>  x </textarea></div>',
  '<svg viewBox="0 0 10 10"><linearGradient id="g"><stop offset="0"/></linearGradient><rect width="10" height="10" fill="url(#g)"/></svg><math><mi>x</mi></math><img src=a.gif alt=it\'s>',
  '\ufeff<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><frameset><frame src="index.html"><frame src="../outside.txt"></frameset>',
].map((s) => Buffer.from(s, 'utf8'));

/** The files beside the fuzzed page: none of them may change (style.css is minified the same way every time). */
const GIF = stripesGif();
const FIXED = { 'a.gif': GIF, 'data.bin': Buffer.from([0, 1, 2, 0xff, 0xfe]), 'sub/b.txt': 'keep\n' };

/**
 * @param {Promise<unknown>} work
 * @param {string} what
 */
async function withinLimit(work, what) {
  const started = Date.now();
  const result = await work;
  const ms = Date.now() - started;
  if (ms > CASE_LIMIT_MS) throw new Error(`${what} took ${ms} ms, over the ${CASE_LIMIT_MS} ms limit`);
  return result;
}

/**
 * A PNG's chunks with their CRCs computed again, as far as the chunk lengths lead.
 * @param {Buffer} png
 */
function withFixedCrcs(png) {
  const out = Buffer.from(png);
  for (let at = 8; at + 12 <= out.length;) {
    const length = out.readUInt32BE(at);
    if (at + 12 + length > out.length) break;
    out.writeUInt32BE(zlib.crc32(out.subarray(at + 4, at + 8 + length)) >>> 0, at + 8 + length);
    at += 12 + length;
  }
  return out;
}

describe('fuzzing', () => {
  it(`mutated HTML: ${RUNS.html} whole builds finish, write only into the output, and copy untouched files exactly`, async () => {
    const root = await tempDir('pagediet-fuzz-');
    const outside = Buffer.from('OUTSIDE-SECRET\n');
    await fs.writeFile(path.join(root, 'outside.txt'), outside);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...HTML_SEEDS), fc.array(mutation(fc.oneof(fc.constantFrom(...HTML_TOKENS), fc.uint8Array({ minLength: 1, maxLength: 16 }))), { minLength: 1, maxLength: 8 }), async (seed, mutations) => {
        const page = mutate(seed, mutations);
        const base = path.join(root, `case-${n++}`);
        const input = await writeTree(path.join(base, 'in'), { 'index.html': page, 'style.css': 'p { color : red }\n', ...FIXED });
        const out = path.join(base, 'out');
        const only = n % HTML_CASE_EVERY === 1 ? ['html-case', 'minify-html', 'css'] : ['minify-html', 'css'];
        const summary = await withinLimit(build({ input, output: out, only, minifyHtml: true, cache: false }), 'a build');
        // The input is as it was, nothing appeared beside the input and the output, and outside.txt was neither read into the output nor changed.
        const inputAfter = await readTree(input);
        expect(inputAfter.get('index.html')?.equals(page)).toBe(true);
        expect(inputAfter.size).toBe(5);
        expect((await fs.readdir(base)).sort()).toEqual(['in', 'out']);
        expect((await fs.readdir(root)).filter((name) => !name.startsWith('case-'))).toEqual(['outside.txt']);
        expect((await fs.readFile(path.join(root, 'outside.txt'))).equals(outside)).toBe(true);
        const written = await readTree(out);
        expect([...written.keys()].sort()).toEqual([MARKER, 'a.gif', 'data.bin', 'index.html', 'style.css', 'sub/b.txt']);
        for (const [name, bytes] of Object.entries(FIXED)) expect(written.get(name)?.equals(Buffer.from(bytes)), name).toBe(true);
        expect(written.get('style.css')?.toString()).toBe('p{color:red}');
        for (const bytes of written.values()) expect(bytes.includes('OUTSIDE-SECRET')).toBe(false);
        // The markup passes only change case and remove bytes: a page never grows.
        expect(/** @type {Buffer} */ (written.get('index.html')).length).toBeLessThanOrEqual(page.length);
        expect(summary.totals.files).toBe(5);
        await fs.rm(base, { recursive: true });
      }),
      { numRuns: RUNS.html },
    );
    await fs.rm(root, { recursive: true });
  }, 240_000);

  it(`mutated HTML: html-case's edit on ${RUNS.htmlCase} pages changes only the case of letters`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...HTML_SEEDS), fc.array(mutation(fc.oneof(fc.constantFrom(...HTML_TOKENS), fc.uint8Array({ minLength: 1, maxLength: 16 }))), { minLength: 1, maxLength: 8 }), fc.constantFrom('utf-8', 'windows-1252', 'utf-16le'), async (seed, mutations, charset) => {
        const page = mutate(seed, mutations);
        const view = new DocumentView(page, charset, 0);
        const { bytes } = recase(view, await nameRanges(view), 'lower');
        expect(bytes.length).toBe(page.length);
        for (let i = 0; i < page.length; i++) {
          if (bytes[i] !== page[i]) expect([page[i], bytes[i]], `byte ${i}`).toEqual([page[i], page[i] + 32]);
          if (bytes[i] !== page[i]) expect(page[i] >= 0x41 && page[i] <= 0x5a, `byte ${i} is an upper-case letter`).toBe(true);
        }
      }),
      { numRuns: RUNS.htmlCase },
    );
  });

  describe('mutated images through the image jobs', () => {
    /** @type {WorkerPool} */
    let pool;
    beforeAll(() => {
      pool = new WorkerPool({ threads: 2, jobTimeoutS: JOB_TIMEOUT_S });
    });
    afterAll(async () => {
      await pool.close();
    });
    const options = { zopfliIterations: 0, maxPixels: 4_000_000, lossy: false, quality: [65, 80] };

    /**
     * Runs a job and checks the result's contract: a status, a one-line reason when not converted,
     * and, when converted, bytes sharp decodes to exactly the pixels pagediet reads in the input (its GIF decoder, fast-png for PNGs).
     * @param {string} job
     * @param {Buffer} bytes
     * @param {object} jobOptions
     * @param {() => Buffer | Promise<Buffer>} expected RGBA of the input's first frame, as pagediet reads it
     */
    async function checkJob(job, bytes, jobOptions, expected) {
      const result = await withinLimit(pool.run(job, { bytes, options: jobOptions }), job);
      expect(['converted', 'kept', 'failed']).toContain(result.status);
      if (result.status !== 'converted') {
        expect(typeof result.reason).toBe('string');
        expect(result.reason.includes('\n')).toBe(false);
        return result.status;
      }
      const pixels = await sharp(result.bytes, { animated: false }).ensureAlpha().raw().toBuffer();
      expect(pixels.equals(await expected())).toBe(true);
      expect(result.bytes.length).toBeLessThan(bytes.length);
      return result.status;
    }

    it(`mutated GIFs: ${RUNS.gif} cases of gifToPng and animation end in a result, and every conversion shows what browsers show`, async () => {
      const seeds = [GIF, await fs.readFile('fixtures/gifs/anim-new-blink.gif'), await fs.readFile('fixtures/gifs/anim-arrow-flash.gif'), await fs.readFile('fixtures/bad/small-frame.gif')];
      /** @type {Record<string, number>} */
      const statuses = {};
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...seeds.keys()), fc.array(mutation(fc.uint8Array({ minLength: 1, maxLength: 8 })), { minLength: 1, maxLength: 4 }), async (which, mutations) => {
          const bytes = mutate(seeds[which], mutations, 32);
          const animated = which === 1 || which === 2;
          const status = animated
            ? await checkJob('animation', bytes, { ...options, format: 'apng' }, () => decodeGif(bytes, options).frames[0].data)
            : await checkJob('gifToPng', bytes, options, () => decodeGif(bytes, options).frames[0].data);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
        { numRuns: RUNS.gif },
      );
      // The mutations are not all fatal: some files are still read (converted or kept), some are refused.
      expect([statuses.failed > 0, (statuses.converted ?? 0) + (statuses.kept ?? 0) > 0]).toEqual([true, true]);
    }, 240_000);

    it(`generated PNGs: ${RUNS.png} cases of recompressPng with valid chunks around random headers, filters and pixels`, async () => {
      // Byte mutations rarely get past PNG's CRCs and zlib's checksum: these cases are built whole, so the decoders see odd headers and data.
      const generated = fc.record({
        width: fc.integer({ min: 1, max: 24 }), height: fc.integer({ min: 1, max: 16 }), colorType: fc.constantFrom(0, 2, 3, 4, 6), bitDepth: fc.constantFrom(1, 2, 4, 8, 16),
        interlace: fc.constantFrom(0, 0, 0, 1), levels: fc.integer({ min: 1, max: 256 }), filters: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 4 }), seed: fc.integer({ min: 1, max: 2 ** 30 }),
        slack: fc.integer({ min: -2, max: 2 }), transparency: fc.boolean(),
      // 16-bit PNGs only valid ones: invalid ones are the known issue below.
      }).map((g) => (g.bitDepth === 16 ? { ...g, colorType: g.colorType === 3 ? 0 : g.colorType, interlace: 0, slack: 0, filters: g.filters.map((f) => f % 5) } : g));
      /** @type {Record<string, number>} */
      const statuses = {};
      await fc.assert(
        fc.asyncProperty(generated, async (g) => {
          const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[g.colorType] ?? 1;
          const rowBytes = Math.ceil((g.width * channels * g.bitDepth) / 8);
          let x = g.seed;
          const next = () => (x = (x * 1103515245 + 12345) % 2147483648) >>> 16;
          const raw = [];
          for (let y = 0; y < g.height; y++) {
            raw.push(g.filters[y % g.filters.length]);
            for (let i = 0; i < rowBytes; i++) raw.push((next() % g.levels) * Math.floor(256 / g.levels));
          }
          const data = Buffer.from(raw.slice(0, Math.max(0, raw.length + g.slack)));
          const header = Buffer.alloc(13);
          header.writeUInt32BE(g.width, 0);
          header.writeUInt32BE(g.height, 4);
          header.set([g.bitDepth, g.colorType, 0, 0, g.interlace], 8);
          const palette = Buffer.from(Array.from({ length: 3 * Math.min(256, 2 ** Math.min(g.bitDepth, 8)) }, () => next() & 0xff));
          const bytes = Buffer.concat([
            PNG_SIGNATURE, chunk('IHDR', header),
            ...(g.colorType === 3 ? [chunk('PLTE', palette)] : []),
            ...(g.transparency && g.colorType === 3 ? [chunk('tRNS', Buffer.from([0, 128]))] : []),
            chunk('IDAT', zlib.deflateSync(data, { level: 0 })), chunk('IEND'),
          ]);
          // the PNG decoder (fast-png, src/images/apng-frames.js) reads up to 8 bits; 16-bit PNGs are only deflated again, so sharp reads both sides.
          const status = await checkJob('recompressPng', bytes, options, () => (g.bitDepth === 16 ? sharp(bytes).ensureAlpha().raw().toBuffer() : decodeApng(bytes).frames[0].data));
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
        { numRuns: RUNS.pngGenerated },
      );
      expect([statuses.converted > 0, statuses.failed > 0]).toEqual([true, true]);
    }, 240_000);

    // Found by fuzzing: the 16-bit path of recompressPng inflates and deflates the image data again without
    // decoding it, so it once turned a 16-bit PNG that cannot be read (short data, a filter type over 4) into
    // another unreadable PNG in place. It now decodes both and leaves such a file as it is.
    it('a 16-bit PNG with short image data is refused, not re-deflated', async () => {
      const header = Buffer.alloc(13);
      header.writeUInt32BE(1, 0);
      header.writeUInt32BE(3, 4);
      header.set([16, 0, 0, 0, 0], 8);
      const data = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0]); // 3 rows of 1 + 2 bytes need 9
      const bytes = Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(data, { level: 0 })), chunk('IEND')]);
      await expect(sharp(bytes).raw().toBuffer()).rejects.toThrow('libpng read error');
      const result = await pool.run('recompressPng', { bytes, options });
      expect(result.status).toBe('failed');
    });

    it(`mutated PNGs: ${RUNS.png} cases of recompressPng end in a result, and every re-encoding keeps the pixels`, async () => {
      // A PNG as small as pagediet makes it (kept when re-encoded), a stored one, a real one, one with a bad CRC.
      const optimal = (await pool.run('recompressPng', { bytes: storedPng(24, 16), options })).bytes;
      const seeds = [optimal, storedPng(24, 16), await fs.readFile('fixtures/h2-sample/img/1k-01.png'), await fs.readFile('fixtures/bad/bad-crc.png')];
      /** @type {Record<string, number>} */
      const statuses = {};
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...seeds.keys()), fc.array(mutation(fc.uint8Array({ minLength: 1, maxLength: 8 })), { minLength: 1, maxLength: 4 }), fc.boolean(), async (which, mutations, fixCrcs) => {
          // Half the cases get their CRCs made right again, so the mutations reach the decoders behind the CRC check.
          const mutated = mutate(seeds[which], mutations);
          const bytes = fixCrcs ? withFixedCrcs(mutated) : mutated;
          const status = await checkJob('recompressPng', bytes, options, () => (bytes[24] === 16 ? sharp(bytes).ensureAlpha().raw().toBuffer() : decodeApng(bytes).frames[0].data));
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
        { numRuns: RUNS.png },
      );
      // Byte mutations of a PNG almost never survive its CRCs and checksums: what matters is that each ends in a one-line failure.
      expect(statuses.failed).toBeGreaterThan(0);
    }, 240_000);
  });
});
