/**
 * The persistent cache of expensive results (image encodes, compression):
 * one file per result, named by the hash of everything the result depends on
 * (the job, its input bytes, its options and pagediet's version), so a second
 * build of an unchanged site redoes nothing. Entries are written atomically,
 * so two builds sharing a cache never see half an entry, and the cache is
 * trimmed, least recently used first, to a size limit or to twice what the
 * build that trims it used, whichever is larger: that build's entries all
 * stay, and as many bytes again of older ones (the job results a cold build
 * made, which a replayed build does not read and a partial rebuild does).
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { existsSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { writeFileAtomic } from './atomic.js';

/** Default bound on the cache's size on disk, below which nothing is trimmed. */
export const DEFAULT_CACHE_LIMIT = 512 * 1024 * 1024;
/** The cache keeps up to this many times what the build that trims it used. */
const KEPT_PER_BYTE_USED = 2;

/**
 * Where the cache lives unless told: PAGEDIET_CACHE_DIR, else
 * node_modules/.cache/pagediet of the nearest package above the working
 * directory (where build tools keep their caches), else the user's cache
 * directory.
 * @param {string} [from]
 */
export function defaultCacheDir(from = process.cwd()) {
  if (process.env.PAGEDIET_CACHE_DIR) return path.resolve(process.env.PAGEDIET_CACHE_DIR);
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'node_modules', '.cache', 'pagediet');
    if (path.dirname(dir) === dir) break;
  }
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pagediet');
}

/**
 * The key of a result: a hash of the job's name, the fingerprint of the code
 * that computes it (src/util/code-fingerprint.js), its options and its input bytes.
 * @param {string} job
 * @param {unknown} options JSON-serialisable
 * @param {Uint8Array[]} inputs
 * @param {string} code the code's fingerprint
 */
export function cacheKey(job, options, inputs, code) {
  const hash = crypto.createHash('sha256');
  hash.update(`pagediet ${code}\0${job}\0${JSON.stringify(options)}\0`);
  for (const input of inputs) {
    hash.update(`${input.length}\0`);
    hash.update(input);
  }
  return hash.digest('hex');
}

/** Entries marked used at once (touch). */
const TOUCH_BATCH = 256;

/** An entry: this magic, the SHA-256 of the payload, then the payload (v8-serialized). */
const ENTRY_MAGIC = Buffer.from('pdc1');
const DIGEST_BYTES = 32;

/** @param {unknown} value */
function pack(value) {
  const payload = v8.serialize(value);
  return Buffer.concat([ENTRY_MAGIC, crypto.createHash('sha256').update(payload).digest(), payload]);
}

/**
 * The value of an entry; throws when the entry is damaged. The digest matters:
 * a flipped bit inside an image's bytes would deserialize without complaint.
 * @param {Buffer} bytes
 */
function unpack(bytes) {
  const start = ENTRY_MAGIC.length + DIGEST_BYTES;
  if (bytes.length < start || !bytes.subarray(0, ENTRY_MAGIC.length).equals(ENTRY_MAGIC)) throw new Error('not a cache entry');
  const payload = bytes.subarray(start);
  if (!crypto.createHash('sha256').update(payload).digest().equals(bytes.subarray(ENTRY_MAGIC.length, start))) throw new Error('damaged cache entry');
  return v8.deserialize(payload);
}

export class ResultCache {
  /**
   * @param {{ dir: string, limit?: number }} options
   */
  constructor({ dir, limit = DEFAULT_CACHE_LIMIT }) {
    this.dir = dir;
    this.limit = limit;
    /** When this cache was opened: what was used since is the next build's, and trim keeps it. */
    this.openedMs = Date.now();
    this.hits = 0;
    this.misses = 0;
    this.errors = 0;
    /** Directories of entries this cache made or found: each is made once, not on every write. @type {Set<string>} */
    this.directories = new Set();
    /** Entries read and not yet marked used (touch). @type {string[]} */
    this.toTouch = [];
    /** @type {Promise<void>} */
    this.touching = Promise.resolve();
  }

  /** @param {string} key */
  fileOf(key) {
    return path.join(this.dir, key.slice(0, 2), key);
  }

  /**
   * Whether an entry is stored (it may still turn out damaged when read); one
   * that is counts as used, as when read: the build asks because it will read it.
   * @param {string} key
   */
  has(key) {
    const file = this.fileOf(key);
    if (!existsSync(file)) return false;
    this.touch(file);
    return true;
  }

