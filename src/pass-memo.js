/**
 * Pass replay: a pass is a deterministic function of the site it meets and the
 * build's options (test/determinism.test.js holds every pass to it), so when a
 * pass meets exactly the site it met in an earlier build (the same paths, bytes,
 * roles and modification times, the same options, the same pagediet) the build
 * replays what the pass did then: the files it wrote, added and removed, its
 * warnings and its report. A second build of an unchanged site then parses and
 * encodes nothing; a build where one file changed runs every pass that meets
 * the change, and those take their expensive results from the job cache.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { codeFingerprint } from './util/code-fingerprint.js';
import { forEachOrdered } from './util/ordered.js';

/** Cache entries of a record's bytes read at once when it is recalled. */
const RECALL_WINDOW = 8;

/**
 * @typedef {import('./site/site.js').Site} Site
 * @typedef {import('./site/site.js').SiteFile} SiteFile
 * @typedef {import('./site/site.js').Warning} Warning
 * @typedef {import('./pipeline.js').PassReport} PassReport
 *
 * @typedef {{ op: 'add', path: string, key: string, mtimeMs: number, role: SiteFile['role'], parsed: boolean, charset?: string }
 *   | { op: 'write', path: string, key: string }
 *   | { op: 'role', path: string, role: SiteFile['role'] }
 *   | { op: 'remove', path: string }} Change
 *
 * @typedef {object} PassRecord what one pass did to one site
 * @property {Change[]} changes
 * @property {Warning[]} warnings
 * @property {Omit<PassReport, 'ms'>} report
 *
 * @typedef {{ file: SiteFile, writes: number, role: SiteFile['role'] }} FileState
 */

export class PassMemo {
  /**
   * @param {{ get(key: string): Promise<unknown>, set(key: string, value: unknown): Promise<void> }} cache
   */
  constructor(cache) {
    this.cache = cache;
    /** Hashes of input files not held in memory, by absolute path. @type {Map<string, string>} */
    this.inputHashes = new Map();
  }

  /**
   * The key of a pass meeting this site with its options: the pass's code
   * and this module's (what a record holds), the options, and every file.
   * @param {string} passName
   * @param {Site} site
   * @param {Record<string, unknown>} options the pass's resolved options
   * @param {string} code the fingerprint of the pass's code
   */
  async key(passName, site, options, code) {
    const hash = crypto.createHash('sha256');
    hash.update(`pagediet memo ${code} ${await codeFingerprint(new URL(import.meta.url))}\0${passName}\0${JSON.stringify(options)}\0`);
    hash.update(`${[...site.directories].sort().join('\n')}\0${[...site.skipped.keys()].sort().join('\n')}\0`);
    for (const file of site.files.values()) {
      hash.update(`${file.path}\0${file.role}\0${file.absPath === null ? '-' : 'in'}\0${file.mtimeMs}\0`);
      hash.update(await this.contentHash(site, file));
      hash.update('\0');
    }
    return hash.digest('hex');
  }

  /**
   * The hash of a file's current bytes: its key in the site's byte store (their
   * SHA-256), or the SHA-256 of an input file the site did not need to read.
   * @param {Site} site
   * @param {SiteFile} file
   */
  async contentHash(site, file) {
    const key = site.contentKey(file);
    if (key) return key;
    const absPath = /** @type {string} */ (file.absPath);
    let known = this.inputHashes.get(absPath);
    if (known === undefined) {
      // An unreadable file hashes as such: the pass meets it as unreadable, and warns.
      const bytes = await fs.readFile(absPath).catch(() => null);
      known = bytes ? sha256(bytes) : 'unreadable';
      this.inputHashes.set(absPath, known);
    }
    return known;
  }

  /**
   * The record stored under a key, if any, with the bytes it writes brought
   * into the site's byte store one at a time (a record names them by their
   * hash; each is its own cache entry, so a record of 10,000 pages is never
   * in memory at once). A record whose bytes are missing or damaged is none.
   * @param {string} key
   * @param {Site} site
   * @returns {Promise<PassRecord | undefined>}
   */
  async recall(key, site) {
    const value = await this.cache.get(key);
    if (!isRecord(value)) return undefined;
    const needed = /** @type {{ key: string }[]} */ (value.changes.filter((change) => (change.op === 'add' || change.op === 'write') && !site.bytes.has(change.key)));
    let whole = true;
    // A few entries read at once: one at a time, each read waits for its own round trips through libuv's threads.
    await forEachOrdered(needed, (change) => this.cache.get(bytesKey(change.key)), async (bytes, change) => {
      if (!whole) return;
      if (!(bytes instanceof Uint8Array) || site.bytes.put(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) !== change.key) {
        whole = false;
        return;
      }
      await site.bytes.settle();
    }, RECALL_WINDOW);
    return whole ? value : undefined;
  }

