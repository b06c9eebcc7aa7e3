/**
 * Atomic file writes: data goes to a temporary name in the destination's own
 * directory and is renamed over the destination, so a reader (or a build killed
 * at any moment) sees the old file or the new one, never half of one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';

/** Every temporary name ends so, so that leftovers of a killed run can be found and removed. */
export const TEMP_SUFFIX = '.pagediet-tmp';

/** This process's part of temporary names: its pid, and a random part should an earlier process have had the same. */
const PROCESS_TOKEN = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
let tempCount = 0;

/** @param {string} destination */
function tempNameFor(destination) {
  return path.join(path.dirname(destination), `.${path.basename(destination)}.${PROCESS_TOKEN}-${(tempCount++).toString(36)}${TEMP_SUFFIX}`);
}

/**
 * @param {string} destination
 * @param {(temp: string) => Promise<void>} produce writes the temporary file
 * @param {number} [mtimeMs] modification time to give the file
 */
async function commit(destination, produce, mtimeMs) {
  const temp = tempNameFor(destination);
  try {
    await produce(temp);
    if (mtimeMs !== undefined) await fs.utimes(temp, new Date(mtimeMs), new Date(mtimeMs));
    await fs.rename(temp, destination);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/**
 * @param {string} destination
 * @param {Uint8Array | string} data
 * @param {{ mtimeMs?: number }} [options]
 */
export async function writeFileAtomic(destination, data, options = {}) {
  await commit(destination, (temp) => fs.writeFile(temp, data, { flag: 'wx' }), options.mtimeMs);
}

/**
 * @param {string} source
 * @param {string} destination
 * @param {{ mtimeMs?: number }} [options]
 */
export async function copyFileAtomic(source, destination, options = {}) {
  await commit(destination, (temp) => fs.copyFile(source, temp, fs.constants.COPYFILE_EXCL), options.mtimeMs);
}

/**
 * Removes temporary files left by killed runs under a directory.
 * @param {string} dir
 * @returns {Promise<number>} how many were removed
 */
export async function removeStaleTemps(dir) {
  let removed = 0;
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.isFile() && entry.name.endsWith(TEMP_SUFFIX)) {
      await fs.rm(path.join(entry.parentPath ?? dir, entry.name), { force: true });
      removed++;
    }
  }
  return removed;
}