  /**
   * A stored result, or undefined. A damaged entry counts as missing.
   * @param {string} key
   * @returns {Promise<unknown>}
   */
  async get(key) {
    const file = this.fileOf(key);
    // A cold build misses every lookup: a missing file is found without the exception (and stack) readFile makes of it.
    if (!existsSync(file)) {
      this.misses++;
      return undefined;
    }
    let bytes;
    try {
      // Synchronous: entries are small or already in the page cache, and a warm build reads tens of thousands;
      // 20,000 of a 10,000-page site's entries took 350 ms read this way, 1.2 s through libuv's threads.
      bytes = readFileSync(file);
    } catch {
      this.misses++;
      return undefined;
    }
    try {
      const value = unpack(bytes);
      this.hits++;
      this.touch(file);
      return value;
    } catch {
      this.misses++;
      return undefined;
    }
  }

  /**
   * Stores a result (structured-clonable: objects, arrays, Buffers, numbers, strings).
   * A cache that cannot be written is not an error for the build.
   * @param {string} key
   * @param {unknown} value
   */
  async set(key, value) {
    const file = this.fileOf(key);
    const dir = path.dirname(file);
    const bytes = pack(value);
    try {
      if (!this.directories.has(dir)) {
        await fs.mkdir(dir, { recursive: true });
        this.directories.add(dir);
      }
      await writeFileAtomic(file, bytes).catch(async (/** @type {NodeJS.ErrnoException} */ error) => {
        // Its directory went (the cache was cleared meanwhile): made again, once.
        if (error?.code !== 'ENOENT') throw error;
        await fs.mkdir(dir, { recursive: true });
        await writeFileAtomic(file, bytes);
      });
    } catch {
      this.errors++;
    }
  }

  /**
   * Marks an entry used now: its modification time, by which trim takes the
   * least recently used first. A batch at a time, beside the build: a read
   * that waited for it would wait for one more round trip through libuv's
   * threads.
   * @param {string} file
   */
  touch(file) {
    this.toTouch.push(file);
    if (this.toTouch.length >= TOUCH_BATCH) this.touching = this.touchWaiting();
  }

  /** Waits until every entry read so far is marked used. */
  async settle() {
    await (this.touching = this.touchWaiting());
  }

  async touchWaiting() {
    const batch = this.toTouch;
    this.toTouch = [];
    await this.touching;
    const now = new Date();
    await Promise.all(batch.map((file) => fs.utimes(file, now, now).catch(() => {})));
  }

  /**
   * Removes the least recently used entries until the cache is under its
   * limit or twice what this cache has read or written since it was opened,
   * whichever is larger, and never one of those: a build whose results
   * outgrow the limit (a warm build of 10,000 pages used 2.9 GB) keeps them
   * all, so building the same site again finds every one, and keeps as much
   * again of older entries, so the cold build's job results (1.6 GB more)
   * are there when a few pages change.
   * @returns {Promise<number>} entries removed
   */
  async trim() {
    await this.settle();
    /** @type {{ file: string, size: number, used: number }[]} */
    const entries = [];
    let total = 0;
    let used = 0;
    // File times can lag the clock by a tick: a second of margin.
    const inUse = this.openedMs - 1000;
    let shards;
    try {
      shards = await fs.readdir(this.dir);
    } catch {
      return 0;
    }
    for (const shard of shards) {
      let names;
      try {
        names = await fs.readdir(path.join(this.dir, shard));
      } catch {
        continue;
      }
      for (const name of names) {
        const file = path.join(this.dir, shard, name);
        // Synchronous: the build waits for the trim either way, and a warm cache of 10,000 pages holds 158,000
        // entries; one stat after another through libuv's threads took 3.7 s for 25,000.
        const stat = statSync(file, { throwIfNoEntry: false });
        // Removed by another build meanwhile.
        if (!stat) continue;
        entries.push({ file, size: stat.size, used: stat.mtimeMs });
        total += stat.size;
        if (stat.mtimeMs >= inUse) used += stat.size;
      }
    }
    const limit = Math.max(this.limit, KEPT_PER_BYTE_USED * used);
    if (total <= limit) return 0;
    entries.sort((a, b) => a.used - b.used);
    let removed = 0;
    for (const entry of entries) {
      if (total <= limit || entry.used >= inUse) break;
      // Synchronous too: the first build after a cold one removes tens of thousands of entries (the cold build's
      // job results, which replayed passes do not read), and fs.rm took 260 µs an entry, unlinkSync 23.
      try {
        unlinkSync(entry.file);
      } catch {
        // Removed by another build meanwhile.
      }
      total -= entry.size;
      removed++;
    }
    return removed;
  }
}
