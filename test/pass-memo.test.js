// Pass replay (src/pass-memo.js): a second build of an unchanged site replays
// every pass from the cache, and must give exactly what running them gave: the
// same files, modification times, summary, references and warnings.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/pipeline.js';
import { MARKER } from '../src/output.js';
import { Site } from '../src/site/site.js';
import { PassMemo, record, replay, snapshot } from '../src/pass-memo.js';
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

/** A summary without what differs between two builds of the same site: times and the work done. @param {import('../src/summary.js').BuildSummary} s */
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
      // The marker and the server configs are written by each build, at its own time; their bytes are the same.
      const ownTime = (/** @type {string} */ name) => name === MARKER || name.startsWith('pagediet-configs/');
      const at = (/** @type {typeof firstTree} */ t) => new Map([...t].map(([name, f]) => [name, ownTime(name) ? { bytes: f.bytes } : f]));
      expect([...secondTree.keys()].sort()).toEqual([...firstTree.keys()].sort());
      expect(at(secondTree)).toEqual(at(firstTree));
    }, 300_000);
  }

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
    const passMemo = new PassMemo({ get: async (key) => structuredClone(entries.get(key)), set: async (key, value) => { entries.set(key, structuredClone(value)); } });
    await passMemo.store('pass', memo, ran);
    expect([...entries.keys()].sort()).toEqual([`${ran.get('a.gif').outputKey}-bytes`, `${ran.get('index.html').outputKey}-bytes`, `${ran.get('new.html').outputKey}-bytes`, 'pass'].sort());
    const replayed = await Site.read(input);
    const recalled = await passMemo.recall('pass', replayed);
    if (!recalled) throw new Error('not recalled');
    await replay(replayed, recalled);
    /** @param {Site} site */
    const state = (site) => [...site.files.values()].map((f) => ({ path: f.path, role: f.role, bytes: site.contentKey(f), written: f.outputKey !== null, mtimeMs: f.absPath ? 0 : f.mtimeMs, references: f.references }));
    expect(state(replayed).sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual(state(ran).sort((a, b) => (a.path < b.path ? -1 : 1)));
    expect(replayed.warnings).toEqual(ran.warnings);
    expect(replayed.get('new.html').references.map((r) => [r.url, r.status])).toEqual([['b.gif', 'ok']]);

    // Bytes that are not what the record names, or are gone (the cache was trimmed): no replay.
    const newPage = `${ran.get('new.html').outputKey}-bytes`;
    entries.set(newPage, Buffer.from('<title>other</title>'));
    expect(await passMemo.recall('pass', await Site.read(input))).toBeUndefined();
    entries.delete(newPage);
    expect(await passMemo.recall('pass', await Site.read(input))).toBeUndefined();
  });
});
