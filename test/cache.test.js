// The persistent cache: keyed by job, options, input bytes and version;
// damaged entries are ignored and written again.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { ResultCache, cacheKey } from '../src/util/cache.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';

const IMAGES = fileURLToPath(new URL('../fixtures/microscape/images/', import.meta.url));
const IMAGE_PASSES = ['gif-to-png', 'animations', 'png'];

/** A site of three static GIFs and one animation. */
async function site() {
  const files = /** @type {Record<string, Buffer | string>} */ ({ 'index.html': '<img src="a.gif"><img src="b.gif"><img src="c.gif"><img src="t.gif">' });
  for (const [name, source] of [['a', 'logo'], ['b', 'emblem'], ['c', 'ad_static']]) files[`${name}.gif`] = await fs.readFile(path.join(IMAGES, `${source}.gif`));
  files['t.gif'] = await fs.readFile(path.join(IMAGES, 'anim/throbber.gif'));
  return writeTree(await tempDir(), files);
}

/** @param {string} input @param {string} cacheDir @param {object} [options] */
async function buildOnce(input, cacheDir, options = {}) {
  const output = path.join(await tempDir(), 'out');
  const summary = await build({ input, output, cacheDir, only: IMAGE_PASSES, threads: 1, ...options });
  return { work: summary.work, files: await readTree(output) };
}

/**
 * The entry files of a cache directory by what they hold: job results, pass records, what parsing a page found.
 * @param {string} dir
 */
async function entryKinds(dir) {
  const cache = new ResultCache({ dir });
  /** @type {{ jobs: string[], passes: string[], pages: string[], bytes: string[] }} */
  const kinds = { jobs: [], passes: [], pages: [], bytes: [] };
  for (const file of await entries(dir)) {
    // The bytes a pass record names by their hash (pass-memo.js).
    if (file.endsWith('-bytes')) {
      kinds.bytes.push(file);
      continue;
    }
    const value = /** @type {Record<string, unknown>} */ (await cache.get(path.basename(file)));
    if ('changes' in value) kinds.passes.push(file);
    else if ('references' in value) kinds.pages.push(file);
    else kinds.jobs.push(file);
  }
  return kinds;
}

