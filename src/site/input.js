/**
 * The site's input files: reading their bytes (or why they cannot be read),
 * and checking their first bytes for files that are not what their names say.
 */
import fs from 'node:fs/promises';
import { errorCode } from './walk.js';
import { forEachOrdered } from '../util/ordered.js';
import { fileProblem, headBytesFor } from './checks.js';

/**
 * @typedef {import('./site.js').Site} Site
 * @typedef {import('./site.js').SiteFile} SiteFile
 */

/**
 * Warns about files that are not what their names say (checks.js): empty, mislabelled images, SVG with scripts.
 * @param {Site} site
 */
export async function checkFiles(site) {
  const checked = [...site.files.values()].filter((file) => file.absPath && (file.size === 0 || /\.(gif|png|apng|jpe?g|jpe|webp|svg)$/i.test(file.path)));
  // A window of files read at once; the warnings come in the files' order.
  await forEachOrdered(checked, (file) => headOf(file), (head, file) => {
    // null: unreadable, which parse or the passes warn about when they need the file.
    const problem = head && fileProblem(file, head);
    if (problem) site.warn(file.path, problem.code, problem.message);
  });
}

/**
 * The first bytes of an input file, as many as checkFiles looks at; null when it cannot be read.
 * @param {SiteFile} file
 * @returns {Promise<Buffer | null>}
 */
async function headOf(file) {
  if (file.size === 0) return Buffer.alloc(0);
  try {
    const handle = await fs.open(/** @type {string} */ (file.absPath), 'r');
    try {
      const want = Math.min(file.size, headBytesFor(file));
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(want), 0, want, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/**
 * The bytes of an input file, or of a file a pass created; null, warned about, when it cannot be read.
 * @param {Site} site
 * @param {SiteFile} file
 * @returns {Promise<Buffer | null>}
 */
export async function readInput(site, file) {
  const read = await readInputOrWhy(site, file);
  if (read && 'unreadable' in read) {
    warnUnreadable(site, file, read.unreadable);
    return null;
  }
  return read;
}

/**
 * readInput without its warning: why the file could not be read, for a caller that warns in its own order.
 * @param {Site} site
 * @param {SiteFile} file
 * @returns {Promise<Buffer | { unreadable: string } | null>}
 */
export async function readInputOrWhy(site, file) {
  if (!file.absPath) return file.outputKey ? site.bytes.get(file.outputKey) : null;
  try {
    return await fs.readFile(file.absPath);
  } catch (error) {
    return { unreadable: errorCode(error) };
  }
}

/** @param {Site} site @param {SiteFile} file @param {string} code */
export function warnUnreadable(site, file, code) {
  site.warn(file.path, 'unreadable', `cannot read: ${code}`);
}
