/**
 * Pass replay: a pass is a deterministic function of the site it meets and the
 * build's options (test/determinism.test.js holds every pass to it), so when a
 * pass meets exactly the site it met in an earlier build (the same paths, bytes,
 * roles and modification times, the same options, the same pagediet) the build
 * replays what the pass did then: the files it wrote, added and removed, its
 * warnings and its report. A second build of an unchanged site then parses and
 * encodes nothing; a build where one file changed runs every pass that meets
 * the change, and those take their expensive results from the job cache.
 *
 * A replay holds no file's bytes: the byte store knows them by their hash and
 * loads them from the cache when something reads them (the next pass that
 * runs, the output). The next pass's key needs only their hashes, so a chain
 * of replayed passes costs the records, and each page they wrote is parsed
 * once, at the end of the chain (Site.parsePending), from what the cache found
 * in it, against the files there were when it was written.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { codeFingerprint } from '../util/code-fingerprint.js';
import { forEachOrdered } from '../util/ordered.js';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('../site/site.js').Warning} Warning
 * @typedef {import('./pipeline.js').PassReport} PassReport
 *
 * @typedef {{ charset?: string, bomLength?: number }} ParseInfo a page's charset and byte order mark, a style sheet's
 *   charset (the fallback of its next parse)
 * @typedef {{ op: 'add', path: string, key: string, length: number, mtimeMs: number, role: SiteFile['role'], parsed: boolean } & ParseInfo
 *   | { op: 'write', path: string, key: string, length: number } & ParseInfo
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

/**
 * Bytes a replayed pass wrote are no longer in the cache, or are damaged
 * there: the build starts again without replaying (pipeline.js).
 */
export class ReplayBytesLost extends Error {}

export class PassMemo {
  /**
   * @param {{ get(key: string): Promise<unknown>, set(key: string, value: unknown): Promise<void>, has(key: string): boolean }} cache
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
    // The input files not read yet (images) are read a window at a time, not one after another.
    await forEachOrdered([...site.files.values()].filter((file) => !site.contentKey(file)), (file) => this.contentHash(site, file), () => {});
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
   * The record stored under a key, if any, with the bytes it writes made
   * known to the site's byte store (a record names them by their hash; each
   * is its own cache entry, loaded when read). A record whose bytes are
   * missing is none; bytes found damaged when read stop the build with
   * ReplayBytesLost.
   * @param {string} key
   * @param {Site} site
   * @returns {Promise<PassRecord | undefined>}
   */
  async recall(key, site) {
    const value = await this.cache.get(key);
    if (!isRecord(value)) return undefined;
    const needed = /** @type {{ key: string }[]} */ (value.changes.filter((change) => (change.op === 'add' || change.op === 'write') && !site.bytes.has(change.key)));
    if (needed.some((change) => !this.cache.has(bytesKey(change.key)))) return undefined;
    for (const { key: bytes } of needed) site.bytes.adopt(bytes, () => this.load(bytes));
    return value;
  }

  /**
   * Bytes a record names, from the cache.
   * @param {string} key their SHA-256
   * @returns {Promise<Buffer>}
   */
  async load(key) {
    const bytes = await this.cache.get(bytesKey(key));
    if (!(bytes instanceof Uint8Array) || sha256(bytes) !== key) throw new ReplayBytesLost(`the cache lost bytes a replayed pass wrote (${key.slice(0, 12)})`);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
      changes.push({ op: 'add', path: file.path, key: /** @type {string} */ (file.outputKey), length: file.outputLength, mtimeMs: file.mtimeMs, role: file.role, parsed: file.charset !== null, ...parseInfo(file) });
      continue;
    }
    if (file.role !== was.role) changes.push({ op: 'role', path: file.path, role: file.role });
    if (file.outputKey && file.writes !== was.writes) changes.push({ op: 'write', path: file.path, key: file.outputKey, length: file.outputLength, ...(file.role === 'page' && parseInfo(file)) });
  }
  for (const path of before.files.keys()) if (!site.files.has(path)) changes.push({ op: 'remove', path });
  const { ms: _ms, ...rest } = report;
  return { changes, warnings: site.warnings.slice(before.warnings), report: rest };
}

/**
 * What the next parse of a file needs besides its bytes: a page's charset and
 * byte order mark (with them its findings come from the cache), a style
 * sheet's charset (parsed again without the page that links it, it is the
 * fallback for bytes that are not UTF-8).
 * @param {SiteFile} file
 * @returns {ParseInfo}
 */
function parseInfo(file) {
  if (file.charset === null) return {};
  return file.role === 'page' ? { charset: file.charset, bomLength: file.bomLength } : { charset: file.charset };
}

/**
 * Does to the site what a recorded pass did: adds first, then role changes and
 * writes (a written page's references resolve against the files it can point
 * at, added ones included), removals last; then the pass's warnings, exactly.
 * Pages and style sheets are parsed later (Site.parsePending), against the
 * files there were at this point of the pass.
 * @param {Site} site
 * @param {PassRecord} memo
 */
export async function replay(site, memo) {
  for (const change of memo.changes) {
    if (change.op === 'add') site.addReplayed(change.path, change, change.parsed ? parseInfoOf(change) : null);
  }
  for (const change of memo.changes) {
    if (change.op === 'role') await site.setRoleReplayed(change.path, change.role);
    else if (change.op === 'write') site.writeReplayed(change.path, change.key, change.length, parseInfoOf(change));
  }
  for (const change of memo.changes) if (change.op === 'remove') site.remove(change.path);
  for (const w of memo.warnings) site.warn(w.file, w.code, w.message);
}

/** @param {ParseInfo} change */
function parseInfoOf({ charset, bomLength }) {
  return { ...(charset !== undefined && { charset }), ...(bomLength !== undefined && { bomLength }) };
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
