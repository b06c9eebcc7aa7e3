// Pass replay (src/build/pass-memo.js): a second build of an unchanged site replays
// every pass from the cache, and must give exactly what running them gave: the
// same files, modification times, summary, references and warnings.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { MARKER } from '../src/build/output.js';
import { Site } from '../src/site/site.js';
import { ResultCache } from '../src/util/cache.js';
import { PassMemo, ReplayBytesLost, record, replay, snapshot } from '../src/build/pass-memo.js';
import { tempDir, writeTree } from './helpers/tmp.js';

/**
 * Every file under a directory with its bytes and modification time.
 * @param {string} root
 */
async function tree(root) {
  /** @type {Map<string, { bytes: Buffer, mtimeMs: number }>} */
  const out = new Map();
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    out.set(path.relative(root, abs), { bytes: await fs.readFile(abs), mtimeMs: Math.round((await fs.stat(abs)).mtimeMs) });
  }
  return out;
}

/**
 * A tree without the times of what each build writes at its own time, the
 * marker and the server configs (their bytes are the same).
 * @param {Awaited<ReturnType<typeof tree>>} files
 */
function withoutOwnTimes(files) {
  const ownTime = (/** @type {string} */ name) => name === MARKER || name.startsWith('pagediet-configs/');
  return new Map([...files].map(([name, f]) => [name, ownTime(name) ? { bytes: f.bytes } : f]));
}

/** A summary without what differs between two builds of the same site: times and the work done. @param {import('../src/build/summary.js').BuildSummary} s */
const comparable = (s) => ({ ...s, ms: 0, work: null, passes: s.passes.map((p) => ({ ...p, ms: 0 })) });

