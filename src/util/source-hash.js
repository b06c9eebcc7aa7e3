/**
 * A hash of pagediet's own source files. Cached results that come from code
 * rather than from a job's declared version (pass records, what parsing a page
 * found) are keyed on it too, so a working copy whose code changed under the
 * same version never reads results the old code made.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** @type {Promise<string> | undefined} */
let sourceHash;

/** The hash, computed once per process (about 100 small files). */
export function sourceFingerprint() {
  sourceHash ??= (async () => {
    const hash = crypto.createHash('sha256');
    const entries = await fs.readdir(SOURCE_DIR, { recursive: true, withFileTypes: true });
    const files = entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => path.join(e.parentPath, e.name)).sort();
    for (const file of files) hash.update(`${path.relative(SOURCE_DIR, file)}\0`).update(await fs.readFile(file));
    return hash.digest('hex');
  })();
  return sourceHash;
}
