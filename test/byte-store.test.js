// The byte store (src/site/byte-store.js): the site model's bytes in memory up
// to a budget and on disk beyond it, by their SHA-256; and a build whose every
// page and written file waits on disk gives the same output as one that keeps
// them in memory.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ByteStore, sha256 } from '../src/site/byte-store.js';
import { build } from '../src/build/pipeline.js';
import { Site } from '../src/site/site.js';
import { tempDir, readTree } from './helpers/tmp.js';

describe('byte store', () => {
  it('keeps bytes by their SHA-256, spills the oldest past the budget, and reads them back', async () => {
    const scratch = await tempDir();
    const store = new ByteStore({ budget: 1000, tmpdir: scratch });
    const chunks = Array.from({ length: 10 }, (_, i) => Buffer.alloc(300, i));
    const keys = chunks.map((c) => store.put(c));
    expect(keys[3]).toBe(sha256(chunks[3]));
    expect(store.put(Buffer.alloc(300, 3))).toBe(keys[3]);
    await store.settle();
    // Spilled down to half the budget: the newest one stays in memory.
    expect(store.memoryBytes).toBe(300);
    expect([...store.memory.keys()]).toEqual([keys[9]]);
    expect(store.stats).toEqual({ spilled: 9, spilledBytes: 2700, diskReads: 0 });
    for (const [i, key] of keys.entries()) expect((await store.get(key)).equals(chunks[i])).toBe(true);
    expect(store.stats.diskReads).toBe(9);
    const file = await store.fileOf(keys[0]);
    expect(file && (await fs.readFile(file)).equals(chunks[0])).toBe(true);
    expect(await store.fileOf(keys[9])).toBeNull();
    await expect(store.get(sha256(Buffer.from('never stored')))).rejects.toThrow(/no bytes stored under/);
    const [dir] = await fs.readdir(scratch);
    expect(dir).toMatch(/^pagediet-scratch-/);
    await store.close();
    expect(await fs.readdir(scratch)).toEqual([]);
  });

  it('never touches the disk within its budget', async () => {
    const scratch = await tempDir();
    const store = new ByteStore({ budget: 1 << 20, tmpdir: scratch });
    for (let i = 0; i < 100; i++) store.put(Buffer.alloc(1000, i));
    await store.settle();
    expect(store.stats.spilled).toBe(0);
    expect(await fs.readdir(scratch)).toEqual([]);
  });

  it('holds the site model\'s pages on disk with a budget of 0', async () => {
    const site = await Site.read('fixtures/microscape', { memoryBudget: 0 });
    await site.bytes.settle();
    const documents = [...site.files.values()].filter((f) => f.role !== 'asset');
    expect(site.bytes.memoryBytes).toBe(0);
    expect(site.bytes.stats.spilled).toBe(documents.length);
    expect(site.bytes.stats.spilledBytes).toBe(documents.reduce((sum, f) => sum + f.size, 0));
    const index = site.get('index.html');
    expect((await site.read('index.html')).equals(await fs.readFile('fixtures/microscape/index.html'))).toBe(true);
    expect(index.sourceKey).toBe(sha256(await fs.readFile('fixtures/microscape/index.html')));
    await site.close();
  });

  it('builds fixtures/microscape to the same bytes with every page and written file on disk', async () => {
    const input = path.resolve('fixtures/microscape');
    const options = { input, cache: false, only: ['html-case', 'css', 'gif-to-png', 'animations', 'png', 'precompress'], configs: /** @type {false} */ (false) };
    const inMemory = path.join(await tempDir(), 'out');
    const onDisk = path.join(await tempDir(), 'out');
    const a = await build({ ...options, output: inMemory });
    const b = await build({ ...options, output: onDisk, memoryBudget: 0 });
    const [left, right] = [await readTree(inMemory), await readTree(onDisk)];
    expect([...right.keys()].sort()).toEqual([...left.keys()].sort());
    for (const [name, bytes] of left) expect(right.get(name)?.equals(bytes), name).toBe(true);
    expect(b.totals).toEqual(a.totals);
    expect(b.warnings).toEqual(a.warnings);
  }, 300_000);
});