describe('pass replay', () => {
  for (const fixture of ['microscape', 'bad']) {
    it(`replays every pass on a second build of fixtures/${fixture}, with the same files, times, summary and warnings`, async () => {
      const input = path.resolve('fixtures', fixture);
      const cacheDir = await tempDir('pagediet-memo-');
      const output = path.join(await tempDir(), 'out');
      const options = { input, output, cacheDir, minifyHtml: true };
      const first = await build(options);
      const firstTree = await tree(output);
      const second = await build(options);
      expect(first.work.passesReplayed).toBe(0);
      expect(second.work).toEqual({ jobs: 0, cacheHits: 0, passesReplayed: first.passes.length });
      expect(comparable(second)).toEqual(comparable(first));
      expect(second.warnings.length).toBeGreaterThan(0);
      const secondTree = await tree(output);
      expect([...secondTree.keys()].sort()).toEqual([...firstTree.keys()].sort());
      expect(withoutOwnTimes(secondTree)).toEqual(withoutOwnTimes(firstTree));
    }, 300_000);
  }

  it('runs a pass between replayed ones on what they wrote, and gives what a cold build gives', async () => {
    const input = path.resolve('fixtures', 'microscape');
    const cacheDir = await tempDir('pagediet-memo-');
    const output = path.join(await tempDir(), 'out');
    await build({ input, output, cacheDir });
    // html-case also measures brotli sizes: it runs on the replayed passes' pages, writes what it wrote before,
    // and the passes after it meet the site they met and are replayed again.
    const options = { input, output, htmlCaseBrotli: true };
    const mixed = await build({ ...options, cacheDir });
    const mixedTree = await tree(output);
    const cold = await build({ ...options, cacheDir: await tempDir('pagediet-memo-') });
    expect(mixed.passes.length).toBe(13);
    expect(mixed.work.passesReplayed).toBe(mixed.passes.length - 1);
    expect(cold.work.passesReplayed).toBe(0);
    expect(comparable(mixed)).toEqual(comparable(cold));
    expect(withoutOwnTimes(mixedTree)).toEqual(withoutOwnTimes(await tree(output)));
  }, 300_000);

  it('builds again without replaying when the cache lost bytes a replayed pass wrote', async () => {
    const input = path.resolve('fixtures', 'bad');
    const cacheDir = await tempDir('pagediet-memo-');
    const output = path.join(await tempDir(), 'out');
    const first = await build({ input, output, cacheDir });
    const firstTree = await tree(output);
    // The images' bytes: nothing reads them before the output is written, which then stops half-way.
    let damaged = 0;
    const entries = new ResultCache({ dir: cacheDir });
    for (const entry of await fs.readdir(cacheDir, { recursive: true })) {
      if (!entry.endsWith('-bytes')) continue;
      const bytes = /** @type {Buffer} */ (await entries.get(path.basename(entry)));
      if (!['GIF8', '\x89PNG'].includes(Buffer.from(bytes.subarray(0, 4)).toString('latin1'))) continue;
      await fs.writeFile(path.join(cacheDir, entry), 'pdc1 not an entry');
      damaged++;
    }
    expect(damaged).toBeGreaterThan(0);
    // Into a new output: the attempt that found the damage may have written part of it, which the next one takes over.
    await fs.rm(output, { recursive: true });
    const second = await build({ input, output, cacheDir });
    expect(second.work.passesReplayed).toBe(0);
    expect(second.warnings.filter((w) => w.code === 'cache-lost').map((w) => w.severity)).toEqual(['info']);
    const withoutLost = { ...second, warnings: second.warnings.filter((w) => w.code !== 'cache-lost'), totals: { ...second.totals, info: second.totals.info - 1 } };
    expect(comparable(withoutLost)).toEqual(comparable(first));
    expect(withoutOwnTimes(await tree(output))).toEqual(withoutOwnTimes(firstTree));
  }, 300_000);

  it('keeps the bytes a recalled record names through the trim that comes before the output reads them', async () => {
    const dir = await tempDir('pagediet-memo-');
    const input = await writeTree(await tempDir(), { 'index.html': '<p>a' });
    const ran = await Site.read(input);
    const before = snapshot(ran);
    await ran.write('index.html', Buffer.from('<p>b'));
    await new PassMemo(new ResultCache({ dir })).store('pass', record(ran, before, { name: 't', description: 't', files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 5 }), ran);
    // The next build, a day later, with a limit that keeps only what it uses.
    const dayAgo = new Date(Date.now() - 86_400_000);
    for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) if (entry.isFile()) await fs.utimes(path.join(entry.parentPath, entry.name), dayAgo, dayAgo);
    const cache = new ResultCache({ dir, limit: 0 });
    const site = await Site.read(input);
    await replay(site, /** @type {import('../src/build/pass-memo.js').PassRecord} */ (await new PassMemo(cache).recall('pass', site)));
    expect(await cache.trim()).toBe(0);
    expect((await site.read('index.html')).toString()).toBe('<p>b');
  });

  it('records adds, writes, role changes and removals, and replays them onto another read of the site', async () => {
    const input = await writeTree(await tempDir(), {
      'index.html': '<link rel=stylesheet href=s.css><img src=a.gif><img src=b.gif><a href=new.html>new</a>',
      's.css': 'p { color: red }',
      'a.gif': 'GIF89a-a',
      'b.gif': 'GIF89a-b',
      'data.txt': 'plain',
    });
    /** @param {Site} site */
    const pass = async (site) => {
      // Replaced under the same name, a new page, a page edited to point at it, a role change, a removal.
      site.remove('a.gif');
      await site.add('a.gif', Buffer.from('GIF89a-A'), 1000);
      const page = await site.add('new.html', Buffer.from('<title>new</title><img src=b.gif>'), 2000);
      await site.parse(page);
      await site.write('index.html', Buffer.from('<link rel=stylesheet href=s.css><img src=a.gif><a href=new.html>new</a>'));
      site.get('data.txt').role = 'stylesheet';
      site.remove('b.gif');
      site.warn('b.gif', 'test', 'removed');
    };
    const ran = await Site.read(input);
    const before = snapshot(ran);
    await pass(ran);
    const memo = record(ran, before, { name: 't', description: 't', files: [], bytesBefore: 0, bytesAfter: 0, referencesRewritten: 0, requestsRemoved: 0, decisions: [], ms: 5 });
    expect(memo.changes.map((c) => `${c.op} ${c.path}`)).toEqual(['role data.txt', 'write index.html', 'add a.gif', 'add new.html', 'remove b.gif']);
    expect(memo.report).not.toHaveProperty('ms');

    // Stored and recalled as a build does: the record names bytes by their hash, each its own entry.
    /** @type {Map<string, unknown>} */
    const entries = new Map();
    const passMemo = new PassMemo({ get: async (key) => structuredClone(entries.get(key)), set: async (key, value) => { entries.set(key, structuredClone(value)); }, has: (key) => entries.has(key) });
    await passMemo.store('pass', memo, ran);
    expect([...entries.keys()].sort()).toEqual([`${ran.get('a.gif').outputKey}-bytes`, `${ran.get('index.html').outputKey}-bytes`, `${ran.get('new.html').outputKey}-bytes`, 'pass'].sort());
    const replayed = await Site.read(input);
    const recalled = await passMemo.recall('pass', replayed);
    if (!recalled) throw new Error('not recalled');
    await replay(replayed, recalled);
    // Replayed writes are parsed when the build needs their references.
    expect(replayed.get('new.html').references).toEqual([]);
    await replayed.parsePending();
    /** @param {Site} site */
    const state = (site) => [...site.files.values()].map((f) => ({ path: f.path, role: f.role, bytes: site.contentKey(f), written: f.outputKey !== null, mtimeMs: f.absPath ? 0 : f.mtimeMs, references: f.references }));
    expect(state(replayed).sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual(state(ran).sort((a, b) => (a.path < b.path ? -1 : 1)));
    expect(replayed.warnings).toEqual(ran.warnings);
    expect(replayed.get('new.html').references.map((r) => [r.url, r.status])).toEqual([['b.gif', 'ok']]);

    // Bytes that are gone (the cache was trimmed): no replay. Bytes that are not what the record names are
    // found out when read: the build starts again without replaying (pipeline.js).
    const newPage = `${ran.get('new.html').outputKey}-bytes`;
    entries.set(newPage, Buffer.from('<title>other</title>'));
    const damaged = await Site.read(input);
    await replay(damaged, /** @type {import('../src/build/pass-memo.js').PassRecord} */ (await passMemo.recall('pass', damaged)));
    await expect(damaged.parsePending()).rejects.toBeInstanceOf(ReplayBytesLost);
    entries.delete(newPage);
    expect(await passMemo.recall('pass', await Site.read(input))).toBeUndefined();
  });
});