  /**
   * Stores what a pass did: the record, and each file's bytes it wrote under their hash.
   * @param {string} key
   * @param {PassRecord} record
   * @param {Site} site
   */
  async store(key, record, site) {
    for (const change of record.changes) {
      if (change.op === 'add' || change.op === 'write') await this.cache.set(bytesKey(change.key), await site.bytes.get(change.key));
    }
    await this.cache.set(key, record);
  }
}

/**
 * What the site looks like before a pass runs, to tell afterwards what it changed.
 * @param {Site} site
 * @returns {{ files: Map<string, FileState>, warnings: number }}
 */
export function snapshot(site) {
  /** @type {Map<string, FileState>} */
  const files = new Map();
  for (const file of site.files.values()) files.set(file.path, { file, writes: file.writes, role: file.role });
  return { files, warnings: site.warnings.length };
}

/**
 * What a pass did, from the site before it (a snapshot) and after it.
 * @param {Site} site
 * @param {ReturnType<typeof snapshot>} before
 * @param {PassReport} report
 * @returns {PassRecord}
 */
export function record(site, before, report) {
  /** @type {Change[]} */
  const changes = [];
  for (const file of site.files.values()) {
    const was = before.files.get(file.path);
    if (!was || was.file !== file) {
      // A style sheet is parsed again on replay without the page that links it: its charset is kept, as the fallback for bytes that are not UTF-8.
      changes.push({ op: 'add', path: file.path, key: /** @type {string} */ (file.outputKey), mtimeMs: file.mtimeMs, role: file.role, parsed: file.charset !== null, ...(file.charset !== null && { charset: file.charset }) });
      continue;
    }
    if (file.role !== was.role) changes.push({ op: 'role', path: file.path, role: file.role });
    if (file.outputKey && file.writes !== was.writes) changes.push({ op: 'write', path: file.path, key: file.outputKey });
  }
  for (const path of before.files.keys()) if (!site.files.has(path)) changes.push({ op: 'remove', path });
  const { ms: _ms, ...rest } = report;
  return { changes, warnings: site.warnings.slice(before.warnings), report: rest };
}

/**
 * Does to the site what a recorded pass did: adds first, then role changes and
 * writes (a written page's references resolve against the files it can point
 * at, added ones included), removals last; then the pass's warnings, exactly
 * (parsing an added page again must not warn twice).
 * @param {Site} site
 * @param {PassRecord} memo
 */
export async function replay(site, memo) {
  const warnings = site.warnings.length;
  for (const change of memo.changes) {
    if (change.op !== 'add') continue;
    // The pass removed the file that was here and created another under its name.
    if (site.files.has(change.path)) site.remove(change.path);
    const file = await site.add(change.path, await site.bytes.get(change.key), change.mtimeMs);
    file.role = change.role;
    if (change.parsed) await site.parse(file, change.charset);
  }
  for (const change of memo.changes) {
    if (change.op === 'role') site.get(change.path).role = change.role;
    else if (change.op === 'write') await site.write(change.path, await site.bytes.get(change.key));
  }
  for (const change of memo.changes) if (change.op === 'remove') site.remove(change.path);
  site.warnings.length = warnings;
  for (const w of memo.warnings) site.warn(w.file, w.code, w.message);
}

/** The cache key of bytes a record names by their hash. @param {string} hash */
function bytesKey(hash) {
  return `${hash}-bytes`;
}

/** @param {Uint8Array} bytes */
function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/**
 * @param {unknown} value
 * @returns {value is PassRecord}
 */
function isRecord(value) {
  return typeof value === 'object' && value !== null && Array.isArray(/** @type {PassRecord} */ (value).changes) && Array.isArray(/** @type {PassRecord} */ (value).warnings) && typeof (/** @type {PassRecord} */ (value).report) === 'object';
}
