// --shard I/N: slices that together build what one full build does.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { MARKER } from '../src/build/output.js';
import { parseShard, shardOf } from '../src/build/shard.js';
import { readSiteFiles, serverConfig } from '../src/configs/index.js';
import { generateSite } from '../bench/generate-site.js';
import { tempDir, readTree } from './helpers/tmp.js';

describe('--shard', () => {
  it('builds, in two shards sharing a cache and an output, exactly the files of one full build', async () => {
    const input = path.join(await tempDir(), 'site');
    await generateSite(input, { pages: 6, images: 40 });
    const cacheDir = await tempDir('pagediet-cache-');
    // For time only: text-images (it checks each page in Chromium) is left out and .gz is zlib's; every other pass runs.
    const common = { input, cacheDir, skip: ['text-images'], gzip: /** @type {const} */ ('zlib'), threads: 2 };
    const fullDir = path.join(await tempDir(), 'full');
    const full = await build({ ...common, output: fullDir });
    const shardedDir = path.join(await tempDir(), 'sharded');
    const first = await build({ ...common, output: shardedDir, shard: { index: 1, count: 2 } });
    const afterFirst = await readTree(shardedDir);
    const second = await build({ ...common, output: shardedDir, shard: { index: 2, count: 2 } });

    // Each shard built some pages and not all; together, all.
    const pagesOf = (/** @type {import('../src/build/summary.js').BuildSummary} */ s) => s.pages.map((p) => p.path);
    expect(pagesOf(first).length).toBeGreaterThan(0);
    expect(pagesOf(second).length).toBeGreaterThan(0);
    expect([...pagesOf(first), ...pagesOf(second)].sort()).toEqual(pagesOf(full).sort());
    for (const p of pagesOf(first)) expect(shardOf(p, 2)).toBe(1);
    // The second shard left the first one's files alone.
    const sharded = await readTree(shardedDir);
    for (const [name, bytes] of afterFirst) if (name !== MARKER) expect(sharded.get(name)?.equals(bytes), name).toBe(true);

    const expected = await readTree(fullDir);
    for (const tree of [expected, sharded]) tree.delete(MARKER);
    expect([...sharded.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [name, bytes] of expected) expect(sharded.get(name)?.equals(bytes), name).toBe(true);

    // Shards write no configs, and say so; `pagediet configs` on the merged output gives the full build's.
    expect(second.warnings.map((w) => w.code)).toContain('configs-shard');
    await expect(fs.access(`${shardedDir}-configs`)).rejects.toThrow();
    const merged = await readSiteFiles(shardedDir);
    for (const [server, file] of [['nginx', 'nginx.conf'], ['nginx-brotli', 'nginx-brotli.conf'], ['apache', 'htaccess'], ['caddy', 'caddy.conf'], ['headers', '_headers']]) {
      expect(serverConfig(server, merged), server).toBe(await fs.readFile(path.join(`${fullDir}-configs`, file), 'utf8'));
    }
  }, 240_000);

  it('parses I/N and refuses anything else in one line', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3']) expect(() => parseShard(bad)).toThrow(`--shard must be I/N with 1 <= I <= N, not '${bad}'`);
  });
});
