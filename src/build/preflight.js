/**
 * Checks made before any work, so that a user's mistake costs one line and
 * no time: folders and files to write (their parent there or makeable, not on
 * a kernel filesystem such as /proc or /sys, writable), networks, pages to
 * load. Each returns what is wrong, for the caller to phrase with its own
 * names: a flag on the command line, an option in the API.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { locate } from '../loader/files.js';
import { NETWORKS } from '../loader/networks.js';
import { isHtmlPath } from '../site/mime.js';

/**
 * Filesystems of the kernel's own objects, by statfs(2) magic number: a
 * folder cannot be made there (EPERM), and node's recursive mkdir loops
 * forever under /proc.
 */
const KERNEL_FILESYSTEMS = new Map([
  [0x9fa0, 'proc'], [0x62656572, 'sysfs'], [0x64626720, 'debugfs'], [0x74726163, 'tracefs'],
  [0x27e0eb, 'cgroup'], [0x63677270, 'cgroup2'], [0x73636673, 'securityfs'], [0x1cd1, 'devpts'], [0x42494e4d, 'binfmt_misc'],
]);

/**
 * The nearest folder of a path that exists, and what it is.
 * @param {string} target absolute
 * @returns {Promise<{ dir: string, stat: import('node:fs').Stats | null, blockedBy?: string }>}
 */
async function nearestExisting(target) {
  let dir = target;
  for (;;) {
    const stat = await fs.stat(dir).catch(() => null);
    if (stat) return stat.isDirectory() ? { dir, stat } : { dir, stat, blockedBy: dir };
    const parent = path.dirname(dir);
    if (parent === dir) return { dir, stat: null };
    dir = parent;
  }
}

/**
 * Why a folder cannot be written (made, if it is not there), or null.
 * @param {string} folder absolute
 * @returns {Promise<string | null>}
 */
export async function folderProblem(folder) {
  const at = await nearestExisting(folder);
  if (at.blockedBy) return at.blockedBy === folder ? 'it is a file, not a folder' : `${at.blockedBy} is a file, not a folder`;
  if (!at.stat) return 'no part of its path exists';
  return placeProblem(at.dir);
}

/**
 * Why a file cannot be written at a path, or null: its folder must exist.
 * @param {string} file absolute
 * @returns {Promise<string | null>}
 */
export async function fileProblem(file) {
  const stat = await fs.stat(file).catch(() => null);
  if (stat?.isDirectory()) return 'it is a folder';
  const dir = path.dirname(file);
  const parent = await fs.stat(dir).catch(() => null);
  if (!parent) return `its folder ${dir} does not exist`;
  if (!parent.isDirectory()) return `${dir} is not a folder`;
  return placeProblem(dir);
}

/**
 * Why nothing can be written in an existing folder, or null.
 * @param {string} dir
 */
async function placeProblem(dir) {
  const real = await fs.realpath(dir).catch(() => dir);
  const info = await fs.statfs(real).catch(() => null);
  const kernel = info ? KERNEL_FILESYSTEMS.get(Number(info.type)) : undefined;
  if (kernel) return `${real} is on ${kernel}, the kernel's own filesystem, not a place for files`;
  if (real === '/dev' || real.startsWith('/dev/')) return `${real} holds devices, not a place for files`;
  try {
    await fs.access(real, fs.constants.W_OK);
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    return code === 'EROFS' ? `${real} is on a read-only filesystem` : `${real} is not writable`;
  }
  return null;
}

/**
 * The names that are not networks of the loader.
 * @param {readonly string[]} names
 * @returns {string[]}
 */
export function unknownNetworks(names) {
  return names.filter((n) => n !== 'custom' && !Object.hasOwn(NETWORKS, n));
}

/** The networks one may name, for messages. */
export function networkNames() {
  return [...Object.keys(NETWORKS), 'custom'].join(', ');
}

/**
 * The pages (URL paths, as `load` takes them) that are no page of a site:
 * those the loader's server (`locate`, src/loader/files.js) would not answer
 * with an HTML file, a folder's index followed.
 * @param {string} root
 * @param {readonly string[]} pages
 * @returns {Promise<string[]>}
 */
export async function missingPages(root, pages) {
  const real = await fs.realpath(root);
  const missing = [];
  for (const page of pages) {
    let found = await locate(real, page, 'text/html');
    if ('redirect' in found) found = await locate(real, found.redirect, 'text/html');
    if (!('file' in found) || !isHtmlPath(found.file.path)) missing.push(page);
  }
  return missing;
}
