/**
 * Lists the files of a directory tree, in a stable order, without following
 * anything out of it: a symlink whose target lies outside the root is reported
 * and never read.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * @typedef {object} WalkedFile
 * @property {string} path site path, POSIX separators, relative to the root
 * @property {string} absPath the real file to read
 * @property {number} size
 * @property {number} mtimeMs
 *
 * @typedef {object} SkippedEntry
 * @property {string} path
 * @property {'outside-root' | 'broken-link' | 'special' | 'unreadable'} reason
 * @property {string} message
 */

/**
 * @param {string} root an absolute, real directory path
 * @param {{ exclude?: (absPath: string) => boolean }} [options]
 * @returns {Promise<{ files: WalkedFile[], directories: string[], skipped: SkippedEntry[] }>}
 */
export async function walkSite(root, options = {}) {
  /** @type {WalkedFile[]} */
  const files = [];
  /** @type {string[]} */
  const directories = [];
  /** @type {SkippedEntry[]} */
  const skipped = [];
  /** Real directories already walked, so symlinked loops inside the root end. */
  const seen = new Set([root]);

  /** @param {string} absDir @param {string} rel */
  async function walk(absDir, rel) {
    let entries;
    try {
      entries = await fs.readdir(absDir, { withFileTypes: true });
    } catch (error) {
      skipped.push({ path: rel || '.', reason: 'unreadable', message: `cannot read directory: ${errorCode(error)}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const abs = path.join(absDir, entry.name);
      const sitePath = rel ? `${rel}/${entry.name}` : entry.name;
      if (options.exclude?.(abs)) continue;
      let real = abs;
      let stat;
      try {
        if (entry.isSymbolicLink()) {
          real = await fs.realpath(abs);
          if (!isInside(real, root)) {
            skipped.push({ path: sitePath, reason: 'outside-root', message: 'a symlink that points outside the input root: not followed' });
            continue;
          }
        }
        stat = await fs.stat(real);
      } catch (error) {
        skipped.push({ path: sitePath, reason: entry.isSymbolicLink() ? 'broken-link' : 'unreadable', message: `cannot read: ${errorCode(error)}` });
        continue;
      }
      if (stat.isDirectory()) {
        if (seen.has(real)) continue;
        seen.add(real);
        directories.push(sitePath);
        await walk(real, sitePath);
      } else if (stat.isFile()) {
        files.push({ path: sitePath, absPath: real, size: stat.size, mtimeMs: stat.mtimeMs });
      } else {
        skipped.push({ path: sitePath, reason: 'special', message: 'not a regular file (socket, device or FIFO): skipped' });
      }
    }
  }
  await walk(root, '');
  return { files, directories, skipped };
}

/**
 * Whether a path is the directory or inside it (both absolute and real).
 * @param {string} child
 * @param {string} parent
 */
export function isInside(child, parent) {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** @param {unknown} error */
export function errorCode(error) {
  return /** @type {NodeJS.ErrnoException} */ (error)?.code ?? String(error);
}

/**
 * Resolves symlinks in the part of a path that exists, so that containment
 * checks compare real locations.
 * @param {string} p absolute path
 */
export async function realish(p) {
  const missing = [];
  let current = p;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return path.join(real, ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
