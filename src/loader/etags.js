/**
 * Strong entity tags from a representation's bytes, remembered by file
 * identity (real path, size, mtime, inode) so a file is hashed once, not on
 * every request. A rebuild that replaces a file changes its inode or mtime,
 * so the tag follows the bytes.
 */
import { createHash } from 'node:crypto';

/** Enough for any site the preview serves; past it, the oldest tags go. */
const MAX_ENTRIES = 10_000;

export class EntityTags {
  /** @type {Map<string, { key: string, hash: Promise<string> }>} */
  #cache = new Map();

  /**
   * The tag of an open file: `"<16 chars of base64url SHA-1>"`, with
   * `-<coding>` before the closing quote for a compressed representation, so
   * a file's representations have distinct tags even if two sidecars happen
   * to hold the same bytes.
   * @param {string} real the file's real path (the cache key)
   * @param {import('node:fs/promises').FileHandle} handle open for reading
   * @param {import('node:fs').Stats} stats the handle's stats
   * @param {string} coding 'identity', 'br', 'zstd' or 'gzip'
   * @returns {Promise<string>}
   */
  async get(real, handle, stats, coding) {
    return `"${await this.#hash(real, handle, stats)}${coding === 'identity' ? '' : `-${coding}`}"`;
  }

  /**
   * @param {string} real
   * @param {import('node:fs/promises').FileHandle} handle
   * @param {import('node:fs').Stats} stats
   */
  #hash(real, handle, stats) {
    const key = `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
    const hit = this.#cache.get(real);
    if (hit?.key === key) return hit.hash;
    const hash = hashOf(handle);
    hash.catch(() => {
      if (this.#cache.get(real)?.hash === hash) this.#cache.delete(real);
    });
    this.#cache.delete(real); // re-inserted at the end: the map's order is its age
    this.#cache.set(real, { key, hash });
    if (this.#cache.size > MAX_ENTRIES) this.#cache.delete(/** @type {string} */ (this.#cache.keys().next().value));
    return hash;
  }
}

/**
 * Hashes the file through the handle, a chunk at a time, so the bytes hashed
 * are the bytes served even if the file is replaced meanwhile.
 * @param {import('node:fs/promises').FileHandle} handle
 */
async function hashOf(handle) {
  const hash = createHash('sha1');
  for await (const chunk of handle.createReadStream({ start: 0, autoClose: false })) hash.update(chunk);
  return hash.digest('base64url').slice(0, 16);
}
