/**
 * Where the site model keeps the bytes of files: in memory up to a budget,
 * the rest in a scratch directory, so that a build's memory does not grow with
 * the site (docs/scaling.md). Bytes are stored by their SHA-256, which the
 * model also uses as the file's content hash (pass replay compares them), and
 * which makes storing the same bytes twice free.
 *
 * `put` is synchronous (passes add files in loops); when the bytes held in
 * memory pass the budget, the oldest are written to disk in the background and
 * then dropped from memory. `settle` waits for that, for callers that produce
 * many large buffers in a row. `adopt` takes bytes that are kept elsewhere
 * (a replayed pass's, in the build's cache) by their key and how to load
 * them, so a replay holds none of them until something reads them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Default bytes kept in memory: the pages a pass is working on, with room to spare. */
export const DEFAULT_MEMORY_BUDGET = 64 * 1024 * 1024;

/** Scratch directories not yet removed, removed on exit if a build did not close its store. */
const open = new Set();
process.once('exit', () => {
  for (const dir of open) rmSync(dir, { recursive: true, force: true });
});

/** @param {Uint8Array} bytes */
export function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

export class ByteStore {
  /**
   * @param {{ budget?: number, tmpdir?: string }} [options]
   */
  constructor({ budget = DEFAULT_MEMORY_BUDGET, tmpdir = os.tmpdir() } = {}) {
    this.budget = budget;
    this.tmpdir = tmpdir;
    /** Bytes held in memory, oldest first. @type {Map<string, Buffer>} */
    this.memory = new Map();
    this.memoryBytes = 0;
    /** Keys written to the scratch directory. @type {Set<string>} */
    this.onDisk = new Set();
    /** Keys whose bytes are kept elsewhere, with how to load them (not kept after). @type {Map<string, () => Promise<Buffer>>} */
    this.elsewhere = new Map();
    /** @type {Promise<string> | null} */
    this.dir = null;
    /** @type {Promise<void>} */
    this.spilling = Promise.resolve();
    this.spillRunning = false;
    /** Why writing to the scratch directory failed (a full disk): the build stops with it. @type {Error | null} */
    this.failure = null;
    /** What spilling did, for the summary and the benchmarks. */
    this.stats = { spilled: 0, spilledBytes: 0, diskReads: 0 };
  }

  /**
   * Keeps bytes; returns their key (their SHA-256).
   * @param {Buffer} bytes
   */
  put(bytes) {
    const key = sha256(bytes);
    if (this.has(key)) return key;
    this.memory.set(key, bytes);
    this.memoryBytes += bytes.length;
    if (this.memoryBytes > this.budget && !this.spillRunning) {
      this.spillRunning = true;
      this.spilling = this.spill()
        .catch((/** @type {Error} */ error) => { this.failure = error; })
        .finally(() => { this.spillRunning = false; });
    }
    return key;
  }

  /** @param {string} key */
  has(key) {
    return this.memory.has(key) || this.onDisk.has(key) || this.elsewhere.has(key);
  }

  /**
   * Knows bytes by their key without holding them: `load` brings them when
   * they are read, and must give exactly the bytes of that key (or throw).
   * @param {string} key their SHA-256
   * @param {() => Promise<Buffer>} load
   */
  adopt(key, load) {
    if (!this.has(key)) this.elsewhere.set(key, load);
  }

  /**
   * The bytes stored under a key.
   * @param {string} key
   * @returns {Promise<Buffer>}
   */
  async get(key) {
    const held = this.memory.get(key);
    if (held) return held;
    if (this.failure) throw this.failure;
    const load = this.elsewhere.get(key);
    if (load) return load();
    if (!this.onDisk.has(key)) throw new Error(`no bytes stored under ${key}`);
    this.stats.diskReads++;
    return fs.readFile(path.join(await /** @type {Promise<string>} */ (this.dir), key));
  }

  /** Waits until the bytes in memory are within the budget again. */
  async settle() {
    while (this.spillRunning) await this.spilling;
    if (this.failure) throw new Error(`cannot write the build's scratch files: ${this.failure.message}`);
  }

  /**
   * A file holding the bytes of a key, for copying to the output without
   * reading them into memory; null when they are only in memory.
   * @param {string} key
   */
  async fileOf(key) {
    await this.settle();
    return this.onDisk.has(key) && !this.memory.has(key) ? path.join(await /** @type {Promise<string>} */ (this.dir), key) : null;
  }

  /** Writes the oldest bytes to disk until memory is within the budget. */
  async spill() {
    this.dir ??= fs.mkdtemp(path.join(this.tmpdir, 'pagediet-scratch-')).then((dir) => {
      open.add(dir);
      return dir;
    });
    const dir = await this.dir;
    while (this.memoryBytes > this.budget / 2) {
      const [key, bytes] = /** @type {[string, Buffer]} */ (this.memory.entries().next().value);
      await fs.writeFile(path.join(dir, key), bytes);
      this.onDisk.add(key);
      this.memory.delete(key);
      this.memoryBytes -= bytes.length;
      this.stats.spilled++;
      this.stats.spilledBytes += bytes.length;
    }
  }

  /** Removes the scratch directory. */
  async close() {
    await this.settle();
    if (!this.dir) return;
    const dir = await this.dir;
    await fs.rm(dir, { recursive: true, force: true });
    open.delete(dir);
    this.dir = null;
    this.onDisk.clear();
    this.elsewhere.clear();
    this.memory.clear();
    this.memoryBytes = 0;
  }
}