/** Every entry file of a cache directory. @param {string} dir */
async function entries(dir) {
  return (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('persistent cache', () => {
  it('is used when nothing changed, and missed for the file whose bytes or the job whose options changed', async () => {
    const input = await site();
    const cacheDir = await tempDir('pagediet-cache-');
    const first = await buildOnce(input, cacheDir);
    expect(first.work).toEqual({ jobs: 4, cacheHits: 0, passesReplayed: 0 });
    // The same site: each pass meets what it met before and is replayed, without even asking for its jobs.
    const second = await buildOnce(input, cacheDir);
    expect(second.work).toEqual({ jobs: 0, cacheHits: 0, passesReplayed: 3 });
    expect(second.files).toEqual(first.files);

    // Other options: every job's key changes, and no pass meets what it met before.
    expect((await buildOnce(input, cacheDir, { zopfliIterations: 1 })).work).toEqual({ jobs: 4, cacheHits: 0, passesReplayed: 0 });
    // Other bytes in one file: the passes run again, and only that file's job is redone (a GIF comment extension before the trailer).
    const b = await fs.readFile(path.join(input, 'b.gif'));
    await fs.writeFile(path.join(input, 'b.gif'), Buffer.concat([b.subarray(0, -1), Buffer.from([0x21, 0xfe, 2, 0x68, 0x69, 0, 0x3b])]));
    const changed = await buildOnce(input, cacheDir);
    expect(changed.work).toEqual({ jobs: 1, cacheHits: 3, passesReplayed: 0 });
    expect(changed.files.get('b.png')).toEqual(first.files.get('b.png'));
    // A modification time alone is a change too: the passes run, every job comes from the cache.
    const later = new Date(Date.now() + 60_000);
    await fs.utimes(path.join(input, 'a.gif'), later, later);
    expect((await buildOnce(input, cacheDir)).work).toEqual({ jobs: 0, cacheHits: 4, passesReplayed: 0 });
  }, 120_000);

  it('ignores damaged entries, computes those results again and rewrites them', async () => {
    const input = await site();
    const cacheDir = await tempDir('pagediet-cache-');
    const first = await buildOnce(input, cacheDir);
    const { jobs, passes, pages, bytes: written } = await entryKinds(cacheDir);
    // The page is parsed three times: as read, and after each of the two passes that point it at converted images.
    expect([jobs.length, passes.length, pages.length]).toEqual([4, 3, 3]);
    // What the passes wrote, each under its hash: three PNGs and the page (gif-to-png), the animation and the page again (animations).
    expect(written.length).toBe(6);
    // One bit flipped deep inside a payload (inside an image's bytes), one entry truncated, one emptied.
    const [flip, cut, empty] = jobs;
    const bytes = await fs.readFile(flip);
    bytes[bytes.length - 20] ^= 0x01;
    await fs.writeFile(flip, bytes);
    await fs.truncate(cut, Math.floor((await fs.stat(cut)).size / 2));
    await fs.writeFile(empty, '');
    // The pass records damaged too (a bit flipped in each), so that the passes run again and meet the damaged jobs.
    for (const record of passes) {
      const recordBytes = await fs.readFile(record);
      recordBytes[recordBytes.length - 5] ^= 0x01;
      await fs.writeFile(record, recordBytes);
    }
    const second = await buildOnce(input, cacheDir);
    expect(second.work).toEqual({ jobs: 3, cacheHits: 1, passesReplayed: 0 });
    expect(second.files).toEqual(first.files);
    const third = await buildOnce(input, cacheDir);
    expect(third.work).toEqual({ jobs: 0, cacheHits: 0, passesReplayed: 3 });
    expect(third.files).toEqual(first.files);
  }, 120_000);

  it('is trimmed after a build to --cache-limit, keeping what that build used and as much again', async () => {
    const cacheDir = await tempDir('pagediet-cache-');
    await buildOnce(await site(), cacheDir);
    const dayAgo = new Date(Date.now() - 86_400_000);
    for (const file of await entries(cacheDir)) await fs.utimes(file, dayAgo, dayAgo);
    const before = new Set(await entries(cacheDir));
    const sizes = async (/** @type {string[]} */ files) => (await Promise.all(files.map((f) => fs.stat(f)))).reduce((sum, st) => sum + st.size, 0);
    // Another site, a page alone: what it uses is small beside the first site's image results.
    const other = await writeTree(await tempDir(), { 'index.html': '<p>other' });
    await buildOnce(other, cacheDir);
    const kept = await entries(cacheDir);
    expect(kept.filter((f) => before.has(f)).length).toBe(before.size);
    await buildOnce(other, cacheDir, { cacheLimit: 0 });
    const left = await entries(cacheDir);
    const used = left.filter((f) => !before.has(f));
    expect(used.length).toBe(kept.length - before.size);
    expect(await sizes(left)).toBeLessThanOrEqual(2 * (await sizes(used)));
    expect(left.length).toBeLessThan(kept.length);
  }, 120_000);

  it('keys on the job, the options and the bytes', () => {
    const bytes = Buffer.from('abc');
    const key = cacheKey('gifToPng', { a: 1 }, [bytes], 'code');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey('gifToPng', { a: 1 }, [Buffer.from('abc')], 'code')).toBe(key);
    expect(cacheKey('animation', { a: 1 }, [bytes], 'code')).not.toBe(key);
    expect(cacheKey('gifToPng', { a: 2 }, [bytes], 'code')).not.toBe(key);
    expect(cacheKey('gifToPng', { a: 1 }, [Buffer.from('abd')], 'code')).not.toBe(key);
    // Input boundaries count: ['ab', 'c'] is not ['a', 'bc'].
    expect(cacheKey('j', {}, [Buffer.from('ab'), Buffer.from('c')], 'code')).not.toBe(cacheKey('j', {}, [Buffer.from('a'), Buffer.from('bc')], 'code'));
  });

  it('stores Buffers and plain values exactly, and treats a foreign file as a miss', async () => {
    const cache = new ResultCache({ dir: await tempDir('pagediet-cache-') });
    const value = { status: 'converted', bytes: Buffer.from([0, 1, 2, 255]), detail: 'palette', n: 3 };
    await cache.set('k1', value);
    expect(await cache.get('k1')).toEqual(value);
    await fs.writeFile(cache.fileOf('k2'), 'not an entry').catch(async () => {
      await fs.mkdir(path.dirname(cache.fileOf('k2')), { recursive: true });
      await fs.writeFile(cache.fileOf('k2'), 'not an entry');
    });
    expect(await cache.get('k2')).toBeUndefined();
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
  });

  it('counts a missing entry as a miss, and writes an entry whose directory was removed after an earlier write made it', async () => {
    const dir = await tempDir('pagediet-cache-');
    const cache = new ResultCache({ dir });
    expect(await cache.get('ab-missing')).toBeUndefined();
    await cache.set('ab-first', 1);
    await fs.rm(dir, { recursive: true });
    await cache.set('ab-second', 2);
    expect([await cache.get('ab-first'), await cache.get('ab-second')]).toEqual([undefined, 2]);
    expect([cache.hits, cache.misses, cache.errors]).toEqual([1, 2, 0]);
  });

  it('marks entries read, or asked for and found, as used a batch at a time, all of them by settle()', async () => {
    const dir = await tempDir('pagediet-cache-');
    const cache = new ResultCache({ dir });
    const keys = Array.from({ length: 300 }, (_, i) => cacheKey('j', { i }, [], 'code'));
    for (const key of keys) await cache.set(key, 1);
    const dayAgo = new Date(Date.now() - 86_400_000);
    for (const key of keys) await fs.utimes(cache.fileOf(key), dayAgo, dayAgo);
    const touched = async () => (await Promise.all(keys.map(async (key) => (await fs.stat(cache.fileOf(key))).mtimeMs > dayAgo.getTime() + 1000))).filter(Boolean).length;
    for (const key of keys) expect(await cache.get(key)).toBe(1);
    await cache.touching;
    // The first batch of 256 is marked; the rest waits for the next batch or settle().
    expect(await touched()).toBe(256);
    await cache.settle();
    expect(await touched()).toBe(300);
    // Asked for: the build will read it (a replayed pass's bytes, read when the output is written).
    await fs.utimes(cache.fileOf(keys[0]), dayAgo, dayAgo);
    expect([cache.has(keys[0]), cache.has(cacheKey('j', { i: -1 }, [], 'code'))]).toEqual([true, false]);
    expect(await touched()).toBe(299);
    await cache.settle();
    expect(await touched()).toBe(300);
  });

  it('is trimmed to its limit or twice what the build used, least recently used first, never of what that build used', async () => {
    const dir = await tempDir('pagediet-cache-');
    const earlier = new ResultCache({ dir });
    const keys = ['a', 'b', 'c', 'd'].map((k) => cacheKey('j', { k }, [Buffer.from(k)], 'code'));
    for (const key of keys) await earlier.set(key, Buffer.alloc(1000, 1));
    // Used by builds a day ago, a first.
    const dayAgo = Date.now() - 86_400_000;
    for (const [i, key] of keys.entries()) await fs.utimes(earlier.fileOf(key), new Date(dayAgo + i * 1000), new Date(dayAgo + i * 1000));
    // An entry's size on disk: its payload and a header of the same length for every entry.
    const header = (await fs.stat(earlier.fileOf(keys[0]))).size - 1000 - v8.serialize(Buffer.alloc(0)).length;

    const cache = new ResultCache({ dir, limit: 1000 });
    const written = cacheKey('j', { k: 'new' }, [Buffer.from('new')], 'code');
    await cache.set(written, Buffer.alloc(1500, 2));
    expect(await cache.get(keys[3])).toEqual(Buffer.alloc(1000, 1));
    // This build used d and what it wrote (2,500 B and two headers): the cache keeps twice that, so of the
    // 5,500 B (and five headers) only a, the oldest, goes; never d or the new entry, though each is over the limit.
    expect(header).toBeGreaterThan(0);
    expect(await cache.trim()).toBe(1);
    expect([...keys, written].map((key) => existsSync(cache.fileOf(key)))).toEqual([false, true, true, true, true]);
    // As a build does at its end.
    await cache.settle();
    // A limit above the cache's size keeps everything.
    expect(await new ResultCache({ dir, limit: 10_000 }).trim()).toBe(0);

    // The next build, which uses none of them, trims to the limit, the least recently used first: b, c, then d;
    // the new entry alone is under the 2,500 B limit.
    const next = new ResultCache({ dir, limit: 2500 });
    next.openedMs += 5000;
    await fs.utimes(cache.fileOf(written), new Date(Date.now() + 1000), new Date(Date.now() + 1000));
    expect(await next.trim()).toBe(3);
    expect(existsSync(cache.fileOf(written))).toBe(true);
    expect(keys.map((key) => existsSync(cache.fileOf(key)))).toEqual([false, false, false, false]);
  });
});
